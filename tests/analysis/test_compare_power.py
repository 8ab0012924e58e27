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

from inexeval.analysis.compare import COLUMNS, POWER_COLUMNS, compare_scores
from inexeval.cli import main
from inexeval.meta.topics import residual_variance
from inexeval.report.comparison import render_comparison
from inexeval.scores import Scores

IPCS = DATA / "ipcs"
RUNS = [IPCS / "bert_inex_converted_1.run", IPCS / "bert1_incontext.run",
        IPCS / "bert1_bestincontext.run"]


def v_e_by_loops(x: np.ndarray) -> float:
    """The residual mean square of the two-way ANOVA, term by term."""
    n, m = x.shape
    total = x.mean()
    rows = [sum(x[i]) / m for i in range(n)]
    cols = [sum(x[:, j]) / n for j in range(m)]
    return sum((x[i, j] - rows[i] - cols[j] + total) ** 2
               for i in range(n) for j in range(m)) / ((n - 1) * (m - 1))


@pytest.mark.parametrize("all_pairs", [False, True])
def test_power_equals_statsmodels(all_pairs: bool) -> None:
    scores = make_scores(runs=4, topics=25, measures=2)
    compared = compare_scores(scores, tests=["t", "wilcoxon"], all_pairs=all_pairs, alpha=0.05,
                              power=True)
    assert compared.columns == POWER_COLUMNS == (*COLUMNS, "power")
    for row in compared.rows:
        x = scores.values[:, :, scores.measures.index(row.measure)].T  # topics x runs
        variance = v_e_by_loops(x)
        assert variance == pytest.approx(residual_variance(x), rel=1e-12)
        effect = abs(row.delta) / math.sqrt(2 * variance)
        expected = TTestPower().power(effect_size=effect, nobs=row.n_topics, alpha=0.05,
                                      alternative="two-sided")
        assert row.power == pytest.approx(expected, abs=1e-9)
    # the power of a comparison is the same whatever the test that made it
    by_pair: dict[tuple[str, str, str], set[float]] = {}
    for row in compared.rows:
        by_pair.setdefault((row.measure, row.run, row.baseline), set()).add(row.power)
    assert all(len(powers) == 1 for powers in by_pair.values())


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
    # identical runs: V_E = 0, the power is undefined
    assert math.isnan(compare_scores(same, power=True).rows[0].power)


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
        assert "achieved power" in out and "V" in out
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
