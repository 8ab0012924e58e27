"""Swap rates: how often two topic sets of the same size order a pair of runs differently
(Voorhees and Buckley 2002, "The effect of topic set size on retrieval experiment error",
SIGIR; Sakai 2007, "On the reliability of information retrieval metrics based on graded
relevance", IP&M 43(2), for the bootstrap variant).

For every topic-set size c from 5 to ⌊n/2⌋, ``subsets`` pairs of topic sets are drawn: with
``method="sampling"`` two disjoint sets of c topics chosen uniformly (Voorhees and Buckley),
with ``method="bootstrap"`` two sets of c topics drawn with replacement (Sakai 2007). For every
pair of runs, d1 and d2 are the differences of their means on the two sets, and a swap is d1 ·
d2 < 0. A comparison falls in bin k when k·w ≤ |d1| < (k + 1)·w (w = ``bin_width``); the swap
rate of a size and bin is swaps / comparisons.

Extrapolation (Voorhees and Buckley fit, per bin, an exponential in the topic-set size): per
bin, log(swap rate) = α + β·c is fitted by unweighted least squares over the sizes where the bin
has swaps (our choice: the papers do not fix the weights); a bin with no swap at any size has
rate 0, a bin with swaps at fewer than two sizes has no fit. ``min_difference`` at c topics is
the smallest bin lower bound whose fitted rate at c is below 5%, reported for every size studied
and for n, the whole topic set.

Randomness: subset pair s of size index i uses the uniforms of ``PCG64(SeedSequence(seed)
.spawn(sizes)[i])`` from s·n (sampling: a permutation of the n topics, argsorted, its first c
and next c topics) or from s·2c (bootstrap: topic ⌊u·n⌋ for each of 2c uniforms); a block
starting at pair s advances the generator there, and the subset means are sums over the topic
axis in topic-set order, so ``block`` and the executor never change a number. The subsets are
the same for every measure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError
from inexeval.executor import Executor, Serial, blocks
from inexeval.meta import study_scores, topics_by_runs
from inexeval.scores import Matrix, Scores

METHODS = ("sampling", "bootstrap")

TARGET = 0.05
"""The swap rate below which a difference counts as reliable (Voorhees and Buckley)."""

SMALLEST = 5
"""The smallest topic-set size studied."""

CELLS = 4_000_000
"""Numbers of a block's largest array (subset pairs × run pairs) when ``block`` is not given."""

Counts = npt.NDArray[np.int64]


@dataclass(frozen=True)
class SwapResult:
    """Swap rates of one measure: ``comparisons[i, k]`` and ``swaps[i, k]`` for size
    ``sizes[i]`` and bin k (``[k·w, (k+1)·w)``); the fitted model per bin (``alpha``,
    ``beta``, NaN without a fit) and the topic count of the whole set."""

    measure: str
    method: str
    bin_width: float
    n_topics: int
    sizes: tuple[int, ...]
    comparisons: Counts
    swaps: Counts
    alpha: Matrix
    beta: Matrix

    def rates(self) -> Matrix:
        """sizes × bins: swaps / comparisons (NaN where no comparison)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            rates: Matrix = np.where(self.comparisons > 0,
                                     self.swaps / np.maximum(self.comparisons, 1), np.nan)
        return rates

    def fitted(self, topics: int) -> Matrix:
        """Per bin, the fitted swap rate at ``topics`` topics, at most 1 (0 for a bin that
        never swaps, NaN for a bin without a fit)."""
        never = (self.swaps.sum(axis=0) == 0) & (self.comparisons.sum(axis=0) > 0)
        with np.errstate(over="ignore"):
            fitted: Matrix = np.where(never, 0.0,
                                      np.minimum(np.exp(self.alpha + self.beta * topics), 1.0))
        return fitted

    def min_difference(self, topics: int) -> float | None:
        """The smallest bin lower bound whose fitted swap rate at ``topics`` is below 5%."""
        below = np.nonzero(self.fitted(topics) < TARGET)[0]
        return float(below[0] * self.bin_width) if len(below) else None

    def rate_rows(self) -> list[dict[str, Any]]:
        """The keys of ``meta swap --format json``'s ``rates`` (bins with comparisons)."""
        rates = self.rates()
        return [{"measure": self.measure, "topics": c, "bin_low": k * self.bin_width,
                 "bin_high": (k + 1) * self.bin_width,
                 "comparisons": int(self.comparisons[i, k]), "swaps": int(self.swaps[i, k]),
                 "swap_rate": float(rates[i, k])}
                for i, c in enumerate(self.sizes)
                for k in np.nonzero(self.comparisons[i])[0].tolist()]

    def summary_rows(self) -> list[dict[str, Any]]:
        """The keys of ``summary``: ``min_difference`` at every size and at n topics."""
        sizes = [*self.sizes, self.n_topics] if self.n_topics not in self.sizes else self.sizes
        return [{"measure": self.measure, "topics": c, "min_difference": self.min_difference(c)}
                for c in sizes]


