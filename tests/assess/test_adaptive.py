"""Adaptive campaigns (issue 24, ``assess init --strategy``): the service serves each assessor
the article the pooling strategy picks after every judgement of the topic so far, through the
API, on SQLite and PostgreSQL; orders worked out by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inexeval.analysis.pooling import strategy_pool
from inexeval.analysis.strategies import StrategyOptions
from inexeval.assess.store import SCHEMA_VERSION, Store
from inexeval.cli import main
from inexeval.formats.detect import load_assessments, load_run
from tests.assess.conftest import Client, TestClient, add_users, app_of

TOPICS = """<?xml version="1.0"?>
<topics>
<inex_topic topic_id="1" query_type="CO"><title>small documents</title>
<description>Small documents.</description><narrative>Any.</narrative></inex_topic>
</topics>
"""

# Two runs (the strategies' arms), ranked d1 d2 d3 and d4 d2 d5; d6 is below depth 3.
RUNS = {"r1": ["d1", "d2", "d3", "d6"], "r2": ["d4", "d2", "d5", "d6"]}
RELEVANT = {"d1", "d3", "d5"}


def _run_file(folder: Path, name: str, docs: list[str]) -> Path:
    path = folder / f"{name}.trec"
    path.write_text("".join(f"1 Q0 {d} {r} {10 - r} {name}\n" for r, d in enumerate(docs, 1)),
                    encoding="utf-8")
    return path


@pytest.fixture
def adaptive_files(tmp_path: Path) -> dict[str, Any]:
    collection = tmp_path / "collection"
    collection.mkdir()
    for i in range(1, 7):
        (collection / f"d{i}.xml").write_text(
            f"<article><bdy><p>Document number {i} text.</p></bdy></article>", encoding="utf-8")
    topics = tmp_path / "topics.xml"
    topics.write_text(TOPICS, encoding="utf-8")
    runs = [_run_file(tmp_path, name, docs) for name, docs in RUNS.items()]
    return {"collection": collection, "topics": topics, "runs": runs}


def _init(url: str, files: dict[str, Any], *options: str) -> None:
    code = main(["assess", "init", url, "--collection", str(files["collection"]), "--topics",
                 str(files["topics"]), "--mode", "passages", "--runs",
                 *map(str, files["runs"]), "--depth", "3", *options])
    assert code == 0


@pytest.fixture
def clients(store_url: str) -> Iterator[Any]:
    opened: list[Any] = []

    def make(user: str) -> Client:
        client = TestClient(app_of(store_url))
        client.__enter__()
        opened.append(client)
        return Client(client, user)

    yield make
    for client in opened:
        client.__exit__(None, None, None)


def _next(client: Client) -> str | None:
    response = client.post("/api/topics/1/next")
    assert response.status_code == 200, response.text
    file: str | None = response.json()["file"]
    return file


def _judge(client: Client, file: str) -> None:
    url = f"/api/topics/1/docs/{file}"
    version = client.get(url).json()["version"]
    body: dict[str, Any] = {"version": version, "status": "done"}
    if file in RELEVANT:
        body |= {"passages": [[0, 8]], "best_entry_point": 0}
    response = client.put(url, body)
    assert response.status_code == 200 and response.json()["relevant"] == (file in RELEVANT)


def test_two_assessors_under_mtf_get_what_the_strategy_chose_after_each_other(
        store_url: str, adaptive_files: dict[str, Any], clients: Any) -> None:
    # Move-to-front, worked by hand (runs r1 = d1 d2 d3, r2 = d4 d2 d5; both at priority 0;
    # an article served and not done counts as not relevant meanwhile):
    #  alice asks: r1 first, its d1.                                  alice: d1
    #  alice judges d1 relevant.  bob asks: r1 keeps giving: d2.      bob: d2
    #  alice asks: d2 is bob's (not relevant for now), r1 drops to -1; r2 (0) gives d4.
    #  bob judges d2 not relevant, alice d4 not relevant (r2 -1 too).
    #  bob asks: r1 and r2 both at -1, the first: r1's d3.            bob: d3
    #  bob judges d3 relevant.  alice asks: r1 is spent; r2's next unjudged: d5.
    #  alice judges d5; bob asks: nothing is left (d6 is below depth 3).
    _init(store_url, adaptive_files, "--strategy", "mtf")
    add_users(store_url, {"alice": ["1"], "bob": ["1"]})
    alice, bob = clients("alice"), clients("bob")
    assert _next(alice) == "d1"
    assert _next(alice) == "d1"  # served and not done: the same one again
    _judge(alice, "d1")
    assert _next(bob) == "d2"
    assert _next(alice) == "d4"
    _judge(bob, "d2")
    _judge(alice, "d4")
    assert _next(bob) == "d3"
    _judge(bob, "d3")
    assert _next(alice) == "d5"
    _judge(alice, "d5")
    assert _next(bob) is None and _next(alice) is None
    # each one's pool in the browser and the API: what was served to them, in that order
    assert [a["file"] for a in alice.get("/api/topics/1/pool").json()["articles"]] == [
        "d1", "d4", "d5"]
    assert [a["file"] for a in bob.get("/api/topics/1/pool").json()["articles"]] == [
        "d2", "d3"]
    with Store.open(store_url) as store:
        assert store.served("1") == [("d1", "alice"), ("d2", "bob"), ("d4", "alice"),
                                     ("d3", "bob"), ("d5", "alice")]
        assert [(a["file"], a["actor"]) for a in store.actions()
                if a["action"] == "serve"] == store.served("1")
    # the whole depth-3 pool judged once, each article by the assessor it was served to
    export = Path(adaptive_files["topics"]).parent / "qrels.fol"
    assert main(["assess", "export", store_url, "-o", str(export)]) == 0
    qrels = load_assessments(str(export))
    rsize = dict(zip(qrels["1"].files.tolist(), qrels["1"].dim("rsize").tolist()))
    assert {f for f, r in rsize.items() if r > 0} == RELEVANT
    assert set(rsize) == {"d1", "d2", "d3", "d4", "d5"}


def test_budget_stops_serving(store_url: str, adaptive_files: dict[str, Any],
                              clients: Any) -> None:
    _init(store_url, adaptive_files, "--strategy", "mtf", "--budget", "2")
    add_users(store_url, {"alice": ["1"], "bob": ["1"]})
    alice, bob = clients("alice"), clients("bob")
    assert _next(alice) == "d1"
    assert _next(bob) == "d4"  # d1 being judged counts as not relevant: r1 drops, r2's d4
    _judge(alice, "d1")
    assert _next(alice) is None  # two served: the budget is spent


@pytest.mark.parametrize("strategy", [("mtf",), ("bandit",), ("bandit", "--bandit", "ucb"),
                                      ("hedge",), ("take", "--fusion", "combsum"), ("depth",)])
def test_one_assessor_follows_the_simulated_order(
        tmp_path: Path, adaptive_files: dict[str, Any], clients: Any, store_url: str,
        strategy: tuple[str, ...]) -> None:
    """One assessor answering in the order served is served exactly the order ``pool
    --strategy --qrels`` simulates on the same answers, and with no budget judges the whole
    depth-3 pool."""
    _init(store_url, adaptive_files, "--strategy", *strategy, "--seed", "7")
    add_users(store_url, {"alice": ["1"]})
    alice = clients("alice")
    order = []
    while (file := _next(alice)) is not None:
        order.append(file)
        _judge(alice, file)
    qrels = tmp_path / "qrels.trec"
    qrels.write_text("".join(f"1 0 d{i} {int(f'd{i}' in RELEVANT)}\n" for i in range(1, 7)),
                     encoding="utf-8")
    runs = [load_run(str(p)) for p in adaptive_files["runs"]]
    name = strategy[0]
    options = StrategyOptions(fusion=strategy[2] if name == "take" else "rrf",
                              bandit=strategy[2] if len(strategy) > 1 and name == "bandit"
                              else "mm-ns", seed=7)
    simulated = strategy_pool(runs, name, depth=3, options=options,
                              assessments=load_assessments(str(qrels)))
    assert order == simulated["1"].files.tolist()
    assert sorted(order) == ["d1", "d2", "d3", "d4", "d5"]


def test_init_options_go_together(tmp_path: Path, adaptive_files: dict[str, Any],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    base = ["assess", "init", str(tmp_path / "s.db"), "--collection",
            str(adaptive_files["collection"]), "--topics", str(adaptive_files["topics"])]
    assert main([*base, "--strategy", "mtf"]) == 2
    assert "--strategy NAME and --runs RUN... go together" in capsys.readouterr().err
    assert main([*base, "--pool", str(tmp_path / "p.tsv"), "--budget", "3"]) == 2
    assert "--budget goes with --strategy" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()


def test_a_campaign_that_is_not_adaptive_serves_nothing(connect: Any) -> None:
    alice = connect("alice")
    response = alice.post("/api/topics/1/next")
    assert response.status_code == 200 and response.json() == {"topic": "1", "file": None}
    assert alice.post("/api/topics/2/next").status_code == 403
    assert alice.post("/api/topics/1/next", headers={"X-CSRF-Token": "x"}).status_code == 403
    assert len(alice.get("/api/topics/1/pool").json()["articles"]) == 2


def test_a_version_2_store_upgrades_to_the_current_schema(campaign: str) -> None:
    """A store of version 2 gets the tables of adaptive and sampled campaigns; it stays a
    campaign that is neither."""
    import sqlalchemy as sa

    with Store.open(campaign) as store, store.engine.begin() as connection:
        for table in ("strategy_topics", "served", "sample_units"):
            connection.execute(sa.text(f"DROP TABLE {table}"))
        connection.execute(sa.text("UPDATE schema_version SET version = 2"))
    with Store.open(campaign) as store:
        with store.engine.connect() as connection:
            assert connection.execute(sa.text("SELECT version FROM schema_version")
                                      ).scalar() == SCHEMA_VERSION
            names = set(sa.inspect(connection).get_table_names())
        assert {"strategy_topics", "served", "sample_units"} <= names
        assert store.setting("strategy") is None and store.served("1") == []
        assert [a["file"] for a in store.assessor_pool("1", "alice")] == ["co/a1", "co/a2"]


def test_assessors_served_at_once_get_different_articles(
        store_url: str, adaptive_files: dict[str, Any]) -> None:
    """Six assessors asking at the same moment are served in turn: five different articles
    (the whole depth pool) and one None, no article twice, nothing refused."""
    from concurrent.futures import ThreadPoolExecutor

    from inexeval.assess.adaptive import serve

    _init(store_url, adaptive_files, "--strategy", "hedge")
    names = [f"user{i}" for i in range(6)]
    add_users(store_url, {name: ["1"] for name in names})
    with Store.open(store_url) as store, ThreadPoolExecutor(6) as pool:
        got = list(pool.map(lambda name: serve(store, "1", name), names))
        served = store.served("1")
    files = [f for f in got if f is not None]
    assert sorted(files) == ["d1", "d2", "d3", "d4", "d5"] and got.count(None) == 1
    assert sorted(served) == sorted(zip(files, [n for n, f in zip(names, got) if f]))


def test_a_save_of_an_article_not_served_is_refused_and_the_export_names_what_it_leaves(
        store_url: str, adaptive_files: dict[str, Any], clients: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36, 20: every pooled article has a row from ``assign``, but only the articles
    served to an assessor are theirs to judge: any other save is 403 and writes nothing (one
    assessor removed 12 of 16 articles from the strategy and the export so). A judgement
    of an article never served (a store written before) does not count for the strategy, and
    the export names the served articles and the judgements it leaves out."""

    from inexeval.assess.store import judgements

    _init(store_url, adaptive_files, "--strategy", "mtf")
    add_users(store_url, {"alice": ["1"], "bob": ["1"]})
    alice, bob = clients("alice"), clients("bob")
    assert _next(alice) == "d1"
    for client, file in ((alice, "d2"), (alice, "d5"), (bob, "d1")):
        refused = client.put(f"/api/topics/1/docs/{file}", {"version": 0, "status": "done"})
        assert refused.status_code == 403, (file, refused.text)
        assert "was not served to" in refused.json()["error"]
    with Store.open(store_url) as store:
        assert [a["action"] for a in store.actions()].count("save") == 0
        # a judgement of an article never served, as an older version let it be saved
        with store.engine.begin() as connection:
            connection.execute(judgements.update().where(
                judgements.c.file == "d4", judgements.c.assessor == "bob").values(
                status="done"))
    # d4 judged by bob "not relevant" but never served: the strategy still serves it
    _judge(alice, "d1")
    assert _next(bob) == "d2"
    assert _next(alice) == "d4"
    export = Path(adaptive_files["topics"]).parent / "qrels.fol"
    assert main(["assess", "export", store_url, "-o", str(export)]) == 2
    err = capsys.readouterr().err
    assert "1 (not complete: 2 of 3 articles served not done: d2 (bob), d4 (alice);" in err
    assert main(["assess", "export", store_url, "-o", str(export), "--partial"]) == 0
    err = capsys.readouterr().err
    assert "topic 1: articles served and not done left out: d2 (bob), d4 (alice)" in err
    assert "judgements of articles never served to their assessor left out: d4 (bob)" in err
    assert export.read_text().split()[:3] == ["1", "Q0", "d1"]


