"""Chroma's chunking-evaluation measures (Smith and Troynikov 2024, "Evaluating Chunking
Strategies for Retrieval", Chroma technical report), as the official code computes them
(github brandonstarxel/chunking_evaluation, ``evaluation_framework/base_evaluation.py``), quirks
included.

For one question (its corpus and excerpts) and the first k retrieved chunks:

* a chunk *touches* an excerpt when the closed intervals meet (``intersect_two_ranges``:
  ``max(starts) <= min(ends)``), so a chunk that only touches an excerpt's end counts;
  chunks of another corpus never touch;
* the numerator is the characters of the union of the touching chunks' intersections with the
  excerpts;
* ``chroma_R@k``: numerator / the sum of the excerpts' lengths (overlapping excerpts counted
  twice);
* ``chroma_P@k``: numerator / the sum of the lengths of all first k chunks (other corpora and
  overlapping chunks counted, each chunk as often as it is retrieved);
* ``chroma_IoU@k``: numerator / (that sum + the characters of each excerpt no touching chunk
  covers);
* ``chroma_P_omega`` (``_full_precision_score``, of a chunking with no retrieval): over every
  chunk of the question's corpus that touches an excerpt, numerator / the characters of the union
  of those chunks and the excerpts; 0 when no chunk touches.

The official ``retrieve=-1`` (k per question: its number of touching chunks) is not a fixed
cut-off; ``@k`` is. A question with an empty ranking scores 0 (the official code divides by
zero there). The mean is numpy's mean in the questions' order, as the official code takes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from inexeval.formats.chroma import Question, Spans
from inexeval.measures.registry import Family, TopicContext, Value, register

SCALE = "Chroma questions CSV"
"""The kind of assessments these measures (and LegalBench-RAG's) apply to: excerpts of a
corpus by character offsets."""


Range = tuple[int, int]


def union(ranges: list[Range]) -> list[Range]:
    """Sorted, disjoint ranges covering the same characters (touching ones merged, as
    ``union_ranges`` merges them)."""
    out: list[Range] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def shared(a: list[Range], b: list[Range]) -> int:
    """Characters the ranges of ``a`` share with those of ``b``, summed pair by pair."""
    return sum(max(0, min(ae, be) - max(as_, bs)) for as_, ae in a for bs, be in b)


def length(ranges: list[Range]) -> int:
    return sum(end - start for start, end in ranges)


def touching(excerpts: list[Range], chunks: list[Range]) -> list[Range]:
    """The chunks that touch an excerpt (closed intervals: ``intersect_two_ranges``)."""
    return [(s, e) for s, e in chunks if any(s <= re and e >= rs for rs, re in excerpts)]


def excerpts_of(question: Question) -> list[Range]:
    return [(int(s), int(e)) for s, e in question.excerpts.tolist()]


def _covered(excerpts: list[Range], hit: list[Range]) -> tuple[int, int, int, int]:
    """For the chunks ``hit`` that touch an excerpt: the numerator, the characters each excerpt
    has outside them (summed over the excerpts: ``sum_of_ranges(unused_highlights)``), the
    characters of the excerpts' union outside them (``unused_highlights`` once merged by
    ``union_ranges``) and the characters of their union."""
    chunked = union(hit)
    merged = union(excerpts)
    numerator = shared(chunked, merged)
    unused = length(excerpts) - shared(excerpts, chunked)
    return numerator, unused, length(merged) - numerator, length(chunked)


def ranking_of(ranking: Spans, ctx: TopicContext) -> list[tuple[Any, int, int]]:
    """A ranking as a list of ``(doc, start, end)``, made once per question and run."""
    return ctx.cached(("ranking", id(ranking)), lambda: list(zip(  # type: ignore[no-any-return]
        ranking.docs.tolist(), ranking.starts.tolist(), ranking.ends.tolist())))


def _at(question: Question, ranking: Spans, ctx: TopicContext, k: int) -> tuple[int, int, int]:
    """(numerator, unused excerpt characters, retrieved characters) of the first k chunks."""
    def make() -> tuple[int, int, int]:
        top = ranking_of(ranking, ctx)[:k]
        excerpts = excerpts_of(question)
        same = [(s, e) for d, s, e in top if d == question.corpus_id]
        numerator, unused, _, _ = _covered(excerpts, touching(excerpts, same))
        return numerator, unused, sum(e - s for _, s, e in top)
    return ctx.cached(("chroma", id(ranking), k), make)  # type: ignore[no-any-return]


def _retrieval(which: str) -> Any:
    def kernel(question: Question, ranking: Spans, ctx: TopicContext,
               params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
        relevant = length(excerpts_of(question))
        values: list[Value] = []
        for k in cutoffs:
            numerator, unused, retrieved = _at(question, ranking, ctx, int(k))
            denominator = {"R": relevant, "P": retrieved, "IoU": retrieved + unused}[which]
            values.append(numerator / denominator if denominator else
                          (0.0 if len(ranking) == 0 else None))
        return values
    return kernel


def precision_omega(question: Question, chunking: Spans, ctx: TopicContext,
                    params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    """``_full_precision_score`` of one question (see the module docstring); ``chunking``: the
    chunks of the question's corpus (others are skipped)."""
    ex = question.excerpts
    near = ((chunking.docs == question.corpus_id)
            & (np.less_equal.outer(chunking.starts, ex[:, 1])
               & np.greater_equal.outer(chunking.ends, ex[:, 0])).any(axis=1))
    hit = list(zip(chunking.starts[near].tolist(), chunking.ends[near].tolist()))
    if not hit:
        return [0.0]
    numerator, _, left_out, chunked = _covered(excerpts_of(question), hit)
    return [numerator / (chunked + left_out)]


_SOURCE = "Chroma's chunking_evaluation, base_evaluation.py"

for _name, _what in (("R", "recall"), ("P", "precision"), ("IoU", "IoU")):
    register(Family(
        f"chroma_{_name}",
        f"Chroma's {_what} of the first k retrieved chunks' characters; "
        "_scores_from_dataset_and_retrievals, with intersections of closed intervals (a chunk "
        "touching an excerpt counts) and chunks of another corpus in precision's denominator "
        "(" + _SOURCE + ")",
        _retrieval(_name), cutoff=int, cutoff_required=True, scales=(SCALE,)))

register(Family(
    "chroma_P_omega",
    "Chroma's precision of a chunking alone; _full_precision_score: the excerpts' characters "
    "over the union of every chunk touching an excerpt and the excerpts (" + _SOURCE + ")",
    precision_omega, scales=(SCALE,)))
