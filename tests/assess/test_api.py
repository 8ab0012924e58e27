"""The HTTP API through the ASGI app, on SQLite and PostgreSQL: sessions, CSRF, every endpoint,
every invalid body with its status code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from inexeval.assess.api import LOGIN_ATTEMPTS, OPENAPI
from inexeval.assess.store import Store
from tests.assess.conftest import CHEAP_HASHER, DOCUMENTS, PASSWORD, Client, app_of

A1 = "/api/topics/1/docs/co/a1"
A2 = "/api/topics/1/docs/co/a2"


@pytest.fixture
def connect_sqlite(tmp_path: Path, campaign_files: dict[str, Path]) -> Iterator[Any]:
    """alice, logged in, on a SQLite campaign (for tests that send many requests)."""
    from tests.assess.conftest import Client, TestClient, add_users, app_of, init_store

    url = str(tmp_path / "many.db")
    init_store(url, campaign_files)
    add_users(url, {"alice": ["1"]})
    with TestClient(app_of(url)) as http:
        yield Client(http, "alice")


def holding_all(client: Any, url: str, passages: list[list[int]]) -> dict[str, str]:
    found = client.post(url + "/check", {"passages": passages}).json()
    return {path: "2" for path in found["holding"]}


def test_login_session_and_logout(connect: Any) -> None:
    anonymous = connect(None)
    assert anonymous.get("/api/session").status_code == 401
    response = anonymous.http.post("/login", data={"username": "alice", "password": PASSWORD})
    assert response.status_code == 200
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    session = anonymous.get("/api/session").json()
    assert session["user"] == "alice" and session["csrf_token"] == response.json()["csrf_token"]
    assert anonymous.http.post("/logout").status_code == 403
    assert anonymous.http.post("/logout", headers={"X-CSRF-Token": session["csrf_token"]}
                               ).status_code == 200
    assert anonymous.get("/api/session").status_code == 401
    assert anonymous.get("/api/topics").status_code == 401


def test_html_login_redirects(connect: Any) -> None:
    client = connect(None)
    html = {"accept": "text/html"}
    wrong = client.http.post("/login", data={"username": "alice", "password": "x"},
                             headers=html, follow_redirects=False)
    assert wrong.status_code == 303 and wrong.headers["location"] == "/login?error=1"
    right = client.http.post("/login", data={"username": "alice", "password": PASSWORD,
                                             "next": "/topics/1"},
                             headers=html, follow_redirects=False)
    assert right.status_code == 303 and right.headers["location"] == "/topics/1"
    outside = client.http.post("/login", data={"username": "alice", "password": PASSWORD,
                                               "next": "//evil.example"},
                               headers=html, follow_redirects=False)
    assert outside.headers["location"] == "/"


def test_failed_logins_are_rate_limited_per_user(connect: Any) -> None:
    client = connect(None)
    for _ in range(LOGIN_ATTEMPTS):
        response = client.http.post("/login", data={"username": "alice", "password": "wrong"})
        assert response.status_code == 401
        assert response.json() == {"error": "wrong user name or password"}
    blocked = client.http.post("/login", data={"username": "alice", "password": PASSWORD})
    assert blocked.status_code == 429
    # another user is not affected; an unknown user counts as well
    assert client.http.post("/login", data={"username": "bob", "password": PASSWORD}
                            ).status_code == 200
    assert client.http.post("/login", data={"username": "nobody", "password": "x"}
                            ).status_code == 401


@pytest.mark.parametrize("form", [{}, {"username": "alice"}, {"password": "x"}])
def test_login_form_fields_required(connect: Any, form: dict[str, str]) -> None:
    assert connect(None).http.post("/login", data=form).status_code == 422


def test_topics_topic_and_pool(connect: Any) -> None:
    alice = connect("alice")
    topics = alice.get("/api/topics").json()["topics"]
    assert topics == [{"topic": "1", "title": "xml retrieval", "locked": False, "pool": 2,
                       "done": 0, "in_progress": 0, "relevant": 0, "seconds": 0.0}]
    topic = alice.get("/api/topics/1").json()
    assert topic["description"] == "Evaluation of XML retrieval."
    assert topic["narrative"] == "Elements about evaluation are relevant."
    assert topic["keywords"] == "xml, retrieval" and topic["mode"] == "highlight"
    pool = alice.get("/api/topics/1/pool").json()
    assert [a["file"] for a in pool["articles"]] == ["co/a1", "co/a2"]
    assert pool["articles"][1]["elements"] == [
        {"path": "/article[1]/bdy[1]/p[1]", "min_rank": 2, "runs": 1},
        {"path": "/article[1]/bdy[1]/p[2]", "min_rank": 4, "runs": 1}]
    assert pool["articles"][1]["min_rank"] == 2 and pool["articles"][0]["status"] == "unseen"


def test_not_assigned_unknown_and_not_pooled(connect: Any) -> None:
    carol = connect("carol")
    for path in ("/api/topics/1", "/api/topics/1/pool", A1, A1 + "/content"):
        assert carol.get(path).status_code == 403, path
    assert carol.put(A1, {"version": 0, "status": "in-progress"}).status_code == 403
    assert carol.put(A1, {"version": "bad"}).status_code == 403
    assert carol.post(A1 + "/check", {"passages": "bad"}).status_code == 403
    assert carol.get("/api/topics/9").status_code == 404
    assert carol.get("/api/topics/2/docs/co/a1").status_code == 404
    assert carol.get("/api/topics/2/docs/co/nothing/content").status_code == 404


def test_content_is_text_with_code_point_offsets(connect: Any) -> None:
    from inexeval.assess.documents import document_text
    from inexeval.collection.build import index_document

    content = connect("alice").get(A1 + "/content").json()
    index = index_document("co/a1", DOCUMENTS["co/a1"].encode())
    assert content["file"] == "co/a1"
    assert content["text"] == document_text(DOCUMENTS["co/a1"].encode(), "co/a1")
    assert len(content["text"]) == index.length
    assert [{k: el[k] for k in ("path", "start", "end")} for el in content["elements"]] == [
        {"path": p, "start": int(s), "end": int(e)}
        for p, s, e in zip(index.paths, index.start, index.end)]
    # names for people and the inline flags of highlight mode (names.py has the rules)
    assert content["elements"][0]["name"] == "Article"
    assert content["min_element_chars"] == 20
    assert all(el["inline"] == (el["end"] - el["start"] < 20) for el in content["elements"]
               if "/it[" not in el["path"] and "/b[" not in el["path"])
    last = content["elements"][-1]
    # one code point for the emoji (two UTF-16 units), one for &amp;
    assert content["text"][last["start"]:last["end"]] == "Another section \U0001F600 here."
    assert "Second & paragraph." in content["text"]
    markup = connect("alice").get(A2 + "/content").json()["text"]
    assert markup.startswith("<script>alert(1)</script> and <img src=x onerror=alert(2)>")


def test_save_versions_conflicts_and_the_log(connect: Any, campaign: str) -> None:
    alice = connect("alice")
    first = alice.get(A1).json()
    assert first["version"] == 0 and first["status"] == "unseen"
    assert first["best_entry_point"] is None and first["assessor"] == "alice"
    saved = alice.put(A1, {"version": 0, "status": "in-progress", "passages": [[5, 9], [9, 12]],
                           "seconds": 3.5})
    assert saved.status_code == 200
    assert saved.json()["version"] == 1 and saved.json()["passages"] == [[5, 12]]
    # a version the store never had cannot be merged (tests/assess/test_merge.py merges)
    stale = alice.put(A1, {"version": 7, "status": "in-progress", "passages": [[0, 2]]})
    assert stale.status_code == 409 and stale.json()["conflicts"] == []
    assert stale.json()["current"]["passages"] == [[5, 12]]
    assert alice.get(A1).json()["passages"] == [[5, 12]]
    store = Store.open(campaign)
    try:
        saves = [a for a in store.actions() if a["action"] == "save"]
    finally:
        store.close()
    assert len(saves) == 1 and saves[0]["actor"] == "alice" and saves[0]["file"] == "co/a1"
    assert '"passages":[]' in saves[0]["before"] and '"passages":[[5,12]]' in saves[0]["after"]


def test_done_flow(connect: Any) -> None:
    alice = connect("alice")
    passages = [[20, 40]]
    refused = alice.put(A1, {"version": 0, "status": "done", "passages": passages})
    assert refused.status_code == 422
    assert "needs a best entry point" in refused.json()["error"]
    assert alice.get(A1).json()["version"] == 0
    exhaustivity = holding_all(alice, A1, passages)
    done = alice.put(A1, {"version": 0, "status": "done", "passages": passages,
                          "best_entry_point": 20, "exhaustivity": exhaustivity})
    assert done.status_code == 200 and done.json()["status"] == "done"
    assert done.json()["problems"] == [] and done.json()["relevant"] is True
    changed = alice.put(A1, {"version": 1, "status": "done", "passages": [[20, 41]]})
    assert changed.json()["status"] == "in-progress" and changed.json()["version"] == 2
    progress = alice.get("/api/topics").json()["topics"][0]
    assert progress["in_progress"] == 1 and progress["done"] == 0
    # done with nothing highlighted: non-relevant
    empty = alice.put(A2, {"version": 0, "status": "done"})
    assert empty.status_code == 200 and empty.json()["relevant"] is False
    pool = alice.get("/api/topics/1/pool").json()["articles"]
    assert pool[1]["status"] == "done" and pool[1]["relevant"] is False


def test_two_assessors_keep_their_own_judgements(connect: Any) -> None:
    alice, bob = connect("alice"), connect("bob")
    assert alice.put(A1, {"version": 0, "status": "in-progress", "passages": [[0, 3]]}
                     ).status_code == 200
    assert bob.get(A1).json()["passages"] == [] and bob.get(A1).json()["version"] == 0
    assert bob.put(A1, {"version": 0, "status": "in-progress", "passages": [[4, 6]]}
                   ).status_code == 200
    assert alice.get(A1).json()["passages"] == [[0, 3]]


@pytest.mark.parametrize(("body", "message"), [
    ({"status": "in-progress"}, "version: a whole number is required"),
    ({"version": True, "status": "in-progress"}, "version: a whole number is required"),
    ({"version": "0", "status": "in-progress"}, "version: a whole number is required"),
    ({"version": 0}, "status: required"),
    ({"version": 0, "status": 3}, "status: a string is required"),
    ({"version": 0, "status": "finished"}, "status 'finished' is not one of"),
    ({"version": 0, "status": "in-progress", "passages": [[1, 2, 3]]}, "passages: a list"),
    ({"version": 0, "status": "in-progress", "passages": [[1.5, 2]]}, "passages: a list"),
    ({"version": 0, "status": "in-progress", "passages": [[3, 3]]}, "does not end after"),
    ({"version": 0, "status": "in-progress", "passages": [[5, 2]]}, "does not end after"),
    ({"version": 0, "status": "in-progress", "passages": [[-1, 2]]}, "outside the document"),
    ({"version": 0, "status": "in-progress", "passages": [[0, 10 ** 30]]}, "outside the doc"),
    ({"version": 0, "status": "in-progress", "best_entry_point": "x"}, "best_entry_point"),
    ({"version": 0, "status": "in-progress", "best_entry_point": 10 ** 6}, "outside the doc"),
    ({"version": 0, "status": "in-progress", "exhaustivity": {"/article[1]/x[1]": "2"}},
     "not an element of the document"),
    ({"version": 0, "status": "in-progress", "exhaustivity": {"not a path": "2"}},
     "not an absolute path"),
    ({"version": 0, "status": "in-progress", "exhaustivity": {"/article[1]": "3"}},
     "not on the highlight scale"),
    ({"version": 0, "status": "in-progress", "exhaustivity": {"/article[1]": 2}},
     "an object mapping element paths to strings"),
    ({"version": 0, "status": "in-progress", "exhaustivity": []}, "an object mapping"),
    ({"version": 0, "status": "in-progress", "values": {"/article[1]": "3E"}},
     "not on the highlight scale"),
    ({"version": 0, "status": "in-progress", "seconds": "long"}, "seconds: a number"),
    ({"version": 0, "status": "in-progress", "seconds": -1}, "seconds: a number from 0 to 86400"),
    ({"version": 0, "status": "in-progress", "seconds": 1.7e308}, "seconds: a number from 0"),
    ({"version": 0, "status": "in-progress", "seconds": 10 ** 400}, "seconds: a number from 0"),
    ({"version": 0, "status": "in-progress", "colour": "red"}, "unknown field 'colour'"),
    ({"version": 0, "status": "done", "passages": [[0, 5]]}, "cannot be done"),
])
def test_invalid_bodies_are_422_with_a_message(connect: Any, body: dict[str, Any],
                                               message: str) -> None:
    response = connect("alice").put(A1, body)
    assert response.status_code == 422
    assert message in response.json()["error"]


@pytest.mark.parametrize(("content", "status"), [
    (b"", 422), (b"not json", 422), (b"[1, 2]", 422), (b'"text"', 422), (b"\xff\xfe", 422),
    (b'{"version": NaN, "status": "in-progress"}', 422),
    (b'{"version": 0, "status": "in-progress", "seconds": Infinity}', 422),
    (b"[" * 40 + b"]" * 40, 422), (b'{"a":' * 5000 + b"1" + b"}" * 5000, 422),
    (b"[" * 200_000, 422), (b" " * (1 << 20), 413), (b"x" * (2 << 20), 413),
])
def test_malformed_bodies(connect: Any, content: bytes, status: int) -> None:
    alice = connect("alice")
    response = alice.http.put(A1, content=content, headers={
        "X-CSRF-Token": alice.csrf, "content-type": "application/json"})
    assert response.status_code == status
    assert response.json()["error"]
    assert alice.get(A1).json()["version"] == 0


def test_streamed_body_without_length_is_limited(connect: Any) -> None:
    alice = connect("alice")

    def chunks() -> Any:
        for _ in range(40):
            yield b" " * 32768

    response = alice.http.put(A1, content=chunks(), headers={"X-CSRF-Token": alice.csrf})
    assert response.status_code == 413


def test_csrf_required_on_every_change(connect: Any) -> None:
    alice = connect("alice")
    body = {"version": 0, "status": "in-progress"}
    assert alice.http.put(A1, json=body).status_code == 403
    assert alice.http.put(A1, json=body, headers={"X-CSRF-Token": "forged"}).status_code == 403
    assert alice.http.post(A1 + "/check", json=body).status_code == 403
    dora = connect("dora")
    assert dora.http.post("/api/admin/topics/1/lock").status_code == 403
    assert alice.get(A1).json()["version"] == 0
    assert connect(None).put(A1, body).status_code == 401


def test_a_save_of_a_document_known_to_the_server_is_refused_the_same(connect: Any) -> None:
    """Once a document's pool and structure are cached, a save of it goes to the store's
    committer with the session looked up in its transaction (SQLite): the same refusals, in the
    same order, and nothing written."""
    alice, carol, dora = connect("alice"), connect("carol"), connect("dora")
    assert alice.put(A1, {"version": 0, "status": "in-progress"}).json()["version"] == 1
    body = {"version": 1, "status": "in-progress", "passages": [[0, 5]]}
    assert alice.http.put(A1, json=body).status_code == 403
    assert alice.http.put(A1, json=body, headers={"X-CSRF-Token": "forged"}).status_code == 403
    assert carol.put(A1, body).status_code == 403
    assert alice.put(A1, {**body, "version": 7}).status_code == 409
    assert alice.put(A1, {**body, "passages": [[5, 0]]}).status_code == 422
    assert dora.post("/api/admin/topics/1/lock").status_code == 200
    assert alice.put(A1, body).status_code == 423
    assert dora.post("/api/admin/topics/1/unlock").status_code == 200
    assert alice.post("/logout").status_code == 200
    assert alice.put(A1, body).status_code == 401
    bob = connect("bob")
    assert bob.get(A1).json()["version"] == 0
    alice = connect("alice")
    assert alice.get(A1).json()["version"] == 1
    assert alice.put(A1, body).json()["version"] == 2


def test_a_refused_save_costs_the_saves_batched_with_it_nothing(campaign: str) -> None:
    """Review of the committer's fast path: a save refused for its session (a forged or stale
    cookie) wrote the session's use before it was refused, so the whole batch was rolled back
    and committed again with a savepoint per save; now every refusal comes before any write
    and the others stand as they are."""
    import functools
    from dataclasses import replace

    import sqlalchemy as sa

    from inexeval.assess.api import authorised
    from inexeval.assess.store import Store

    store = Store.open(campaign)
    try:
        if not store.groups_commits:
            pytest.skip("PostgreSQL commits each save on its own (no batch)")
        tokens = {name: store.create_session(name) for name in ("alice", "bob")}
        run: list[str] = []
        sa.event.listen(store.engine, "before_cursor_execute",
                        lambda _c, _k, statement, *_: run.append(statement.split()[0]))

        def save(token: str, csrf: str) -> Any:
            return store.save_change_of_session(
                token, 3600, functools.partial(authorised, csrf_token=csrf), "1", "co/a1", 0,
                lambda before: replace(before, status="in-progress"))

        with store._writer:  # held: the four are batched together
            futures = [save(*tokens["alice"]), save("forged", ""),
                       save(tokens["bob"][0], "wrong"), save(*tokens["bob"])]
        outcomes = []
        for future in futures:
            try:
                outcomes.append(future.result().__class__.__name__)
            except Exception as refused:  # noqa: BLE001 - the outcome looked at
                outcomes.append(getattr(refused, "status_code", type(refused).__name__))
        assert outcomes == ["tuple", 401, 403, "tuple"]
        assert "SAVEPOINT" not in run
        assert store.judgement("1", "co/a1", "alice").version == 1
        assert store.judgement("1", "co/a1", "bob").version == 1
    finally:
        store.close()


def test_a_store_that_refuses_writes_still_tells_401_and_403_first(campaign: str) -> None:
    """Review of the fast path: on a store that cannot be written, a save without a session
    or with a wrong token was 503 (the store's) where it was 401 and 403."""
    import sqlalchemy as sa

    read_only = ("SET default_transaction_read_only = on" if campaign.startswith("postgresql")
                 else "PRAGMA query_only=ON")
    with TestClient(app_of(campaign)) as http:
        alice = Client(http, "alice")
        # saved once: the document is known to the server (its next saves take the fast path)
        assert alice.put(A1, {"version": 0, "status": "in-progress"}).status_code == 200
        store = http.app.state.service.store
        def refuse_writes(connection: Any, _: Any) -> None:
            connection.execute(read_only)
            connection.commit()  # (PostgreSQL: a SET in a transaction rolled back is undone)

        sa.event.listen(store.engine, "connect", refuse_writes)
        store.engine.dispose()
        fast = _count_fast_saves(store)
        body = {"version": 1, "status": "in-progress", "passages": [[0, 5]]}
        assert alice.put(A1, body, headers={"X-CSRF-Token": "wrong"}).status_code == 403
        assert alice.put(A1, body).status_code == 503  # the store's own refusal
        http.cookies.set("inexeval_session", "forged")
        assert http.put(A1, json=body).status_code == 401
        assert len(fast) == 3 and fast[-1] == "forged"  # each took the fast path first


def _count_fast_saves(store: Any) -> list[str]:
    """The session tokens of the saves that take the store's fast path, as they come."""
    fast: list[str] = []
    through = store.save_change_of_session
    store.save_change_of_session = lambda token, *a, **k: (
        fast.append(token) or through(token, *a, **k))
    return fast


def test_the_refusals_of_a_save_of_a_known_document_write_nothing(campaign: str) -> None:
    """Issue 36, 3: a save of a document the server knows reads the session and the
    judgement in the save's transaction (on PostgreSQL both in one round trip, on a thread of
    the store's, the save's writes in another): a wrong token is 403, a topic not assigned
    403, a locked topic 423, a stale session 401, each on that path, and none writes anything
    (no action logged, no new version, not the session's use)."""
    import sqlalchemy as sa

    from inexeval.assess.store import sessions

    with TestClient(app_of(campaign)) as http:
        alice = Client(http, "alice")
        carol, dora = Client(TestClient(http.app), "carol"), Client(TestClient(http.app), "dora")
        assert alice.put(A1, {"version": 0, "status": "in-progress"}).status_code == 200
        store = http.app.state.service.store
        fast = _count_fast_saves(store)
        body = {"version": 1, "status": "in-progress", "passages": [[0, 5]]}
        assert alice.put(A1, body, headers={"X-CSRF-Token": "wrong"}).status_code == 403
        assert carol.put(A1, body).status_code == 403
        assert dora.post("/api/admin/topics/1/lock").status_code == 200
        assert alice.put(A1, body).status_code == 423
        assert dora.post("/api/admin/topics/1/unlock").status_code == 200
        with store.engine.begin() as connection:  # unused for longer than it may be
            connection.execute(sessions.update().where(sessions.c.user == "alice")
                               .values(last_seen=0.0))
        assert alice.put(A1, body).status_code == 401
        assert len(fast) == 4
        assert [a["action"] for a in store.actions()].count("save") == 1
        assert store.judgement("1", "co/a1", "alice").version == 1
        with store.engine.connect() as connection:
            assert connection.execute(sa.select(sessions.c.last_seen)
                                      .where(sessions.c.user == "alice")).scalar() == 0.0
        # the same path saves
        alice = Client(http, "alice")
        assert alice.put(A1, body).json()["version"] == 2 and len(fast) == 5


def test_check_reports_without_saving(connect: Any) -> None:
    alice = connect("alice")
    found = alice.post(A1 + "/check", {"passages": [[30, 25]]})
    assert found.status_code == 422
    found = alice.post(A1 + "/check", {"passages": [[20, 22], [22, 40]]}).json()
    assert found["passages"] == [[20, 40]] and found["relevant"] is True
    assert found["holding"][0] == "/article[1]"
    assert "a relevant document needs a best entry point" in found["problems"]
    assert alice.get(A1).json()["version"] == 0


def test_admin_stats_and_locks(connect: Any) -> None:
    alice, dora = connect("alice"), connect("dora")
    assert alice.get("/api/admin/stats").status_code == 403
    assert alice.post("/api/admin/topics/1/lock").status_code == 403
    alice.put(A2, {"version": 0, "status": "done"})
    stats = dora.get("/api/admin/stats").json()
    assert [(t["topic"], t["assessor"], t["done"]) for t in stats["topics"]] == [
        ("1", "alice", 1), ("1", "bob", 0), ("2", "carol", 0)]
    assert stats["assessors"][0]["assessor"] == "alice"
    assert stats["assessors"][0]["documents_done"] == 1
    assert dora.post("/api/admin/topics/1/lock").json() == {"topic": "1", "locked": True}
    locked = alice.put(A1, {"version": 0, "status": "in-progress", "passages": [[0, 1]]})
    assert locked.status_code == 423 and alice.get(A1).json()["version"] == 0
    assert alice.get("/api/topics").json()["topics"][0]["locked"] is True
    assert dora.post("/api/admin/topics/1/unlock").json()["locked"] is False
    assert alice.put(A1, {"version": 0, "status": "in-progress"}).status_code == 200
    assert dora.post("/api/admin/topics/7/lock").status_code == 404


def test_openapi_lists_every_endpoint(connect: Any) -> None:
    schema = connect(None).get("/api/openapi.json").json()
    assert schema == OPENAPI
    assert set(schema["paths"]) == {
        "/login", "/logout", "/api/session", "/api/history", "/api/topics", "/api/topics/{topic}",
        "/api/topics/{topic}/pool", "/api/topics/{topic}/next", "/api/topics/{topic}/keywords",
        "/api/topics/{topic}/docs/{file}",
        "/api/topics/{topic}/docs/{file}/content", "/api/topics/{topic}/docs/{file}/check",
        "/api/topics/{topic}/docs/{file}/keywords", "/api/topics/{topic}/docs/{file}/note",
        "/api/admin/stats", "/api/admin/export", "/api/admin/notes", "/api/admin/topics/{topic}/lock",
        "/api/admin/topics/{topic}/unlock", "/api/admin/agreement", "/api/admin/drift",
        "/api/admin/self-agreement", "/api/admin/topics/{topic}/disagreements", "/api/admin/topics/{topic}/assessors",
        "/api/admin/topics/{topic}/assessors/{assessor}",
        "/api/admin/topics/{topic}/judgements/{assessor}/docs/{file}",
        "/api/admin/topics/{topic}/content/{file}", "/api/admin/topics/{topic}/adjudicated/{file}",
        "/api/admin/topics/{topic}/accept-agreed"}
    put = schema["paths"]["/api/topics/{topic}/docs/{file}"]["put"]["responses"]
    assert {"200", "401", "403", "404", "409", "413", "422", "423"} <= set(put)


def test_security_headers(connect: Any) -> None:
    response = connect(None).get("/api/openapi.json")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert float(response.headers["server-timing"].removeprefix("app;dur=")) >= 0


def test_2002_mode_values_implicit_and_pooled_elements(
        store_url: str, campaign_files: Any) -> None:
    from tests.assess.conftest import Client, TestClient, add_users, app_of, init_store

    init_store(store_url, campaign_files, mode="2002")
    add_users(store_url, {"alice": ["1"]})
    with TestClient(app_of(store_url)) as http:
        alice = Client(http, "alice")
        p1, p2 = "/article[1]/bdy[1]/p[1]", "/article[1]/bdy[1]/p[2]"
        partial = alice.put(A2, {"version": 0, "status": "in-progress", "values": {p1: "2E"}})
        assert partial.status_code == 200
        assert partial.json()["implicit"] == {"/article[1]": "2L", "/article[1]/bdy[1]": "2L"}
        assert partial.json()["problems"] == [f"pooled element {p2} has no value"]
        refused = alice.put(A2, {"version": 1, "status": "done"})
        assert refused.status_code == 422 and p2 in refused.json()["error"]
        wrong = alice.put(A2, {"version": 1, "status": "in-progress",
                               "values": {p1: "2E", "/article[1]": "1E"}})
        assert wrong.status_code == 200 and wrong.json()["problems"] == [
            f"/article[1] (1E) is less relevant than the element it contains, {p1} (2E)",
            f"/article[1] (1E) contains {p1} of coverage E, so its coverage is too large (L)",
            f"pooled element {p2} has no value"]
        done = alice.put(A2, {"version": 2, "status": "done", "values": {p1: "2E", p2: "0N"}})
        assert done.status_code == 200 and done.json()["status"] == "done"
        assert alice.put(A1, {"version": 0, "status": "in-progress",
                              "exhaustivity": {"/article[1]": "2"}}).status_code == 422


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 20, 10 ** 20) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=12), children, max_size=4), max_leaves=20)
_FIELD = st.sampled_from(["version", "status", "passages", "best_entry_point", "exhaustivity",
                          "values", "seconds", "topic", "other"])


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.dictionaries(_FIELD, _JSON | st.sampled_from(
    [0, 1, "done", "in-progress", [[0, 5]], {"/article[1]": "2"}]), max_size=7) | _JSON)
