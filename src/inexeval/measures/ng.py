"""inex_eval_ng: overlap-aware, size-weighted recall_o and precision_o (INEX 2003 official).

Seed 000 §2.3 eqs. 5-7 (after Gövert, Kazai, Fuhr and Lalmas), spec §3.3. For the first ``k``
results ``c_1..c_k``, with per-dimension quantised exhaustivity ``e'`` and specificity ``s'``::

    |c'_i|       = |text(c_i) \\ U_{j<i} text(c_j)|   (overlap=considered; |c_i| when ignored)
    recall_o(k)  = sum_i e'(c_i) |c'_i| / |c_i|  /  recall base
    precision_o(k) = sum_i s'(c_i) |c'_i|  /  sum_i |c'_i|

This module also holds what the element measures of INEX 2003-2006 (this one, the xCG family and
HiXEval) share: where each result's text lies (:func:`result_geometry`, with the precedence of
size sources documented there), the layout of a collection rebuilt from an INEX 2005 assessment
file when no collection index is given (:func:`assessment_layout`), and interpolation at recall
points (:func:`interpolate_max`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval import spans
from inexeval.collection.implicit import resolve_passages
from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.collection.paths import ancestors, depth, parent, steps
from inexeval.errors import InexevalError, warn
from inexeval.measures.common import judged_positions, result_ids
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model.assessments import TopicAssessments
from inexeval.model.run import TopicRun
from inexeval.quantise import quantise_dimensions

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

RECALL_POINTS: FloatArray = np.arange(1, 101, dtype=np.float64) / 100.0
"""The 100 recall points 0.01, 0.02, ..., 1.00 (spec §3.3, §4.6; §12 Q4)."""

_EPS = 1e-9

UNKNOWN_SIZE = Param(
    "unknown_size", int, -1,
    "size in characters of a result whose size cannot be known (-1: such a result is an error)",
)


# ---------------------------------------------------------------------------------------------
# Where the results' text lies


@dataclass(frozen=True)
class ResultGeometry:
    """The text of each result of a topic's run, in rank order: a document code and the span
    ``[start, end)``; ``judged`` is the position of the result among the topic's judged units
    (-1 when not judged); ``codes`` maps document names (of the results and of the highlighted
    text) to their codes; ``collection`` is the element index the spans come from: the real one, or
    :func:`assessment_layout`'s when ``synthetic``."""

    docs: IntArray
    starts: IntArray
    ends: IntArray
    judged: IntArray
    codes: Mapping[str, int]
    collection: CollectionIndex
    synthetic: bool

    @property
    def sizes(self) -> IntArray:
        return self.ends - self.starts


def result_geometry(
    ta: TopicAssessments, run: TopicRun, ctx: TopicContext, unknown_size: int
) -> ResultGeometry:
    """Spans of every result of ``run`` (memoised per topic in ``ctx``).

    Precedence of size sources (spec §1.3, §9.4, §12 Q13): a passage is ``[offset, offset +
    length)``; an element's span comes from the collection index ``ctx.collection`` when given;
    otherwise, for INEX 2005-2008 assessments, from the layout rebuilt from the assessment file's
    ``size`` and ``rsize`` (:func:`assessment_layout`), which knows only judged elements. A result whose span
    is still unknown (a path not in the index, an FOL offset ``X``) is an error unless
    ``unknown_size >= 0``, in which case it is given that many characters of its own, overlapping
    nothing and containing no highlighted text.
    """

    def make() -> ResultGeometry:
        collection = ctx.collection
        synthetic = (collection is None and "size" in ta.dims
                     and bool(np.any((run.offsets < 0) & ~run.missing)))
        if synthetic:
            collection = _layout(ta, ctx)[0]
        elif collection is None:
            collection = CollectionIndex({})
        table: _SpanTable = ctx.shared_cached(("element spans", id(collection)),
                                              lambda: _SpanTable(collection))
        n = len(run)
        docs = np.full(n, -1, dtype=np.int64)
        starts = np.zeros(n, dtype=np.int64)
        ends = np.zeros(n, dtype=np.int64)
        passage = (run.offsets >= 0) & ~run.missing
        element = np.flatnonzero((run.offsets < 0) & ~run.missing)
        if len(element):
            ids = result_ids(run, ctx)[element]
            docs[element], starts[element], ends[element] = table.lookup(run, ids, element)
        table.codes_of(list(_highlights(ta, ctx, synthetic)))
        if np.any(passage):
            docs[passage] = table.codes_of(run.files[passage].tolist())
            starts[passage] = run.offsets[passage]
            ends[passage] = run.offsets[passage] + np.maximum(run.lengths[passage], 0)
        unknown = np.flatnonzero(docs < 0)
        if len(unknown):
            if unknown_size < 0:
                i = int(unknown[0])
                what = run.paths[i] or f"offset {run.offsets[i]}"
                raise InexevalError(
                    f"topic {run.topic}: the size of result {run.files[i]} {what} is unknown (not "
                    "in the collection index or the assessments); give unknown_size=N to score "
                    "it as N non-relevant characters",
                    None, int(run.lines[i]),
                )
            docs[unknown] = len(table.codes) + np.arange(len(unknown))
            starts[unknown] = 0
            ends[unknown] = unknown_size
        return ResultGeometry(docs, starts, ends, judged_positions(ta, run, ctx), table.codes,
                              collection, synthetic)

    result: ResultGeometry = ctx.cached(("element-geometry", unknown_size), make)
    return result


