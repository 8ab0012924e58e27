"""The paired tests, Tukey's HSD and the corrections against scipy and statsmodels."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from inexeval.analysis import significance as sig
from inexeval.analysis.compare import compare_scores
from inexeval.errors import InexevalError
from inexeval.scores import Scores


def _pair(n: int, shift: float = 0.03, rounding: int | None = None,
          seed: int = 2008) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic values of a baseline and a slightly better run (seeded: tests do not depend on
    each other's draws)."""
    rng = np.random.default_rng(seed + n)
    base = rng.uniform(0, 1, n)
    other = np.clip(base + shift + rng.normal(0, 0.1, n), 0, 1)
    if rounding is not None:
        base, other = base.round(rounding), other.round(rounding)
    return other, base


@pytest.mark.parametrize("n", [2, 5, 20, 107])
def test_t_equals_scipy_ttest_rel(n: int) -> None:
    a, b = _pair(n)
    ours = sig.paired_t(a - b)
    ref = stats.ttest_rel(a, b)
    assert ours.statistic == pytest.approx(ref.statistic, abs=1e-9)
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-9)
    low, high = ref.confidence_interval(0.95)
    assert (ours.ci_low, ours.ci_high) == pytest.approx((low, high), abs=1e-9)


def _exact_wilcoxon(d: np.ndarray) -> tuple[float, float]:
    """The two-sided exact p-value by enumeration of the 2^n sign patterns of the ranks 1..n
    (no zeros, no ties): twice the share of patterns whose positive rank sum is at most the
    smaller observed rank sum (at most 1)."""
    ranks = np.argsort(np.argsort(np.abs(d))) + 1
    plus = float(ranks[d > 0].sum())
    smaller = min(plus, len(d) * (len(d) + 1) / 2 - plus)
    at_most = sum(sum(r for r, s in zip(ranks.tolist(), signs) if s) <= smaller
                  for signs in itertools.product((0, 1), repeat=len(d)))
    return smaller, min(1.0, 2 * at_most / 2 ** len(d))


def _normal_wilcoxon(d: np.ndarray, continuity: bool = False) -> tuple[float, float]:
    """The normal approximation worked from its formula: zeros dropped, mid-ranks for tied
    |d|, mean n(n+1)/4, variance n(n+1)(2n+1)/24 - sum(t^3 - t)/48; ``continuity``: |z|
    lessened by 0.5 (R's ``correct = TRUE``)."""
    d = d[d != 0]
    n = len(d)
    magnitudes = np.abs(d)
    ranks = np.array([np.mean(np.flatnonzero(np.sort(magnitudes) == m)) + 1 for m in magnitudes])
    plus = float(ranks[d > 0].sum())
    smaller = min(plus, n * (n + 1) / 2 - plus)
    ties = np.unique(magnitudes, return_counts=True)[1]
    variance = n * (n + 1) * (2 * n + 1) / 24 - float(np.sum(ties ** 3 - ties)) / 48
    distance = abs(smaller - n * (n + 1) / 4) - (0.5 if continuity else 0.0)
    return smaller, min(1.0, math.erfc(distance / math.sqrt(variance) / math.sqrt(2)))


# Issue 32, item 13: twelve topics, one zero difference (and tied |d|)
TWELVE = np.array([0.3, -0.25, 0.25, 0.3, -0.2, -0.05, 0.1, -0.25, -0.45, 0.1, 0.4, 0.0])


def test_wilcoxon_hand_worked() -> None:
    # ranks 1..5 positive, 6 negative: T = 6; 14 of the 64 patterns have a sum <= 6 (0, 1, 2,
    # 3 twice, 4 twice, 5 three times, 6 four times): p = 28/64, under either rule
    for rule in ("scipy", "r"):
        result = sig.wilcoxon([0.01, 0.02, 0.03, 0.04, 0.05, -0.06], rule)
        assert (result.statistic, result.p_value) == (6.0, 28 / 64)
    # a zero and two tied |d| (mid-rank 1.5): n = 5, T = 4. R: the normal approximation, mean
    # 7.5, variance 13.75 - 6/48, |z| = (3.5 - 0.5) / sqrt(13.625), p = 0.416366; scipy: with
    # at most 13 differences, every sign pattern of the ranks 1.5 1.5 3 4 5: 6 of the 32 have
    # a positive sum <= 4 (none, either 1.5, both, 3, 4), p = 2 * 6/32 = 0.375
    d = [0.01, 0.01, 0.02, -0.03, 0.04, 0.0]
    r = sig.wilcoxon(d, "r")
    assert r.statistic == 4.0
    assert r.p_value == pytest.approx(math.erfc(3.0 / math.sqrt(13.625) / math.sqrt(2)),
                                      abs=1e-15)
    assert r.p_value == pytest.approx(0.4163657, abs=1e-7)
    ranks = [1.5, 1.5, 3, 4, 5]
    at_most = sum(sum(x for x, s in zip(ranks, signs) if s) <= 4
                  for signs in itertools.product((0, 1), repeat=5))
    assert at_most == 6
    assert sig.wilcoxon(d).p_value == pytest.approx(2 * at_most / 32, abs=1e-15)
    assert sig.wilcoxon(d).p_value == pytest.approx(stats.wilcoxon(d).pvalue, abs=1e-15)


