"""Figures of chunkers: each retrieval measure's mean against the cut-off k, one line per
chunking (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inexeval.measures.registry import Measure
    from inexeval.results import Results


def curves_over_k(results: Results, measures: Sequence[Measure]) -> Any:
    """A figure with one axes per measure family that has several cut-offs (``chroma_R@1``,
    ``@3`` ...): each chunking's mean at every k."""
    from inexeval.errors import InexevalError
    from inexeval.report.plots import curves, figure

    families: dict[str, list[Measure]] = {}
    for measure in measures:
        if measure.cutoff is not None:
            families.setdefault(measure.without_cutoff(), []).append(measure)
    families = {name: sorted(members, key=lambda m: int(m.cutoff))
                for name, members in families.items() if len(members) > 1}
    if not families:
        raise InexevalError("--plot draws measures against k: ask for one at several cut-offs "
                            "(-m chroma_R gives k = 1, 3, 5, 10)")
    fig, axes = figure(len(families))
    runs = results.runs()
    for ax, (name, members) in zip(axes, families.items()):
        series = {run: [float("nan") if value is None else value
                        for value in (results.mean(str(m), run) for m in members)]
                  for run in runs}
        curves(ax, [int(m.cutoff) for m in members], series, x_label="k (chunks retrieved)",
               y_label=name, title=f"{name}@k, mean over questions")
    return fig
