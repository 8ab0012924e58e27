"""Column-wise reading of whitespace-separated text (FOL and TREC-like runs): a block of whole
lines from :meth:`inexeval.formats.source.Source.blocks` is cut into fields with numpy, and
numeric columns are parsed and checked at once, without a Python object per field.

Fields are split at runs of the six ASCII whitespace characters, as the official tool splits
them; blank lines are skipped; a line that starts with blank space would have an empty first
field (the official tool's reading) and is an error. Numbers are strict: an integer is an
optional sign and at most :data:`MAX_DIGITS` ASCII digits; every problem is a
:class:`~inexeval.errors.FormatError` naming the file and the line, quoting at most
:data:`~inexeval.errors.SHOWN` characters of the field.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError, InexevalError, shown

MAX_DIGITS = 15
"""Digits of the largest integer accepted (10^15: far beyond any rank, offset or length)."""

_INTEGER = re.compile(rb"[+-]?[0-9]+")


def topic_id(value: str, file: str | Path, line: int | None) -> str:
    """A topic id as given (outer blanks removed): empty or with blanks inside is an error."""
    stripped = value.strip()
    if not stripped or len(stripped.split()) > 1:
        raise FormatError(f"topic id {shown(value)} is {'empty' if not stripped else 'not one word'}",
                          file, line)
    return stripped


def field_bounds(raw: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.bool_],
                                                     npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Where the blank-separated fields of ``raw`` (text bytes with no control character other
    than blanks and line ends, as :class:`~inexeval.formats.source.Source` checks) start and
    end, and which bytes are not blank."""
    solid = raw > 32
    edges = np.flatnonzero(solid[1:] != solid[:-1]) + 1
    if len(raw) and solid[0]:
        edges = np.concatenate(([0], edges))
    return solid, edges[0::2], edges[1::2]


