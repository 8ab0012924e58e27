"""Figures of an evaluation, drawn with matplotlib's object API (the ``plot`` extra).

One function per figure kind; each takes the data and an ``Axes`` and draws, never reading a
file or computing a measure: the curves are the series of :mod:`inexeval.measures.curves`, the
differences, fits and correlations come from the comparison (:mod:`inexeval.analysis`).
matplotlib is imported by the caller (:func:`figure` uses the file-only Agg backend).

Every figure says over how many topics and under which averaging rule its values are (a second
title line from :func:`inexeval.scores.describe_rule`, when the caller gives ``rule`` and
``n_topics``). Up to :data:`DISTINCT` runs each get their own colour, line style and marker
(:func:`run_style`), so a figure printed in grey still tells them apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from inexeval.report.svg import PALETTE

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from inexeval.measures.curves import CurveSpec

FloatArray = npt.NDArray[np.float64]
WIN = "#2e7d32"
LOSS = "#c62828"
TIE = "#9e9e9e"

COLOURS = PALETTE
"""The twenty colours of the runs, those of the HTML report's figures."""
LINE_STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
DISTINCT = len(COLOURS)
"""Runs that each get a colour of their own; beyond, colours repeat with another line style
and marker."""

MEAN_MARKER: dict[str, Any] = {"marker": "^", "markerfacecolor": "#2e7d32",
                               "markeredgecolor": "#2e7d32", "markersize": 7}
MEDIAN_LINE: dict[str, Any] = {"color": "#d55e00", "linewidth": 2}


