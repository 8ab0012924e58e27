"""Precision and set-based overlap at cut-offs (seed 000 §3, eq. 17; spec §3.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.collection.paths import ancestors
from inexeval.measures.common import gains
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model import TopicAssessments, TopicRun
from inexeval.quantise import is_binary


def _precision(
    ta: TopicAssessments, run: TopicRun, ctx: TopicContext, params: Mapping[str, Any],
    cutoffs: Sequence[Any],
) -> list[Value]:
    quant = params["quant"]
    values = gains(ta, run, ctx, quant)
    if not is_binary(quant, ta.scale):
        values = (values > 0).astype(np.float64) if params["binarise"] else values
    cumulative = np.concatenate(([0.0], np.cumsum(values)))
    return [float(cumulative[min(k, len(values))]) / k for k in cutoffs]


P = register(Family(
    name="P",
    description="precision at cut-off k under a quantisation; the denominator stays k for "
    "shorter runs (seed 000 §3, spec §3.1)",
    kernel=_precision,
    params=(
        Param("quant", str, "strict", "quantisation of the assessments (see `inexeval measures`)"),
        Param("binarise", bool, False,
              "with a graded quantisation, count every result with a value > 0 as relevant "
              "(default: sum the graded values)"),
    ),
    cutoff=int,
    cutoff_required=True,
))


def first_overlap_rank(run: TopicRun) -> npt.NDArray[np.int64]:
    """For each result (0-based rank r), the smallest rank r' != r of a result overlapping it,
    or ``len(run)`` if none does.

    Elements overlap when one is an ancestor-or-self of the other (by steps, spec §1.2);
    passages when their character spans intersect; whole documents when they are the same
    document; an element and a passage or document of the same file always overlap. Cost is
    linear in the run length times the depth of the paths (passages: quadratic within one
    document only).
    """
    n = len(run)
    partner = np.full(n, n, dtype=np.int64)
    files = run.files.tolist()
    paths = run.paths.tolist()
    by_file: dict[str, list[int]] = {}
    for r, f in enumerate(files):
        by_file.setdefault(f, []).append(r)
    for ranks in by_file.values():
        if len(ranks) < 2:
            continue
        elements = [r for r in ranks if paths[r]]
        others = [r for r in ranks if not paths[r]]
        if others:
            _overlap_others(run, ranks, elements, others, partner)
        if len(elements) > 1:
            _overlap_elements([paths[r] for r in elements], elements, partner)
    return partner


def _overlap_elements(paths: list[str], ranks: list[int], partner: npt.NDArray[np.int64]) -> None:
    # The two best ranks at each exact path, and the best rank strictly below each path.
    at_path: dict[str, list[int]] = {}
    below: dict[str, int] = {}
    for path, r in zip(paths, ranks):
        best = at_path.setdefault(path, [])
        if len(best) < 2:
            best.append(r)
        for a in ancestors(path):
            if below.get(a, 1 << 62) > r:
                below[a] = r
    for path, r in zip(paths, ranks):
        candidates = [below.get(path, partner[r])]
        candidates += [x for x in at_path[path] if x != r]
        for a in ancestors(path):
            if a in at_path:
                candidates.append(at_path[a][0])
        partner[r] = min(partner[r], *candidates)


def _overlap_others(run: TopicRun, ranks: list[int], elements: list[int], others: list[int],
                    partner: npt.NDArray[np.int64]) -> None:
    # Documents overlap everything of their file; passages overlap intersecting passages and
    # every element of their file (an element's span is unknown without the collection).
    is_doc = {r: run.offsets[r] < 0 for r in others}
    for r in others:
        for s in ranks:
            if s == r:
                continue
            if is_doc[r] or s in elements or is_doc.get(s, False):
                hit = True
            else:
                a0, a1 = run.offsets[r], run.offsets[r] + max(run.lengths[r], 0)
                b0, b1 = run.offsets[s], run.offsets[s] + max(run.lengths[s], 0)
                hit = bool(a0 < b1 and b0 < a1)
            if hit:
                partner[r] = min(partner[r], s)
                partner[s] = min(partner[s], r)


def _overlap(
    ta: TopicAssessments, run: TopicRun, ctx: TopicContext, params: Mapping[str, Any],
    cutoffs: Sequence[Any],
) -> list[Value]:
    partner = ctx.cached("first_overlap", lambda: first_overlap_rank(run))
    # A result counts at cut-off k once both it and its first overlapping partner are in the top k.
    counted_from = np.maximum(np.arange(len(run)), partner) + 1
    counts = np.bincount(np.minimum(counted_from, len(run) + 1), minlength=len(run) + 2)
    cumulative = np.cumsum(counts)
    return [float(cumulative[min(k, len(run))]) / k for k in cutoffs]


OVERLAP = register(Family(
    name="overlap",
    description="share of the top k results that overlap another result of the top k; the "
    "denominator stays k for shorter runs (seed 000 eq. 17, spec §3.1)",
    kernel=_overlap,
    cutoff=int,
    cutoff_required=True,
))
