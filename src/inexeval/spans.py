"""The character engine: vectorised operations on half-open character intervals ``[start, end)``.

Everything INEX evaluated is a set of character positions of one document (DESIGN.md): an
element's text, an FOL passage, a highlighted stretch. This module holds the few operations every
character-based measure needs, on numpy int64 arrays, with no Python loop over intervals:

* :func:`merge` - the union of intervals, per document;
* :func:`covered_lengths` - for each query interval, how many of its characters lie in a given
  set of intervals (summed per listed interval, so a disjoint set gives the size of the
  intersection with its union; cumulative sums + ``searchsorted``, O((n + m) log n));
* :func:`first_cover` - for a ranked list of items, which item first covers each elementary
  stretch of text (a reverse sparse table of range minima, O((n + m) log m));
* :func:`unseen_lengths` and :func:`unseen_covered` - for each item of a ranked list, the number
  of its characters not covered by earlier items of the same document, and how many of those
  unseen characters lie in the document's highlighted set (HiXEval's ``seenH``, spec §5.1;
  Thorough's "characters not returned before", spec §15.6).

Documents are given as non-negative integer codes (see :func:`document_codes`); ``docs=None``
means every interval belongs to one document. Intervals with ``end < start`` are treated as empty.
Internally documents are laid side by side on one axis (``code * stride + position``), so a
single sort and ``searchsorted`` serve every document at once; the arithmetic itself is done in
document-local coordinates, so no product exceeds ``n * stride``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]

_INT64_SAFE = 2**62


def _ints(values: Any) -> IntArray:
    return np.ascontiguousarray(np.asarray(values, dtype=np.int64).reshape(-1))


def document_codes(*file_arrays: Sequence[Any] | npt.NDArray[Any]) -> list[IntArray]:
    """Integer codes for document names, shared across the given arrays.

    ``document_codes(run_files, judged_files)`` returns one int64 array per input such that equal
    names get equal codes (codes are positions in the sorted set of all names).
    """
    sizes = [len(a) for a in file_arrays]
    if sum(sizes) == 0:
        return [np.zeros(0, dtype=np.int64) for _ in sizes]
    everything = np.concatenate([np.asarray(a, dtype=object) for a in file_arrays])
    _, inverse = np.unique(np.asarray(everything, dtype=str), return_inverse=True)
    inverse = inverse.astype(np.int64).reshape(-1)
    return list(np.split(inverse, np.cumsum(sizes)[:-1]))


@dataclass(frozen=True)
class _Axis:
    """Documents laid side by side: global = code * stride + (position - low)."""

    low: int
    stride: int

    @staticmethod
    def spanning(*positions: IntArray, docs: Sequence[IntArray] = ()) -> _Axis:
        nonempty = [p for p in positions if len(p)]
        if not nonempty:
            return _Axis(0, 1)
        low = min(int(p.min()) for p in nonempty)
        high = max(int(p.max()) for p in nonempty)
        stride = high - low + 1
        top = max((int(d.max()) for d in docs if len(d)), default=0) + 1
        if top * stride >= _INT64_SAFE:
            raise OverflowError("character offsets too large for the int64 document axis")
        return _Axis(low, stride)

    def place(self, docs: IntArray, positions: IntArray) -> IntArray:
        return docs * self.stride + (positions - self.low)


def _docs_or_zero(docs: Any, n: int) -> IntArray:
    return np.zeros(n, dtype=np.int64) if docs is None else _ints(docs)


def merge(
    starts: Any, ends: Any, docs: Any = None
) -> tuple[IntArray, IntArray, IntArray]:
    """Union of intervals per document.

    Returns ``(docs, starts, ends)`` sorted by document then start: non-empty, disjoint and not
    touching (``[0,5)`` and ``[5,8)`` become ``[0,8)``). Empty and negative intervals vanish.
    """
    s, e = _ints(starts), _ints(ends)
    d = _docs_or_zero(docs, len(s))
    keep = e > s
    s, e, d = s[keep], e[keep], d[keep]
    if len(s) == 0:
        return d, s, e
    order = np.lexsort((s, d))
    s, e, d = s[order], e[order], d[order]
    reach = _reach(d, e)
    new = np.ones(len(s), dtype=bool)
    new[1:] = (d[1:] != d[:-1]) | (s[1:] > reach[:-1])
    first = np.flatnonzero(new)
    return d[first], s[first], np.maximum.reduceat(e, first)


def _reach(docs: IntArray, ends: IntArray) -> IntArray:
    """Running maximum of ``ends`` restarting at each new document (docs sorted)."""
    axis = _Axis.spanning(ends, docs=[docs])
    return np.maximum.accumulate(axis.place(docs, ends)) - docs * axis.stride + axis.low


class _Boundaries:
    """``g(x) = sum_k max(0, x - s_k) - max(0, x - e_k)`` over the intervals of ``x``'s own
    document (the characters of the intervals before ``x``, each interval counted on its own):
    one sorted array of every start (+1) and end (-1), so that a query is one binary search."""

    def __init__(self, axis: _Axis, docs: IntArray, starts: IntArray, ends: IntArray) -> None:
        places = np.concatenate((axis.place(docs, starts), axis.place(docs, ends)))
        order = np.argsort(places, kind="stable")
        self.axis = axis
        self.keys = places[order]
        signs = np.concatenate((np.ones(len(starts), dtype=np.int64),
                                np.full(len(ends), -1, dtype=np.int64)))[order]
        local = np.concatenate((starts, ends))[order] - axis.low
        self.count = np.concatenate(([0], np.cumsum(signs)))
        self.weight = np.concatenate(([0], np.cumsum(signs * local)))
        top = int(docs.max()) + 1 if len(docs) else 0
        self.first = np.searchsorted(self.keys, np.arange(top + 1) * axis.stride)
        """Position in ``keys`` of each document's first boundary (``top``: past the end)."""

    def __call__(self, docs: IntArray, positions: IntArray) -> IntArray:
        base = self.first[docs]
        upto = np.searchsorted(self.keys, self.axis.place(docs, positions), side="left")
        local = positions - self.axis.low
        before: IntArray = ((self.count[upto] - self.count[base]) * local
                            - (self.weight[upto] - self.weight[base]))
        return before