def run_style(index: int) -> dict[str, Any]:
    """The colour, line style and marker of the ``index``-th run: no two of the first
    :data:`DISTINCT` runs share a colour, and neighbours differ in all three."""
    return {"color": COLOURS[index % len(COLOURS)],
            "linestyle": LINE_STYLES[(index + index // len(COLOURS)) % len(LINE_STYLES)],
            "marker": MARKERS[index % len(MARKERS)]}


def rule_line(rule: str | None, n_topics: int | None) -> str:
    """The line saying what the values average over (empty when the caller does not say)."""
    if rule is None or n_topics is None:
        return ""
    from inexeval.scores import describe_rule

    return describe_rule(rule, n_topics)


def _title(ax: Axes, title: str, rule: str | None, n_topics: int | None) -> None:
    """The title, then the averaging rule's line, each wrapped to the width of the axes (a
    title wider than its axes is cut at the figure's edges)."""
    import textwrap

    width = max(40, int(_root(ax).get_figwidth() * 0.78 * 72 / 5.2))
    lines = textwrap.wrap(title, width) + textwrap.wrap(rule_line(rule, n_topics), width)
    ax.set_title("\n".join(lines), fontsize="medium")


def _root(ax: Axes) -> Figure:
    """The figure ``ax`` is drawn in (not a subfigure)."""
    from matplotlib.figure import Figure

    fig = ax.figure
    while not isinstance(fig, Figure):
        fig = fig.figure
    return fig


def figure(rows: int = 1, width: float = 7.0, height: float = 4.5,
           share_y: bool = False) -> tuple[Figure, list[Axes]]:
    """A figure of ``rows`` axes stacked vertically, on the Agg backend (no display needed);
    ``share_y``: every axes on one y-scale."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height * rows), layout="constrained")
    axes = fig.subplots(rows, 1, squeeze=False, sharey=share_y)
    return fig, [row[0] for row in axes]


def curve_title(spec: CurveSpec, topic: str | None = None) -> str:
    """What a curve shows, by its family's name with the variable point: ``P@k, k = 1-50``,
    ``iP[x], x = 0.00-1.00``, ``gP[r]`` ...; then the topic or ``mean over topics``."""
    first = spec.points[0]
    name = first.without_cutoff()
    ranks = first.family.cutoff is int
    variable = "r" if spec.family in ("gP", "gR") else "k" if ranks else "x"
    point = f"[{variable}]" if first.family.bracket_cutoff else f"@{variable}"
    low, high = spec.x[0], spec.x[-1]
    span = f"{low:.0f}-{high:.0f}" if ranks else f"{low:.2f}-{high:.2f}"
    return (f"{name}{point}, {variable} = {span}"
            + (f", topic {topic}" if topic else ", mean over topics"))


def curves(ax: Axes, x: Sequence[float], series: Mapping[str, Sequence[float] | FloatArray], *,
           x_label: str, y_label: str, title: str = "", rule: str | None = None,
           n_topics: int | None = None) -> None:
    """One line per run: the measure's curve (e.g. iP at the 101 recall points), each run in its
    own :func:`run_style`; on a long curve markers are spread out (about ten a line, shifted
    from run to run so they do not sit on each other)."""
    every = max(1, len(x) // 10)
    for i, (run, values) in enumerate(series.items()):
        ax.plot(x, values, label=run, linewidth=1.5, markersize=5,
                markevery=(i % every, every) if every > 1 else None, **run_style(i))
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    _title(ax, title, rule, n_topics)
    if len(series) > 6:  # outside, beside the curves
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small",
                  ncols=1 if len(series) <= 20 else 2, frameon=False)
    else:
        ax.legend(loc="best", fontsize="small")


def difference_reach(differences: Sequence[Mapping[str, float]]) -> float:
    """The largest absolute difference of every run: the common y-limit of per-topic bars."""
    return max((abs(d) for by_topic in differences for d in by_topic.values()), default=0.0)


def per_topic_differences(ax: Axes, differences: Mapping[str, float], *, run: str,
                          baseline: str, measure: str, reach: float | None = None,
                          rule: str | None = None, n_topics: int | None = None) -> None:
    """Per-topic differences ``run - baseline`` as bars sorted from the largest gain to the
    largest loss, the way papers show where a system wins (green) and loses (red). ``reach``:
    the y-axis spans [-reach, reach] (:func:`difference_reach` of every run drawn, so the runs'
    bars compare on one scale)."""
    ordered = sorted(differences.items(), key=lambda item: (-item[1], item[0]))
    topics = [t for t, _ in ordered]
    values = [d for _, d in ordered]
    colours = [WIN if d > 0 else LOSS if d < 0 else TIE for d in values]
    ax.bar(range(len(values)), values, color=colours, width=0.8)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(topics)), topics, rotation=90,
                  fontsize="x-small" if len(topics) > 30 else "small")
    ax.set_xlim(-0.6, len(values) - 0.4)
    limit = (reach if reach is not None else difference_reach([differences])) or 1.0
    ax.set_ylim(-limit * 1.05, limit * 1.05)
    ax.set_xlabel("topic")
    ax.set_ylabel(f"{measure}: {run} − {baseline}")
    wins = sum(d > 0 for d in values)
    losses = sum(d < 0 for d in values)
    ties = len(values) - wins - losses
    _title(ax, f"{run} against {baseline}: {_count(wins, 'win')}, {_count(ties, 'tie')}, "
           f"{_count(losses, 'loss', 'losses')}", rule, n_topics)
    ax.grid(True, axis="y", alpha=0.3)


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def scatter(ax: Axes, a: Sequence[float], b: Sequence[float], runs: Sequence[str], *,
            measure_a: str, measure_b: str, slope: float, intercept: float,
            tau: float, rule: str | None = None, n_topics: int | None = None) -> None:
    """One point per run (mean of ``measure_a`` against ``measure_b``), the least-squares line
    and Kendall's tau in the title, as Gövert and Kazai (2002) Fig. 11 compare quantisations.
    Points are numbered and the legend names the runs, so long run names never overlap; each
    number is put where it covers no other number and no point (:func:`label_offsets`)."""
    from matplotlib.lines import Line2D

    ax.scatter(a, b, zorder=3, color=COLOURS[0], s=22)
    line = np.array([min(a), max(a)], dtype=np.float64)
    ax.plot(line, slope * line + intercept, color="black", linewidth=1, linestyle="--")
    ax.set_xlabel(measure_a)
    ax.set_ylabel(measure_b)
    _title(ax, f"{measure_a} against {measure_b}: Kendall's tau = {tau:.3f}", rule, n_topics)
    ax.grid(True, alpha=0.3)
    handles = [Line2D([], [], linestyle="none", marker=f"${number}$", color="black",
                      markersize=6 + 2 * len(str(number)), label=run)
               for number, run in enumerate(runs, start=1)]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small",
              frameon=False, title="runs", ncols=1 if len(runs) <= 25 else 2)
    numbers = [str(n) for n in range(1, len(runs) + 1)]
    for number, x, y, (dx, dy) in zip(numbers, a, b, label_offsets(ax, a, b, numbers)):
        far = abs(dx) > 12 or abs(dy) > 12
        ax.annotate(number, (x, y), textcoords="offset points", xytext=(dx, dy),
                    fontsize="small", zorder=4, va="bottom", ha="left",
                    arrowprops={"arrowstyle": "-", "color": "#9aa5b1", "linewidth": 0.6,
                                "shrinkA": 0, "shrinkB": 3} if far else None)


_DIGIT = 5.2
"""Width of a digit at the ``small`` font size, in points (a label's box is estimated)."""
_LINE = 9.0


def label_offsets(ax: Axes, xs: Sequence[float], ys: Sequence[float],
                  labels: Sequence[str]) -> list[tuple[float, float]]:
    """Where to put each point's label, as an offset in points from the point: the first of
    rings of places around it (right, left, above, below, then farther) whose box overlaps no
    label placed before and no other point; where every place is taken, the least crowded. The
    axes' final size is known after a layout pass (``draw_without_rendering``)."""
    fig = _root(ax)
    fig.draw_without_rendering()
    scale = 72.0 / fig.dpi
    points = ax.transData.transform(np.column_stack([xs, ys]).astype(np.float64)) * scale
    placed: list[tuple[float, float, float, float]] = []
    offsets = []
    for i, text in enumerate(labels):
        width = _DIGIT * len(text)
        px, py = points[i]
        best: tuple[int, tuple[float, float]] | None = None
        for ring in range(6):
            step = ring * (_LINE + 2)
            for dx, dy in ((4.0, 1.0 + step), (-4.0 - width, 1.0 + step),
                           (4.0, -_LINE - 1.0 - step), (-4.0 - width, -_LINE - 1.0 - step)):
                box = (px + dx, py + dy, px + dx + width, py + dy + _LINE)
                clashes = sum(_overlap(box, other) for other in placed) + sum(
                    box[0] - 3 <= qx <= box[2] + 3 and box[1] - 3 <= qy <= box[3] + 3
                    for j, (qx, qy) in enumerate(points) if j != i)
                if best is None or clashes < best[0]:
                    best = (clashes, (dx, dy))
                if clashes == 0:
                    break
            if best is not None and best[0] == 0:
                break
        assert best is not None
        dx, dy = best[1]
        placed.append((px + dx, py + dy, px + dx + width, py + dy + _LINE))
        offsets.append((dx, dy))
    return offsets


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def box(ax: Axes, values: Mapping[str, Sequence[float]], *, measure: str,
        rule: str | None = None, n_topics: int | None = None) -> None:
    """Per-topic distributions, one box per run (whiskers at 1.5 IQR), the median as a line and
    the mean as a marker, both in the legend."""
    from matplotlib.lines import Line2D

    data: list[Any] = [list(v) for v in values.values()]
    ax.boxplot(data, showmeans=True, meanprops=MEAN_MARKER, medianprops=MEDIAN_LINE)
    ax.set_xticks(range(1, len(values) + 1), list(values), rotation=30 if len(values) > 4 else 0,
                  ha="right" if len(values) > 4 else "center")
    ax.set_ylabel(f"{measure} per topic")
    ax.grid(True, axis="y", alpha=0.3)
    _title(ax, f"{measure} per topic, one box per run", rule, n_topics)
    ax.legend(handles=[Line2D([], [], label="median", **MEDIAN_LINE),
                       Line2D([], [], linestyle="none", label="mean", **MEAN_MARKER)],
              loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small", frameon=False)
