"""Figures of the pool studies (``meta pool --plot``, ``meta reuse --plot``): matplotlib's
object API, data in, a figure out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from inexeval.report.plots import curves, figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LEVEL_NAMES = {"depth": "pool depth", "articles": "articles pooled per topic",
               "random": "sampling rate (random)", "stratified": "sampling rate (stratified)"}


def levels_figure(rows: Sequence[Any]) -> Figure:
    """Kendall's tau (top) and tau_AP (bottom) against the level, one line per measure (the
    mean over the iterations of a sampling rate)."""
    fig, axes = figure(2)
    strategy = rows[0].strategy if rows else "depth"
    for ax, key, label in ((axes[0], "kendall_tau", "Kendall's tau"),
                           (axes[1], "tau_ap", "tau_AP")):
        levels = sorted({row.level for row in rows})
        series = {}
        for measure in dict.fromkeys(row.measure for row in rows):
            series[measure] = [_mean([getattr(r, key) for r in rows
                                      if r.measure == measure and r.level == level])
                               for level in levels]
        if len(series) > 10:
            from matplotlib import colormaps

            tab20 = colormaps["tab20"]
            ax.set_prop_cycle(color=[tab20(i) for i in range(20)])
        curves(ax, levels, series, x_label=LEVEL_NAMES.get(strategy, strategy), y_label=label,
               title=f"{label} against the full qrels")
        lowest = min((v for values in series.values() for v in values if not math.isnan(v)),
                     default=0.0)
        ax.set_ylim(min(lowest, 0.0) - 0.05, 1.05)  # a correlation may be negative
    return fig


def reuse_figure(measure: str, score_full: Sequence[float], score_without: Sequence[float],
                 runs: Sequence[str], tau: float) -> Figure:
    """Each run's score on the full qrels against its score without its own group's
    contribution, the diagonal where nothing changes."""
    fig, [ax] = figure(1)
    ax.scatter(score_full, score_without, zorder=3)
    for x, y, run in zip(score_full, score_without, runs):
        ax.annotate(run, (x, y), textcoords="offset points", xytext=(4, 4), fontsize="x-small")
    finite = [v for v in (*score_full, *score_without) if not math.isnan(v)]
    if finite:
        ax.plot([min(finite), max(finite)], [min(finite), max(finite)], color="black",
                linewidth=1, linestyle="--")
    ax.set_xlabel(f"{measure}, full qrels")
    ax.set_ylabel(f"{measure}, without the run's own contribution")
    ax.set_title(f"{measure}: leave-out scores, Kendall's tau = {tau:.3f}")
    ax.grid(True, alpha=0.3)
    return fig


def _mean(values: Sequence[float]) -> float:
    defined = [v for v in values if v is not None and not math.isnan(v)]
    return math.fsum(defined) / len(defined) if defined else math.nan
