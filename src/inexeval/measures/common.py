"""Helpers shared by the element measures: matching results to judged units, quantised gains."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from inexeval.model import TopicAssessments, TopicRun
from inexeval.quantise import quantise
from inexeval.measures.registry import TopicContext


def judged_positions(ta: TopicAssessments, run: TopicRun, ctx: TopicContext) -> npt.NDArray[np.int64]:
    """Position in ``ta`` of each result's judged unit, -1 where the result is not judged.

    Document-level assessments (FOL or TREC qrels: every path empty) match results by document
    alone, so an article run, or an element run seen at article level, meets its judgements.
    """

    def match() -> npt.NDArray[np.int64]:
        if len(ta) and not any(ta.paths.tolist()):
            return ta.lookup(run.files, [""] * len(run))
        return ta.lookup(run.files, run.paths)

    return ctx.cached(("judged", id(ta)), match)  # type: ignore[no-any-return]


def quantised(ta: TopicAssessments, ctx: TopicContext, quant: str) -> npt.NDArray[np.float64]:
    """Quantised value of every judged unit of the topic (memoised for the topic)."""
    return ctx.cached(("quant", id(ta), quant), lambda: quantise(quant, ta))  # type: ignore[no-any-return]


def gains(ta: TopicAssessments, run: TopicRun, ctx: TopicContext, quant: str) -> npt.NDArray[np.float64]:
    """Quantised value of each result in rank order (0 for results not judged)."""

    def make() -> npt.NDArray[np.float64]:
        values = quantised(ta, ctx, quant)
        pos = judged_positions(ta, run, ctx)
        out = np.zeros(len(run), dtype=np.float64)
        hit = pos >= 0
        out[hit] = values[pos[hit]]
        return out

    return ctx.cached(("gains", id(ta), quant), make)  # type: ignore[no-any-return]
