"""The outcome of a comparison of runs (:func:`inexeval.analysis.compare.compare_results`,
``inexeval compare``): :class:`Comparison`, its rows :class:`ComparisonRow` and their columns.

It is plain data with its renderings (``to_dict``, ``to_dataframe``, ``to_latex``); the
comparing is done in :mod:`inexeval.analysis.compare`, the text renderings in
:mod:`inexeval.report.comparison` (which reads a comparison structurally and does not import
this module: no import circle).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from inexeval.errors import InexevalError


class ComparisonRow(NamedTuple):
    """One comparison of ``run`` against ``baseline`` (the second run of the pair with
    ``all_pairs``) under one measure and test. ``delta = mean - baseline_mean`` over the
    ``n_topics`` paired topics; ``p_adjusted`` is ``p_value`` after the correction (equal to it
    without one); ``(ci_low, ci_high)`` the 95% interval of the mean difference;
    ``effect_size`` the mean difference over the standard deviation of the differences
    (ddof 1); ``wins``/``ties``/``losses`` count topics where ``run`` is better / within 1e-12 /
    worse; ``power`` (with ``power=True``, else NaN) the achieved power of the comparison
    (:func:`achieved_power`). Undefined numbers (a t test on one topic, the t test and the
    effect size of differences that are the same non-zero number on every topic) are NaN."""

    measure: str
    test: str
    run: str
    baseline: str
    n_topics: int
    mean: float
    baseline_mean: float
    delta: float
    p_value: float
    p_adjusted: float
    ci_low: float
    ci_high: float
    effect_size: float
    wins: int
    ties: int
    losses: int
    power: float = math.nan


COLUMNS = ComparisonRow._fields[:-1]
"""The CSV/JSON columns of ``inexeval compare``, in order (``power`` follows with ``--power``)."""

POWER_COLUMNS = ComparisonRow._fields
"""The CSV/JSON columns of ``inexeval compare --power``: :data:`COLUMNS`, then ``power``."""

PerTopic = dict[str, dict[str, dict[str, float | None]]]


@dataclass
class Comparison:
    """The outcome of :func:`compare` (see the module docstring for the fields)."""

    rows: list[ComparisonRow]
    per_topic: PerTopic
    means: dict[str, dict[str, float | None]]
    topics: list[str]
    runs: list[str]
    measures: list[str]
    baseline: str | None
    tests: list[str]
    correction: str
    alpha: float
    permutations: int
    seed: int
    header: str = ""
    rule: str = "all"
    power: bool = False
    wilcoxon: str = "scipy"

    def __repr__(self) -> str:
        """What the comparison holds, not its rows (a notebook shows it whole)."""
        base = f"baseline={self.baseline!r}" if self.baseline else "all pairs"
        return (f"Comparison({len(self.runs)} runs × {len(self.topics)} topics × "
                f"{len(self.measures)} measures, {base}, tests={self.tests}, "
                f"{len(self.rows)} rows)")

    def __str__(self) -> str:
        """The table ``inexeval compare`` prints (``print(comparison)``)."""
        from inexeval.report.comparison import render_comparison

        return render_comparison(self, "table")

    def to_markdown(self, digits: int = 4) -> str:
        """The table of ``inexeval compare --format markdown``."""
        from inexeval.report.comparison import render_comparison

        return render_comparison(self, "markdown", digits)

    def _repr_html_(self) -> str:
        """The terminal table, preformatted (a notebook shows it)."""
        from html import escape

        return f"<pre>{escape(str(self))}</pre>"

    def relabelled(self, labels: dict[str, str]) -> Comparison:
        """The same comparison with its measures named as they were asked for (``labels``:
        name to the name typed, ``map`` for ``AP``: :attr:`inexeval.Experiment.labels`)."""
        if not labels:
            return self

        def name(measure: str) -> str:
            return labels.get(measure, measure)

        return replace(self, rows=[r._replace(measure=name(r.measure)) for r in self.rows],
                       per_topic={name(m): v for m, v in self.per_topic.items()},
                       means={name(m): v for m, v in self.means.items()},
                       measures=[name(m) for m in self.measures])

    @property
    def columns(self) -> tuple[str, ...]:
        """The CSV/JSON columns of the rows: :data:`COLUMNS`, then ``power`` if computed."""
        return POWER_COLUMNS if self.power else COLUMNS

    def significant(self, row: ComparisonRow) -> int:
        """+1 if ``row.run`` is significantly better than ``row.baseline`` at ``alpha`` (after
        correction), -1 if significantly worse, else 0."""
        if math.isnan(row.p_adjusted) or row.p_adjusted >= self.alpha or row.delta == 0:
            return 0
        return 1 if row.delta > 0 else -1

    def to_dict(self) -> dict[str, Any]:
        """Plain data: the settings, the header, the means and the rows (as dicts of
        :data:`COLUMNS`, NaN as None)."""
        return {
            "header": self.header,
            "rule": self.rule,
            "baseline": self.baseline,
            "tests": list(self.tests),
            "correction": self.correction,
            "alpha": self.alpha,
            "permutations": self.permutations,
            "seed": self.seed,
            "wilcoxon": self.wilcoxon,
            "topics": list(self.topics),
            "runs": list(self.runs),
            "measures": list(self.measures),
            "means": {m: dict(v) for m, v in self.means.items()},
            "power": self.power,
            "rows": [row_dict(row, self.columns) for row in self.rows],
        }

    def to_dataframe(self) -> Any:
        """The rows as a pandas DataFrame with columns :attr:`columns` (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:
            raise InexevalError("to_dataframe needs pandas: pip install pandas") from None
        columns = self.columns
        return pd.DataFrame([tuple(r)[:len(columns)] for r in self.rows], columns=list(columns))

    def to_latex(self, digits: int = 4) -> str:
        """The booktabs table of ``inexeval compare --format latex``."""
        from inexeval.report.comparison import render_latex

        return render_latex(self, digits)


def row_dict(row: ComparisonRow, columns: Sequence[str] = COLUMNS) -> dict[str, Any]:
    """A row as a dict of ``columns`` (default :data:`COLUMNS`), NaN as None (JSON has no
    NaN)."""
    values = row._asdict()
    return {k: (None if isinstance(values[k], float) and math.isnan(values[k]) else values[k])
            for k in columns}
