"""The assessment service under attack (issue 25), through the ASGI app on SQLite and
PostgreSQL: the login limiter, the refusals before any handler, the security headers, sessions,
hostile input and a failing store. The same attacks on a real ``assess serve`` are in
``test_attack.py``."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from inexeval.assess.api import LOGIN_ATTEMPTS, LoginLimiter
from inexeval.assess.app import CONTENT_SECURITY_POLICY
from inexeval.assess.store import (
    SCHEMA_VERSION,
    SESSIONS_PER_USER,
    Store,
    judgements,
    login_failures,
    sessions,
)
from tests.assess.conftest import PASSWORD, Client, TestClient, app_of

A1 = "/api/topics/1/docs/co/a1"
SLOW = LoginLimiter(first_wait=600.0)
"""A limiter whose first wait outlasts any test (the defaults wait one second at first)."""


@pytest.fixture
def serve(campaign: str) -> Iterator[Any]:
    """``serve(**options)``: a test client of a new app over the campaign store."""
    opened: list[Any] = []

    def make(**options: Any) -> Any:
        client = TestClient(app_of(campaign, **options))
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


def wrong(http: Any, name: str = "alice", **headers: str) -> Any:
    return http.post("/login", data={"username": name, "password": "wrong guess"},
                     headers=headers)


# -- the login limiter (findings 1, 2, 3) --------------------------------------------------------

def _counter(store: Store, key: str, free: int = 2) -> float:
    limiter = LoginLimiter(per_name=free, per_address=free, name_wait=8.0, address_wait=8.0)
    return store.count_login_attempt([(key, limiter._delay(free, 8.0))], NOW, 3600.0, 100)


NOW = 1_000_000.0


def test_backoff_doubles_up_to_its_cap_and_a_success_forgets(campaign: str) -> None:
    limiter = LoginLimiter(per_name=2, first_wait=1.0, name_wait=8.0)
    store = Store.open(campaign)
    try:
        delay = limiter._delay(2, 8.0)
        keys = [("k", delay)]
        assert store.count_login_attempt(keys, NOW, 3600.0, 100) == 0
        assert store.count_login_attempt(keys, NOW + 1, 3600.0, 100) == 0
        # two failures: the next attempt waits 1 s after the last, then 2, 4, 8, 8 (the cap)
        waits = []
        at = NOW + 1
        for _ in range(5):
            wait = store.count_login_attempt(keys, at, 3600.0, 100)
            waits.append(wait)
            at += wait
            assert store.count_login_attempt(keys, at, 3600.0, 100) == 0
        assert waits == [1.0, 2.0, 4.0, 8.0, 8.0]
        # an attempt refused while waiting counts nothing
        assert store.count_login_attempt(keys, at + 1, 3600.0, 100) == 7.0
        # attempts taken back (right passwords) count no more: with two failures left, one
        # second after the last failure an attempt is counted again
        store.login_taken_back(["k"] * 1)
        assert store.count_login_attempt(keys, at + 1, 3600.0, 100) == 7.0
        for _ in range(4):
            store.login_taken_back(["k"])
        assert store.count_login_attempt(keys, at + 1, 3600.0, 100) == 0
        # a day without failure forgets the key (when a new key comes)
        assert store.count_login_attempt([("other", delay)], at + 2 * 86400, 3600.0, 100) == 0
        assert store.login_failure_count() == 1
    finally:
        store.close()


def test_concurrent_attempts_are_all_counted(campaign: str) -> None:
    """Finding 2: 40 attempts at once for one name; only the free ones get to a password
    check."""
    store = Store.open(campaign)
    limiter = LoginLimiter(first_wait=600.0)
    allowed: list[float] = []
    start = threading.Barrier(40)

    def attempt(k: int) -> None:
        start.wait()
        allowed.append(limiter.attempt(store, "alice", f"10.0.0.{k}"))

    try:
        threads = [threading.Thread(target=attempt, args=(k,)) for k in range(40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        store.close()
    assert sorted(allowed)[:LOGIN_ATTEMPTS] == [0.0] * LOGIN_ATTEMPTS
    assert sum(wait == 0 for wait in allowed) == LOGIN_ATTEMPTS


def test_the_table_stays_bounded(campaign: str) -> None:
    """Finding 1 came from the in-memory table's pruning; the store's table keeps at most
    ``most`` keys, the most recent ones, and goes on counting."""
    limiter = LoginLimiter(per_name=1, per_address=1, first_wait=600.0, most=30)
    store = Store.open(campaign)
    try:
        for k in range(200):
            assert limiter.attempt(store, f"sprayed{k}", f"10.1.{k // 250}.{k % 250}") == 0
        assert store.login_failure_count() <= 30
        # the last names are still remembered and refused
        assert limiter.attempt(store, "sprayed199", "10.9.9.9") > 50
    finally:
        store.close()


def test_limits_per_name_and_per_address_and_a_restart_keeps_them(serve: Any) -> None:
    http = serve(limiter=SLOW)
    for _ in range(LOGIN_ATTEMPTS):
        assert wrong(http).status_code == 401
    refused = http.post("/login", data={"username": "alice", "password": PASSWORD})
    assert refused.status_code == 429 and refused.json()["retry_after"] > 50
    assert refused.headers["retry-after"] == str(refused.json()["retry_after"])
    # a new app over the same store (a restart) still refuses: the count is in the store
    again = serve(limiter=SLOW)
    assert again.post("/login", data={"username": "alice", "password": PASSWORD}
                      ).status_code == 429
    # bob's owner is not affected by the failures for alice (the address has 15 left)
    assert again.post("/login", data={"username": "bob", "password": PASSWORD}
                      ).status_code == 200
    # one address: after its failures (unknown names count too), each login from it waits
    # its turn (address_hold), then is checked
    hold = 0.4
    spray = serve(limiter=LoginLimiter(per_address=8, first_wait=600.0, address_hold=hold))
    times, statuses = [], []
    for k in range(5):
        began = time.perf_counter()
        statuses.append(wrong(spray, f"nobody{k}").status_code)
        times.append(time.perf_counter() - began)
    assert statuses == [401] * 5
    # alice's 5 failures came from the same address: 3 free ones left, then holds
    assert max(times[:3]) < hold <= min(times[3:]), times
    began = time.perf_counter()
    assert spray.post("/login", data={"username": "carol", "password": PASSWORD}
                      ).status_code == 200  # it was 429: refused for the address's failures
    assert time.perf_counter() - began >= hold
    # and the right password took its attempt back: the address still holds, no more
    assert wrong(spray, "nobody9").status_code == 401


def test_a_right_password_does_not_forget_the_names_failures(serve: Any) -> None:
    """An attacker guessing alice's password between her logins got LOGIN_ATTEMPTS fresh free
    guesses at each of them (her right password forgot the name's failures); now her login
    takes back its own attempt only."""
    http = serve(limiter=SLOW)
    other = serve(limiter=SLOW)  # alice herself, elsewhere: the test client's one address
    for _ in range(LOGIN_ATTEMPTS - 1):
        assert wrong(http).status_code == 401
    assert other.post("/login", data={"username": "alice", "password": PASSWORD}
                      ).status_code == 200
    assert wrong(http).status_code == 401
    assert wrong(http).status_code == 429  # was 401: the count had started again


def test_a_right_password_takes_its_attempt_back(serve: Any) -> None:
    http = serve(limiter=LoginLimiter(per_address=3, first_wait=600.0))
    for _ in range(10):
        assert http.post("/login", data={"username": "bob", "password": PASSWORD}
                         ).status_code == 200
    assert wrong(http, "bob").status_code == 401
    assert http.post("/login", data={"username": "bob", "password": PASSWORD}
                     ).status_code == 200


def test_no_server_timing_on_login(serve: Any) -> None:
    """Finding 4: the header timed the password check."""
    http = serve()
    for response in (wrong(http), wrong(http, "nobody"), http.get("/login")):
        assert "server-timing" not in response.headers
    assert "server-timing" in http.get("/api/openapi.json").headers


# -- refused before any handler (findings 6 and 7) -----------------------------------------------

def test_every_response_carries_the_security_headers(serve: Any, campaign: str) -> None:
    http = serve()
    alice = Client(http, "alice")
    responses = [http.get("/api/openapi.json"), http.get("/login"), alice.get("/"),
                 alice.get("/api/topics"), http.get("/nowhere"), http.delete("/api/topics"),
                 http.get("/api/topics/1%00"), http.get("/static/assess.css"),
                 http.get("/", headers={"host": "evil.example"})]
    for response in responses:
        assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "strict-transport-security" not in response.headers
    for response in responses[:-2]:
        assert response.headers["cache-control"] == "no-store", response.url
    assert "no-store" not in responses[-2].headers.get("cache-control", "")
    secure = serve(secure_cookies=True)
    login = secure.post("/login", data={"username": "bob", "password": PASSWORD})
    assert "secure" in login.headers["set-cookie"].lower()
    assert login.headers["strict-transport-security"].startswith("max-age=")


def test_an_unexpected_error_is_json_with_the_headers(serve: Any, monkeypatch: Any) -> None:
    http = serve()
    alice = Client(http, "alice")
    service = http.app.state.service

    def broken(*args: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(service.store, "user_topics", broken)
    http.__exit__(None, None, None)  # the client re-raises server errors; a new one does not
    quiet = TestClient(http.app, raise_server_exceptions=False)
    quiet.cookies = alice.http.cookies
    response = quiet.get("/api/topics")
    assert response.status_code == 500 and response.json()["error"].startswith("internal")
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_hosts_not_allowed_are_refused(campaign: str) -> None:
    """DNS rebinding: a page of evil.example resolving to 127.0.0.1 names its own host."""
    with TestClient(app_of(campaign, allowed_hosts=("assess.lab.example",))) as http:
        assert http.get("/login").status_code == 400  # the test client's host: not allowed
    with TestClient(app_of(campaign, allowed_hosts=()), base_url="http://127.0.0.1:8000") as http:
        assert http.get("/login").status_code == 200
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", ""):
            refused = http.get("/login", headers={"host": host})
            assert refused.status_code == 400 and "not served here" in refused.json()["error"]
        assert http.get("/login", headers={"host": "localhost:8000"}).status_code == 200
        assert http.get("/login", headers={"host": "[::1]:8000"}).status_code == 200
    with TestClient(app_of(campaign, allowed_hosts=("Assess.Lab.example",)),
                    base_url="https://assess.lab.example") as http:
        assert http.get("/login").status_code == 200


def test_cross_site_posts_are_refused(serve: Any) -> None:
    """Login CSRF and every form post: Origin and Sec-Fetch-Site."""
    http = serve(limiter=SLOW)
    form = {"username": "alice", "password": PASSWORD}
    for headers in ({"origin": "http://evil.example"}, {"origin": "null"},
                    {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"},
                    {"origin": "http://testserver.evil.example"}):
        refused = http.post("/login", data=form, headers=headers)
        assert refused.status_code == 403 and "another site" in refused.json()["error"]
        assert "set-cookie" not in refused.headers
    for headers in ({}, {"origin": "http://testserver"}, {"sec-fetch-site": "same-origin"},
                    {"sec-fetch-site": "none"}):
        assert http.post("/login", data=form, headers=headers).status_code == 200
    alice = Client(http, "alice")
    assert alice.post("/api/admin/topics/1/lock", headers={"origin": "http://evil.example"}
                      ).status_code == 403


def test_the_logout_form_works_without_javascript(serve: Any) -> None:
    http = serve()
    alice = Client(http, "alice")
    page = http.get("/").text
    field = f'<input type="hidden" name="csrf_token" value="{alice.csrf}">'
    assert field in page
    out = http.post("/logout", data={"csrf_token": alice.csrf},
                    headers={"accept": "text/html", "sec-fetch-site": "same-origin"},
                    follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/login"
    assert http.get("/api/session").status_code == 401


@pytest.mark.parametrize("path", [
    "/api/topics/1%00", "/api/topics/%00/pool", "/api/topics/1/docs/co%00a1",
    "/api/topics/1/docs/co/a1%0a/content", "/topics/1%00", "/topics/1/docs/co/a1%00",
    "/api/admin/topics/1%00/lock", "/%7f"])
def test_control_characters_in_paths_are_404(serve: Any, path: str) -> None:
    """Finding 6: a NUL in a path parameter was a 500 on PostgreSQL."""
    http = serve()
    dora = Client(http, "dora")
    for method in ("GET", "POST", "PUT"):
        response = http.request(method, path, headers={"X-CSRF-Token": dora.csrf},
                                json={"version": 0, "status": "in-progress"})
        assert response.status_code == 404, (method, response.text)
        assert "control character" in response.json()["error"]


def test_control_characters_in_queries_forms_and_bodies(serve: Any) -> None:
    http = serve(limiter=SLOW)
    dora = Client(http, "dora")
    assert dora.get("/api/admin/export?format=fol&assessor=al%00ice").status_code == 422
    assert dora.get("/admin/export?format=fol&assessor=%01").status_code == 422
    assert dora.get("/login?next=/%00").status_code == 422
    for name in ("al\x00ice", "alice\n", "\x1b[31m"):
        response = http.post("/login", data={"username": name, "password": PASSWORD})
        assert response.status_code == 422 and "control character" in response.json()["error"]
    response = http.post("/login", data={"username": "alice", "password": PASSWORD,
                                         "next": "/\r\nSet-Cookie: x=1"},
                         headers={"accept": "text/html"}, follow_redirects=False)
    assert response.status_code == 422
    alice = Client(http, "alice")
    for body in ({"version": 0, "status": "in-\u0000progress"},
                 {"version": 0, "status": "in-progress", "exhaustivity": {"/article[1]\u0000": "2"}},
                 {"version": 0, "status": "in-progress", "values": {"/article[1]": "\u00002"}},
                 {"version": 0, "status": "in-progress", "x\u0000": 1}):
        response = alice.put(A1, body)
        assert response.status_code == 422, response.text
        assert alice.post(A1 + "/check", body).status_code == 422
    assert alice.get(A1).json()["version"] == 0


def test_huge_seconds_in_a_store_break_no_page(serve: Any, campaign: str) -> None:
    """Finding 6: 1.7e308 seconds saved made four pages 500 until changed. A save is bounded
    now (test_api); a store written before the bound still shows every page."""
    store = Store.open(campaign)
    try:
        with store.engine.begin() as connection:
            connection.execute(judgements.update().values(seconds=1.7e308))
            connection.execute(judgements.update().where(judgements.c.file == "co/a3").values(
                seconds=float("inf")))
    finally:
        store.close()
    http = serve()
    dora = Client(http, "dora")
    assert dora.get("/admin").status_code == 200
    stats = dora.get("/api/admin/stats").json()
    assert all(row["seconds"] <= 2 * 86400 for row in stats["topics"])
    for user in ("alice", "carol"):
        client = Client(serve(), user)
        assert client.get("/").status_code == 200
        assert client.get("/api/topics").status_code == 200


def _make_read_only(campaign: str) -> str:
    """The store's URL with every transaction read-only (PostgreSQL), or the SQLite file's
    writes refused (``PRAGMA query_only``, set on each new connection by the test)."""
    if campaign.startswith("postgresql"):
        return campaign + "%20-cdefault_transaction_read_only%3Don"
    return campaign


def test_a_store_that_refuses_writes_is_503_and_the_service_goes_on(
        campaign: str, monkeypatch: Any) -> None:
    """Finding 6: a full disk or a read-only store answered saves and logins with a bare 500."""
    url = _make_read_only(campaign)
    with TestClient(app_of(url)) as http:
        store = http.app.state.service.store
        if not campaign.startswith("postgresql"):
            sa.event.listen(store.engine, "connect",
                            lambda connection, _: connection.execute("PRAGMA query_only=ON"))
            store.engine.dispose()
        login = http.post("/login", data={"username": "alice", "password": PASSWORD})
        assert login.status_code == 503 and "nothing was changed" in login.json()["error"]
        assert login.headers["retry-after"] and login.headers["content-security-policy"]
    # writes work again (a new server over the same store): the service goes on
    with TestClient(app_of(campaign)) as http:
        alice = Client(http, "alice")
        assert alice.put(A1, {"version": 0, "status": "in-progress"}).status_code == 200


# -- sessions (finding 9) ------------------------------------------------------------------------

def test_idle_sessions_end_and_each_user_has_a_few(serve: Any, campaign: str) -> None:
    http = serve(session_idle=3600.0)
    alice = Client(http, "alice")
    assert http.get("/api/session").status_code == 200
    store = Store.open(campaign)
    try:
        with store.engine.begin() as connection:
            connection.execute(sessions.update().values(last_seen=time.time() - 3599))
        assert http.get("/api/session").status_code == 200  # and its use is recorded
        with store.engine.connect() as connection:
            seen = connection.execute(sa.select(sessions.c.last_seen)).scalar_one()
        assert seen > time.time() - 60
        with store.engine.begin() as connection:
            connection.execute(sessions.update().values(last_seen=time.time() - 3601))
        assert http.get("/api/session").status_code == 401
        assert alice.put(A1, {"version": 0, "status": "in-progress"}).status_code == 401
        clients = [Client(serve(), "bob") for _ in range(SESSIONS_PER_USER + 2)]
        with store.engine.connect() as connection:
            held = connection.execute(sa.select(sa.func.count()).select_from(sessions).where(
                sessions.c.user == "bob")).scalar_one()
        assert held == SESSIONS_PER_USER
        live = [c.get("/api/session").status_code for c in clients]
        assert live == [401, 401] + [200] * SESSIONS_PER_USER
        # set-password and end-sessions end them all
        assert store.end_sessions("bob", "test") == SESSIONS_PER_USER
        assert all(c.get("/api/session").status_code == 401 for c in clients)
    finally:
        store.close()


def test_a_removed_user_cannot_log_in_and_keeps_its_judgements(serve: Any,
                                                                campaign: str) -> None:
    http = serve(limiter=SLOW)
    alice = Client(http, "alice")
    assert alice.put(A1, {"version": 0, "status": "in-progress"}).status_code == 200
    store = Store.open(campaign)
    try:
        assert store.remove_user("alice", "test") == ["1"]
        assert http.get("/api/session").status_code == 401
        assert http.post("/login", data={"username": "alice", "password": PASSWORD}
                         ).status_code == 401
        assert [j.version for j in store.judgements(assessor="alice")
                if j.file == "co/a1"] == [1]
        log = store.actions()[-1]
        assert log["action"] == "remove-user" and json.loads(log["before"])["topics"] == ["1"]
    finally:
        store.close()


def test_failed_logins_hold_no_name_in_clear(serve: Any, campaign: str) -> None:
    http = serve()
    wrong(http, "secret-name-\u00e9")
    store = Store.open(campaign)
    try:
        with store.engine.connect() as connection:
            keys = [row.key for row in connection.execute(sa.select(login_failures))]
    finally:
        store.close()
    assert len(keys) == 2 and all(len(k) == 64 and "secret" not in k for k in keys)


def test_schema_version_2_upgrades_a_version_1_store(campaign: str, tmp_path: Path) -> None:
    """A store of version 1 (sessions without last_seen, no login_failures) is brought to 2:
    its sessions end, nothing else changes."""
    store = Store.open(campaign)
    try:
        token, _ = store.create_session("alice")
        with store.engine.begin() as connection:
            connection.execute(sa.text("DROP TABLE login_failures"))
            connection.execute(sa.text("ALTER TABLE sessions DROP COLUMN last_seen"))
            connection.execute(sa.text("UPDATE schema_version SET version = 1"))
    finally:
        store.close()
    store = Store.open(campaign)
    try:
        with store.engine.connect() as connection:
            assert connection.execute(sa.text("SELECT version FROM schema_version")
                                      ).scalar() == SCHEMA_VERSION
        assert store.session(token) is None and store.login_failure_count() == 0
        assert store.user("alice") is not None
    finally:
        store.close()


def test_a_busy_answer_is_no_failure(serve: Any) -> None:
    """20 assessors behind one address logging in at once (after a restart): the attempts
    refused because every password check was busy (503) do not count against the address."""
    from inexeval.assess.api import Busy

    http = serve(limiter=LoginLimiter(per_address=3, first_wait=600.0))
    checks = http.app.state.service.checks

    async def busy(*args: Any) -> bool:
        raise Busy

    real = checks.verify
    checks.verify = busy
    for _ in range(10):
        response = http.post("/login", data={"username": "bob", "password": PASSWORD})
        assert response.status_code == 503 and response.headers["retry-after"] == "5"
    checks.verify = real
    assert http.post("/login", data={"username": "bob", "password": PASSWORD}
                     ).status_code == 200