def test_twelve_topics_with_one_zero_are_scipys() -> None:
    """Issue 32, item 13: one zero among 12 differences no longer sends the default to the
    normal approximation (0.6557 here): scipy's wilcoxon says 0.6953, and so does compare."""
    assert stats.wilcoxon(TWELVE).pvalue == pytest.approx(0.6953, abs=5e-5)
    assert sig.wilcoxon(TWELVE).p_value == pytest.approx(stats.wilcoxon(TWELVE).pvalue,
                                                          abs=1e-15)
    assert sig.wilcoxon(TWELVE, "r")[:2] == pytest.approx(_normal_wilcoxon(TWELVE, True),
                                                         abs=1e-12)
    values = np.stack([TWELVE, np.zeros(12)])[:, :, None]
    scores = Scores(("a", "b"), tuple(str(t) for t in range(12)), ("M",), values,
                    np.ones((2, 12), dtype=bool), "all")
    [row] = compare_scores(scores, tests=["wilcoxon"]).rows
    assert row.p_value == pytest.approx(0.6953, abs=5e-5)


@pytest.mark.parametrize("n", [1, 2, 9, 14, 49, 50])
def test_wilcoxon_exact_equals_scipy_and_enumeration(n: int) -> None:
    a, b = _pair(n)
    d = a - b
    assert len(np.unique(np.abs(d))) == n and (d != 0).all()
    assert sig.wilcoxon(d)[:2] == pytest.approx(tuple(stats.wilcoxon(d)), abs=1e-12)
    if n <= 14:
        assert sig.wilcoxon(d)[:2] == pytest.approx(_exact_wilcoxon(d), abs=1e-12)


def test_r_uses_the_normal_approximation_from_50_differences() -> None:
    """R's exact = (n < 50): at 50 differences without ties or zeros scipy is exact, R is
    normal with continuity correction (the old docstring said "as R" while exact at 50)."""
    a, b = _pair(50)
    d = a - b
    exact = sig.wilcoxon(d)
    assert exact[:2] == pytest.approx(tuple(stats.wilcoxon(d, method="exact")), abs=1e-12)
    assert sig.wilcoxon(d, "r")[:2] == pytest.approx(_normal_wilcoxon(d, True), abs=1e-12)
    assert sig.wilcoxon(d[:49], "r")[:2] == pytest.approx(
        tuple(stats.wilcoxon(d[:49], method="exact")), abs=1e-12)


@pytest.mark.parametrize("n, rounding, zeros", [(51, None, 0), (107, None, 0), (30, 1, 0),
                                               (12, 1, 0), (8, 2, 0), (13, 1, 1), (14, None, 1),
                                               (20, 2, 2), (50, None, 1), (51, 1, 1)])
def test_wilcoxon_default_is_scipys(n: int, rounding: int | None, zeros: int) -> None:
    """With ties or zeros: enumeration up to 13 differences, the normal approximation (no
    continuity correction) above; above 50 the normal approximation: whatever scipy's own
    default decides, the same numbers; R's rule is the corrected normal approximation."""
    a, b = _pair(n, rounding=rounding)
    d = np.round(a - b, 6)
    d[:zeros] = 0.0
    assert n > 50 or len(np.unique(np.abs(d))) < n or (d == 0).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = stats.wilcoxon(d)
    assert sig.wilcoxon(d)[:2] == pytest.approx(tuple(reference), abs=1e-12)
    if n > 13:
        assert sig.wilcoxon(d)[:2] == pytest.approx(_normal_wilcoxon(d), abs=1e-12)
    assert sig.wilcoxon(d, "r")[:2] == pytest.approx(_normal_wilcoxon(d, True), abs=1e-12)


