"""The organiser's API and pages (issue 22): assigning, agreement, disagreements, adjudication,
the read-only view, drift, and exports that leave incomplete topics out, on both back ends.

The campaign (passages mode): alice and bob assess topic 1 (co/a1, 105 characters; co/a2, 80),
carol topic 2 (co/a3); dora is the organiser. Worked by hand: alice highlights co/a1 [0, 16)
and marks co/a2 not relevant; bob highlights co/a1 [8, 30) and co/a2 [0, 10). Articles: both
relevant 1, only B 1, so p_o = 1/2, p_e = (1·2 + 1·0)/4 = 1/2 and kappa = 0. Characters: A 16,
B 22 + 10 = 32, both 8: precision 8/32, recall 8/16, F1 16/48, Jaccard 8/40.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inexeval.cli import main
from tests.assess.conftest import Client, TestClient, add_users, app_of, init_store

A1 = "/api/topics/1/docs/co/a1"
A2 = "/api/topics/1/docs/co/a2"


@pytest.fixture
def organised(store_url: str, campaign_files: dict[str, Path]) -> str:
    init_store(store_url, campaign_files, mode="passages")
    add_users(store_url, {"alice": ["1"], "bob": ["1"], "carol": ["2"]}, admins=("dora",))
    return store_url


@pytest.fixture
def clients(organised: str) -> Any:
    with TestClient(app_of(organised)) as http_a, TestClient(app_of(organised)) as http_b, \
            TestClient(app_of(organised)) as http_d, TestClient(app_of(organised)) as http_c:
        yield {"alice": Client(http_a, "alice"), "bob": Client(http_b, "bob"),
               "dora": Client(http_d, "dora"), "carol": Client(http_c, "carol")}


def judge(client: Client, url: str, passages: list[list[int]], bep: int | None) -> None:
    response = client.put(url, {"version": client.get(url).json()["version"], "status": "done",
                                "passages": passages, "best_entry_point": bep})
    assert response.status_code == 200, response.text


def judge_topic_1(clients: dict[str, Client]) -> None:
    judge(clients["alice"], A1, [[0, 16]], 0)
    judge(clients["alice"], A2, [], None)
    judge(clients["bob"], A1, [[8, 30]], 8)
    judge(clients["bob"], A2, [[0, 10]], 0)


def test_agreement_is_worked_by_hand(clients: dict[str, Client]) -> None:
    dora = clients["dora"]
    empty = dora.get("/api/admin/agreement").json()
    assert empty["topics"] == [] and empty["pairs"] == []
    judge(clients["alice"], A1, [[0, 16]], 0)
    # bob has done nothing yet: no article done by both, no row
    assert dora.get("/api/admin/agreement").json()["topics"] == []
    judge(clients["alice"], A2, [], None)
    judge(clients["bob"], A1, [[8, 30]], 8)
    partial = dora.get("/api/admin/agreement").json()["topics"]
    assert [(r["articles"], r["f1"]) for r in partial] == [(1, pytest.approx(16 / 38))]
    judge(clients["bob"], A2, [[0, 10]], 0)
    found = dora.get("/api/admin/agreement").json()
    (row,) = found["topics"]
    assert row["topic"] == "1" and (row["assessor_a"], row["assessor_b"]) == ("alice", "bob")
    assert (row["articles"], row["both"], row["only_a"], row["only_b"], row["neither"]) \
        == (2, 1, 0, 1, 0)
    assert row["kappa"] == pytest.approx(0.0)
    assert (row["chars_a"], row["chars_b"], row["chars_both"]) == (16, 32, 8)
    assert row["precision"] == pytest.approx(0.25) and row["recall"] == pytest.approx(0.5)
    assert row["f1"] == pytest.approx(1 / 3) and row["jaccard"] == pytest.approx(0.2)
    (pair,) = found["pairs"]
    assert pair["topic"] == "all" and pair["f1"] == pytest.approx(1 / 3)


def test_agreement_is_that_of_agree_judgements_on_the_exports(
        clients: dict[str, Client], organised: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    judge_topic_1(clients)
    api = clients["dora"].get("/api/admin/agreement").json()["topics"][0]
    for name in ("alice", "bob"):
        assert main(["assess", "export", organised, "-o", str(tmp_path / f"{name}.fol"),
                     "--assessor", name]) == 0
    capsys.readouterr()
    assert main(["agree", "--judgements", str(tmp_path / "alice.fol"),
                 str(tmp_path / "bob.fol"), "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)[0]
    assert cli["topic"] == "1"
    for column in ("articles", "both", "only_a", "only_b", "neither", "chars_a", "chars_b",
                   "chars_both"):
        assert api[column] == cli[column], column
    for column in ("kappa", "precision", "recall", "f1", "jaccard"):
        assert api[column] == pytest.approx(cli[column]), column


def test_disagreements_and_adjudication(clients: dict[str, Client], organised: str,
                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    judge_topic_1(clients)
    dora = clients["dora"]
    found = dora.get("/api/admin/topics/1/disagreements").json()
    assert (found["a"], found["b"], found["done_by_both"], found["agreed"], found["pending"]) \
        == ("alice", "bob", 2, 0, 0)
    assert [(d["file"], d["reason"]) for d in found["disagreements"]] == [
        ("co/a1", "character F1 0.42 below 0.8"), ("co/a2", "relevance")]
    assert found["disagreements"][0]["f1"] == pytest.approx(16 / 38)
    # at a threshold of 0.4, an F1 of 0.42 is agreement
    loose = dora.get("/api/admin/topics/1/disagreements?threshold=0.4").json()
    assert [d["file"] for d in loose["disagreements"]] == ["co/a2"] and loose["agreed"] == 1
    assert dora.get("/api/admin/topics/1/disagreements?threshold=2").status_code == 422
    assert dora.get("/api/admin/topics/1/disagreements?a=alice&b=carol").status_code == 422
    assert dora.get("/api/admin/topics/2/disagreements").status_code == 422  # one assessor
    assert dora.get("/api/admin/topics/9/disagreements").status_code == 404

    url = "/api/admin/topics/1/adjudicated/co/a1"
    pair = {"a": "alice", "b": "bob"}
    cases = [({"choice": "a"}, [[0, 16]], 0), ({"choice": "b"}, [[8, 30]], 8),
             ({"choice": "intersection"}, [[8, 16]], 8), ({"choice": "union"}, [[0, 30]], 0),
             ({"choice": "edit", "passages": [[2, 5], [4, 9]]}, [[2, 9]], 2),
             ({"choice": "edit", "passages": [[2, 5]], "best_entry_point": 3}, [[2, 5]], 3)]
    for version, (body, passages, bep) in enumerate(cases, 1):
        saved = dora.put(url, {**body, **pair})
        assert saved.status_code == 200, saved.text
        assert (saved.json()["passages"], saved.json()["best_entry_point"],
                saved.json()["version"], saved.json()["assessor"]) \
            == (passages, bep, version, "adjudicated")
    assert dora.put(url, {"choice": "union", **pair}).status_code == 200
    for bad in ({"choice": "edit", **pair}, {"choice": "edit", **pair, "passages": [[0, 999]]},
                {"choice": "edit", **pair, "passages": [[0, 5]], "best_entry_point": 7},
                {"choice": "both", **pair}, {"choice": "a", "a": "alice", "b": "carol"},
                {"choice": "a", **pair, "extra": 1}, {"choice": "a"}):
        assert dora.put(url, bad).status_code == 422, bad
    assert dora.put("/api/admin/topics/1/adjudicated/co/a3", {"choice": "a", **pair}
                    ).status_code == 404
    assert dora.put("/api/admin/topics/1/adjudicated/co/a2", {"choice": "b", **pair}
                    ).status_code == 200
    view = dora.get("/api/admin/topics/1/judgements/adjudicated/docs/co/a1").json()
    assert view["passages"] == [[0, 30]] and view["relevant"] is True
    marked = dora.get("/api/admin/topics/1/disagreements").json()["disagreements"]
    assert [d["adjudicated"] for d in marked] == [True, True]

    # the adjudicated export: topic 2 left out (not adjudicated), read by eval and agree
    qrels = tmp_path / "adjudicated.fol"
    assert main(["assess", "export", organised, "-o", str(qrels), "--assessor",
                 "adjudicated"]) == 0
    err = capsys.readouterr().err
    assert "assessor used per topic: 1: adjudicated" in err
    assert "topics left out: 2 (not adjudicated)" in err
    assert qrels.read_text().splitlines() == ["1 Q0 co/a1 30 105 0 0:30",
                                              "1 Q0 co/a2 10 80 0 0:10"]
    run = tmp_path / "run.fol"
    run.write_text("1 Q0 co/a1 1 1.0 r 0 30\n1 Q0 co/a2 2 0.5 r 0 10\n")
    assert main(["eval", str(qrels), str(run), "--task", "focused", "-m", "iP[0.00]",
                 "-m", "MAiP"]) == 0
    values = {line.split("\t")[0]: float(line.split("\t")[2])
              for line in capsys.readouterr().out.splitlines()}
    assert values["iP[0.00]"] == 1.0 and values["MAiP"] == 1.0
    alice = tmp_path / "alice.fol"
    assert main(["assess", "export", organised, "-o", str(alice), "--assessor", "alice"]) == 0
    capsys.readouterr()
    assert main(["agree", "--judgements", str(qrels), str(alice), "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    # adjudicated a1 [0, 30) + a2 [0, 10) = 40 characters; alice a1 [0, 16): 16 in common
    assert (row["chars_a"], row["chars_b"], row["chars_both"]) == (40, 16, 16)
    assert row["recall"] == pytest.approx(0.4)


def test_accept_agreed(clients: dict[str, Client], organised: str) -> None:
    """At a threshold of 0.4, co/a1 (F1 0.42) is agreed: A's judgement is taken for it, once;
    co/a2 (relevance) stays to adjudicate."""
    from inexeval.assess.store import Store

    judge_topic_1(clients)
    dora = clients["dora"]
    url = "/api/admin/topics/1/accept-agreed"
    assert dora.post(url, {}).json()["adjudicated"] == []  # at 0.8 nothing agrees
    assert dora.post(url, {"threshold": 2}).status_code == 422
    assert dora.post(url, {"a": "alice", "b": "carol"}).status_code == 422
    assert dora.post(url, {"other": 1}).status_code == 422
    found = dora.post(url, {"threshold": 0.4})
    assert found.json() == {"topic": "1", "a": "alice", "b": "bob", "adjudicated": ["co/a1"]}
    assert dora.post(url, {"threshold": 0.4}).json()["adjudicated"] == []
    with Store.open(organised) as store:
        (taken,) = store.judgements("1", "adjudicated")
        assert (taken.file, taken.passages, taken.best_entry_point, taken.version) == (
            "co/a1", ((0, 16),), 0, 1)
        assert [a["action"] for a in store.actions()][-1] == "adjudicate"


def test_adjudicated_is_no_user_name(organised: str) -> None:
    from inexeval.assess.store import Store, StoreError

    with Store.open(organised) as store, pytest.raises(StoreError, match="adjudicated"):
        store.add_user("adjudicated", "x", False, "test")


def test_locked_topic_refuses_adjudication(clients: dict[str, Client]) -> None:
    judge_topic_1(clients)
    dora = clients["dora"]
    assert dora.post("/api/admin/topics/1/lock").status_code == 200
    assert dora.put("/api/admin/topics/1/adjudicated/co/a1",
                    {"choice": "a", "a": "alice", "b": "bob"}).status_code == 423


def test_assign_and_withdraw(clients: dict[str, Client]) -> None:
    dora, carol = clients["dora"], clients["carol"]
    assert carol.get("/api/topics/1").status_code == 403
    added = dora.post("/api/admin/topics/1/assessors", {"assessor": "carol"})
    assert added.json() == {"topic": "1", "assessor": "carol", "assigned": True}
    assert dora.post("/api/admin/topics/1/assessors", {"assessor": "carol"}).json()[
        "assigned"] is False
    assert carol.get("/api/topics/1").status_code == 200
    assert [a["file"] for a in carol.get("/api/topics/1/pool").json()["articles"]] == [
        "co/a1", "co/a2"]
    assert dora.post("/api/admin/topics/1/assessors", {"assessor": "nobody"}).status_code == 422
    assert dora.post("/api/admin/topics/1/assessors", {}).status_code == 422
    assert dora.post("/api/admin/topics/9/assessors", {"assessor": "carol"}).status_code == 404
    removed = dora.http.delete("/api/admin/topics/1/assessors/carol",
                               headers={"X-CSRF-Token": dora.csrf})
    assert removed.status_code == 200 and removed.json()["assigned"] is False
    assert carol.get("/api/topics/1").status_code == 403
    again = dora.http.delete("/api/admin/topics/1/assessors/carol",
                             headers={"X-CSRF-Token": dora.csrf})
    assert again.status_code == 404
    no_csrf = dora.http.delete("/api/admin/topics/1/assessors/bob")
    assert no_csrf.status_code == 403
    assert clients["bob"].get("/api/topics/1").status_code == 200


def test_read_only_view_of_any_judgement(clients: dict[str, Client]) -> None:
    judge_topic_1(clients)
    dora = clients["dora"]
    bob = dora.get("/api/admin/topics/1/judgements/bob/docs/co/a2").json()
    assert (bob["assessor"], bob["passages"], bob["relevant"]) == ("bob", [[0, 10]], True)
    # carol is not assigned topic 1: her (absent) judgement is unseen
    carol = dora.get("/api/admin/topics/1/judgements/carol/docs/co/a1").json()
    assert carol["status"] == "unseen" and carol["version"] == 0
    assert dora.get("/api/admin/topics/1/judgements/adjudicated/docs/co/a1").json()[
        "status"] == "unseen"
    assert dora.get("/api/admin/topics/1/judgements/nobody/docs/co/a1").status_code == 404
    assert dora.get("/api/admin/topics/1/judgements/bob/docs/co/a3").status_code == 404
    content = dora.get("/api/admin/topics/1/content/co/a2").json()
    assert content["text"].startswith("<script>alert(1)</script>")
    assert dora.get("/api/admin/topics/2/content/co/a1").status_code == 404
    page = dora.get("/admin/topics/1/docs/co/a2?assessor=bob")
    assert page.status_code == 200
    assert "<script>alert" not in page.text  # the text comes as JSON, through the API
    assert dora.get("/admin/topics/1/docs/co/a2?assessor=nobody").status_code == 404


def test_drift(clients: dict[str, Client]) -> None:
    judge_topic_1(clients)
    found = {s["assessor"]: s["points"]
             for s in clients["dora"].get("/api/admin/drift").json()["assessors"]}
    assert found == {"alice": [[0, 0.5, 2]], "bob": [[0, 1.0, 2]]}


def test_drift_hours(organised: str) -> None:
    """Hours since the assessor's first save; an article marked done twice in an hour
    counts once, as last marked."""
    from inexeval.assess.model import Judgement
    from inexeval.assess.organiser import drift, drift_plot

    class Log:
        def save_log(self) -> list[tuple[str, float, str, str, Judgement]]:
            def saved(at: float, file: str, status: str, relevant: bool) -> Any:
                j = Judgement("1", file, "x", status=status,
                              passages=((0, 1),) if relevant else ())
                return ("x", at, "1", file, j)
            return [saved(100.0, "a", "in-progress", False), saved(200.0, "a", "done", True),
                    saved(300.0, "a", "done", False), saved(3700.0, "b", "done", True),
                    saved(3 * 3600.0 + 150, "c", "done", False),
                    saved(3 * 3600.0 + 160, "d", "done", True)]

    series = drift(Log())  # type: ignore[arg-type]
    assert series == [{"assessor": "x", "points": [(0, 0.0, 1), (1, 1.0, 1), (3, 0.5, 2)]}]
    plot = drift_plot(series)
    (line,) = plot["lines"]
    # 560 × 140 pixels inside 40-pixel margins; hours 0..3 across, rates 0..1 upwards
    assert [(m["x"], m["y"]) for m in line["marks"]] == [(40.0, 180.0), (226.7, 40.0),
                                                          (600.0, 110.0)]
    assert line["points"] == "40.0,180.0 226.7,40.0 600.0,110.0"


def test_export_leaves_incomplete_topics_out(clients: dict[str, Client], organised: str,
                                             tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """An export that would hold nothing says why and writes nothing: the command exits 2, the
    web exports answer 409 (issue 36, 18); downloads are named after the campaign, the
    assessor and the format, and their notes name no file of the server."""
    from urllib.parse import unquote

    judge(clients["alice"], A1, [[0, 16]], 0)
    qrels = tmp_path / "q.fol"
    assert main(["assess", "export", organised, "-o", str(qrels)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("inexeval: ")
    assert "nothing to export (topics left out: 1 (not complete: alice has done 1 of 2 " \
           "articles (--partial exports them)); 2 (not complete: carol has done 0 of 1 " \
           "articles" in err
    assert not qrels.exists()
    assert main(["assess", "export", organised, "-o", str(qrels), "--partial"]) == 0
    assert "assessor used per topic: 1: alice; 2: carol" in capsys.readouterr().err
    assert qrels.read_text() == "1 Q0 co/a1 16 105 0 0:16\n"
    assert main(["assess", "export", organised, "-o", "-", "--partial"]) == 0
    out, err = capsys.readouterr()
    assert out == qrels.read_text() and "written to standard output (fol)" in err
    assert not (Path.cwd() / "-").exists()
    assert main(["assess", "export", organised, "-o", "-", "--format", "json"]) == 0
    backup = json.loads(capsys.readouterr().out)["judgements"]
    assert [j["file"] for j in backup if j["status"] == "done"] == ["co/a1"]
    assert main(["assess", "export", organised, "-o", "-", "--assessor", "adjudicated"]) == 2
    assert "nothing to export (topics left out: 1 (not adjudicated); 2 (not adjudicated))" \
        in capsys.readouterr().err
    judge(clients["alice"], A2, [], None)
    judge(clients["carol"], "/api/topics/2/docs/co/a3", [], None)
    assert main(["assess", "export", organised, "-o", str(qrels), "--force"]) == 0
    assert "left out" not in capsys.readouterr().err
    assert qrels.read_text().splitlines() == ["1 Q0 co/a1 16 105 0 0:16", "1 Q0 co/a2 0 80",
                                              "2 Q0 co/a3 0 25"]
    dora = clients["dora"]
    for url, reason in [("/api/admin/export?assessor=bob", "bob has done 0 of 2"),
                        ("/admin/export?format=fol&assessor=bob", "bob has done 0 of 2"),
                        ("/admin/export?format=fol&assessor=bob&partial=1",
                         "(bob has done no article)")]:
        empty = dora.get(url)
        assert empty.status_code == 409, url
        assert "nothing to export" in empty.text and reason in empty.text
    campaign = "test" if organised.startswith("postgresql") else "store"
    web = dora.get("/api/admin/export")
    assert web.content == qrels.read_bytes()
    assert web.headers["content-disposition"] == (
        f'attachment; filename="{campaign}-first-assessors-fol.txt"')
    page = dora.get("/admin/export?format=fol&assessor=alice")
    assert page.content == b"1 Q0 co/a1 16 105 0 0:16\n1 Q0 co/a2 0 80\n"
    assert page.headers["content-disposition"] == (
        f'attachment; filename="{campaign}-alice-fol.txt"')
    notes = unquote(page.headers["x-export-notes"])
    assert "assessor used per topic: 1: alice" in notes
    assert notes.endswith(f"2 documents written to {campaign}-alice-fol.txt (fol)")
    assert "/tmp" not in notes


def test_admin_page_shows_every_topic(clients: dict[str, Client], organised: str) -> None:
    from inexeval.assess.store import Store
    from tests.assess.conftest import CHEAP_HASHER, PASSWORD

    dora = clients["dora"]
    markup = '<img src=x onerror="alert(1)">'
    with Store.open(organised) as store:
        store.unassign("carol", ["2"], "test")
        store.add_user(markup, CHEAP_HASHER.hash(PASSWORD), False, "test")
        store.assign(markup, ["1"], "test")
    judge_topic_1(clients)
    page = dora.get("/admin")
    assert page.status_code == 200
    assert 'data-topic="2"' in page.text and "No assessor" in page.text
    assert "<polyline" in page.text and "Cohen" in page.text
    assert "left out: no assessor assigned" in page.text
    assert markup not in page.text and "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page.text
    listing = dora.get("/admin/topics/1/adjudicate")
    assert listing.status_code == 200 and "co/a2" in listing.text
    assert dora.get("/admin/topics/2/adjudicate").status_code == 422
    assert dora.get("/admin/topics/1/adjudicate/docs/co/a1").status_code == 200
    assert dora.get("/admin/topics/1/adjudicate/docs/co/a3").status_code == 404


ADMIN_REQUESTS = [
    ("GET", "/api/admin/agreement", None), ("GET", "/api/admin/drift", None),
    ("GET", "/api/admin/self-agreement", None),
    ("GET", "/api/admin/topics/1/disagreements", None),
    ("POST", "/api/admin/topics/1/assessors", {"assessor": "carol"}),
    ("DELETE", "/api/admin/topics/1/assessors/bob", None),
    ("GET", "/api/admin/topics/1/judgements/bob/docs/co/a1", None),
    ("GET", "/api/admin/topics/1/content/co/a1", None),
    ("PUT", "/api/admin/topics/1/adjudicated/co/a1", {"choice": "a", "a": "alice", "b": "bob"}),
    ("POST", "/api/admin/topics/1/accept-agreed", {}),
]


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_REQUESTS)
def test_admin_api_refuses_others(clients: dict[str, Client], organised: str, method: str,
                                  path: str, body: Any) -> None:
    alice = clients["alice"]
    headers = {"X-CSRF-Token": alice.csrf}
    assert alice.http.request(method, path, json=body, headers=headers).status_code == 403
    with TestClient(app_of(organised)) as anonymous:
        assert anonymous.request(method, path, json=body).status_code == 401
    if method != "GET":  # an administrator without the CSRF token
        assert clients["dora"].http.request(method, path, json=body).status_code == 403
    assert clients["bob"].get("/api/topics/1").status_code == 200  # nothing changed


@pytest.mark.parametrize("path", ["/admin", "/admin/topics/1/adjudicate",
                                  "/admin/topics/1/adjudicate/docs/co/a1",
                                  "/admin/topics/1/docs/co/a1?assessor=bob"])
def test_admin_pages_refuse_others(clients: dict[str, Client], organised: str,
                                   path: str) -> None:
    assert clients["alice"].get(path).status_code == 403
    with TestClient(app_of(organised)) as anonymous:
        response = anonymous.get(path, follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"].startswith(
            "/login?next=")


def test_2002_mode_agreement_and_adjudication(store_url: str, campaign_files: dict[str, Path],
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Element values: the agreement is that of ``agree --judgements`` on the two inex2002
    exports (element kappa included); adjudication takes A or B."""
    init_store(store_url, campaign_files, mode="2002")
    add_users(store_url, {"alice": ["1"], "bob": ["1"]}, admins=("dora",))
    p1, p2 = "/article[1]/bdy[1]/p[1]", "/article[1]/bdy[1]/p[2]"
    with TestClient(app_of(store_url)) as http_a, TestClient(app_of(store_url)) as http_b, \
            TestClient(app_of(store_url)) as http_d:
        alice, bob, dora = Client(http_a, "alice"), Client(http_b, "bob"), Client(http_d, "dora")
        for client, a1, a2 in ((alice, {}, {p1: "2E", p2: "0N"}),
                               (bob, {"/article[1]": "1S"}, {p1: "0N", p2: "0N"})):
            for url, values in ((A1, a1), (A2, a2)):
                saved = client.put(url, {"version": 0, "status": "done", "values": values})
                assert saved.status_code == 200, saved.text
        api = dora.get("/api/admin/agreement").json()["topics"][0]
        found = dora.get("/api/admin/topics/1/disagreements").json()["disagreements"]
        # co/a1: 0N for alice (no value), 1S for bob; co/a2: relevant for alice only
        assert [(d["file"], d["reason"]) for d in found] == [("co/a1", "relevance"),
                                                             ("co/a2", "relevance")]
        assert dora.put("/api/admin/topics/1/adjudicated/co/a2",
                        {"choice": "union", "a": "alice", "b": "bob"}).status_code == 422
        taken = dora.put("/api/admin/topics/1/adjudicated/co/a2",
                         {"choice": "a", "a": "alice", "b": "bob"})
        assert taken.status_code == 200 and taken.json()["values"] == {p1: "2E", p2: "0N"}
    for name in ("alice", "bob"):
        assert main(["assess", "export", store_url, "-o", str(tmp_path / name), "--assessor",
                     name]) == 0
    capsys.readouterr()
    assert main(["agree", "--judgements", str(tmp_path / "alice"), str(tmp_path / "bob"),
                 "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)[0]
    assert (api["articles"], api["both"], api["only_a"], api["only_b"], api["neither"]) \
        == (cli["articles"], cli["both"], cli["only_a"], cli["only_b"], cli["neither"]) \
        == (2, 0, 1, 1, 0)
    assert api["kappa"] == pytest.approx(cli["kappa"])
