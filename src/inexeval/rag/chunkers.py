"""Character chunkers that give each chunk by its offsets (never by searching its text, which
finds the wrong place when a chunk's text repeats).

* ``fixed:SIZE:OVERLAP``: chunk i covers ``[i*step, i*step + SIZE)``, ``step = SIZE - OVERLAP``,
  the last one ending at the text's end.
* ``recursive:SIZE:OVERLAP``: LangChain's ``RecursiveCharacterTextSplitter`` on offsets: the
  text cut at paragraph breaks; consecutive pieces that fit joined into chunks of at most SIZE
  characters, each chunk starting with the last pieces of the one before that fit in OVERLAP
  characters; a piece longer than SIZE cut the same way at line breaks, then sentence ends,
  then spaces, then anywhere (as ``fixed``). A separator stays at the end of the piece it
  ends, so that the pieces tile the text (LangChain strips the chunks' spaces).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from inexeval.errors import InexevalError
from inexeval.formats.chroma import Spans

SEPARATORS = (re.compile(r"\n[ \t]*\n\s*"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+"),
              re.compile(r"\s+"))
"""Where ``recursive`` cuts, in order: paragraphs, lines, sentences, words (then anywhere)."""

KINDS = ("fixed", "recursive")


@dataclass(frozen=True)
class Chunker:
    """A chunker named ``KIND:SIZE:OVERLAP``."""

    kind: str
    size: int
    overlap: int

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.size}:{self.overlap}"

    def split(self, text: str) -> list[tuple[int, int]]:
        """The chunks of ``text`` as ``(start, end)`` offsets."""
        if self.kind == "fixed":
            return fixed(len(text), self.size, self.overlap)
        return recursive(text, self.size, self.overlap)

    def chunk(self, corpora: Mapping[str, str]) -> Spans:
        """The chunks of every corpus, corpus by corpus in the mapping's order."""
        docs: list[str] = []
        bounds: list[tuple[int, int]] = []
        for doc, text in corpora.items():
            cut = self.split(text)
            docs += [doc] * len(cut)
            bounds += cut
        spans = np.array(bounds, dtype=np.int64).reshape(-1, 2)
        return Spans(np.array(docs, dtype=object), spans[:, 0].copy(), spans[:, 1].copy())


def parse_chunker(text: str) -> Chunker:
    """``fixed:SIZE:OVERLAP`` or ``recursive:SIZE:OVERLAP`` (0 <= OVERLAP < SIZE)."""
    parts = text.split(":")
    if len(parts) != 3 or parts[0] not in KINDS:
        raise InexevalError(f"chunker {text!r}: expected fixed:SIZE:OVERLAP or "
                            "recursive:SIZE:OVERLAP")
    try:
        size, overlap = int(parts[1]), int(parts[2])
    except ValueError:
        raise InexevalError(f"chunker {text!r}: SIZE and OVERLAP must be whole numbers") from None
    if size < 1 or not 0 <= overlap < size:
        raise InexevalError(f"chunker {text!r}: needs SIZE >= 1 and 0 <= OVERLAP < SIZE")
    return Chunker(parts[0], size, overlap)


def fixed(length: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Chunks of ``size`` characters every ``size - overlap``, the last ending at ``length``."""
    if length == 0:
        return []
    step = size - overlap
    count = 1 if length <= size else -(-(length - size) // step) + 1
    starts = np.arange(count, dtype=np.int64) * step
    ends = np.minimum(starts + size, length)
    return list(zip(starts.tolist(), ends.tolist()))


def _split(text: str, start: int, end: int, size: int, overlap: int,
           level: int) -> list[tuple[int, int]]:
    """The chunks of ``[start, end)``: cut at the separator of ``level``; the pieces that fit
    joined by :func:`_join`, each longer one split at the next separators (as LangChain's
    ``_split_text`` does)."""
    if end - start <= size:
        return [(start, end)] if end > start else []
    if level == len(SEPARATORS):
        return [(start + s, start + e) for s, e in fixed(end - start, size, overlap)]
    cuts = [m.end() for m in SEPARATORS[level].finditer(text, start, end) if m.end() < end]
    out: list[tuple[int, int]] = []
    fitting: list[tuple[int, int]] = []
    for a, b in zip([start, *cuts], [*cuts, end]):
        if b - a <= size:
            fitting.append((a, b))
            continue
        out += _join(fitting, size, overlap)
        fitting = []
        out += _split(text, a, b, size, overlap, level + 1)
    return out + _join(fitting, size, overlap)


def _join(pieces: list[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """Consecutive pieces joined into chunks of at most ``size`` characters, each chunk
    starting with the last pieces of the one before that fit in ``overlap`` characters."""
    chunks: list[tuple[int, int]] = []
    current: list[tuple[int, int]] = []
    for piece in pieces:
        if current and piece[1] - current[0][0] > size:
            chunks.append((current[0][0], current[-1][1]))
            end = current[-1][1]
            current = [p for p in current if end - p[0] <= overlap]
            while current and piece[1] - current[0][0] > size:
                current.pop(0)
        current.append(piece)
    if current:
        chunks.append((current[0][0], current[-1][1]))
    return chunks


def recursive(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """The ``recursive`` chunks of ``text`` (see the module docstring)."""
    return _split(text, 0, len(text), size, overlap, 0)
