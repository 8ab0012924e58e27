"""The FOL qrels prepared once for the character-based tasks (:mod:`inexeval.measures.focused`):
the judged articles of every topic as flat arrays, their highlighted passages merged per article
(spec §15.2, §15.4), the names packed for fast lookup."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import count, repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval import spans
from inexeval.formats.lines import BYTE_MASKS, word_view
from inexeval.model import Assessments, TopicAssessments

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


# --------------------------------------------------------------------------------------------
# The qrels, prepared once


@dataclass(frozen=True)
class JudgedArticles:
    """FOL judgements of one or more topics in the official reading (spec §15.2).

    The judged articles of every topic are laid side by side as rows (an article's first qrels
    record), so that a whole run is mapped and scored with array operations at once. ``keys``
    (sorted) are ``topic * len(names) + name code`` of each row, ``rows`` the row of each key.
    """

    topics: tuple[str, ...]
    row_of: dict[str, int]
    """Position of each topic in ``topics``."""
    names: dict[str, int]
    keys: IntArray
    rows: IntArray
    sole: IntArray
    """Row of each name judged in one topic only; -1 for a name several topics judge (found
    in ``keys``)."""
    packed: npt.NDArray[np.uint64]
    """The names of 1 to 8 bytes as numbers (:func:`pack_names`), sorted; ``packed_codes``
    their codes."""
    packed_codes: IntArray
    topic: IntArray
    rsize: IntArray
    length: IntArray
    bep: IntArray
    doc: IntArray
    """Row of each highlighted passage (``start``, ``end``), sorted by row."""
    passages: IntArray
    """Passages ``passages[r]:passages[r + 1]`` are those of row ``r``."""
    start: IntArray
    end: IntArray
    trel: IntArray
    """Declared relevant characters of each topic."""
    nrel: IntArray
    """Relevant articles of each topic."""
    highlighted: spans.Coverage
    row_trel: IntArray
    """Declared relevant characters of each row (all its records: ``trel`` per row)."""
    row_nrel: IntArray
    """Relevant records of each row (``nrel`` per row)."""
    merged: dict[int, tuple[IntArray, IntArray]] = field(default_factory=dict)

    def union(self, article: int) -> tuple[IntArray, IntArray]:
        """The article's highlighted characters as merged intervals (T2I reads a set)."""
        if article not in self.merged:
            lo, hi = np.searchsorted(self.doc, [article, article + 1])
            _, s, e = spans.merge(self.start[lo:hi], self.end[lo:hi])
            self.merged[article] = (s, e)
        return self.merged[article]

    def without(self, removed: Mapping[str, npt.NDArray[np.str_]]) -> JudgedArticles:
        """These judgements without every record of the ``removed`` articles of each topic: the
        arrays :func:`_prepare` makes of such reduced qrels, made from these by dropping rows
        (the rows keep their order; the names stay those of these judgements, a name no row
        holds any more being looked up as unjudged)."""
        stride = len(self.names)
        wanted = [np.zeros(0, dtype=np.int64)]
        for name_of_topic, names in removed.items():
            if name_of_topic in self.row_of and len(names):
                code = np.fromiter(map(self.names.get, names.tolist(), repeat(-1)),
                                   dtype=np.int64, count=len(names))
                wanted.append(self.row_of[name_of_topic] * stride + code[code >= 0])
        dropped = _rows(self.keys, self.rows, np.concatenate(wanted))
        keep = np.ones(len(self.topic), dtype=bool)
        keep[dropped[dropped >= 0]] = False
        if keep.all():
            return self
        renumbered = np.cumsum(keep) - 1
        by_key = keep[self.rows]
        name_of = self.keys - self.topic[self.rows] * stride
        kept_names = np.empty(len(self.topic), dtype=np.int64)
        kept_names[self.rows] = name_of
        kept_names = kept_names[keep]
        sole = np.full(stride, -1, dtype=np.int64)
        once = np.bincount(kept_names, minlength=stride)[kept_names] == 1
        sole[kept_names[once]] = np.flatnonzero(once)
        topic = self.topic[keep]
        marked = keep[self.doc]
        doc = renumbered[self.doc[marked]]
        start, end = self.start[marked], self.end[marked]
        row_trel, row_nrel = self.row_trel[keep], self.row_nrel[keep]
        trel = np.zeros(len(self.topics), dtype=np.int64)
        np.add.at(trel, topic, row_trel)
        nrel = np.zeros(len(self.topics), dtype=np.int64)
        np.add.at(nrel, topic, row_nrel)
        return replace(
            self, keys=self.keys[by_key], rows=renumbered[self.rows[by_key]], sole=sole,
            topic=topic, rsize=self.rsize[keep], length=self.length[keep], bep=self.bep[keep],
            doc=doc, passages=np.searchsorted(doc, np.arange(len(topic) + 1)), start=start,
            end=end, trel=trel, nrel=nrel, highlighted=spans.Coverage(start, end, doc),
            row_trel=row_trel, row_nrel=row_nrel, merged={})


