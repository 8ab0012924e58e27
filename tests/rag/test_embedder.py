"""``inexeval chunks --embedder sentence-transformers:NAME``: chunks ranked by the cosine
similarity of their embeddings and the question's, with a stub ``sentence_transformers`` module
(sentence-transformers and torch are not installed here, and no model can be downloaded): the
ranking equal to cosines worked by hand, the measures equal to ``eval`` on the run of that
ranking, each distinct text embedded once, and the library missing or refusing a name one
error line."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import types
import zlib
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from tests.rag.official import DATA

from inexeval.cli import main
from inexeval.formats.chroma import read_chunking, read_questions
from inexeval.rag.retrieve import Embedder, dense

CSV = DATA / "questions_df.csv"

VOCABULARY = {"apple": 0, "banana": 1, "cherry": 2}
"""The stub's words with a dimension of their own (any other word: dimension 3)."""


class FakeModel:
    """A deterministic stand-in for ``SentenceTransformer``: a text's vector is its words'
    counts, ``apple``, ``banana``, ``cherry`` each on its own dimension, any other word hashed
    (crc32) onto dimensions 3 to 15, normalised when asked."""

    calls: ClassVar[list[tuple[list[str], dict[str, Any]]]] = []

    def __init__(self, name: str) -> None:
        if name.startswith("refused"):
            raise OSError(f"{name} is not a local folder and is not a valid model identifier\n"
                          "listed on 'https://huggingface.co/models'")
        self.name = name

    def encode(self, texts: list[str], **options: Any) -> Any:
        FakeModel.calls.append((list(texts), options))
        out = np.zeros((len(texts), 16), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, VOCABULARY.get(word, 3 + zlib.crc32(word.encode()) % 13)] += 1
        if options.get("normalize_embeddings"):
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out = out / np.where(norms > 0, norms, 1)
        return out


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> type[FakeModel]:
    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = FakeModel  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    monkeypatch.setattr(FakeModel, "calls", [])
    return FakeModel


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _values(out: str) -> dict[tuple[str, str, str], float]:
    return {(r["run"], r["topic"], r["measure"]): float(r["value"])
            for r in csv.DictReader(io.StringIO(out))}


def _one_error(capsys: pytest.CaptureFixture[str], args: list[str], *expected: str) -> None:
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("inexeval: error: "), err
    for text in expected:
        assert text in err, err


TEXT_A = "apple banana cherry. apple apple. banana. cherry. banana."
TEXT_B = "cherry banana. apple."
CHUNKS = [("a", "apple banana cherry"), ("a", "apple apple"), ("a", "banana"),
          ("a", "cherry"), ("a", "banana"), ("b", "cherry banana"), ("b", "apple")]
"""The chunks c0 to c6 (c4 the second ``banana`` of a, the same text as c2)."""

QUESTIONS = [("apple banana?", "a", "apple apple"), ("cherry", "b", "cherry banana"),
             ("banana banana cherry", "a", "banana")]

RANKING = [[0, 1, 2, 4, 6, 5, 3], [3, 5, 0, 1, 2, 4, 6], [5, 2, 4, 0, 3, 1, 6]]
"""Each question's chunks by cosine, worked by hand (q the question's counts, c a chunk's):
question 0, q = (1, 1, 0): c0 (1, 1, 1) 2/√6 = 0.816; c1 (2, 0, 0), c2 and c4 (0, 1, 0), c6
(1, 0, 0) 1/√2 = 0.707 (tied: in the chunking's order); c5 (0, 1, 1) 1/2; c3 (0, 0, 1) 0.
Question 1, q = (0, 0, 1): c3 1; c5 1/√2; c0 1/√3; c1, c2, c4, c6 0 (in order). Question 2,
q = (0, 2, 1): c5 3/√10 = 0.949; c2, c4 2/√5 = 0.894; c0 3/√15 = 0.775; c3 1/√5 = 0.447; c1,
c6 0."""


