"""Fixtures of the assessment tests: a small generated collection, topics and pool, and stores
on both back ends (a SQLite file, and a fresh schema of the PostgreSQL test server)."""

from __future__ import annotations

import secrets
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher

from inexeval.cli import main

with warnings.catch_warnings():
    # starlette's test client announces a future dependency change when imported
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
"""Argon2 with minimal cost: fast tests (the commands use argon2-cffi's defaults)."""
PASSWORD = "correct horse"

DOCUMENTS = {
    "co/a1": ("<article><fm><ti>Retrieval of XML</ti><au>A. Author</au></fm><bdy>"
              "<sec><st>Intro</st><p>XML retrieval evaluates elements.</p>"
              "<p>Second &amp; paragraph.</p></sec>"
              "<sec><p>Another section \U0001F600 here.</p></sec></bdy></article>"),
    "co/a2": ("<article><bdy><p>&lt;script&gt;alert(1)&lt;/script&gt; and "
              "&lt;img src=x onerror=alert(2)&gt; are text.</p><p>Plain words.</p></bdy>"
              "</article>"),
    "co/a3": "<article><bdy><p>Small <it>document</it> about XML.</p></bdy></article>",
}
TOPICS = """<?xml version="1.0"?>
<topics>
<inex_topic topic_id="1" query_type="CO"><title>xml retrieval</title>
<description>Evaluation of XML retrieval.</description><narrative>Elements about evaluation
are relevant.</narrative><keywords>xml, retrieval</keywords></inex_topic>
<inex_topic topic_id="2" query_type="CO"><title>small documents</title>
<description>Small documents.</description><narrative>Anything small.</narrative>
<keywords>small</keywords></inex_topic>
</topics>
"""
POOL = ("1\tco/a1\t\t1\t2\n"
        "1\tco/a2\t/article[1]/bdy[1]/p[1]\t2\t1\n"
        "1\tco/a2\t/article[1]/bdy[1]/p[2]\t4\t1\n"
        "2\tco/a3\t\t1\t1\n")


@pytest.fixture
def campaign_files(tmp_path: Path) -> dict[str, Path]:
    """A collection folder, a topic file and a pool file."""
    collection = tmp_path / "collection"
    for name, xml in DOCUMENTS.items():
        target = collection / f"{name}.xml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(xml, encoding="utf-8")
    topics = tmp_path / "topics.xml"
    topics.write_text(TOPICS, encoding="utf-8")
    pool = tmp_path / "pool.tsv"
    pool.write_text(POOL, encoding="utf-8")
    return {"collection": collection, "topics": topics, "pool": pool}


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a new store goes: a SQLite file, or a schema of its own on the PostgreSQL server
    (created for the test and dropped after it)."""
    if request.param == "sqlite":
        yield str(tmp_path / "store.db")
        return
    import psycopg

    base = request.getfixturevalue("postgres_url")
    schema = f"inexeval_test_{secrets.token_hex(6)}"
    with psycopg.connect(base, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{base}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(base, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


def init_store(url: str, files: dict[str, Path], mode: str = "highlight") -> None:
    code = main(["assess", "init", url, "--collection", str(files["collection"]),
                 "--topics", str(files["topics"]), "--pool", str(files["pool"]), "--mode", mode])
    assert code == 0


def add_users(url: str, assignments: dict[str, list[str]], admins: tuple[str, ...] = ()) -> None:
    from inexeval.assess.store import Store

    store = Store.open(url)
    try:
        for name in (*assignments, *admins):
            store.add_user(name, CHEAP_HASHER.hash(PASSWORD), name in admins, "test")
        for name, topics in assignments.items():
            store.assign(name, topics, "test")
    finally:
        store.close()


@pytest.fixture
def campaign(store_url: str, campaign_files: dict[str, Path]) -> str:
    """A highlight-mode store: alice and bob assessing topic 1, carol topic 2, admin dora."""
    init_store(store_url, campaign_files)
    add_users(store_url, {"alice": ["1"], "bob": ["1"], "carol": ["2"]}, admins=("dora",))
    return store_url


class Client:
    """A test client of the app logged in as one user, sending the CSRF token on changes."""

    def __init__(self, client: Any, user: str | None):
        self.http = client
        self.csrf = ""
        if user is not None:
            response = client.post("/login", data={"username": user, "password": PASSWORD})
            assert response.status_code == 200, response.text
            self.csrf = response.json()["csrf_token"]

    def get(self, path: str, **options: Any) -> Any:
        return self.http.get(path, **options)

    def put(self, path: str, body: Any, **options: Any) -> Any:
        headers = {"X-CSRF-Token": self.csrf, **options.pop("headers", {})}
        return self.http.put(path, json=body, headers=headers, **options)

    def post(self, path: str, body: Any = None, **options: Any) -> Any:
        headers = {"X-CSRF-Token": self.csrf, **options.pop("headers", {})}
        return self.http.post(path, json=body, headers=headers, **options)


def app_of(url: str, **options: Any) -> Any:
    """The app over the store at ``url`` as the tests reach it: the cheap hasher, and the test
    client's host name allowed."""
    from inexeval.assess.app import create_app

    return create_app(url, **{"hasher": CHEAP_HASHER, "allowed_hosts": ("testserver",),
                              **options})


@pytest.fixture
def connect(campaign: str) -> Iterator[Any]:
    """``connect(user)``: a :class:`Client` of a fresh app over the campaign store."""
    opened: list[Any] = []

    def make(user: str | None) -> Client:
        client = TestClient(app_of(campaign))
        client.__enter__()
        opened.append(client)
        return Client(client, user)

    yield make
    for client in opened:
        client.__exit__(None, None, None)
