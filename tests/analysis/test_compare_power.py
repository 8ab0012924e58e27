"""``compare --power``: each comparison's achieved power (Sakai 2016), against statsmodels'
TTestPower on the same effect size, by hand, and from the command line in every format."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower
from tests.helpers import DATA, needs_shared
from tests.meta.test_power import make_scores

from inexeval.analysis.compare import compare_scores
from inexeval.cli import main
from inexeval.comparison import COLUMNS, POWER_COLUMNS
from inexeval.meta.topics import residual_variance
from inexeval.report.comparison import render_comparison
from inexeval.scores import Scores

IPCS = DATA / "ipcs"
RUNS = [IPCS / "bert_inex_converted_1.run", IPCS / "bert1_incontext.run",
        IPCS / "bert1_bestincontext.run"]


@pytest.mark.parametrize("all_pairs", [False, True])
def test_power_equals_statsmodels(all_pairs: bool) -> None:
    scores = make_scores(runs=4, topics=25, measures=2)
    compared = compare_scores(scores, tests=["t", "wilcoxon"], all_pairs=all_pairs, alpha=0.05,
                              power=True)
    assert compared.columns == POWER_COLUMNS == (*COLUMNS, "power")
    for row in compared.rows:
        a, b = (scores.values[scores.runs.index(r), :, scores.measures.index(row.measure)]
                for r in (row.run, row.baseline))
        d = (a - b).mean() / (a - b).std(ddof=1)
        assert row.effect_size == pytest.approx(d, rel=1e-12)
        expected = TTestPower().power(effect_size=d, nobs=row.n_topics, alpha=0.05,
                                      alternative="two-sided")
        assert row.power == pytest.approx(expected, abs=1e-9)
    # the power of a comparison is the same whatever the test that made it
    by_pair: dict[tuple[str, str, str], set[float]] = {}
    for row in compared.rows:
        by_pair.setdefault((row.measure, row.run, row.baseline), set()).add(row.power)
    assert all(len(powers) == 1 for powers in by_pair.values())


def test_a_pair_s_power_is_that_of_its_own_effect_size() -> None:
    """Issue 32, item 9: n = 10, four runs, r0 - r3 with effect size -0.527: the achieved
    power is that of the pair's own d (statsmodels' TTestPower, R's pwr.t.test(type =
    "paired"): 0.320), not that of sigma^2 = 2 V_E pooled over the four runs (0.198 in the
    review's input; here the runs r1 and r2 make V_E larger still)."""
    rng = np.random.default_rng(7)
    z = rng.normal(size=10)
    d = 0.1 * ((z - z.mean()) / z.std(ddof=1) - 0.527)  # mean / sd = -0.527 exactly
    base = rng.random(10) * 0.5 + 0.2
    values = np.stack([base + d, base + rng.normal(0, 0.2, 10), base + rng.normal(0, 0.3, 10),
                       base])[:, :, None]
    scores = Scores(("r0", "r1", "r2", "r3"), tuple(str(i) for i in range(10)), ("M",), values,
                    np.ones(values.shape[:2], dtype=bool), "all")
    row = next(r for r in compare_scores(scores, all_pairs=True, power=True).rows
               if (r.run, r.baseline) == ("r0", "r3"))
    assert row.effect_size == pytest.approx(-0.527, abs=1e-12)
    assert row.power == pytest.approx(TTestPower().power(effect_size=-0.527, nobs=10,
                                                          alpha=0.05), abs=1e-12)
    assert row.power == pytest.approx(0.3197, abs=5e-5)
    pooled = 2 * residual_variance(values[:, :, 0].T)
    assert abs(row.delta) / math.sqrt(pooled) < 0.527 / 2  # the pooled sigma would say less


def test_power_by_hand() -> None:
    # two runs: 2 V_E = var(d), so the noncentrality is the observed paired t statistic
    d = np.array([0.10, 0.25, -0.05, 0.30, 0.15, 0.05, 0.20, 0.00])
    base = np.linspace(0.2, 0.6, len(d))
    values = np.stack([base, base + d])[:, :, None]
    scores = Scores(("a", "b"), tuple(str(i) for i in range(len(d))), ("M",), values,
                    np.ones(values.shape[:2], dtype=bool), "all")
    row = compare_scores(scores, power=True, alpha=0.05).rows[0]
    n = len(d)
    t = stats.ttest_rel(base + d, base).statistic
    critical = stats.t.isf(0.025, n - 1)
    expected = stats.nct.sf(critical, n - 1, t) + stats.nct.cdf(-critical, n - 1, t)
    assert row.power == pytest.approx(expected, abs=1e-12)
    assert 0.5 < row.power < 1  # t = 2.98 on 7 degrees of freedom
    # no difference: the power is the level itself
    same = Scores(("a", "b"), scores.topics, ("M",), np.stack([base, base])[:, :, None],
                  scores.included(), "all")
    noisy = np.stack([base, base[::-1]])[:, :, None]  # mean difference 0, V_E > 0
    row = compare_scores(Scores(("a", "b"), scores.topics, ("M",), noisy, scores.included(),
                                "all"), power=True, alpha=0.1).rows[0]
    assert row.delta == pytest.approx(0, abs=1e-15)
    assert row.power == pytest.approx(0.1, abs=1e-9)
    # identical runs: effect size 0, the power is the level; a constant non-zero
    # difference: effect size undefined, and so the power
    assert compare_scores(same, power=True).rows[0].power == pytest.approx(0.05, abs=1e-12)
    shifted = Scores(("a", "b"), scores.topics, ("M",), np.stack([base + 0.1, base])[:, :, None],
                     scores.included(), "all")
    assert math.isnan(compare_scores(shifted, power=True).rows[0].power)


def test_without_power_no_column() -> None:
    compared = compare_scores(make_scores(runs=3, topics=10, measures=1))
    assert compared.columns == COLUMNS and "power" not in COLUMNS
    assert all(math.isnan(row.power) for row in compared.rows)
    assert list(json.loads(render_comparison(compared, "json"))[0]) == list(COLUMNS)
    assert "power" not in render_comparison(compared, "table")
    assert "power" not in compared.to_dict()["rows"][0]


@needs_shared
def test_compare_power_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    common = ["compare", str(IPCS / "INEX_Qrels.txt"), *map(str, RUNS), "--task", "focused",
              "-c", "--power"]
    assert main([*common, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert list(rows[0]) == [*COLUMNS, "power"]
    assert all(0 < row["power"] <= 1 for row in rows)
    assert main([*common, "--format", "csv"]) == 0
    table = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert table[0] == [*COLUMNS, "power"]
    assert [float(r[-1]) for r in table[1:]] == [row["power"] for row in rows]
    for fmt in ("table", "markdown", "latex"):
        assert main([*common, "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "achieved power" in out and "t / sqrt(n)" in out
        assert f"{rows[0]['power']:.4f}" in out


def test_csv_rows_have_the_columns_of_the_header() -> None:
    compared = compare_scores(make_scores(runs=3, topics=10, measures=1))
    table = list(csv.reader(io.StringIO(render_comparison(compared, "csv"))))
    assert all(len(row) == len(COLUMNS) for row in table)


@needs_shared
def test_power_from_python() -> None:
    import inexeval

    compared = inexeval.compare(str(IPCS / "INEX_Qrels.txt"), [str(r) for r in RUNS],
                                task="focused", complete=True, power=True)
    assert compared.columns[-1] == "power" and all(0 < r.power <= 1 for r in compared.rows)
    assert compared.to_dataframe().columns[-1] == "power"
    assert list(compared.to_dict()["rows"][0])[-1] == "power"
