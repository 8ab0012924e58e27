"""Unannounced repeats (``assess init --duplicates P``, issue 22) on both back ends: the draw
(deterministic, round(P x pool) with halves up, each repeat after a later article), the
assessor's pool and API (a repeat is an ordinary entry with its own address, judged with the
same PUT semantics, merges included), never exported nor counted, and the self-agreement of
``/admin``.

The campaign (passages mode, --duplicates 0.5): topic 1 pools co/a1 (105 characters) and
co/a2, so each of its assessors gets round(0.5 x 2) = 1 repeat: co/a1, the only article with a
later one, shown after co/a2 under an opaque address; topic 2 pools only co/a3 (no repeat: nothing
follows it). Worked by hand: alice highlights co/a1 [0, 16) the first time and [8, 30) the
second: one article done twice, relevant both times (both 1, only first 0, only second 0,
neither 0: p_o = 1 and p_e = 1, kappa undefined); characters A 16, B 22, both 8: precision
8/22, recall 8/16, F1 16/38, Jaccard 8/30. bob marks co/a1 not relevant, then relevant [0, 10):
only second 1, p_o = 0, p_e = 0 (A has no relevant article), kappa (0 - 0) / (1 - 0) = 0.
"""

from __future__ import annotations

import math
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from inexeval.assess import repeats
from inexeval.cli import main
from tests.assess.conftest import Client, TestClient, add_users, app_of

A1 = "/api/topics/1/docs/co/a1"
A2 = "/api/topics/1/docs/co/a2"


def r1(client: Any) -> str:
    """The API address of the user's repeat of co/a1 (the third entry of topic 1's pool)."""
    return "/api/topics/1/docs/" + client.get("/api/topics/1/pool").json()["articles"][2]["file"]


def init_with_duplicates(url: str, files: dict[str, Path], share: str = "0.5") -> None:
    code = main(["assess", "init", url, "--collection", str(files["collection"]),
                 "--topics", str(files["topics"]), "--pool", str(files["pool"]),
                 "--mode", "passages", "--duplicates", share])
    assert code == 0


@pytest.fixture
def repeated(store_url: str, campaign_files: dict[str, Path]) -> str:
    init_with_duplicates(store_url, campaign_files)
    add_users(store_url, {"alice": ["1", "2"], "bob": ["1"]}, admins=("dora",))
    return store_url


@pytest.fixture
def clients(repeated: str) -> Any:
    with TestClient(app_of(repeated)) as http_a, TestClient(app_of(repeated)) as http_b, \
            TestClient(app_of(repeated)) as http_d:
        yield {"alice": Client(http_a, "alice"), "bob": Client(http_b, "bob"),
               "dora": Client(http_d, "dora")}


def judge(client: Client, url: str, passages: list[list[int]], bep: int | None) -> Any:
    response = client.put(url, {"version": client.get(url).json()["version"], "status": "done",
                                "passages": passages, "best_entry_point": bep})
    assert response.status_code == 200, response.text
    return response.json()


# -- the draw ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("share", "articles", "expected"), [
    (0.5, 2, 1), (0.25, 10, 3), (0.1, 10, 1), (0.34, 10, 3), (0.35, 10, 4), (0.04, 10, 0),
    (0.05, 10, 1), (1.0, 10, 9), (0.5, 1, 0), (0.3, 0, 0)])
def test_count_is_p_times_the_pool_halves_up_at_most_all_but_one(
        share: float, articles: int, expected: int) -> None:
    assert repeats.count(share, articles) == expected


def test_the_draw_is_deterministic_and_each_repeat_follows_a_later_article() -> None:
    files = [f"doc{i}" for i in range(40)]
    drawn = repeats.draw(0.25, "7", "alice", files)
    assert drawn == repeats.draw(0.25, "7", "alice", files)
    assert len(drawn) == 10 and len({f for f, _ in drawn}) == 10
    for file, after in drawn:
        assert files.index(after) > files.index(file)
    # another assessor (or topic) gets another draw, of the same size
    other = repeats.draw(0.25, "7", "bob", files)
    assert len(other) == 10 and other != drawn
    assert repeats.draw(0.25, "8", "alice", files) != drawn


