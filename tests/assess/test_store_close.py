"""Closing a PostgreSQL store with saves in flight (a review finding on its save threads):
the saves end, committed, before ``close()`` returns, and a save after it still works (it was
a closed thread pool's RuntimeError, a 500)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from inexeval.assess.api import authorised
from inexeval.assess.store import Judgement, Store

pytestmark = pytest.mark.parametrize("store_url", ["postgresql"], indirect=True)


def _highlighted(judgement: Judgement) -> Judgement:
    return replace(judgement, status="in-progress", passages=((0, 4),))


def _slowly(judgement: Judgement) -> Judgement:
    time.sleep(0.5)
    return _highlighted(judgement)


def _save(store: Store, session: tuple[str, str], version: int, change: Any) -> Any:
    token, csrf = session
    return store.save_change_of_session(token, 3600, lambda found: authorised(found, csrf),
                                        "1", "co/a1", version, change)


def test_close_waits_for_the_saves_in_flight(campaign: str) -> None:
    store = Store.open(campaign)
    alice, bob = store.create_session("alice"), store.create_session("bob")
    flying = [_save(store, alice, 0, _slowly), _save(store, bob, 0, _slowly)]
    time.sleep(0.1)
    store.close()
    assert all(future.done() for future in flying)
    assert [future.result()[0].version for future in flying] == [1, 1]
    assert _save(store, alice, 1, _highlighted).result(timeout=10)[0].version == 2
    store.close()
    again = Store.open(campaign)
    try:
        assert again.judgement("1", "co/a1", "alice").version == 2
        assert again.judgement("1", "co/a1", "bob").version == 1
    finally:
        again.close()
