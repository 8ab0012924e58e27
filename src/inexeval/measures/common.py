"""Helpers shared by the element measures: an element table (integer ids with parent links, so
that nesting and matching are array operations), matching results to judged units, quantised
gains, and the first overlapping rank of every result."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from inexeval.errors import MeasureError
from inexeval.measures.registry import Param, TopicContext

if TYPE_CHECKING:  # the element code is imported where it is used: P on TREC qrels needs none
    from inexeval.model import TopicAssessments, TopicRun

IntArray = npt.NDArray[np.int64]


def _known_quantisation(name: str) -> None:
    from inexeval.quantise import get as quantisation

    quantisation(name)


def unit_interval(value: float) -> None:
    """Param check: a value in [0, 1] (e.g. the overlap weight ``alpha``)."""
    if not 0.0 <= value <= 1.0:
        raise MeasureError(f"{value!r} is not in [0, 1]")


QUANT = Param("quant", str, "strict", "quantisation of the assessments (see `inexeval measures`)",
              check=_known_quantisation)
"""The ``quant`` parameter shared by the element measures (default ``strict``)."""


class ElementTable:
    """Integer ids for ``(document, path)`` units, with the id of each unit's parent.

    A whole document is the unit ``(document, "")`` and the parent of its root element, so that
    a document overlaps every element of it. Ids are interned once and reused across runs and
    topics, which turns nesting tests into array lookups along the parent chain.
    """

    def __init__(self) -> None:
        from inexeval.collection.paths import parent

        self._parent = parent
        self._ids: dict[tuple[str, str], int] = {}
        self._parents: IntArray = np.zeros(1024, dtype=np.int64)
        self._scratch: IntArray = np.zeros(0, dtype=np.int64)

    def _intern(self, file: str, path: str) -> int:
        key = (file, path)
        found = self._ids.get(key)
        if found is not None:
            return found
        up = self._parent(path) if path else None
        parent_id = self._intern(file, up if up is not None else "") if path else -1
        new = len(self._ids)
        if new == len(self._parents):
            self._parents = np.concatenate([self._parents, np.zeros_like(self._parents)])
        self._ids[key] = new
        self._parents[new] = parent_id
        return new

    def ids(self, files: list[str], paths: list[str]) -> IntArray:
        """The id of each ``(file, path)``, interning new ones."""
        get = self._ids.get
        out = [get(key) for key in zip(files, paths)]
        if None in out:
            out = [self._intern(f, p) if i is None else i for f, p, i in zip(files, paths, out)]
        return np.array(out, dtype=np.int64)

    @property
    def parents(self) -> IntArray:
        """Parent id of every id (-1 for whole documents)."""
        return self._parents[: len(self._ids)]

    def positions(self) -> IntArray:
        """A scratch array over all ids, -1 everywhere: callers set entries, read them and set
        them back to -1, so that mapping ids to positions costs O(n), not O(table size)."""
        if len(self._scratch) < len(self._parents):
            self._scratch = np.full(len(self._parents), -1, dtype=np.int64)
        return self._scratch


def element_table(ctx: TopicContext) -> ElementTable:
    table = ctx.shared.get("elements")
    if not isinstance(table, ElementTable):
        table = ctx.shared["elements"] = ElementTable()
    return table


def result_ids(run: TopicRun, ctx: TopicContext) -> IntArray:
    """Element-table id of each result of the topic run (memoised for the run and topic)."""
    return ctx.cached("ids", lambda: element_table(ctx).ids(  # type: ignore[no-any-return]
        run.files.tolist(), run.paths.tolist()))


def judged_positions(ta: TopicAssessments, run: TopicRun, ctx: TopicContext) -> IntArray:
    """Position in ``ta`` of each result's judged unit, -1 where the result is not judged.

    Document-level assessments (FOL or TREC qrels: every path empty) match results by document
    alone, so an article run, or an element run seen at article level, meets its judgements.
    """

    def judged_ids() -> tuple[IntArray, IntArray, bool]:
        ids = element_table(ctx).ids(ta.files.tolist(), ta.paths.tolist())
        unique, first = np.unique(ids, return_index=True)
        return unique, first, bool(len(ta)) and not any(ta.paths.tolist())

    def match() -> IntArray:
        unique, first, documents_only = ctx.shared_cached(("judged ids", id(ta)), judged_ids)
        if documents_only:
            ids = element_table(ctx).ids(run.files.tolist(), [""] * len(run))
        else:
            ids = result_ids(run, ctx)
        if not len(unique):
            return np.full(len(run), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(unique, ids), len(unique) - 1)
        return np.where(unique[pos] == ids, first[pos], -1)

    return ctx.cached(("judged", id(ta)), match)  # type: ignore[no-any-return]


def quantised(ta: TopicAssessments, ctx: TopicContext, quant: str) -> npt.NDArray[np.float64]:
    """Quantised value of every judged unit of the topic (memoised for the topic)."""
    return ctx.shared_cached(("quant", id(ta), quant),  # type: ignore[no-any-return]
                             lambda: _quantise(quant, ta))


def _quantise(quant: str, ta: TopicAssessments) -> npt.NDArray[np.float64]:
    from inexeval.quantise import quantise

    return quantise(quant, ta)


def gains(ta: TopicAssessments, run: TopicRun, ctx: TopicContext, quant: str) -> npt.NDArray[np.float64]:
    """Quantised value of each result in rank order (0 for results not judged).

    On FOL qrels a passage gets its article's value only if it holds highlighted text (a
    non-existent ``X`` passage never does): the article being relevant does not make every
    stretch of it relevant (spec §5.2, relevant characters; §5.3, an article is relevant when it
    has highlighted text). A whole-article result gets the article's value."""

    def make() -> npt.NDArray[np.float64]:
        values = quantised(ta, ctx, quant)
        pos = judged_positions(ta, run, ctx)
        out = np.zeros(len(run), dtype=np.float64)
        hit = pos >= 0
        out[hit] = values[pos[hit]]
        if ta.scale == "fol":
            passage = (run.offsets >= 0) | run.missing
            out[passage & (highlighted_characters(ta, run, ctx) == 0)] = 0.0
        return out

    return ctx.cached(("gains", id(ta), quant), make)  # type: ignore[no-any-return]


