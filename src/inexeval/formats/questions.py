"""Questions as topics (issue 34): a CSV whose first column is ``question``, as Chroma's
questions CSV (``question,references,corpus_id``) or a team's new questions without evidence yet
(``question`` alone, or with more columns, which are skipped).

A question's id is its 0-based data-row number, as :mod:`inexeval.formats.chroma` and span runs
number Chroma's questions; its text is the topic's title. An empty question or a file without
one is an error naming file and line.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from inexeval.errors import FormatError
from inexeval.formats.source import opened
from inexeval.model.topic import Topic


def _header(data: bytes) -> list[str]:
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace").lstrip("\ufeff")
    return next(csv.reader([first]), [])


def has_question_column(path: str | Path) -> bool:
    """Whether ``path`` is a file whose first line is a CSV header starting with ``question``
    (questions as topics, any other columns after it; Chroma's own header exactly:
    :func:`inexeval.formats.probes.is_questions_csv`)."""
    try:
        with open(path, "rb") as f:
            first = f.readline(4096)
    except OSError:
        return False
    header = _header(first)
    return bool(header) and header[0].strip() == "question"


def csv_rows(path: str | Path) -> tuple[str, Any, list[str] | None]:
    """A CSV file read whole as UTF-8 (a byte-order mark dropped): its name, a reader of its
    rows after the header (``reader.line_num`` the line of the last row read) and the header
    (None for an empty file)."""
    name = str(path)
    with opened(path) as source:
        data = source.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FormatError(f"not UTF-8 at byte {error.start}", name) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    return name, reader, next(reader, None)


def read_question_topics(path: str | Path) -> dict[str, Topic]:
    """The questions of the CSV as topics ``{row number: Topic(title=question)}`` in order."""
    name, reader, header = csv_rows(path)
    if not header or header[0].strip() != "question":
        raise FormatError("not a questions CSV: the header's first column must be 'question'",
                          name, 1)
    topics: dict[str, Topic] = {}
    for row in reader:
        qid = str(len(topics))
        if not row or not row[0].strip():
            raise FormatError(f"question {qid} is empty", name, reader.line_num)
        topics[qid] = Topic(qid, title=row[0])
    if not topics:
        raise FormatError("no question", name)
    return topics