def covered_lengths(
    starts: Any,
    ends: Any,
    query_starts: Any,
    query_ends: Any,
    docs: Any = None,
    query_docs: Any = None,
) -> IntArray:
    """For each query interval, ``sum_k |[qs, qe) ∩ [s_k, e_k)|`` over the intervals of its document.

    The intervals need not be sorted, merged or disjoint: each listed interval counts on its own
    (so duplicated or overlapping judged passages count once per listing, as the official INEX
    evaluator's relevant-character count does, spec §15.4). Merge them first (:func:`merge`) for
    the size of the intersection with their union. Cost O((n + m) log n); to query one set of
    intervals many times, build a :class:`Coverage` once.
    """
    return Coverage(starts, ends, docs)(query_starts, query_ends, query_docs)


class Coverage:
    """A set of intervals per document, prepared (sorted, prefix sums) for
    :func:`covered_lengths` queries: ``Coverage(starts, ends, docs)(query_starts, query_ends,
    query_docs)``.

    ``g(x) = opened(x) - closed(x)``, the characters of the set before position ``x``, is 0 below
    the lowest start and constant above the highest end, so query positions are clipped to the
    set's own range and one axis (that of the set) serves every query.
    """

    def __init__(self, starts: Any, ends: Any, docs: Any = None) -> None:
        s, e = _ints(starts), _ints(ends)
        d = _docs_or_zero(docs, len(s))
        e = np.maximum(e, s)
        self.size = len(s)
        self.top = int(d.max()) + 1 if len(d) else 0
        self.axis = _Axis.spanning(s, e, docs=[d])
        self.before = _Boundaries(self.axis, d, s, e)

    def __call__(self, query_starts: Any, query_ends: Any, query_docs: Any = None) -> IntArray:
        qs, qe = _ints(query_starts), _ints(query_ends)
        if len(qs) == 0 or self.size == 0:
            return np.zeros(len(qs), dtype=np.int64)
        # a document without intervals covers nothing: any code from self.top on is such one
        qd = np.minimum(_docs_or_zero(query_docs, len(qs)), self.top)
        low, high = self.axis.low, self.axis.low + self.axis.stride - 1
        qe = np.clip(np.maximum(qe, qs), low, high)
        qs = np.clip(qs, low, high)
        covered = self.before(qd, qe) - self.before(qd, qs)
        return covered.astype(np.int64)


@dataclass(frozen=True)
class Cover:
    """Elementary stretches of text of a ranked list and the item that first covers each.

    ``docs``, ``starts``, ``ends``: the stretches between consecutive item boundaries of one
    document, in document order; ``owner``: index (rank position) of the first item covering the
    stretch, or -1 if no item covers it.
    """

    docs: IntArray
    starts: IntArray
    ends: IntArray
    owner: IntArray


