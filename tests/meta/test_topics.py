"""Topic-set-size design: power against statsmodels, variance against the two-way ANOVA by
hand, sizes as the smallest n reaching the target."""

import math

import numpy as np
import pytest
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from inexeval.meta.topics import (
    anova_power,
    ci_width,
    design,
    power_at,
    residual_variance,
    t_power,
)


def test_residual_variance_of_a_worked_matrix() -> None:
    x = np.array([[0.2, 0.4], [0.5, 0.5], [0.1, 0.6]])
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0) + x.mean()
    assert residual_variance(x) == pytest.approx(float((residual ** 2).sum()) / 2, abs=1e-15)
    # residuals ±.01667, ±.11667, ±.13333: 2 · (.000278 + .013611 + .017778) / 2 = .19 / 6
    assert residual_variance(x) == pytest.approx(0.19 / 6, abs=1e-12)


@pytest.mark.parametrize(("n", "diff", "variance", "alpha"),
                         [(10, 0.05, 0.01, 0.05), (50, 0.02, 0.004, 0.01), (3, 0.3, 0.02, 0.1)])
def test_t_power_is_statsmodels(n: int, diff: float, variance: float, alpha: float) -> None:
    expected = TTestPower().power(effect_size=diff / math.sqrt(2 * variance), nobs=n,
                                  alpha=alpha, alternative="two-sided")
    assert float(t_power(n, diff, variance, alpha)) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("n", "m", "d", "variance"), [(20, 5, 0.1, 0.01), (100, 30, 0.05, 0.02)])
def test_anova_power_is_statsmodels(n: int, m: int, d: float, variance: float) -> None:
    # statsmodels: noncentrality f^2 * nobs with nobs = m n; here n D^2 / (2 V_E)
    f = math.sqrt(d * d / (2 * m * variance))
    expected = FTestAnovaPower().power(effect_size=f, nobs=m * n, alpha=0.05, k_groups=m)
    assert float(anova_power(n, m, d, variance, 0.05)) == pytest.approx(expected, abs=1e-9)


def test_designs_are_the_smallest_sizes_reaching_the_target() -> None:
    rng = np.random.default_rng(2)
    x = rng.random((30, 8)) * 0.5 + rng.random(8) * 0.3
    rows = design("AP", x, alpha=0.05, power=0.8, min_diff=0.05, systems=8, min_range=0.1,
                  width=0.1)
    variance = residual_variance(x)
    t, anova, ci = rows
    assert t.test == "t" and t_power(t.topics, 0.05, variance, 0.05) >= 0.8
    assert t_power(t.topics - 1, 0.05, variance, 0.05) < 0.8
    assert anova_power(anova.topics, 8, 0.1, variance, 0.05) >= 0.8
    assert anova_power(anova.topics - 1, 8, 0.1, variance, 0.05) < 0.8
    assert ci_width(ci.topics, variance, 0.05) <= 0.1 < ci_width(ci.topics - 1, variance, 0.05)
    assert t.variance == anova.variance == ci.variance == variance
    at = power_at("AP", x, t.topics, min_diff=0.05, systems=8, min_range=0.1)
    assert at[0]["power"] == pytest.approx(float(t_power(t.topics, 0.05, variance, 0.05)))
    assert [r["test"] for r in at] == ["t", "anova"]


def test_ci_width_constant_is_the_expected_sd() -> None:
    # c(n) = E[s] / sigma for normal samples: c(2) = sqrt(2/pi)
    width = float(ci_width(2, 0.5, 0.05))
    from scipy import stats

    assert width == pytest.approx(2 * stats.t.isf(0.025, 1) * math.sqrt(2 / math.pi)
                                  * math.sqrt(1.0 / 2), abs=1e-12)