_PREPARED: dict[int, tuple[weakref.ref[Any], JudgedArticles]] = {}
"""Prepared judgements by the identity of their assessments (a Mapping is not hashable), while
those live."""


_REDUCED: dict[int, tuple[weakref.ref[Any], TopicAssessments | Assessments,
                          Mapping[str, npt.NDArray[np.str_]]]] = {}
"""Reduced qrels (:func:`note_reduced`) by identity: the qrels they come from and the articles
they no longer judge, while they live."""


def note_reduced(reduced: TopicAssessments | Assessments,
                 full: TopicAssessments | Assessments,
                 removed: Mapping[str, npt.NDArray[np.str_]]) -> None:
    """Say that ``reduced`` is ``full`` without every record of the ``removed`` articles of each
    topic (a pool study's smaller qrels): its prepared judgements are then those of ``full``
    with rows dropped (:meth:`JudgedArticles.without`), not prepared again from the records
    (a leave-one-out task spent 18 of its 25 ms preparing its qrels)."""
    key = id(reduced)
    _REDUCED[key] = (weakref.ref(reduced, lambda _: _REDUCED.pop(key, None)), full, removed)


def judged_articles(assessed: TopicAssessments | Assessments) -> JudgedArticles:
    """The prepared judgements of one topic, or of every topic of ``assessed`` in official order."""
    key = id(assessed)
    cached = _PREPARED.get(key)
    if cached is not None and cached[0]() is assessed:
        return cached[1]
    reduced = _REDUCED.get(key)
    if reduced is not None and reduced[0]() is assessed:
        prepared = judged_articles(reduced[1]).without(reduced[2])
    else:
        topics = ([assessed] if isinstance(assessed, TopicAssessments)
                  else [assessed[t] for t in topic_order(list(assessed))])
        prepared = _prepare(topics)
    _PREPARED[key] = (weakref.ref(assessed, lambda _: _PREPARED.pop(key, None)), prepared)
    return prepared