def test_a_difference_below_1e12_is_a_zero() -> None:
    d = np.array([0.3, -0.1, 0.25, 0.05, 0.4, -0.2, 0.15, 0.35, 0.45, 0.55, -0.02, 0.6, 0.7, 0.8])
    with_zeros = sig.wilcoxon(np.concatenate([d, [0.0, 0.0]]))
    assert with_zeros[:2] == pytest.approx(tuple(stats.wilcoxon(np.concatenate([d, [0, 0]]))),
                                           abs=1e-12)
    assert sig.wilcoxon(np.concatenate([d, [1e-15, 0.0]]))[:2] == with_zeros[:2]
    with pytest.raises(InexevalError, match="unknown Wilcoxon rule"):
        sig.wilcoxon(d, "R")


@pytest.mark.parametrize("n", [1, 7, 40])
def test_sign_equals_the_binomial_sum(n: int) -> None:
    a, b = _pair(n, rounding=1)
    d = a - b
    wins, losses = int(np.sum(d > 1e-12)), int(np.sum(d < -1e-12))
    ours = sig.sign(d)
    tail = sum(math.comb(wins + losses, k) for k in range(min(wins, losses) + 1))
    expected = min(1.0, 2 * tail / 2 ** (wins + losses)) if wins + losses else 1.0
    assert ours.p_value == pytest.approx(expected, abs=1e-12)
    assert ours.statistic == wins


def test_sign_hand_worked() -> None:
    # 9 wins, 1 loss, 2 ties: p = 2 * (C(10,0) + C(10,1)) / 2^10 = 22 / 1024
    d = [0.1] * 9 + [-0.2] + [0.0, 0.0]
    assert sig.sign(d).p_value == pytest.approx(22 / 1024, abs=1e-12)


def _exact_randomisation(d: np.ndarray) -> float:
    observed = abs(d.sum())
    count = sum(abs(np.dot(signs, d)) >= observed - 1e-9
                for signs in itertools.product((1, -1), repeat=len(d)))
    return count / 2 ** len(d)


def test_randomised_enumerates_exactly_when_2n_le_b() -> None:
    a, b = _pair(10)
    d = a - b
    assert sig.randomised(d, permutations=1024).p_value == pytest.approx(_exact_randomisation(d),
                                                                         abs=1e-12)
    # hand-worked: d = (1, 2, 3): of the 8 sign patterns only +++ and --- reach |6|
    assert sig.randomised([1.0, 2.0, 3.0]).p_value == pytest.approx(2 / 8)


def test_randomised_monte_carlo_within_error_of_exact() -> None:
    a, b = _pair(15, shift=0.02)
    d = a - b
    exact = _exact_randomisation(d)
    B = 20_000
    p = sig.randomised(d, permutations=B, seed=7).p_value
    assert abs(p - exact) < 4 * math.sqrt(exact * (1 - exact) / B) + 1 / B


def test_randomised_is_seeded_and_reproducible() -> None:
    a, b = _pair(40)
    first = sig.randomised(a - b, permutations=2000, seed=3)
    assert sig.randomised(a - b, permutations=2000, seed=3) == first
    assert sig.randomised(a - b, permutations=2000, seed=4).p_value != first.p_value


def test_randomised_p_is_c_plus_one_over_b_plus_one() -> None:
    d = np.full(30, 0.5)  # only the identity (and its negation) can reach the observed sum
    signs, exact = sig.sign_matrix(30, 999, 42)
    count = int(np.sum(np.abs(signs @ d) >= 15.0 - 1e-9))
    assert not exact
    assert sig.randomised(d, permutations=999).p_value == (count + 1) / 1000


def test_bootstrap_shift_method_and_percentile_interval() -> None:
    a, b = _pair(30)
    d = a - b
    B = 3000
    result = sig.bootstrap(d, B, seed=11)
    rng = np.random.default_rng(11)
    means = d[rng.integers(0, len(d), size=(B, len(d)))].mean(axis=1)
    count = int(np.sum(np.abs(means - d.mean()) >= abs(d.mean())))
    assert result.p_value == pytest.approx((count + 1) / (B + 1), abs=1e-12)
    assert (result.ci_low, result.ci_high) == pytest.approx(
        tuple(np.percentile(means, [2.5, 97.5])), abs=1e-12)
    assert result == sig.bootstrap(d, B, seed=11)
    # scipy's percentile bootstrap interval uses other draws: close, not equal
    ref = stats.bootstrap((d,), np.mean, n_resamples=B, method="percentile",
                          random_state=np.random.default_rng(11)).confidence_interval
    assert abs(result.ci_low - ref.low) < 0.02 and abs(result.ci_high - ref.high) < 0.02


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomised", "bootstrap"])
def test_a_run_against_itself_has_p_one(test: str) -> None:
    d = np.zeros(25)
    result = (sig.randomised(d) if test == "randomised" else sig.bootstrap(d)
              if test == "bootstrap" else sig.PAIRED[test](d))
    assert result.p_value == 1.0
    assert result.ci_low == pytest.approx(0) and result.ci_high == pytest.approx(0)


