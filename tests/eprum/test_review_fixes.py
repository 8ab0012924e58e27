"""Regressions found in review: Fetch & Browse ideal lists, and results absent from the
collection under the hierarchical and T2I users."""

from __future__ import annotations

import numpy as np
import pytest

from inexeval import evaluate
from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run

ELEMENTS = [("/article[1]", 0, 100), ("/article[1]/sec[1]", 0, 60),
            ("/article[1]/sec[1]/p[1]", 0, 30), ("/article[1]/sec[1]/p[2]", 30, 60),
            ("/article[1]/sec[2]", 60, 100)]


def collection() -> CollectionIndex:
    paths = tuple(p for p, _, _ in ELEMENTS)
    where = {p: i for i, p in enumerate(paths)}
    doc = DocumentIndex(
        "d1", paths, tuple(p.rsplit("/", 1)[1].split("[")[0] for p in paths),
        np.array([where.get(p.rsplit("/", 1)[0], -1) for p in paths], dtype=np.int64),
        np.array([p.count("/") for p in paths], dtype=np.int64),
        np.array([s for _, s, _ in ELEMENTS], dtype=np.int64),
        np.array([e for _, _, e in ELEMENTS], dtype=np.int64), 100)
    return CollectionIndex({"d1": doc})


def judged(paths: list[str]) -> Assessments:
    ta = build_topic("1", "inex2005", [("d1", p, {"exhaustivity": 2, "specificity": 1.0})
                                       for p in paths])
    return Assessments({"1": ta}, "inex2005")


def ranked(paths: list[str]) -> Run:
    n = len(paths)
    return Run("r", "element", {"1": make_topic_run("1", ["d1"] * n, paths=paths,
                                                    ranks=list(range(1, n + 1)))})


def values(qrels: Assessments, run: Run, measures: list[str]) -> dict[str, float | None]:
    results = evaluate(qrels, run, measures, collection=collection())
    return {r.measure: r.value for r in results.rows}


def test_fetch_and_browse_precision_never_above_one() -> None:
    units = ["/article[1]/sec[1]/p[1]", "/article[1]/sec[2]"]
    got = values(judged(units), ranked(units),
                 ["EPRUM(items=document)", "EPRUM(items=document)@1",
                  "EPRUM_P(items=document)@1"])
    assert list(got.values()) == pytest.approx([1.0, 1.0, 1.0])


def test_result_absent_from_collection_reaches_nothing() -> None:
    qrels = judged(["/article[1]/sec[1]"])
    run = ranked(["/article[1]/sec[1]/p[7]", "/article[1]/sec[1]"])
    with pytest.warns(UserWarning, match="not in the collection"):
        got = values(qrels, run, ["EPRUM", "GR@2", "T2I(tolerance=10)"])
    assert got == pytest.approx({"EPRUM": 0.5, "GR@2": 100.0, "T2I(tolerance=10)": 0.5})


def test_repeats_kept_for_randomised_runs() -> None:
    """Seed 004 §7: two walks landing on one element stay two ranks of the list."""
    qrels = judged(["/article[1]/sec[1]/p[1]", "/article[1]/sec[1]/p[2]"])
    run = ranked(["/article[1]/sec[1]", "/article[1]/sec[1]"])
    results = evaluate(qrels, run, ["EPRUM@0.5", "EPRUM@1", "EPRUM"], collection=collection(),
                       keep_repeats=True)
    # each rank reaches p1 and p2 with probability 30/60 = 0.5, independently
    got = [results.value("r", "1", m) for m in ("EPRUM[0.50]", "EPRUM[1.00]", "EPRUM")]
    assert got == pytest.approx([0.84375, 0.8125, 0.828125])
    with pytest.warns(UserWarning, match="repeated"):
        dropped = evaluate(qrels, run, ["EPRUM"], collection=collection())
    assert dropped.value("r", "1", "EPRUM") == pytest.approx(0.625)
