"""The TREC Genomics 2007 passage measures (Hersh, Cohen, Ruslen and Roberts 2007, "TREC 2007
Genomics Track Overview"), as the track's scoring script trecgen2007_score.py computes them.

``passage2_AP`` (mean: Passage2 MAP) is average precision over characters: the run's passages are
read in rank order, character by character from the start of each; a relevant character (one of
a gold passage) not read before adds one to the characters read and to the relevant characters
found, and adds the precision at that point (found / read) to a sum; an irrelevant character
adds one to the characters read; a relevant character read before counts for nothing. The
sum is divided by the topic's number of relevant characters (the union of its gold passages), so
that relevant characters never read count 0. It needs only highlighted spans, so it runs on any
FOL qrels as well.

``aspect_AP`` (mean: Aspect MAP) needs the Genomics gold standard's aspects: each run passage
takes the aspects of the first gold passage of its document (in gold-file order) that it
overlaps by at least one character. A passage bringing n aspects not seen before counts one
relevant rank and adds n times the precision at that rank; a passage with only aspects seen
before counts neither as relevant nor as read; a passage overlapping no gold passage counts as one
irrelevant rank. The sum is divided by the number of distinct aspects of the topic.

Passages are read in the script's order: by rank, ties by pmid, offset and length.
Non-existent passages (FOL ``X`` offsets) count as empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from inexeval.errors import MeasureError
from inexeval.measures.registry import Family, TopicContext, Value, register
from inexeval.model import TopicAssessments, TopicRun
from inexeval.spans import merge


def _precision_sum(found: int, read: int, new: int) -> float:
    """Sum of the precision after each of ``new`` relevant characters read in a row, starting
    from ``found`` relevant characters among ``read``."""
    steps = np.arange(1, new + 1, dtype=np.float64)
    return float(np.sum((found + steps) / (read + steps)))


def passage2_average_precision(ta: TopicAssessments, run: TopicRun) -> Value:
    """Passage2 average precision of one topic (see the module docstring)."""
    union = {document: merge(spans[:, 0], spans[:, 1])[1:]
             for document, spans in ta.highlights.items()}
    relevant = sum(int(np.sum(ends - starts)) for starts, ends in union.values())
    if relevant == 0:
        return None
    seen: dict[str, tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = {}
    found = read = 0
    total = 0.0
    for document, offset, length, missing in zip(run.files.tolist(), run.offsets.tolist(),
                                                 run.lengths.tolist(), run.missing.tolist()):
        if missing or length <= 0:
            continue
        start, end = int(offset), int(offset) + int(length)
        gold_starts, gold_ends = union.get(document, (np.zeros(0, np.int64),) * 2)
        position = start
        if len(gold_starts):
            seen_starts, seen_ends = seen.get(document, (np.zeros(0, np.int64),
                                                         np.zeros(0, np.int64)))
            for gold_start, gold_end in zip(gold_starts.tolist(), gold_ends.tolist()):
                a, b = max(gold_start, start), min(gold_end, end)
                if a >= b:
                    continue
                read += a - position
                position = a
                for s, e in zip(seen_starts.tolist(), seen_ends.tolist()):
                    if e <= position or s >= b:
                        continue
                    if s > position:
                        total += _precision_sum(found, read, s - position)
                        found += s - position
                        read += s - position
                    position = max(position, min(e, b))
                if b > position:
                    total += _precision_sum(found, read, b - position)
                    found += b - position
                    read += b - position
                position = b
            _, merged_starts, merged_ends = merge(
                np.concatenate([seen_starts, np.maximum(gold_starts, start)]),
                np.concatenate([seen_ends, np.minimum(gold_ends, end)]))
            seen[document] = (merged_starts, merged_ends)
        read += end - position
    return total / relevant


def aspect_average_precision(ta: TopicAssessments, run: TopicRun) -> Value:
    """Aspect average precision of one topic (see the module docstring)."""
    if not ta.aspects:
        raise MeasureError("aspect_AP needs the TREC Genomics 2007 gold standard (aspects)",
                           ta.source)
    distinct = {a for gold in ta.aspects.values() for _, _, aspects in gold for a in aspects}
    found: set[str] = set()
    relevant = ranks = 0
    total = 0.0
    for document, offset, length, missing in zip(run.files.tolist(), run.offsets.tolist(),
                                                 run.lengths.tolist(), run.missing.tolist()):
        start, end = int(offset), int(offset) + max(int(length), 0)
        hit = None if missing else next(
            (aspects for s, e, aspects in ta.aspects.get(document, ())
             if min(e, end) > max(s, start)), None)
        if hit is None:
            ranks += 1
            continue
        new = len(set(hit) - found)
        if new:
            relevant += 1
            ranks += 1
            total += new * relevant / ranks
        found.update(hit)
    return total / len(distinct)


def scoring_order(run: TopicRun) -> TopicRun:
    """The run in the order the track's script reads it: by rank, ties by pmid, offset and
    length (the run as given where a result has no rank)."""
    if not len(run) or bool(np.any(run.ranks < 0)):
        return run
    return run.take(np.lexsort((run.lengths, run.offsets, run.files.astype(str), run.ranks)))


def _kernel(measure: Any) -> Any:
    def kernel(ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
               params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
        return [measure(ta, scoring_order(run))]
    return kernel


register(Family("passage2_AP", "TREC Genomics 2007 Passage2 average precision: precision at "
                "each relevant character read, over the relevant characters (Hersh et al. "
                "2007); mean: Passage2 MAP", _kernel(passage2_average_precision),
                aliases=("passage2_MAP",), scales=("fol",)))
register(Family("aspect_AP", "TREC Genomics 2007 aspect average precision: precision at each "
                "passage bringing new aspects, times their number, over the topic's aspects "
                "(Hersh et al. 2007); mean: Aspect MAP", _kernel(aspect_average_precision),
                aliases=("aspect_MAP",), scales=("fol",)))
