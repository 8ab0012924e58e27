"""Figures of the meta studies, drawn with matplotlib's object API (the ``plot`` extra): one
function per figure kind, each taking a study's results and an ``Axes``; nothing recomputed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from inexeval.meta.power import PowerResult
from inexeval.meta.swap import SwapResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def asl_curves(ax: Axes, results: Sequence[PowerResult]) -> None:
    """Sakai's (2006, Fig. 3) ASL curves: per measure, the pairs' ASLs in increasing order
    against the pair's rank, with the significance level."""
    for result in results:
        curve = result.curve()
        ax.plot(np.arange(1, len(curve) + 1), curve, label=result.measure, linewidth=1.5)
    if results:
        ax.axhline(results[0].alpha, color="#9e9e9e", linewidth=1, linestyle="--")
        ax.set_title(f"ASL curves ({results[0].method}, B = {results[0].replicates})")
    ax.set_xlabel("run pairs sorted by ASL")
    ax.set_ylabel("achieved significance level")
    ax.set_ylim(0, max(0.2, 2 * results[0].alpha) if results else 0.2)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")


def swap_curves(ax: Axes, result: SwapResult, shown: int = 4) -> None:
    """Swap rate against the difference (bin lower bound) for ``shown`` topic-set sizes from
    the smallest to the largest, and the fitted rate at n topics."""
    rates = result.rates()
    lows = np.arange(rates.shape[1]) * result.bin_width
    picks = sorted(set(np.linspace(0, len(result.sizes) - 1, shown).round().astype(int).tolist()))
    for i in picks:
        ax.plot(lows, rates[i], label=f"{result.sizes[i]} topics", linewidth=1.2)
    ax.plot(lows, result.fitted(result.n_topics), label=f"fitted, {result.n_topics} topics",
            linestyle="none", marker=".", color="black")
    ax.axhline(0.05, color="#9e9e9e", linewidth=1, linestyle=":")
    ax.set_xlabel("difference of the means")
    ax.set_ylabel("swap rate")
    ax.set_ylim(0, 0.55)
    ax.set_title(f"{result.measure}: swap rates ({result.method})")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")


def power_curves(ax: Axes, topics: Sequence[int], curves: dict[str, Sequence[float]],
                 target: float | None) -> None:
    """Power against the number of topics, one line per measure and design."""
    for label, values in curves.items():
        ax.plot(topics, values, label=label, linewidth=1.5)
    if target is not None:
        ax.axhline(target, color="#9e9e9e", linewidth=1, linestyle="--")
    ax.set_xlabel("topics")
    ax.set_ylabel("power")
    ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.3)
    ax.set_title("power by number of topics")
    ax.legend(loc="lower right", fontsize="small")