def _tiny(folder: Path) -> tuple[Path, Path]:
    """The tiny corpus (documents a and b), its questions CSV and the chunking c0 to c6."""
    (folder / "a.md").write_text(TEXT_A, encoding="utf-8")
    (folder / "b.md").write_text(TEXT_B, encoding="utf-8")
    texts = {"a": TEXT_A, "b": TEXT_B}
    lines, seen = [], {"a": 0, "b": 0}
    for doc, chunk in CHUNKS:
        start = texts[doc].index(chunk, seen[doc])
        seen[doc] = start + len(chunk)
        lines.append(f"{doc}\t{start}\t{start + len(chunk)}\n")
    (folder / "c.tsv").write_text("".join(lines))
    with open(folder / "q.csv", "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["question", "references", "corpus_id"])
        for question, doc, evidence in QUESTIONS:
            start = texts[doc].index(evidence)
            out.writerow([question, json.dumps([{"content": evidence, "start_index": start,
                                                 "end_index": start + len(evidence)}]), doc])
    return folder / "q.csv", folder / "c.tsv"


def test_the_ranking_is_the_cosines_worked_by_hand(tmp_path: Path,
                                                    stub: type[FakeModel]) -> None:
    path, chunking = _tiny(tmp_path)
    questions = read_questions(path, tmp_path)
    chunks = read_chunking(chunking, questions.corpora)
    rankings = dense(questions, chunks, 10, Embedder("sentence-transformers:fake"))
    for question, expected in zip(questions.questions, RANKING):
        got = rankings[question.qid]
        assert got.starts.tolist() == chunks.starts[expected].tolist()
        assert got.docs.tolist() == chunks.docs[expected].tolist()
    assert len(dense(questions, chunks, 3, Embedder("sentence-transformers:fake"))["0"]) == 3
    # one call: the distinct texts (the second "banana" left out), normalised, in batches
    texts = [t for _, t in CHUNKS]
    assert [c[0] for c in stub.calls] == [
        list(dict.fromkeys(texts + [q for q, _, _ in QUESTIONS]))] * 2
    assert all(c[1]["normalize_embeddings"] is True and c[1]["batch_size"] > 0
               for c in stub.calls)


def _fol(rankings: list[list[int]], chunks: list[tuple[str, int, int]]) -> str:
    return "".join(f"{qid} Q0 {chunks[i][0]} {rank} {len(row) - rank} hand {chunks[i][1]} "
                   f"{chunks[i][2] - chunks[i][1]}\n"
                   for qid, row in enumerate(rankings) for rank, i in enumerate(row, 1))


MEASURES = ["-m", "chroma_R", "-m", "chroma_P@3", "-m", "chroma_IoU@2", "-m", "legal_P@3",
            "-m", "HiXEval_F@2"]


def test_the_measures_equal_eval_on_the_hand_ranking(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], stub: type[FakeModel]) -> None:
    path, chunking = _tiny(tmp_path)
    chunks = read_chunking(chunking, read_questions(path, tmp_path).corpora)
    spans = list(zip(chunks.docs.tolist(), chunks.starts.tolist(), chunks.ends.tolist()))
    (tmp_path / "hand.fol").write_text(_fol(RANKING, spans))
    code, expected, err = _run(capsys, "eval", str(path), str(tmp_path / "hand.fol"), "-c",
                               "-q", "--format", "csv", *MEASURES)
    assert code == 0, err
    code, out, err = _run(capsys, "chunks", str(path), str(chunking), "--embedder",
                          "sentence-transformers:fake", "-q", "--format", "csv", *MEASURES)
    assert code == 0, err
    ours = {(t, m): v for (_, t, m), v in _values(out).items() if m != "num_q"}
    theirs = {(t, m): v for (_, t, m), v in _values(expected).items() if m != "num_q"}
    assert len(ours) == 3 * 8 + 8 and ours == theirs
    # question 0's evidence is c1, ranked second: recall 0 at 1, 1 from 2 on
    assert ours[("0", "chroma_R@1")] == 0 and ours[("0", "chroma_R@3")] == 1


