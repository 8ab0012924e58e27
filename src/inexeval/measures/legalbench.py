"""LegalBench-RAG's character precision and recall (Pipitone and Houir Alami 2024,
"LegalBench-RAG: A Benchmark for Retrieval-Augmented Generation in the Legal Domain"), as
``QAResult.precision`` and ``QAResult.recall`` compute them (github ZeroEntropy-cc/legalbenchrag,
``legalbenchrag/benchmark.py``) on the first k retrieved snippets.

Both sum, over every pair of a retrieved snippet and a ground-truth excerpt of the same file,
the characters they share (``min(ends) - max(starts)`` when positive): retrieved snippets that
overlap each other are counted once each, so recall may exceed 1 on overlapping chunks.
``legal_P@k`` divides by the sum of the retrieved snippets' lengths, ``legal_R@k`` by the sum of
the excerpts' lengths; 0 when the divisor is 0. The mean is the benchmark's (all weights 1):
Python's ``sum(values) / len(values)`` in the questions' order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inexeval.formats.chroma import Question, Spans
from inexeval.measures.chroma import SCALE, excerpts_of, length, ranking_of, shared
from inexeval.measures.registry import Family, TopicContext, Value, register


def _kernel(which: str) -> Any:
    def kernel(question: Question, ranking: Spans, ctx: TopicContext,
               params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
        excerpts = excerpts_of(question)
        relevant = length(excerpts)
        values: list[Value] = []
        for k in cutoffs:
            top = ranking_of(ranking, ctx)[:int(k)]
            found = shared([(s, e) for d, s, e in top if d == question.corpus_id], excerpts)
            denominator = relevant if which == "R" else sum(e - s for _, s, e in top)
            values.append(found / denominator if denominator else 0.0)
        return values
    return kernel


_SOURCE = "LegalBench-RAG, benchmark.py QAResult"

for _name, _what in (("P", "precision"), ("R", "recall")):
    register(Family(
        f"legal_{_name}",
        f"LegalBench-RAG's {_what} of the first k retrieved chunks' characters; "
        f"QAResult.{_what}, overlaps summed chunk by excerpt (" + _SOURCE + ")",
        _kernel(_name), cutoff=int, cutoff_required=True, scales=(SCALE,)))
