"""``compare``, ``report`` and ``meta power`` on BioASQ golden and system files: paired over the
questions, each question's value the one ``eval -q`` gives (itself tested against the jar)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from tests.rag.test_bioasq_cli import snippet, write

from inexeval.cli import main

MEASURES = ("bioasq_snippet_P", "bioasq_snippet_R", "bioasq_snippet_F1", "bioasq_snippet_MAP")


def _files(tmp_path: Path) -> tuple[str, str, str]:
    """A golden file of 6 questions; system A answers all, system B the first 5."""
    rng = np.random.default_rng(3)
    gold = {"questions": [{"id": f"q{i}", "snippets": [snippet(str(i), 0, 60),
                                                       snippet(str(i), 0, 9, "title")]}
                          for i in range(6)]}
    systems = []
    for name, count in (("A", 6), ("B", 5)):
        answers = [{"id": f"q{i}", "snippets": [
            snippet(str(i), int(rng.integers(0, 50)), int(rng.integers(55, 120))),
            snippet(str(i + 1), 0, 5)][::int(rng.choice([1, -1]))]} for i in range(count)]
        systems.append(write(tmp_path, f"{name}.json", {"questions": answers}))
    return write(tmp_path, "gold.json", gold), systems[0], systems[1]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _per_question(capsys: pytest.CaptureFixture[str], *args: str) -> dict[tuple[str, str, str],
                                                                          float]:
    code, out, err = _run(capsys, "eval", *args, "-q", "--format", "csv", "--digits", "17")
    assert code == 0, err
    return {(r["run"], r["topic"], r["measure"]): float(r["value"])
            for r in csv.DictReader(io.StringIO(out)) if r["topic"] != "all"}


@pytest.mark.parametrize("complete", [False, True])
def test_compare_pairs_eval_values_over_the_questions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], complete: bool) -> None:
    gold, a, b = _files(tmp_path)
    values = _per_question(capsys, gold, a, b)
    assert ("B", "q5", "bioasq_snippet_P") not in values  # B does not answer q5
    flag = ["-c"] if complete else []
    code, out, err = _run(capsys, "compare", gold, a, b, "--format", "json", *flag)
    assert code == 0, err
    rows = {row["measure"]: row for row in json.loads(out)}
    assert list(rows) == list(MEASURES)
    for measure in MEASURES:
        # compare's rule: a question some system answers counts, unanswered it scores 0
        x = np.array([values["A", f"q{i}", measure] for i in range(6)])
        y = np.array([values.get(("B", f"q{i}", measure), 0.0) for i in range(6)])
        row = rows[measure]
        assert row["n_topics"] == 6 and row["run"] == "B" and row["baseline"] == "A"
        assert row["mean"] == pytest.approx(y.mean(), abs=1e-12)
        assert row["baseline_mean"] == pytest.approx(x.mean(), abs=1e-12)
        assert row["p_value"] == pytest.approx(stats.ttest_rel(y, x).pvalue, rel=1e-9)
        assert row["wins"] + row["ties"] + row["losses"] == 6


def test_scores_for_meta_power_and_the_report(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from inexeval.formats.scores import read_scores

    gold, a, b = _files(tmp_path)
    values = _per_question(capsys, gold, a, b)
    saved = tmp_path / "bioasq.scores"
    code, _, err = _run(capsys, "eval", gold, a, b, "--format", "scores", "-o", str(saved))
    assert code == 0, err
    assert "bioasq_snippet_GMAP, a mean only" in err
    scores = read_scores(saved)
    assert scores.measures == MEASURES and scores.runs == ("A", "B")
    runs, topics, matrix = scores.matrix("bioasq_snippet_MAP")
    for i, run in enumerate(runs):
        for j, topic in enumerate(topics):
            assert matrix[i, j] == values.get((run, topic, "bioasq_snippet_MAP"), 0.0)
    assert not scores.answered[1, topics.index("q5")]
    code, out, err = _run(capsys, "meta", "power", "--scores", str(saved), "--format", "csv")
    assert code == 0, err
    pairs = {r["measure"]: r for r in csv.DictReader(io.StringIO(out.split("\n\n")[0]))
             if r.get("run_a")}
    for measure in MEASURES:
        x = [values["A", f"q{i}", measure] for i in range(6)]
        assert float(pairs[measure]["mean_a"]) == pytest.approx(sum(x) / 6, abs=1e-4)
    report = tmp_path / "report.html"
    code, _, err = _run(capsys, "report", gold, a, b, "-o", str(report), "-m",
                        "bioasq_snippet_MAP", "-m", "bioasq_snippet_R")
    assert code == 0, err
    page = report.read_text(encoding="utf-8")
    assert '<table class="means">' in page and "BioASQ evaluator version 8" in page
    head = re.search(r'<table class="means"><thead><tr>(.*?)</tr>', page)
    assert head is not None and head.group(1) == ("<th>run</th><th>bioasq_snippet_MAP</th>"
                                                  "<th>bioasq_snippet_R</th>")
    shown = {float(v) for v in re.findall(r'data-value="([^"]+)"', page) if v != "NaN"}
    assert all(v in shown for (_, _, m), v in values.items() if m == "bioasq_snippet_MAP")


def test_versions_and_means_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, a, b = _files(tmp_path)
    means = []
    for version in ("3", "8"):
        code, out, err = _run(capsys, "compare", gold, a, b, "--format", "json", "-c", "-m",
                              "bioasq_snippet_MAP", "--bioasq-version", version)
        assert code == 0, err
        means.append(json.loads(out)[0]["baseline_mean"])
        values = _per_question(capsys, gold, a, "-m", "bioasq_snippet_MAP", "--bioasq-version",
                               version)
        assert means[-1] == pytest.approx(math.fsum(values.values()) / 6, abs=1e-12)
    assert means[0] < means[1]  # -e 3 divides the AP by 10, -e 8 by min(10, |gold|) = 2
    for args in (["compare", gold, a, b, "-m", "bioasq_snippet_GMAP"],
                 ["eval", gold, a, b, "-m", "bioasq_snippet_GMAP", "--format", "scores"]):
        code, out, err = _run(capsys, *args)
        assert code == 2 and out == "" and len(err.splitlines()) == 1
        assert "bioasq_snippet_GMAP is a mean only" in err
    code, out, err = _run(capsys, "compare", gold, a, b, "--meta", "--format", "html", "-o",
                          str(tmp_path / "r.html"))
    assert code == 2 and len(err.splitlines()) == 1 and "--meta is not available" in err
    code, out, err = _run(capsys, "report", gold, a, b, "--ranks", "20", "-o",
                          str(tmp_path / "r.html"))
    assert code == 2 and len(err.splitlines()) == 1 and "--ranks not used by BioASQ" in err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("complete", [False, True])
def test_meta_power_directly_equals_meta_power_on_saved_scores(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], complete: bool) -> None:
    gold, a, b = _files(tmp_path)
    flag = ["-c"] if complete else []
    saved = tmp_path / "saved.scores"
    code, _, err = _run(capsys, "eval", gold, a, b, "--format", "scores", "-o", str(saved),
                        *flag)
    assert code == 0, err
    found = []
    for inputs in (["--scores", str(saved)], [gold, a, b]):
        code, out, err = _run(capsys, "meta", "power", *inputs, *flag, "--replicates", "300",
                              "--format", "json")
        assert code == 0, err
        found.append(json.loads(out))
    assert found[0] == found[1]
    pairs = found[0]["pairs"]
    assert {p["measure"] for p in pairs} == set(MEASURES)
    assert all(p["n_topics"] == 6 for p in pairs)


def test_meta_bioasq_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, a, b = _files(tmp_path)
    found = []
    for version in ("3", "8"):
        code, out, err = _run(capsys, "meta", "power", gold, a, b, "-m", "bioasq_snippet_MAP",
                              "--bioasq-version", version, "--replicates", "100", "--format",
                              "json")
        assert code == 0, err
        found.append(json.loads(out)["pairs"][0]["mean_a"])
        values = _per_question(capsys, gold, a, "-m", "bioasq_snippet_MAP", "--bioasq-version",
                               version)
        assert found[-1] == pytest.approx(math.fsum(values.values()) / 6, abs=1e-12)
    assert found[0] < found[1]
    qrels = write(tmp_path, "qrels.txt", "1 0 doc1 1\n")
    code, out, err = _run(capsys, "meta", "power", qrels, a, b, "--bioasq-version", "8")
    assert code == 2 and len(err.splitlines()) == 1
    assert "--bioasq-version goes with BioASQ JSON files" in err