class _SpanTable:
    """Spans of elements by element-table id (:mod:`inexeval.measures.common`), resolved in the
    collection once per evaluator and reused by every run; documents get integer codes."""

    def __init__(self, collection: CollectionIndex) -> None:
        self.collection = collection
        self.codes: dict[str, int] = {}
        self.docs = np.full(0, -2, dtype=np.int64)
        self.starts = np.zeros(0, dtype=np.int64)
        self.ends = np.zeros(0, dtype=np.int64)
        self._documents: dict[str, dict[str, tuple[int, int]]] = {}

    def _document(self, file: str) -> dict[str, tuple[int, int]]:
        document = self.collection.get(file)
        if document is None:
            return {}
        return dict(zip(document.paths, zip(document.start.tolist(), document.end.tolist())))

    def codes_of(self, files: list[str]) -> IntArray:
        codes = self.codes
        return np.array([codes.setdefault(f, len(codes)) for f in files], dtype=np.int64)

    def lookup(
        self, run: TopicRun, ids: IntArray, rows: IntArray
    ) -> tuple[IntArray, IntArray, IntArray]:
        """``(docs, starts, ends)`` of the elements ``ids`` of the results at ``rows`` of ``run``;
        doc -1 where the element is not indexed."""
        if len(ids) and int(ids.max()) >= len(self.docs):
            grow = int(ids.max()) + 1 - len(self.docs)
            self.docs = np.concatenate([self.docs, np.full(grow, -2, dtype=np.int64)])
            self.starts = np.concatenate([self.starts, np.zeros(grow, dtype=np.int64)])
            self.ends = np.concatenate([self.ends, np.zeros(grow, dtype=np.int64)])
        new = np.flatnonzero(self.docs[ids] == -2)
        if len(new):
            files, paths = run.files[rows[new]].tolist(), run.paths[rows[new]].tolist()
            elements, codes, starts, ends = [], [], [], []
            for k, i in enumerate(new.tolist()):
                spans_of = self._documents.get(files[k])
                if spans_of is None:
                    spans_of = self._documents[files[k]] = self._document(files[k])
                found = spans_of.get(paths[k])
                elements.append(int(ids[i]))
                if found is None:
                    codes.append(-1)
                    starts.append(0)
                    ends.append(0)
                else:
                    codes.append(self.codes.setdefault(files[k], len(self.codes)))
                    starts.append(found[0])
                    ends.append(found[1])
            self.docs[elements] = codes
            self.starts[elements] = starts
            self.ends[elements] = ends
        return self.docs[ids].copy(), self.starts[ids].copy(), self.ends[ids].copy()


def first_cover(geometry: ResultGeometry, ctx: TopicContext) -> spans.Cover:
    """Which result first covers each stretch of text (memoised per run and topic: shared by
    inex_eval_ng, the xCG family and HiXEval)."""
    cover: spans.Cover = ctx.cached(
        ("first cover", id(geometry)),
        lambda: spans.first_cover(geometry.starts, geometry.ends, geometry.docs),
    )
    return cover


