"""The ASGI app of the assessment service: :func:`create_app` for ``inexeval assess serve``.

The app serves the JSON API (:mod:`inexeval.assess.api`), the browser interface's pages
(:mod:`inexeval.assess.pages`) and its static files (``static/`` beside this module). Bodies
larger than :data:`MAX_BODY_BYTES` are refused with 413 before they are read; a problem of the
request is a JSON error with its 4xx status, never a 500; every response forbids framing and
content sniffing.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from inexeval.assess import api, pages
from inexeval.assess.store import Store
from inexeval.errors import InexevalError

MAX_BODY_BYTES = 512 * 1024
"""Largest request body accepted (a judgement of a large article is a few kilobytes)."""
STATIC = Path(__file__).with_name("static")
_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"same-origin")]


class _TooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: 413 for a body above ``limit`` bytes (by its Content-Length, or while it
    streams in); on every response the security headers and ``Server-Timing: app;dur=MS``, the
    time the app took to start answering (so a client can tell it from the network's)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        length = headers.get(b"content-length", b"0")
        if not length.isdigit() or int(length) > self.limit:
            await _too_large(send)
            return
        received = 0
        started = False
        began = time.perf_counter()

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge
            return message

        async def secured_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                timing = f"app;dur={1000 * (time.perf_counter() - began):.1f}".encode()
                message["headers"] = [*message.get("headers", []), *_HEADERS,
                                      (b"server-timing", timing)]
            await send(message)

        try:
            await self.app(scope, limited_receive, secured_send)
        except _TooLarge:
            if not started:
                await _too_large(send)


async def _too_large(send: Send) -> None:
    response = JSONResponse({"error": f"the body is larger than {MAX_BODY_BYTES} bytes"},
                            status_code=413)
    await send({"type": "http.response.start", "status": 413,
                "headers": [*response.raw_headers, *_HEADERS]})
    await send({"type": "http.response.body", "body": response.body})


async def _http_error(request: Request, failure: Exception) -> Response:
    assert isinstance(failure, HTTPException)
    return JSONResponse({"error": failure.detail}, status_code=failure.status_code,
                        headers=failure.headers)


async def _store_error(request: Request, failure: Exception) -> Response:
    return api.handle_store_error(request, failure)


def _closing(store: Store) -> Any:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        store.close()
    return lifespan


def create_app(store_url: str | Path, *, secure_cookies: bool = False,
               **service_options: Any) -> Starlette:
    """The assessment service over the store at ``store_url`` (a SQLite path or a
    ``postgresql://`` URL). ``secure_cookies`` marks the session cookie Secure (behind HTTPS);
    ``service_options`` go to :class:`inexeval.assess.api.Service` (``hasher``, ``limiter``)."""
    store = Store.open(store_url)
    service = api.Service(store, store.mode(), secure_cookies=secure_cookies, **service_options)
    routes: list[BaseRoute] = [*api.routes(), *pages.routes(store)]
    if STATIC.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: _http_error, InexevalError: _store_error},
        lifespan=_closing(store))
    app.state.service = service
    app.add_middleware(BodyLimit)
    return app
