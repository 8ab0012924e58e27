"""Chroma's chunking-evaluation inputs and the span runs and chunkings evaluated on them.

* The questions CSV of Chroma's evaluation (github brandonstarxel/chunking_evaluation,
  ``general_evaluation_data/questions_df.csv``), read as it is: the header
  ``question,references,corpus_id``, ``references`` a JSON list of ``{content, start_index,
  end_index}``. A question's id is its 0-based data-row number; its document is its
  ``corpus_id``, a file ``{corpus_id}.*`` of the corpus folder, read as UTF-8 with Python's
  universal newlines (as the official code's ``open(path)`` reads it), offsets counted in code
  points. Each excerpt's ``content`` must be the corpus text at its offsets.
* Span runs: FOL lines ``qid Q0 doc rank score run offset length`` (ranked by ``rank``, ties in
  file order) or JSON lines ``{"qid", "doc", "start", "end", "score"}`` (ranked by ``score``
  descending, ties in file order). The spans of a run may overlap (chunks with overlap).
* Chunkings: ``doc<TAB>start<TAB>end`` lines, ``end`` exclusive.

Every span is checked against its document's text: a document not in the corpus, an offset
outside it or an end before a start is an error naming file and line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError, InexevalError, shown
from inexeval.formats.probes import QUESTIONS_HEADER as HEADER
from inexeval.formats.source import opened

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Question:
    """One question: its id (the data-row number as text), its text, its corpus and the
    excerpts ``(start, end)`` in the CSV's order (they may overlap, as the official code
    allows)."""

    qid: str
    text: str
    corpus_id: str
    excerpts: IntArray


@dataclass(frozen=True)
class Questions:
    """The questions of a CSV in its order, and the text of every corpus they name."""

    questions: tuple[Question, ...]
    corpora: Mapping[str, str]
    source: str

    def __len__(self) -> int:
        return len(self.questions)

    def ids(self) -> list[str]:
        return [q.qid for q in self.questions]


@dataclass(frozen=True)
class Spans:
    """Spans in order (a ranking or a chunking): document ids, starts, ends (exclusive)."""

    docs: npt.NDArray[np.object_]
    starts: IntArray
    ends: IntArray

    def __len__(self) -> int:
        return len(self.starts)

    def head(self, k: int) -> Spans:
        return Spans(self.docs[:k], self.starts[:k], self.ends[:k])


EMPTY = Spans(np.zeros(0, dtype=object), np.zeros(0, np.int64), np.zeros(0, np.int64))


@dataclass(frozen=True)
class SpanRun:
    """A run of ranked spans: its name and each question's ranking."""

    name: str
    rankings: Mapping[str, Spans]
    source: str


def default_corpus(questions: str | Path) -> Path:
    """Where a questions CSV's corpus is looked for when none is given: the folder
    ``corpora`` beside it (Chroma's layout) if there is one, else the CSV's own folder."""
    folder = Path(questions).parent
    return folder / "corpora" if (folder / "corpora").is_dir() else folder