def _subsets(generator_seed: np.random.SeedSequence, method: str, n: int, c: int, start: int,
             stop: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    generator = np.random.PCG64(generator_seed)
    width = n if method == "sampling" else 2 * c
    generator.advance(start * width)
    uniforms = np.random.Generator(generator).random((stop - start, width))
    if method == "sampling":
        order = np.argsort(uniforms, axis=1)
        return order[:, :c], order[:, c:2 * c]
    drawn = np.minimum((uniforms * n).astype(np.intp), n - 1)
    return drawn[:, :c], drawn[:, c:]


def _block(shared: dict[str, Any], task: tuple[int, int, int, int]) -> tuple[Counts, Counts]:
    """Comparisons and swaps per bin of one block of subset pairs of one size and measure."""
    index, size_index, start, stop = task
    x: Matrix = shared["xs"][index]
    c = shared["sizes"][size_index]
    first, second = _subsets(shared["seeds"][size_index], shared["method"], x.shape[0], c,
                             start, stop)
    d1 = pair_differences(x[first].sum(axis=1) / c)
    d2 = pair_differences(x[second].sum(axis=1) / c)
    np.multiply(d2, d1, out=d2)
    np.abs(d1, out=d1)
    np.divide(d1, shared["width"], out=d1)
    # one count per (bin, swapped): code 2·bin + swapped
    codes = d1.astype(np.int64)
    codes *= 2
    codes += d2 < 0
    counted = np.bincount(codes.ravel())
    if len(counted) % 2:
        counted = np.append(counted, 0)
    pairs = counted.reshape(-1, 2)
    return pairs.sum(axis=1).astype(np.int64), pairs[:, 1].astype(np.int64)


def pair_differences(means: Matrix) -> Matrix:
    """pairs × rows: for every pair (a, b), a < b in run order, means[:, a] − means[:, b] (one
    subtraction per run, written in contiguous rows)."""
    rows, m = means.shape
    columns = np.ascontiguousarray(means.T)
    out = np.empty((m * (m - 1) // 2, rows))
    at = 0
    for a in range(m - 1):
        np.subtract(columns[a], columns[a + 1:], out=out[at:at + m - 1 - a])
        at += m - 1 - a
    return out


def _add(total: Counts, part: Counts) -> Counts:
    if len(part) > len(total):
        total = np.concatenate([total, np.zeros(len(part) - len(total), dtype=np.int64)])
    total[:len(part)] += part
    return total


def fit(sizes: Sequence[int], comparisons: Counts, swaps: Counts) -> tuple[Matrix, Matrix]:
    """Per bin, (α, β) of log(rate) = α + β·c by least squares over the sizes where the bin
    has swaps (NaN with fewer than two)."""
    c = np.asarray(sizes, dtype=np.float64)
    bins = comparisons.shape[1]
    alpha, beta = np.full(bins, np.nan), np.full(bins, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(swaps / np.maximum(comparisons, 1))
    used = swaps > 0
    count = used.sum(axis=0)
    weight = used.astype(np.float64)
    mean_c = (weight * c[:, None]).sum(axis=0) / np.maximum(count, 1)
    mean_log = np.where(used, logs, 0.0).sum(axis=0) / np.maximum(count, 1)
    dc = np.where(used, c[:, None] - mean_c, 0.0)
    spread = (dc * dc).sum(axis=0)
    fitted = (count >= 2) & (spread > 0)
    slope = np.where(fitted, (dc * np.where(used, logs - mean_log, 0.0)).sum(axis=0)
                     / np.where(fitted, spread, 1.0), np.nan)
    beta[fitted] = slope[fitted]
    alpha[fitted] = (mean_log - slope * mean_c)[fitted]
    return alpha, beta


def swap_study(scores: Scores, measures: Sequence[str] | None = None, *,
               method: str = "sampling", subsets: int = 1000, bin_width: float = 0.01,
               seed: int = 42, sizes: Sequence[int] | None = None,
               executor: Executor | None = None, block: int | None = None) -> list[SwapResult]:
    """Swap rates of every measure (default all of the scores'), ``subsets`` pairs of topic
    sets per size (default every size from 5 to n/2), bins of width ``bin_width``; every
    (measure, size, block) is one task of the executor."""
    if method not in METHODS:
        raise InexevalError(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    if not (bin_width > 0 and math.isfinite(bin_width)):
        raise InexevalError(f"the bin width must be a positive number, not {bin_width!r}")
    if subsets < 1:
        raise InexevalError(f"the number of subset pairs must be at least 1, not {subsets}")
    scores = study_scores(scores)
    names = list(scores.measures if measures is None else measures)
    n, m = len(scores.topics), len(scores.runs)
    if m < 2:
        raise InexevalError(f"swap rates need at least two runs, not {m}")
    chosen = list(sizes) if sizes is not None else list(range(SMALLEST, n // 2 + 1))
    if not chosen:
        raise InexevalError(f"swap rates need at least {2 * SMALLEST} topics (two disjoint "
                            f"sets of {SMALLEST}), not {n}")
    limit = n // 2 if method == "sampling" else n
    bad = [c for c in chosen if not 1 <= c <= limit]
    if bad:
        raise InexevalError(f"topic-set size {bad[0]} is outside 1-{limit} for {n} topics")
    size = block or max(1, CELLS // max(m * (m - 1) // 2, n))
    shared = {"xs": [topics_by_runs(scores, name) for name in names], "sizes": chosen,
              "seeds": np.random.SeedSequence(seed).spawn(len(chosen)), "method": method,
              "width": bin_width}
    tasks = [(index, i, start, stop) for index in range(len(names))
             for i in range(len(chosen)) for start, stop in blocks(subsets, size)]
    out = (executor or Serial()).map(_block, tasks, shared, description=f"meta swap ({method})")
    totals: dict[tuple[int, int], list[Counts]] = {}
    for (index, i, _, _), (compared, swapped) in zip(tasks, out):
        total = totals.setdefault((index, i), [np.zeros(0, np.int64), np.zeros(0, np.int64)])
        total[0] = _add(total[0], compared)
        total[1] = _add(total[1], swapped)
    results = []
    for index, name in enumerate(names):
        width = max(len(totals[(index, i)][0]) for i in range(len(chosen)))
        comparisons = np.zeros((len(chosen), width), dtype=np.int64)
        swaps = np.zeros((len(chosen), width), dtype=np.int64)
        for i in range(len(chosen)):
            compared, swapped = totals[(index, i)]
            comparisons[i, :len(compared)] = compared
            swaps[i, :len(swapped)] = swapped
        alpha, beta = fit(chosen, comparisons, swaps)
        results.append(SwapResult(name, method, bin_width, n, tuple(chosen), comparisons, swaps,
                                  alpha, beta))
    return results