def unseen_lengths(geometry: ResultGeometry, ctx: TopicContext) -> IntArray:
    """For each result, its characters not covered by earlier results (spec §3.3's ``|c'_i|``)."""
    cover = first_cover(geometry, ctx)
    return np.bincount(cover.owner, weights=cover.ends - cover.starts,
                       minlength=len(geometry.docs)).astype(np.int64)


def highlight_arrays(
    ta: TopicAssessments, geometry: ResultGeometry, ctx: TopicContext
) -> tuple[IntArray, IntArray, IntArray]:
    """The topic's highlighted text as merged ``(docs, starts, ends)`` in ``geometry``'s codes:
    the layout's when the spans are rebuilt from the assessments, else the assessments' own
    (FOL passages, or 2005-2008 passages resolved against the collection)."""

    def make() -> tuple[IntArray, IntArray, IntArray]:
        highlights = _highlights(ta, ctx, geometry.synthetic)
        if not highlights:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        rows = [np.asarray(r, dtype=np.int64).reshape(-1, 2) for r in highlights.values()]
        docs = np.concatenate([np.full(len(r), geometry.codes[f], dtype=np.int64)
                               for f, r in zip(highlights, rows)])
        table = np.concatenate(rows)
        return spans.merge(table[:, 0], table[:, 1], docs)

    merged: tuple[IntArray, IntArray, IntArray] = ctx.shared_cached(
        ("merged highlights", id(ta), id(geometry.collection)), make)
    return merged


def _highlights(ta: TopicAssessments, ctx: TopicContext, synthetic: bool) -> Mapping[str, IntArray]:
    """The highlighted spans matching the element spans: the layout's, or the assessments'."""
    if synthetic:
        return _layout(ta, ctx)[1]
    if not ta.highlights and ta.passages:
        if ctx.collection is None:
            raise InexevalError(
                f"topic {ta.topic}: the highlighted passages need the collection index to be "
                "resolved", ta.source)
        resolved: TopicAssessments = ctx.shared_cached(
            ("resolved passages", id(ta)), lambda: resolve_passages(ta, ctx.collection))
        return resolved.highlights
    return ta.highlights


def _layout(ta: TopicAssessments, ctx: TopicContext) -> tuple[CollectionIndex, dict[str, IntArray]]:
    layout: tuple[CollectionIndex, dict[str, IntArray]] = ctx.shared_cached(
        ("assessment layout", id(ta)), lambda: assessment_layout(ta)
    )
    return layout


def assessment_layout(
    ta: TopicAssessments,
) -> tuple[CollectionIndex, dict[str, IntArray]]:
    """An element index and highlighted spans rebuilt from an INEX 2005-2008 assessment file.

    Without the collection, the positions of elements are unknown but their nesting (paths) and
    sizes (``size``, ``rsize``) are given, and that is all the overlap-aware measures need: each
    element's children are laid side by side from its start, its own text follows, and the
    highlighted characters of its own text (``rsize`` minus its judged children's) are placed at
    the start of that text. Every size, every nesting and every highlighted count of a judged
    element is then exact, so unseen and seen-highlighted sizes are too. An inconsistent file
    (children larger than their parent, rsize above size) is repaired upwards with a warning.
    """
    size = ta.dims.get("size")
    rsize = ta.dims.get("rsize")
    if size is None:
        raise InexevalError(
            f"topic {ta.topic}: element sizes are needed; give the collection index "
            f"({ta.scale} assessments carry no sizes)", ta.source,
        )
    rsize_values = np.zeros(len(ta)) if rsize is None else np.nan_to_num(rsize)
    by_file: dict[str, dict[str, tuple[float, float]]] = {}
    for file, path, s, r in zip(ta.files.tolist(), ta.paths.tolist(), size.tolist(),
                                rsize_values.tolist()):
        if path:
            by_file.setdefault(file, {})[path] = (s, r)
    documents: dict[str, DocumentIndex] = {}
    highlights: dict[str, IntArray] = {}
    repaired = 0
    for file, judged in by_file.items():
        documents[file], highlights[file], bad = _layout_document(file, judged)
        repaired += bad
    if repaired:
        warn(f"topic {ta.topic}: {repaired} judged element(s) have sizes inconsistent with their "
             "children or rsize above size; sizes were raised to fit", ta.source)
    return CollectionIndex(documents, source=ta.source), highlights


