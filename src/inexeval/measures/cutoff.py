"""Precision and set-based overlap at cut-offs (seed 000 §3, eq. 17; spec §3.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import MeasureError
from inexeval.measures.common import QUANT, element_table, first_overlap_rank, gains, result_ids
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.measures.trec import REL, Spec, trec_kernel

if TYPE_CHECKING:
    from inexeval.model import TopicAssessments, TopicRun

PRECISION = trec_kernel(Spec(None, "P"))
"""Precision at k on TREC qrels: trec_eval's ``P``."""


def _precision(
    ta: TopicAssessments, run: TopicRun, ctx: TopicContext, params: Mapping[str, Any],
    cutoffs: Sequence[Any],
) -> list[Value]:
    quant = params["quant"]
    if ta.scale == "trec" and quant == "strict" and not params["binarise"]:
        return list(PRECISION(ta, run, ctx, params, cutoffs))  # trec_eval's P (level rel)
    if params["rel"] != 1:
        raise MeasureError(f"P: rel={params['rel']} goes with TREC qrels (quant=strict); "
                           "on other assessments choose a quantisation")
    from inexeval.quantise import is_binary

    values = gains(ta, run, ctx, quant)
    if not is_binary(quant, ta.scale):
        values = (values > 0).astype(np.float64) if params["binarise"] else values
    cumulative = np.concatenate(([0.0], np.cumsum(values)))
    return [float(cumulative[min(k, len(values))]) / k for k in cutoffs]


P = register(Family(
    name="P",
    description="precision at cut-off k under a quantisation; the denominator stays k for "
    "shorter runs (Hiemstra and Mihajlović 2005, §3); on FOL qrels a passage (or an element, "
    "as its passage) counts when it holds highlighted text, a whole article when the article "
    "is relevant",
    kernel=_precision,
    params=(
        QUANT,
        Param("binarise", bool, False,
              "with a graded quantisation, count every result with a value > 0 as relevant "
              "(default: sum the graded values)"),
        REL,
    ),
    cutoff=int,
    cutoff_required=True,
    scores_empty=True,
))


def first_overlap_ranks(run: TopicRun, ctx: TopicContext) -> npt.NDArray[np.int64]:
    """For each result (0-based rank r), the smallest rank r' != r of a result overlapping it,
    or ``len(run)`` if none does.

    Elements overlap when one is an ancestor-or-self of the other (by steps, spec §1.2); whole
    documents overlap everything of their document; passages overlap when their character spans
    intersect, and overlap every element or document of their document (an element's span is
    not known without the collection).
    """
    n = len(run)
    partner = np.full(n, n, dtype=np.int64)
    units = np.flatnonzero(run.offsets < 0)
    if len(units):
        table = element_table(ctx)
        nested = first_overlap_rank(result_ids(run, ctx)[units], table.parents, table.positions())
        partner[units] = np.where(nested < len(units), units[np.minimum(nested, len(units) - 1)], n)
    passages = np.flatnonzero(run.offsets >= 0)
    if len(passages):
        files = run.files
        for r in passages.tolist():
            same = np.flatnonzero(files == files[r])
            same = same[same != r]
            start, end = run.offsets[same], run.offsets[same] + np.maximum(run.lengths[same], 0)
            mine = (run.offsets[r], run.offsets[r] + max(int(run.lengths[r]), 0))
            hit = (start < 0) | ((start < mine[1]) & (mine[0] < end))
            if np.any(hit):
                partner[r] = min(int(partner[r]), int(same[hit].min()))
                partner[same[hit]] = np.minimum(partner[same[hit]], r)
    return partner


def _overlap(
    ta: TopicAssessments, run: TopicRun, ctx: TopicContext, params: Mapping[str, Any],
    cutoffs: Sequence[Any],
) -> list[Value]:
    partner = ctx.cached("first_overlap", lambda: first_overlap_ranks(run, ctx))
    # A result counts at cut-off k once both it and its first overlapping partner are in the top k.
    counted_from = np.maximum(np.arange(len(run)), partner) + 1
    counts = np.bincount(np.minimum(counted_from, len(run) + 1), minlength=len(run) + 2)
    cumulative = np.cumsum(counts)
    return [float(cumulative[min(k, len(run))]) / k for k in cutoffs]


OVERLAP = register(Family(
    name="overlap",
    description="share of the top k results that overlap another result of the top k; the "
    "denominator stays k for shorter runs (Hiemstra and Mihajlović 2005, eq. 17)",
    kernel=_overlap,
    cutoff=int,
    cutoff_required=True,
))
