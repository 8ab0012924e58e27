"""inex_eval (PRECALL with expected search length): spec §10 T-PR and the classical reduction."""

from __future__ import annotations

import random

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.helpers import assessments

from inexeval import evaluate
from inexeval.errors import InexevalWarning
from inexeval.measures.precall import estimated_components, precall
from inexeval.measures.registry import parse_measure
from inexeval.model import Run
from inexeval.model.run import make_topic_run


def test_t_pr_1_weak_ordering() -> None:
    values = precall(np.array([1, 0, 0, 1, 1, 0.0]), np.array([0, 0, 0, 1, 1, 1]), 3,
                     np.array([1 / 3, 2 / 3, 1.0]), None)
    assert values == pytest.approx([0.5, 0.461538, 0.529412], abs=1e-6)


def test_t_pr_2_virtual_final_rank() -> None:
    values = precall(np.array([1, 0, 0.0]), np.arange(3), 2, np.array([0.5, 1.0]), 10)
    assert values == pytest.approx([1.0, 2 / 7], abs=1e-9)


def test_t_pr_3_generalised_expectations() -> None:
    values = precall(np.array([1.0, 0.5, 0.0, 0.75]), np.arange(4), 3.0,
                     np.array([0.5, 0.7, 1.0]), 10)
    assert values == pytest.approx([0.9, 0.569767, 3 / 7], abs=1e-6)


def test_unreached_recall_without_components_is_zero() -> None:
    values = precall(np.array([1, 0, 0.0]), np.arange(3), 2, np.array([0.5, 1.0]), None)
    assert values.tolist() == [1.0, 0.0]


def test_estimated_components_is_seed_003_eq_7() -> None:
    ta = assessments("inex2003", {"1": [
        ("A", "/a[1]", {"exhaustivity": 1, "specificity": 1}),
        ("A", "/a[1]/b[1]", {"exhaustivity": 1, "specificity": 1}),
        ("B", "/a[1]", {"exhaustivity": 0, "specificity": 0}),
    ]})["1"]
    assert estimated_components(ta, 1000) == 1000 * 3 / 2


def test_ties_score_forms_levels_through_the_api() -> None:
    qrels = assessments("inex2003", {"1": [(f"d{i}", "/article[1]",
                                            {"exhaustivity": 3, "specificity": 3})
                                           for i in (0, 3, 4)]})
    files = [f"d{i}" for i in range(6)]
    run = Run("r", "element", {"1": make_topic_run(
        "1", files, paths=["/article[1]"] * 6, rsv=[2, 2, 2, 1, 1, 1])})
    results = evaluate(qrels, run, ["inex_eval(ties=score)@0.3333333333333333",
                                    "inex_eval@0.3333333333333333"])
    weak, total = (results.value("r", "1", m) for m in
                   ("inex_eval(ties=score)@0.3333333333333333", "inex_eval@0.3333333333333333"))
    assert weak == pytest.approx(0.5) and total == pytest.approx(1.0)


def test_no_relevant_components_is_undefined_and_excluded() -> None:
    qrels = assessments("inex2003", {
        "1": [("A", "/article[1]", {"exhaustivity": 2, "specificity": 2})],
        "2": [("B", "/article[1]", {"exhaustivity": 3, "specificity": 3})],
    })
    run = Run("r", "element", {t: make_topic_run(t, [f], paths=["/article[1]"])
                               for t, f in (("1", "A"), ("2", "B"))})
    results = evaluate(qrels, run, ["inex_eval"])
    assert results.value("r", "1", "inex_eval") is None
    assert results.mean("inex_eval") == 1.0


def test_binary_total_order_equals_trec_eval_precision_at_relevant_ranks() -> None:
    rng = random.Random(3)
    qrels_dict: dict[str, dict[str, int]] = {}
    run_dict: dict[str, dict[str, float]] = {}
    for t in map(str, range(1, 6)):
        docs = [f"d{i}" for i in range(40)]
        retrieved = rng.sample(docs, 25)
        relevant = rng.sample(retrieved, rng.randint(1, 6))
        qrels_dict[t] = {d: int(d in relevant) for d in docs}
        run_dict[t] = {d: float(100 - i) for i, d in enumerate(retrieved)}
    qrels = assessments("trec", {t: [(d, "", {"relevance": r}) for d, r in q.items()]
                                 for t, q in qrels_dict.items()})
    run = Run("r", "document", {t: make_topic_run(t, list(docs), rsv=list(docs.values()))
                                for t, docs in run_dict.items()})
    for t, docs in run_dict.items():
        ranks = [i + 1 for i, d in enumerate(docs) if qrels_dict[t][d]]
        n = len(ranks)
        measures = [f"inex_eval@{(i + 1) / n!r}" for i in range(n)]
        with pytest.warns(InexevalWarning, match="have no assessments"):
            ours = evaluate(qrels.select({t}), run, measures)
        theirs = {str(m.measure): m.value for m in ir_measures.iter_calc(
            [ir_measures.P @ r for r in ranks], {t: qrels_dict[t]}, {t: docs})}
        for m, r in zip(measures, ranks):
            name = str(parse_measure(m))
            assert ours.value("r", t, name) == pytest.approx(theirs[f"P@{r}"], abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1, max_size=30),
       st.floats(0.0, 5.0), st.booleans(), st.integers(0, 200))
def test_precall_is_a_probability(values: list[float], extra: float, weak: bool,
                                  more: int) -> None:
    relevance = np.array(values)
    total = float(relevance.sum()) + extra
    if total <= 1e-9:  # the measure leaves such a topic undefined before calling precall
        return
    levels = np.arange(len(values)) // (3 if weak else 1)
    out = precall(relevance, levels, total, np.arange(1, 101) / 100, len(values) + more)
    assert np.all((out >= 0) & (out <= 1 + 1e-12))


def test_topic_without_results_scores_zero_with_complete() -> None:
    qrels = assessments("inex2003", {
        "1": [("A", "/article[1]", {"exhaustivity": 3, "specificity": 3})],
        "2": [("B", "/article[1]", {"exhaustivity": 3, "specificity": 3})],
    })
    run = Run("r", "element", {"1": make_topic_run("1", ["A"], paths=["/article[1]"])})
    results = evaluate(qrels, run, ["inex_eval"], num_docs=1000, complete=True)
    assert results.value("r", "2", "inex_eval") == 0.0
    assert results.mean("inex_eval") == 0.5