def test_place_puts_repeats_after_the_article_they_follow() -> None:
    articles: list[dict[str, Any]] = [{"file": f} for f in ("a", "b", "c")]
    placed = repeats.place(articles, [("a", "c", {"file": "a~2"}), ("b", "c", {"file": "b~2"})])
    assert [a["file"] for a in placed] == ["a", "b", "c", "a~2", "b~2"]


def test_a_repeat_address_says_nothing() -> None:
    """Issue 36, 25: ``r7003~2`` told the assessor it was a repeat, and of which article."""
    address = repeats.key("salt", "1", "alice", "co/2000/r7003")
    assert re.fullmatch(r"co/2000/[0-9a-f]{16}", address)
    assert "r7003" not in address
    assert repeats.key("salt", "1", "bob", "co/2000/r7003") != address
    assert repeats.key("other", "1", "alice", "co/2000/r7003") != address


# -- the store and the API ---------------------------------------------------------------------

def test_repeats_are_drawn_at_assignment_and_kept(repeated: str) -> None:
    from inexeval.assess.store import Store

    with Store.open(repeated) as store:
        assert store.setting("duplicates") == "0.5"
        drawn = [(t.topic, t.assessor, t.file, after) for after, t in store.repeats()]
        assert drawn == [("1", "alice", "co/a1", "co/a2"), ("1", "bob", "co/a1", "co/a2")]
        listed = store.assessor_pool("1", "alice")
        key = listed[2]["file"]
        assert [a["file"] for a in listed] == ["co/a1", "co/a2", key]
        assert re.fullmatch(r"co/[0-9a-f]{16}", key) and key != store.assessor_pool(
            "1", "bob")[2]["file"]
        assert [a["file"] for a in store.assessor_pool("2", "alice")] == ["co/a3"]
        # withdrawn and assigned again: the same repeat, its judgement kept
        store.save("1", key, "alice", 0, lambda j: j.__class__(
            j.topic, j.file, j.assessor, status="in-progress"))
        store.unassign("alice", ["1"], "test")
        store.assign("alice", ["1"], "test")
        (after, again), = store.repeats("1", "alice")
        assert (after, again.file, again.status, again.version) \
            == ("co/a2", "co/a1", "in-progress", 1)


def test_a_repeat_is_an_ordinary_pool_entry_judged_through_the_api(
        clients: dict[str, Client]) -> None:
    alice = clients["alice"]
    pool = alice.get("/api/topics/1/pool").json()["articles"]
    key = pool[2]["file"]
    # every entry has its name: the repeat's is its article's, as the pages show it
    assert [(a["file"], a["name"], a["status"]) for a in pool] \
        == [("co/a1", "co/a1", "unseen"), ("co/a2", "co/a2", "unseen"),
            (key, "co/a1", "unseen")]
    R1 = f"/api/topics/1/docs/{key}"
    assert pool[2]["min_rank"] == pool[0]["min_rank"]
    first = alice.get(f"{A1}/content").json()
    assert alice.get(f"{R1}/content").json()["text"] == first["text"]
    assert alice.get(R1).json()["file"] == key
    assert alice.get(f"{R1}/content").json()["file"] == key
    judge(alice, A1, [[0, 16]], 0)
    # the same PUT semantics: a stale version is merged on the stored one (three-way)
    one = alice.put(R1, {"version": 0, "status": "in-progress", "passages": [[0, 5]]})
    assert one.status_code == 200 and one.json()["version"] == 1
    two = alice.put(R1, {"version": 0, "status": "in-progress", "passages": [[50, 60]],
                         "best_entry_point": 50})
    assert two.status_code == 200, two.text
    assert two.json()["merged"] is True and two.json()["passages"] == [[0, 5], [50, 60]]
    stale = alice.put(R1, {"version": 7, "status": "in-progress", "passages": []})
    assert stale.status_code == 409
    # the first judgement is untouched by the second
    assert alice.get(A1).json()["passages"] == [[0, 16]]
    # a key of a repeat not drawn for the user is no document
    assert alice.get("/api/topics/1/docs/co/a1~2").status_code == 404
    assert alice.get(f"/api/topics/2/docs/{key}").status_code == 404
    assert clients["dora"].get(R1).status_code in (403, 404)