def highlighted_characters(ta: TopicAssessments, run: TopicRun, ctx: TopicContext) -> IntArray:
    """Highlighted characters of each result's passage (0 for results that are not passages and
    for non-existent passages), each highlighted span of the qrels counted on its own as the
    official evaluator counts them (spec §15.4)."""

    def make() -> IntArray:
        from inexeval.spans import covered_lengths, document_codes

        files = [f for f, spans in ta.highlights.items() for _ in range(len(spans))]
        judged = np.concatenate([spans for spans in ta.highlights.values()] or
                                [np.zeros((0, 2), dtype=np.int64)])
        run_docs, judged_docs = document_codes(run.files, np.array(files, dtype=object))
        passage = (run.offsets >= 0) & ~run.missing
        ends = run.offsets + np.maximum(run.lengths, 0)
        covered = covered_lengths(judged[:, 0], judged[:, 1], run.offsets, ends, judged_docs,
                                  run_docs)
        return np.where(passage, covered, 0)

    return ctx.cached(("highlighted", id(ta)), make)  # type: ignore[no-any-return]


def first_overlap_rank(ids: IntArray, parents: IntArray,
                       scratch: IntArray | None = None) -> IntArray:
    """For each result (0-based rank r) with element id ``ids[r]``, the smallest rank r' != r of a
    result nested with it (the same unit, an ancestor or a descendant), or ``len(ids)`` if none.

    Vectorised along the parent chain: cost O(n log n + n * depth). ``scratch`` (all -1, at
    least as long as ``parents``; see :meth:`ElementTable.positions`) makes the id lookups
    direct; it is left all -1 again.
    """
    n = len(ids)
    partner = np.full(n, n, dtype=np.int64)
    if n < 2:
        return partner
    rank = np.arange(n, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_ids[1:] != sorted_ids[:-1])))
    unique = sorted_ids[starts]
    first = order[starts]
    counts = np.diff(np.append(starts, n))
    if scratch is None:
        scratch = np.full(len(parents), -1, dtype=np.int64)
    scratch[unique] = np.arange(len(unique))
    try:
        own = scratch[ids]
        repeated = counts[own] > 1
        if np.any(repeated):
            second = np.where(counts > 1, order[np.minimum(starts + 1, n - 1)], n)
            partner[repeated] = np.where(first[own[repeated]] == rank[repeated],
                                         second[own[repeated]], first[own[repeated]])
        below = np.full(len(unique), n, dtype=np.int64)
        ancestor = parents[ids]
        live = ancestor >= 0
        while np.any(live):
            a = ancestor[live]
            pos = scratch[a]
            present = pos >= 0
            who = rank[live][present]
            partner[who] = np.minimum(partner[who], first[pos[present]])
            np.minimum.at(below, pos[present], who)
            ancestor[live] = parents[a]
            live = ancestor >= 0
    finally:
        scratch[unique] = -1
    return np.minimum(partner, below[own])
