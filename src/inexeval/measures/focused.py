"""The character-based tasks of INEX 2007-2010 as the official evaluator computes them.

Focused and Thorough (iP[x], MAiP, article and character precision/recall; spec §5.2, §15.5,
§15.6), Relevant in Context (per-article F-beta, gP[r], gR[r], MAgP; §5.3, §15.8), Best in
Context (BEP distance, §5.4, §15.9) and Relevant in Context scored with T2I (§15.10), on FOL qrels
(:func:`inexeval.formats.fol.read_fol_qrels`) and passage runs. :func:`evaluate_task` reproduces
the official evaluator inex_eval 3.1 value for value (§15, worked examples §15.15), including its
surprises, which are defaults here:

* the ranking is the file order (rank and score columns ignored), nothing is truncated;
* precision is measured after every passage; recall buckets are ``floor(100.0 * R)`` taken in
  doubles, so 29/100 lands in bucket 28 (``exact_buckets=True``: exact rational buckets);
* a non-existent passage (``X``/``-1``) counts 18 characters (0 in a Thorough relevant article);
* Thorough charges only characters of an article not returned before (relevant articles only);
* judged passages are counted once per listing (§15.4), declared ``rsize`` is used for recall.

One deliberate difference: the run is grouped by topic, so a topic whose lines are split into
several blocks is scored as one list (the official tool carries the previous topic's rank
counter and article table into it and prints wrong values or "Impossible recall point").

The families registered for ``-m`` (scale ``fol``) are ``iP[x]`` (``iP@x`` is the same),
``MAiP`` (alias ``AiP``), ``art_prec``, ``art_rec``, ``art_f1``, ``char_prec``, ``char_rec``,
``char_f1`` (parameter ``task=focused|thorough``), and ``gP[r]``, ``gR[r]``, ``MAgP`` (alias
``AgP``) with ``task=relevant-in-context|best-in-context|t2i``, ``beta``, ``bep_n``, ``irr``.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, count, repeat
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from inexeval import spans
from inexeval.errors import InexevalError, MeasureError, RunError, warn
from inexeval.formats.lines import BYTE_MASKS, word_view
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model import Assessments, Run, TopicAssessments, TopicRun
from inexeval.model.run import RunParts, distinct_names, make_topic_run, topic_sizes
from inexeval.results import Results, Row

if TYPE_CHECKING:
    from inexeval.collection.index import CollectionIndex

TASKS = ("focused", "thorough", "relevant-in-context", "best-in-context", "t2i")
IN_CONTEXT = ("relevant-in-context", "best-in-context", "t2i")
NONEXISTENT_SIZE = 18
"""Size the official tool gives a non-existent (``X``/``-1``) passage (its "mean length")."""
NONEXISTENT_OFFSET = -10000
"""Offset the official tool gives a non-existent passage (never within ``bep_n`` of a BEP)."""
RECALL_POINTS = tuple(b / 100 for b in range(101))
REPORTED_IP = (0, 1, 5, 10)
REPORTED_RANKS = (1, 2, 3, 5, 10, 25, 50)
COUNTS = ("num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size")
SCORES = ("art_prec", "art_rec", "art_f1", "char_prec", "char_rec", "char_f1")

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


# --------------------------------------------------------------------------------------------
# The qrels, prepared once


@dataclass(frozen=True)
class _Judged:
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
    """The names of 1 to 8 bytes as numbers (:func:`_packed_names`), sorted; ``packed_codes``
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


_PREPARED: dict[int, tuple[weakref.ref[Any], _Judged]] = {}
"""Prepared judgements by the identity of their assessments (a Mapping is not hashable), while
those live."""


def _judged(assessed: TopicAssessments | Assessments) -> _Judged:
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


