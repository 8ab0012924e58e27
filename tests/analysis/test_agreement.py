"""Measure agreement (Kendall, tau_AP, Spearman, Pearson, swaps) and judgement agreement."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from tests.helpers import assessments

from inexeval.analysis.agreement import (
    AGREEMENT_COLUMNS,
    cohen_kappa,
    judgement_agreement,
    measure_agreement,
    ranking_agreement,
    swaps,
    tau_ap,
)
from inexeval.errors import InexevalError
from inexeval.formats.fol import read_fol_qrels


def tau_ap_by_definition(truth: list[float], estimate: list[float]) -> float:
    """Yilmaz et al. (2008) eq. 2 read literally (no ties): walk down the estimated ranking and
    count, for each item, the items above it that the truth also puts above it."""
    n = len(truth)
    ranking = sorted(range(n), key=lambda i: -estimate[i])
    total = 0.0
    for i in range(1, n):
        correct = sum(1 for j in range(i) if truth[ranking[j]] > truth[ranking[i]])
        total += correct / i
    return 2 / (n - 1) * total - 1


def test_tau_ap_worked_examples() -> None:
    truth = [5.0, 4.0, 3.0, 2.0, 1.0]  # items A > B > C > D > E
    # The top two swapped: C(2) = 0, C(3..5) = 2, 3, 4 -> 2/4 (0 + 1 + 1 + 1) - 1 = 0.5,
    # while Kendall's tau is 0.8 for either swap: tau_AP punishes the error at the top more.
    top = [4.0, 5.0, 3.0, 2.0, 1.0]
    assert tau_ap(truth, top) == pytest.approx(0.5)
    # The bottom two swapped: C = 1, 2, 3, 3 -> 2/4 (1 + 1 + 1 + 3/4) - 1 = 0.875
    bottom = [5.0, 4.0, 3.0, 1.0, 2.0]
    assert tau_ap(truth, bottom) == pytest.approx(0.875)
    assert stats.kendalltau(truth, top).statistic == pytest.approx(0.8)
    assert tau_ap(truth, truth) == 1.0
    assert tau_ap(truth, truth[::-1]) == pytest.approx(-1.0)


def test_tau_ap_published_example_of_ircor() -> None:
    # The example of the R package ircor (Urbano), whose documented output is 0.3928571 for
    # tauAP(x, y) without ties and 0.39903 for tauAP_a with y rounded to one decimal (ties).
    x = [0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54]
    y = [0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84]
    assert tau_ap(x, y) == pytest.approx(0.3928571, abs=1e-7)
    assert tau_ap(x, [round(v, 1) for v in y]) == pytest.approx(0.39903, abs=1e-5)


def test_tau_ap_equals_its_definition_on_random_rankings() -> None:
    rng = np.random.default_rng(2006)
    for n in (2, 3, 7, 30):
        truth, estimate = rng.permutation(n).tolist(), rng.permutation(n).tolist()
        assert tau_ap(truth, estimate) == pytest.approx(tau_ap_by_definition(truth, estimate),
                                                        abs=1e-12)


def test_tau_ap_with_ties_is_the_mean_over_tie_orders() -> None:
    truth = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    estimate = [0.3, 0.5, 0.5, 0.1, 0.5, 0.3]
    groups = [[i for i in range(6) if estimate[i] == v] for v in sorted(set(estimate), reverse=True)]
    values = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranking = [i for order in orders for i in order]
        fake = [0.0] * 6
        for position, item in enumerate(ranking):
            fake[item] = 6.0 - position
        values.append(tau_ap_by_definition(truth, fake))
    assert tau_ap(truth, estimate) == pytest.approx(float(np.mean(values)), abs=1e-12)
    # ties in the truth are no error
    assert tau_ap([1.0, 1.0, 0.5], [0.2, 0.9, 0.1]) == 1.0


def test_correlations_equal_scipy() -> None:
    rng = np.random.default_rng(2008)
    a = rng.uniform(0, 1, 25)
    b = a + rng.normal(0, 0.2, 25)
    row = ranking_agreement(a, b, "m1", "m2")
    assert row.kendall_tau == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    assert row.spearman == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    assert row.pearson == pytest.approx(stats.pearsonr(a, b).statistic, abs=1e-12)
    slope, intercept = np.polyfit(a, b, 1)
    assert (row.slope, row.intercept) == pytest.approx((slope, intercept), abs=1e-9)
    assert row.tau_ap == pytest.approx(tau_ap_by_definition(list(a), list(b)), abs=1e-12)
    discordant = sum(1 for i, j in itertools.combinations(range(25), 2)
                     if (a[i] - a[j]) * (b[i] - b[j]) < 0)
    assert row.swaps == discordant
    assert tuple(row._fields) == AGREEMENT_COLUMNS


def test_kendall_tau_b_with_ties_equals_scipy() -> None:
    a = [0.1, 0.2, 0.2, 0.4, 0.5, 0.5]
    b = [0.3, 0.1, 0.4, 0.4, 0.6, 0.2]
    assert ranking_agreement(a, b).kendall_tau == pytest.approx(stats.kendalltau(a, b).statistic)
    # run pairs (0, 1), (0, 5), (2, 5), (3, 5); (1, 2) and (4, 5) tie under a, (2, 3) under b
    assert swaps(a, b) == 4
    assert swaps(a, b) == sum(1 for i, j in itertools.combinations(range(6), 2)
                              if (a[i] - a[j]) * (b[i] - b[j]) < 0)


def test_measure_agreement_pairs_and_missing_means() -> None:
    means = {"x": {"r1": 0.1, "r2": 0.2, "r3": 0.3, "r4": None},
             "y": {"r1": 0.3, "r2": 0.2, "r3": 0.1, "r4": 0.4},
             "z": {"r1": 0.1, "r2": 0.3, "r3": 0.2, "r4": 0.0}}
    rows = measure_agreement(means)
    assert [(r.measure_a, r.measure_b, r.n_runs) for r in rows] == [
        ("x", "y", 3), ("x", "z", 3), ("y", "z", 4)]
    assert rows[0].kendall_tau == pytest.approx(-1.0)
    assert rows[0].swaps == 3
    with pytest.raises(InexevalError, match="at least two measures"):
        measure_agreement({"x": means["x"]})


def test_constant_measure_has_undefined_correlation() -> None:
    row = ranking_agreement([0.5, 0.5, 0.5], [0.1, 0.2, 0.3])
    assert math.isnan(row.pearson) and math.isnan(row.kendall_tau) and math.isnan(row.slope)


def test_cohen_kappa_equals_statsmodels() -> None:
    from statsmodels.stats.inter_rater import cohens_kappa

    for table in ([[20, 5], [10, 15]], [[3, 1, 0], [2, 8, 1], [0, 2, 6]], [[40, 0], [0, 9]]):
        assert cohen_kappa(np.array(table)) == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    # hand-worked: p_o = 35/50, p_e = (25*30 + 25*20)/2500 = 0.5, kappa = 0.4
    assert cohen_kappa(np.array([[20, 5], [10, 15]])) == pytest.approx(0.4)
    assert math.isnan(cohen_kappa(np.array([[5, 0], [0, 0]])))


def _fol(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_judgement_agreement_on_fol_qrels(tmp_path: Path) -> None:
    # topic 1: A highlights d1 [0, 100) and d2 [10, 20); B highlights d1 [50, 150), not d2,
    # and judges d3 non-relevant. topic 2: both highlight d4 [0, 40) exactly.
    a = read_fol_qrels(_fol(tmp_path / "a.qrels", [
        "1 Q0 d1 100 1000 0 0:100", "1 Q0 d2 10 1000 10 10:10", "2 Q0 d4 40 500 0 0:40"]))
    b = read_fol_qrels(_fol(tmp_path / "b.qrels", [
        "1 Q0 d1 100 1000 50 50:100", "1 Q0 d3 0 1000", "2 Q0 d4 40 500 0 0:40"]))
    first, second, overall = judgement_agreement(a, b)
    assert (first.topic, first.articles, first.both, first.only_a, first.only_b,
            first.neither) == ("1", 3, 1, 1, 0, 1)
    # p_o = 2/3, p_e = (2/3 * 1/3) + (1/3 * 2/3) = 4/9, kappa = (6/9 - 4/9) / (5/9) = 0.4
    assert first.kappa == pytest.approx(0.4)
    assert (first.chars_a, first.chars_b, first.chars_both) == (110, 100, 50)
    assert first.precision == pytest.approx(0.5) and first.recall == pytest.approx(50 / 110)
    assert first.f1 == pytest.approx(100 / 210) and first.jaccard == pytest.approx(50 / 160)
    assert second.jaccard == 1.0 and math.isnan(second.kappa)  # one article, both relevant
    assert overall.topic == "all"
    assert (overall.both, overall.only_a, overall.only_b, overall.neither) == (2, 1, 0, 1)
    assert (overall.chars_a, overall.chars_b, overall.chars_both) == (150, 140, 90)
    assert overall.kappa == pytest.approx(cohen_kappa(np.array([[2, 1], [0, 1]])))


def test_judgement_agreement_per_dimension_of_element_scales() -> None:
    def e_s(e: int, s: int) -> dict[str, int]:
        return {"exhaustivity": e, "specificity": s}

    a = assessments("inex2003", {"1": [("f", "/a[1]", e_s(2, 2)), ("f", "/a[1]/p[1]", e_s(3, 3)),
                                       ("g", "/a[1]", e_s(0, 0)), ("h", "/a[1]", e_s(1, 1))]})
    b = assessments("inex2003", {"1": [("f", "/a[1]", e_s(2, 1)), ("f", "/a[1]/p[1]", e_s(3, 3)),
                                       ("g", "/a[1]", e_s(1, 1)), ("k", "/a[1]", e_s(0, 0))]})
    topic, overall = judgement_agreement(a, b)
    assert (topic.both, topic.only_a, topic.only_b, topic.neither) == (1, 1, 1, 1)
    elements, kappa, matrix = topic.dimensions["exhaustivity"]
    assert elements == 3 and topic.categories["exhaustivity"] == [0, 1, 2, 3]
    assert matrix == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    assert kappa == pytest.approx(cohen_kappa(np.array(matrix)))
    assert topic.dimensions["specificity"][2] == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0],
                                                  [0, 0, 0, 1]]
    assert math.isnan(topic.precision)  # no highlighting in element assessments
    assert overall.dimensions == topic.dimensions


def test_judgement_agreement_refuses_other_scales_and_no_common_topic() -> None:
    a = assessments("inex2003", {"1": [("f", "/a[1]", {"exhaustivity": 1, "specificity": 1})]})
    b = assessments("trec", {"1": [("f", "", {"relevance": 1})]})
    with pytest.raises(InexevalError, match="different scales"):
        judgement_agreement(a, b)
    c = assessments("inex2003", {"2": [("f", "/a[1]", {"exhaustivity": 1, "specificity": 1})]})
    with pytest.raises(InexevalError, match="no topic in common"):
        judgement_agreement(a, c)
