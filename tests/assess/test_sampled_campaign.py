"""Sampled campaigns (issue 24, ``assess init --sample``): the chain ``pool --sample`` ->
``assess init --sample`` -> judgements through the API -> ``assess export`` (NIST's sampled
qrels, or FOL qrels with the stratum as the last field) -> ``eval -m xinfAP -m infNDCG -m
statAP``, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inexeval.cli import main
from inexeval.formats.detect import load_assessments
from inexeval.formats.fol import read_fol_qrels
from inexeval.formats.sampled import read_sampled_pool
from tests.assess.conftest import Client, TestClient, add_users, app_of

TOPICS = """<?xml version="1.0"?>
<topics>
<inex_topic topic_id="1" query_type="CO"><title>numbers</title>
<description>Numbers.</description><narrative>Any.</narrative></inex_topic>
</topics>
"""
RUNS = {"r1": ["d1", "d2", "d3", "d4", "d5", "d6"],
        "r2": ["d3", "d7", "d1", "d8", "d6", "d2"]}
RELEVANT = {"d1", "d3", "d6", "d8"}
STRATA = "1-2:1.0,3-8:0.5"


def _fol_run(folder: Path, name: str, docs: list[str]) -> Path:
    path = folder / f"{name}.fol"
    path.write_text("".join(f"1 Q0 {d} {r} {10 - r} {name} 0 8\n" for r, d in enumerate(docs, 1)),
                    encoding="utf-8")
    return path


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Any]:
    collection = tmp_path / "collection"
    collection.mkdir()
    for i in range(1, 9):
        (collection / f"d{i}.xml").write_text(
            f"<article><bdy><p>Document number {i} text.</p></bdy></article>", encoding="utf-8")
    topics = tmp_path / "topics.xml"
    topics.write_text(TOPICS, encoding="utf-8")
    runs = [_fol_run(tmp_path, name, docs) for name, docs in RUNS.items()]
    full = tmp_path / "full.qrels"
    full.write_text("".join(f"1 0 d{i} {int(f'd{i}' in RELEVANT)}\n" for i in range(1, 9)),
                    encoding="utf-8")
    return {"collection": collection, "topics": topics, "runs": [str(r) for r in runs],
            "full": full, "folder": tmp_path}


def _judge_drawn(url: str, skip: set[str]) -> list[str]:
    """alice judges every drawn article by the full qrels, but those in ``skip``; returns the
    articles the pool served her."""
    with TestClient(app_of(url)) as http:
        alice = Client(http, "alice")
        articles = [a["file"] for a in alice.get("/api/topics/1/pool").json()["articles"]]
        for file in articles:
            if file in skip:
                continue
            body: dict[str, Any] = {"version": 0, "status": "done"}
            if file in RELEVANT:
                body |= {"passages": [[0, 8]], "best_entry_point": 0}
            assert alice.put(f"/api/topics/1/docs/{file}", body).status_code == 200
    return articles


def test_pool_sample_assess_export_eval(store_url: str, files: dict[str, Any],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder: Path = files["folder"]
    sample = folder / "sample.tsv"
    pooling = ["pool", *files["runs"], "--sample", "stratified", "--strata", STRATA,
               "--depth", "8", "--seed", "3"]
    assert _run([*pooling, "-o", str(sample)], capsys)[0] == 0
    code, out, _ = _run(["assess", "init", store_url, "--collection", str(files["collection"]),
                         "--topics", str(files["topics"]), "--mode", "passages", "--sample",
                         str(sample)], capsys)
    assert code == 0 and "a sample of 8 units" in out, out
    add_users(store_url, {"alice": ["1"]})
    read = read_sampled_pool(sample)
    drawn = [f for f, d in zip(read.pool["1"].files.tolist(), read.drawn["1"]) if d]
    # the sample: the top stratum whole (2), half of the 6 others (3)
    assert len(drawn) == 5 and read.drawn["1"][:2] == [True, True]
    assert _judge_drawn(store_url, set()) == drawn  # the pool is the drawn articles, in order

    nist, fol = folder / "export.qrels", folder / "export.fol"
    assert _run(["assess", "export", store_url, "--format", "sampled", "-o", str(nist)],
                capsys)[0] == 0
    assert _run(["assess", "export", store_url, "--format", "fol", "-o", str(fol)],
                capsys)[0] == 0
    # the judged sample is the sample the pool simulates from the full qrels, byte for byte
    simulated = folder / "simulated.qrels"
    assert _run([*pooling, "--qrels", str(files["full"]), "--format", "sampled-qrels", "-o",
                 str(simulated)], capsys)[0] == 0
    assert nist.read_text() == simulated.read_text()
    lines = nist.read_text().splitlines()
    assert len(lines) == 8 and sum(line.endswith(" -1") for line in lines) == 3
    # FOL with the stratum field: detected, one record per sampled article
    fol_text = fol.read_text()
    assert "1 Q0 d1 8 " in fol_text and fol_text.count(" -1 0 3-8\n") == 3
    qrels = load_assessments(str(fol))
    assert qrels.scale == "fol" and set(qrels["1"].dim("stratum").tolist()) == {"1-2", "3-8"}
    # the inferred measures: the same numbers from both exports, and from the simulation
    measures = ["-m", "xinfAP", "-m", "infNDCG", "-m", "statAP", "-q"]
    results = [_run(["eval", str(q), files["runs"][0], *measures], capsys)
               for q in (nist, fol, simulated)]
    assert all(code == 0 for code, _, _ in results), results
    assert results[0][1] == results[1][1] == results[2][1]
    values = {line.split()[0] for line in results[0][1].splitlines()}
    assert {"xinfAP", "infNDCG", "statAP"} <= values
    # statAP by hand (seed 3 draws d2, d6, d5 of stratum 3-8: 3 of 6, inverse probability 2):
    # relevant sampled d1 (weight 1), d3 (1), d6 (2): R = 4; r1 = d1 d2 d3 d4 d5 d6 finds d1 at
    # rank 1 (precision 1), d3 at 3 ((1 + 1) / 3), d6 at 6 ((1 + 2) / 6, weighted 2):
    # statAP = (1 + 2/3 + 2 x 1/2) / 4 = 2/3
    assert drawn == ["d1", "d3", "d2", "d6", "d5"]
    assert "statAP\t1\t0.6667" in results[0][1]


def test_a_drawn_article_not_judged_is_exported_as_not_sampled(
        tmp_path: Path, files: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    sample = tmp_path / "sample.tsv"
    assert _run(["pool", *files["runs"], "--sample", "stratified", "--strata", STRATA,
                 "--depth", "8", "-o", str(sample)], capsys)[0] == 0
    url = str(tmp_path / "s.db")
    assert _run(["assess", "init", url, "--collection", str(files["collection"]), "--topics",
                 str(files["topics"]), "--mode", "passages", "--sample", str(sample)],
                capsys)[0] == 0
    add_users(url, {"alice": ["1"]})
    first = read_sampled_pool(sample).pool["1"].files[0]
    _judge_drawn(url, {first})
    out = tmp_path / "q.qrels"
    code, _, err = _run(["assess", "export", url, "--format", "sampled", "-o", str(out)], capsys)
    assert code == 2 and "nothing to export (topics left out: 1 (not complete" in err
    assert not out.exists()
    out = tmp_path / "partial.qrels"
    code, _, err = _run(["assess", "export", url, "--format", "sampled", "--partial", "-o",
                         str(out)], capsys)
    assert code == 0 and "1 drawn article(s) not judged yet" in err
    assert f"1 0 {first} 1-2 -1\n" in out.read_text()


def test_sample_refusals(tmp_path: Path, files: dict[str, Any], connect: Any,
                         campaign: str, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("1\td1\t\t1\t2\t1-2\t1.5\t1\n", encoding="utf-8")
    code, _, err = _run(["assess", "init", str(tmp_path / "x.db"), "--collection",
                         str(files["collection"]), "--topics", str(files["topics"]),
                         "--sample", str(bad)], capsys)
    assert code == 2 and err == f"inexeval: error: {bad}:1: probability '1.5' is not in (0, 1]\n"
    elements = tmp_path / "elements.tsv"
    elements.write_text("1\td1\t/article[1]\t1\t2\t1-2\t1.0\t1\n", encoding="utf-8")
    code, _, err = _run(["assess", "init", str(tmp_path / "x.db"), "--collection",
                         str(files["collection"]), "--topics", str(files["topics"]),
                         "--sample", str(elements)], capsys)
    assert code == 2 and "a sample of articles" in err and not (tmp_path / "x.db").exists()
    # a campaign that is not sampled has no sampled export
    code, _, err = _run(["assess", "export", campaign, "--format", "sampled", "-o",
                         str(tmp_path / "q")], capsys)
    assert code == 2 and "--format sampled exports a sampled campaign" in err


def test_fol_qrels_with_a_stratum_field(tmp_path: Path) -> None:
    path = tmp_path / "s.fol"
    path.write_text("7 Q0 a 5 40 3 0:2 10:3 p1\n7 Q0 b 0 12 p1\n7 Q0 c -1 0 p4\n", "utf-8")
    qrels = read_fol_qrels(path)
    ta = qrels["7"]
    assert ta.dim("stratum").tolist() == ["p1", "p1", "p4"]
    assert ta.dim("rsize").tolist() == [5, 0, -1] and ta.highlights["a"].tolist() == [
        [0, 2], [10, 13]]
    # integer strata: told by the caller
    plain = tmp_path / "n.fol"
    plain.write_text("7 Q0 a 0 40 2\n7 Q0 c -1 0 3\n", "utf-8")
    with pytest.raises(Exception, match="negative rsize -1 .*--assessments-format sampled"):
        read_fol_qrels(plain)
    assert read_fol_qrels(plain, sampled=True)["7"].dim("stratum").tolist() == ["2", "3"]
    twice = tmp_path / "t.fol"
    twice.write_text("7 Q0 a 0 40 p1\n7 Q0 a 0 40 p1\n", "utf-8")
    with pytest.raises(Exception, match="twice: a sampled qrels lists an article once"):
        read_fol_qrels(twice)
    short = tmp_path / "short.fol"
    short.write_text("7 Q0 a 0 40 p1\n7 Q0 b 0 40\n", "utf-8")
    with pytest.raises(Exception, match="short.fol:1: best entry point 'p1' is not an "
                       "integer \\(a sampling stratum\\? then every line ends with one\\)"):
        read_fol_qrels(short)
    with pytest.raises(Exception, match="short.fol:2: sampled qrels line has 5 fields"):
        read_fol_qrels(short, sampled=True)