def first_cover(starts: Any, ends: Any, docs: Any = None) -> Cover:
    """Which item of a ranked list first covers each elementary stretch of text.

    Items are in rank order (index 0 first). Each item assigns its own index to the range of
    elementary stretches it spans, keeping the minimum (a range-chmin): every range is split into
    two overlapping power-of-two blocks recorded in a sparse table, which is then pushed down
    level by level. Cost O((n + m) log m) for n items and m stretches, fully vectorised.
    """
    s, e = _ints(starts), _ints(ends)
    d = _docs_or_zero(docs, len(s))
    live = np.flatnonzero(e > s)
    empty = np.zeros(0, dtype=np.int64)
    if len(live) == 0:
        return Cover(empty, empty, empty, empty)
    axis = _Axis.spanning(s[live], e[live], docs=[d[live]])
    gs, ge = axis.place(d[live], s[live]), axis.place(d[live], e[live])
    bounds = np.unique(np.concatenate((gs, ge)))
    m = len(bounds) - 1
    first = np.searchsorted(bounds, gs)
    width = np.searchsorted(bounds, ge) - first
    level = np.floor(np.log2(width)).astype(np.int64)
    top = int(level.max())
    none = np.iinfo(np.int64).max
    table = np.full((top + 1, m), none, dtype=np.int64)
    for j in range(top + 1):
        at = level == j
        if not at.any():
            continue
        block = 1 << j
        np.minimum.at(table[j], first[at], live[at])
        np.minimum.at(table[j], first[at] + width[at] - block, live[at])
    for j in range(top, 0, -1):
        half = 1 << (j - 1)
        np.minimum(table[j - 1], table[j], out=table[j - 1])
        np.minimum(table[j - 1][half:], table[j][: m - half], out=table[j - 1][half:])
    owner = np.where(table[0] == none, -1, table[0])
    seg_docs = bounds[:-1] // axis.stride
    seg_starts = bounds[:-1] - seg_docs * axis.stride + axis.low
    seg_ends = bounds[1:] - seg_docs * axis.stride + axis.low
    covered = owner >= 0
    return Cover(seg_docs[covered], seg_starts[covered], seg_ends[covered], owner[covered])


def unseen_lengths(starts: Any, ends: Any, docs: Any = None) -> IntArray:
    """For each item of a ranked list, its characters not covered by earlier items of its document."""
    cover = first_cover(starts, ends, docs)
    n = len(_ints(starts))
    return np.bincount(cover.owner, weights=cover.ends - cover.starts, minlength=n).astype(np.int64)


def unseen_covered(
    starts: Any,
    ends: Any,
    highlighted: Coverage,
    docs: Any = None,
) -> tuple[IntArray, IntArray]:
    """For each item of a ranked list: (unseen characters, highlighted characters among them).

    "Unseen" = not covered by any earlier item of the same document; the highlighted count queries
    the document's ``highlighted`` set (:class:`Coverage`) with the unseen pieces (so it is a
    per-listing sum for an unmerged highlight set; give merged highlights for set semantics).
    """
    cover = first_cover(starts, ends, docs)
    n = len(_ints(starts))
    unseen = np.bincount(cover.owner, weights=cover.ends - cover.starts, minlength=n)
    hits = highlighted(cover.starts, cover.ends, cover.docs)
    relevant = np.bincount(cover.owner, weights=hits, minlength=n)
    return unseen.astype(np.int64), relevant.astype(np.int64)


def _order(keys: IntArray) -> IntArray:
    """An order sorting ``keys`` (ties in any order): where each key shifted left leaves room
    for its index, a sort of key and index in one number, which is faster than an argsort."""
    bits = max(len(keys) - 1, 1).bit_length()
    if len(keys) == 0 or int(keys.min()) < 0 or int(keys.max()) >= 1 << (62 - bits):
        return np.argsort(keys)
    packed = np.sort((keys << bits) | np.arange(len(keys)))
    order: IntArray = packed & ((1 << bits) - 1)
    return order


def conflicts(starts: Any, ends: Any, docs: Any = None) -> bool:
    """Whether two intervals of one document conflict: ``s1 < e2 and s2 < e1``.

    That is the official INEX overlap rule (spec §15.3): intervals sharing a character conflict,
    touching ones do not, and an empty interval conflicts only with one that strictly contains
    its position. Sorted by (document, start, end), an interval conflicts with an earlier one iff
    its start lies before the running maximum of the earlier ends of its document.
    """
    s, e = _ints(starts), _ints(ends)
    d = _docs_or_zero(docs, len(s))
    if len(s) < 2:
        return False
    e = np.maximum(e, s)
    if bool((e > s).all()):
        # no empty interval: two with the same start conflict in either order, so sorting by
        # (document, start) alone, with the fastest sort, is enough
        order = _order(_Axis.spanning(s, docs=[d]).place(d, s))
    else:
        # sorted by (document, start, end): two stable argsorts, much faster than a lexsort
        by_end = np.argsort(e, kind="stable")
        order = by_end[np.argsort(_Axis.spanning(s, docs=[d]).place(d[by_end], s[by_end]),
                                  kind="stable")]
    s, e, d = s[order], e[order], d[order]
    reach = _reach(d, e)
    same = d[1:] == d[:-1]
    return bool(np.any(same & (s[1:] < reach[:-1])))
