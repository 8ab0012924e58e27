"""Chunkers of chonkie and semantic-text-splitter by name: located by the offsets the library
gives, checked against the text; a wrong offset is an error, never a silent misplacement."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from tests.rag.official import DATA, metadatas, scores

from inexeval.cli import main
from inexeval.formats.chroma import read_questions
from inexeval.rag.chunkers import parse_chunker
from inexeval.rag.evaluate import evaluate, parse

CSV = DATA / "questions_df.csv"


@pytest.mark.parametrize("spec", ["chonkie:RecursiveChunker(chunk_size=400)",
                                  "chonkie:TokenChunker(chunk_size=300, chunk_overlap=60)",
                                  "semantic-text-splitter:TextSplitter(500, overlap=100)",
                                  "semantic-text-splitter:MarkdownSplitter((200, 600))"])
def test_library_chunkers_by_their_offsets(spec: str) -> None:
    library, _, call = spec.partition(":")
    module = pytest.importorskip({"chonkie": "chonkie",
                                  "semantic-text-splitter": "semantic_text_splitter"}[library])
    questions = read_questions(CSV)
    chunks = parse_chunker(spec).chunk(questions.corpora)
    splitter = eval(call, {call.split("(")[0]: getattr(module, call.split("(")[0])})
    text = questions.corpora["chatlogs"]
    mine = chunks.docs == "chatlogs"
    if library == "chonkie":
        expected = [(c.start_index, c.end_index) for c in splitter.chunk(text)]
    else:
        expected = [(i, i + len(c)) for i, c in splitter.chunk_indices(text)]
    assert list(zip(chunks.starts[mine].tolist(), chunks.ends[mine].tolist())) == expected
    official = scores(CSV, metadatas(chunks.docs, chunks.starts, chunks.ends))["chroma_P_omega"]
    results = evaluate(questions, parse(["chroma_P_omega"]), "c", chunking=chunks)
    assert [results.value("c", q.qid, "chroma_P_omega") for q in questions.questions] == official


class _Shifted:
    """A splitter whose offsets are one character off."""

    def __init__(self, size: int) -> None:
        self.size = size

    def chunk_indices(self, text: str) -> list[tuple[int, str]]:
        return [(i + 1, text[i:i + self.size]) for i in range(0, len(text), self.size)]


def test_an_offset_that_does_not_hold_its_chunk_is_an_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    fake = types.ModuleType("semantic_text_splitter")
    fake.TextSplitter = _Shifted  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "semantic_text_splitter", fake)
    spec = "semantic-text-splitter:TextSplitter(50)"
    assert main(["chunks", str(CSV), "--chunker", spec]) == 2
    err = capsys.readouterr().err
    assert err == (f"inexeval: error: chunker {spec!r}: its chunk at [1, 51) is not the text "
                   "there\n")


@pytest.mark.parametrize("spec,expected", [
    ("chonkie:RecursiveChunker", "expected chonkie:Class(arguments)"),
    ("chonkie:RecursiveChunker(chunk_size=size)", "the arguments must be literals"),
    ("chonkie:os.system('x')", "expected chonkie:Class(arguments)"),
    ("chonkie:RecursiveChunker(**{'chunk_size': 3})", "expected chonkie:Class(arguments)"),
    ("langchain:RecursiveCharacterTextSplitter(chunk_size=800,chunk_overlap=400)",
     "LangChain's splitters give no offsets"),
])
def test_malformed_library_chunkers(capsys: pytest.CaptureFixture[str], spec: str,
                                    expected: str) -> None:
    assert main(["chunks", str(CSV), "--chunker", spec]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and expected in err, err


def test_the_chunks_of_a_library_are_its_offsets_not_a_search() -> None:
    """A text whose chunks repeat: each chunk stays where the library put it."""
    pytest.importorskip("chonkie")
    text = "same words again. " * 40
    chunks = parse_chunker("chonkie:TokenChunker(chunk_size=18, chunk_overlap=0)").split(text)
    assert [s for s, _ in chunks] == list(np.arange(0, len(text), 18))
