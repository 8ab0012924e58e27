"""The store on SQLite and PostgreSQL: schema versions, assignments, transactions with the
optimistic version check, the action log and the statistics drawn from it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import sqlalchemy as sa

from inexeval.assess import store as store_module
from inexeval.assess.model import Judgement
from inexeval.assess.store import Conflict, Locked, NotFound, Store, StoreError
from tests.assess.conftest import init_store


def test_schema_version_and_migrations(campaign: str) -> None:
    store = Store.open(campaign)
    try:
        with store.engine.connect() as connection:
            version = connection.execute(sa.select(store_module.schema_version.c.version)).all()
            assert version == [(store_module.SCHEMA_VERSION,)]
        assert len(store_module.MIGRATIONS) == store_module.SCHEMA_VERSION
        assert store.mode() == "highlight"
        with store.engine.begin() as connection:
            connection.execute(store_module.schema_version.update().values(version=99))
    finally:
        store.close()
    with pytest.raises(StoreError, match="schema version 99, newer than"):
        Store.open(campaign)


def test_create_refuses_an_existing_store(campaign: str) -> None:
    with pytest.raises(StoreError, match="exists"):
        Store.create(campaign)


def test_open_refuses_what_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no assessment store there"):
        Store.open(tmp_path / "missing.db")
    other = tmp_path / "other.db"
    other.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not an inexeval assessment store"):
        Store.open(other)
    assert other.read_bytes() == b"not a database at all" * 100


def test_sqlite_settings(tmp_path: Path) -> None:
    store = Store.create(tmp_path / "s.db")
    try:
        with store.engine.connect() as connection:
            pragma = {name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                      for name in ("journal_mode", "foreign_keys", "synchronous")}
    finally:
        store.close()
    assert pragma == {"journal_mode": "wal", "foreign_keys": 1, "synchronous": 2}


def test_assignments(campaign: str) -> None:
    store = Store.open(campaign)
    try:
        assert store.assessors("1") == ["alice", "bob"]
        assert store.judgement("1", "co/a2", "bob").status == "unseen"
        assert store.assign("bob", ["1", "2"], "test") == ["2"]
        assert store.unassign("alice", ["1"], "test") == ["1"]
        assert store.assessors("1") == ["bob"] and not store.is_assigned("alice", "1")
        assert store.assign("alice", ["1"], "test") == ["1"]
        assert store.assessors("1") == ["bob", "alice"]
        with pytest.raises(StoreError, match="no user 'zoe'"):
            store.assign("zoe", ["1"], "test")
        with pytest.raises(NotFound, match="no topic '7'"):
            store.assign("bob", ["7"], "test")
        with pytest.raises(StoreError, match="exists already"):
            store.add_user("bob", "hash", False, "test")
    finally:
        store.close()


def _highlight(j: Judgement) -> Judgement:
    return replace(j, status="in-progress", passages=((0, 4),))


def test_save_is_one_transaction_with_a_version_check(campaign: str) -> None:
    store = Store.open(campaign)
    try:
        saved = store.save("1", "co/a1", "alice", 0, _highlight)
        assert saved.version == 1 and saved.updated is not None
        assert store.judgement("1", "co/a1", "alice") == saved
        logged = len(store.actions())
        with pytest.raises(Conflict) as stale:
            store.save("1", "co/a1", "alice", 0, _highlight)
        assert stale.value.current == saved

        def failing(j: Judgement) -> Judgement:
            raise ValueError("refused")

        with pytest.raises(ValueError):
            store.save("1", "co/a1", "alice", 1, failing)
        assert len(store.actions()) == logged
        assert store.judgement("1", "co/a1", "alice") == saved
        with pytest.raises(NotFound):
            store.save("1", "co/a3", "alice", 0, _highlight)
        store.set_locked("1", True, "dora")
        with pytest.raises(Locked):
            store.save("1", "co/a1", "alice", 1, _highlight)
        assert [a["action"] for a in store.actions()][-2:] == ["save", "lock"]
    finally:
        store.close()


def test_passages_are_sorted_and_merged_on_save_and_on_read(campaign: str) -> None:
    """After ``u`` cut a passage in two the API gave ``[[103, 354], [61, 89]]``: whatever a
    change returns, and whatever a row holds, passages come back sorted and merged."""
    store = Store.open(campaign)
    try:
        def split(j: Judgement) -> Judgement:
            return replace(j, status="in-progress", passages=((30, 40), (5, 10), (8, 12)))

        saved = store.save("1", "co/a1", "alice", 0, split)
        assert saved.passages == ((5, 12), (30, 40))
        assert store.judgement("1", "co/a1", "alice").passages == ((5, 12), (30, 40))
        with store.engine.begin() as connection:  # a row written by older code
            connection.execute(store_module.judgements.update()
                               .where(store_module.judgements.c.file == "co/a1")
                               .values(passages="[[61, 89], [20, 30], [10, 20]]"))
        read = store.judgement("1", "co/a1", "alice")
        assert read.passages == ((10, 30), (61, 89))
        assert read.to_api()["passages"] == [[10, 30], [61, 89]]
    finally:
        store.close()


def test_sessions(campaign: str) -> None:
    store = Store.open(campaign)
    try:
        token, csrf = store.create_session("alice")
        found = store.session(token)
        assert found is not None and found[0].name == "alice" and found[1] == csrf
        with store.engine.connect() as connection:
            stored = connection.execute(sa.select(store_module.sessions.c.token_hash)).scalars()
            assert token not in list(stored)
        store.end_session(token)
        assert store.session(token) is None and store.session("forged") is None
    finally:
        store.close()


def test_stats_time_is_the_judgements_active_seconds(campaign: str) -> None:
    """Three saves of co/a1 (the last done) and two of co/a2 (done), each recording 40 more
    active seconds (what the page measured): 120 + 80 = 200 s, whatever the pauses between
    the saves; 2 documents done in 200 s is 36 per hour. The same time per topic."""
    store = Store.open(campaign)
    try:
        steps = [("co/a1", "in-progress"), ("co/a1", "in-progress"), ("co/a1", "done"),
                 ("co/a2", "in-progress"), ("co/a2", "done")]
        versions = {"co/a1": 0, "co/a2": 0}
        for file, status in steps:
            store.save("1", file, "alice", versions[file],
                       lambda j, s=status: replace(j, status=s, seconds=j.seconds + 40))
            versions[file] += 1
        with store.engine.begin() as connection:
            ids = connection.execute(sa.select(store_module.actions.c.id).where(
                store_module.actions.c.action == "save").order_by(
                store_module.actions.c.id)).scalars().all()
            for id_, at in zip(ids, (0.0, 60.0, 120.0, 2000.0, 2060.0)):
                connection.execute(store_module.actions.update().where(
                    store_module.actions.c.id == id_).values(at=1e9 + at))
        stats = store.stats()
    finally:
        store.close()
    assert stats["assessors"] == [{"assessor": "alice", "saves": 5, "seconds": 200.0,
                                   "documents_done": 2, "documents_per_hour": 36.0}]
    alice = [t for t in stats["topics"] if t["assessor"] == "alice"]
    assert alice == [{"topic": "1", "assessor": "alice", "locked": False, "pool": 2, "done": 2,
                      "in_progress": 0, "relevant": 0, "seconds": 200.0}]


def test_the_writers_of_processes_sharing_a_sqlite_store_queue_on_a_lock(
        tmp_path: Path, campaign_files: dict[str, Path]) -> None:
    """``serve --workers``: two processes' writers waited for each other in SQLite's busy
    handler (sleeping up to 100 ms a try; the slowest saves waited over a second). Now a
    writer waits on the lock file until the other store's writer is done (two stores of one
    process stand for two processes: flock locks belong to the open file)."""
    import threading

    url = str(tmp_path / "shared.db")
    init_store(url, campaign_files)
    first, second = Store.open(url), Store.open(url)
    try:
        first.share_writes()
        second.share_writes()
        done = threading.Event()
        waiter = threading.Thread(target=lambda: (second.set_locked("1", True, "test"),
                                                  done.set()))
        assert first._writer is not None
        with first._writer:
            waiter.start()
            assert not done.wait(0.5)  # waits for the other's writer, not for SQLite's lock
        assert done.wait(10)
        waiter.join()
        assert first.topic("1")["locked"]
    finally:
        first.close()
        second.close()


def test_twenty_five_connections_at_once_stay_open(campaign: str) -> None:
    """Twenty assessors saving back to back use about 25 connections at once; with 10 kept
    open, the others were opened for a request and closed after it (a PostgreSQL connection
    set up every few saves)."""
    store = Store.open(campaign)
    opened: list[int] = []
    sa.event.listen(store.engine, "connect", lambda *_: opened.append(1))
    try:
        for _ in range(3):
            held = [store.engine.connect() for _ in range(25)]
            for connection in held:
                connection.close()
        assert len(opened) <= 25
    finally:
        store.close()
