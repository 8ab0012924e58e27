"""The natural curves of the measures: the points are the registered measures, the curve's
average is the summary measure, and the official task's curve is the official evaluator's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.helpers import DATA, needs_shared

from inexeval import Evaluator, load_assessments, load_collection, load_run
from inexeval.demo import ASSESSMENTS_2004, ASSESSMENTS_2005, COLLECTION, RUNS
from inexeval.errors import MeasureError
from inexeval.evaluation import with_implicit
from inexeval.measures.curves import evaluate_curve, natural_curve, series, task_measure
from inexeval.measures.focused import evaluate_task

IPCS = DATA / "ipcs"
QRELS = IPCS / "INEX_Qrels.txt"


@pytest.fixture(scope="module")
def fol() -> tuple[object, list[object]]:
    return load_assessments(str(QRELS)), [load_run(str(IPCS / name)) for name in
                                          ("bert_inex_converted_1.run", "bert1_incontext.run")]


@needs_shared
def test_focused_curve_is_the_official_ircl_prn(fol: tuple[object, list[object]]) -> None:
    """The 101 points averaged over topics equal the official evaluator's ircl_prn.x (inex_eval
    3.1 layout), for the mean and with -c; per topic they are the iP[x] of the registry."""
    assessments, runs = fol
    spec = natural_curve(task_measure("focused"))
    assert spec.family == "iP" and len(spec.x) == 101 and spec.x[0] == 0.0 and spec.x[-1] == 1.0
    for complete in (False, True):
        results = evaluate_curve(spec, assessments, runs, official=True, complete=complete)
        official = evaluate_task(assessments, runs, "focused", complete=complete,
                                 per_topic=False)
        for run in runs:
            expected = [official.mean(f"ircl_prn.{x:.2f}", run.name) for x in spec.x]
            np.testing.assert_allclose(series(results, spec, run.name), expected, rtol=0,
                                       atol=1e-12)


@needs_shared
def test_official_curve_reads_runs_in_file_order(fol: tuple[object, list[object]]) -> None:
    """The official tool ignores the rank column; so does the task's curve."""
    from dataclasses import replace

    assessments, runs = fol
    run = runs[0]
    topic = next(iter(run))
    reversed_ranks = replace(run[topic], ranks=run[topic].ranks[::-1].copy())
    shuffled = replace(run, topics={**run.topics, topic: reversed_ranks})
    spec = natural_curve(task_measure("focused"))
    same = evaluate_curve(spec, assessments, [run], official=True)
    other = evaluate_curve(spec, assessments, [shuffled], official=True)
    np.testing.assert_array_equal(series(same, spec, run.name, topic),
                                  series(other, spec, run.name, topic))


@needs_shared
def test_per_topic_curve_averages_to_aip(fol: tuple[object, list[object]]) -> None:
    assessments, runs = fol
    spec = natural_curve("MAiP")
    results = evaluate_curve(spec, assessments, runs[:1], official=True)
    official = evaluate_task(assessments, runs[:1], "focused")
    for topic in ("2009001", "2009003", "2010016"):
        curve = series(results, spec, runs[0].name, topic)
        assert np.all(np.diff(curve) <= 0), "interpolated precision never increases"
        assert curve.mean() == pytest.approx(official.value(runs[0].name, topic, "AiP"),
                                             abs=1e-12)


@needs_shared
def test_in_context_curve_is_gp_at_every_rank(fol: tuple[object, list[object]]) -> None:
    assessments, runs = fol
    spec = natural_curve(task_measure("relevant-in-context"), ranks=60)
    assert spec.family == "gP" and spec.x == tuple(float(k) for k in range(1, 61))
    results = evaluate_curve(spec, assessments, runs[1:], official=True)
    official = evaluate_task(assessments, runs[1:], "relevant-in-context")
    name = runs[1].name
    curve = series(results, spec, name)
    for k in (1, 2, 3, 5, 10, 25, 50):
        assert curve[k - 1] == pytest.approx(official.mean(f"gP[{k}]", name), abs=1e-12)
    topic = series(results, spec, name, "2009001")
    assert topic[9] == pytest.approx(official.value(name, "2009001", "gP[10]"), abs=1e-15)


