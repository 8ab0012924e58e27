"""Pooling span runs: what assessors judge for each question (issue 34).

The pool of a question at depth K is, per document, the union of the spans the runs retrieve in
their first K ranks, overlapping and touching spans merged (each merged span judged once); each
pooled span carries the best rank at which a run retrieved part of it and how many runs did.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from inexeval.formats.chroma import SpanRun


class PooledSpan(NamedTuple):
    """One span to judge."""

    qid: str
    doc: str
    start: int
    end: int
    min_rank: int
    runs: int


def pool_spans(runs: Sequence[SpanRun], depth: int) -> list[PooledSpan]:
    """The depth-``depth`` span pool of ``runs``, by question (in first-seen order), document
    and start."""
    found: dict[str, dict[str, list[tuple[int, int, int, int]]]] = {}
    for number, run in enumerate(runs):
        for qid, ranking in run.rankings.items():
            top = ranking.head(depth)
            by_doc = found.setdefault(qid, {})
            for rank, (doc, start, end) in enumerate(zip(top.docs.tolist(), top.starts.tolist(),
                                                         top.ends.tolist()), 1):
                by_doc.setdefault(doc, []).append((start, end, rank, number))
    pooled: list[PooledSpan] = []
    for qid, by_doc in found.items():
        for doc in sorted(by_doc):
            merged: list[tuple[int, int, int, set[int]]] = []
            for start, end, rank, number in sorted(by_doc[doc]):
                if merged and start <= merged[-1][1]:
                    last = merged[-1]
                    merged[-1] = (last[0], max(last[1], end), min(last[2], rank),
                                  last[3] | {number})
                else:
                    merged.append((start, end, rank, {number}))
            pooled += [PooledSpan(qid, doc, s, e, r, len(n)) for s, e, r, n in merged]
    return pooled
