"""HiXEval: precision, recall and F on highlighted text, with the overlap weight ``alpha``.

Pehcevski and Thom, HiXEval (INEX 2005), as used by seed 001 §4.2; spec §5.1 [R]. For the first
``k`` results ``x_1..x_k`` of a topic whose assessors highlighted ``Trel`` characters::

    seenH_i  = |text(x_i) ∩ H ∩ U_{j<i} text(x_j)|      highlighted text already retrieved
    rval(x_i) = rsize(x_i) - alpha * seenH_i
    P@k = sum rval / sum size(x_i)     R@k = sum rval / Trel     F@k = 2PR / (P + R)

``alpha = 1`` (the default, seed 001's setting that penalises overlap) counts highlighted text
once, ``alpha = 0`` every time it is returned. Sizes count every character, seen or not. Runs
shorter than ``k`` keep their last values; without a cut-off the whole list is scored. Topics
with nothing highlighted are left out. Results may be elements or passages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval import spans
from inexeval.collection.index import CollectionIndex
from inexeval.errors import InexevalError, warn
from inexeval.measures.common import unit_interval
from inexeval.measures.ng import UNKNOWN_SIZE, first_cover, highlight_arrays, result_geometry
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model.assessments import TopicAssessments
from inexeval.model.run import TopicRun

FloatArray = npt.NDArray[np.float64]


def hixeval_curves(
    ta: TopicAssessments,
    run: TopicRun,
    ctx: TopicContext,
    *,
    alpha: float = 1.0,
    unknown_size: int = -1,
) -> tuple[FloatArray, FloatArray, FloatArray] | None:
    """``(P, R, F)`` at every rank of the run (spec §5.1); None when ``Trel = 0``."""
    geometry = result_geometry(ta, run, ctx, unknown_size)
    h_docs, h_starts, h_ends = highlight_arrays(ta, geometry, ctx)
    total = float((h_ends - h_starts).sum())
    if total <= 0:
        rsize_given = ta.dims.get("rsize")
        if rsize_given is not None and bool(np.nansum(rsize_given) > 0):
            warn(f"topic {ta.topic}: the assessments give rsize but no highlighted passages; "
                 "HiXEval leaves the topic out (evaluate without the collection to score it "
                 "from size and rsize)", ta.source)
        return None
    if len(run) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    rsize = spans.covered_lengths(h_starts, h_ends, geometry.starts, geometry.ends, h_docs,
                                  geometry.docs).astype(np.float64)
    # the highlighted characters among each result's unseen ones (spans.unseen_covered, on
    # the first-cover stretches the other measures of this topic share)
    cover = first_cover(geometry, ctx)
    hits = spans.covered_lengths(h_starts, h_ends, cover.starts, cover.ends, h_docs, cover.docs)
    new_highlighted = np.bincount(cover.owner, weights=hits, minlength=len(run))
    rval = rsize - alpha * (rsize - new_highlighted)
    gained = np.cumsum(rval)
    read = np.cumsum(geometry.sizes.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(read > 0, gained / read, 0.0)
        recall = gained / total
        both = precision + recall
        f = np.where(both > 0, 2 * precision * recall / both, 0.0)
    return precision, recall, f


def _kernel(which: int) -> Any:
    def kernel(
        ta: TopicAssessments,
        run: TopicRun,
        ctx: TopicContext,
        params: Mapping[str, Any],
        cutoffs: Sequence[Any],
    ) -> list[Value]:
        curves = ctx.cached(
            ("hixeval", params["alpha"], params["unknown_size"]),
            lambda: hixeval_curves(ta, run, ctx, alpha=params["alpha"],
                                   unknown_size=params["unknown_size"]),
        )
        if curves is None:
            return [None] * len(cutoffs)
        curve = curves[which]
        if len(curve) == 0:
            return [0.0] * len(cutoffs)
        return [float(curve[(len(curve) if k is None else min(int(k), len(curve))) - 1])
                for k in cutoffs]

    return kernel


_PARAMS = (
    Param("alpha", float, 1.0, "weight of highlighted text already retrieved: 1 counts it "
          "once (Pehcevski 2006), 0 every time", check=unit_interval),
    UNKNOWN_SIZE,
)
for _which, (_name, _what) in enumerate((("P", "precision"), ("R", "recall"), ("F", "F"))):
    register(Family(
        name=f"HiXEval_{_name}",
        description=(f"HiXEval {_what} at k results (Pehcevski and Thom 2005; Pehcevski 2006, §4.2"
                     "); without a cut-off the whole list. Default alpha=1."),
        kernel=_kernel(_which),
        params=_PARAMS,
        cutoff=int,
        scales=("inex2005", "fol"),
    ))


def validate_highlighting(
    ta: TopicAssessments, collection: CollectionIndex | None, strict: bool = False
) -> list[str]:
    """Check INEX 2005-2008 highlighting assessments against themselves and the collection.

    Reports highlighted passages that overlap one another, judged elements whose ``rsize``
    differs from the highlighted characters inside them, and judged elements whose ``size``
    differs from the collection's (the last two need the collection index; spec §1.3, §9.4).
    Each problem names the document and element; it is a warning by default and an
    :class:`InexevalError` (the first problem, with the count) when ``strict``. Returns the
    problems found.
    """
    problems: list[str] = []
    for file, rows in ta.highlights.items():
        rows = np.asarray(rows, dtype=np.int64).reshape(-1, 2)
        ordered = rows[np.argsort(rows[:, 0], kind="stable")]
        clash = np.flatnonzero(ordered[1:, 0] < np.maximum.accumulate(ordered[:-1, 1]))
        for k in clash.tolist():
            problems.append(f"topic {ta.topic}: {file}: highlighted passage "
                            f"[{ordered[k + 1, 0]}, {ordered[k + 1, 1]}) overlaps an earlier one")
    size = ta.dims.get("size")
    rsize = ta.dims.get("rsize")
    if collection is not None and size is not None:
        merged = {f: spans.merge(r[:, 0], r[:, 1]) for f, r in
                  ((f, np.asarray(r, dtype=np.int64).reshape(-1, 2))
                   for f, r in ta.highlights.items())}
        for k, (file, path) in enumerate(zip(ta.files.tolist(), ta.paths.tolist())):
            span = collection.span(file, path) if path else None
            if span is None:
                continue
            if not np.isnan(size[k]) and int(size[k]) != span[1] - span[0]:
                problems.append(f"topic {ta.topic}: {file} {path}: size {int(size[k])} in the "
                                f"assessments, {span[1] - span[0]} in the collection")
            if rsize is None or np.isnan(rsize[k]) or file not in merged:
                continue
            _, starts, ends = merged[file]
            inside = int(spans.covered_lengths(starts, ends, [span[0]], [span[1]])[0])
            if inside != int(rsize[k]):
                problems.append(f"topic {ta.topic}: {file} {path}: rsize {int(rsize[k])}, but "
                                f"{inside} highlighted characters inside it")
    if problems and strict:
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise InexevalError(problems[0] + more, ta.source)
    for problem in problems:
        warn(problem, ta.source)
    return problems
