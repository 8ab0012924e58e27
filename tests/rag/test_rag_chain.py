"""The chain a RAG team runs (issue 34), in one place: its corpus chunked by two chunkers and
compared; then new questions answered by span runs, the runs pooled, the pool judged through the
assessment app's HTTP API, the evidence exported as Chroma's questions CSV (and BioASQ's golden
JSON) and a run evaluated on it, every value worked by hand."""

from __future__ import annotations

import csv
import io
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.rag.official import DATA, metadatas, scores

from inexeval.cli import main
from inexeval.formats.bioasq import read_bioasq
from inexeval.formats.chroma import read_chunking, read_questions

pytest.importorskip("starlette")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.assess.conftest import Client, add_users, app_of

SOTU = "state_of_the_union"
LATE_FEES = (27346, 27425)
"""Question 0's evidence: 'My administration announced we’re cutting credit card late fees
from $32 to $8.' in the State of the Union."""
QUESTION_1 = "Which sections show the secondary image on hover?"
HOVER = (630, 766)
"""Question 1's evidence: the assistant's first answer in the chat logs."""


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _values(out: str) -> dict[tuple[str, str, str], float]:
    return {(r["run"], r["topic"], r["measure"]): float(r["value"])
            for r in csv.DictReader(io.StringIO(out))}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The team's corpus: a folder of Markdown files (two of Chroma's)."""
    folder = tmp_path / "corpora"
    shutil.copytree(DATA / "corpora", folder)
    return folder


def test_two_chunkers_chunked_evaluated_and_compared(
        tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pandas")
    from scipy import stats

    questions_csv = DATA / "questions_df.csv"
    chunkers = ["--chunker", "fixed:400:0", "--chunker", "recursive:800:400"]
    values = _values(_run(capsys, "chunks", str(questions_csv), "--corpus", str(corpus),
                          *chunkers, "--write-chunks", str(tmp_path / "chunks"), "-q",
                          "--format", "csv"))
    questions = read_questions(questions_csv, corpus)
    official = {}
    for name in ("fixed:400:0", "recursive:800:400"):
        chunks = read_chunking(tmp_path / "chunks" / f"{name.replace(':', '-')}.tsv",
                               questions.corpora)
        official[name] = scores(questions_csv, metadatas(chunks.docs, chunks.starts,
                                                         chunks.ends))["chroma_P_omega"]
        assert [values[(name, q.qid, "chroma_P_omega")]
                for q in questions.questions] == official[name]
        assert values[(name, "all", "chroma_P_omega")] == pytest.approx(np.mean(official[name]),
                                                                         abs=1e-15)
    table = _run(capsys, "chunks", str(questions_csv), "--corpus", str(corpus), *chunkers)
    assert table.split() == ["run", "chroma_P_omega", "fixed:400:0", "0.3520",
                             "recursive:800:400", "0.1946"]
    (row,) = csv.DictReader(io.StringIO(_run(
        capsys, "chunks", str(questions_csv), "--corpus", str(corpus), *chunkers, "--compare",
        "--format", "csv")))
    fixed, recursive = official["fixed:400:0"], official["recursive:800:400"]
    assert (row["run"], row["baseline"]) == ("recursive:800:400", "fixed:400:0")
    assert float(row["p_value"]) == pytest.approx(stats.ttest_rel(recursive, fixed).pvalue,
                                                  rel=1e-12)
    # the report: the chunkers' table, the comparison and the per-question values
    report = tmp_path / "chunkers.html"
    _run(capsys, "chunks", str(questions_csv), "--corpus", str(corpus), *chunkers, "-m",
         "chroma_P_omega", "--report", str(report))
    page = report.read_text(encoding="utf-8")
    assert '<table class="sortable chunkers">' in page and '<table class="means">' in page
    for name in ("fixed:400:0", "recursive:800:400"):
        mean = repr(float(np.mean(official[name])))
        assert f'<td data-value="{mean}">' in page
        assert all(f'<td data-value="{v!r}">' in page for v in official[name])


RUN_A = (
    # question 0: ranks 1 and 2 touch (pooled as one span), rank 3 is beyond the depth
    f"0 Q0 {SOTU} 1 9 a 27200 400\n"
    f"0 Q0 {SOTU} 2 8 a 27600 400\n"
    "0 Q0 chatlogs 3 7 a 0 400\n"
    # question 1: rank 1 holds 66 of the evidence's 136 characters, rank 2 the other 70
    "1 Q0 chatlogs 1 9 a 700 400\n"
    "1 Q0 chatlogs 2 8 a 300 400\n"
)
RUN_B = [
    {"qid": "0", "doc": SOTU, "start": 27500, "end": 27900, "score": 2.0},
    {"qid": "0", "doc": "chatlogs", "start": 1000, "end": 1400, "score": 1.0},
    {"qid": "1", "doc": "chatlogs", "start": 5000, "end": 5400, "score": 1.0},
]


def test_pool_judge_export_evaluate(tmp_path: Path, corpus: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    questions = tmp_path / "questions.csv"
    questions.write_text(f"question\nHow much are credit card late fees cut?\n{QUESTION_1}\n",
                         encoding="utf-8")
    run_a, run_b = tmp_path / "a.fol", tmp_path / "b.jsonl"
    run_a.write_text(RUN_A)
    run_b.write_text("".join(json.dumps(r) + "\n" for r in RUN_B))
    pool = tmp_path / "pool.tsv"
    _run(capsys, "pool", str(run_a), str(run_b), "--unit", "span", "--depth", "2",
         "-o", str(pool))
    assert pool.read_text().splitlines() == [
        "0\tchatlogs\t1000\t1400\t2\t1",
        f"0\t{SOTU}\t27200\t28000\t1\t2",  # a's [27200, 27600) + [27600, 28000), b's inside
        "1\tchatlogs\t300\t1100\t1\t1",
        "1\tchatlogs\t5000\t5400\t1\t1"]

    store = str(tmp_path / "store.db")
    out = _run(capsys, "assess", "init", store, "--collection", str(corpus), "--topics",
               str(questions), "--pool", str(pool), "--mode", "passages")
    assert out.startswith("2 topics, 4 documents, 4 pooled units, passages mode")
    add_users(store, {"alice": ["0", "1"]})
    text = {name: (corpus / f"{name}.md").read_text(encoding="utf-8")
            for name in ("chatlogs", SOTU)}
    with TestClient(app_of(store)) as http:
        alice = Client(http, "alice")
        topics = alice.get("/api/topics").json()["topics"]
        assert [t["title"] for t in topics] == ["How much are credit card late fees cut?",
                                                QUESTION_1]
        pool0 = alice.get("/api/topics/0/pool").json()["articles"]
        assert [(a["file"], a["min_rank"], a["runs"]) for a in pool0] == [
            ("chatlogs:1000-1400", 2, 1), (f"{SOTU}:27200-28000", 1, 2)]
        unit = f"/api/topics/0/docs/{SOTU}:27200-28000"
        content = alice.get(unit + "/content").json()
        assert content["text"] == text[SOTU][27200:28000]
        # the page of a unit: its text is fetched as data, never written into the HTML
        page = alice.get(f"/topics/0/docs/{SOTU}%3A27200-28000")
        assert page.status_code == 200 and "administration announced" not in page.text
        assert "How much are credit card late fees cut?" in page.text
        # the evidence, in the unit's own offsets (the document's minus 27200)
        local = [LATE_FEES[0] - 27200, LATE_FEES[1] - 27200]

        def done(path: str, passages: list[list[int]]) -> None:
            body: dict[str, Any] = {"version": 0, "status": "done", "passages": passages,
                                    "best_entry_point": passages[0][0] if passages else None}
            response = alice.put(path, body)
            assert response.status_code == 200, response.text
            assert response.json()["status"] == "done"

        done(unit, [local])
        done("/api/topics/0/docs/chatlogs:1000-1400", [])
        # two touching pieces of question 1's evidence, saved as one passage
        done("/api/topics/1/docs/chatlogs:300-1100",
             [[HOVER[0] - 300, 700 - 300], [700 - 300, HOVER[1] - 300]])
        done("/api/topics/1/docs/chatlogs:5000-5400", [])

    exported = corpus.parent / "judged.csv"
    _run(capsys, "assess", "export", store, "--format", "chroma", "-o", str(exported))
    rows = list(csv.DictReader(io.StringIO(exported.read_text(encoding="utf-8"))))
    assert [(r["question"], r["corpus_id"]) for r in rows] == [
        ("How much are credit card late fees cut?", SOTU),
        (QUESTION_1, "chatlogs")]
    assert json.loads(rows[0]["references"]) == [
        {"content": "My administration announced we’re cutting credit card late fees from $32 "
                    "to $8.", "start_index": 27346, "end_index": 27425}]
    assert json.loads(rows[1]["references"]) == [
        {"content": text["chatlogs"][630:766], "start_index": 630, "end_index": 766}]
    assert text["chatlogs"][630:766].startswith("This feature only applies")

    # run a on the judged questions (the corpus found beside the CSV):
    # question 0: rank 1 [27200, 27600) holds the 79 characters, rank 2 none:
    #   R@1 = R@2 = 1, P@1 = 79/400, P@2 = 79/800;
    # question 1: rank 1 [700, 1100) holds 66 of 136, rank 2 [300, 700) the other 70:
    #   R@1 = 66/136, R@2 = 1, P@1 = 66/400, P@2 = 136/800
    values = _values(_run(capsys, "eval", str(exported), str(run_a), "-q", "--format", "csv",
                          "-m", "chroma_R@1", "-m", "chroma_R@2", "-m", "chroma_P@1", "-m",
                          "chroma_P@2"))
    expected = {("0", "chroma_R@1"): 1.0, ("0", "chroma_R@2"): 1.0,
                ("0", "chroma_P@1"): 79 / 400, ("0", "chroma_P@2"): 79 / 800,
                ("1", "chroma_R@1"): 66 / 136, ("1", "chroma_R@2"): 1.0,
                ("1", "chroma_P@1"): 66 / 400, ("1", "chroma_P@2"): 136 / 800}
    for (qid, measure), value in expected.items():
        assert values[("a", qid, measure)] == pytest.approx(value, rel=1e-12)
    assert values[("a", "all", "chroma_P@2")] == pytest.approx((79 / 800 + 136 / 800) / 2,
                                                               rel=1e-12)

    golden = tmp_path / "golden.json"
    _run(capsys, "assess", "export", store, "--format", "bioasq", "-o", str(golden))
    read = read_bioasq(golden)
    assert list(read) == ["0", "1"]
    (snippet,) = read.questions["0"].snippets
    # BioASQ's end offset is inclusive; a plain text is all 'abstract'
    assert (snippet.document, snippet.begin, snippet.end) == (SOTU, 27346, 27424)
    assert (snippet.begin_section, snippet.end_section) == ("abstract", "abstract")
    (snippet,) = read.questions["1"].snippets
    assert (snippet.document, snippet.begin, snippet.end) == ("chatlogs", 630, 765)
    data = json.loads(golden.read_text(encoding="utf-8"))
    assert data["questions"][0]["body"] == "How much are credit card late fees cut?"
    assert data["questions"][1]["snippets"][0]["text"] == text["chatlogs"][630:766]
    # the golden file scores itself perfectly with BioASQ's measures
    system = shutil.copy(golden, tmp_path / "system.json")
    out = _run(capsys, "eval", str(golden), str(system), "-m", "bioasq_snippet_F1")
    assert out.split()[-1] == "1.0000"
