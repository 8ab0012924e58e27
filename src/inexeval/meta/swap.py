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

Extrapolation (Voorhees and Buckley fit, per bin, an exponential in the topic-set size; the
papers leave the fitting open, the choices below are ours): per bin, swap rate = exp(α + β·c),
fitted by maximum likelihood with the swaps of size c Poisson with mean comparisons × rate (a
Poisson regression with the comparisons as exposure, so each size weighs by its comparisons and
a size without swaps counts, as a rate of 0), over the sizes where the bin has at least
:data:`MIN_COMPARISONS` comparisons, with β ≤ 0 (a swap rate does not grow with the topic-set
size: extrapolating never raises it). A bin with fewer than two such sizes has no fit; one with
no swap at them has rate 0. At c topics, the bins' fitted rates are then made non-increasing in
|d| by weighted isotonic regression (pool-adjacent-violators, :func:`non_increasing`, each
bin weighing its comparisons in the fit), and ``min_difference`` is
the smallest bin lower bound from which the rate stays below 5% in every larger fitted bin (the
difference beyond which swaps are rare), reported for every size studied and for n, the whole
topic set; with no fitted bin the data are too few, and the summary says so.

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

MIN_COMPARISONS = 30
"""The comparisons a bin needs at a topic-set size for that size to enter the bin's fit (our
choice)."""

TOO_FEW = (f"too few comparisons to fit: no bin has {MIN_COMPARISONS} at two sizes or more")
NEVER_BELOW = "no fitted bin's swap rate stays below 5%"

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

    def exponential(self, topics: int) -> Matrix:
        """Per bin, the exponential's swap rate at ``topics`` topics, at most 1 (0 for a bin
        that never swaps where it is fitted, NaN for a bin without a fit)."""
        with np.errstate(over="ignore", invalid="ignore"):
            rate: Matrix = np.minimum(np.exp(self.alpha + self.beta * topics), 1.0)
        return rate

    def fitted(self, topics: int) -> Matrix:
        """Per bin, the fitted swap rate at ``topics`` topics: :meth:`exponential` made
        non-increasing in |d| over the fitted bins (weighted isotonic regression, each bin
        weighing its comparisons at the sizes of its fit); NaN for a bin without a fit."""
        rate = self.exponential(topics)
        fitted = ~np.isnan(rate)
        out: Matrix = np.full(len(rate), np.nan)
        if fitted.any():
            used = self.comparisons >= MIN_COMPARISONS
            weights = np.where(used, self.comparisons, 0).sum(axis=0)[fitted]
            out[fitted] = non_increasing(rate[fitted], weights.astype(np.float64))
        return out

    def min_difference(self, topics: int) -> float | None:
        """The smallest bin lower bound from which the fitted swap rate at ``topics`` stays
        below 5% in every larger fitted bin (None when there is none)."""
        rate = self.fitted(topics)
        fitted = np.flatnonzero(~np.isnan(rate))
        above = fitted[rate[fitted] >= TARGET]
        after = fitted[fitted > above[-1]] if len(above) else fitted
        return float(after[0] * self.bin_width) if len(after) else None

    def note(self, topics: int, difference: float | None = None) -> str | None:
        """Why ``min_difference`` at ``topics`` (``difference`` when known) is None: too few
        comparisons to fit any bin, or no fitted rate below 5%."""
        if np.isnan(self.beta).all():
            return TOO_FEW
        if difference is None:
            difference = self.min_difference(topics)
        return NEVER_BELOW if difference is None else None

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
        """The keys of ``summary``: ``min_difference`` at every size and at n topics, with the
        ``note`` saying why there is none."""
        sizes = [*self.sizes, self.n_topics] if self.n_topics not in self.sizes else self.sizes
        differences = [self.min_difference(c) for c in sizes]
        return [{"measure": self.measure, "topics": c, "min_difference": d,
                 "note": self.note(c, d)} for c, d in zip(sizes, differences)]


