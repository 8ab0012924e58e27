"""Agreement of the system rankings of two measures, with tie-aware AP correlations, RBO and
bootstrap confidence intervals.

Over the runs' means (every topic of the scores), per pair of measures (measure_a first, its
ranking the truth where one is needed): everything ``inexeval agree`` reports
(:func:`inexeval.analysis.agreement.ranking_agreement`: Kendall's tau_b, tau_AP, Spearman,
Pearson, the least-squares line, the swaps), and

* ``tau_a``: Kendall's tau_a, (concordant − discordant) / (m(m − 1)/2);
* ``tau_ap_a`` and ``tau_ap_b``: the AP correlations of Urbano and Marrero (2017, "The
  treatment of ties in AP correlation", ICTIR), as their ``ircor`` package computes them:
  tau_AP_a (accuracy: measure_a the truth, the expectation of Yilmaz et al.'s tau_AP over the
  orders of measure_b's tie groups; ircor refuses a truth with ties, here a pair tied in the
  truth counts as not concordant, as its formula does) and tau_AP_b (agreement: ties in both,
  the mean of the two directions, each averaging over the items below the top tie group);
* ``rbo``: rank-biased overlap (Webber, Moffat and Zobel 2010, eq. 32, RBO_ext of two full
  rankings of the same runs, persistence p = 0.9 unless given), runs with equal means in run
  order;
* run means are rounded to 12 decimals (:data:`DECIMALS`), so that means equal but for rounding
  are ties;
* for every correlation, a percentile bootstrap interval over topics (``*_ci_low``,
  ``*_ci_high``): replicate k averages the runs over row k of ``numpy.random.default_rng(seed)
  .integers(0, n, size=(B, n))`` (as ``meta power``'s replicate matrix) and the interval is the
  2.5th and 97.5th percentiles (numpy's linear interpolation) of the replicates' values where
  defined.

Every statistic of a block of replicates is one array operation over the block × runs × runs
comparisons; blocks are split by replicate index, so ``block`` and the executor change no
number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from inexeval.analysis.agreement import AGREEMENT_COLUMNS, ranking_agreement
from inexeval.errors import InexevalError
from inexeval.executor import Executor, Serial, blocks
from inexeval.meta import study_scores, topics_by_runs
from inexeval.scores import Matrix, Scores, geometric_measures

CORRELATIONS = ("kendall_tau", "tau_a", "tau_ap", "tau_ap_a", "tau_ap_b", "spearman", "pearson",
                "rbo")
"""The correlations with a bootstrap interval."""

COLUMNS = (*AGREEMENT_COLUMNS, "tau_a", "tau_ap_a", "tau_ap_b", "rbo",
           *(f"{name}_{end}" for name in CORRELATIONS for end in ("ci_low", "ci_high")))
"""The columns of ``meta agree`` (CSV, JSON)."""

DECIMALS = 12
"""Run means are rounded to this many decimals before they are ranked: means equal but for
the order of their additions (scores on a grid, as P@10's) are ties."""


def _harmonic(m: int) -> Matrix:
    """H(0..m): H(k) = 1 + 1/2 + ... + 1/k."""
    return np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, m + 1))))


