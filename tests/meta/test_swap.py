"""Swap rates recomputed here from the definition (spec §3) with the documented random stream;
the exponential fit against numpy's polyfit; block and executor independence."""

import math

import numpy as np
import pytest

from inexeval.executor import Processes
from inexeval.meta.swap import fit, swap_study
from tests.meta.test_power import make_scores


def by_definition(x: np.ndarray, sizes: list[int], subsets: int, seed: int, width: float,
                  method: str) -> tuple[dict, dict]:
    n, m = x.shape
    compared: dict = {}
    swapped: dict = {}
    for i, c in enumerate(sizes):
        child = np.random.SeedSequence(seed).spawn(len(sizes))[i]
        draws = n if method == "sampling" else 2 * c
        uniforms = np.random.Generator(np.random.PCG64(child)).random((subsets, draws))
        for s in range(subsets):
            if method == "sampling":
                order = np.argsort(uniforms[s])
                one, two = order[:c], order[c:2 * c]
            else:
                drawn = [min(int(u * n), n - 1) for u in uniforms[s]]
                one, two = drawn[:c], drawn[c:]
            for a in range(m):
                for b in range(a + 1, m):
                    d1 = sum(x[j, a] for j in one) / c - sum(x[j, b] for j in one) / c
                    d2 = sum(x[j, a] for j in two) / c - sum(x[j, b] for j in two) / c
                    k = math.floor(abs(d1) / width)
                    compared[(c, k)] = compared.get((c, k), 0) + 1
                    swapped[(c, k)] = swapped.get((c, k), 0) + (d1 * d2 < 0)
    return compared, swapped


@pytest.mark.parametrize("method", ["sampling", "bootstrap"])
def test_swap_rates_are_the_definition(method: str) -> None:
    scores = make_scores(runs=5, topics=14, measures=1)
    [result] = swap_study(scores, method=method, subsets=40, bin_width=0.02, seed=6)
    assert result.sizes == (5, 6, 7)
    x = scores.matrix("M0")[2].T
    compared, swapped = by_definition(x, [5, 6, 7], 40, 6, 0.02, method)
    rows = result.rate_rows()
    # the test's sums differ from the study's in the last bits: a |d1| on a bin boundary may
    # move; none does with these scores
    assert {(r["topics"], round(r["bin_low"] / 0.02)): r["comparisons"] for r in rows} == compared
    assert {(r["topics"], round(r["bin_low"] / 0.02)): r["swaps"] for r in rows} == swapped
    for r in rows:
        assert r["swap_rate"] == r["swaps"] / r["comparisons"]


def test_fit_is_least_squares_on_log_rates() -> None:
    sizes = [5, 6, 7, 8]
    comparisons = np.array([[100, 10, 10], [100, 10, 10], [100, 10, 10], [100, 10, 10]])
    swaps = np.array([[40, 0, 2], [30, 0, 0], [25, 0, 1], [20, 0, 0]])
    alpha, beta = fit(sizes, comparisons, swaps)
    slope, intercept = np.polyfit(sizes, np.log([0.4, 0.3, 0.25, 0.2]), 1)
    assert (alpha[0], beta[0]) == (pytest.approx(intercept, abs=1e-12),
                                   pytest.approx(slope, abs=1e-12))
    assert math.isnan(alpha[1])  # never swaps: no fit, rate 0
    slope, intercept = np.polyfit([5, 7], np.log([0.2, 0.1]), 1)
    assert beta[2] == pytest.approx(slope, abs=1e-12)


def test_min_difference_reads_the_fitted_rates() -> None:
    scores = make_scores(runs=8, topics=30, measures=1)
    [result] = swap_study(scores, subsets=200, seed=1)
    for row in result.summary_rows():
        fitted = result.fitted(row["topics"])
        below = [k for k in range(len(fitted)) if fitted[k] < 0.05]
        assert row["min_difference"] == (below[0] * 0.01 if below else None)
    assert result.summary_rows()[-1]["topics"] == 30


def test_blocks_and_processes_change_no_number() -> None:
    scores = make_scores(runs=6, topics=20, measures=2, grid=0.1)
    whole = swap_study(scores, subsets=90, seed=3, block=90)
    for block, executor in ((1, None), (13, Processes(2))):
        for a, b in zip(whole, swap_study(scores, subsets=90, seed=3, block=block,
                                          executor=executor)):
            assert (a.swaps == b.swaps).all() and (a.comparisons == b.comparisons).all()