def non_increasing(values: Matrix, weights: Matrix) -> Matrix:
    """The weighted least-squares non-increasing fit of ``values`` (pool-adjacent-violators:
    a block whose mean exceeds the previous block's is merged with it, means weighted); the
    numbers of ``scipy.optimize.isotonic_regression(values, weights=weights,
    increasing=False)``, without importing scipy.optimize (half a second)."""
    means: list[float] = []
    masses: list[float] = []
    lengths: list[int] = []
    for value, weight in zip(values.tolist(), weights.tolist()):
        means.append(value)
        masses.append(weight)
        lengths.append(1)
        while len(means) > 1 and means[-1] > means[-2]:
            mass = masses[-1] + masses[-2]
            mean = ((means[-1] * masses[-1] + means[-2] * masses[-2]) / mass if mass > 0
                    else (means[-1] + means[-2]) / 2)
            length = lengths[-1] + lengths[-2]
            del means[-1], masses[-1], lengths[-1]
            means[-1], masses[-1], lengths[-1] = mean, mass, length
    return np.repeat(np.array(means, dtype=np.float64), lengths)


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


def fit(sizes: Sequence[int], comparisons: Counts, swaps: Counts,
        minimum: int = MIN_COMPARISONS, iterations: int = 60) -> tuple[Matrix, Matrix]:
    """Per bin, (α, β) of swap rate = exp(α + β·c) by maximum likelihood, the swaps Poisson
    with mean comparisons × rate, over the sizes with at least ``minimum`` comparisons, β ≤ 0
    (see the module docstring): Newton's method on all bins at once (the log-likelihood is
    concave), halving a step that does not raise it. NaN for a bin with fewer than two such
    sizes; α = -inf, β = 0 (rate 0) for a bin without swaps at them."""
    c = np.asarray(sizes, dtype=np.float64)[:, None]
    used = comparisons >= minimum
    n = np.where(used, comparisons, 0).astype(np.float64)
    k = np.where(used, swaps, 0).astype(np.float64)
    count = used.sum(axis=0)
    middle = (c * used).sum(axis=0) / np.maximum(count, 1)
    x = np.where(used, c - middle, 0.0)
    total_n, total_k = n.sum(axis=0), k.sum(axis=0)
    live = (count >= 2) & (total_k > 0)
    with np.errstate(divide="ignore"):
        a = np.where(live, np.log(total_k / np.maximum(total_n, 1)), 0.0)
    b = np.zeros_like(a)

    def loglik(a: Matrix, b: Matrix) -> Matrix:
        eta = a + b * x
        with np.errstate(over="ignore"):
            value: Matrix = (k * eta - n * np.exp(np.minimum(eta, 700.0))).sum(axis=0)
        return value

    current = loglik(a, b)
    for _ in range(iterations):
        mu = n * np.exp(np.minimum(a + b * x, 700.0))
        ga, gb = (k - mu).sum(axis=0), ((k - mu) * x).sum(axis=0)
        haa, hab, hbb = mu.sum(axis=0), (mu * x).sum(axis=0), (mu * x * x).sum(axis=0)
        det = haa * hbb - hab * hab
        solvable = live & (det > 1e-300)
        det = np.where(solvable, det, 1.0)
        da = np.where(solvable, (hbb * ga - hab * gb) / det, 0.0)
        db = np.where(solvable, (haa * gb - hab * ga) / det, 0.0)
        step = np.ones_like(a)
        for _ in range(30):
            trial = loglik(a + step * da, b + step * db)
            worse = trial < current - 1e-12 * np.abs(current)
            if not worse.any():
                break
            step = np.where(worse, step / 2, step)
        a, b = a + step * da, b + step * db
        current = loglik(a, b)
    # the constraint: a rate growing with the topic-set size is held constant (the maximum
    # under β ≤ 0 of a concave likelihood whose maximum has β > 0 is on β = 0)
    rising = b > 0
    with np.errstate(divide="ignore"):
        flat = np.log(total_k / np.maximum(total_n, 1))
    a, b = np.where(rising, flat, a), np.where(rising, 0.0, b)
    alpha = np.where(live, a - b * middle, np.where(count >= 2, -np.inf, np.nan))
    beta = np.where(live, b, np.where(count >= 2, 0.0, np.nan))
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