def tau_ap_a(truth: Matrix, estimate: Matrix, *, truth_ties_correct: bool = False) -> Matrix:
    """Urbano and Marrero's tau_AP_a of every row (items on the last axis, higher is better):
    the expectation of tau_AP over the orders of the estimate's tie groups. An item at
    position p (0-based, p = the items the estimate puts strictly above it) in a tie group of
    g items gains, for every item of an earlier group that the truth puts above it, the mean of
    1/(p + k) over its g possible positions k; and each of the g(g − 1)/2 pairs within a group
    is concordant in half of the orders. ``truth_ties_correct``: a pair tied in the truth
    counts as concordant (``agree``'s tau_ap) rather than not (ircor's)."""
    x = np.asarray(truth, dtype=np.float64)
    y = np.asarray(estimate, dtype=np.float64)
    m = x.shape[-1]
    harmonic = _harmonic(m)
    above_y = y[..., None, :] > y[..., :, None]          # [i, j]: j strictly above i
    tied_y = y[..., None, :] == y[..., :, None]
    above_x = (x[..., None, :] >= x[..., :, None]) if truth_ties_correct else (
        x[..., None, :] > x[..., :, None])
    p = above_y.sum(axis=-1)
    g = tied_y.sum(axis=-1)
    c = (above_y & above_x).sum(axis=-1)
    a = (tied_y & above_x).sum(axis=-1) - (1 if truth_ties_correct else 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_weight = np.where(p > 0, (harmonic[p + g - 1] - harmonic[np.maximum(p - 1, 0)]) / g,
                               0.0)
        # Σ_{q=1}^{g-1} q / (p + q) = (g − 1) − p (H(p + g − 1) − H(p)), over g(g − 1) orders
        within = np.where(g > 1, ((g - 1) - p * (harmonic[p + g - 1] - harmonic[p]))
                          / (g * np.maximum(g - 1, 1)), 0.0)
    total = (c * mean_weight + a * within).sum(axis=-1)
    result: Matrix = 2.0 / (m - 1) * total - 1.0
    return result


def _tau_ap_b_half(x: Matrix, y: Matrix) -> Matrix:
    above_y = y[..., None, :] > y[..., :, None]
    above_x = x[..., None, :] > x[..., :, None]
    p = above_y.sum(axis=-1)
    c = (above_y & above_x).sum(axis=-1)
    below = (p > 0).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.where(p > 0, c / np.maximum(p, 1), 0.0).sum(axis=-1)
        half: Matrix = np.where(below > 0, 2.0 * total / below - 1.0, np.nan)
    return half


def tau_ap_b(x: Matrix, y: Matrix) -> Matrix:
    """Urbano and Marrero's tau_AP_b of every row: the mean of the two directions, each the
    mean over the items below the top tie group of the second ranking of 2 c_i / p_i − 1 (c_i
    the items strictly above i in both, p_i those strictly above it in the second)."""
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    result: Matrix = (_tau_ap_b_half(a, b) + _tau_ap_b_half(b, a)) / 2
    return result


def kendall(x: Matrix, y: Matrix) -> tuple[Matrix, Matrix, Matrix]:
    """(tau_b, tau_a, discordant pairs) of every row."""
    m = x.shape[-1]
    sx = np.sign(x[..., None, :] - x[..., :, None])
    sy = np.sign(y[..., None, :] - y[..., :, None])
    pairs = m * (m - 1) / 2
    s = (sx * sy).sum(axis=(-1, -2)) / 2
    tied_x = ((sx == 0).sum(axis=(-1, -2)) - m) / 2
    tied_y = ((sy == 0).sum(axis=(-1, -2)) - m) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        tau_b = s / np.sqrt((pairs - tied_x) * (pairs - tied_y))
    discordant = ((sx * sy) < 0).sum(axis=(-1, -2)) / 2
    return tau_b, s / pairs, discordant


def pearson(x: Matrix, y: Matrix) -> Matrix:
    """Pearson's r of every row (NaN for a constant row)."""
    dx = x - x.mean(axis=-1, keepdims=True)
    dy = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r: Matrix = (dx * dy).sum(axis=-1) / np.sqrt((dx * dx).sum(axis=-1)
                                                     * (dy * dy).sum(axis=-1))
    return r


def spearman(x: Matrix, y: Matrix) -> Matrix:
    """Spearman's rho of every row: Pearson's r of the average ranks."""
    from scipy import stats

    return pearson(stats.rankdata(x, axis=-1), stats.rankdata(y, axis=-1))


def rbo(x: Matrix, y: Matrix, persistence: float = 0.9) -> Matrix:
    """RBO_ext (Webber et al. 2010, eq. 32) of the rankings by x and by y of every row (the same
    m items in both, higher first, ties in item order): (X_m/m)·p^m + (1 − p)/p · Σ_{d=1}^{m}
    (X_d/d)·p^d, X_d the items in both top-d prefixes."""
    m = x.shape[-1]
    rows = np.atleast_2d(x).shape[0]
    ranks_x = np.argsort(np.argsort(-np.atleast_2d(x), axis=-1, kind="stable"), axis=-1)
    ranks_y = np.argsort(np.argsort(-np.atleast_2d(y), axis=-1, kind="stable"), axis=-1)
    deepest = np.maximum(ranks_x, ranks_y)  # 0-based depth at which the item is in both
    flat = (np.arange(rows)[:, None] * m + deepest).ravel()
    overlap = np.cumsum(np.bincount(flat, minlength=rows * m).reshape(rows, m), axis=-1)
    depth = np.arange(1, m + 1)
    powers = persistence ** depth
    value = (overlap[:, -1] / m * persistence ** m
             + (1 - persistence) / persistence * (overlap / depth * powers).sum(axis=-1))
    result: Matrix = value.reshape(np.shape(x)[:-1])
    return result


def statistics(x: Matrix, y: Matrix, persistence: float = 0.9) -> dict[str, Matrix]:
    """Every correlation of :data:`CORRELATIONS` for every row of the run means x (measure_a)
    and y (measure_b)."""
    tau_b, tau_a, _ = kendall(x, y)
    return {"kendall_tau": tau_b, "tau_a": tau_a,
            "tau_ap": tau_ap_a(x, y, truth_ties_correct=True), "tau_ap_a": tau_ap_a(x, y),
            "tau_ap_b": tau_ap_b(x, y), "spearman": spearman(x, y), "pearson": pearson(x, y),
            "rbo": rbo(x, y, persistence)}


def run_means(means: Matrix, geometric: bool) -> Matrix:
    """Run means rounded to :data:`DECIMALS`; with ``geometric`` (``gm_map``: the values are
    logarithms) their exponentials, trec_eval's values."""
    return np.round(np.exp(means) if geometric else means, DECIMALS)


def _block(shared: dict[str, Any], rows: Any) -> dict[tuple[int, int], dict[str, Matrix]]:
    xs: list[Matrix] = shared["xs"]
    means = [run_means(x[rows].sum(axis=1) / x.shape[0], g)
             for x, g in zip(xs, shared["geometric"])]
    return {(i, j): statistics(means[i], means[j], shared["persistence"])
            for i, j in shared["pairs"]}


def agreement_study(scores: Scores, measures: Sequence[str] | None = None, *,
                    resamples: int = 1000, seed: int = 42, persistence: float = 0.9,
                    executor: Executor | None = None, block: int | None = None
                    ) -> list[dict[str, Any]]:
    """One row of :data:`COLUMNS` per pair of measures (in the order given, the first as
    measure_a) over every run of the scores."""
    scores = study_scores(scores)
    names = list(scores.measures if measures is None else measures)
    if len(names) < 2:
        raise InexevalError("agreement needs at least two measures")
    if not 0 < persistence < 1:
        raise InexevalError(f"the RBO persistence {persistence!r} is not between 0 and 1")
    if resamples < 1:
        raise InexevalError(f"the number of resamples must be at least 1, not {resamples}")
    xs = [topics_by_runs(scores, name) for name in names]
    n, m = xs[0].shape
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    size = block or max(1, 2_000_000 // max(1, m * m * len(pairs)))
    rng = np.random.default_rng(seed)
    tasks = [rng.integers(0, n, size=(stop - start, n)) for start, stop in blocks(resamples, size)]
    geometric = [name in geometric_measures([name]) for name in names]
    found = (executor or Serial()).map(_block, tasks, {"xs": xs, "pairs": pairs,
                                                       "persistence": persistence,
                                                       "geometric": geometric},
                                       description="meta agree (bootstrap)")
    rows = []
    for i, j in pairs:
        a, b = (run_means(xs[k].sum(axis=0) / n, geometric[k]) for k in (i, j))
        row = ranking_agreement(a, b, names[i], names[j])._asdict()
        point = statistics(a, b, persistence)
        row.update({name: float(point[name]) for name in ("tau_a", "tau_ap_a", "tau_ap_b",
                                                           "rbo")})
        for name in CORRELATIONS:
            values = np.concatenate([part[(i, j)][name] for part in found])
            values = values[~np.isnan(values)]
            low, high = (np.percentile(values, [2.5, 97.5]).tolist() if len(values)
                         else [math.nan, math.nan])
            row[f"{name}_ci_low"], row[f"{name}_ci_high"] = low, high
        rows.append(row)
    return rows