def read_corpus_file(folder: str | Path, corpus_id: str, where: str) -> str:
    """The text of ``{corpus_id}.*`` in ``folder`` (exactly one such file)."""
    base = Path(folder)
    if not base.is_dir():
        raise InexevalError(f"corpus folder {str(base)!r} does not exist", where)
    found = sorted(p for p in base.iterdir()
                   if p.is_file() and (p.stem == corpus_id or p.name == corpus_id))
    if not found:
        raise InexevalError(f"no corpus file {corpus_id}.* in {base}", where)
    if len(found) > 1:
        raise InexevalError(f"corpus {corpus_id!r} is ambiguous in {base}: "
                            f"{', '.join(p.name for p in found)}", where)
    try:
        with open(found[0], encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as error:
        raise FormatError(f"not UTF-8 at byte {error.start}", found[0]) from None


def read_questions(path: str | Path, corpus: str | Path | None = None) -> Questions:
    """Read Chroma's questions CSV and its corpus folder (default :func:`default_corpus`);
    every excerpt checked against the corpus text."""
    from inexeval.formats.questions import csv_rows

    name, reader, header = csv_rows(path)
    if header is None or tuple(header) != HEADER:
        raise FormatError(f"not a Chroma questions CSV: the header must be {','.join(HEADER)}",
                          name, 1)
    folder = default_corpus(path) if corpus is None else Path(corpus)
    corpora: dict[str, str] = {}
    questions: list[Question] = []
    for row in reader:
        if not row:
            continue  # a blank line, which pandas skips too
        line = reader.line_num
        qid = str(len(questions))
        if len(row) != 3:
            raise FormatError(f"question {qid}: {len(row)} fields, expected 3", name, line)
        question, references, corpus_id = row
        if not corpus_id:
            raise FormatError(f"question {qid}: empty corpus_id", name, line)
        if corpus_id not in corpora:
            corpora[corpus_id] = read_corpus_file(folder, corpus_id, f"{name}:{line}")
        excerpts = _excerpts(references, corpora[corpus_id], f"question {qid}", name, line)
        questions.append(Question(qid, question, corpus_id, excerpts))
    if not questions:
        raise FormatError("no question", name)
    return Questions(tuple(questions), corpora, name)


def _excerpts(references: str, text: str, what: str, name: str, line: int) -> IntArray:
    try:
        items = json.loads(references)
    except ValueError:
        raise FormatError(f"{what}: references are not JSON: {shown(references)}", name,
                          line) from None
    if not isinstance(items, list) or not items:
        raise FormatError(f"{what}: references must be a non-empty JSON list", name, line)
    spans = []
    for number, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("content"), str):
            raise FormatError(f"{what}: reference {number} has no content", name, line)
        start, end = (item.get(key) for key in ("start_index", "end_index"))
        if not (_whole(start) and _whole(end)):
            raise FormatError(f"{what}: reference {number}: start_index and end_index must be "
                              "whole numbers", name, line)
        _check_span(start, end, len(text), f"{what}: reference {number}", name, line)
        if text[start:end] != item["content"]:
            raise FormatError(f"{what}: reference {number}: its content is not the corpus text "
                              f"at [{start}, {end}): {shown(text[start:end])}", name, line)
        spans.append((start, end))
    return np.array(spans, dtype=np.int64).reshape(-1, 2)


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_span(start: int, end: int, length: int | None, what: str, name: str,
                line: int) -> None:
    if start < 0:
        raise FormatError(f"{what}: negative offset {start}", name, line)
    if end < start:
        raise FormatError(f"{what}: end {end} before start {start}", name, line)
    if length is not None and end > length:
        raise FormatError(f"{what}: end {end} beyond the document's {length} characters",
                          name, line)


def _integer(value: str, what: str, name: str, line: int) -> int:
    try:
        return int(value)
    except ValueError:
        raise FormatError(f"{what} {shown(value)} is not a whole number", name, line) from None


def _number(value: Any, what: str, name: str, line: int) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise FormatError(f"{what} {shown(str(value))} is not a number", name, line)
    try:
        number = float(value)
    except ValueError:
        raise FormatError(f"{what} {shown(str(value))} is not a number", name, line) from None
    if math.isnan(number):
        raise FormatError(f"{what} is NaN", name, line)
    return number


def _document(doc: str, corpora: Mapping[str, str] | None, name: str, line: int) -> int | None:
    if corpora is None:
        return None
    if doc not in corpora:
        raise FormatError(f"document {shown(doc)} is not a corpus of the questions", name, line)
    return len(corpora[doc])


