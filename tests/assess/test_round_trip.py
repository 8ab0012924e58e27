"""The campaign end to end on both back ends: init, judgements through the API, export, and
``inexeval eval`` reading the export (what was saved is exactly what is exported)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inexeval import load_assessments
from inexeval.assess.export import read_json
from inexeval.assess.store import Store
from inexeval.cli import main
from inexeval.collection.build import build_index
from inexeval.collection.implicit import resolve_passages
from tests.assess.test_api import A1, A2, holding_all


def judge(connect: Any) -> dict[str, Any]:
    """alice: co/a1 relevant (two passages), co/a2 non-relevant; bob: co/a1 one passage."""
    alice, bob = connect("alice"), connect("bob")
    passages = [[20, 40], [48, 55]]
    saved = alice.put(A1, {"version": 0, "status": "done", "passages": passages,
                           "best_entry_point": 22, "seconds": 30,
                           "exhaustivity": holding_all(alice, A1, passages)})
    assert saved.status_code == 200, saved.text
    assert alice.put(A2, {"version": 0, "status": "done"}).status_code == 200
    other = bob.put(A1, {"version": 0, "status": "done", "passages": [[0, 5]],
                         "best_entry_point": 0, "exhaustivity": holding_all(bob, A1, [[0, 5]])})
    assert other.status_code == 200
    length = len(alice.get(A1 + "/content").json()["text"])
    other_length = len(alice.get(A2 + "/content").json()["text"])
    return {"a1": saved.json(), "length": length, "a2_length": other_length}


def test_fol_export_evaluated(connect: Any, campaign: str, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    saved = judge(connect)
    qrels = tmp_path / "qrels.fol"
    assert main(["assess", "export", campaign, "-o", str(qrels)]) == 0
    out, err = capsys.readouterr()
    assert err == ("inexeval: note: exported each topic's first-assigned assessor; these topics "
                   "have others (export them with --assessor): 1 (bob)\n"
                   "inexeval: note: assessor used per topic: 1: alice\n"
                   "inexeval: note: topics left out: 2 (not complete: carol has done 0 of 1 "
                   "articles (--partial exports them))\n")
    assert out == f"2 documents written to {qrels} (fol)\n"
    assert qrels.read_text().splitlines() == [
        f"1 Q0 co/a1 27 {saved['length']} 22 20:20 48:7",
        f"1 Q0 co/a2 0 {saved['a2_length']}"]
    run = tmp_path / "run.fol"
    run.write_text("1 Q0 co/a1 1 2.0 exact 20 20\n1 Q0 co/a1 2 1.0 exact 48 7\n")
    assert main(["eval", str(qrels), str(run), "--task", "focused", "-m", "iP[0.00]",
                 "-m", "MAiP"]) == 0
    out, _ = capsys.readouterr()
    values = {line.split()[0]: float(line.split()[2]) for line in out.splitlines()}
    assert values["iP[0.00]"] == 1.0 and values["MAiP"] == pytest.approx(1.0)


def test_json_and_inex2005_exports_hold_what_was_saved(
        connect: Any, campaign: str, campaign_files: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    judge(connect)
    exported = tmp_path / "bob.json"
    assert main(["assess", "export", campaign, "-o", str(exported), "--format", "json",
                 "--assessor", "bob"]) == 0
    store = Store.open(campaign)
    try:
        assert read_json(exported) == store.judgements(assessor="bob")
        alice = store.judgement("1", "co/a1", "alice")
    finally:
        store.close()
    folder = tmp_path / "xml"
    assert main(["assess", "export", campaign, "-o", str(folder), "--format", "inex2005"]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in folder.iterdir()) == ["topic-1.xml"]
    collection = campaign_files["collection"]
    resolved = resolve_passages(load_assessments(str(folder))["1"], build_index(collection))
    assert [tuple(p) for p in resolved.highlights["co/a1"].tolist()] == list(alice.passages)
    assert resolved.best_entry_points["co/a1"] == alice.best_entry_point
    exhaustivity = {p: v for f, p, v in zip(resolved.files, resolved.paths,
                                            resolved.dim("exhaustivity")) if f == "co/a1"}
    assert exhaustivity == {p: 2 for p in alice.exhaustivity}
    run = tmp_path / "run.fol"
    run.write_text("1 Q0 co/a1 1 2.0 exact 20 20\n")
    assert main(["eval", str(folder), str(run), "--collection", str(collection),
                 "-m", "HiXEval_P", "-m", "HiXEval_R"]) == 0
    out, _ = capsys.readouterr()
    values = {line.split()[0]: float(line.split()[2]) for line in out.splitlines()}
    # the run returns the first of the two passages: all it returns is relevant, 20 of 27
    assert values["HiXEval_P"] == 1.0 and values["HiXEval_R"] == round(20 / 27, 4)


def test_export_errors(campaign: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["assess", "export", campaign, "-o", str(tmp_path / "x.fol"), "--assessor",
                 "zoe"]) == 2
    assert "no user 'zoe'" in capsys.readouterr().err
    if not campaign.startswith("postgresql"):
        assert main(["assess", "export", campaign, "-o", campaign, "--format", "json"]) == 2
        assert "would overwrite" in capsys.readouterr().err


def test_admin_export_downloads(connect: Any, campaign: str, tmp_path: Path) -> None:
    import io
    import zipfile
    from urllib.parse import unquote

    saved = judge(connect)
    dora = connect("dora")
    assert connect("alice").get("/api/admin/export").status_code == 403
    assert dora.get("/api/admin/export?format=trec").status_code == 422
    fol = dora.get("/api/admin/export")
    assert fol.status_code == 200
    name = "test" if campaign.startswith("postgresql") else "store"
    assert fol.headers["content-disposition"] == (
        f'attachment; filename="{name}-first-assessors-fol.txt"')
    assert fol.text.splitlines()[0] == f"1 Q0 co/a1 27 {saved['length']} 22 20:20 48:7"
    assert "1 (bob)" in unquote(fol.headers["x-export-notes"])
    assert dora.get("/api/admin/export?format=fol&assessor=bob").status_code == 409
    bob = dora.get("/api/admin/export?format=fol&assessor=bob&partial=1").text
    assert bob.splitlines() == [f"1 Q0 co/a1 5 {saved['length']} 0 0:5"]
    xml = dora.get("/api/admin/export?format=inex2005")
    with zipfile.ZipFile(io.BytesIO(xml.content)) as bundle:
        assert bundle.namelist() == [f"{name}-first-assessors-inex2005/topic-1.xml"]