def _layout_document(
    file: str, judged: Mapping[str, tuple[float, float]]
) -> tuple[DocumentIndex, IntArray, int]:
    """One document of :func:`assessment_layout`: its index, its highlights and the number of
    elements whose sizes had to be raised."""
    children: dict[str | None, list[str]] = {}
    for path in sorted({a for p in judged for a in [p, *ancestors(p)]}, key=_path_order):
        children.setdefault(parent(path), []).append(path)
    total: dict[str, tuple[int, int]] = {}
    repaired = 0
    for path in sorted((p for k in children.values() for p in k), key=depth, reverse=True):
        kids = children.get(path, [])
        inner = sum(total[k][0] for k in kids)
        inner_h = sum(total[k][1] for k in kids)
        size, rsize = judged.get(path, (float("nan"), float("nan")))
        own = inner if np.isnan(size) else int(size)
        rel = inner_h if np.isnan(rsize) else int(rsize)
        if own < inner or rel < inner_h or rel > own:
            repaired += 1
            rel = max(rel, inner_h)
            own = max(own, inner, rel)
        total[path] = (own, rel)
    paths: list[str] = []
    parents: list[int] = []
    starts: list[int] = []
    marked: list[tuple[int, int]] = []
    begin: dict[str, int] = {}
    cursor = 0
    for root in children.get(None, []):
        begin[root] = cursor
        cursor += total[root][0]
    stack: list[tuple[str, int]] = [(r, -1) for r in reversed(children.get(None, []))]
    while stack:
        path, up = stack.pop()
        me = len(paths)
        paths.append(path)
        parents.append(up)
        starts.append(begin[path])
        inner, inner_h = begin[path], 0
        kids = children.get(path, [])
        for kid in kids:
            begin[kid] = inner
            inner += total[kid][0]
            inner_h += total[kid][1]
        if total[path][1] > inner_h:
            marked.append((inner, inner + total[path][1] - inner_h))
        stack.extend((k, me) for k in reversed(kids))
    index = DocumentIndex(
        name=file,
        paths=tuple(paths),
        tags=tuple(steps(p)[-1].split("[")[0] for p in paths),
        parent=np.array(parents, dtype=np.int64),
        depth=np.array([depth(p) for p in paths], dtype=np.int64),
        start=np.array(starts, dtype=np.int64),
        end=np.array([a + total[p][0] for p, a in zip(paths, starts)], dtype=np.int64),
        length=cursor,
    )
    return index, np.array(sorted(marked), dtype=np.int64).reshape(-1, 2), repaired


def _path_order(path: str) -> tuple[tuple[str, int], ...]:
    return tuple((s.split("[")[0], int(s.split("[")[1][:-1])) for s in steps(path))


# ---------------------------------------------------------------------------------------------
# Interpolation


def interpolate_max(
    recall: FloatArray, values: FloatArray, points: Sequence[float] | FloatArray = RECALL_POINTS
) -> FloatArray:
    """``max{ values[k] : recall[k] >= x }`` for every point ``x`` (0 where no ``k`` qualifies):
    the interpolation of inex_eval_ng precision (spec §3.3) and of effort-precision (spec §4.6).
    Recall values within 1e-9 of a point count as reaching it (exact decimals, spec §0.3)."""
    x = np.asarray(points, dtype=np.float64)
    if len(recall) == 0:
        return np.zeros(len(x))
    order = np.argsort(recall, kind="stable")
    r = recall[order]
    best_from = np.maximum.accumulate(values[order][::-1])[::-1]
    at = np.searchsorted(r, x - _EPS, side="left")
    out = np.zeros(len(x))
    inside = at < len(r)
    out[inside] = best_from[at[inside]]
    return out


# ---------------------------------------------------------------------------------------------
# inex_eval_ng


