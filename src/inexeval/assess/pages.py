"""The browser interface's pages (login page, topics, documents, admin): filled by the browser
interface; the API in :mod:`inexeval.assess.api` is all they use."""

from __future__ import annotations

from starlette.routing import BaseRoute

from inexeval.assess.store import Store


def routes(store: Store) -> list[BaseRoute]:
    """The page routes of the app (none yet)."""
    return []
