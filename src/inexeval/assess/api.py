"""The HTTP API of the assessment service: login, sessions, CSRF and the JSON endpoints.

Paths, bodies and status codes are those of :data:`OPENAPI` (served at ``/api/openapi.json``).
Every error is a JSON object ``{"error": message}`` (plus ``problems`` on 422 and ``current``, the
stored judgement, on 409). Bad input never gives a 500: bodies are parsed and checked here, the
rules in :mod:`inexeval.assess.rules`, and every change runs through
:meth:`inexeval.assess.store.Store.save` in one transaction.

Authentication: ``POST /login`` (form fields ``username``, ``password``) sets an HTTP-only,
SameSite=Strict session cookie; ``GET /api/session`` gives the CSRF token that every
state-changing request must carry in the header ``X-CSRF-Token`` (a form post may send it as the
field ``csrf_token``). Failed logins are limited per user name and per client address
(:class:`LoginLimiter`); passwords are checked by argon2 in a pool of their own with a bounded
queue (:class:`PasswordChecks`), an unknown name against a dummy hash of the same cost.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import math
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar
from urllib.parse import quote

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from inexeval.assess import rules
from inexeval.assess.merge import MergeConflict, three_way
from inexeval.assess.model import MAX_SECONDS, Judgement, merge_passages, topic_keywords
from inexeval.assess.names import MIN_ELEMENT_CHARS, element_names, inline_elements
from inexeval.assess.store import (
    SESSION_IDLE,
    Conflict,
    Document,
    Locked,
    NotAssigned,
    NotFound,
    Store,
    User,
    user_key,
)
from inexeval.collection.paths import canonical_path
from inexeval.errors import InexevalError

SESSION_COOKIE = "inexeval_session"
CSRF_HEADER = "X-CSRF-Token"
LOGIN_ATTEMPTS = 5
"""Failed logins of one user name before each further attempt waits (:class:`LoginLimiter`)."""
ADDRESS_ATTEMPTS = 20
"""Failed logins from one client address before each further attempt waits."""
MAX_JSON_DEPTH = 32
"""Deeper JSON bodies are refused (422); a judgement is three levels deep."""
_READ_ONLY = {"topic", "file", "assessor", "updated", "problems", "implicit", "relevant",
              "inferred"}
_FIELDS = {"version", "status", "passages", "best_entry_point", "exhaustivity", "values",
           "seconds"}

Handler = Callable[[Request], Awaitable[Response]]
DOCUMENT_CACHE_CHARS = 20_000_000
"""Characters of text the document cache of a serving process holds at most (64 documents
were too few for twenty assessors each moving among a few of their topic's)."""


@dataclass(frozen=True)
class LoginLimiter:
    """Failed logins with exponential backoff, per user name and per client address, kept in
    the store (a restart forgets nothing; see
    :meth:`inexeval.assess.store.Store.count_login_attempt`).

    An attempt is counted as a failure *before* its password is checked (a right password then
    takes it back), so concurrent guesses are all counted. After ``per_name`` failures for a
    name, each further attempt waits ``first_wait * 2 ** (failures - per_name)`` seconds after
    the last failure, at most ``name_wait`` (60 s: an attacker can slow a victim's login down,
    never lock it out); a right password does not forget the name's failures (it only takes
    its own attempt back), so that a user logging in between an attacker's guesses of that
    name gives the attacker no fresh free guesses. After ``per_address`` failures from an
    address the address waits the same way, at most ``address_wait``, but its logins are not
    refused: each still gets its password checked, one at a time for the address, after
    holding the address's turn for its wait, at most ``address_hold`` seconds (a right
    password is never refused for its address's wrong ones, a lab behind NAT with a careless
    typist included; an attacker's guesses from the address cost it ``address_hold`` each).
    Keys idle for ``forget`` seconds are forgotten, the oldest beyond ``most`` too (OWASP ASVS
    2.2.1; the backoff of Datasette's and Django-axes' limiters)."""

    per_name: int = LOGIN_ATTEMPTS
    per_address: int = ADDRESS_ATTEMPTS
    first_wait: float = 1.0
    name_wait: float = 60.0
    address_wait: float = 900.0
    address_hold: float = 5.0
    forget: float = 24 * 3600.0
    most: int = 100_000

    def _delay(self, free: int, longest: float) -> Callable[[int], float]:
        def delay(failures: int) -> float:
            if failures < free:
                return float("-inf")
            return min(self.first_wait * 2.0 ** min(failures - free, 30), longest)
        return delay

    def keys(self, name: str, address: str) -> tuple[str, str]:
        """The store's keys of a user name and of a client address (hashed: any length, any
        character)."""
        name = user_key(name)
        return (hashlib.sha256(f"name\0{name}".encode("utf-8", "replace")).hexdigest(),
                hashlib.sha256(f"address\0{address}".encode("utf-8", "replace")).hexdigest())

    def attempt(self, store: Store, name: str | None, address: str | None, *,
                waiting: bool = True) -> float:
        """Count an attempt under the name's key and the address's (each when given); the
        seconds to wait instead when one of them must wait (with ``waiting`` false the attempt
        is counted whatever the wait)."""
        name_key, address_key = self.keys(name or "", address or "")

        def delay(free: int, longest: float) -> Callable[[int], float]:
            return self._delay(free, longest) if waiting else lambda failures: float("-inf")

        return store.count_login_attempt(
            [*([(address_key, delay(self.per_address, self.address_wait))]
               if address is not None else []),
             *([(name_key, delay(self.per_name, self.name_wait))]
               if name is not None else [])],
            time.time(), self.forget, self.most)

    def no_failure(self, store: Store, name: str, address: str | None) -> None:
        """An attempt that is no failure (its password was right, or it could not be checked)
        is taken back from the name (and the address, when it was counted there); the name's
        other failures stay (see the class)."""
        name_key, address_key = self.keys(name, address or "")
        store.login_taken_back([name_key, *([address_key] if address is not None else [])])


class Busy(Exception):
    """No password check could start within the queue's bound."""


class Crowded(Exception):
    """The login's address already has :attr:`PasswordChecks.most_per_address` logins waiting
    for their turn."""


BUSY_RETRY_SECONDS = 5
"""The ``Retry-After`` of a login answered 503 because every password check was busy."""


CHECK_THREADS = 2
"""Password checks at a time (argon2's default cost takes 64 MiB each), in all the serving
processes together, but never fewer than one per process (``serve --workers 4`` runs four)."""
CHECK_QUEUE_SECONDS = 30.0
"""Longest a login waits for its password check before 503: twenty logins from one lab behind
NAT are checked one after another (0.3 s each with argon2-cffi's default cost on a busy
two-core machine: 6 s), with room for a slower machine."""


class PasswordChecks:
    """Argon2 checks in ``workers`` threads of their own (never the event loop, never the
    thread pool the other requests' store work runs in), queued in arrival order with per-
    address fairness: a client address holds at most one check, queued or running, at a time
    (:meth:`turn`; its other logins wait behind it), so that an address sending many logins
    (an attacker's wrong guesses) delays only itself, and twenty correct logins from one lab
    behind NAT are checked one after another. A login that cannot start its check within
    ``queue_seconds`` (or beyond ``most_waiting`` waiting logins) raises :class:`Busy` (503,
    retry); an address never holds more than ``most_per_address`` of the waiting places (a
    lab of twenty and room to spare; one more is :class:`Crowded`, 429), so that one address's
    logins, each holding its turn while the address is over its failure limit, cannot fill
    the queue for everyone else. An unknown user name is checked against a dummy hash made with
    the same hasher, so it costs the same time."""

    def __init__(self, hasher: PasswordHasher, workers: int = CHECK_THREADS,
                 queue_seconds: float = CHECK_QUEUE_SECONDS, most_waiting: int = 1000,
                 most_per_address: int = 32):
        self.hasher = hasher
        self.workers = workers
        self.queue_seconds = queue_seconds
        self.most_waiting = most_waiting
        self.most_per_address = most_per_address
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="argon2")
        self._dummy = hasher.hash(secrets.token_urlsafe(16))
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots = asyncio.Semaphore(workers)
        self._turns: dict[str, tuple[asyncio.Lock, list[int]]] = {}
        self._waiting = 0

    def _bind(self) -> None:
        # asyncio's locks belong to one event loop: a new loop (a test client's) gets new ones
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop, self._slots, self._turns = loop, asyncio.Semaphore(self.workers), {}

    @contextlib.asynccontextmanager
    async def turn(self, address: str) -> AsyncIterator[float]:
        """The address's turn to check a password (one at a time per address); yields the
        deadline (``loop.time()``) by which its check must start. :class:`Busy` when the turn
        does not come within ``queue_seconds``; :class:`Crowded` when the address already has
        ``most_per_address`` logins waiting or checked."""
        self._bind()
        assert self._loop is not None
        deadline = self._loop.time() + self.queue_seconds
        if self._waiting >= self.most_waiting:
            raise Busy
        lock, holders = self._turns.setdefault(address, (asyncio.Lock(), [0]))
        if holders[0] >= self.most_per_address:
            raise Crowded
        holders[0] += 1
        self._waiting += 1
        try:
            try:
                async with asyncio.timeout_at(deadline):
                    await lock.acquire()
            except TimeoutError:
                raise Busy from None
            try:
                yield deadline
            finally:
                lock.release()
        finally:
            self._waiting -= 1
            holders[0] -= 1
            if not holders[0]:
                del self._turns[address]

    async def verify(self, password_hash: str | None, password: str,
                     deadline: float | None = None) -> bool:
        """Whether ``password`` is the one of ``password_hash`` (None: an unknown user, never);
        :class:`Busy` when no worker is free by ``deadline`` (default: ``queue_seconds`` from
        now)."""
        self._bind()
        assert self._loop is not None
        try:
            async with asyncio.timeout_at(deadline if deadline is not None
                                          else self._loop.time() + self.queue_seconds):
                await self._slots.acquire()
        except TimeoutError:
            raise Busy from None
        try:
            return await asyncio.wrap_future(self._pool.submit(
                self._verify, password_hash or self._dummy, password, password_hash is not None))
        finally:
            self._slots.release()

    def _verify(self, password_hash: str, password: str, known: bool) -> bool:
        try:
            self.hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False
        return known

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class Service:
    """What the handlers share: the store, the campaign's mode, the password hasher, the login
    limiter and a small cache of documents (documents never change after ``init``)."""

    store: Store
    mode: str
    hasher: PasswordHasher = field(default_factory=PasswordHasher)
    limiter: LoginLimiter = field(default_factory=LoginLimiter)
    secure_cookies: bool = False
    session_idle: float = SESSION_IDLE
    check_threads: int = CHECK_THREADS
    checks: PasswordChecks = field(init=False)
    _documents: OrderedDict[str, Document] = field(default_factory=OrderedDict)
    _document_chars: int = 0
    _pool_paths: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    _pool_files: dict[str, frozenset[str]] = field(default_factory=dict)
    _keyword_spans: OrderedDict[tuple[str, tuple[str, ...]], list[tuple[int, int]]] = field(
        default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _logged: set[str] = field(default_factory=set)
    min_element_chars: int = field(init=False, default=MIN_ELEMENT_CHARS)
    """Highlight mode: elements with less text are never asked (``assess init``)."""

    def __post_init__(self) -> None:
        self.checks = PasswordChecks(self.hasher, self.check_threads)
        if self.mode == "highlight":
            chars = self.store.setting("min_element_chars")
            self.min_element_chars = MIN_ELEMENT_CHARS if chars is None else int(chars)

    def log_once(self, message: str) -> None:
        """Log a failure of the store once per kind (not once per request)."""
        with self._lock:
            if message in self._logged:
                return
            self._logged.add(message)
        logging.getLogger("inexeval.assess").error("%s", message)

    def document(self, file: str) -> Document:
        """The document ``file`` (:meth:`Store.document`), from a cache of the documents last
        asked for, :data:`DOCUMENT_CACHE_CHARS` characters of text at most."""
        with self._lock:
            if file in self._documents:
                self._documents.move_to_end(file)
                return self._documents[file]
        document = self.store.document(file)
        with self._lock:
            if file not in self._documents:
                self._documents[file] = document
                self._document_chars += document.length
            while self._document_chars > DOCUMENT_CACHE_CHARS and len(self._documents) > 1:
                self._document_chars -= self._documents.popitem(last=False)[1].length
        return document

    def pool_paths(self, topic: str, file: str) -> list[str]:
        """The pooled elements of a document for a topic (fixed at ``init``, so cached)."""
        key = (topic, file)
        found = self._pool_paths.get(key)
        if found is None:
            found = self._pool_paths[key] = self.store.pool_paths(topic, file)
        return found

    def keyword_spans(self, document: Document, words: list[str],
                      cancel: threading.Event | None = None) -> list[tuple[int, int]]:
        """:func:`inexeval.assess.stems.keyword_spans` of a document, cached per document and
        keywords (an assessor's pages of one topic ask the same again and again); ``cancel``
        stops it (:class:`inexeval.assess.stems.Cancelled`)."""
        from inexeval.assess.stems import keyword_spans

        key = (document.file, tuple(words))
        with self._lock:
            found = self._keyword_spans.get(key)
            if found is not None:
                self._keyword_spans.move_to_end(key)
                return found
        edges = [at for _, start, end in document.elements for at in (start, end)]
        found = keyword_spans(document.text, words, edges, cancel)
        with self._lock:
            self._keyword_spans[key] = found
            while len(self._keyword_spans) > 256:
                self._keyword_spans.popitem(last=False)
        return found

    def require_pooled(self, topic: str, file: str) -> None:
        """:class:`NotFound` unless ``file`` (or the article of a repeat's address) is in the
        pool of ``topic`` (the pool is fixed at ``init``, so its files are cached)."""
        files = self._pool_files.get(topic)
        if files is None:
            files = self._pool_files[topic] = frozenset(self.store.pool_files(topic))
        if file not in files and self.store.repeat_article(topic, file) is None:
            raise NotFound(f"document {file!r} is not in the pool of topic {topic!r}")

    def knows(self, topic: str, file: str) -> bool:
        """Whether ``file`` is known to be in the pool of ``topic``, with its pooled elements
        and its document in the caches (a save of it reads nothing else from the store)."""
        return file in self._pool_files.get(topic, ()) and (topic, file) in self._pool_paths \
            and file in self._documents

    def structure(self, file: str) -> rules.Structure:
        document = self.document(file)
        inline = inline_elements(document.elements, self.min_element_chars) \
            if self.mode == "highlight" else frozenset()
        return rules.Structure(document.length, document.elements, inline)


DISCONNECT_POLL_SECONDS = 0.1
"""How often a long request looks whether its client is still there."""
_T = TypeVar("_T")


async def while_connected(request: Request, work: Callable[[threading.Event], _T]) -> _T:
    """``work(cancel)`` in the thread pool, stopped when the client goes away: its connection
    is looked at every :data:`DISCONNECT_POLL_SECONDS` while the work runs, and once it is
    closed ``cancel`` is set, which the work looks at between chunks and then raises
    :class:`inexeval.assess.stems.Cancelled` (a keyword request on a long article went on for
    seconds of CPU after its page was closed). A request cancelled by the server (shutting
    down) sets it too."""
    cancel = threading.Event()
    running = asyncio.ensure_future(run_in_threadpool(work, cancel))
    try:
        while not running.done():
            await asyncio.wait({running}, timeout=DISCONNECT_POLL_SECONDS)
            if not running.done() and await request.is_disconnected():
                cancel.set()
        return running.result()
    finally:
        cancel.set()


def error(status: int, message: str, headers: dict[str, str] | None = None,
          **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


def service(request: Request) -> Service:
    found: Service = request.app.state.service
    return found


async def session_of(request: Request) -> tuple[User, str] | None:
    """The logged-in user and the session's CSRF token, or None."""
    return await run_in_threadpool(_session, service(request), request)


def _session(app: Service, request: Request) -> tuple[User, str] | None:
    token = request.cookies.get(SESSION_COOKIE)
    return app.store.session(token, app.session_idle) if token else None


def user_of(app: Service, request: Request, *, change: bool, admin: bool = False,
            form_token: str = "") -> User:
    """The logged-in user (401 otherwise); a state change needs the session's CSRF token in the
    header (or ``form_token``, from a form post) (403), an admin request an admin (403). Runs
    in a worker thread (it reads the store)."""
    given = (request.headers.get(CSRF_HEADER, "") or form_token) if change else None
    return authorised(_session(app, request), given, admin=admin)


def authorised(found: tuple[User, str] | None, csrf_token: str | None,
               admin: bool = False) -> User:
    """The user of a session (:meth:`Store.session`), 401 for none; 403 for a ``csrf_token``
    (None: a request that changes nothing) that is not the session's, or a user not an admin
    where ``admin``."""
    if found is None:
        raise HTTPException(401, "not logged in")
    user, csrf = found
    if csrf_token is not None and not secrets.compare_digest(csrf_token.encode(),
                                                             csrf.encode()):
        raise HTTPException(403, f"missing or wrong {CSRF_HEADER} header")
    if admin and not user.admin:
        raise HTTPException(403, "only an administrator may do this")
    return user


async def authorise(request: Request, *, change: bool, admin: bool = False) -> User:
    """:func:`user_of` for a request, reading a posted form's ``csrf_token`` when the header is
    missing."""
    form_token = ""
    if change and CSRF_HEADER not in request.headers and _is_form(request):
        await request.body()  # kept: a handler may read the body after the form
        try:
            form_token = str((await request.form()).get("csrf_token", ""))
        except Exception:  # noqa: BLE001 - python-multipart raises several kinds on a broken body
            form_token = ""
    return await run_in_threadpool(user_of, service(request), request, change=change,
                                   admin=admin, form_token=form_token)


def _is_form(request: Request) -> bool:
    return request.headers.get("content-type", "").split(";")[0].strip().lower() in (
        "application/x-www-form-urlencoded", "multipart/form-data")


async def json_request(request: Request) -> dict[str, Any]:
    """The JSON object of a request's body (:func:`json_body`); 415 for a form (an endpoint of
    JSON bodies)."""
    if _is_form(request):
        raise HTTPException(415, "the body must be JSON (Content-Type: application/json), not "
                                 "a form")
    return json_body(await request.body())


def _wants_html(request: Request) -> bool:
    return "text/html" in request.headers.get("accept", "")


# -- login and session -------------------------------------------------------------------------

def refused_text(text: str) -> bool:
    """Whether ``text`` holds a control character (NUL included) or a lone surrogate (JSON's
    ``"\\ud800"``): no name, topic, path or form field has one, PostgreSQL cannot store a NUL,
    and no store can encode a lone surrogate as UTF-8."""
    return _CONTROL.search(text) is not None


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


async def login(request: Request) -> Response:
    try:
        form = await request.form()
    except Exception:  # noqa: BLE001 - python-multipart raises several kinds on a broken body
        return error(422, "the body is not a form")
    name, password = form.get("username"), form.get("password")
    if not isinstance(name, str) or not isinstance(password, str) or not name:
        return error(422, "the form needs the fields username and password")
    if refused_text(name) or refused_text(str(form.get("next", ""))):
        return error(422, "the user name holds a control character")
    app = service(request)
    address = request.client.host if request.client else ""
    # the name's failures are counted before the check (concurrent guesses of one name from
    # many addresses are all counted); the address's within its turn, one check at a time,
    # and a right password takes its attempt back before the address's next login is counted:
    # only wrong passwords ever count against an address, and an address over its limit
    # waits (LoginLimiter.address_hold) but is never refused a check
    wait = await run_in_threadpool(app.limiter.attempt, app.store, name, None)
    user, right, counted = None, False, False
    if wait > 0:
        if _wants_html(request):
            return RedirectResponse("/login?error=limited", status_code=303)
        seconds = max(1, math.ceil(wait))
        return error(429, "too many failed logins; try again later", retry_after=seconds,
                     headers={"Retry-After": str(seconds)})
    try:
        async with app.checks.turn(address) as deadline:
            held = await run_in_threadpool(app.limiter.attempt, app.store, None, address)
            if held > 0:
                # the address is over its limit: its login holds the address's turn (its
                # other logins wait behind it), then is counted and checked all the same
                loop = asyncio.get_running_loop()
                await asyncio.sleep(min(held, app.limiter.address_hold,
                                        max(0.0, deadline - loop.time())))
                await run_in_threadpool(functools.partial(
                    app.limiter.attempt, app.store, None, address, waiting=False))
            counted = True
            user = await run_in_threadpool(app.store.user, name)
            right = await app.checks.verify(user.password_hash if user else None, password,
                                            deadline)
            if user is not None and right:
                await run_in_threadpool(_logged_in, app, user, password, address)
    except Crowded:
        await run_in_threadpool(app.limiter.no_failure, app.store, name, None)
        if _wants_html(request):
            return RedirectResponse("/login?error=limited", status_code=303)
        return error(429, "too many logins from this address at once; try again in a few "
                     "seconds", retry_after=BUSY_RETRY_SECONDS,
                     headers={"Retry-After": str(BUSY_RETRY_SECONDS)})
    except Busy:
        await run_in_threadpool(app.limiter.no_failure, app.store, name,
                                address if counted else None)
        if _wants_html(request):
            return RedirectResponse("/login?error=busy", status_code=303)
        return error(503, "the server is busy checking passwords; try again in a few seconds",
                     headers={"Retry-After": str(BUSY_RETRY_SECONDS)})
    if user is None or not right:
        if _wants_html(request):
            return RedirectResponse("/login?error=1", status_code=303)
        return error(401, "wrong user name or password")
    token, csrf = await run_in_threadpool(app.store.create_session, user.name, app.session_idle)
    response: Response
    if _wants_html(request):
        target = str(form.get("next", "/"))
        response = RedirectResponse(target if target.startswith("/") and not target.startswith(
            "//") else "/", status_code=303)
    else:
        response = JSONResponse({"user": user.name, "csrf_token": csrf, "admin": user.admin})
    response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="strict", path="/",
                        secure=app.secure_cookies)
    return response


def _logged_in(app: Service, user: User, password: str, address: str) -> None:
    app.limiter.no_failure(app.store, user.name, address)
    if app.hasher.check_needs_rehash(user.password_hash):
        app.store.set_password_hash(user.name, app.hasher.hash(password))


async def logout(request: Request) -> Response:
    await authorise(request, change=True)
    await run_in_threadpool(service(request).store.end_session,
                            request.cookies.get(SESSION_COOKIE, ""))
    response: Response = (RedirectResponse("/login", status_code=303) if _wants_html(request)
                          else JSONResponse({"user": None}))
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return response


async def get_session(request: Request) -> Response:
    found = await session_of(request)
    if found is None:
        return error(401, "not logged in")
    user, csrf = found
    return JSONResponse({"user": user.name, "csrf_token": csrf, "admin": user.admin,
                         "mode": service(request).mode})


# -- topics and documents ----------------------------------------------------------------------

async def list_topics(request: Request) -> Response:
    user = await authorise(request, change=False)
    found = await run_in_threadpool(service(request).store.user_topics, user.name)
    return JSONResponse({"topics": found})


async def _topic_view(request: Request,
                      view: Callable[[Service, str, str], dict[str, Any]]) -> Response:
    """``view(service, topic, user name)`` for a logged-in user the topic is assigned to."""
    app, topic = service(request), request.path_params["topic"]

    def load() -> dict[str, Any]:
        user = user_of(app, request, change=False)
        app.store.access(topic, user.name)
        return view(app, topic, user.name)

    return JSONResponse(await run_in_threadpool(load))


async def get_topic(request: Request) -> Response:
    return await _topic_view(request, lambda app, topic, _: {**app.store.topic(topic),
                                                             "mode": app.mode})


async def get_pool(request: Request) -> Response:
    return await _topic_view(request, lambda app, topic, user: {
        "topic": topic, "articles": app.store.assessor_pool(topic, user)})


async def next_article(request: Request) -> Response:
    """An adaptive campaign serves the user the article its strategy picks next
    (:func:`inexeval.assess.adaptive.serve`): the one already served and not done, else a new
    one; ``file`` is null when nothing is left (or the campaign is not adaptive)."""
    from inexeval.assess.adaptive import serve

    user = await authorise(request, change=True)
    app, topic = service(request), request.path_params["topic"]
    file = await run_in_threadpool(serve, app.store, topic, user.name)
    return JSONResponse({"topic": topic, "file": file})


def _changes(app: Service, topic: str, file: str, fields: dict[str, Any]
             ) -> tuple[Callable[[Judgement], Judgement],
                        Callable[[Judgement, Judgement], Judgement]]:
    """The change of a PUT's ``fields`` to the judgement read, and its three-way merge with
    the judgement stored (:meth:`Store.save_change`), under the rules (the document's
    structure is read here, before the save's transaction)."""
    structure = app.structure(file)

    def change(before: Judgement) -> Judgement:
        return rules.apply(before, replace(before, **fields), structure, app.mode,
                           app.pool_paths(topic, file))

    def merge(base: Judgement, current: Judgement) -> Judgement:
        paths = app.pool_paths(topic, file)
        # the change alone must be valid (422 otherwise, as for a current version)
        mine = rules.apply(base, replace(base, **fields), structure, app.mode, paths)
        merged = three_way(base, mine, current)
        try:
            return rules.apply(current, merged, structure, app.mode, paths)
        except rules.RuleViolation as violation:
            # each side was consistent, the merge is not: the assessor decides
            raise MergeConflict(current, violation.messages) from None

    return change, merge


def _annotated(app: Service, j: Judgement) -> dict[str, Any]:
    """A judgement as the API sends it: the stored fields plus what keeps it from being done
    (``problems``) and the values deduced for unjudged elements (``implicit``)."""
    structure = app.structure(j.file)
    return {**j.to_api(), "relevant": j.relevant if j.status == "done" else None,
            "problems": rules.problems(j, structure, app.mode, app.pool_paths(j.topic, j.file)),
            "implicit": rules.implicit_values(j.values, structure, app.mode),
            **_inferred(app, j, structure)}


def _inferred(app: Service, j: Judgement, structure: rules.Structure) -> dict[str, Any]:
    """Highlight mode: the exhaustivity values the 2005 rules force, each with its cause."""
    if app.mode != "highlight":
        return {}
    held = rules.holding(structure, merge_passages(j.passages))
    return {"inferred": rules.inferred(j.exhaustivity, structure, held)}


def _document(request: Request) -> tuple[Service, str, str]:
    return service(request), request.path_params["topic"], request.path_params["file"]


async def get_judgement(request: Request) -> Response:
    app, topic, file = _document(request)

    def load() -> dict[str, Any]:
        user = user_of(app, request, change=False)
        app.store.access(topic, user.name)
        return _annotated(app, app.store.judgement(topic, file, user.name))

    return JSONResponse(await run_in_threadpool(load))


async def get_content(request: Request) -> Response:
    app, topic, file = _document(request)

    def load() -> dict[str, Any]:
        user = user_of(app, request, change=False)
        app.store.access(topic, user.name)
        app.store.judgement(topic, file, user.name)
        document = app.document(file)
        names = element_names(document.elements)
        inline = app.structure(file).inline
        return {"file": file, "text": document.text,
                "elements": [{"path": p, "start": s, "end": e, "name": names[p],
                              "inline": p in inline} for p, s, e in document.elements],
                "min_element_chars": app.min_element_chars}

    return JSONResponse(await run_in_threadpool(load))


async def get_keyword_spans(request: Request) -> Response:
    """The user's keywords for the topic and the [start, end) of the document's words whose
    Snowball stem is a keyword's (``assess/stems.py``; ``/regular expressions/`` are left to
    the page)."""
    from inexeval.assess.stems import Cancelled

    app, topic, file = _document(request)

    def load(cancel: threading.Event) -> dict[str, Any]:
        user = user_of(app, request, change=False)
        app.store.access(topic, user.name)
        app.store.judgement(topic, file, user.name)
        chosen = app.store.assessor_keywords(topic, user.name)
        words = chosen if chosen is not None else topic_keywords(app.store.topic(topic))
        document = app.document(file)
        return {"topic": topic, "file": file, "keywords": words,
                "spans": [list(span) for span in app.keyword_spans(document, words, cancel)]}

    try:
        return JSONResponse(await while_connected(request, load))
    except Cancelled:
        return _gone()


async def put_judgement(request: Request) -> Response:
    app, topic, file = _document(request)
    raw = await request.body()

    def save() -> dict[str, Any]:
        user = user_of(app, request, change=True)
        # access first, whatever the body: a topic not assigned is 403, a document not in its
        # pool 404 with one message (whether the store holds it elsewhere is not said); the
        # save checks access in its transaction, so it is read here only when the pool or the
        # body refuses the request (a save back to back read it twice)
        try:
            app.require_pooled(topic, file)
            version, fields, visit, sequence = _put_body(raw)
        except Exception:
            app.store.access(topic, user.name)
            raise
        saved, merged = app.store.save_change(topic, file, user.name, version,
                                              *_changes(app, topic, file, fields),
                                              visit=visit, sequence=sequence)
        return {**_annotated(app, saved), "merged": merged}

    def save_of_session(token: str, body: tuple[int, dict[str, Any], str | None, int | None]
                        ) -> Future[tuple[Judgement, bool]]:
        version, fields, visit, sequence = body
        given = request.headers.get(CSRF_HEADER, "")
        return app.store.save_change_of_session(
            token, app.session_idle, functools.partial(authorised, csrf_token=given), topic,
            file, version, *_changes(app, topic, file, fields), visit=visit, sequence=sequence)

    async def save_grouped(token: str, body: tuple[int, dict[str, Any], str | None, int | None]
                           ) -> dict[str, Any]:
        import sqlalchemy as sa

        try:
            saved, merged = await asyncio.wrap_future(save_of_session(token, body))
        except (sa.exc.OperationalError, sa.exc.InternalError):
            # a store that cannot be written (read-only, full): nothing was written; the
            # other way tells a missing session (401) or token (403) before the store's 503
            return await run_in_threadpool(save)
        if not app.knows(topic, file):  # evicted meanwhile: read again in a worker thread
            return await run_in_threadpool(lambda: {**_annotated(app, saved), "merged": merged})
        return {**_annotated(app, saved), "merged": merged}

    # a save with a valid body of a document whose pool and structure are known reads the
    # session in the save's transaction (one transaction, not two); it goes from the event
    # loop to the store's committer (SQLite) or one of its save threads (PostgreSQL) (a worker
    # thread's session read and two thread hops were a third of a save's CPU); any other
    # request as before, to answer the same
    token = request.cookies.get(SESSION_COOKIE)
    body = _valid_put_body(raw) if token and app.knows(topic, file) else None
    try:
        return JSONResponse(await (run_in_threadpool(save) if body is None or token is None
                                   else save_grouped(token, body)))
    except MergeConflict as conflict:
        return error(409, "conflict: the document was changed meanwhile (now version "
                          f"{conflict.current.version}) and both changes set "
                          f"{', '.join(conflict.fields)}", current=conflict.current.to_api(),
                     conflicts=conflict.fields)
    except Conflict as conflict:
        return error(409, f"stale version: the document was changed meanwhile (now version "
                          f"{conflict.current.version}); reload it",
                     current=conflict.current.to_api(), conflicts=[])
    except rules.RuleViolation as violation:
        return error(422, str(violation), problems=violation.messages)
    except Locked as locked:
        return error(423, locked.reason)


async def check_judgement(request: Request) -> Response:
    from inexeval.assess.stems import Cancelled

    app, topic, file = _document(request)
    raw = await request.body()

    def check(cancel: threading.Event) -> dict[str, Any]:
        def step() -> None:  # the rules' passes, each over the article, one at a time
            if cancel.is_set():
                raise Cancelled

        user = user_of(app, request, change=True)
        app.store.access(topic, user.name)
        fields = judgement_fields(json_body(raw), require_status=False)
        before = app.store.judgement(topic, file, user.name)
        candidate = replace(before, **fields)
        structure = app.structure(file)
        errors = rules.validate(candidate, structure, app.mode)
        if errors:
            raise rules.RuleViolation(errors)
        candidate = replace(candidate, passages=merge_passages(candidate.passages))
        settled: dict[str, Any] = {}
        if app.mode == "highlight":
            step()
            try:
                after = rules.settle(before.exhaustivity, candidate.exhaustivity, structure,
                                     candidate.passages)
                settled = {"exhaustivity": after.exhaustivity, "inferred": after.inferred,
                           "resets": [r.to_api() for r in after.resets]}
            except rules.RuleViolation as refused:
                settled = {"refused": refused.messages}
        step()
        problems = rules.problems(candidate, structure, app.mode, app.pool_paths(topic, file))
        step()
        implicit = rules.implicit_values(candidate.values, structure, app.mode)
        step()
        return {**settled, "problems": problems, "implicit": implicit,
                "holding": rules.holding(structure, candidate.passages),
                "passages": [list(p) for p in candidate.passages],
                "relevant": candidate.relevant}

    try:
        return JSONResponse(await while_connected(request, check))
    except rules.RuleViolation as violation:
        return error(422, str(violation), problems=violation.messages)
    except Cancelled:
        return _gone()


def _gone() -> Response:
    """The answer to a request whose client went away (nobody reads it; nginx's 499)."""
    return Response(status_code=499)


MAX_COMMENT = 1000
"""Most characters of an assessor's comment on a document."""


async def note_of(request: Request) -> Response:
    """GET: the user's note on the document (``flag``: null, ``unsure`` or ``broken
    document``; ``comment``); PUT ``{"flag": ..., "comment": ...}``: keep a new one (seen by
    the organiser, ``/api/admin/notes``, and in the export's notes)."""
    from inexeval.assess.store import NOTE_FLAGS

    app, topic, file = _document(request)
    raw = await request.body() if request.method == "PUT" else b""

    def run() -> dict[str, Any]:
        user = user_of(app, request, change=request.method == "PUT")
        app.store.access(topic, user.name)
        app.require_pooled(topic, file)
        if request.method == "PUT":
            body = json_body(raw, lines="comment")
            flag, comment = body.get("flag"), body.get("comment", "")
            if set(body) - {"flag", "comment"} or flag is not None and flag not in NOTE_FLAGS \
                    or not isinstance(comment, str) or len(comment) > MAX_COMMENT:
                raise HTTPException(422, f"a note is {{flag, comment}}: flag null or one of "
                                         f"{', '.join(NOTE_FLAGS)}, comment a text of at most "
                                         f"{MAX_COMMENT} characters")
            return app.store.set_note(topic, file, user.name, flag, comment.strip())
        found = app.store.notes(topic, user.name, file)
        return found[-1] if found else {"topic": topic, "file": file, "assessor": user.name,
                                        "flag": None, "comment": ""}

    try:
        return JSONResponse(await run_in_threadpool(run))
    except Locked as locked:
        return error(423, locked.reason)


async def admin_notes(request: Request) -> Response:
    """Every assessor's notes on documents (flags and comments), in the order written."""
    await authorise(request, change=False, admin=True)
    return JSONResponse({"notes": await run_in_threadpool(service(request).store.notes)})


MAX_KEYWORDS = 100
"""Most keywords an assessor keeps for a topic (each at most 100 characters)."""


def _keyword_list(raw: bytes) -> list[str]:
    """The ``keywords`` of a PUT body: a list of at most :data:`MAX_KEYWORDS` distinct strings
    of 1 to 100 characters (a ``/regular expression/`` must compile); 422 otherwise."""
    words = json_body(raw).get("keywords")
    if not isinstance(words, list) or len(words) > MAX_KEYWORDS or not all(
            isinstance(w, str) and 0 < len(w.strip()) <= 100 for w in words):
        raise HTTPException(422, f"keywords: a list of at most {MAX_KEYWORDS} strings of 1 to "
                                 "100 characters is required")
    for word in words:
        text = word.strip()
        if len(text) > 2 and text.startswith("/") and text.rstrip("ims").endswith("/"):
            try:
                re.compile(text[1:text.rstrip("ims").rindex("/")])
            except re.error as bad:
                raise HTTPException(422, f"keywords: {text} is no regular expression: "
                                         f"{bad}") from None
    return list(dict.fromkeys(w.strip() for w in words))


async def keywords_of(request: Request) -> Response:
    """GET: the assessor's keywords for the topic (``chosen`` false: the topic's own); PUT
    ``{"keywords": [...]}``: keep new ones (an empty list keeps none)."""
    app, topic = service(request), request.path_params["topic"]
    raw = await request.body() if request.method == "PUT" else b""

    def run() -> dict[str, Any]:
        user = user_of(app, request, change=request.method == "PUT")
        app.store.access(topic, user.name)
        if request.method == "PUT":
            app.store.set_assessor_keywords(topic, user.name, _keyword_list(raw))
        chosen = app.store.assessor_keywords(topic, user.name)
        return {"topic": topic, "chosen": chosen is not None,
                "keywords": chosen if chosen is not None else topic_keywords(
                    app.store.topic(topic))}

    try:
        return JSONResponse(await run_in_threadpool(run))
    except Locked as locked:
        return error(423, locked.reason)


async def get_history(request: Request) -> Response:
    """The last changes of the user's login session, newest first, said in words."""
    from inexeval.assess.history import HISTORY_LENGTH, history_rows

    app = service(request)

    def load() -> list[dict[str, Any]]:
        user = user_of(app, request, change=False)
        since = app.store.session_started(request.cookies.get(SESSION_COOKIE, "")) or 0.0
        return history_rows(app.store.history(user.name, since, HISTORY_LENGTH),
                            lambda file: app.document(file).text)

    return JSONResponse({"changes": await run_in_threadpool(load)})


# -- administration ----------------------------------------------------------------------------

async def admin_stats(request: Request) -> Response:
    await authorise(request, change=False, admin=True)
    return JSONResponse(await run_in_threadpool(service(request).store.stats))


def _locking(locked: bool) -> Handler:
    async def handler(request: Request) -> Response:
        user = await authorise(request, change=True, admin=True)
        topic = request.path_params["topic"]
        await run_in_threadpool(service(request).store.set_locked, topic, locked, user.name)
        return JSONResponse({"topic": topic, "locked": locked})
    return handler


async def admin_export(request: Request) -> Response:
    """The qrels of :func:`inexeval.assess.campaign.export_store` as a download: the file, or a
    zip archive of the per-topic files of the XML formats; 409 with the reason when nothing
    would be in it."""
    from inexeval.assess.campaign import NothingToExport, export_download
    from inexeval.assess.export import EXPORT_FORMATS

    await authorise(request, change=False, admin=True)
    app = service(request)
    fmt, assessor = request.query_params.get("format"), request.query_params.get("assessor")
    partial = request.query_params.get("partial") == "1"
    if fmt is not None and fmt not in EXPORT_FORMATS:
        return error(422, f"format: one of {', '.join(EXPORT_FORMATS)}")
    try:
        name, content, notes = await run_in_threadpool(export_download, app.store, fmt,
                                                       assessor, partial)
    except NothingToExport as empty:
        return error(409, empty.reason)
    return Response(content, media_type="application/zip" if name.endswith(".zip")
                    else "text/plain", headers=download_headers(name, notes))


def download_headers(name: str, notes: list[str]) -> dict[str, str]:
    """The headers of an export's download: its file name and its notes (URL-encoded)."""
    return {"content-disposition": f'attachment; filename="{name}"',
            "x-export-notes": quote(" | ".join(notes))}


async def openapi(request: Request) -> Response:
    return JSONResponse(OPENAPI)


# -- bodies ------------------------------------------------------------------------------------

def json_body(raw: bytes, lines: str | None = None) -> dict[str, Any]:
    """A request body's JSON object; 422 for anything else, or one nested deeper than
    :data:`MAX_JSON_DEPTH`, or holding a control character; ``lines`` names a top-level field
    that may hold line breaks and tabs (a note's comment, typed in a text area). (Bodies too
    large never get here: see the app's body limit.)"""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HTTPException(422, "the body is not UTF-8") from None
    if _depth(text) > MAX_JSON_DEPTH:
        raise HTTPException(422, f"the JSON body is nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        body = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as failure:
        raise HTTPException(422, f"the body is not JSON: {failure}") from None
    if not isinstance(body, dict):
        raise HTTPException(422, "the body must be a JSON object")
    free = body.get(lines) if lines is not None else None
    if isinstance(free, str):
        body[lines] = free = free.replace("\r\n", "\n")
    if _holds_control({**body, lines: _LINES.sub(" ", free)} if isinstance(free, str)
                      else body):
        raise HTTPException(422, "a string of the body holds a control character")
    return body


_LINES = re.compile("[\n\t]")


def _holds_control(value: Any) -> bool:
    if isinstance(value, str):
        return refused_text(value)
    if isinstance(value, dict):
        return any(refused_text(k) or _holds_control(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_control(v) for v in value)
    return False


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _depth(text: str) -> int:
    """Nesting depth of JSON text, counting brackets outside strings (without parsing it)."""
    deepest = depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


_VISIT = re.compile(r"[\w-]{1,64}", re.ASCII)
"""A page visit's id (the browser outbox entry's): letters, digits, ``_`` and ``-``."""


def _put_body(raw: bytes) -> tuple[int, dict[str, Any], str | None, int | None]:
    """The version, the judgement fields, the page visit and the change's place among the
    visit's (both optional) of a PUT body (422 when invalid)."""
    body = json_body(raw)
    version = body.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise HTTPException(422, "version: a whole number is required (the version you read)")
    visit, sequence = body.pop("visit", None), body.pop("sequence", None)
    if visit is not None and not (isinstance(visit, str) and _VISIT.fullmatch(visit)):
        raise HTTPException(422, "visit: 1 to 64 letters, digits, '_' or '-' are required (the "
                                 "page visit that sends the change)")
    if sequence is not None and (visit is None or not _whole(sequence)
                                 or not 0 <= sequence <= 2**53):
        raise HTTPException(422, "sequence: a whole number from 0, with a visit, is required "
                                 "(the change's place among the visit's changes)")
    return version, judgement_fields(body, require_status=True), visit, sequence


def _valid_put_body(raw: bytes) -> tuple[int, dict[str, Any], str | None, int | None] | None:
    """:func:`_put_body`, None for a body it refuses."""
    try:
        return _put_body(raw)
    except HTTPException:
        return None


def judgement_fields(body: dict[str, Any], require_status: bool) -> dict[str, Any]:
    """The judgement fields of a PUT (or check) body, type-checked: fields left out keep their
    stored value; 422 naming every problem otherwise."""
    problems: list[str] = []
    fields: dict[str, Any] = {}
    for key in body:
        if key not in _FIELDS and key not in _READ_ONLY:
            problems.append(f"unknown field {key!r}")
    if "status" in body:
        if isinstance(body["status"], str):
            fields["status"] = body["status"]
        else:
            problems.append("status: a string is required")
    elif require_status:
        problems.append("status: required")
    if "passages" in body:
        passages = body["passages"]
        if isinstance(passages, list) and all(
                isinstance(p, list) and len(p) == 2 and all(_whole(x) for x in p)
                for p in passages):
            fields["passages"] = tuple((p[0], p[1]) for p in passages)
        else:
            problems.append("passages: a list of [start, end] pairs of whole numbers is required")
    if "best_entry_point" in body:
        point = body["best_entry_point"]
        if point is None or _whole(point):
            fields["best_entry_point"] = point
        else:
            problems.append("best_entry_point: a whole number or null is required")
    for name in ("exhaustivity", "values"):
        if name in body:
            mapping = _path_mapping(name, body[name], problems)
            if mapping is not None:
                fields[name] = mapping
    if "seconds" in body:
        seconds = body["seconds"]
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) \
                and 0 <= seconds <= MAX_SECONDS:
            fields["seconds"] = float(seconds)
        else:
            problems.append(f"seconds: a number from 0 to {MAX_SECONDS:.0f} is required (the "
                            "time spent on the document)")
    if problems:
        raise HTTPException(422, "; ".join(problems))
    return fields


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _path_mapping(name: str, value: object, problems: list[str]) -> dict[str, str] | None:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        problems.append(f"{name}: an object mapping element paths to strings is required")
        return None
    mapping = {}
    for path, code in value.items():
        try:
            mapping[canonical_path(path)] = code
        except InexevalError as bad:
            problems.append(f"{name}: {bad.reason}")
    return mapping


def routes() -> list[Route]:
    document = "/api/topics/{topic}/docs/{file:path}"
    return [
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/api/session", get_session, methods=["GET"]),
        Route("/api/openapi.json", openapi, methods=["GET"]),
        Route("/api/topics", list_topics, methods=["GET"]),
        Route("/api/history", get_history, methods=["GET"]),
        Route("/api/topics/{topic}", get_topic, methods=["GET"]),
        Route("/api/topics/{topic}/pool", get_pool, methods=["GET"]),
        Route("/api/topics/{topic}/next", next_article, methods=["POST"]),
        Route("/api/topics/{topic}/keywords", keywords_of, methods=["GET", "PUT"]),
        Route(document + "/content", get_content, methods=["GET"]),
        Route(document + "/keywords", get_keyword_spans, methods=["GET"]),
        Route(document + "/check", check_judgement, methods=["POST"]),
        Route(document + "/note", note_of, methods=["GET", "PUT"]),
        Route(document, get_judgement, methods=["GET"]),
        Route(document, put_judgement, methods=["PUT"]),
        Route("/api/admin/stats", admin_stats, methods=["GET"]),
        Route("/api/admin/export", admin_export, methods=["GET"]),
        Route("/api/admin/notes", admin_notes, methods=["GET"]),
        Route("/api/admin/topics/{topic}/lock", _locking(True), methods=["POST"]),
        Route("/api/admin/topics/{topic}/unlock", _locking(False), methods=["POST"]),
    ]


def database_error(request: Request, failure: Exception) -> Response:
    """A store that fails (a full disk, a read-only file, a lost database server) is 503 with a
    JSON message, logged once per kind; nothing was written (every change is one transaction),
    and the service goes on when the store works again. A value the database cannot hold is
    422 (none should get there: bodies, names and paths are checked first)."""
    import sqlalchemy as sa

    if isinstance(failure, sa.exc.DataError):
        return error(422, "a value of the request cannot be stored")
    reason = str(getattr(failure, "orig", None) or failure).splitlines()[0][:200]
    service(request).log_once(f"the store failed: {reason}")
    return JSONResponse({"error": "the store cannot be used at the moment (the server's log "
                                  "says why); nothing was changed: try again later"},
                        status_code=503, headers={"Retry-After": "30"})


def handle_store_error(request: Request, failure: Exception) -> Response:
    """NotFound is 404, NotAssigned 403; other refusals of the store are 422."""
    if isinstance(failure, NotFound):
        return error(404, failure.reason)
    if isinstance(failure, NotAssigned):
        return error(403, failure.reason)
    if isinstance(failure, InexevalError):
        return error(422, failure.reason)
    raise failure


def _schema_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERROR = _json(_schema_ref("Error"), "error")
_COMMON = {"401": {**_ERROR, "description": "not logged in"},
           "403": {**_ERROR, "description": "topic not assigned to the user / wrong CSRF token"},
           "404": {**_ERROR, "description": "no such topic or document in the pool"}}
_CSRF = [{"name": CSRF_HEADER, "in": "header", "required": True, "schema": {"type": "string"}}]
_TOPIC = {"name": "topic", "in": "path", "required": True, "schema": {"type": "string"}}
_FILE = {"name": "file", "in": "path", "required": True, "schema": {"type": "string"},
         "description": "document name, e.g. co/2000/r7108 (may contain slashes)"}
_PATH_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
_INFERRED = {**_PATH_MAP, "description": (
    "highlight mode: the exhaustivity values the INEX 2005 rules force, each with the element "
    "that forces it (empty for an inline element, which is never asked)")}

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "inexeval assessment service", "version": "1"},
    "paths": {
        "/login": {"post": {
            "summary": "Log in; sets the HTTP-only, SameSite=Strict session cookie",
            "requestBody": {"required": True, "content": {
                "application/x-www-form-urlencoded": {"schema": {
                    "type": "object", "required": ["username", "password"],
                    "properties": {"username": {"type": "string"},
                                   "password": {"type": "string"},
                                   "next": {"type": "string"}}}}}},
            "responses": {
                "200": _json(_schema_ref("Session"), "logged in (JSON clients)"),
                "303": {"description": "logged in or not (clients accepting text/html): "
                                       "redirect to next, or to /login?error=1"},
                "401": _ERROR, "422": _ERROR,
                "403": {**_ERROR, "description": "a cross-site form post"},
                "429": {**_ERROR, "description": "too many failed logins for this user name: "
                                                 "wait retry_after seconds (the Retry-After "
                                                 "header says it too)"},
                "503": {**_ERROR, "description": "every password check is busy: retry after "
                                                 "the Retry-After header's seconds"}}}},
        "/logout": {"post": {"summary": "End the session", "parameters": _CSRF,
                             "responses": {"200": {"description": "logged out"},
                                           "401": _ERROR, "403": _ERROR}}},
        "/api/session": {"get": {"summary": "The logged-in user and the CSRF token",
                                 "responses": {"200": _json(_schema_ref("Session"), "session"),
                                               "401": _ERROR}}},
        "/api/history": {"get": {
            "summary": "The last 20 changes of the login session, newest first: at (seconds "
                       "since 1970), topic, file, version, change (in words), url (the "
                       "document page)",
            "responses": {"200": {"description": "changes"}, "401": _ERROR}}},
        "/api/topics": {"get": {
            "summary": "The user's topics with progress",
            "responses": {"200": _json({"type": "object", "properties": {"topics": {
                "type": "array", "items": _schema_ref("TopicProgress")}}}, "topics"),
                "401": _ERROR}}},
        "/api/topics/{topic}": {"get": {
            "summary": "A topic's statement", "parameters": [_TOPIC],
            "responses": {"200": _json(_schema_ref("Topic"), "topic"), **_COMMON}}},
        "/api/topics/{topic}/pool": {"get": {
            "summary": "The topic's pool grouped by article, in pool order, with statuses "
                       "(an adaptive campaign: the articles served to the user, in the "
                       "order served)",
            "parameters": [_TOPIC],
            "responses": {"200": _json({"type": "object", "properties": {
                "topic": {"type": "string"},
                "articles": {"type": "array", "items": _schema_ref("PoolArticle")}}}, "pool"),
                **_COMMON}}},
        "/api/topics/{topic}/next": {"post": {
            "summary": "An adaptive campaign (assess init --strategy): the article the "
                       "strategy serves the user next, from every judgement of the topic so "
                       "far; the one served and not done yet, else a new one (null when the "
                       "budget or the pool is spent, or the campaign is not adaptive)",
            "parameters": [_TOPIC, *_CSRF],
            "responses": {"200": _json({"type": "object", "properties": {
                "topic": {"type": "string"}, "file": {"type": ["string", "null"]}}},
                "the article to judge"), **_COMMON}}},
        "/api/topics/{topic}/keywords": {
            "get": {"summary": "The keywords the user coloured in this topic's documents "
                               "(chosen: false while they are the topic's own)",
                    "parameters": [_TOPIC],
                    "responses": {"200": {"description": "keywords"}, **_COMMON}},
            "put": {"summary": "Keep the user's keywords for the topic: words (matched by "
                               "stem) or /regular expressions/",
                    "parameters": [_TOPIC, *_CSRF],
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": {"type": "object", "properties": {"keywords": {
                            "type": "array", "maxItems": MAX_KEYWORDS,
                            "items": {"type": "string"}}}}}}},
                    "responses": {"200": {"description": "kept"}, **_COMMON,
                                  "422": _ERROR}}},
        "/api/topics/{topic}/docs/{file}": {
            "get": {"summary": "The user's judgement of the document",
                    "parameters": [_TOPIC, _FILE],
                    "responses": {"200": _json(_schema_ref("Judgement"), "judgement"),
                                  **_COMMON}},
            "put": {"summary": "Save the judgement (one transaction); a change made on an "
                               "older version is merged into the current one (three-way, "
                               "inexeval.assess.merge; merged: true in the answer) unless both "
                               "changed the same value (409)",
                    "parameters": [_TOPIC, _FILE, *_CSRF],
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": _schema_ref("JudgementChange")}}},
                    "responses": {
                        "200": _json(_schema_ref("Judgement"), "saved, with the new version"),
                        **_COMMON,
                        "409": _json({"allOf": [_schema_ref("Error"), {
                            "type": "object", "properties": {
                                "current": _schema_ref("Judgement"),
                                "conflicts": {"type": "array", "items": {"type": "string"},
                                              "description": "the values both changes set "
                                                             "differently"}}}]},
                            "a true conflict with a change saved meanwhile (or a version "
                            "the store never had); nothing written"),
                        "413": {**_ERROR, "description": "body too large"},
                        "422": _json(_schema_ref("Problems"), "invalid body or a done status "
                                     "that breaks the consistency rules"),
                        "423": {**_ERROR, "description": "topic locked"}}}},
        "/api/topics/{topic}/docs/{file}/content": {"get": {
            "summary": "The document's text and element structure (code point offsets, "
                       "ends exclusive)",
            "parameters": [_TOPIC, _FILE],
            "responses": {"200": _json(_schema_ref("Content"), "content"), **_COMMON}}},
        "/api/topics/{topic}/docs/{file}/keywords": {"get": {
            "summary": "The user's keywords for the topic and the [start, end) code point spans "
                       "of the document's words whose Snowball English stem is a keyword's "
                       "(/regular expressions/ are matched by the page)",
            "parameters": [_TOPIC, _FILE],
            "responses": {"200": {"description": "keywords and spans"}, **_COMMON}}},
        "/api/topics/{topic}/docs/{file}/check": {"post": {
            "summary": "Check a judgement against the consistency rules without saving it",
            "parameters": [_TOPIC, _FILE, *_CSRF],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": _schema_ref("JudgementChange")}}},
            "responses": {"200": _json(_schema_ref("Check"), "the findings"), **_COMMON,
                          "422": _json(_schema_ref("Problems"), "invalid body")}}},
        "/api/topics/{topic}/docs/{file}/note": {
            "get": {"summary": "The user's note on the document: flag (null, unsure, broken "
                               "document) and comment",
                    "parameters": [_TOPIC, _FILE],
                    "responses": {"200": {"description": "the note"}, **_COMMON}},
            "put": {"summary": "Keep the user's note on the document (body {flag, comment}); "
                               "the organiser sees it, and the export's notes",
                    "parameters": [_TOPIC, _FILE, *_CSRF],
                    "responses": {"200": {"description": "kept"}, **_COMMON, "422": _ERROR,
                                  "423": {**_ERROR, "description": "topic locked"}}}},
        "/api/admin/notes": {"get": {
            "summary": "Every assessor's notes on documents (topic, file, assessor, flag, "
                       "comment, at), in the order written",
            "responses": {"200": {"description": "notes"}, "401": _ERROR, "403": _ERROR}}},
        "/api/admin/stats": {"get": {
            "summary": "Progress per topic and assessor; time and documents per hour per "
                       "assessor (from the action log)",
            "responses": {"200": {"description": "statistics"}, "401": _ERROR,
                          "403": _ERROR}}},
        "/api/admin/export": {"get": {
            "summary": "Download the qrels: each topic's first-assigned assessor, or one "
                       "assessor's; the XML formats as a zip of per-topic files",
            "parameters": [
                {"name": "format", "in": "query", "required": False, "schema": {
                    "enum": ["fol", "inex2005", "inex2002", "inex2003", "json"]}},
                {"name": "assessor", "in": "query", "required": False,
                 "schema": {"type": "string"},
                 "description": "adjudicated: the adjudicated judgements"},
                {"name": "partial", "in": "query", "required": False,
                 "schema": {"enum": ["1"]},
                 "description": "also topics not complete (left out otherwise)"}],
            "responses": {"200": {"description": "the file (header X-Export-Notes: notes, "
                                                 "URL-encoded: the assessor used per topic, "
                                                 "the topics left out and why)"},
                          "401": _ERROR, "403": _ERROR, "422": _ERROR}}},
        "/api/admin/topics/{topic}/lock": {"post": {
            "summary": "Lock a topic: no further changes", "parameters": [_TOPIC, *_CSRF],
            "responses": {"200": {"description": "locked"}, **_COMMON}}},
        "/api/admin/topics/{topic}/unlock": {"post": {
            "summary": "Unlock a topic", "parameters": [_TOPIC, *_CSRF],
            "responses": {"200": {"description": "unlocked"}, **_COMMON}}},
        "/api/admin/agreement": {"get": {
            "summary": "Agreement per topic and pair of its assessors, and per pair over their "
                       "topics: the columns of inexeval agree --judgements (Cohen's kappa on "
                       "relevant articles, character precision/recall/F1/Jaccard), over the "
                       "articles both have done",
            "responses": {"200": {"description": "columns, topics, pairs"}, "401": _ERROR,
                          "403": _ERROR}}},
        "/api/admin/self-agreement": {"get": {
            "summary": "Per assessor (and per topic), the agreement of their second judgement of "
                       "the articles assess init --duplicates repeats with their first: the "
                       "columns of inexeval agree --judgements over the repeats done twice",
            "responses": {"200": {"description": "columns, topics, assessors"}, "401": _ERROR,
                          "403": _ERROR}}},
        "/api/admin/drift": {"get": {
            "summary": "Per assessor, the relevant rate of the articles done in each hour of "
                       "assessing",
            "responses": {"200": {"description": "assessors with points [hour, rate, "
                                                 "articles]"}, "401": _ERROR, "403": _ERROR}}},
        "/api/admin/topics/{topic}/disagreements": {"get": {
            "summary": "The articles two assessors have done and disagree on (relevance, or "
                       "character F1 below the threshold)",
            "parameters": [_TOPIC, *({"name": name, "in": "query", "required": False,
                                      "schema": {"type": "string"}} for name in ("a", "b")),
                           {"name": "threshold", "in": "query", "required": False,
                            "schema": {"type": "number", "minimum": 0, "maximum": 1}}],
            "responses": {"200": {"description": "disagreements"}, **_COMMON,
                          "422": _ERROR}}},
        "/api/admin/topics/{topic}/assessors": {"post": {
            "summary": "Assign the topic to an assessor (body {assessor})",
            "parameters": [_TOPIC, *_CSRF],
            "responses": {"200": {"description": "assigned"}, **_COMMON, "422": _ERROR}}},
        "/api/admin/topics/{topic}/assessors/{assessor}": {"delete": {
            "summary": "Withdraw the topic from an assessor (the judgements are kept)",
            "parameters": [_TOPIC, {"name": "assessor", "in": "path", "required": True,
                                    "schema": {"type": "string"}}, *_CSRF],
            "responses": {"200": {"description": "withdrawn"}, **_COMMON}}},
        "/api/admin/topics/{topic}/judgements/{assessor}/docs/{file}": {"get": {
            "summary": "Any assessor's judgement of a pooled document (adjudicated too), read "
                       "only",
            "parameters": [_TOPIC, {"name": "assessor", "in": "path", "required": True,
                                    "schema": {"type": "string"}}, _FILE],
            "responses": {"200": _json(_schema_ref("Judgement"), "judgement"), **_COMMON}}},
        "/api/admin/topics/{topic}/accept-agreed": {"post": {
            "summary": "Take A's judgement as the adjudicated one of every article A and B "
                       "agree on that is not adjudicated yet (body {a, b, threshold}, all "
                       "optional)",
            "parameters": [_TOPIC, *_CSRF],
            "responses": {"200": {"description": "the articles adjudicated"}, **_COMMON,
                          "422": _ERROR, "423": {**_ERROR, "description": "topic locked"}}}},
        "/api/admin/topics/{topic}/content/{file}": {"get": {
            "summary": "A pooled document's text and elements", "parameters": [_TOPIC, _FILE],
            "responses": {"200": _json(_schema_ref("Content"), "content"), **_COMMON}}},
        "/api/admin/topics/{topic}/adjudicated/{file}": {"put": {
            "summary": "Store the adjudicated judgement: A's, B's, their union, their "
                       "intersection, or an edit",
            "parameters": [_TOPIC, _FILE, *_CSRF],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["choice", "a", "b"], "properties": {
                    "choice": {"enum": ["a", "b", "union", "intersection", "edit"]},
                    "a": {"type": "string"}, "b": {"type": "string"},
                    "passages": {"type": "array", "items": {"type": "array"}},
                    "best_entry_point": {"type": ["integer", "null"]}}}}}},
            "responses": {"200": _json(_schema_ref("Judgement"), "stored"), **_COMMON,
                          "422": _ERROR, "423": {**_ERROR, "description": "topic locked"}}}},
    },
    "components": {"schemas": {
        "Error": {"type": "object", "required": ["error"],
                  "properties": {"error": {"type": "string"}}},
        "Problems": {"type": "object", "properties": {
            "error": {"type": "string"}, "problems": {"type": "array",
                                                      "items": {"type": "string"}}}},
        "Session": {"type": "object", "properties": {
            "user": {"type": "string"}, "csrf_token": {"type": "string"},
            "admin": {"type": "boolean"}, "mode": {"enum": ["passages", "highlight", "2002", "2003"]}}},
        "TopicProgress": {"type": "object", "properties": {
            "topic": {"type": "string"}, "title": {"type": "string"},
            "locked": {"type": "boolean"}, "pool": {"type": "integer"},
            "done": {"type": "integer"}, "in_progress": {"type": "integer"},
            "relevant": {"type": "integer"}, "seconds": {"type": "number"}}},
        "Topic": {"type": "object", "properties": {
            name: {"type": "string"} for name in (
                "topic", "query_type", "title", "castitle", "description", "narrative",
                "keywords", "mode")} | {"locked": {"type": "boolean"}}},
        "PoolArticle": {"type": "object", "properties": {
            "file": {"type": "string"},
            "status": {"enum": ["unseen", "in-progress", "done"]},
            "relevant": {"type": ["boolean", "null"]}, "version": {"type": "integer"},
            "min_rank": {"type": ["integer", "null"]}, "runs": {"type": ["integer", "null"]},
            "elements": {"type": "array", "items": {"type": "object", "properties": {
                "path": {"type": "string"}, "min_rank": {"type": ["integer", "null"]},
                "runs": {"type": ["integer", "null"]}}}}}},
        "JudgementChange": {
            "type": "object", "required": ["version", "status"],
            "description": "fields left out keep their stored value",
            "properties": {
                "version": {"type": "integer"},
                "status": {"enum": ["unseen", "in-progress", "done"]},
                "passages": {"type": "array", "items": {
                    "type": "array", "items": {"type": "integer"}, "minItems": 2,
                    "maxItems": 2}},
                "best_entry_point": {"type": ["integer", "null"]},
                "exhaustivity": {**_PATH_MAP, "description": "highlight mode: 2, 1 or ?"},
                "values": {**_PATH_MAP,
                           "description": "2002 mode: 3E, 1S, 0N...; 2003 mode: E3S2..."},
                "seconds": {"type": "number", "minimum": 0, "maximum": MAX_SECONDS},
                "visit": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$",
                          "description": (
                              "a change only: the page visit that sends it (the browser's "
                              "outbox entry); on an older version, the newest version that "
                              "visit saved itself is the merge's base")},
                "sequence": {"type": "integer", "minimum": 0, "description": (
                    "a change only, with visit: its place among the visit's changes; one not "
                    "above a saved one's is a late copy: nothing is written")}}},
        "Judgement": {"allOf": [_schema_ref("JudgementChange"), {"type": "object", "properties": {
            "topic": {"type": "string"}, "file": {"type": "string"},
            "assessor": {"type": "string"}, "updated": {"type": ["string", "null"]},
            "relevant": {"type": ["boolean", "null"]},
            "problems": {"type": "array", "items": {"type": "string"},
                         "description": "what keeps the document from being done"},
            "implicit": {**_PATH_MAP, "description": "values deduced by the rules"},
            "inferred": _INFERRED}}]},
        "Check": {"type": "object", "properties": {
            "problems": {"type": "array", "items": {"type": "string"}},
            "implicit": _PATH_MAP,
            "exhaustivity": {**_PATH_MAP, "description": (
                "highlight mode: the exhaustivity after the INEX 2005 rules' resets and "
                "inferences, the stored judgement taken as the state before the change (the "
                "other fields are of the judgement as sent)")},
            "inferred": _INFERRED,
            "refused": {"type": "array", "items": {"type": "string"}, "description": (
                "highlight mode: why the 2005 rules refuse the change (then there is no "
                "exhaustivity, inferred or resets; a save of it is refused too)")},
            "resets": {"type": "array", "description": "highlight mode: the values the change "
                       "made inconsistent, in the order the rules reset them",
                       "items": {"type": "object", "properties": {
                           "path": {"type": "string"}, "before": {"type": "string"},
                           "after": {"type": ["string", "null"]},
                           "reason": {"type": "string"}}}},
            "holding": {"type": "array", "items": {"type": "string"},
                        "description": "elements holding highlighted text"},
            "passages": {"type": "array", "items": {"type": "array"}},
            "relevant": {"type": "boolean"}}},
        "Content": {"type": "object", "properties": {
            "file": {"type": "string"}, "text": {"type": "string"},
            "elements": {"type": "array", "items": {"type": "object", "properties": {
                "path": {"type": "string"}, "start": {"type": "integer"},
                "end": {"type": "integer"},
                "name": {"type": "string", "description": "for people: Section 2 › ¶ 3"},
                "inline": {"type": "boolean", "description": (
                    "highlight mode: never asked (inline, or shorter than "
                    "min_element_chars)")}}}},
            "min_element_chars": {"type": "integer"}}},
    }},
}
