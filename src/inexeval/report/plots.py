"""Figures of an evaluation, drawn with matplotlib's object API (the ``plot`` extra).

One function per figure kind; each takes the data and an ``Axes`` and draws, never reading a
file or computing a measure: the curves are the series of :mod:`inexeval.measures.curves`, the
differences, fits and correlations come from the comparison (:mod:`inexeval.analysis`).
matplotlib is imported by the caller (:func:`figure` uses the file-only Agg backend).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FloatArray = npt.NDArray[np.float64]
WIN = "#2e7d32"
LOSS = "#c62828"
TIE = "#9e9e9e"


def figure(rows: int = 1, width: float = 7.0, height: float = 4.5) -> tuple[Figure, list[Axes]]:
    """A figure of ``rows`` axes stacked vertically, on the Agg backend (no display needed)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height * rows), layout="constrained")
    axes = fig.subplots(rows, 1, squeeze=False)
    return fig, [row[0] for row in axes]


def curves(ax: Axes, x: Sequence[float], series: Mapping[str, Sequence[float] | FloatArray], *,
           x_label: str, y_label: str, title: str = "") -> None:
    """One line per run: the measure's curve (e.g. iP at the 101 recall points)."""
    for run, values in series.items():
        ax.plot(x, values, label=run, linewidth=1.5, marker="o" if len(x) <= 12 else None)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    ax.legend(loc="best", fontsize="small")


def per_topic_differences(ax: Axes, differences: Mapping[str, float], *, run: str,
                          baseline: str, measure: str) -> None:
    """Per-topic differences ``run - baseline`` as bars sorted from the largest gain to the
    largest loss, the way papers show where a system wins (green) and loses (red)."""
    ordered = sorted(differences.items(), key=lambda item: (-item[1], item[0]))
    topics = [t for t, _ in ordered]
    values = [d for _, d in ordered]
    colours = [WIN if d > 0 else LOSS if d < 0 else TIE for d in values]
    ax.bar(range(len(values)), values, color=colours, width=0.8)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(topics)), topics, rotation=90,
                  fontsize="x-small" if len(topics) > 30 else "small")
    ax.set_xlim(-0.6, len(values) - 0.4)
    ax.set_xlabel("topic")
    ax.set_ylabel(f"{measure}: {run} − {baseline}")
    wins = sum(d > 0 for d in values)
    losses = sum(d < 0 for d in values)
    ax.set_title(f"{run} against {baseline}: {wins} wins, {len(values) - wins - losses} ties, "
                 f"{losses} losses")
    ax.grid(True, axis="y", alpha=0.3)


def scatter(ax: Axes, a: Sequence[float], b: Sequence[float], runs: Sequence[str], *,
            measure_a: str, measure_b: str, slope: float, intercept: float,
            tau: float) -> None:
    """One point per run (mean of ``measure_a`` against ``measure_b``), the least-squares line
    and Kendall's tau in the title, as Gövert and Kazai (2002) Fig. 11 compare quantisations."""
    ax.scatter(a, b, zorder=3)
    for x, y, run in zip(a, b, runs):
        ax.annotate(run, (x, y), textcoords="offset points", xytext=(4, 4), fontsize="x-small")
    line = np.array([min(a), max(a)], dtype=np.float64)
    ax.plot(line, slope * line + intercept, color="black", linewidth=1, linestyle="--")
    ax.set_xlabel(measure_a)
    ax.set_ylabel(measure_b)
    ax.set_title(f"{measure_a} against {measure_b}: Kendall's tau = {tau:.3f}")
    ax.grid(True, alpha=0.3)


def box(ax: Axes, values: Mapping[str, Sequence[float]], *, measure: str) -> None:
    """Per-topic distributions, one box per run (whiskers at 1.5 IQR, mean as a marker)."""
    data: list[Any] = [list(v) for v in values.values()]
    ax.boxplot(data, showmeans=True)
    ax.set_xticks(range(1, len(values) + 1), list(values), rotation=30 if len(values) > 4 else 0)
    ax.set_ylabel(f"{measure} per topic")
    ax.grid(True, axis="y", alpha=0.3)