def _element_results(measure: str, names: list[str]) -> tuple[object, object]:
    collection = load_collection(str(COLLECTION))
    assessments = with_implicit(load_assessments(str(ASSESSMENTS_2005)), collection=collection)
    spec = natural_curve(measure, ranks=30)
    evaluator = Evaluator([*spec.points, *names], assessments, collection=collection)
    return spec, evaluator.evaluate([load_run(str(r)) for r in RUNS])


def test_nxcg_curve_averages_to_manxcg() -> None:
    spec, results = _element_results("MAnxCG(quant=gen2005)@30", ["MAnxCG(quant=gen2005)@30"])
    assert spec.family == "nxCG" and str(spec.points[4]) == "nxCG(quant=gen2005)@5"
    for run in results.runs():
        for topic in results.topics(run):
            curve = series(results, spec, run, topic)
            expected = results.value(run, topic, "MAnxCG(quant=gen2005)@30")
            if expected is None:
                assert np.isnan(curve).all()
            else:
                assert curve.mean() == pytest.approx(expected, abs=1e-12)


def test_ep_curve_averages_to_interpolated_maep() -> None:
    name = "MAep(quant=gen2005,interpolated=True)"
    spec, results = _element_results(name, [name])
    assert spec.family == "ep" and len(spec.x) == 100 and spec.x[0] == 0.01
    for run in results.runs():
        expected = results.mean(name, run)
        assert expected is not None
        assert series(results, spec, run).mean() == pytest.approx(expected, abs=1e-12)


def test_inex_eval_curve_averages_to_inex_eval() -> None:
    collection = load_collection(str(COLLECTION))
    assessments = with_implicit(load_assessments(str(ASSESSMENTS_2004)), collection=collection)
    name = "inex_eval(quant=generalised)"
    spec = natural_curve(name)
    assert spec.family == "inex_eval" and spec.x == tuple(b / 100 for b in range(1, 101))
    results = Evaluator([*spec.points, name], assessments, collection=collection).evaluate(
        [load_run(str(r)) for r in RUNS])
    for run in results.runs():
        for topic in results.topics(run):
            curve = series(results, spec, run, topic)
            assert curve.mean() == pytest.approx(results.value(run, topic, name), abs=1e-12)


def test_eprum_curve_is_eprum_at_each_recall_level() -> None:
    spec, results = _element_results("EPRUM", ["EPRUM@0.5", "EPRUM@0.37"])
    assert spec.family == "EPRUM" and spec.x[0] == 0.01 and len(spec.x) == 100
    assert str(spec.points[49]) == "EPRUM[0.50]"
    for run in results.runs():
        curve = series(results, spec, run)
        for at, name in ((49, "EPRUM[0.50]"), (36, "EPRUM[0.37]")):
            value = results.mean(name, run)
            assert (value is None and math.isnan(curve[at])) or curve[at] == value


def test_rank_cutoff_families_curve_over_ranks() -> None:
    spec = natural_curve("P(quant=generalised)@10", ranks=20)
    assert spec.family == "P" and spec.x_label == "rank k" and len(spec.points) == 20
    assert [str(m) for m in spec.points[:2]] == ["P(quant=generalised)@1", "P(quant=generalised)@2"]


@pytest.mark.parametrize("name", ["art_prec", "overlap@10", "char_f1(task=thorough)"])
def test_measures_without_a_curve_are_refused(name: str) -> None:
    with pytest.raises(MeasureError, match="has no curve"):
        natural_curve(name)


def test_a_curve_over_no_rank_is_refused() -> None:
    with pytest.raises(MeasureError, match="at least rank 1"):
        natural_curve("nxCG@10", ranks=0)


@needs_shared
def test_a_topic_without_values_is_an_error(fol: tuple[object, list[object]]) -> None:
    assessments, runs = fol
    spec = natural_curve("MAiP")
    results = evaluate_curve(spec, assessments, runs[:1], official=True)
    with pytest.raises(MeasureError, match="no value for topic nope"):
        series(results, spec, runs[0].name, "nope")