def _prepare(topics: Sequence[TopicAssessments]) -> JudgedArticles:
    # Every topic's records at once: a name is numbered where it first appears (topics in
    # order), a topic's rows are its records of an article first met in the topic, and only
    # the articles with a best entry point or highlights are looked up one by one (a pool
    # study prepares a reduced qrels per task: per-article work was 50 ms of each).
    sizes = np.array([len(a.files) for a in topics], dtype=np.int64)
    files = (np.concatenate([a.files for a in topics]) if len(topics)
             else np.zeros(0, dtype=object))
    record_topic = np.repeat(np.arange(len(topics), dtype=np.int64), sizes)
    met, code = np.unique(first_seen_codes(files), return_inverse=True)
    code = code.ravel().astype(np.int64)
    names = dict(zip(files[met].tolist(), range(len(met))))
    record_key = record_topic * len(names) + code
    _, first, record_row = np.unique(record_key, return_index=True, return_inverse=True)
    row_rank = np.empty(len(first), dtype=np.int64)
    row_rank[np.argsort(first)] = np.arange(len(first), dtype=np.int64)
    record_row = row_rank[record_row.ravel()]
    first.sort()
    rsize = _joined([a.dim("rsize").astype(np.int64) for a in topics])
    topic, name_of = record_topic[first], code[first]
    keys = topic * len(names) + name_of
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]

    bep_at, bep_value, marked_at, marked = [], [], [], []
    for t, assessed in enumerate(topics):
        base = t * len(names)
        for article, point in assessed.best_entry_points.items():
            bep_at.append(base + names.get(article, -base - 1))
            bep_value.append(int(point))
        for article, spans_of in assessed.highlights.items():
            marked_at.append(base + names.get(article, -base - 1))
            marked.append(spans_of)
    bep = np.full(len(first), -1, dtype=np.int64)
    rows_of_beps = _rows(sorted_keys, order, np.array(bep_at, dtype=np.int64))
    known = rows_of_beps >= 0
    bep[rows_of_beps[known]] = np.array(bep_value, dtype=np.int64)[known]
    rows_of_marks = _rows(sorted_keys, order, np.array(marked_at, dtype=np.int64))
    by_row = np.argsort(rows_of_marks, kind="stable")
    kept = by_row[rows_of_marks[by_row] >= 0].tolist()
    passages = (np.concatenate([marked[k] for k in kept]).astype(np.int64).reshape(-1, 2)
                if kept else np.zeros((0, 2), dtype=np.int64))
    doc = np.repeat(rows_of_marks[kept], [len(marked[k]) for k in kept]).astype(np.int64)
    start, end = passages[:, 0].copy(), passages[:, 1].copy()
    positive = rsize > 0
    trel = np.zeros(len(topics), dtype=np.int64)
    np.add.at(trel, record_topic[positive], rsize[positive])
    row_trel = np.zeros(len(first), dtype=np.int64)
    np.add.at(row_trel, record_row[positive], rsize[positive])
    sole = np.full(len(names), -1, dtype=np.int64)
    once = np.bincount(name_of, minlength=len(names))[name_of] == 1
    sole[name_of[once]] = np.flatnonzero(once)
    packed, fits = pack_names(list(names))
    by_number = np.flatnonzero(fits)[np.argsort(packed[fits])]
    return JudgedArticles(
        topics=tuple(a.topic for a in topics),
        row_of={a.topic: t for t, a in enumerate(topics)}, names=names, keys=sorted_keys,
        rows=order,
        sole=sole, packed=packed[by_number], packed_codes=by_number, topic=topic,
        rsize=rsize[first], length=_joined([a.dim("length").astype(np.int64)
                                            for a in topics])[first], bep=bep,
        doc=doc, passages=np.searchsorted(doc, np.arange(len(first) + 1)), start=start,
        end=end, trel=trel, nrel=np.bincount(record_topic[positive],
                                             minlength=len(topics)).astype(np.int64),
        highlighted=spans.Coverage(start, end, doc), row_trel=row_trel,
        row_nrel=np.bincount(record_row[positive], minlength=len(first)).astype(np.int64))


def _rows(sorted_keys: IntArray, order: IntArray, wanted: IntArray) -> IntArray:
    """The row of each wanted key (``topic * names + name``; negative for a name not judged
    anywhere), -1 for a key no row has."""
    if not len(sorted_keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    return np.where((wanted >= 0) & (sorted_keys[at] == wanted), order[at], -1)


def _joined(arrays: Sequence[npt.NDArray[Any]]) -> IntArray:
    return np.concatenate(arrays).astype(np.int64) if arrays else np.zeros(0, dtype=np.int64)


def pack_names(names: list[str]) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]]:
    """Each name's UTF-8 bytes as one big-endian number, and which names it holds whole (1 to 8
    bytes, none zero: equal numbers are then equal names)."""
    text = "\n".join(names).encode("utf-8", "surrogatepass") + b"\n"
    raw = np.frombuffer(text, dtype=np.uint8)
    ends = np.flatnonzero(raw == 10)
    if len(ends) != len(names) or bool((raw == 0).any()):  # a name holds a line feed or a zero
        return np.zeros(len(names), dtype=np.uint64), np.zeros(len(names), dtype=bool)
    widths = np.diff(ends, prepend=-1) - 1
    packed = word_view(text)[ends].astype(np.uint64) & BYTE_MASKS[np.minimum(widths, 8)]
    return packed, (widths >= 1) & (widths <= 8)


def first_seen_codes(names: npt.NDArray[np.object_]) -> IntArray:
    """A code per name, equal names equal codes (the position of the name's first occurrence)."""
    first: dict[object, int] = {}
    return np.fromiter(map(first.setdefault, names, count()), dtype=np.int64, count=len(names))


# --------------------------------------------------------------------------------------------
# Whole runs, with the official "all" lines


def topic_order(topics: Sequence[str]) -> list[str]:
    """Official order of topics: by string (``"10" < "100" < "9"``, spec §15.11)."""
    return sorted(topics)
