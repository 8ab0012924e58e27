"""LegalBench-RAG's precision and recall against ``QAResult.precision`` and ``QAResult.recall``
(github ZeroEntropy-cc/legalbenchrag, ``legalbenchrag/benchmark.py``, commit 35fb4b6),
transcribed below as the loops they are (the repository has no licence: nothing copied), and the
mean as ``BenchmarkResult.get_avg_recall_and_precision`` takes it with weights 1."""

from __future__ import annotations

import numpy as np
import pytest

from inexeval.formats.chroma import Question, Questions, Spans
from inexeval.rag.evaluate import evaluate, parse

Snippet = tuple[str, tuple[int, int]]


def precision(retrieved: list[Snippet], truth: list[Snippet]) -> float:
    total_retrieved_len = 0
    relevant_retrieved_len = 0
    for file_path, span in retrieved:
        total_retrieved_len += span[1] - span[0]
        for gt_path, gt_span in truth:
            if file_path == gt_path:
                common_min = max(span[0], gt_span[0])
                common_max = min(span[1], gt_span[1])
                if common_max > common_min:
                    relevant_retrieved_len += common_max - common_min
    if total_retrieved_len == 0:
        return 0
    return relevant_retrieved_len / total_retrieved_len


def recall(retrieved: list[Snippet], truth: list[Snippet]) -> float:
    total_relevant_len = 0
    relevant_retrieved_len = 0
    for gt_path, gt_span in truth:
        total_relevant_len += gt_span[1] - gt_span[0]
        for file_path, span in retrieved:
            if file_path == gt_path:
                common_min = max(span[0], gt_span[0])
                common_max = min(span[1], gt_span[1])
                if common_max > common_min:
                    relevant_retrieved_len += common_max - common_min
    if total_relevant_len == 0:
        return 0
    return relevant_retrieved_len / total_relevant_len


def avg(arr: list[float]) -> float:
    return sum(arr) / len(arr)


@pytest.mark.parametrize("seed", range(5))
def test_against_qaresult(seed: int) -> None:
    rng = np.random.default_rng(seed)
    corpora = {"a": "x" * 500, "b": "y" * 300}
    questions = []
    rankings = {}
    for number in range(60):
        corpus = str(rng.choice(list(corpora)))
        cuts = np.sort(rng.choice(len(corpora[corpus]), size=2 * int(rng.integers(1, 4)),
                                  replace=False))
        excerpts = cuts.reshape(-1, 2)  # disjoint, as LegalBench-RAG's ground truth is
        questions.append(Question(str(number), "?", corpus, excerpts.astype(np.int64)))
        depth = int(rng.integers(0, 12))
        docs = rng.choice(list(corpora), size=depth)
        starts = np.array([rng.integers(0, len(corpora[d])) for d in docs], dtype=np.int64)
        ends = np.array([min(len(corpora[d]), s + rng.integers(0, 120))
                         for d, s in zip(docs, starts)], dtype=np.int64)
        rankings[str(number)] = Spans(docs.astype(object), starts, ends)
    chosen = Questions(tuple(questions), corpora, "generated")
    for k in (1, 3, 5, 10):
        results = evaluate(chosen, parse([f"legal_P@{k}", f"legal_R@{k}"]), "r",
                           rankings=rankings)
        expected = {"legal_P": [], "legal_R": []}  # type: dict[str, list[float]]
        for q in questions:
            r = rankings[q.qid].head(k)
            retrieved = [(d, (int(s), int(e))) for d, s, e in zip(r.docs, r.starts, r.ends)]
            truth = [(q.corpus_id, (int(s), int(e))) for s, e in q.excerpts]
            expected["legal_P"].append(precision(retrieved, truth))
            expected["legal_R"].append(recall(retrieved, truth))
        for family, values in expected.items():
            name = f"{family}@{k}"
            assert [results.value("r", q.qid, name) for q in questions] == values
            assert results.mean(name, "r") == avg(values)
