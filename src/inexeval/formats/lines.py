"""Whole-file reading of whitespace-separated text formats (FOL and TREC-like runs and qrels):
bytes with line ends normalised, and the number of fields of every line computed at once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError

_BLANK_BYTE = np.zeros(256, dtype=bool)
_BLANK_BYTE[list(b" \t\n\x0b\x0c\r")] = True


def read_normalised(path: str | Path) -> bytes:
    """The file's bytes with every line ending (LF, CR or CRLF) made LF."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise FormatError(f"cannot read: {error.strerror or error}", path) from None
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def field_counts(data: bytes) -> npt.NDArray[np.int64]:
    """Number of fields of each line as the official tool splits it (a leading blank adds an
    empty field), computed on the bytes at once: a field starts at a non-blank byte that
    follows a blank or begins the data."""
    if not data:
        return np.zeros(0, dtype=np.int64)
    raw = np.frombuffer(data, dtype=np.uint8)
    blank = _BLANK_BYTE[raw]
    breaks = np.flatnonzero(raw == 10)
    lines = len(breaks) + (0 if raw[-1] == 10 else 1)
    starts = ~blank
    starts[1:] &= blank[:-1]
    line_of = np.searchsorted(breaks, np.flatnonzero(starts))
    counts = np.bincount(line_of, minlength=lines)[:lines].astype(np.int64)
    heads = np.concatenate(([0], breaks + 1))[:lines]
    counts += (blank[heads] & (raw[heads] != 10) & (counts > 0)).astype(np.int64)
    return counts