class Table:
    """The fields of a block's non-blank lines, each of which must have ``width`` fields
    (``error`` otherwise, e.g. :class:`~inexeval.errors.RunError` for a run)."""

    def __init__(self, block: bytes, first: int, name: str, width: int, expected: str,
                 error: type[InexevalError] = FormatError) -> None:
        self.block = block
        self.name = name
        raw = np.frombuffer(block, dtype=np.uint8)
        self.raw = raw
        solid, starts, ends = field_bounds(raw)
        newlines = np.flatnonzero(raw == 10)
        heads = np.concatenate(([0], newlines[:-1] + 1))
        counts = np.diff(np.searchsorted(starts, newlines), prepend=0)
        indented = solid[heads]
        indented = ~indented & (raw[heads] != 10) & (counts > 0)
        bad = np.flatnonzero(((counts != width) & (counts > 0)) | indented)
        if len(bad):
            line = int(bad[0])
            text = block[heads[line]:newlines[line]]
            if indented[line]:
                problem = "the line starts with blank space (an empty first field)"
            else:
                problem = ("too many fields" if counts[line] > width else "fields missing") + (
                    f": {int(counts[line])} fields where {width} are expected")
            raise error(f"{problem} ({expected}): {shown(text.strip())}", name, first + line)
        kept = np.flatnonzero(counts)
        self.numbers = (kept + first).astype(np.int64)
        self.starts = starts.reshape(-1, width)
        self.ends = ends.reshape(-1, width)

    def __len__(self) -> int:
        return len(self.numbers)

    def field(self, row: int, column: int) -> bytes:
        return self.block[int(self.starts[row, column]):int(self.ends[row, column])]

    def fail(self, row: int, column: int, problem: str) -> FormatError:
        """The error for field ``column`` of line ``row``: ``problem`` follows the field."""
        return FormatError(f"{shown(self.field(row, column))} {problem}", self.name,
                           int(self.numbers[row]))

    def padded(self, column: int, limit: int, what: str) -> npt.NDArray[np.uint8]:
        """The column as a matrix of bytes, one row per line, zero-padded (fields of at most
        ``limit`` bytes)."""
        too_long = (self.ends[:, column] - self.starts[:, column]) > limit
        if too_long.any():
            raise self.fail(int(np.argmax(too_long)), column,
                            f"is too long for a {what} (at most {limit} characters)")
        return self.padded_rows(column)

    def integers(self, column: int, what: str,
                 skip: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.int64]:
        """The column as integers (rows in ``skip`` are not read and give 0)."""
        rows = np.ones(len(self), dtype=bool) if skip is None else ~skip
        starts = self.starts[:, column]
        widths = self.ends[:, column] - starts
        sign_only = (widths == 1) & ((self.raw[starts] == ord("-")) | (self.raw[starts] == ord("+")))
        if bool((widths[rows] <= MAX_DIGITS).all()) and not sign_only[rows].any():
            text = self.joined(column, ord(" "), rows)
            if not text.translate(None, b"0123456789+- "):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", DeprecationWarning)
                        read = np.fromstring(text, dtype=np.int64, sep=" ")
                    if len(read) == int(rows.sum()):
                        values = np.zeros(len(self), dtype=np.int64)
                        values[rows] = read
                        return values
                except ValueError:
                    pass
        values = np.zeros(len(self), dtype=np.int64)
        for row in np.flatnonzero(rows).tolist():
            field = self.field(row, column)
            if not _INTEGER.fullmatch(field):
                raise self.fail(row, column, f"is not an integer ({what})")
            if len(field.lstrip(b"+-")) > MAX_DIGITS:
                raise self.fail(row, column,
                                f"is too large for a {what} (more than {MAX_DIGITS} digits)")
            values[row] = int(field)
        return values

    def ranks_and_scores(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64],
                                        npt.NDArray[np.bool_]]:
        """Fields 4 and 5 of a run line (``topic Q0 doc rank score ...``): the ranks
        (non-negative integers, an error otherwise), the scores and the rows whose score is not
        a finite number."""
        ranks = self.integers(3, "rank")
        if (ranks < 0).any():
            raise self.fail(int(np.argmax(ranks < 0)), 3, "is a negative rank")
        scores, unread = self.floats(4)
        return ranks, scores, unread | ~np.isfinite(scores)

    def floats(self, column: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """The column as floats, exactly as ``float()`` reads them, and which rows are not
        numbers (NaN there; underscores and hexadecimal are not numbers here)."""
        text = self.joined(column, ord(" "))
        if b"_" not in text and b"x" not in text and b"X" not in text:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    values = np.fromstring(text, dtype=np.float64, sep=" ")
                if len(values) == len(self):
                    return values, np.zeros(len(self), dtype=bool)
            except ValueError:
                pass
        parsed = [_float(v) for v in text.split()]
        unread = np.array([v is None for v in parsed], dtype=bool)
        return np.array([math.nan if v is None else v for v in parsed], dtype=np.float64), unread

    def padded_rows(self, column: int,
                    rows: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.uint8]:
        """The column as a zero-padded byte matrix, only ``rows`` filled (default all)."""
        starts = self.starts[:, column]
        ends = self.ends[:, column] if rows is None else np.where(rows, self.ends[:, column],
                                                                   starts)
        widest = int((ends - starts).max(initial=0))
        index = starts[:, None] + np.arange(widest)
        matrix = self.raw[np.minimum(index, len(self.raw) - 1)]
        matrix[index >= ends[:, None]] = 0
        return np.asarray(matrix, dtype=np.uint8)

    def joined(self, column: int, separator: int,
               rows: npt.NDArray[np.bool_] | None = None) -> bytes:
        """The column's fields (of ``rows``, default all), each followed by ``separator``
        (one gather, no object per field)."""
        starts, ends = self.starts[:, column], self.ends[:, column]
        if rows is not None:
            starts, ends = starts[rows], ends[rows]
        sizes = ends - starts + 1
        places = np.cumsum(sizes) - sizes
        index = np.arange(int(sizes.sum())) - np.repeat(places - starts, sizes)
        out = self.raw[index]
        out[places + sizes - 1] = separator
        return bytes(out.tobytes())

    def texts(self, column: int) -> list[str]:
        """The column as strings (the block is UTF-8 already)."""
        return self.joined(column, 10).decode("utf-8").split("\n")[:-1]


def _float(value: bytes) -> float | None:
    try:
        return None if b"_" in value or b"x" in value.lower() else float(value)
    except ValueError:
        return None
