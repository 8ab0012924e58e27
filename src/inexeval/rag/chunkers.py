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
* ``chonkie:Class(arguments)``, ``semantic-text-splitter:Class(arguments)``: a chunker of the
  library, when installed, located by the offsets the library gives (chonkie's
  ``start_index``/``end_index``, semantic-text-splitter's ``chunk_indices``), each checked to hold
  the chunk's text. LangChain's splitters give no offsets (its ``add_start_index`` searches
  each chunk's text), so they are not offered.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from inexeval.errors import InexevalError
from inexeval.formats.chroma import Spans

SEPARATORS = (re.compile(r"\n[ \t]*\n\s*"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+"),
              re.compile(r"\s+"))
"""Where ``recursive`` cuts, in order: paragraphs, lines, sentences, words (then anywhere)."""

KINDS = ("fixed", "recursive")

LIBRARIES = {"chonkie": "chonkie", "semantic-text-splitter": "semantic_text_splitter"}
"""Chunking libraries used by name when installed, each giving its chunks' offsets (module
imported for each)."""

Split = Callable[[str], list[tuple[int, int]]]


@dataclass(frozen=True)
class Chunker:
    """A chunker: its name (as given) and how it cuts a text into ``(start, end)`` offsets."""

    name: str
    split: Split

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
    """``fixed:SIZE:OVERLAP`` or ``recursive:SIZE:OVERLAP`` (0 <= OVERLAP < SIZE), or a class
    of an installed library with literal arguments: ``chonkie:RecursiveChunker(chunk_size=800)``,
    ``semantic-text-splitter:TextSplitter(800, overlap=400)``."""
    library, _, call = text.partition(":")
    if library == "langchain":
        raise InexevalError(f"chunker {text!r}: LangChain's splitters give no offsets (its "
                            "add_start_index finds each chunk by searching its text, the wrong "
                            "place when the text repeats): use recursive:SIZE:OVERLAP (its "
                            "RecursiveCharacterTextSplitter on offsets), or chonkie:Class(...) "
                            "or semantic-text-splitter:Class(...)")
    if library in LIBRARIES:
        return _library_chunker(text, library, call)
    parts = text.split(":")
    if len(parts) != 3 or parts[0] not in KINDS:
        raise InexevalError(f"chunker {text!r}: expected fixed:SIZE:OVERLAP, "
                            "recursive:SIZE:OVERLAP or LIBRARY:Class(arguments) (LIBRARY one "
                            f"of {', '.join(LIBRARIES)})")
    try:
        size, overlap = int(parts[1]), int(parts[2])
    except ValueError:
        raise InexevalError(f"chunker {text!r}: SIZE and OVERLAP must be whole numbers") from None
    if size < 1 or not 0 <= overlap < size:
        raise InexevalError(f"chunker {text!r}: needs SIZE >= 1 and 0 <= OVERLAP < SIZE")
    if parts[0] == "fixed":
        return Chunker(text, lambda t: fixed(len(t), size, overlap))
    return Chunker(text, lambda t: recursive(t, size, overlap))


def _library_chunker(spec: str, library: str, call: str) -> Chunker:
    """A chunker of ``library``: ``Class(arguments)`` made once, its chunks' offsets as the
    library gives them, each checked to hold the chunk's text."""
    try:
        node = ast.parse(call, mode="eval").body
    except SyntaxError:
        node = None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or any(
            k.arg is None for k in node.keywords):
        raise InexevalError(f"chunker {spec!r}: expected {library}:Class(arguments)")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    except ValueError:
        raise InexevalError(f"chunker {spec!r}: the arguments must be literals") from None
    try:
        module = importlib.import_module(LIBRARIES[library])
    except ImportError:
        raise InexevalError(f"chunker {spec!r}: {library} is not installed "
                            f"(pip install {library})") from None
    made = getattr(module, node.func.id, None)
    if not isinstance(made, type):
        raise InexevalError(f"chunker {spec!r}: {library} has no class {node.func.id}")
    try:
        splitter = made(*args, **kwargs)
    except (TypeError, ValueError) as error:
        raise InexevalError(f"chunker {spec!r}: {error}") from None

    def pieces(text: str) -> list[tuple[int, int, str]]:
        if library == "chonkie":
            return [(c.start_index, c.end_index, c.text) for c in splitter.chunk(text)]
        return [(i, i + len(c), c) for i, c in splitter.chunk_indices(text)]

    def split(text: str) -> list[tuple[int, int]]:
        out = []
        for start, end, chunk in pieces(text):
            if not 0 <= start <= end <= len(text) or text[start:end] != chunk:
                raise InexevalError(f"chunker {spec!r}: its chunk at [{start}, {end}) is not "
                                    "the text there")
            out.append((int(start), int(end)))
        return out

    return Chunker(spec, split)


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
