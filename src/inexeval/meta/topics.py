"""Topic-set-size design (Sakai 2016, "Topic set size design", Information Retrieval Journal
19(3); after Nagata 2003): how many topics a test collection needs for a paired t test, a
one-way ANOVA over m systems, or a confidence interval of a given width, from the variance of a
past matrix of scores, with exact power from the noncentral t and F distributions.

V_E = Σ (x_ij − x̄_i· − x̄_·j + x̄)² / ((n − 1)(m − 1)) is the residual mean square of the
two-way ANOVA without replication of the topics × runs matrix (all runs of the input),
reported as ``variance``. Then, for a target power 1 − β at level α (two-sided):

* ``t`` (paired t test, minimum detectable difference ``min_diff``): σ_t² = 2 V_E; topics = the
  smallest n ≥ 2 whose power P(|T| ≥ t_{α/2, n−1}) under the noncentral t with n − 1 degrees
  of freedom and noncentrality √n · min_diff / σ_t reaches 1 − β;
* ``anova`` (m = ``systems``, minimum detectable range ``min_range`` D): the least favourable
  means give the noncentral F with (m − 1, m(n − 1)) degrees of freedom and noncentrality
  λ = n D² / (2 V_E); topics = the smallest n whose power reaches 1 − β;
* ``ci`` (``ci_width``): the smallest n whose expected full width of the 100(1 − α)% interval
  of a paired difference, 2 t_{α/2}(n − 1) · c(n) · √(σ_t² / n) with c(n) = √(2 / (n − 1))
  Γ(n/2) / Γ((n − 1)/2) (the expectation of the sample sd over σ), is at most ``ci_width``.

:func:`power_at` gives the power of the t and ANOVA designs at a given number of topics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from inexeval.errors import InexevalError
from inexeval.scores import Matrix

LIMIT = 1_000_000
"""The largest number of topics searched; a design needing more reports None."""


def residual_variance(x: Matrix) -> float:
    """V_E of a topics × runs matrix: the residual mean square of the two-way ANOVA without
    replication."""
    n, m = x.shape
    if n < 2 or m < 2:
        raise InexevalError(f"the residual variance needs at least two topics and two runs, "
                            f"not {n} and {m}")
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    return float(np.sum(residual * residual) / ((n - 1) * (m - 1)))


def t_power(n: Any, min_diff: float, variance: float, alpha: float) -> Any:
    """Power of the two-sided paired t test at level α with n topics (array or number), σ_t² =
    2 V_E."""
    from scipy import stats

    n = np.asarray(n, dtype=np.float64)
    df = n - 1
    critical = stats.t.isf(alpha / 2, df)
    noncentrality = np.sqrt(n) * min_diff / math.sqrt(2 * variance)
    return stats.nct.sf(critical, df, noncentrality) + stats.nct.cdf(-critical, df,
                                                                     noncentrality)


def anova_power(n: Any, systems: int, min_range: float, variance: float, alpha: float) -> Any:
    """Power of the one-way ANOVA over ``systems`` means at level α with n topics, for the least
    favourable means with range ``min_range``: λ = n D² / (2 V_E)."""
    from scipy import stats

    n = np.asarray(n, dtype=np.float64)
    dfn, dfd = systems - 1, systems * (n - 1)
    critical = stats.f.isf(alpha, dfn, dfd)
    return stats.ncf.sf(critical, dfn, dfd, n * min_range ** 2 / (2 * variance))


def ci_width(n: Any, variance: float, alpha: float) -> Any:
    """The expected full width of the 100(1 − α)% interval of a paired difference with n
    topics."""
    from scipy import special, stats

    n = np.asarray(n, dtype=np.float64)
    c = np.sqrt(2 / (n - 1)) * np.exp(special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
    return 2 * stats.t.isf(alpha / 2, n - 1) * c * np.sqrt(2 * variance / n)


def _smallest(reaches: Any) -> int | None:
    """The smallest n ≥ 2 for which ``reaches(array of n)`` is true, searched in growing
    ranges of n (each range one array call) up to :data:`LIMIT`."""
    low, high = 2, 1000
    while low <= LIMIT:
        n = np.arange(low, min(high, LIMIT) + 1)
        ok = np.asarray(reaches(n))
        if ok.any():
            return int(n[int(np.argmax(ok))])
        low, high = high + 1, high * 10
    return None


@dataclass(frozen=True)
class Design:
    """One row of ``meta topics``: the keys of its ``design`` table."""

    measure: str
    test: str
    alpha: float
    power: float | None
    min_diff: float | None
    systems: int | None
    ci_width: float | None
    variance: float
    topics: int | None

    def row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def design(measure: str, x: Matrix, *, alpha: float = 0.05, power: float = 0.8,
           min_diff: float | None = None, systems: int | None = None,
           min_range: float | None = None, width: float | None = None) -> list[Design]:
    """The topic-set sizes of one measure (its topics × runs matrix ``x``) for each design
    whose parameters are given: ``min_diff`` (t), ``systems`` and ``min_range`` (anova, the
    range defaulting to ``min_diff``), ``width`` (ci)."""
    variance = residual_variance(x)
    out = []
    if min_diff is not None:
        out.append(Design(measure, "t", alpha, power, min_diff, None, None, variance,
                          _smallest(lambda n: t_power(n, min_diff, variance, alpha) >= power)))
    if systems is not None:
        d = min_range if min_range is not None else min_diff
        if d is None:
            raise InexevalError("the ANOVA design needs --min-range (or --min-diff)")
        if systems < 2:
            raise InexevalError(f"the ANOVA design needs at least 2 systems, not {systems}")
        out.append(Design(measure, "anova", alpha, power, d, systems, None, variance,
                          _smallest(lambda n: anova_power(n, systems, d, variance, alpha)
                                    >= power)))
    if width is not None:
        out.append(Design(measure, "ci", alpha, None, None, None, width, variance,
                          _smallest(lambda n: ci_width(n, variance, alpha) <= width)))
    return out


def power_at(measure: str, x: Matrix, topics: int, *, alpha: float = 0.05,
             min_diff: float | None = None, systems: int | None = None,
             min_range: float | None = None) -> list[dict[str, Any]]:
    """The power of the t and ANOVA designs at ``topics`` topics: rows with the keys of ``meta
    topics --topics N``'s ``power`` table."""
    if topics < 2:
        raise InexevalError(f"--topics needs at least 2 topics, not {topics}")
    variance = residual_variance(x)
    rows = []
    if min_diff is not None:
        rows.append({"measure": measure, "test": "t", "topics": topics, "min_diff": min_diff,
                     "power": float(t_power(topics, min_diff, variance, alpha))})
    d = min_range if min_range is not None else min_diff
    if systems is not None and d is not None:
        rows.append({"measure": measure, "test": "anova", "topics": topics, "min_diff": d,
                     "power": float(anova_power(topics, systems, d, variance, alpha))})
    return rows
