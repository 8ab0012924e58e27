"""meta agree: correlations against scipy, the AP correlations against ircor's definitions
(re-typed here from Urbano and Marrero's reference loops) and the original tau_AP, RBO by hand,
bootstrap intervals recomputed replicate by replicate."""

import math

import numpy as np
import pytest
from scipy import stats

from inexeval.analysis.agreement import tau_ap
from inexeval.meta.agree import (
    COLUMNS,
    agreement_study,
    kendall,
    rbo,
    spearman,
    tau_ap_a,
    tau_ap_b,
)
from tests.meta.test_power import make_scores


def ircor_tau_ap_a(x: np.ndarray, y: np.ndarray) -> float:
    """ircor's tauAP_a (x the truth), its loops as published, on decreasing scores."""
    rx = stats.rankdata(-x)
    ry = stats.rankdata(-y, "ordinal")
    p = stats.rankdata(-y, "min").astype(int) - 1
    t = np.bincount(p)[p]
    n = len(x)
    total = 0.0
    for i in range(n):
        if p[i] == 0:
            continue
        above = sum(1 for j in range(n) if p[j] < p[i] and (rx[i] > rx[j]) == (ry[i] > ry[j]))
        total += above * sum(1 / (p[i] + k) for k in range(t[i])) / t[i]
    for i in range(n):
        total += sum((k + 1) / (p[i] + k + 1) for k in range(t[i] - 1)) / 2 / t[i]
    return 2 / (n - 1) * total - 1


def ircor_tau_ap_b(x: np.ndarray, y: np.ndarray) -> float:
    def half(x: np.ndarray, y: np.ndarray) -> float:
        rx = stats.rankdata(-x)
        ry = stats.rankdata(-y, "ordinal")
        p = stats.rankdata(-y, "min").astype(int) - 1
        total, below = 0.0, 0
        for i in range(len(x)):
            if p[i] == 0:
                continue
            below += 1
            total += sum(1 for j in range(len(x)) if p[j] < p[i]
                         and (rx[i] > rx[j]) == (ry[i] > ry[j])) / p[i]
        return 2 / below * total - 1
    return (half(x, y) + half(y, x)) / 2


def yilmaz_tau_ap(truth: np.ndarray, estimate: np.ndarray) -> float:
    order = np.argsort(-estimate)
    t = truth[order]
    n = len(t)
    return 2 / (n - 1) * sum(sum(t[:i] > t[i]) / i for i in range(1, n)) - 1


def test_ap_correlations_are_ircors_and_yilmazs() -> None:
    rng = np.random.default_rng(4)
    for _ in range(150):
        m = int(rng.integers(3, 11))
        truth = rng.permutation(m).astype(float)  # tau_AP_a: a truth without ties
        estimate = np.round(rng.random(m), 1)
        assert float(tau_ap_a(truth, estimate)) == pytest.approx(
            ircor_tau_ap_a(truth, estimate), abs=1e-12)
        x, y = np.round(rng.random(m), 1), np.round(rng.random(m), 1)
        if len(set(x)) > 1 and len(set(y)) > 1:
            assert float(tau_ap_b(x, y)) == pytest.approx(ircor_tau_ap_b(x, y), abs=1e-12)
        # agree's tau_ap (ties in the truth correct) is the same expectation
        assert float(tau_ap_a(x, y, truth_ties_correct=True)) == pytest.approx(tau_ap(x, y),
                                                                            abs=1e-12)
        distinct = rng.permutation(m).astype(float)
        assert float(tau_ap_a(truth, distinct)) == pytest.approx(
            yilmaz_tau_ap(truth, distinct), abs=1e-12)


def test_kendall_and_spearman_are_scipys() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        x, y = np.round(rng.random(9), 1), np.round(rng.random(9), 1)
        tau_b, tau_a, discordant = kendall(x, y)
        assert float(tau_b) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
        concordant = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) > 0
                         for i in range(9) for j in range(i + 1, 9))
        assert float(tau_a) == pytest.approx((concordant - discordant) / 36, abs=1e-12)
        assert float(spearman(x, y)) == pytest.approx(stats.spearmanr(x, y).statistic,
                                                      abs=1e-12)


def test_rbo_by_hand() -> None:
    # a b c d against b a d c, p = 0.5: X = 0, 2, 2, 4
    x = np.array([4.0, 3.0, 2.0, 1.0])
    y = np.array([3.0, 4.0, 1.0, 2.0])
    expected = 4 / 4 * 0.5 ** 4 + (0.5 / 0.5) * (0 + 2 / 2 * 0.25 + 2 / 3 * 0.125 + 1 * 0.0625)
    assert float(rbo(x, y, 0.5)) == pytest.approx(expected, abs=1e-15)
    assert float(rbo(x, x, 0.9)) == pytest.approx(1.0, abs=1e-15)


def test_study_rows_and_bootstrap_intervals() -> None:
    scores = make_scores(runs=6, topics=12, measures=3, grid=0.05)
    rows = agreement_study(scores, resamples=200, seed=9, block=37)
    assert [(r["measure_a"], r["measure_b"]) for r in rows] == [
        ("M0", "M1"), ("M0", "M2"), ("M1", "M2")]
    assert set(COLUMNS) <= set(rows[0])
    x = scores.matrix("M0")[2].T
    y = scores.matrix("M1")[2].T
    a, b = np.round(x.mean(axis=0), 12), np.round(y.mean(axis=0), 12)
    assert rows[0]["kendall_tau"] == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    replicates = np.random.default_rng(9).integers(0, 12, size=(200, 12))
    taus, pearsons = [], []
    for r in replicates:
        ra, rb = np.round(x[r].mean(axis=0), 12), np.round(y[r].mean(axis=0), 12)
        taus.append(stats.kendalltau(ra, rb).statistic)
        pearsons.append(stats.pearsonr(ra, rb).statistic)
    taus = [t for t in taus if not math.isnan(t)]
    assert [rows[0]["kendall_tau_ci_low"], rows[0]["kendall_tau_ci_high"]] == pytest.approx(
        np.percentile(taus, [2.5, 97.5]).tolist(), abs=1e-12)
    assert rows[0]["pearson_ci_high"] == pytest.approx(np.percentile(pearsons, 97.5),
                                                       abs=1e-12)
    again = agreement_study(scores, resamples=200, seed=9, block=200)
    assert again == rows
