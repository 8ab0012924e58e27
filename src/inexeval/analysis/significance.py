"""Paired significance tests, Tukey's HSD and multiple-testing corrections.

Every test takes the per-topic values of two systems on the same topics (or, for the all-pairs
tests, a topics x systems matrix) and returns a :class:`TestResult` with the statistic, the
two-sided p-value and a confidence interval of the mean difference, as scipy.stats does. The
tests follow Smucker, Allan and Carterette (2007), "A comparison of statistical significance
tests for information retrieval evaluation", CIKM; the all-pairs tests Carterette (2012),
"Multiple testing in statistical analysis of systems-based information retrieval experiments",
ACM TOIS 30(1). The corrections are those of statsmodels' ``multipletests``, with the same
numbers, in plain numpy (statsmodels is no dependency).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from inexeval.analysis.choices import CORRECTIONS, WILCOXON_RULES
from inexeval.errors import InexevalError

Array = npt.NDArray[np.float64]

CONFIDENCE = 0.95
"""Level of every confidence interval (the issue fixes it; ``--alpha`` only decides markers)."""

TIE = 1e-12
"""Differences smaller than this in absolute value are ties (wins/ties/losses, sign test)."""

# Monte Carlo tests count a permuted statistic as extreme when it reaches the observed one up to
# rounding (sums of the same numbers in another order differ in the last bits).
_ROUNDING = 1e-9


class TestResult(NamedTuple):
    """The outcome of one test: ``statistic``, two-sided ``p_value`` and a confidence interval
    ``(ci_low, ci_high)`` of the mean difference (``CONFIDENCE``, 95%)."""

    statistic: float
    p_value: float
    ci_low: float
    ci_high: float


def _differences(differences: Sequence[float] | Array) -> Array:
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1 or len(d) == 0:
        raise InexevalError("a paired test needs at least one topic")
    return d


def _all_zero(d: Array) -> bool:
    return bool(np.all(np.abs(d) < TIE))


def constant(differences: Sequence[float] | Array) -> bool:
    """Whether the differences are the same on every topic up to rounding: their range is below
    ``TIE`` (times their mean when that exceeds 1). Their standard deviation is then 0 or
    rounding noise, so the t statistic mean / (sd / sqrt(n)) and the effect size mean / sd are
    undefined (R's ``t.test`` stops: "data are essentially constant"; scipy's ``ttest_rel``
    gives +-inf or a huge t, p = 0, and a precision-loss warning)."""
    return bool(constant_columns(_differences(differences)[:, None])[0])


def constant_columns(differences: Array) -> npt.NDArray[np.bool_]:
    """:func:`constant` of every column of a topics × pairs matrix of differences."""
    spread = np.ptp(differences, axis=0)
    return np.asarray(spread < TIE * np.maximum(1.0, np.abs(differences.mean(axis=0))))


def t_interval(differences: Sequence[float] | Array) -> tuple[float, float]:
    """The 95% Student t confidence interval of the mean difference (NaN for one topic; the
    mean itself when every difference is the same)."""
    d = _differences(differences)
    mean = float(np.mean(d))
    if len(d) < 2:
        return math.nan, math.nan
    half = _t_quantile(len(d) - 1) * float(np.std(d, ddof=1)) / math.sqrt(len(d))
    return mean - half, mean + half


@functools.cache
def _t_quantile(df: int) -> float:
    """The two-sided ``CONFIDENCE`` quantile of Student's t (one per number of topics, reused by
    every comparison)."""
    from scipy import stats

    return float(stats.t.ppf(0.5 + CONFIDENCE / 2, df))


def paired_t(differences: Sequence[float] | Array) -> TestResult:
    """Student's paired t test (scipy's ``ttest_rel``) on the per-topic differences. When every
    difference is zero the two systems are indistinguishable: statistic 0, p 1. With one topic,
    or differences that are the same non-zero number on every topic (:func:`constant`), the
    statistic and p are undefined (NaN), as R's ``t.test`` refuses them ("data are essentially
    constant"); the interval is then the mean difference itself."""
    from scipy import stats

    d = _differences(differences)
    low, high = t_interval(d)
    if _all_zero(d):
        return TestResult(0.0, 1.0, low, high)
    if len(d) < 2 or constant(d):
        return TestResult(math.nan, math.nan, low, high)
    result = stats.ttest_1samp(d, 0.0)
    return TestResult(float(result.statistic), float(result.pvalue), low, high)


