"""Regressions found in review: undefined xCG without relevant material, alpha in [0, 1],
dashed parameter values, Trel of the simulated runs."""

from __future__ import annotations

import numpy as np
import pytest

from inexeval import evaluate
from inexeval.analysis.simulate import grade_runs
from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.errors import MeasureError
from inexeval.measures.registry import parse_measure
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run

ROOT = "/article[1]"


def single(name: str, length: int) -> DocumentIndex:
    one = np.zeros(1, dtype=np.int64)
    return DocumentIndex(name, (ROOT,), ("article",), one - 1, one + 1, one,
                         np.array([length], dtype=np.int64), length)


def test_xcg_undefined_without_relevant_material() -> None:
    topics = {
        "1": build_topic("1", "inex2005", [("d", ROOT, {"exhaustivity": 2, "size": 100,
                                                        "rsize": 100})],
                         highlights={"d": np.array([[0, 100]], dtype=np.int64)}),
        "2": build_topic("2", "inex2005", [("e", ROOT, {"exhaustivity": 1, "size": 100,
                                                        "rsize": 10})],
                         highlights={"e": np.array([[0, 10]], dtype=np.int64)}),
    }
    run = Run("r", "element", {t: make_topic_run(t, [f], paths=[ROOT], ranks=[1])
                               for t, f in (("1", "d"), ("2", "e"))})
    collection = CollectionIndex({"d": single("d", 100), "e": single("e", 100)})
    results = evaluate(Assessments(topics, "inex2005"), run, ["xCG@1", "nxCG@1"],
                       collection=collection)
    assert results.value("r", "2", "xCG@1") is None
    assert results.mean("xCG@1") == 1.0 and results.mean("nxCG@1") == 1.0


@pytest.mark.parametrize("name", ["nxCG(alpha=5)@2", "HiXEval_R(alpha=-1)@2", "MAep(alpha=1.5)"])
def test_alpha_outside_unit_interval_is_refused(name: str) -> None:
    with pytest.raises(MeasureError, match=r"alpha: .* is not in \[0, 1\]"):
        parse_measure(name)


def test_dashed_values_parse_unquoted_and_round_trip() -> None:
    measure = parse_measure("nxCG(irb=strict-path)@3")
    assert str(measure) == "nxCG(irb=strict-path)@3"
    assert parse_measure(str(measure)) == measure


def test_simulated_runs_count_highlighted_text_once() -> None:
    ta = build_topic("1", "inex2005", [
        ("d", ROOT, {"exhaustivity": 2, "size": 100, "rsize": 50}),
        ("d", ROOT + "/a[1]/b[1]", {"exhaustivity": 2, "size": 20, "rsize": 20}),
    ])
    run = grade_runs(Assessments({"1": ta}, "inex2005"), runs=["FullRB"])["FullRB"]["1"]
    rsv = dict(zip(run.paths.tolist(), run.rsv.tolist()))
    assert rsv[ROOT] == pytest.approx(2 * 0.5 * 1.0 / 1.5)
    assert rsv[ROOT + "/a[1]/b[1]"] == pytest.approx(2 * 1.0 * 0.4 / 1.4)


def test_unresolved_passages_are_resolved_with_the_collection() -> None:
    from inexeval import demo
    from inexeval.collection.build import build_index
    from inexeval.evaluation import with_implicit
    from inexeval.formats.detect import load_assessments, load_run

    collection = build_index(demo.COLLECTION)
    qrels = load_assessments(demo.ASSESSMENTS_2005)
    run = load_run(demo.RUNS[1])
    measures = ["nxCG(quant=gen2006)@10", "HiXEval_P@10"]
    on_demand = evaluate(qrels, run, measures, collection=collection)
    resolved = with_implicit(qrels, collection=collection, implicit=False)
    beforehand = evaluate(resolved, run, measures, collection=collection)
    for measure in measures:
        assert on_demand.mean(measure) == pytest.approx(beforehand.mean(measure))
        assert on_demand.mean(measure) > 0