def test_several_chunkings_each_embedded_every_text_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], stub: type[FakeModel]) -> None:
    """On Chroma's two example corpora: two chunkers, their chunks written out (``--write-
    chunks``), each ranking equal to ``eval`` on the run written from the ranking of the
    written chunks; every distinct text (the questions', the chunks') embedded once."""
    chunkers = ["--chunker", "fixed:400:0", "--chunker", "fixed:400:200"]
    folder = tmp_path / "chunks"
    code, out, err = _run(capsys, "chunks", str(CSV), *chunkers, "--embedder",
                          "sentence-transformers:fake", "--write-chunks", str(folder), "-q",
                          "--format", "csv", "-m", "chroma_R", "-m", "chroma_IoU@5",
                          "-m", "legal_R@5")
    assert code == 0, err
    values = _values(out)
    encoded = [t for texts, _ in stub.calls for t in texts]
    questions = read_questions(CSV)
    assert len(encoded) == len(set(encoded))
    assert {q.text for q in questions.questions} <= set(encoded)
    for name, file in (("fixed:400:0", "fixed-400-0.tsv"), ("fixed:400:200", "fixed-400-200.tsv")):
        chunks = read_chunking(folder / file, questions.corpora)
        texts = {questions.corpora[d][s:e] for d, s, e in zip(
            chunks.docs.tolist(), chunks.starts.tolist(), chunks.ends.tolist())}
        assert texts <= set(encoded)
        ranked = dense(questions, chunks, 10, Embedder("sentence-transformers:fake"))
        run = tmp_path / f"{file}.fol"
        run.write_text("".join(
            f"{qid} Q0 {d} {rank} {10 - rank} r {s} {e - s}\n" for qid, r in ranked.items()
            for rank, (d, s, e) in enumerate(zip(r.docs, r.starts.tolist(), r.ends.tolist()),
                                             1)))
        code, evaluated, err = _run(capsys, "eval", str(CSV), str(run), "-c", "-q", "--format",
                                    "csv", "-m", "chroma_R", "-m", "chroma_IoU@5", "-m",
                                    "legal_R@5")
        assert code == 0, err
        expected = {(t, m): v for (_, t, m), v in _values(evaluated).items() if m != "num_q"}
        assert len(expected) == 133 * 6
        assert {(t, m): values[(name, t, m)] for t, m in expected} == expected
    # the two chunkings' results differ (each ranked its own chunks)
    assert values[("fixed:400:0", "all", "chroma_R@5")] != values[
        ("fixed:400:200", "all", "chroma_R@5")]


def test_sentence_transformers_missing(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails
    _one_error(capsys, ["chunks", str(CSV), "--chunker", "fixed:400:0", "--embedder",
                        "sentence-transformers:all-MiniLM-L6-v2", "-m", "chroma_R@5"],
               "needs sentence-transformers: pip install sentence-transformers")
    # not imported when no measure needs a ranking
    code, _, err = _run(capsys, "chunks", str(CSV), "--chunker", "fixed:400:0", "--embedder",
                        "sentence-transformers:all-MiniLM-L6-v2", "-m", "chroma_P_omega")
    assert code == 0, err


def test_a_name_the_library_refuses(capsys: pytest.CaptureFixture[str],
                                    stub: type[FakeModel]) -> None:
    _one_error(capsys, ["chunks", str(CSV), "--chunker", "fixed:400:0", "--embedder",
                        "sentence-transformers:refused-model", "-m", "chroma_R@5"],
               "sentence-transformers cannot load 'refused-model': refused-model is not a "
               "local folder")


@pytest.mark.parametrize("args,expected", [
    (["--embedder", "openai:text-embedding-3-small"], "expected sentence-transformers:NAME"),
    (["--embedder", "sentence-transformers:"], "expected sentence-transformers:NAME"),
    (["--embedder", "sentence-transformers:x", "--retriever", "bm25"],
     "--embedder and --retriever both rank the chunks"),
])
def test_malformed_embedder(capsys: pytest.CaptureFixture[str], stub: type[FakeModel],
                            args: list[str], expected: str) -> None:
    _one_error(capsys, ["chunks", str(CSV), "--chunker", "fixed:400:0", *args], expected)


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "chunks", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "--embedder sentence-transformers:NAME" in text
    assert "pip install sentence-transformers" in text


def test_the_report_names_the_embedder(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       stub: type[FakeModel]) -> None:
    path, chunking = _tiny(tmp_path)
    # a second chunking: the first without its last chunk
    (tmp_path / "d.tsv").write_text("".join(chunking.read_text().splitlines(keepends=True)[:-1]))
    code, _, err = _run(capsys, "chunks", str(path), str(chunking), str(tmp_path / "d.tsv"),
                        "--embedder", "sentence-transformers:fake", "-m", "chroma_R@1",
                        "--report", str(tmp_path / "r.html"))
    assert code == 0, err
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "retrieval by the embeddings of sentence-transformers:fake" in page