def test_no_body_gives_a_server_error(connect_sqlite: Any, body: Any) -> None:
    response = connect_sqlite.put(A1, body)
    assert response.status_code in (200, 409, 422), response.text
    assert isinstance(response.json(), dict)


def test_a_split_passage_comes_back_in_document_order(connect: Any) -> None:
    """The passages of a save, of its answer, of a later read, of /check, of a merge and of the
    organiser's view are sorted and merged, also when the client sends the two parts of a cut
    passage in reverse order (issue 36, 6: [(104, 354), (61, 88)])."""
    client = connect("alice")
    answer = client.put(A1, {"version": 0, "status": "in-progress",
                             "passages": [[60, 80], [10, 20], [15, 25]]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["passages"] == [[10, 25], [60, 80]]
    assert client.get(A1).json()["passages"] == [[10, 25], [60, 80]]
    check = client.post(A1 + "/check", {"passages": [[60, 80], [10, 20]]}).json()
    assert check["passages"] == [[10, 20], [60, 80]]
    merged = client.put(A1, {"version": 0, "status": "in-progress",
                             "passages": [[70, 90], [5, 6]]})
    assert merged.status_code == 200 and merged.json()["merged"], merged.text
    assert merged.json()["passages"] == [[5, 6], [10, 25], [60, 90]]
    admin = connect("dora").get("/api/admin/topics/1/judgements/alice/docs/co/a1").json()
    assert admin["passages"] == [[5, 6], [10, 25], [60, 90]]


def test_highlight_mode_refuses_too_small_for_an_element_holding_a_whole_passage(
        connect: Any) -> None:
    """INEX 2005 (X-Rai): an element that holds a whole highlighted passage cannot be too
    small; a save asking for it is refused, /check says why, nothing is written."""
    alice = connect("alice")
    elements = {el["path"]: el for el in alice.get(A1 + "/content").json()["elements"]}
    paragraph = elements["/article[1]/bdy[1]/sec[1]/p[1]"]
    assert paragraph["name"] == "Section 1 › ¶ 1"
    passages = [[paragraph["start"] + 4, paragraph["end"] - 1]]
    refused = alice.put(A1, {"version": 0, "status": "in-progress", "passages": passages,
                             "exhaustivity": {paragraph["path"]: "?"}})
    assert refused.status_code == 422
    assert "contains the whole highlighted passage" in refused.json()["error"]
    assert alice.get(A1).json()["version"] == 0
    check = alice.post(A1 + "/check", {"passages": passages,
                                       "exhaustivity": {paragraph["path"]: "?"}}).json()
    assert check["refused"] == refused.json()["problems"]
    # 2 for the paragraph: inferred for every element above it
    check = alice.post(A1 + "/check", {"passages": passages,
                                       "exhaustivity": {paragraph["path"]: "2"}}).json()
    assert check["exhaustivity"] == {paragraph["path"]: "2", "/article[1]/bdy[1]/sec[1]": "2",
                                     "/article[1]/bdy[1]": "2", "/article[1]": "2"}
    assert check["inferred"] == {"/article[1]": "/article[1]/bdy[1]",
                                 "/article[1]/bdy[1]": "/article[1]/bdy[1]/sec[1]",
                                 "/article[1]/bdy[1]/sec[1]": paragraph["path"]}
    assert check["resets"] == []
    # a judgement as GET sends it (with its inferred values) can be sent back as it is
    read = alice.get(A1).json()
    assert read["inferred"] == {}
    assert alice.put(A1, {**read, "status": "in-progress"}).status_code == 200


def test_a_save_reads_access_in_its_own_transaction_only(connect: Any,
                                                          monkeypatch: Any) -> None:
    """A save back to back read the topic's access twice (before, and in the save's
    transaction); now before only when the pool or the body refuses it (their order kept:
    test_not_assigned_unknown_and_not_pooled)."""
    alice = connect("alice")
    store = alice.http.app.state.service.store
    reads: list[str] = []
    original = store.access
    monkeypatch.setattr(store, "access", lambda *key: reads.append("access") or original(*key))
    assert alice.put(A1, {"version": 0, "status": "in-progress"}).status_code == 200
    assert reads == []
    assert alice.put(A1, {"version": "bad"}).status_code == 422
    assert reads == ["access"]


def test_the_document_cache_holds_characters_not_64_documents(
        monkeypatch: Any) -> None:
    """Twenty assessors among five articles each are a hundred documents: a cache of 64 read
    each from the store again on every save."""
    from inexeval.assess import api
    from inexeval.assess.store import Document

    class Documents:
        def __init__(self) -> None:
            self.read: list[str] = []

        def document(self, file: str) -> Document:
            self.read.append(file)
            return Document(file, "x" * 100, (("/article[1]", 0, 100),), ())

    store = Documents()
    service = api.Service(store, "passages", hasher=CHEAP_HASHER)  # type: ignore[arg-type]
    files = [f"d{k}" for k in range(100)]
    for _ in range(2):
        for file in files:
            assert service.document(file).file == file
    assert store.read == files
    monkeypatch.setattr(api, "DOCUMENT_CACHE_CHARS", 1000)  # ten of them
    store.read.clear()
    service = api.Service(store, "passages", hasher=CHEAP_HASHER)  # type: ignore[arg-type]
    for _ in range(2):
        for file in files:
            service.document(file)
    assert len(store.read) == 200