def wilcoxon(differences: Sequence[float] | Array, rule: str = "scipy") -> TestResult:
    """Wilcoxon's signed-rank test (Wilcoxon 1945, "Individual comparisons by ranking methods",
    Biometrics Bulletin 1(6); Smucker et al. 2007, §3.2), two-sided. A difference below 1e-12
    in absolute value (a tie of wins/ties/losses) is a zero; zeros are dropped before ranking
    (Wilcoxon's own rule, ``zero_method="wilcox"``), tied |d| take their mid-rank. ``rule``
    (:data:`inexeval.analysis.choices.WILCOXON_RULES`) says how the p-value is found:

    * ``scipy`` (the default): ``scipy.stats.wilcoxon``'s own default (``method="auto"``, no
      continuity correction) exactly: with at most 50 differences (zeros counted), the exact
      null distribution when there are no zeros and no tied |d|, else with at most 13 the
      enumeration of every sign pattern (scipy's permutation test, computed here as one matrix
      product: the same p-value, the statistic's null distribution counted with scipy's
      relative tolerance), else the normal approximation with the tie correction of the
      variance; with more than 50, the normal approximation;
    * ``r``: R's ``wilcox.test`` defaults: the exact p-value when fewer than 50 differences
      remain and there were no zeros and no tied |d|, else the normal approximation with the
      tie correction and the continuity correction (``correct = TRUE``).

    The statistic is the smaller of the two rank sums (scipy's). No non-zero difference:
    statistic 0, p 1."""
    from scipy import stats

    d = _differences(differences)
    low, high = t_interval(d)
    d = np.where(np.abs(d) < TIE, 0.0, d)
    kept = d[d != 0]
    if len(kept) == 0:
        return TestResult(0.0, 1.0, low, high)
    clean = len(kept) == len(d) and len(np.unique(np.abs(kept))) == len(kept)
    if rule == "r":
        exact = clean and len(kept) < 50
        result = stats.wilcoxon(kept, correction=not exact,
                                method="exact" if exact else "asymptotic")
    elif rule == "scipy":
        if not clean and len(d) <= 13:
            return TestResult(*_enumerated_wilcoxon(kept), low, high)
        result = stats.wilcoxon(kept, method="exact" if len(d) <= 50 and clean
                                else "asymptotic")
    else:
        raise InexevalError(f"unknown Wilcoxon rule {rule!r} (known: {', '.join(WILCOXON_RULES)})")
    return TestResult(float(result.statistic), float(result.pvalue), low, high)


def _enumerated_wilcoxon(kept: Array) -> tuple[float, float]:
    """(statistic, p) of scipy's permutation version of the test (at most 13 non-zero
    differences): the positive rank sum under every sign pattern, p twice the smaller tail
    share (at most 1), a value counted in a tail when within 100 machine epsilons (relative)
    of the observed one, as ``scipy.stats.permutation_test`` counts. A zero difference only
    doubles every pattern, so the shares are those of the non-zero differences."""
    from scipy import stats

    ranks = stats.rankdata(np.abs(kept))
    plus = float(ranks[kept > 0].sum())
    m = len(kept)
    patterns = (np.arange(2 ** m)[:, None] >> np.arange(m)) & 1
    null = patterns @ ranks
    gamma = abs(np.finfo(np.float64).eps * 100 * plus)
    less = np.count_nonzero(null <= plus + gamma) / len(null)
    greater = np.count_nonzero(null >= plus - gamma) / len(null)
    total = float(ranks.sum())
    return min(plus, total - plus), float(min(1.0, 2 * min(less, greater)))