def overlap_free_recall_base(ta: TopicAssessments, exhaustivity: FloatArray) -> float:
    """The largest ``sum e'`` of a set of judged elements of which none contains another.

    The alternative recall denominator of spec §12 Q3: seed 002 §7.3.3 states that with overlap
    considered 100 % recall does not require returning overlapping answers, which the literal
    denominator of seed 000 eq. 5 (every component counted, nested ones several times) cannot
    give. Computed bottom-up: ``best(c) = max(e'(c), sum of best over c's nearest judged
    descendants)``.
    """
    best: dict[tuple[str, str], float] = {}
    below: dict[tuple[str, str], float] = {}
    units = sorted(
        zip(ta.files.tolist(), ta.paths.tolist(), exhaustivity.tolist()),
        key=lambda u: -depth(u[1]),
    )
    judged = {(f, p) for f, p, _ in units}
    total = 0.0
    for file, path, e in units:
        key = (file, path)
        best[key] = max(e, below.get(key, 0.0))
        up = next(((file, a) for a in ancestors(path) if (file, a) in judged), None) if path else None
        if up is None:
            total += best[key]
        else:
            below[up] = below.get(up, 0.0) + best[key]
    return total


def recall_precision_o(
    ta: TopicAssessments,
    run: TopicRun,
    ctx: TopicContext,
    *,
    quant: str = "strict",
    overlap: str = "considered",
    recall_base: str = "literal",
    unknown_size: int = -1,
) -> tuple[FloatArray, FloatArray] | None:
    """``recall_o(k)`` and ``precision_o(k)`` at every rank ``k`` (seed 000 eqs. 5-7).

    precision_o is NaN until some text has been seen (spec §3.3); None is returned when the
    recall base is 0 (nothing relevant under the quantisation: the topic is left out).
    """
    exhaustivity, specificity = quantise_dimensions(quant, ta)
    if recall_base == "literal":
        base = float(exhaustivity.sum())
    else:
        base = overlap_free_recall_base(ta, exhaustivity)
    if base <= 0:
        return None
    if len(run) == 0:
        return np.zeros(0), np.zeros(0)
    geometry = result_geometry(ta, run, ctx, unknown_size)
    sizes = geometry.sizes.astype(np.float64)
    if overlap == "considered":
        unseen = unseen_lengths(geometry, ctx).astype(np.float64)
    else:
        unseen = sizes
    judged = geometry.judged
    e = np.where(judged >= 0, exhaustivity[judged], 0.0)
    s = np.where(judged >= 0, specificity[judged], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction = np.where(sizes > 0, unseen / sizes, 0.0)
        text = np.cumsum(unseen)
        precision = np.where(text > 0, np.cumsum(s * unseen) / text, np.nan)
    return np.cumsum(e * fraction) / base, precision


def _ng_kernel(
    ta: TopicAssessments,
    run: TopicRun,
    ctx: TopicContext,
    params: Mapping[str, Any],
    cutoffs: Sequence[Any],
) -> list[Value]:
    curve = recall_precision_o(
        ta, run, ctx, quant=params["quant"], overlap=params["overlap"],
        recall_base=params["recall_base"], unknown_size=params["unknown_size"],
    )
    if curve is None:
        return [None] * len(cutoffs)
    defined = ~np.isnan(curve[1])
    recall, precision = curve[0][defined], curve[1][defined]
    out: list[Value] = []
    for cutoff in cutoffs:
        if cutoff is None:
            out.append(float(interpolate_max(recall, precision).mean()))
        else:
            out.append(float(interpolate_max(recall, precision, [float(cutoff)])[0]))
    return out


INEX_EVAL_NG = register(Family(
    name="inex_eval_ng",
    description=(
        "INEX 2003 overlap-aware size-weighted precision_o/recall_o (Hiemstra and Mihajlović 2005, eqs. 5-7"
        "): without cut-off the mean of the interpolated precision max{precision_o(k) : "
        "recall_o(k) >= x} over x = 0.01..1.00; @x that precision at recall x. Defaults: "
        "quant=strict, overlap=considered, recall_base=literal."
    ),
    kernel=_ng_kernel,
    params=(
        Param("quant", str, "strict", "per-dimension quantisation: strict (e'=[e=3], s'=[s=3]) "
              "or generalised (e/3, s/3)", ("strict", "generalised")),
        Param("overlap", str, "considered", "considered: only unseen text counts (|c'|); "
              "ignored: the whole element counts every time", ("considered", "ignored")),
        Param("recall_base", str, "literal", "literal: sum of e' over every judged component "
              "(Hiemstra and Mihajlović 2005, eq. 5); overlap_free: the largest sum of e' over judged components none "
              "of which contains another (Lehtonen 2006, §7.3.3)",
              ("literal", "overlap_free")),
        UNKNOWN_SIZE,
    ),
    cutoff=float,
    scales=("inex2003",),
))
