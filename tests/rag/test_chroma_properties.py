"""Chroma's measures against the official code on generated small cases (hypothesis): excerpts
overlapping, nested, touching or empty, chunks of any length (empty too), repeated, of another
corpus, only touching an excerpt; every question's value and the mean equal."""

from __future__ import annotations

import csv
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.rag.official import metadatas, scores

from inexeval.formats.chroma import Spans, read_questions
from inexeval.rag.evaluate import evaluate, parse

pytest.importorskip("pandas")

LENGTHS = {"a": 40, "b": 25}


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[str, list[tuple[int, int]]]],
                                    list[tuple[str, int, int]], list[list[int]], int]:
    def span(corpus: str, least: int = 0) -> tuple[int, int]:
        start = draw(st.integers(0, LENGTHS[corpus] - least))
        return start, draw(st.integers(start + least, LENGTHS[corpus]))

    questions = []
    for _ in range(draw(st.integers(1, 5))):
        corpus = draw(st.sampled_from(sorted(LENGTHS)))
        excerpts = [span(corpus, 1)] + [span(corpus) for _ in range(draw(st.integers(0, 3)))]
        questions.append((corpus, excerpts))
    chunks = []
    for _ in range(draw(st.integers(1, 12))):
        corpus = draw(st.sampled_from(sorted(LENGTHS)))
        chunks.append((corpus, *span(corpus)))
    positive = [i for i, (_, s, e) in enumerate(chunks) if e > s]
    k = draw(st.integers(1, 5))
    rankings = []
    for _ in questions:
        ranking = draw(st.lists(st.integers(0, len(chunks) - 1), max_size=6))
        if not positive:
            return draw(cases())  # type: ignore[no-any-return]
        # the official code divides by the first k chunks' length: one chunk not empty first
        rankings.append([draw(st.sampled_from(positive)), *ranking])
    return questions, chunks, rankings, k


@settings(max_examples=150, deadline=None)
@given(cases())
def test_equal_to_the_official_code(case: tuple[list[tuple[str, list[tuple[int, int]]]],
                                                list[tuple[str, int, int]], list[list[int]],
                                                int]) -> None:
    questions_spec, chunk_list, ranking_rows, k = case
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        (base / "corpora").mkdir()
        texts = {c: "".join(chr(97 + (i * 7 + len(c)) % 26) for i in range(n))
                 for c, n in LENGTHS.items()}
        for corpus, text in texts.items():
            (base / "corpora" / f"{corpus}.md").write_text(text, encoding="utf-8")
        path = base / "q.csv"
        with open(path, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["question", "references", "corpus_id"])
            for corpus, excerpts in questions_spec:
                writer.writerow(["q", json.dumps([{"content": texts[corpus][s:e],
                                                   "start_index": s, "end_index": e}
                                                  for s, e in excerpts]), corpus])
        questions = read_questions(path)
        docs = np.array([c for c, _, _ in chunk_list], dtype=object)
        starts = np.array([s for _, s, _ in chunk_list], dtype=np.int64)
        ends = np.array([e for _, _, e in chunk_list], dtype=np.int64)
        chunks = Spans(docs, starts, ends)
        rankings = {q.qid: Spans(docs[row], starts[row], ends[row])
                    for q, row in zip(questions.questions, map(np.array, ranking_rows))}
        official = scores(path, metadatas(docs, starts, ends),
                          [metadatas(r.docs, r.starts, r.ends) for r in rankings.values()], k)
    names = ["chroma_P_omega", f"chroma_R@{k}", f"chroma_P@{k}", f"chroma_IoU@{k}"]
    results = evaluate(questions, parse(names), "r", rankings=rankings, chunking=chunks)
    for name in names:
        assert [results.value("r", q.qid, name) for q in questions.questions] == official[name]
        assert results.mean(name, "r") == np.mean(official[name])