def sign(differences: Sequence[float] | Array) -> TestResult:
    """The sign test (Smucker et al. 2007, §3.3): an exact two-sided binomial test (p = 1/2) of
    the wins among the topics that are not ties (|d| >= 1e-12), scipy's ``binomtest`` (in every
    scipy the project allows): ``min(1, 2 P(X <= min(wins, losses)))``, X ~ B(wins + losses,
    1/2). The statistic is the number of wins."""
    from scipy import stats

    d = _differences(differences)
    low, high = t_interval(d)
    wins = int(np.sum(d >= TIE))
    losses = int(np.sum(d <= -TIE))
    if wins + losses == 0:
        return TestResult(0.0, 1.0, low, high)
    p = stats.binomtest(wins, wins + losses, 0.5).pvalue
    return TestResult(float(wins), float(p), low, high)


BLOCK_CELLS = 4_000_000
"""Numbers in one block of sign flips or bootstrap resamples: the randomised and bootstrap
tests run in blocks of replicates, so their memory does not grow with B (and the blocks are
drawn from one generator in order, so the numbers are those of one whole matrix)."""


def _block_rows(n: int) -> int:
    """Replicates per block: at most :data:`BLOCK_CELLS` numbers, a multiple of 4 (numpy draws
    int8 signs four to a 32-bit word, so blocks of 4k rows continue the same stream)."""
    return max(4, BLOCK_CELLS // max(n, 1) // 4 * 4)


def sign_blocks(n: int, permutations: int, seed: int,
                block: int | None = None) -> tuple[Iterator[Array], int, bool]:
    """The sign flips of Fisher's randomisation test for ``n`` topics, in blocks of rows: all
    ``2**n`` of them when that is at most ``permutations`` (exact enumeration; the flag True),
    else ``permutations`` rows of independent fair signs drawn with
    ``numpy.random.default_rng(seed)`` (the same rows whatever the block). Returns the blocks,
    the number of rows and the flag."""
    if permutations < 1:
        raise InexevalError(f"the number of permutations must be at least 1, not {permutations}")
    size = _block_rows(n) if block is None else max(4, block // 4 * 4)
    if n < 63 and 2 ** n <= permutations:
        def enumerated() -> Iterator[Array]:
            for start in range(0, 2 ** n, size):
                codes = (np.arange(start, min(start + size, 2 ** n), dtype=np.int64)[:, None]
                         >> np.arange(n, dtype=np.int64))
                yield (1 - 2 * (codes & 1)).astype(np.float64)
        return enumerated(), 2 ** n, True

    def drawn() -> Iterator[Array]:
        rng = np.random.default_rng(seed)
        for start in range(0, permutations, size):
            flips = rng.integers(0, 2, size=(min(size, permutations - start), n), dtype=np.int8)
            yield (1 - 2 * flips).astype(np.float64)
    return drawn(), permutations, False


def sign_matrix(n: int, permutations: int, seed: int) -> tuple[Array, bool]:
    """The rows of :func:`sign_blocks` as one matrix (for small B; the tests use blocks)."""
    parts, _, exact = sign_blocks(n, permutations, seed)
    return np.vstack(list(parts)), exact


def randomised(differences: Sequence[float] | Array, permutations: int = 10_000,
               seed: int = 42) -> TestResult:
    """Fisher's paired randomisation test (Smucker et al. 2007): under the null hypothesis each
    topic's two values are exchangeable, so the sign of each difference is flipped at random;
    p is the share of sign assignments whose absolute mean difference reaches the observed one,
    ``(c + 1) / (B + 1)`` over ``B = permutations`` random assignments, or exactly ``c / 2**n``
    over all of them when ``2**n <= B``. The statistic is the mean difference; the interval is
    the t interval."""
    d = _differences(differences)
    return randomised_many(d[:, None], permutations, seed)[0]


def randomised_many(differences: Array, permutations: int, seed: int,
                    block: int | None = None) -> list[TestResult]:
    """:func:`randomised` for the columns of a topics x comparisons matrix of differences at
    once, the same sign flips (:func:`sign_blocks`) for every column: one matrix product per
    block of flips, so the memory is that of a block whatever the number of permutations."""
    observed = np.abs(differences.sum(axis=0))
    reach = observed - _ROUNDING * np.maximum(1.0, observed)
    parts, total, exact = sign_blocks(len(differences), permutations, seed, block)
    extreme = np.zeros(differences.shape[1], dtype=np.int64)
    for signs in parts:
        extreme += (np.abs(signs @ differences) >= reach).sum(axis=0)
    out = []
    for column, count in enumerate(extreme.tolist()):
        d = differences[:, column]
        if _all_zero(d):
            p = 1.0
        elif exact:
            p = count / total
        else:
            p = (count + 1) / (total + 1)
        low, high = t_interval(d)
        out.append(TestResult(float(np.mean(d)), p, low, high))
    return out



def bootstrap(differences: Sequence[float] | Array, resamples: int = 10_000,
              seed: int = 42) -> TestResult:
    """The paired bootstrap test of the mean difference, shift method (Efron and Tibshirani
    1993, §16.4; Smucker et al. 2007): the differences are centred on 0 (the null hypothesis)
    and resampled with replacement ``resamples`` times with ``numpy.random.default_rng(seed)``;
    p = (c + 1) / (B + 1) where c counts resampled absolute means reaching the observed one.
    The interval is the percentile interval of the resampled means of the uncentred
    differences (the 2.5th and 97.5th percentiles, numpy's linear interpolation)."""
    if resamples < 1:
        raise InexevalError(f"the number of resamples must be at least 1, not {resamples}")
    d = _differences(differences)
    n = len(d)
    mean = float(np.mean(d))
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    size = _block_rows(n)
    for start in range(0, resamples, size):  # one stream drawn in blocks: memory of a block
        stop = min(start + size, resamples)
        means[start:stop] = d[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    shifted = np.abs(means - mean)
    tail = (1 - CONFIDENCE) / 2
    low, high = np.percentile(means, [100 * tail, 100 * (1 - tail)])
    if _all_zero(d):
        return TestResult(0.0, 1.0, float(low), float(high))
    count = int(np.sum(shifted >= abs(mean) - _ROUNDING * max(1.0, abs(mean))))
    return TestResult(mean, (count + 1) / (resamples + 1), float(low), float(high))


PAIRED = {"t": paired_t, "wilcoxon": wilcoxon, "sign": sign}


class PairResult(NamedTuple):
    """One pair ``(a, b)`` of an all-pairs test: indices of the systems (columns) and the
    result for the difference ``a - b``."""

    a: int
    b: int
    result: TestResult


def _pairs(k: int) -> list[tuple[int, int]]:
    return [(a, b) for a in range(k) for b in range(a + 1, k)]


def _matrix(values: Array) -> Array:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 2 or x.shape[0] < 2:
        raise InexevalError("an all-pairs test needs at least two systems and two topics")
    return x


def tukey_hsd(values: Array) -> list[PairResult]:
    """Tukey's honestly significant difference test over a topics x systems matrix, with the
    residual mean square of the two-way analysis of variance without replication (topics and
    systems as factors, (k - 1)(n - 1) degrees of freedom), as Carterette (2012) §3.2 applies
    it to IR: q = |mean_a - mean_b| / sqrt(MSE / n), p from the studentized range distribution
    with k and (k - 1)(n - 1) degrees of freedom (scipy's ``studentized_range``); the interval
    is Tukey's simultaneous 95% interval, the difference +- q_0.95 sqrt(MSE / n). The statistic
    is q."""
    from scipy import stats

    x = _matrix(values)
    n, k = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    df = (k - 1) * (n - 1)
    scale = math.sqrt(float(np.sum(residual ** 2)) / df / n)
    critical = float(stats.studentized_range.ppf(CONFIDENCE, k, df)) * scale
    means = x.mean(axis=0)
    out = []
    for a, b in _pairs(k):
        delta = float(means[a] - means[b])
        if abs(delta) < TIE:
            q, p = 0.0, 1.0
        elif scale == 0.0:
            q, p = math.inf, 0.0
        else:
            q = abs(delta) / scale
            p = float(stats.studentized_range.sf(q, k, df))
        out.append(PairResult(a, b, TestResult(q, p, delta - critical, delta + critical)))
    return out



def randomised_tukey(values: Array, permutations: int = 10_000, seed: int = 42) -> list[PairResult]:
    """Carterette's (2012, §3.3, Algorithm 1) randomised Tukey HSD over a topics x systems
    matrix: each trial permutes every topic's values across the systems
    (``numpy.random.default_rng(seed)``) and records the range (max minus min) of the system
    means; the p-value of a pair is ``(c + 1) / (B + 1)``, c counting trials whose range reaches
    the pair's absolute mean difference. The statistic is the mean difference; the interval the
    t interval of the pair's differences."""
    if permutations < 1:
        raise InexevalError(f"the number of permutations must be at least 1, not {permutations}")
    x = _matrix(values)
    n, k = x.shape
    rng = np.random.default_rng(seed)
    ranges = np.empty(permutations)
    chunk = max(1, 4_000_000 // (n * k))
    for start in range(0, permutations, chunk):
        size = min(chunk, permutations - start)
        order = np.argsort(rng.random((size, n, k)), axis=2)
        means = np.take_along_axis(np.broadcast_to(x, (size, n, k)), order, axis=2).mean(axis=1)
        ranges[start:start + size] = means.max(axis=1) - means.min(axis=1)
    means = x.mean(axis=0)
    out = []
    for a, b in _pairs(k):
        delta = float(means[a] - means[b])
        low, high = t_interval(x[:, a] - x[:, b])
        if abs(delta) < TIE:
            p = 1.0
        else:
            count = int(np.sum(ranges >= abs(delta) - _ROUNDING * max(1.0, abs(delta))))
            p = (count + 1) / (permutations + 1)
        out.append(PairResult(a, b, TestResult(delta, p, low, high)))
    return out



def adjust(p_values: Sequence[float], correction: str) -> list[float]:
    """p-values corrected for multiple testing, as statsmodels' ``multipletests(p, method=...)``
    returns them: ``bonferroni``; ``holm`` (Holm 1979, step-down); ``holm-sidak`` (step-down
    with Šidák's adjustment); ``fdr_bh`` (Benjamini and Hochberg 1995); ``fdr_by`` (Benjamini
    and Yekutieli 2001); ``none`` leaves them. NaN p-values (undefined tests) are left out of
    the family and stay NaN."""
    if correction not in CORRECTIONS:
        raise InexevalError(f"unknown correction {correction!r} (one of {', '.join(CORRECTIONS)})")
    p = np.asarray(p_values, dtype=np.float64)
    out = p.copy()
    defined = ~np.isnan(p)
    if correction != "none" and defined.any():
        out[defined] = _adjust(p[defined], correction)
    return [float(x) for x in out]


def _adjust(p: Array, correction: str) -> Array:
    m = len(p)
    if correction == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p)
    ranked = p[order]
    if correction == "holm":
        adjusted = np.minimum(np.maximum.accumulate((m - np.arange(m)) * ranked), 1.0)
    elif correction == "holm-sidak":
        with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, corrected p 1
            adjusted = np.maximum.accumulate(-np.expm1(np.arange(m, 0, -1) * np.log1p(-ranked)))
    else:
        factor = np.arange(1, m + 1) / m
        if correction == "fdr_by":
            factor = factor / np.sum(1.0 / np.arange(1, m + 1))
        adjusted = np.minimum(np.minimum.accumulate((ranked / factor)[::-1])[::-1], 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out

