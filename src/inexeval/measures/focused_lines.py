"""A passage run (one topic or all) mapped onto the judged articles of
:mod:`inexeval.measures.focused_qrels` (spec §15.3-15.4), and the run rules the official tasks
impose (spec §1.8, §15.3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval import spans
from inexeval.measures.focused_qrels import IntArray, JudgedArticles, first_seen_codes, pack_names
from inexeval.model import Run, TopicRun

IN_CONTEXT = ("relevant-in-context", "best-in-context", "t2i")
NONEXISTENT_OFFSET = -10000
"""Offset the official tool gives a non-existent passage (never within ``bep_n`` of a BEP)."""


# --------------------------------------------------------------------------------------------
# A run (one topic or all), mapped onto the judgements


@dataclass(frozen=True)
class RunLines:
    """The lines of a run, topic by topic (the topics' lines in file order; the topics in
    official order, or in file order when mapped from a reader's joined columns)."""

    topic: IntArray
    """Topic of each line (position in ``JudgedArticles.topics``)."""
    bounds: IntArray
    """Lines ``bounds[k]:bounds[k + 1]`` are those of topic ``present[k]``."""
    present: IntArray
    article: IntArray
    """Judged article (row) of each line, -1 if unjudged."""
    doc: IntArray
    """Article code of each line: its row, or beyond the rows for unjudged articles (per topic)."""
    relevant: npt.NDArray[np.bool_]
    start: IntArray
    end: IntArray
    missing: npt.NDArray[np.bool_]
    lines: IntArray
    files: npt.NDArray[np.object_]
    stride: int
    """Unjudged articles: ``doc`` is past the rows, ``topic * stride`` plus a per-run code."""


def run_lines(judged: JudgedArticles, run: Run) -> RunLines:
    """Map a run's results onto the judgements: from the reader's joined columns when it gave
    them and every topic of the run is judged (the topics then come in file order), else topic
    by topic in official order (:func:`map_lines`)."""
    whole = run.joined()
    if whole is None or not all(topic in judged.row_of for topic in run.topics):
        return map_lines(judged, [(t, run.topics[topic]) for t, topic
                                   in enumerate(judged.topics) if topic in run.topics])
    present = np.array([judged.row_of[topic] for topic in run.topics], dtype=np.int64)
    return _mapped(judged, present, whole.bounds, whole.files, whole.offsets, whole.lengths,
                   whole.missing, whole.lines, whole.codes, whole.packed_names)


def map_lines(judged: JudgedArticles, parts: Sequence[tuple[int, TopicRun]]) -> RunLines:
    """Map the results of the given (topic position, topic run) pairs onto the judgements."""
    parts = [(t, run) for t, run in parts if len(run)]
    sizes = np.array([len(run) for _, run in parts], dtype=np.int64)
    present = np.array([t for t, _ in parts], dtype=np.int64)

    def joined(column: str, dtype: Any) -> npt.NDArray[Any]:
        if not parts:
            return np.zeros(0, dtype=dtype)
        return np.concatenate([getattr(run, column) for _, run in parts])

    numbered = bool(parts) and all(len(run.codes) == len(run) for _, run in parts)
    return _mapped(judged, present, np.concatenate(([0], np.cumsum(sizes))),
                   joined("files", object), joined("offsets", np.int64),
                   joined("lengths", np.int64), joined("missing", bool),
                   joined("lines", np.int64), joined("codes", np.int64) if numbered else None)


def _mapped(judged: JudgedArticles, present: IntArray, bounds: IntArray,
            files: npt.NDArray[np.object_], offsets: IntArray, lengths: IntArray,
            missing: npt.NDArray[np.bool_], lines: IntArray, codes: IntArray | None,
            packed_names: npt.NDArray[np.uint64] | None = None) -> RunLines:
    """The lines of topics ``present`` (rows ``bounds[k]:bounds[k + 1]`` of the columns, none
    empty) mapped onto the judgements; ``codes``: the reader's document numbers, if any, and
    ``packed_names`` the names of the codes as the reader packed them (:func:`pack_names`),
    if it did."""
    n = len(files)
    topic = np.repeat(present, np.diff(bounds))
    if codes is not None:
        # the reader numbered the documents: look each distinct name up once
        seen = codes
        # a line of each code (any: a code's lines have one name); a code of a topic not
        # scored here has no line, and its lookup (of line 0's name) goes unused
        count = int(seen.max()) + 1
        if packed_names is not None:
            packed = packed_names[:count]
            code = _name_codes(judged, packed, np.ones(count, dtype=bool), [])[seen]
        else:
            line_of = np.zeros(count, dtype=np.int64)
            line_of[seen] = np.arange(n)
            names = files[line_of].tolist()
            code = _name_codes(judged, *pack_names(names), names)[seen]
        stride = max(n, count)
    else:
        seen = first_seen_codes(files)
        distinct = np.flatnonzero(seen == np.arange(n))
        code = np.full(n, -1, dtype=np.int64)
        code[distinct] = np.fromiter(map(judged.names.get, files[distinct], repeat(-1)),
                                     dtype=np.int64, count=len(distinct))
        code = code[seen]
        stride = n
    article = np.full(n, -1, dtype=np.int64)
    relevant = np.zeros(n, dtype=bool)
    if len(judged.keys):
        # most names are judged in one topic: their row at once, a search for the others
        sole = judged.sole[np.maximum(code, 0)]
        article = np.where((code >= 0) & (judged.topic[sole] == topic), sole, -1)
        several = np.flatnonzero((code >= 0) & (sole < 0))
        if len(several):
            key = topic[several] * len(judged.names) + code[several]
            at = np.minimum(np.searchsorted(judged.keys, key), len(judged.keys) - 1)
            found = judged.keys[at] == key
            article[several[found]] = judged.rows[at[found]]
        relevant = (article >= 0) & (judged.rsize[article] > 0)
    known = article >= 0
    doc = np.where(known, article, len(judged.rsize) + topic * stride + seen)
    start = np.where(missing, NONEXISTENT_OFFSET, offsets)
    end = np.where(missing, NONEXISTENT_OFFSET, offsets + lengths)
    return RunLines(topic, bounds, present, article, doc, relevant, start, end, missing, lines,
                  files, stride)


def _name_codes(judged: JudgedArticles, packed: npt.NDArray[np.uint64], fits: npt.NDArray[np.bool_],
                names: list[str]) -> IntArray:
    """The code of each name in ``judged.names``, -1 for a name not judged; the names are
    given packed (:func:`pack_names`), and those that do not ``fit`` in full.

    Short names are found as numbers among the judged names' (a binary search in a compact
    array, where the names' dict is probed at random and its strings compared), others in the
    dict."""
    code = np.full(len(packed), -1, dtype=np.int64)
    if len(judged.packed):
        at = np.minimum(np.searchsorted(judged.packed, packed), len(judged.packed) - 1)
        found = fits & (judged.packed[at] == packed)
        code[found] = judged.packed_codes[at[found]]
    for i in np.flatnonzero(~fits).tolist():
        code[i] = judged.names.get(names[i], -1)
    return code


def sorted_distinct(values: IntArray) -> IntArray:
    """The distinct values, sorted."""
    ordered = np.sort(values)
    return ordered[np.concatenate((ordered[:1] == ordered[:1], ordered[1:] != ordered[:-1]))]  # type: ignore[no-any-return]


def relevant_chars(judged: JudgedArticles, lines: RunLines, sel: npt.NDArray[np.bool_]) -> IntArray:
    """``rel`` of spec §15.4 for the selected lines (0 elsewhere)."""
    rel = np.zeros(len(lines.doc), dtype=np.int64)
    picked = np.flatnonzero(sel)
    if len(picked) == 0:
        return rel
    docs, starts, ends = lines.doc[picked], lines.start[picked], lines.end[picked]
    first = judged.passages[docs]
    counts = judged.passages[docs + 1] - first
    pairs = int(counts.sum())
    if pairs > 8 * len(picked):
        # articles with many passages: two binary searches per line cost less than the pairs
        rel[picked] = judged.highlighted(starts, ends, docs)
        return rel
    # every line against each passage of its article, the overlaps summed per line
    line = np.repeat(np.arange(len(picked)), counts)
    passage = np.arange(pairs) + np.repeat(first - (np.cumsum(counts) - counts), counts)
    overlap = (np.minimum(ends[line], judged.end[passage])
               - np.maximum(starts[line], judged.start[passage]))
    rel[picked] = np.bincount(line, weights=np.maximum(overlap, 0), minlength=len(picked))
    return rel


# --------------------------------------------------------------------------------------------
# Run rules (spec §1.8, §15.3)


def violation(lines: RunLines, topic: str, task: str) -> tuple[int, str] | None:
    """The first line (file order) breaking the task's rules, with the reason; None if none."""
    n = len(lines.doc)
    if n == 0:
        return None
    found: list[tuple[int, int, str]] = []
    change = np.ones(n, dtype=bool)
    change[1:] = lines.doc[1:] != lines.doc[:-1]
    if task in IN_CONTEXT:
        heads = np.flatnonzero(change)
        _, first = np.unique(lines.doc[heads], return_index=True)
        again = np.setdiff1d(np.arange(len(heads)), first)
        if len(again):
            i = int(heads[again.min()])
            found.append((i, 0, (f"article results are interleaved in topic {topic} (article "
                                f"{lines.files[i]}): interleaved results are not allowed in "
                                "in-context tasks")))
        if task == "best-in-context" and not change.all():
            i = int(np.flatnonzero(~change)[0])
            found.append((i, 0, (f"multiple results from a single article in topic {topic} "
                                f"(article {lines.files[i]}): best in context allows one")))
    if task != "thorough" and task != "best-in-context":
        live = ~lines.missing
        if spans.conflicts(lines.start[live], lines.end[live], lines.doc[live]):
            i = _first_overlap(lines)
            found.append((i, 1, (f"passage overlaps with previously retrieved passages in topic "
                                f"{topic} (article {lines.files[i]})")))
    if not found:
        return None
    i, _, reason = min(found)
    return int(lines.lines[i]), reason


def _first_overlap(lines: RunLines) -> int:
    """Index of the first line conflicting with an earlier recorded passage (error path only)."""
    recorded: dict[int, list[tuple[int, int]]] = {}
    for i in range(len(lines.doc)):
        if lines.missing[i]:
            continue
        s, e = int(lines.start[i]), int(lines.end[i])
        earlier = recorded.setdefault(int(lines.doc[i]), [])
        if any(s0 < e and e0 > s for s0, e0 in earlier):
            return i
        earlier.append((s, e))
    raise AssertionError("conflict detected but not found")