@pytest.mark.parametrize("differences", [
    [0.08, 0.08, 0.08],
    np.array([0.3, 0.22, 0.4]) - np.array([0.22, 0.14, 0.32]),  # 0.08 up to rounding
    [-250.5] * 7,
])
def test_t_on_constant_differences_is_undefined_without_warning(differences: object) -> None:
    # scipy's ttest_rel warns of catastrophic cancellation and gives p = 0 here; R's t.test
    # stops with "data are essentially constant"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = sig.paired_t(differences)  # type: ignore[arg-type]
    assert sig.constant(differences)  # type: ignore[arg-type]
    assert math.isnan(result.statistic) and math.isnan(result.p_value)
    mean = float(np.mean(differences))  # type: ignore[call-overload]
    assert (result.ci_low, result.ci_high) == pytest.approx((mean, mean), abs=1e-12)


def test_differences_that_vary_are_not_constant() -> None:
    assert not sig.constant([0.08, 0.08, 0.08 + 1e-9])
    assert not math.isnan(sig.paired_t([0.08, 0.08, 0.08 + 1e-9]).p_value)


def _two_way_mse(x: np.ndarray) -> float:
    """The residual mean square of topics + systems, from statsmodels' OLS ANOVA."""
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    n, k = x.shape
    frame = pd.DataFrame({"value": x.reshape(-1), "topic": np.repeat(np.arange(n), k),
                          "system": np.tile(np.arange(k), n)})
    table = anova_lm(smf.ols("value ~ C(topic) + C(system)", data=frame).fit())
    return float(table.loc["Residual", "mean_sq"])


def test_tukey_hsd_equals_studentized_range_over_two_way_anova() -> None:
    n, k = 25, 4
    rng = np.random.default_rng(102)
    x = rng.uniform(0, 1, (n, 1)) + np.array([0.0, 0.02, 0.08, 0.15]) + rng.normal(0, 0.1, (n, k))
    mse = _two_way_mse(x)
    df = (k - 1) * (n - 1)
    scale = math.sqrt(mse / n)
    critical = stats.studentized_range.ppf(0.95, k, df) * scale
    means = x.mean(axis=0)
    results = sig.tukey_hsd(x)
    assert [(r.a, r.b) for r in results] == list(itertools.combinations(range(k), 2))
    for r in results:
        delta = means[r.a] - means[r.b]
        q = abs(delta) / scale
        assert r.result.statistic == pytest.approx(q, abs=1e-9)
        assert r.result.p_value == pytest.approx(stats.studentized_range.sf(q, k, df), abs=1e-9)
        assert r.result.ci_low == pytest.approx(delta - critical, abs=1e-9)
        assert r.result.ci_high == pytest.approx(delta + critical, abs=1e-9)


def test_randomised_tukey_follows_tukey_hsd_and_is_reproducible() -> None:
    # near the null hypothesis (the permutations mix in the systems' real differences, so the
    # two tests part ways as the differences grow)
    n, k = 30, 4
    rng = np.random.default_rng(104)
    x = rng.uniform(0, 1, (n, 1)) + np.array([0.0, 0.0, 0.01, 0.02]) + rng.normal(0, 0.1, (n, k))
    tukey = sig.tukey_hsd(x)
    randomised = sig.randomised_tukey(x, 3000, seed=5)
    assert randomised == sig.randomised_tukey(x, 3000, seed=5)
    for parametric, permuted in zip(tukey, randomised):
        assert abs(parametric.result.p_value - permuted.result.p_value) < 0.05
        assert permuted.result.statistic == pytest.approx(x[:, permuted.a].mean()
                                                          - x[:, permuted.b].mean())
    # a larger difference never gets a larger p-value
    ordered = sorted(randomised, key=lambda r: abs(r.result.statistic))
    ps = [r.result.p_value for r in ordered]
    assert ps == sorted(ps, reverse=True)