def _prepare(topics: Sequence[TopicAssessments]) -> _Judged:
    names: dict[str, int] = {}
    codes, topic_of, rsizes, lengths, beps, highlights = [], [], [], [], [], []
    trel, nrel = [], []
    for t, assessed in enumerate(topics):
        rsize = assessed.dim("rsize").astype(np.int64)
        seen = _first_seen(assessed.files)
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
    packed, fits = _packed_names(list(names))
    by_number = np.flatnonzero(fits)[np.argsort(packed[fits])]
    per_row = [h for of_topic in highlights for h in of_topic]
    passages = (np.concatenate(per_row).astype(np.int64).reshape(-1, 2) if per_row
                else np.zeros((0, 2), dtype=np.int64))
    doc = np.repeat(np.arange(len(per_row)), [len(h) for h in per_row])
    start, end = passages[:, 0].copy(), passages[:, 1].copy()
    return _Judged(
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


# --------------------------------------------------------------------------------------------
# A run (one topic or all), mapped onto the judgements


@dataclass(frozen=True)
class _Lines:
    """The lines of a run, topic by topic (the topics' lines in file order; the topics in
    official order, or in file order when mapped from a reader's joined columns)."""

    topic: IntArray
    """Topic of each line (position in ``_Judged.topics``)."""
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


def _run_lines(judged: _Judged, run: Run) -> _Lines:
    """Map a run's results onto the judgements: from the reader's joined columns when it gave
    them and every topic of the run is judged (the topics then come in file order), else topic
    by topic in official order (:func:`_map_lines`)."""
    whole = run.joined()
    if whole is None or not all(topic in judged.row_of for topic in run.topics):
        return _map_lines(judged, [(t, run.topics[topic]) for t, topic
                                   in enumerate(judged.topics) if topic in run.topics])
    present = np.array([judged.row_of[topic] for topic in run.topics], dtype=np.int64)
    return _mapped(judged, present, whole.bounds, whole.files, whole.offsets, whole.lengths,
                   whole.missing, whole.lines, whole.codes, whole.packed_names)


def _map_lines(judged: _Judged, parts: Sequence[tuple[int, TopicRun]]) -> _Lines:
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


def _mapped(judged: _Judged, present: IntArray, bounds: IntArray,
            files: npt.NDArray[np.object_], offsets: IntArray, lengths: IntArray,
            missing: npt.NDArray[np.bool_], lines: IntArray, codes: IntArray | None,
            packed_names: npt.NDArray[np.uint64] | None = None) -> _Lines:
    """The lines of topics ``present`` (rows ``bounds[k]:bounds[k + 1]`` of the columns, none
    empty) mapped onto the judgements; ``codes``: the reader's document numbers, if any, and
    ``packed_names`` the names of the codes as the reader packed them (:func:`_packed_names`),
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
            code = _name_codes(judged, *_packed_names(names), names)[seen]
        stride = max(n, count)
    else:
        seen = _first_seen(files)
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
    return _Lines(topic, bounds, present, article, doc, relevant, start, end, missing, lines,
                  files, stride)


def _packed_names(names: list[str]) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]]:
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


def _name_codes(judged: _Judged, packed: npt.NDArray[np.uint64], fits: npt.NDArray[np.bool_],
                names: list[str]) -> IntArray:
    """The code of each name in ``judged.names``, -1 for a name not judged; the names are
    given packed (:func:`_packed_names`), and those that do not ``fit`` in full.

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


def _first_seen(names: npt.NDArray[np.object_]) -> IntArray:
    """A code per name, equal names equal codes (the position of the name's first occurrence)."""
    first: dict[object, int] = {}
    return np.fromiter(map(first.setdefault, names, count()), dtype=np.int64, count=len(names))


def _distinct(values: IntArray) -> IntArray:
    """The distinct values, sorted."""
    ordered = np.sort(values)
    return ordered[np.concatenate((ordered[:1] == ordered[:1], ordered[1:] != ordered[:-1]))]  # type: ignore[no-any-return]


def _relevant_chars(judged: _Judged, lines: _Lines, sel: npt.NDArray[np.bool_]) -> IntArray:
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


def _violation(lines: _Lines, topic: str, task: str) -> tuple[int, str] | None:
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


def _first_overlap(lines: _Lines) -> int:
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


# --------------------------------------------------------------------------------------------
# Per-topic scores


@dataclass
class TopicScores:
    """One topic's official values: counts, named values in output order, recall curve."""

    counts: dict[str, int]
    values: dict[str, float]
    curve: FloatArray
    impossible: list[int] = field(default_factory=list)
    ranks: dict[str, FloatArray] = field(default_factory=dict)
    """In-context tasks: ``gP`` and ``gR`` at every article rank."""


def _sequential_sum(values: FloatArray) -> float:
    """Left-to-right double sum, as the official tool adds (numpy's sum is pairwise)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _div(a: float, b: float) -> float:
    """IEEE division as in Java: x/0 is NaN for x = 0, infinite otherwise."""
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    return a / b


def _f1(p: float, r: float) -> float:
    return _div((2 * p) * r, p + r) if p > 0 else 0.0


@dataclass(frozen=True)
class _Scored:
    """Values of every topic of a table: ``values[t]`` in :func:`measure_names` order (per
    topic), ``curves[t]`` the interpolated curve, ``impossible[t]`` the first recall bucket
    beyond 100 the topic met."""

    values: FloatArray
    curves: FloatArray
    impossible: dict[int, int]

    def topic(self, t: int, task: str) -> TopicScores:
        names = measure_names(task, per_topic=True)
        row = self.values[t].tolist()
        counts = {name: int(v) for name, v in zip(COUNTS, row)}
        values = dict(zip(names[len(COUNTS):], row[len(COUNTS):]))
        found = [self.impossible[t]] if t in self.impossible else []
        return TopicScores(counts, values, self.curves[t], found)


def _segment_cumsum(values: IntArray, lines: _Lines) -> IntArray:
    """Running sums of ``values`` restarting at every topic of ``lines``."""
    total = np.cumsum(values)
    before = np.concatenate(([0], total))[lines.bounds[:-1]]
    return total - np.repeat(before, np.diff(lines.bounds))  # type: ignore[no-any-return]


def _focused_scores(judged: _Judged, lines: _Lines, thorough: bool, exact: bool) -> _Scored:
    """Focused (§15.5) or Thorough (§15.6) values of every topic of ``judged`` at once."""
    topics = len(judged.topics)
    size = np.where(lines.missing, NONEXISTENT_SIZE, lines.end - lines.start)
    if thorough:
        unseen, unseen_rel = spans.unseen_covered(
            np.where(lines.missing, 0, lines.start), np.where(lines.missing, 0, lines.end),
            judged.highlighted, lines.doc)
        size = np.where(lines.relevant, unseen, size)
        rel = np.where(lines.relevant, unseen_rel, 0)
    else:
        rel = _relevant_chars(judged, lines, lines.relevant & ~lines.missing)
    found = _segment_cumsum(rel, lines)
    seen = _segment_cumsum(size, lines)
    trel = judged.trel[lines.topic]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = found / seen.astype(np.float64)
        recall = found / trel.astype(np.float64)
        if exact:
            bucket = np.where(trel > 0, (100 * found) // np.maximum(trel, 1), 0)
        else:
            bucket = np.floor(100.0 * np.nan_to_num(recall, nan=0.0, posinf=1e9)).astype(np.int64)
    usable = ~np.isnan(precision)
    impossible = usable & (bucket > 100)
    usable &= bucket <= 100
    raw = np.zeros((topics, 101), dtype=np.float64)
    np.maximum.at(raw.reshape(-1), lines.topic[usable] * 101 + bucket[usable], precision[usable])
    curves = np.maximum.accumulate(raw[:, ::-1], axis=1)[:, ::-1]
    articles = _distinct(lines.doc)
    judged_article = articles < len(judged.rsize)
    unjudged_topic = (articles[~judged_article] - len(judged.rsize)) // max(lines.stride, 1)
    ret_docs = (np.bincount(judged.topic[articles[judged_article]], minlength=topics)
                + np.bincount(unjudged_topic, minlength=topics))
    relevant_found = articles[judged_article][judged.rsize[articles[judged_article]] > 0]
    rel_found = np.bincount(judged.topic[relevant_found], minlength=topics)
    rs_n = np.zeros(topics, dtype=np.int64)
    s_n = np.zeros(topics, dtype=np.int64)
    last = lines.bounds[1:] - 1
    rs_n[lines.present] = found[last]
    s_n[lines.present] = seen[last]
    with np.errstate(divide="ignore", invalid="ignore"):
        art_prec = np.where(ret_docs > 0, rel_found / np.maximum(ret_docs, 1), 0.0)
        art_rec = rel_found / judged.nrel.astype(np.float64)
        char_prec = np.where(s_n > 0, rs_n / np.maximum(s_n, 1), 0.0)
        char_rec = rs_n / judged.trel.astype(np.float64)
        columns = [ret_docs, judged.nrel, rel_found, s_n, judged.trel, rs_n,
                   art_prec, art_rec, _f1s(art_prec, art_rec),
                   char_prec, char_rec, _f1s(char_prec, char_rec),
                   *(curves[:, b] for b in REPORTED_IP),
                   np.cumsum(curves, axis=1)[:, -1] / 101]
    first_topics, first = np.unique(lines.topic[impossible], return_index=True)
    return _Scored(np.stack(columns, axis=1).astype(np.float64), curves,
                   dict(zip(first_topics.tolist(), bucket[impossible][first].tolist())))


def _f1s(p: FloatArray, r: FloatArray) -> FloatArray:
    """:func:`_f1` of each pair (IEEE division as Java: x/0 is infinite, 0/0 NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, ((2 * p) * r) / (p + r), 0.0)


def _t2i_score(judged: _Judged, article: int, starts: IntArray, ends: IntArray,
               tolerance: int) -> float:
    """T2I score of one article (§15.10): precision of what a user reads, stopping at the
    ``tolerance``-th irrelevant character; recorded passages first, then the rest in order."""
    segments = list(zip(starts.tolist(), ends.tolist()))
    cursor = 0
    for s, e in list(segments):
        if s > cursor:
            segments.append((cursor, s))
        cursor = e
    length = int(judged.length[article])
    if cursor < length:
        segments.append((cursor, length))
    if tolerance == 0:
        lo, hi = np.searchsorted(judged.doc, [article, article + 1])
        first = next(((s, e) for s, e in segments if e > s), None)
        inside = first is not None and bool(np.any(
            (judged.start[lo:hi] < first[0]) & (first[0] < judged.end[lo:hi])))
        return 1.0 if inside and first is segments[0] else 0.0
    hs, he = judged.union(article)
    read_relevant = read_irrelevant = 0
    for a, b in segments:
        i = int(np.searchsorted(he, a, side="right"))
        position = a
        while position < b:
            if i < len(hs) and hs[i] <= position:
                step = min(int(he[i]), b) - position
                read_relevant += step
                position += step
                i += 1
                continue
            step = min(int(hs[i]) if i < len(hs) else b, b) - position
            if read_irrelevant + step >= tolerance:
                read_irrelevant = tolerance
                return read_relevant / (read_relevant + read_irrelevant)
            read_irrelevant += step
            position += step
    total = read_relevant + read_irrelevant
    return read_relevant / total if total else 0.0


def _in_context_topic(judged: _Judged, lines: _Lines, task: str, beta: float, bep_n: int,
                      irr: int) -> TopicScores:
    """Relevant in Context (§15.8), Best in Context (§15.9) or T2I (§15.10) values of a topic."""
    n = len(lines.doc)
    nrel, trel = int(judged.nrel[0]), int(judged.trel[0])
    head = np.ones(n, dtype=bool)
    head[1:] = lines.doc[1:] != lines.doc[:-1]
    heads = np.flatnonzero(head)
    k = len(heads)
    size = np.where(lines.missing, NONEXISTENT_SIZE, lines.end - lines.start)
    rel = _relevant_chars(judged, lines, lines.relevant & ~lines.missing)
    block_relevant = lines.relevant[heads] if k else np.zeros(0, dtype=bool)
    score = np.zeros(k, dtype=np.float64)
    if task == "relevant-in-context" and k:
        found = np.add.reduceat(rel, heads)
        returned = np.add.reduceat(size, heads)
        beta2 = beta * beta
        for j in np.flatnonzero(found > 0).tolist():
            p = found[j] / returned[j]
            r = found[j] / judged.rsize[lines.article[heads[j]]]
            score[j] = ((1 + beta2) * p) * r / ((beta2 * p) + r)
    elif task == "best-in-context":
        for j, i in enumerate(heads.tolist()):
            a = int(lines.article[i])
            if lines.relevant[i] and judged.bep[a] > -1:
                distance = abs(int(judged.bep[a]) - int(lines.start[i]))
                score[j] = (bep_n - distance) / bep_n if distance <= bep_n else 0.0
    elif task == "t2i":
        bounds = np.append(heads, n)
        for j in range(k):
            a = int(lines.article[heads[j]])
            if a < 0:
                continue
            block = slice(int(bounds[j]), int(bounds[j + 1]))
            live = ~lines.missing[block]
            starts, ends = lines.start[block][live], lines.end[block][live]
            order = np.argsort(starts, kind="stable")
            score[j] = _t2i_score(judged, a, starts[order], ends[order], irr)
    gp = np.cumsum(score) / np.arange(1, k + 1) if k else np.zeros(0)
    rel_at = np.cumsum(block_relevant)
    with np.errstate(divide="ignore", invalid="ignore"):
        gr = rel_at / np.float64(nrel)
    if k:
        agp = _div(_sequential_sum(gp[block_relevant]), nrel)
    else:
        agp = 0.0 if nrel > 0 else math.nan
    values: dict[str, float] = {}
    for c in REPORTED_RANKS:
        at = min(c, k) - 1
        values[f"gP[{c}]"] = float(gp[at]) if k else 0.0
        values[f"gR[{c}]"] = float(gr[at]) if k else 0.0
    values["AgP"] = agp
    raw = np.zeros(11, dtype=np.float64)
    bucket = np.floor(10.0 * np.nan_to_num(gr, nan=0.0)).astype(np.int64)
    keep = bucket <= 10
    np.maximum.at(raw, bucket[keep], gp[keep])
    curve = np.maximum.accumulate(raw[::-1])[::-1]
    best = task == "best-in-context"
    counts = {"num_ret": k, "num_rel": nrel, "num_rel_ret": int(block_relevant.sum()),
              "ret_size": 0 if best else int(size.sum()), "rel_size": trel,
              "rel_ret_size": 0 if best else int(rel.sum())}
    return TopicScores(counts, values, curve, ranks={"gP": gp, "gR": gr})


@dataclass(frozen=True)
class TaskSettings:
    """Parameters of the official tasks (defaults of inex_eval 3.1, spec §15.1)."""

    task: str = "focused"
    beta: float = 0.25
    bep_n: int = 500
    irr: int = 300
    exact_buckets: bool = False

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise MeasureError(f"unknown task {self.task!r} (one of {', '.join(TASKS)})")
        if self.bep_n <= 0:
            raise MeasureError(f"bep_n must be positive, not {self.bep_n}")
        if self.irr < 0:
            raise MeasureError(f"irr must be at least 0, not {self.irr}")


def topic_scores(assessed: TopicAssessments, run: TopicRun, settings: TaskSettings,
                 source: str | None = None) -> TopicScores:
    """The official values of one topic under a task; raises :class:`RunError` on rule breaks."""
    judged = _judged(assessed)
    lines = _map_lines(judged, [(0, run)])
    broken = _violation(lines, assessed.topic, settings.task)
    if broken is not None:
        line, reason = broken
        raise RunError(reason if source else f"{reason} (run line {line})", source, line)
    if settings.task in IN_CONTEXT:
        return _in_context_topic(judged, lines, settings.task, settings.beta, settings.bep_n,
                                 settings.irr)
    scored = _focused_scores(judged, lines, settings.task == "thorough", settings.exact_buckets)
    return scored.topic(0, settings.task)


# --------------------------------------------------------------------------------------------
# Whole runs, with the official "all" lines


def topic_order(topics: Sequence[str]) -> list[str]:
    """Official order of topics: by string (``"10" < "100" < "9"``, spec §15.11)."""
    return sorted(topics)


def measure_names(task: str, per_topic: bool) -> list[str]:
    """Names in the order the official tool prints them (spec §15.13).

    Per topic: the six counts, then ``art_*``/``char_*``, ``iP[0.00..0.10]`` and ``AiP``
    (focused, thorough) or ``gP[c]``/``gR[c]`` alternating and ``AgP`` (in-context tasks).
    ``all``: ``num_q``, the counts, then the means with ``MAiP``/``MAgP`` and ``ircl_prn.x``.
    """
    counts = list(COUNTS)
    if task in IN_CONTEXT:
        ranks = [f"g{w}[{c}]" for c in REPORTED_RANKS for w in "PR"]
        if per_topic:
            return counts + ranks + ["AgP"]
        return ["num_q"] + counts + ["MAgP"] + ranks + [f"ircl_prn.{b / 10:.2f}" for b in
                                                          range(11)]
    ips = [f"iP[{RECALL_POINTS[b]:.2f}]" for b in REPORTED_IP]
    if per_topic:
        return counts + list(SCORES) + ips + ["AiP"]
    return (["num_q"] + counts + list(SCORES) + ips + ["MAiP"]
            + [f"ircl_prn.{x:.2f}" for x in RECALL_POINTS])


def _means(values: FloatArray) -> FloatArray:
    """Column means of ``values`` as the official tool takes them: a left-to-right double sum
    divided by the number of rows (NaN for no rows)."""
    if len(values) == 0:
        return np.full(values.shape[1], math.nan)
    return np.cumsum(values, axis=0)[-1] / len(values)  # type: ignore[no-any-return]


def _overall(task: str, scored: _Scored, included: IntArray) -> dict[str, float]:
    """The "all" values: counts summed (over T, or over every qrels topic in-context), the rest
    the plain mean over T in topic order (spec §15.5, §15.7)."""
    summed = scored.values if task in IN_CONTEXT else scored.values[included]
    out: dict[str, float] = {"num_q": float(len(included))}
    out.update(zip(COUNTS, summed[:, :len(COUNTS)].sum(axis=0).tolist()))
    names = measure_names(task, per_topic=True)[len(COUNTS):]
    means = dict(zip(names, _means(scored.values[included, len(COUNTS):]).tolist()))
    curve = _means(scored.curves[included]).tolist()
    points = len(curve)
    for name in measure_names(task, per_topic=False)[1 + len(COUNTS):]:
        if name.startswith("ircl_prn."):
            out[name] = curve[round(float(name[9:]) * (points - 1))]
        elif name in ("MAiP", "MAgP"):
            out[name] = means["A" + name[2:]]
        else:
            out[name] = means[name]
    return out


@dataclass
class _InputNotes:
    """What is warned about a run once it is read (a run given in parts is noted part by part):
    topics not in the qrels, passages ending beyond the article length the qrels give."""

    unknown: list[str] = field(default_factory=list)
    unknown_line: int | None = None
    beyond: int = 0
    beyond_line: int | None = None

    def note(self, judged: _Judged, lines: _Lines, run: Run) -> None:
        unknown = [t for t in run if t not in judged.row_of]
        if unknown:
            self.unknown += unknown
            first = min(int(run[t].lines[0]) for t in unknown)
            self.unknown_line = first if self.unknown_line is None else min(self.unknown_line,
                                                                            first)
        known = (lines.article >= 0) & ~lines.missing
        beyond = lines.lines[known][lines.end[known] > judged.length[lines.article[known]]]
        if len(beyond):
            self.beyond += len(beyond)
            first = int(beyond.min())
            self.beyond_line = first if self.beyond_line is None else min(self.beyond_line, first)

    def warn(self, source: str | None) -> None:
        """One warning per kind, for the whole run."""
        unknown = self.unknown
        if unknown:
            warn(f"{len(unknown)} topic(s) of the run are not in the qrels and are ignored: "
                 f"{', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''}", source,
                 self.unknown_line)
        if self.beyond:
            warn(f"{self.beyond} passage(s) end beyond the article length given in the qrels",
                 source, self.beyond_line)


def _warn_impossible(topic: str, bucket: int, source: str | None) -> None:
    warn(f"impossible recall point {bucket} in topic {topic} (the qrels declare fewer relevant "
         "characters than their passages hold); point skipped as the official tool does", source)


_EMPTY: weakref.WeakKeyDictionary[TopicAssessments, dict[TaskSettings, TopicScores]] = (
    weakref.WeakKeyDictionary())


def _topic_by_topic(qrels: Assessments, run: Run, settings: TaskSettings) -> _Scored:
    """Every qrels topic scored on its own (in-context tasks, and runs breaking a rule: the
    first broken rule in topic order raises, after the warnings of the topics before it)."""
    scores = []
    for topic in topic_order(list(qrels)):
        results = run.topics.get(topic)
        if results is not None and len(results):
            scores.append(topic_scores(qrels[topic], results, settings, run.source))
            if scores[-1].impossible:
                _warn_impossible(topic, scores[-1].impossible[0], run.source)
        else:
            empty = _EMPTY.setdefault(qrels[topic], {})
            if settings not in empty:
                empty[settings] = topic_scores(qrels[topic], make_topic_run(topic, []), settings)
            scores.append(empty[settings])
    names = measure_names(settings.task, per_topic=True)
    values = np.array([[*(s.counts[n] for n in COUNTS), *(s.values[n] for n in names[len(COUNTS):])]
                       for s in scores], dtype=np.float64).reshape(len(scores), len(names))
    points = 11 if settings.task in IN_CONTEXT else 101
    curves = np.array([s.curve for s in scores], dtype=np.float64).reshape(len(scores), points)
    return _Scored(values, curves, {})


def _run_scores(qrels: Assessments, run: Run, settings: TaskSettings,
                notes: _InputNotes | None = None) -> _Scored:
    """The values of every qrels topic (official order) for one run, with the run's warnings
    (those about its input kept in ``notes`` when given: the run is one part of several).

    Focused and Thorough score the whole run at once; the in-context tasks go topic by topic."""
    judged = _judged(qrels)
    lines = _run_lines(judged, run)
    whole = notes is None
    notes = _InputNotes() if notes is None else notes
    notes.note(judged, lines, run)
    if whole:
        notes.warn(run.source)
    if settings.task == "thorough" or (settings.task == "focused" and not _overlapping(lines)):
        scored = _focused_scores(judged, lines, settings.task == "thorough",
                                 settings.exact_buckets)
        for t, bucket in sorted(scored.impossible.items()):
            _warn_impossible(judged.topics[t], bucket, run.source)
        return scored
    return _topic_by_topic(qrels, run, settings)


def _parts_scores(qrels: Assessments, parts: Iterable[Run], settings: TaskSettings
                  ) -> tuple[_Scored, dict[str, int]]:
    """:func:`_run_scores` of a run given in parts (runs of whole topics), and the number of
    results of each topic of the run: each part is scored and released, the rows of its topics
    kept."""
    given = iter(parts)
    first, second = next(given, None), next(given, None)
    if first is None or second is None:  # one part: the run's own warnings in their order
        run = first if first is not None else Run("", "passage", {})
        return _run_scores(qrels, run, settings), topic_sizes(run)
    judged = _judged(qrels)
    notes = _InputNotes()
    sizes: dict[str, int] = {}
    values = curves = None
    source = None
    for part in chain((first, second), given):
        source = part.source
        sizes.update(topic_sizes(part))
        if values is not None and not len(part):
            continue
        scored = _run_scores(qrels, part, settings, notes)
        if values is None or curves is None:
            values, curves = scored.values, scored.curves
            continue
        rows = [judged.row_of[topic] for topic in part if topic in judged.row_of]
        if rows:  # the arrays are the scoring's own
            values[rows] = scored.values[rows]
            curves[rows] = scored.curves[rows]
    notes.warn(source)
    assert values is not None and curves is not None
    return _Scored(values, curves, {}), sizes


def _overlapping(lines: _Lines) -> bool:
    live = ~lines.missing
    return spans.conflicts(lines.start[live], lines.end[live], lines.doc[live])


def evaluate_task(
    qrels: Assessments,
    runs: Sequence[Run | RunParts],
    task: str,
    *,
    complete: bool = False,
    per_topic: bool = True,
    beta: float = 0.25,
    bep_n: int = 500,
    irr: int = 300,
    exact_buckets: bool = False,
    collection: CollectionIndex | None = None,
) -> Results:
    """Evaluate FOL runs under an official INEX task exactly as inex_eval 3.1 does (spec §15).

    ``task``: ``focused``, ``thorough``, ``relevant-in-context``, ``best-in-context`` or ``t2i``.
    ``complete`` (``-c``): average over every qrels topic; otherwise over the qrels topics with at
    least one run line. ``beta`` (``-beta``, 0.25): weight of recall in the RiC F-score;
    ``bep_n`` (``-n``, 500): BEP distance limit; ``irr`` (``-irr``, 300): T2I tolerance in
    characters; ``exact_buckets``: exact rational recall buckets instead of the tool's doubles.
    An element run is scored as the passage run ``inexeval convert run`` makes of it with
    ``collection`` (:func:`inexeval.convert.passages_for`; without a collection, an error).
    A FOL run may be given in parts (:class:`inexeval.model.run.RunParts`, of
    :func:`inexeval.formats.fol.read_fol_run_parts`): each part is scored and released, so a run
    of any length is evaluated in the memory of one part.

    Per-topic rows (if ``per_topic``) use the official per-topic names (``AiP``, ``AgP``) and
    come topic by topic in string order of topic ids, measures in official order
    (:func:`measure_names`); ``Results.means()`` gives the official "all" lines in official
    order (``num_q`` first, ``MAiP``/``MAgP``, ``ircl_prn.x``), NaN where the tool prints NaN.
    Runs breaking the task's rules raise :class:`RunError` naming the run file and line.
    """
    if qrels.scale != "fol":
        raise MeasureError(f"task {task} needs FOL qrels, not {qrels.scale} assessments",
                           qrels.source)
    for name, value, check in (("beta", beta, positive_finite), ("bep_n", bep_n, positive_finite),
                               ("irr", irr, non_negative)):
        try:
            check(value)
        except MeasureError as error:
            raise MeasureError(f"{name}: {error.reason}") from None
    settings = TaskSettings(task, beta, bep_n, irr, exact_buckets)
    from inexeval.convert import element_run_to_passages, passages_for

    def passages(run: Run) -> Run:
        run = passages_for(run, qrels, collection)
        if run.kind == "document":
            # a task scores characters: a whole-article result is the article's text
            if collection is None:
                raise InexevalError(f"a document run scored by the {task} task needs the "
                                    "collection (--collection DIR|INDEX) for the articles' "
                                    "lengths in characters", run.source)
            run = element_run_to_passages(run, collection)
        return run

    all_topics = topic_order(list(qrels))
    per_topic_names = measure_names(task, per_topic=True)
    results = Results(aggregates={"AiP": "none", "AgP": "none"})
    scores = []
    for run in runs:
        parts = run if isinstance(run, RunParts) else [run]
        scores.append(_parts_scores(qrels, map(passages, parts), settings))
    labels = distinct_names([run.name for run in runs], [run.source for run in runs])
    for (scored, sizes), label in zip(scores, labels):
        included = np.array([t for t, topic in enumerate(all_topics)
                             if complete or sizes.get(topic, 0)], dtype=np.int64)
        results.topics_evaluated[label] = [all_topics[t] for t in included.tolist()]
        if per_topic:
            for t in included.tolist():
                results.extend([Row(label, all_topics[t], name, value) for name, value
                                in zip(per_topic_names, scored.values[t].tolist())])
        overall = _overall(task, scored, included)
        results.overall.extend(Row(label, "all", name, value) for name, value in overall.items())
    return results


# --------------------------------------------------------------------------------------------
# Families for -m


def _scores(assessed: TopicAssessments, run: TopicRun, ctx: TopicContext,
            settings: TaskSettings) -> TopicScores:
    result: TopicScores = ctx.cached(("focused.topic_scores", settings),
                                     lambda: topic_scores(assessed, run, settings))
    return result


def _defined(value: float) -> Value:
    return None if math.isnan(value) else value


def _settings(params: Mapping[str, Any]) -> TaskSettings:
    return TaskSettings(**{k: v for k, v in params.items()
                           if k in ("task", "beta", "bep_n", "irr", "exact_buckets")})


def _ip_kernel(assessed: Any, run: Any, ctx: TopicContext, params: Mapping[str, Any],
               cutoffs: Sequence[Any]) -> list[Value]:
    scores = _scores(assessed, run, ctx, _settings(params))
    out: list[Value] = []
    for x in cutoffs:
        bucket = round(float(x) * 100)
        if not 0 <= bucket <= 100 or abs(bucket - float(x) * 100) > 1e-6:
            raise MeasureError(f"iP[{x}]: recall level must be one of 0.00, 0.01, ..., 1.00")
        out.append(float(scores.curve[bucket]))
    return out


def _value_kernel(name: str) -> Any:
    def kernel(assessed: Any, run: Any, ctx: TopicContext, params: Mapping[str, Any],
               cutoffs: Sequence[Any]) -> list[Value]:
        scores = _scores(assessed, run, ctx, _settings(params))
        if name in ("gP", "gR"):
            return [_defined(_rank_value(scores, name, int(c))) for c in cutoffs]
        return [_defined(scores.values[name])]
    return kernel


def _rank_value(scores: TopicScores, name: str, cutoff: int) -> float:
    """gP/gR at any rank with the official rule: past the last article, the last article's
    value (not divided by the cut-off, spec §15.7); 0 for an empty list."""
    values = scores.ranks[name]
    return float(values[min(cutoff, len(values)) - 1]) if len(values) else 0.0


def positive_finite(value: float) -> None:
    """Param check: a finite number above 0 (``beta``, ``bep_n``)."""
    if not (math.isfinite(value) and value > 0):
        raise MeasureError(f"{value!r} is not a finite number above 0")


def non_negative(value: float) -> None:
    """Param check: a number of at least 0 (``irr``)."""
    if not value >= 0:
        raise MeasureError(f"{value!r} is negative")


_FOCUSED_TASK = Param("task", str, "focused", "official task: focused or thorough (characters "
                      "returned before are not charged again)", ("focused", "thorough"))
_EXACT = Param("exact_buckets", bool, False, "exact rational recall buckets instead of the "
               "official floor(100.0*R) in doubles (29/100 -> bucket 29, not 28)")
_CONTEXT_PARAMS = (
    Param("task", str, "relevant-in-context", "official in-context task", IN_CONTEXT),
    Param("beta", float, 0.25, "weight of recall in the per-article F-score (RiC; INEX 2010)",
          check=positive_finite),
    Param("bep_n", int, 500, "BEP distance limit n in characters (BiC; 1000 in 2007)",
          check=positive_finite),
    Param("irr", int, 300, "tolerance to irrelevance in characters (t2i)", check=non_negative),
)

register(Family("iP", "interpolated precision at recall level x, official INEX 2007-2010 "
                "(Kamps et al. 2007; inex_eval 3.1)", _ip_kernel,
                (_FOCUSED_TASK, _EXACT), cutoff=float, cutoff_required=True, scales=("fol",),
                bracket_cutoff=True))
register(Family("MAiP", "mean average interpolated precision over 101 recall levels; "
                "per topic AiP", _value_kernel("AiP"), (_FOCUSED_TASK, _EXACT),
                aliases=("AiP",), scales=("fol",)))
for _name, _what in (("art_prec", "article precision"), ("art_rec", "article recall"),
                     ("art_f1", "article F1"), ("char_prec", "character precision"),
                     ("char_rec", "character recall"), ("char_f1", "character F1")):
    register(Family(_name, f"{_what} of the whole list, inex_eval 3.1",
                    _value_kernel(_name), (_FOCUSED_TASK,), scales=("fol",)))
register(Family("gP", "generalised precision at article rank r, in-context tasks; "
                "past the last article the last value", _value_kernel("gP"),
                _CONTEXT_PARAMS, cutoff=int, cutoff_required=True, scales=("fol",),
                bracket_cutoff=True))
register(Family("gR", "generalised recall at article rank r",
                _value_kernel("gR"), _CONTEXT_PARAMS, cutoff=int, cutoff_required=True,
                scales=("fol",), bracket_cutoff=True))
register(Family("MAgP", "mean average generalised precision; per topic AgP",
                _value_kernel("AgP"), _CONTEXT_PARAMS, aliases=("AgP",), scales=("fol",)))
