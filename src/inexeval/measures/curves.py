"""The natural curve of a measure, as the registered measures compute it point by point.

A measure summarised by one number usually averages a curve: MAiP averages interpolated
precision iP[x] at the 101 recall points x = 0.00 ... 1.00 (spec §5.2, §15.5), MAgP generalised
precision gP[r] over article ranks (spec §5.3), MAnxCG nxCG[k] over ranks k (spec §4.5), MAep
interpolated effort-precision ep over gain-recall (spec §4.6), inex_eval PRECALL over the recall
points x = 0.01 ... 1.00 (seed 003 eqs. 4-7), EPRUM (and PRUM, T2I) precision over recall levels
(seed 004 eqs. 4-5). A family with a rank cut-off (P@k, xCG@k, GR@k, HiXEval_P@k ...) has the
curve over k, a family with a recall cut-off the curve over its recall points.

:func:`natural_curve` names the points as measures of the registry (``iP[0.37]``, ``gP[12]``),
so that the curve is evaluated by the same kernels as every other value, and :func:`series`
reads a run's curve (the mean over topics, or one topic's) from the :class:`Results`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import MeasureError
from inexeval.measures.registry import REGISTRY, Measure, families, parse_measure
from inexeval.model import Assessments, Run
from inexeval.results import Results

DEFAULT_RANKS = 50
"""Ranks drawn for a curve over ranks (the official reports stop at gP[50], nxCG[50])."""

_CURVE_OF = {"MAiP": "iP", "MAgP": "gP", "MAnxCG": "nxCG", "MAep": "ep"}
"""The family whose values a mean measure averages."""

_FROM_ZERO = {"iP"}
"""Recall families with a point at x = 0 (iP[0.00]; inex_eval and EPRUM start at 0.01)."""

_AXES = {
    "iP": ("recall", "interpolated precision iP[x]"),
    "gP": ("rank r (articles)", "generalised precision gP[r]"),
    "gR": ("rank r (articles)", "generalised recall gR[r]"),
    "nxCG": ("rank k", "nxCG[k]"),
    "xCG": ("rank k", "xCG[k]"),
    "ep": ("gain-recall gr", "interpolated effort-precision ep"),
    "inex_eval": ("recall x", "precision (PRECALL, expected search length)"),
    "inex_eval_ng": ("recall x", "interpolated precision"),
    "EPRUM": ("recall level", "EPRUM precision"),
    "PRUM": ("recall level", "PRUM precision"),
    "T2I": ("recall level", "T2I precision"),
}

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class CurveSpec:
    """The points of a measure's curve: ``x`` and, for each, the registered measure giving the
    value at that point."""

    measure: str
    """The measure asked for (``MAiP``, ``nxCG``, ``EPRUM(quant=gen)`` ...)."""
    family: str
    x: tuple[float, ...]
    points: tuple[Measure, ...]
    x_label: str
    y_label: str

    @property
    def names(self) -> list[str]:
        """The points' measure names as they appear in :class:`Results`."""
        return [str(m) for m in self.points]


def natural_curve(measure: str | Measure, ranks: int = DEFAULT_RANKS) -> CurveSpec:
    """The curve of ``measure`` with its parameters; ``ranks``: last rank of a curve over ranks.

    Raises :class:`MeasureError` for a measure without a curve (article precision, overlap ...).
    """
    if ranks < 1:
        raise MeasureError(f"a curve over ranks needs at least rank 1, not {ranks}")
    given = parse_measure(measure) if isinstance(measure, str) else measure
    families()  # the curve's family may be another module's
    family = REGISTRY[_CURVE_OF.get(given.family.name, given.family.name)]
    if family.cutoff not in (int, float) or family.name == "overlap":
        curved = sorted({*_CURVE_OF, *(f for f, g in REGISTRY.items()
                                      if g.cutoff in (int, float) and f != "overlap")})
        raise MeasureError(f"{given} has no curve (measures with one: {', '.join(curved)})")
    settings = given.settings
    params = tuple((p.name, settings.get(p.name, p.default)) for p in family.params)
    x: list[float]
    if family.cutoff is int:
        x = [float(k) for k in range(1, ranks + 1)]
        cutoffs: list[int | float] = list(range(1, ranks + 1))
    else:
        first = 0 if family.name in _FROM_ZERO else 1
        x = [b / 100 for b in range(first, 101)]
        cutoffs = list(x)
    x_label, y_label = _AXES.get(family.name, ("rank k" if family.cutoff is int else "recall",
                                               family.name))
    return CurveSpec(str(given), family.name, tuple(x),
                     tuple(Measure(family, params, c) for c in cutoffs), x_label, y_label)


def series(results: Results, spec: CurveSpec, run: str, topic: str | None = None) -> FloatArray:
    """A run's curve: at each point the mean over topics of the point's measure (as every mean
    of :class:`Results`: over the topics where it is defined), or one topic's value; NaN where
    undefined."""
    if topic is None:
        values = [results.mean(name, run) for name in spec.names]
    else:
        found = _per_topic(results, run, topic)
        if not found:
            raise MeasureError(f"run {run} has no value for topic {topic}")
        values = [found.get(name) for name in spec.names]
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _per_topic(results: Results, run: str, topic: str) -> Mapping[str, float | None]:
    return {r.measure: r.value for r in results.rows if r.run == run and r.topic == topic}



def task_measure(task: str, *, beta: float = 0.25, bep_n: int = 500, irr: int = 300,
                 exact_buckets: bool = False) -> str:
    """The mean measure of an official task with its settings (``MAiP(task=thorough)``,
    ``MAgP(task=t2i,irr=300)`` ...), whose curve is the task's iP or gP curve."""
    if task in ("focused", "thorough"):
        return f"MAiP(task={task},exact_buckets={exact_buckets})"
    return f"MAgP(task={task},beta={beta!r},bep_n={bep_n},irr={irr})"


def evaluate_curve(spec: CurveSpec, assessments: Assessments, runs: Sequence[Run], *,
                   official: bool = False, **options: Any) -> Results:
    """Every point of the curve for every run and topic, by an :class:`Evaluator` with
    ``options``; ``official``: the runs read as the official task evaluator reads them (file
    order, nothing cut; spec §15)."""
    from inexeval.evaluation import Evaluator

    if official:
        options = {**options, "order": "file", "limit": 0}
    return Evaluator(spec.points, assessments, **options).evaluate(runs)