def test_randomised_tukey_within_monte_carlo_error_of_exact_enumeration() -> None:
    x = np.array([[0.1, 0.5, 0.3], [0.2, 0.6, 0.25], [0.0, 0.4, 0.45], [0.3, 0.35, 0.2]])
    n, k = x.shape
    ranges = []
    for orders in itertools.product(itertools.permutations(range(k)), repeat=n):
        means = np.mean([x[i, list(order)] for i, order in enumerate(orders)], axis=0)
        ranges.append(means.max() - means.min())
    B = 20_000
    for pair in sig.randomised_tukey(x, B, seed=9):
        delta = abs(x[:, pair.a].mean() - x[:, pair.b].mean())
        exact = float(np.mean(np.array(ranges) >= delta - 1e-9))
        error = 4 * math.sqrt(exact * (1 - exact) / B) + 2 / B
        assert abs(pair.result.p_value - exact) < error


def test_all_pairs_of_identical_systems_have_p_one() -> None:
    x = np.repeat(np.random.default_rng(105).uniform(0, 1, (10, 1)), 3, axis=1)
    assert all(r.result.p_value == 1.0 for r in sig.tukey_hsd(x))
    assert all(r.result.p_value == 1.0 for r in sig.randomised_tukey(x, 100))


@pytest.mark.parametrize("correction, method", [
    ("bonferroni", "bonferroni"), ("holm", "holm"), ("holm-sidak", "holm-sidak"),
    ("fdr_bh", "fdr_bh"), ("fdr_by", "fdr_by")])
def test_corrections_equal_statsmodels(correction: str, method: str) -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(106)
    for p in (rng.uniform(0, 0.2, 17), np.array([0.01, 0.01, 0.04, 0.04, 0.3, 0.9, 1.0]),
              np.array([0.5]), rng.uniform(0, 1, 100)):
        with np.errstate(divide="ignore"):  # statsmodels' holm-sidak takes log(0) at p = 1
            expected = multipletests(p, method=method)[1]
        assert sig.adjust(p.tolist(), correction) == pytest.approx(expected.tolist(), abs=1e-9)


def test_correction_leaves_undefined_p_values_out() -> None:
    from statsmodels.stats.multitest import multipletests

    adjusted = sig.adjust([0.01, math.nan, 0.04], "holm")
    assert math.isnan(adjusted[1])
    assert [adjusted[0], adjusted[2]] == pytest.approx(
        multipletests([0.01, 0.04], method="holm")[1].tolist(), abs=1e-12)
    assert sig.adjust([0.2, 0.03], "none") == [0.2, 0.03]


def test_bad_requests() -> None:
    with pytest.raises(InexevalError, match="unknown correction"):
        sig.adjust([0.1], "sidak")
    with pytest.raises(InexevalError, match="at least 1"):
        sig.randomised([0.1, 0.2], permutations=0)
    with pytest.raises(InexevalError, match="at least 1"):
        sig.bootstrap([0.1, 0.2], 0)
    with pytest.raises(InexevalError, match="at least one topic"):
        sig.paired_t([])


@pytest.mark.parametrize("n", [7, 13, 31])
def test_randomised_and_bootstrap_blocks_change_no_number(monkeypatch, n: int) -> None:
    rng = np.random.default_rng(n)
    d = np.round(rng.random(n) - 0.45, 2)
    whole = (sig.randomised(d, 3000, seed=2), sig.bootstrap(d, 3000, seed=2))
    many = np.column_stack([d, -d[::-1], np.round(rng.random(n) - 0.5, 1)])
    together = sig.randomised_many(many, 3000, 2)
    for cells in (1, 40, 1000):  # blocks of 4 rows and more (and the enumeration for n = 7)
        monkeypatch.setattr(sig, "BLOCK_CELLS", cells)
        assert (sig.randomised(d, 3000, seed=2), sig.bootstrap(d, 3000, seed=2)) == whole
        assert sig.randomised_many(many, 3000, 2, block=cells) == together
    signs, exact = sig.sign_matrix(n, 3000, 2)
    if n == 7:  # 128 sign patterns: all of them
        assert exact and len(signs) == 128 and len({tuple(r) for r in signs.tolist()}) == 128
        return
    assert not exact and len(signs) == 3000
    assert (signs == 1 - 2 * np.random.default_rng(2).integers(0, 2, size=(3000, n),
                                                               dtype=np.int8)).all()