def test_repeats_are_not_exported_nor_counted(clients: dict[str, Client], repeated: str,
                                             tmp_path: Path) -> None:
    from inexeval.assess.store import Store

    alice = clients["alice"]
    judge(alice, A1, [[0, 16]], 0)
    judge(alice, A2, [], None)
    with Store.open(repeated) as store:
        (progress,) = [t for t in store.user_topics("alice") if t["topic"] == "1"]
        assert (progress["pool"], progress["done"]) == (2, 2)
    judge(alice, r1(alice), [[8, 30]], 8)
    with Store.open(repeated) as store:
        (progress,) = [t for t in store.user_topics("alice") if t["topic"] == "1"]
        assert (progress["pool"], progress["done"]) == (2, 2)
        stats = {(r["topic"], r["assessor"]): r for r in store.stats()["topics"]}
        assert stats[("1", "alice")]["done"] == 2
        assert all(j.file in ("co/a1", "co/a2", "co/a3") for j in store.judgements())
    target = tmp_path / "qrels.fol"
    assert main(["assess", "export", repeated, "-o", str(target), "--assessor", "alice",
                 "--partial"]) == 0
    lines = [line for line in target.read_text().splitlines() if line.startswith("1 ")]
    a1 = [line for line in lines if "a1" in line]
    assert len(a1) == 1 and " 16 " in f" {a1[0]} "  # the first pass: 16 characters


def test_self_agreement_worked_by_hand(clients: dict[str, Client]) -> None:
    alice, bob, dora = clients["alice"], clients["bob"], clients["dora"]
    empty = dora.get("/api/admin/self-agreement").json()
    assert [(r["assessor"], r["repeats"], r["articles"]) for r in empty["assessors"]] \
        == [("alice", 1, 0), ("bob", 1, 0)]
    judge(alice, A1, [[0, 16]], 0)
    judge(alice, A2, [], None)
    judge(alice, r1(alice), [[8, 30]], 8)
    judge(bob, A1, [], None)
    judge(bob, r1(bob), [[0, 10]], 0)
    found = dora.get("/api/admin/self-agreement").json()
    rows = {(r["topic"], r["assessor"]): r for r in found["topics"] + found["assessors"]}
    mine = rows[("1", "alice")]
    assert (mine["repeats"], mine["articles"], mine["both"], mine["only_a"], mine["only_b"],
            mine["neither"]) == (1, 1, 1, 0, 0, 0)
    assert mine["kappa"] is None  # p_o = p_e = 1: undefined
    assert (mine["chars_a"], mine["chars_b"], mine["chars_both"]) == (16, 22, 8)
    assert mine["precision"] == pytest.approx(8 / 22) and mine["recall"] == pytest.approx(0.5)
    assert mine["f1"] == pytest.approx(16 / 38) and mine["jaccard"] == pytest.approx(8 / 30)
    assert rows[("all", "alice")]["f1"] == pytest.approx(16 / 38)
    bobs = rows[("1", "bob")]
    assert (bobs["articles"], bobs["both"], bobs["only_b"], bobs["kappa"]) == (1, 0, 1, 0.0)
    assert (bobs["chars_a"], bobs["chars_b"]) == (0, 10)


