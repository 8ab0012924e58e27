"""The span pool that ``inexeval pool --unit span`` writes and ``inexeval assess init --pool``
reads: one line per pooled span, six tab-separated fields, no header::

    qid <TAB> doc <TAB> start <TAB> end <TAB> min_rank <TAB> runs

``start`` and ``end`` are code-point offsets into the document's text, ``end`` exclusive and
after ``start``; ``min_rank`` and ``runs`` positive integers. Told from the five-field element
pool (:mod:`inexeval.formats.pool`) by its first line. A wrong number of fields, an empty qid or
document, a bad number or a span listed twice is an error naming file and line.
"""

from __future__ import annotations

from pathlib import Path

from inexeval.errors import FormatError, shown
from inexeval.formats.lines import MAX_DIGITS
from inexeval.formats.source import opened
from inexeval.rag.pool import PooledSpan


def is_span_pool(path: str | Path) -> bool:
    """Whether the first non-blank line of ``path`` has the six fields of a span pool (an
    element pool has five)."""
    if str(path) == "-":  # standard input is read once: as the element pool it was
        return False
    try:
        with opened(path) as source:
            for _, line in source.lines():
                fields = line.split("\t")
                return len(fields) == 6
    except (OSError, UnicodeDecodeError, FormatError):
        return False
    return False


def _whole(value: str, what: str, name: str, line: int, least: int) -> int:
    value = value.strip()
    if not (value.isascii() and value.isdigit()) or len(value) > MAX_DIGITS or int(value) < least:
        kind = "a positive integer" if least else "a whole number"
        raise FormatError(f"{what} {shown(value)} is not {kind}", name, line)
    return int(value)


def read_span_pool(path: str | Path) -> list[tuple[PooledSpan, int]]:
    """The pooled spans of a span pool in file order, each with its line number."""
    found: list[tuple[PooledSpan, int]] = []
    seen: set[tuple[str, str, int, int]] = set()
    with opened(path) as source:
        name = source.name
        for number, line in source.lines():
            fields = line.split("\t")
            if len(fields) != 6:
                raise FormatError(f"{len(fields)} tab-separated fields, expected 6: qid doc "
                                  "start end min_rank runs", name, number)
            qid, doc = fields[0].strip(), fields[1].strip()
            if not qid or not doc:
                raise FormatError(f"empty {'qid' if not qid else 'doc'}", name, number)
            start = _whole(fields[2], "start", name, number, 0)
            end = _whole(fields[3], "end", name, number, 0)
            if end <= start:
                raise FormatError(f"span [{start}, {end}) is empty or ends before it starts",
                                  name, number)
            key = (qid, doc, start, end)
            if key in seen:
                raise FormatError(f"question {qid} lists {doc} [{start}, {end}) twice", name,
                                  number)
            seen.add(key)
            span = PooledSpan(qid, doc, start, end, _whole(fields[4], "min_rank", name, number, 1),
                              _whole(fields[5], "runs", name, number, 1))
            found.append((span, number))
    if not found:
        raise FormatError("the pool has no span line", name)
    return found
