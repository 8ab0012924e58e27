"""The ASGI app of the assessment service: :func:`create_app` for ``inexeval assess serve``.

The app serves the JSON API (:mod:`inexeval.assess.api`), the browser interface's pages
(:mod:`inexeval.assess.pages`) and its static files (``static/`` beside this module).
:class:`Guard` refuses what no handler should see (a foreign host, a control character in the
path, a cross-site post, a body larger than :data:`MAX_BODY_BYTES`) and puts the security
headers on every response. A problem of the request is a JSON error with its 4xx status, a
failing store 503, never a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import gc
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from inexeval.assess import admin, api, pages
from inexeval.assess.api import refused_text
from inexeval.assess.store import Store
from inexeval.errors import InexevalError

MAX_BODY_BYTES = 512 * 1024
"""Largest request body accepted (a judgement of a large article is a few kilobytes)."""
STATIC = Path(__file__).with_name("static")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""The host names a request may name by default (``assess serve --allowed-host`` adds more)."""
CONTENT_SECURITY_POLICY = ("default-src 'self'; object-src 'none'; base-uri 'none'; "
                           "frame-ancestors 'none'; form-action 'self'")
_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"same-origin"),
            (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())]
_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


class _TooLarge(Exception):
    pass


class Guard:
    """ASGI middleware around the whole app (500 responses included), before any handler:

    * 400 for a ``Host`` that is not one of ``allowed_hosts`` (DNS rebinding of a local server);
    * 404 for a path, 422 for a query with a control character (NUL included);
    * 403 for a state-changing request from another site (``Sec-Fetch-Site`` other than
      same-origin or none, or an ``Origin`` that is not the ``Host``): login CSRF;
    * 413 for a body above ``limit`` bytes (by its Content-Length, or while it streams in);

    and on every response the security headers: a strict Content-Security-Policy, no framing,
    no sniffing, ``Cache-Control: no-store`` (but on static files), HSTS when ``secure``, and
    ``Server-Timing: app;dur=MS``, the time the app took to start answering (so a client can tell
    it from the network's), but on ``/login``, where it would time the password check."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
                 secure: bool = False, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.allowed_hosts = {h.lower().strip("[]") for h in allowed_hosts}
        self.limit = limit
        self.headers = [*_HEADERS, *([(b"strict-transport-security",
                                       b"max-age=31536000; includeSubDomains")] if secure else [])]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        path: str = scope["path"]
        extra = [] if path.startswith("/static/") else [(b"cache-control", b"no-store")]
        timed = path != "/login"
        started = False

        async def secured_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                timing = [(b"server-timing",
                           f"app;dur={1000 * (time.perf_counter() - began):.1f}".encode())]
                message["headers"] = [*message.get("headers", []), *self.headers, *extra,
                                      *(timing if timed else [])]
            await send(message)

        refusal = self.refusal(scope)
        if refusal is not None:
            await _json(secured_send, *refusal)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited_receive, secured_send)
        except _TooLarge:
            if not started:
                await _json(secured_send, 413, _TOO_LARGE)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """The status and message of a request refused before the app sees it, or None."""
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = _host_name(headers.get("host", ""))
        if host not in self.allowed_hosts:
            return 400, (f"the host {host[:100]!r} is not served here (assess serve "
                         "--allowed-host names more)")
        if refused_text(scope["path"]):
            return 404, "no such page: the path holds a control character"
        query = unquote(scope.get("query_string", b"").decode("latin-1"), errors="replace")
        if refused_text(query):
            return 422, "the query holds a control character"
        if scope["method"] not in _SAFE_METHODS:
            site = headers.get("sec-fetch-site", "same-origin")
            origin = headers.get("origin")
            if site not in ("same-origin", "none") or (
                    origin is not None and _host_of(origin) != headers.get("host", "").lower()):
                return 403, "a request from another site is refused"
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > self.limit:
            return 413, _TOO_LARGE
        return None


_TOO_LARGE = f"the body is larger than {MAX_BODY_BYTES} bytes"


def _host_name(host: str) -> str:
    """The name of a ``Host`` header, without its port."""
    host = host.lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _host_of(origin: str) -> str | None:
    """The ``host[:port]`` of an ``Origin`` header (None for ``null`` or garbage)."""
    parts = urlsplit(origin)
    return parts.netloc.lower() if parts.scheme in ("http", "https") and parts.netloc else None


async def _json(send: Send, status: int, message: str) -> None:
    response = JSONResponse({"error": message}, status_code=status)
    await send({"type": "http.response.start", "status": status,
                "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})


async def _http_error(request: Request, failure: Exception) -> Response:
    assert isinstance(failure, HTTPException)
    return JSONResponse({"error": failure.detail}, status_code=failure.status_code,
                        headers=failure.headers)


async def _store_error(request: Request, failure: Exception) -> Response:
    return api.handle_store_error(request, failure)


async def _database_error(request: Request, failure: Exception) -> Response:
    return api.database_error(request, failure)


async def _too_large(request: Request, failure: Exception) -> Response:
    return JSONResponse({"error": _TOO_LARGE}, status_code=413)


async def _server_error(request: Request, failure: Exception) -> Response:
    return JSONResponse({"error": "internal error (the server's log says more)"}, status_code=500)


class _App(Starlette):
    """Starlette with :class:`Guard` outside its error middleware (errors carry the headers)."""

    guard: dict[str, Any]

    def build_middleware_stack(self) -> ASGIApp:
        return Guard(super().build_middleware_stack(), **self.guard)


def _closing(service: api.Service) -> Any:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # what the process holds once it serves (modules, the app) is kept out of the
        # collector's full passes: under twenty assessors saving back to back each pass
        # stopped every request for 20-35 ms, a few times a second
        gc.collect()  # (cycles left by what came before would stay for good)
        gc.freeze()
        yield
        service.checks.close()
        service.store.close()
    return lifespan


SERVE_OPTIONS = "INEXEVAL_ASSESS_SERVE"
"""The environment variable through which ``assess serve --workers N`` gives each worker
process the options of :func:`create_app` (JSON)."""


def create_app_from_environment() -> Starlette:
    """:func:`create_app` with the options in :data:`SERVE_OPTIONS` (uvicorn's factory in
    each worker process of ``assess serve --workers N``)."""
    options: dict[str, Any] = json.loads(os.environ[SERVE_OPTIONS])
    return create_app(**options)


def create_app(store_url: str | Path, *, secure_cookies: bool = False,
               allowed_hosts: Iterable[str] = (), processes: int = 1,
               address_hold: float | None = None, **service_options: Any) -> Starlette:
    """The assessment service over the store at ``store_url`` (a SQLite path or a
    ``postgresql://`` URL), the one store of the process. ``secure_cookies`` marks the session
    cookie Secure and sends HSTS (behind HTTPS); requests may name the loopback hosts and
    ``allowed_hosts``; ``processes`` serve the store together (``serve --workers``);
    ``address_hold``: the login limiter's hold of an address over its failure limit
    (:class:`inexeval.assess.api.LoginLimiter`, ``serve --address-hold``); ``service_options``
    go to :class:`inexeval.assess.api.Service` (``hasher``, ``limiter``, ``session_idle``,
    ``check_threads``)."""
    if address_hold is not None:
        service_options["limiter"] = api.LoginLimiter(address_hold=address_hold)
    store = Store.open(store_url)
    if processes > 1:
        store.share_writes()
    service = api.Service(store, store.mode(), secure_cookies=secure_cookies, **service_options)
    routes: list[BaseRoute] = [*api.routes(), *admin.routes(service), *pages.routes(service)]
    if STATIC.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    app = _App(
        routes=routes,
        exception_handlers={HTTPException: _http_error, InexevalError: _store_error,
                            sa.exc.SQLAlchemyError: _database_error, _TooLarge: _too_large,
                            Exception: _server_error},
        lifespan=_closing(service))
    app.guard = {"allowed_hosts": [*LOOPBACK_HOSTS, *allowed_hosts], "secure": secure_cookies}
    app.state.service = service
    return app


class CancelledAtShutdown(logging.Filter):
    """uvicorn's "Exception in ASGI application" for a request it cancelled because it still
    ran when the server stopped (``timeout_graceful_shutdown``: a client sending its body
    slowly, say) becomes one line: the cancellation is the stop working, not an error, and
    its traceback (forty lines) read as a crash in the operator's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, asyncio.CancelledError):
            record.msg, record.args = "a request still running at the stop was cancelled", ()
            record.exc_info, record.exc_text = None, None
        return True


def serve_logging() -> dict[str, Any]:
    """uvicorn's logging configuration with :class:`CancelledAtShutdown` on its error log's
    handler (a configuration, not a filter added here: ``--workers`` processes configure their
    logging afresh from it)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["cancelled"] = {
        "()": f"{CancelledAtShutdown.__module__}.{CancelledAtShutdown.__qualname__}"}
    config["handlers"]["default"].setdefault("filters", []).append("cancelled")
    return config