def test_self_agreement_is_judgement_agreement_on_the_two_passes(
        clients: dict[str, Client], repeated: str) -> None:
    from inexeval.analysis.agreement import JUDGEMENT_COLUMNS, judgement_agreement
    from inexeval.assess.organiser import fol_assessments
    from inexeval.assess.store import Store

    alice = clients["alice"]
    judge(alice, A1, [[0, 16], [40, 60]], 0)
    judge(alice, r1(alice), [[8, 50]], 8)
    found = clients["dora"].get("/api/admin/self-agreement").json()
    with Store.open(repeated) as store:
        first = [store.judgement("1", "co/a1", "alice")]
        second = [j for _, j in store.repeats("1", "alice")]
        lengths = store.document_lengths()
    expected = judgement_agreement(fol_assessments(first, lengths, "A"),
                                   fol_assessments(second, lengths, "B"))
    (row,) = [r for r in found["topics"] if r["assessor"] == "alice"]
    for name, value in zip(JUDGEMENT_COLUMNS, expected[0]):
        if isinstance(value, float) and math.isnan(value):
            assert row[name] is None
        else:
            assert row[name] == pytest.approx(value), name
    assert (row["chars_a"], row["chars_b"], row["chars_both"]) == (36, 42, 18)  # [8, 16) and [40, 50)


def test_the_pages_show_a_repeat_like_any_document(clients: dict[str, Client]) -> None:
    alice, dora = clients["alice"], clients["dora"]
    page = alice.get("/topics/1").text
    key = r1(alice).rsplit("/docs/", 1)[1]
    assert page.count(">co/a1</a>") == 2 and "~2" not in page
    assert f'href="/topics/1/docs/{key}"' in page
    doc = alice.get(f"/topics/1/docs/{key}").text
    assert "<title>co/a1 · topic 1" in doc
    judge(alice, A1, [[0, 16]], 0)
    judge(alice, r1(alice), [[8, 30]], 8)
    admin = dora.get("/admin").text
    assert "Self-agreement on repeated articles" in admin
    assert "F1 0.42 (1 of 1)" in admin or "F1 0.421 (1 of 1)" in admin, admin[admin.find(
        "self-agreement"):][:400]


def test_duplicates_refused_with_adaptive_and_sampled_campaigns_and_bad_shares(
        store_url: str, campaign_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
        ) -> None:
    base = ["assess", "init", store_url, "--collection", str(campaign_files["collection"]),
            "--topics", str(campaign_files["topics"])]
    run = campaign_files["pool"].parent / "run.txt"
    run.write_text("1 Q0 co/a1 1 2.0 r\n", encoding="utf-8")
    assert main([*base, "--strategy", "depth", "--runs", str(run), "--duplicates", "0.1"]) == 2
    assert "--duplicates goes with --pool only" in capsys.readouterr().err
    assert main([*base, "--sample", str(run), "--duplicates", "0.1"]) == 2
    assert "--duplicates goes with --pool only" in capsys.readouterr().err
    for bad in ("0", "1.5", "x", "nan"):
        assert main([*base, "--pool", str(campaign_files["pool"]), "--duplicates", bad]) == 2
        assert "a share above 0 and at most 1 is required" in capsys.readouterr().err


def test_a_version_4_store_is_upgraded_to_repeats(tmp_path: Path,
                                                 campaign_files: dict[str, Path]) -> None:
    from inexeval.assess.store import SCHEMA_VERSION, Store

    url = str(tmp_path / "old.db")
    init_with_duplicates(url, campaign_files)
    with sqlite3.connect(url) as connection:
        connection.execute("DROP TABLE repeats")
        connection.execute("UPDATE schema_version SET version = 4")
    with Store.open(url) as store:
        assert SCHEMA_VERSION == 5
        store.add_user("alice", "x", False, "test")
        store.assign("alice", ["1"], "test")
        assert len(store.repeats("1", "alice")) == 1
