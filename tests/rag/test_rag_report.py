"""The HTML report of span runs (``inexeval report QUESTIONS.csv RUN...``) and of chunkers
(``inexeval chunks ... --report FILE``): its chunkers × measures table and its per-question
values equal to what ``eval -q`` and ``chunks -q`` print, the comparison's rows those of
``compare``."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from tests.rag.official import DATA

from inexeval.cli import main
from inexeval.formats.chroma import read_questions
from inexeval.rag.chunkers import parse_chunker

CSV = str(DATA / "questions_df.csv")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _values(out: str) -> dict[tuple[str, str, str], float]:
    return {(r["run"], r["topic"], r["measure"]): float(r["value"])
            for r in csv.DictReader(io.StringIO(out))}


def _runs(folder: Path) -> list[str]:
    """Two FOL runs of 10 chunks per question (two chunkers; one chunk touching the evidence
    in the first 4 ranks), the second leaving out the last 10 questions."""
    questions = read_questions(CSV)
    paths = []
    for name, spec, seed, count in (("runA", "fixed:300:100", 1, 132),
                                    ("runB", "recursive:400:0", 2, 122)):
        chunks = parse_chunker(spec).chunk(questions.corpora)
        rng = np.random.default_rng(seed)
        lines = []
        for q in questions.questions[:count]:
            near = np.flatnonzero((chunks.docs == q.corpus_id)
                                  & (chunks.starts <= q.excerpts[0, 1])
                                  & (chunks.ends >= q.excerpts[0, 0]))
            pick = list(rng.choice(len(chunks), size=9, replace=False))
            pick.insert(int(rng.integers(0, 4)), int(near[0]))
            lines += [f"{q.qid} Q0 {chunks.docs[i]} {rank} {10 - rank} {name} "
                      f"{chunks.starts[i]} {chunks.ends[i] - chunks.starts[i]}\n"
                      for rank, i in enumerate(pick, 1)]
        path = folder / f"{name}.fol"
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths


def _table(page: str, kind: str) -> list[list[str]]:
    """The rows of the table of class ``kind``: first the headers, then each row's cells
    (a number as its data-value, else its text)."""
    found = re.search(rf'<table class="sortable {kind}"[^>]*>(.*?)</table>', page, re.DOTALL)
    assert found is not None, kind
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", found.group(1), re.DOTALL):
        cells = re.findall(r'<t[hd](?: data-value="([^"]*)"| class="[^"]*")?>(.*?)</t[hd]>', row,
                           re.DOTALL)
        rows.append([value or re.sub(r"<[^>]+>", "", text) for value, text in cells])
    return rows


def _per_topic(page: str, measure: str) -> dict[tuple[str, str], float]:
    found = re.search(rf'<table class="sortable per-topic" data-measure="{re.escape(measure)}">'
                      r"(.*?)</table>", page, re.DOTALL)
    assert found is not None, measure
    rows = re.findall(r"<tr>(.*?)</tr>", found.group(1), re.DOTALL)
    runs = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th>(.*?)</th>", rows[0])][1:]
    out = {}
    for row in rows[1:]:
        topic = re.search(r"<td>(.*?)</td>", row)
        assert topic is not None
        values = re.findall(r'data-value="([^"]*)"', row)
        out.update({(run, topic.group(1)): float(v) for run, v in zip(runs, values)})
    return out


def test_report_of_span_runs_equals_eval(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    runs = _runs(tmp_path)
    code, out, err = _run(capsys, "eval", CSV, *runs, "-c", "-q", "--format", "csv",
                          "--digits", "17", "-m", "chroma_R", "-m", "chroma_IoU@5")
    assert code == 0, err
    values = _values(out)
    assert values["runB", "131", "chroma_R@5"] == 0.0  # not answered: 0 under -c
    report = tmp_path / "report.html"
    code, _, err = _run(capsys, "report", CSV, *runs, "-m", "chroma_R", "-m", "chroma_IoU@5",
                        "-o", str(report))
    assert code == 0, err
    page = report.read_text(encoding="utf-8")
    measures = ["chroma_R@1", "chroma_R@3", "chroma_R@5", "chroma_R@10", "chroma_IoU@5"]
    table = _table(page, "chunkers")
    assert table[0] == ["run", *measures]
    for row in table[1:]:
        assert [float(v) for v in row[1:]] == [values[row[0], "all", m] for m in measures]
    assert [row[0] for row in table[1:]] == ["runA", "runB"]
    for measure in measures:
        shown = _per_topic(page, measure)
        assert len(shown) == 2 * 132
        assert all(shown[run, q] == values[run, q, measure] for run, q in shown)
    # recall against k: one curve (chroma_IoU has one cut-off), a line per run
    assert page.count('<figure class="curve" data-title="chroma_R@k against k') == 1
    assert 'data-title="chroma_IoU@k' not in page
    # the comparison's rows are compare's
    code, out, err = _run(capsys, "compare", CSV, *runs, "-m", "chroma_R@5", "--format", "json")
    assert code == 0, err
    row = json.loads(out)[0]
    tests = _table(page, "details")
    at5 = next(r for r in tests[1:] if r[0] == "chroma_R@5")
    assert tests[0][:3] == ["measure", "test", "run"] and at5[2] == "runB"
    shown = dict(zip(tests[0], at5))
    assert float(shown["p"]) == row["p_value"] and float(shown["Δ"]) == row["delta"]


def test_report_of_chunkers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bm25s")
    chunkers = ["--chunker", "fixed:400:0", "--chunker", "recursive:800:400"]
    code, out, err = _run(capsys, "chunks", CSV, *chunkers, "-q", "--format", "csv",
                          "--digits", "17", "-m", "chroma_P_omega", "-m", "chroma_R")
    assert code == 0, err
    values = _values(out)
    report = tmp_path / "chunkers.html"
    code, _, err = _run(capsys, "chunks", CSV, *chunkers, "-m", "chroma_P_omega", "-m",
                        "chroma_R", "--report", str(report), "--test", "t", "--test",
                        "wilcoxon")
    assert code == 0, err
    page = report.read_text(encoding="utf-8")
    table = _table(page, "chunkers")
    measures = ["chroma_P_omega", "chroma_R@1", "chroma_R@3", "chroma_R@5", "chroma_R@10"]
    assert table[0] == ["chunker", *measures]
    assert [row[0] for row in table[1:]] == ["fixed:400:0", "recursive:800:400"]
    for row in table[1:]:
        assert [float(v) for v in row[1:]] == [values[row[0], "all", m] for m in measures]
    shown = _per_topic(page, "chroma_R@3")
    assert shown == {(run, q): v for (run, q, m), v in values.items()
                     if m == "chroma_R@3" and q != "all"}
    assert 'data-title="chroma_R@k against k' in page
    tests = _table(page, "details")
    assert {r[1] for r in tests[1:]} == {"t", "wilcoxon"}
    assert len(tests) - 1 == 2 * len(measures)


@pytest.mark.parametrize(("args", "problem"), [
    (["chunks", CSV, "--chunker", "fixed:400:0", "--report", "x.html"],
     "--report compares chunkings: give at least two"),
    (["chunks", CSV, "--chunker", "fixed:400:0", "--test", "t"],
     "--test goes with --compare or --report"),
    (["report", CSV, "RUNS", "-o", "x.html", "--ranks", "20"], "--ranks not used by a Chroma"),
    (["chunks", CSV, "--chunker", "fixed:400:0", "--chunker", "fixed:300:0", "--report", CSV],
     "the output would overwrite or write into the input"),
    (["report", CSV, "RUNS", "-o", "x.html", "--bioasq-version", "8"],
     "--bioasq-version not used by a Chroma"),
])
def test_report_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    args: list[str], problem: str) -> None:
    runs = _runs(tmp_path) if "RUNS" in args else []
    args = [a for arg in args for a in (runs if arg == "RUNS" else
                                        [str(tmp_path / arg) if arg == "x.html" else arg])]
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and problem in err, err
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("complete", [False, True])
def test_meta_power_of_span_runs_directly_and_from_saved_scores(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], complete: bool) -> None:
    runs = _runs(tmp_path)
    flag = ["-c"] if complete else []
    saved = tmp_path / "runs.scores"
    code, _, err = _run(capsys, "eval", CSV, *runs, "-m", "chroma_R@5", "-m", "chroma_IoU@3",
                        "--format", "scores", "-o", str(saved), *flag)
    assert code == 0, err
    found = []
    for inputs in (["--scores", str(saved)], [CSV, *runs]):
        code, out, err = _run(capsys, "meta", "power", *inputs, *flag, "-m", "chroma_R@5",
                              "-m", "chroma_IoU@3", "--replicates", "200", "--format", "json")
        assert code == 0, err
        found.append(json.loads(out))
    assert found[0] == found[1]
    # every question is answered by runA: the study's topics are all 132 either way
    assert {p["n_topics"] for p in found[0]["pairs"]} == {132}


def test_meta_power_over_chunkers_with_retrieval(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bm25s")
    chunkers = ["--chunker", "fixed:400:0", "--chunker", "recursive:800:400", "--chunker",
                "fixed:200:100"]
    measures = ["-m", "chroma_R@5", "-m", "chroma_IoU@3", "-m", "chroma_P_omega"]
    code, out, err = _run(capsys, "chunks", CSV, *chunkers, *measures, "-q", "--format", "csv",
                          "--digits", "17")
    assert code == 0, err
    values = _values(out)
    saved = tmp_path / "chunkers.scores"
    code, _, err = _run(capsys, "chunks", CSV, *chunkers, *measures, "--format", "scores",
                        "-o", str(saved))
    assert code == 0, err
    code, out, err = _run(capsys, "meta", "power", "--scores", str(saved), "--replicates",
                          "200", "--format", "json")
    assert code == 0, err
    pairs = json.loads(out)["pairs"]
    assert len(pairs) == 3 * 3  # 3 pairs of chunkers x 3 measures
    for pair in pairs:
        assert pair["n_topics"] == 132
        for side in ("a", "b"):
            assert pair[f"mean_{side}"] == pytest.approx(
                values[pair[f"run_{side}"], "all", pair["measure"]], abs=1e-12)


def test_report_meta_section_is_meta_power(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    runs = _runs(tmp_path)
    report = tmp_path / "meta.html"
    code, _, err = _run(capsys, "report", CSV, *runs, "-m", "chroma_R@5", "-m", "chroma_P@3",
                        "--meta", "--permutations", "200", "-o", str(report))
    assert code == 0, err
    table = _table(report.read_text(encoding="utf-8"), "meta")
    code, out, err = _run(capsys, "meta", "power", CSV, *runs, "-c", "-m", "chroma_R@5", "-m",
                          "chroma_P@3", "--replicates", "200", "--format", "json")
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert [row[0] for row in table[1:]] == [s["measure"] for s in summary]
    for row, expected in zip(table[1:], summary):
        shown = dict(zip(["measure", "pairs", "significant", "discriminative power",
                          "difference required"], row))
        assert float(shown["difference required"]) == expected["difference_required"]
        assert float(shown["discriminative power"]) == expected["discriminative_power"]