def read_span_run(path: str | Path, corpora: Mapping[str, str] | None) -> SpanRun:
    """A span run, FOL or JSON lines (told by its first non-blank character: ``{``), each span
    checked against the text of ``corpora`` (None: only that it does not end before its
    start)."""
    name = str(path)
    records: dict[str, list[tuple[float, int, str, int, int]]] = {}
    run_name = Path(name).name
    with opened(path) as source:
        lines = [(n, text) for n, text in source.lines() if text.strip()]
    if not lines:
        raise FormatError("empty run", name)
    jsonl = lines[0][1].lstrip().startswith("{")
    for number, text in lines:
        if jsonl:
            qid, doc, start, end, key = _jsonl_span(text, name, number)
        else:
            qid, doc, start, end, key, given = _fol_span(text, name, number)
            if given is not None and number == lines[0][0]:
                run_name = given
        _check_span(start, end, _document(doc, corpora, name, number), "span", name, number)
        records.setdefault(qid, []).append((key, number, doc, start, end))
    rankings = {}
    for qid, items in records.items():
        items.sort(key=lambda item: (item[0], item[1]))
        rankings[qid] = Spans(np.array([i[2] for i in items], dtype=object),
                              np.array([i[3] for i in items], dtype=np.int64),
                              np.array([i[4] for i in items], dtype=np.int64))
    return SpanRun(run_name, rankings, name)


def _jsonl_span(text: str, name: str, line: int) -> tuple[str, str, int, int, float]:
    try:
        item = json.loads(text)
    except ValueError:
        raise FormatError("not a JSON object", name, line) from None
    if not isinstance(item, dict):
        raise FormatError("not a JSON object", name, line)
    missing = [key for key in ("qid", "doc", "start", "end", "score") if key not in item]
    if missing:
        raise FormatError(f"missing {', '.join(missing)}", name, line)
    for key in ("start", "end"):
        if not _whole(item[key]):
            raise FormatError(f"{key} {shown(str(item[key]))} is not a whole number", name, line)
    qid, doc = item["qid"], item["doc"]
    if isinstance(qid, bool) or not isinstance(qid, (str, int)) or not isinstance(doc, str):
        raise FormatError("qid must be a string or a whole number and doc a string", name, line)
    score = _number(item["score"], "score", name, line)
    return str(qid), doc, int(item["start"]), int(item["end"]), -score


def _fol_span(text: str, name: str, line: int
              ) -> tuple[str, str, int, int, float, str | None]:
    fields = text.split()
    if len(fields) != 8:
        raise FormatError(f"{len(fields)} fields, expected 8 (qid Q0 doc rank score run offset "
                          "length)", name, line)
    qid, _, doc, rank, score, run, offset, length = fields
    ranked = _integer(rank, "rank", name, line)
    _number(score, "score", name, line)
    start = _integer(offset, "offset", name, line)
    size = _integer(length, "length", name, line)
    if size < 0:
        raise FormatError(f"negative length {size}", name, line)
    return qid, doc, start, start + size, float(ranked), run


def read_chunking(path: str | Path, corpora: Mapping[str, str]) -> Spans:
    """A chunking: ``doc<TAB>start<TAB>end`` lines (blank lines skipped), in file order."""
    name = str(path)
    docs: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    with opened(path) as source:
        for number, text in source.lines():
            if not text.strip():
                continue
            fields = text.rstrip("\n").split("\t")
            if len(fields) != 3:
                raise FormatError(f"{len(fields)} tab-separated fields, expected 3 (doc start "
                                  "end)", name, number)
            doc = fields[0]
            start = _integer(fields[1], "start", name, number)
            end = _integer(fields[2], "end", name, number)
            _check_span(start, end, _document(doc, corpora, name, number), "chunk", name, number)
            docs.append(doc)
            starts.append(start)
            ends.append(end)
    if not docs:
        raise FormatError("no chunk", name)
    return Spans(np.array(docs, dtype=object), np.array(starts, dtype=np.int64),
                 np.array(ends, dtype=np.int64))


def chunking_lines(chunks: Spans) -> Iterable[str]:
    """A chunking's lines as :func:`read_chunking` reads them."""
    for doc, start, end in zip(chunks.docs.tolist(), chunks.starts.tolist(),
                               chunks.ends.tolist()):
        yield f"{doc}\t{start}\t{end}\n"
