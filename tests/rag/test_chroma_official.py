"""Chroma's measures against the official code itself (``reference/base_evaluation.py``) on its
own data (two corpora and their 132 questions) and on generated questions with the quirks
(overlapping excerpts, chunks touching an excerpt, chunks of another corpus, repeated and
overlapping chunks): every question's value equal, and the mean."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from tests.rag.official import DATA, metadatas, scores

from inexeval.formats.chroma import Questions, Spans, read_questions
from inexeval.rag.evaluate import evaluate, parse
from inexeval.results import ALL

pytest.importorskip("pandas")

CSV = DATA / "questions_df.csv"


def _fixed(questions: Questions, size: int, step: int) -> Spans:
    docs, starts, ends = [], [], []
    for corpus, text in questions.corpora.items():
        for start in range(0, len(text), step):
            docs.append(corpus)
            starts.append(start)
            ends.append(min(start + size, len(text)))
    return Spans(np.array(docs, dtype=object), np.array(starts), np.array(ends))


def _random(questions: Questions, rng: np.random.Generator, count: int, longest: int) -> Spans:
    """Chunks anywhere (overlapping, repeated, some ending or starting exactly at an excerpt's
    bound so that they only touch it)."""
    docs, starts, ends = [], [], []
    bounds = [(q.corpus_id, int(b)) for q in questions.questions for b in q.excerpts.ravel()]
    for corpus, text in questions.corpora.items():
        for _ in range(count):
            start = int(rng.integers(0, len(text) - 1))
            docs.append(corpus)
            starts.append(start)
            ends.append(min(len(text), start + int(rng.integers(1, longest))))
    for i in rng.choice(len(bounds), size=len(bounds) // 3, replace=False):
        corpus, bound = bounds[i]
        length = int(rng.integers(1, longest))
        docs.append(corpus)
        if rng.random() < 0.5:
            starts.append(max(0, bound - length))
            ends.append(bound)
        else:
            starts.append(bound)
            ends.append(min(len(questions.corpora[corpus]), bound + length))
    keep = np.array(ends) > np.array(starts)  # the official code divides by a chunk's length
    return Spans(np.array(docs, dtype=object)[keep], np.array(starts)[keep], np.array(ends)[keep])


def _rankings(questions: Questions, chunks: Spans, rng: np.random.Generator,
              depth: int) -> dict[str, Spans]:
    """Each question's ranking: chunks touching its excerpts mixed with any chunk (of every
    corpus), some repeated."""
    out = {}
    for q in questions.questions:
        near = np.flatnonzero((chunks.docs == q.corpus_id)
                              & (chunks.starts <= q.excerpts[:, 1].max())
                              & (chunks.ends >= q.excerpts[:, 0].min()))
        pick = np.concatenate([rng.choice(near, size=min(len(near), depth // 2), replace=False)
                               if len(near) else np.zeros(0, np.int64),
                               rng.integers(0, len(chunks), size=depth)])
        pick = rng.permutation(pick)[:depth]
        out[q.qid] = Spans(chunks.docs[pick], chunks.starts[pick], chunks.ends[pick])
    return out


def _check(questions: Questions, csv_path: Path, chunks: Spans, rankings: dict[str, Spans],
           k: int) -> None:
    official = scores(csv_path, metadatas(chunks.docs, chunks.starts, chunks.ends),
                      [metadatas(r.docs, r.starts, r.ends) for r in rankings.values()], k)
    measures = parse(["chroma_P_omega", f"chroma_R@{k}", f"chroma_P@{k}", f"chroma_IoU@{k}"])
    results = evaluate(questions, measures, "run", rankings=rankings, chunking=chunks)
    for name, expected in official.items():
        ours = [results.value("run", q.qid, name) for q in questions.questions]
        assert ours == expected, name
        assert results.mean(name, "run") == np.mean(expected), name


@pytest.mark.parametrize("size,step", [(200, 200), (400, 250), (800, 400), (50, 13)])
def test_fixed_chunkings_on_chroma_data(size: int, step: int) -> None:
    questions = read_questions(CSV)
    assert len(questions) == 132
    chunks = _fixed(questions, size, step)
    rng = np.random.default_rng(size)
    for k in (1, 3, 5, 10):
        _check(questions, CSV, chunks, _rankings(questions, chunks, rng, k + 2), k)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_chunkings_on_chroma_data(seed: int) -> None:
    questions = read_questions(CSV)
    rng = np.random.default_rng(seed)
    chunks = _random(questions, rng, 300, 600)
    for k in (1, 4, 10):
        _check(questions, CSV, chunks, _rankings(questions, chunks, rng, k), k)


def _generated(folder: Path, rng: np.random.Generator) -> Path:
    """Questions on two small corpora with overlapping, touching and nested excerpts."""
    corpora = {"a": "".join(rng.choice(list("ab .\n"), size=300)),
               "b": "".join(rng.choice(list("xyz "), size=150))}
    (folder / "corpora").mkdir()
    for name, text in corpora.items():
        (folder / "corpora" / f"{name}.txt").write_text(text, encoding="utf-8")
    rows = []
    for _ in range(40):
        corpus = str(rng.choice(list(corpora)))
        text = corpora[corpus]
        refs = []
        for _ in range(int(rng.integers(1, 5))):
            start = int(rng.integers(0, len(text) - 1))
            end = int(rng.integers(start + 1, min(len(text), start + 60) + 1))
            refs.append({"content": text[start:end], "start_index": start, "end_index": end})
        rows.append(["q?", json.dumps(refs), corpus])
    path = folder / "questions.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["question", "references", "corpus_id"], *rows])
    return path


@pytest.mark.parametrize("seed", range(6))
def test_generated_quirks(tmp_path: Path, seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    path = _generated(tmp_path, rng)
    questions = read_questions(path)
    assert any(len(q.excerpts) > 1 for q in questions.questions)
    chunks = _random(questions, rng, 25, 40)
    for k in (1, 2, 5, 8):
        _check(questions, path, chunks, _rankings(questions, chunks, rng, k), k)


def test_hand_worked() -> None:
    """An excerpt [10, 20); chunks [0, 10) (touches), [15, 30), [12, 14): P_omega's numerator
    is [10, 20) less nothing = the union of [10,10], [15,20), [12,14): 7 characters, its
    denominator the union of the chunks and the excerpt [0, 30): 30."""
    text = "x" * 40
    questions = Questions((_question("0", "d", [(10, 20)]),), {"d": text}, "hand")
    chunks = Spans(np.array(["d", "d", "d"], dtype=object), np.array([0, 15, 12]),
                   np.array([10, 30, 14]))
    measures = parse(["chroma_P_omega", "chroma_R@2", "chroma_P@2", "chroma_IoU@2"])
    results = evaluate(questions, measures, "r", rankings={"0": chunks}, chunking=chunks)
    assert results.value("r", "0", "chroma_P_omega") == 7 / 30
    # the first two chunks: numerator [15, 20) = 5; recall 5/10; precision 5/(10+15);
    # IoU 5 / (25 + the excerpt's 5 characters no touching chunk covers)
    assert results.value("r", "0", "chroma_R@2") == 5 / 10
    assert results.value("r", "0", "chroma_P@2") == 5 / 25
    assert results.value("r", "0", "chroma_IoU@2") == 5 / 30
    assert results.value("r", ALL, "num_q") == 1


def _question(qid: str, corpus: str, excerpts: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    from inexeval.formats.chroma import Question

    return Question(qid, "?", corpus, np.array(excerpts, dtype=np.int64).reshape(-1, 2))