def test_a_save_of_a_known_article_not_served_is_refused_too(
        store_url: str, adaptive_files: dict[str, Any]) -> None:
    """Issue 36, 3: a save of an article the server knows (its pool and text cached) takes
    the store's path that reads the session in the save's transaction (on PostgreSQL with the
    judgement, in one round trip): an article not served to the assessor is 403 there too,
    and nothing is written."""
    _init(store_url, adaptive_files, "--strategy", "mtf")
    add_users(store_url, {"alice": ["1"]})
    with TestClient(app_of(store_url)) as http:
        alice = Client(http, "alice")
        assert _next(alice) == "d1"
        _judge(alice, "d1")  # (the topic's pool is known from here on)
        assert alice.get("/api/topics/1/docs/d2").status_code == 200  # d2 known, not served
        store = http.app.state.service.store
        fast: list[str] = []
        through = store.save_change_of_session
        store.save_change_of_session = lambda token, *a, **k: (  # type: ignore[method-assign]
            fast.append(token) or through(token, *a, **k))
        refused = alice.put("/api/topics/1/docs/d2", {"version": 0, "status": "done"})
        assert refused.status_code == 403 and "was not served to" in refused.json()["error"]
        assert len(fast) == 1
        assert [a["action"] for a in store.actions()].count("save") == 1
        assert store.judgement("1", "d2", "alice").version == 0
