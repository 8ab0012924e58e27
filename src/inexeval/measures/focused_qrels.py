"""The FOL qrels prepared once for the character-based tasks (:mod:`inexeval.measures.focused`):
the judged articles of every topic as flat arrays, their highlighted passages merged per article
(spec §15.2, §15.4), the names packed for fast lookup."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import count
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
    merged: dict[int, tuple[IntArray, IntArray]] = field(default_factory=dict)

    def union(self, article: int) -> tuple[IntArray, IntArray]:
        """The article's highlighted characters as merged intervals (T2I reads a set)."""
        if article not in self.merged:
            lo, hi = np.searchsorted(self.doc, [article, article + 1])
            _, s, e = spans.merge(self.start[lo:hi], self.end[lo:hi])
            self.merged[article] = (s, e)
        return self.merged[article]


_PREPARED: dict[int, tuple[weakref.ref[Any], JudgedArticles]] = {}
"""Prepared judgements by the identity of their assessments (a Mapping is not hashable), while
those live."""


def judged_articles(assessed: TopicAssessments | Assessments) -> JudgedArticles:
    """The prepared judgements of one topic, or of every topic of ``assessed`` in official order."""
    key = id(assessed)
    cached = _PREPARED.get(key)
    if cached is not None and cached[0]() is assessed:
        return cached[1]
    topics = ([assessed] if isinstance(assessed, TopicAssessments)
              else [assessed[t] for t in topic_order(list(assessed))])
    prepared = _prepare(topics)
    _PREPARED[key] = (weakref.ref(assessed, lambda _: _PREPARED.pop(key, None)), prepared)
    return prepared


def _prepare(topics: Sequence[TopicAssessments]) -> JudgedArticles:
    names: dict[str, int] = {}
    codes, topic_of, rsizes, lengths, beps, highlights = [], [], [], [], [], []
    trel, nrel = [], []
    for t, assessed in enumerate(topics):
        rsize = assessed.dim("rsize").astype(np.int64)
        seen = first_seen_codes(assessed.files)
        first = np.flatnonzero(seen == np.arange(len(seen)))
        articles = assessed.files[first].tolist()
        codes.append(np.array([names.setdefault(a, len(names)) for a in articles],
                              dtype=np.int64))
        topic_of.append(np.full(len(first), t, dtype=np.int64))
        rsizes.append(rsize[first])
        lengths.append(assessed.dim("length").astype(np.int64)[first])
        beps.append(np.array([int(assessed.best_entry_points.get(a, -1)) for a in articles],
                             dtype=np.int64))
        highlights.append([assessed.highlights.get(a, _NO_HIGHLIGHTS) for a in articles])
        positive = rsize > 0
        trel.append(int(rsize[positive].sum()))
        nrel.append(int(np.count_nonzero(positive)))
    topic = _joined(topic_of)
    name_of = _joined(codes)
    keys = topic * len(names) + name_of
    order = np.argsort(keys, kind="stable")
    sole = np.full(len(names), -1, dtype=np.int64)
    once = np.bincount(name_of, minlength=len(names))[name_of] == 1
    sole[name_of[once]] = np.flatnonzero(once)
    packed, fits = pack_names(list(names))
    by_number = np.flatnonzero(fits)[np.argsort(packed[fits])]
    per_row = [h for of_topic in highlights for h in of_topic]
    passages = (np.concatenate(per_row).astype(np.int64).reshape(-1, 2) if per_row
                else np.zeros((0, 2), dtype=np.int64))
    doc = np.repeat(np.arange(len(per_row)), [len(h) for h in per_row])
    start, end = passages[:, 0].copy(), passages[:, 1].copy()
    return JudgedArticles(
        topics=tuple(a.topic for a in topics),
        row_of={a.topic: t for t, a in enumerate(topics)}, names=names, keys=keys[order],
        rows=order,
        sole=sole, packed=packed[by_number], packed_codes=by_number, topic=topic,
        rsize=_joined(rsizes), length=_joined(lengths), bep=_joined(beps),
        doc=doc, passages=np.searchsorted(doc, np.arange(len(per_row) + 1)), start=start,
        end=end, trel=np.array(trel, dtype=np.int64),
        nrel=np.array(nrel, dtype=np.int64), highlighted=spans.Coverage(start, end, doc))


_NO_HIGHLIGHTS = np.zeros((0, 2), dtype=np.int64)


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
