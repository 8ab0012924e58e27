"""Building, saving and loading the element index of a collection (DESIGN.md, spec §1.2-§1.3).

Offsets count Unicode characters of text content in document order, tags excluded (spec §1.3,
the FOL convention of INEX 2009+): character and predefined entity references are one character
once parsed (``&amp;`` is ``&``), and an entity reference left unresolved because its declaration
lives in an external DTD that is never loaded (the IEEE collection's ``&ouml;``) also counts as
one character. Comments and processing instructions are not text.

Besides the element arrays of :class:`~inexeval.collection.index.DocumentIndex`, the builder
keeps the span of every text node (:class:`IndexedDocument`), so that 2005-2008 passages given as
``…/p[3]/text()[2].15`` XPointers can be resolved without the documents. Text nodes follow the
XPath data model: a maximal run of character data (entity references included) between child
elements, comments or processing instructions; whitespace-only runs are text nodes too (X-Rai's
``keep`` mode).

The saved index is one ``.npz`` file of plain arrays (no pickle: strings are stored as UTF-8
bytes); loading reads the arrays and builds each document's index on first access.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from lxml import etree

from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.errors import FormatError, InexevalError
from inexeval.formats.xmlsafe import parse

INDEX_FORMAT = "inexeval-index-1"
_SEPARATOR = "\n"


@dataclass(frozen=True, eq=False)
class IndexedDocument(DocumentIndex):
    """A :class:`DocumentIndex` with the spans of each element's text-node children: the text
    nodes of element ``i`` are rows ``text_ptr[i]:text_ptr[i+1]`` of ``text_start``/``text_end``."""

    text_ptr: npt.NDArray[np.int64]
    text_start: npt.NDArray[np.int64]
    text_end: npt.NDArray[np.int64]

    def text_node(self, element: int, k: int) -> tuple[int, int] | None:
        """Span of the ``k``-th (1-based) text-node child of element ``element``, or None."""
        first, last = int(self.text_ptr[element]), int(self.text_ptr[element + 1])
        if not 1 <= k <= last - first:
            return None
        return int(self.text_start[first + k - 1]), int(self.text_end[first + k - 1])


def _name(element: etree._Element) -> str:
    local = etree.QName(element).localname
    return f"{element.prefix}:{local}" if element.prefix else local


class _Frame:
    """An open element during the walk: its position, its children still to visit, the ranks
    of its children by tag, and whether the last content seen was text (a text node is open)."""

    __slots__ = ("children", "element", "in_text", "index", "ranks")

    def __init__(self, index: int, element: etree._Element) -> None:
        self.index = index
        self.element = element
        self.children = iter(element)
        self.ranks: dict[str, int] = {}
        self.in_text = False


def index_document(name: str, source: str | Path | bytes) -> IndexedDocument:
    """Index one XML document (a path or its bytes) in a single pre-order walk."""
    root = parse(source, name if isinstance(source, bytes) else source).getroot()
    paths: list[str] = []
    tags: list[str] = []
    parent: list[int] = []
    depth: list[int] = []
    start: list[int] = []
    end: list[int] = []
    text_nodes: list[list[list[int]]] = []
    position = 0

    def text(frame: _Frame, size: int) -> None:
        nonlocal position
        if size == 0:
            return
        nodes = text_nodes[frame.index]
        if frame.in_text:
            nodes[-1][1] = position + size
        else:
            nodes.append([position, position + size])
            frame.in_text = True
        position += size

    def open_element(element: etree._Element, up: _Frame | None) -> _Frame:
        tag = _name(element)
        if up is None:
            paths.append(f"/{tag}[1]")
            parent.append(-1)
            depth.append(1)
        else:
            up.ranks[tag] = up.ranks.get(tag, 0) + 1
            paths.append(f"{paths[up.index]}/{tag}[{up.ranks[tag]}]")
            parent.append(up.index)
            depth.append(depth[up.index] + 1)
        tags.append(tag)
        start.append(position)
        end.append(position)
        text_nodes.append([])
        frame = _Frame(len(paths) - 1, element)
        text(frame, len(element.text or ""))
        return frame

    # An explicit stack instead of recursion keeps the walk one flat loop over lxml nodes.
    stack = [open_element(root, None)]
    while stack:
        frame = stack[-1]
        child = next(frame.children, None)
        if child is None:
            end[frame.index] = position
            stack.pop()
            if stack:
                stack[-1].in_text = False
                text(stack[-1], len(frame.element.tail or ""))
        elif isinstance(child, etree._Entity):
            text(frame, 1)
            text(frame, len(child.tail or ""))
        elif isinstance(child.tag, str):
            stack.append(open_element(child, frame))
        else:
            frame.in_text = False
            text(frame, len(child.tail or ""))
    counts = np.array([len(nodes) for nodes in text_nodes], dtype=np.int64)
    flat = np.array([span for nodes in text_nodes for span in nodes], dtype=np.int64).reshape(-1, 2)
    return IndexedDocument(
        name=name,
        paths=tuple(paths),
        tags=tuple(tags),
        parent=np.array(parent, dtype=np.int64),
        depth=np.array(depth, dtype=np.int64),
        start=np.array(start, dtype=np.int64),
        end=np.array(end, dtype=np.int64),
        length=position,
        text_ptr=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        text_start=flat[:, 0].copy(),
        text_end=flat[:, 1].copy(),
    )


def _document_name(file: Path, folder: Path) -> str:
    relative = file.relative_to(folder).as_posix()
    return relative.removesuffix(".xml")


def build_index(
    folder: str | Path, progress: Callable[[int, int], None] | None = None
) -> CollectionIndex:
    """Index every ``*.xml`` file below ``folder``; a document's name is its path below the
    folder without ``.xml`` (``co/2000/r7108``). ``progress(done, total)`` is called per file."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InexevalError("no such collection folder", folder)
    files = sorted(folder.rglob("*.xml"))
    documents: dict[str, DocumentIndex] = {}
    for done, file in enumerate(files, 1):
        name = _document_name(file, folder)
        documents[name] = index_document(name, file)
        if progress is not None:
            progress(done, len(files))
    return CollectionIndex(documents, source=str(folder), meta={"root": str(folder.resolve())})


def _blob(strings: list[str]) -> npt.NDArray[np.uint8]:
    return np.frombuffer(_SEPARATOR.join(strings).encode("utf-8"), dtype=np.uint8)


def _strings(blob: npt.NDArray[np.uint8], count: int) -> list[str]:
    if count == 0:
        return []
    return blob.tobytes().decode("utf-8").split(_SEPARATOR)


def save_index(index: CollectionIndex, path: str | Path) -> None:
    """Save a collection index as one ``.npz`` file of plain arrays (no pickle).

    Text-node spans are saved for documents that have them (:class:`IndexedDocument`)."""
    documents = [index[name] for name in index]
    sizes = np.array([len(d) for d in documents], dtype=np.int64)
    paths = [p for d in documents for p in d.paths]
    tags = [t for d in documents for t in d.tags]
    text_counts: list[npt.NDArray[np.int64]] = []
    text_spans: list[npt.NDArray[np.int64]] = []
    for d in documents:
        if isinstance(d, IndexedDocument):
            text_counts.append(np.diff(d.text_ptr))
            text_spans.append(np.stack([d.text_start, d.text_end], axis=1))
        else:
            text_counts.append(np.zeros(len(d), dtype=np.int64))
    empty = np.zeros(0, dtype=np.int64)
    with open(path, "wb") as handle:
        np.savez_compressed(
            handle,
            format=np.frombuffer(INDEX_FORMAT.encode(), dtype=np.uint8),
            names=_blob(list(index)),
            source=_blob([index.source or ""]),
            sizes=sizes,
            lengths=np.array([d.length for d in documents], dtype=np.int64),
            paths=_blob(paths),
            tags=_blob(tags),
            parent=np.concatenate([d.parent for d in documents]) if documents else empty,
            depth=np.concatenate([d.depth for d in documents]) if documents else empty,
            start=np.concatenate([d.start for d in documents]) if documents else empty,
            end=np.concatenate([d.end for d in documents]) if documents else empty,
            text_counts=np.concatenate(text_counts) if documents else empty,
            text_spans=np.concatenate(text_spans).reshape(-1, 2) if text_spans else empty,
        )


class _SavedDocuments(Mapping[str, DocumentIndex]):
    """The documents of a saved index, each built from the arrays on first access."""

    def __init__(self, arrays: Mapping[str, npt.NDArray[np.int64]], names: list[str],
                 paths: list[str], tags: list[str]) -> None:
        self._arrays = arrays
        self._names = {name: i for i, name in enumerate(names)}
        self._paths = paths
        self._tags = tags
        sizes = arrays["sizes"]
        self._first = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        self._text_ptr = np.concatenate(([0], np.cumsum(arrays["text_counts"]))).astype(np.int64)
        self._built: dict[str, DocumentIndex] = {}

    def __getitem__(self, name: str) -> DocumentIndex:
        built = self._built.get(name)
        if built is None:
            built = self._build(name, self._names[name])
            self._built[name] = built
        return built

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def _build(self, name: str, i: int) -> IndexedDocument:
        a, b = int(self._first[i]), int(self._first[i + 1])
        t0, t1 = int(self._text_ptr[a]), int(self._text_ptr[b])
        spans = self._arrays["text_spans"]
        return IndexedDocument(
            name=name,
            paths=tuple(self._paths[a:b]),
            tags=tuple(self._tags[a:b]),
            parent=self._arrays["parent"][a:b],
            depth=self._arrays["depth"][a:b],
            start=self._arrays["start"][a:b],
            end=self._arrays["end"][a:b],
            length=int(self._arrays["lengths"][i]),
            text_ptr=self._text_ptr[a : b + 1] - t0,
            text_start=spans[t0:t1, 0] if t1 > t0 else np.zeros(0, dtype=np.int64),
            text_end=spans[t0:t1, 1] if t1 > t0 else np.zeros(0, dtype=np.int64),
        )


def load_index(path: str | Path) -> CollectionIndex:
    """Load an index saved by :func:`save_index` (plain arrays only; pickles are refused)."""
    path = Path(path)
    if not path.is_file():
        raise InexevalError("no such index file", path)
    try:
        with np.load(path, allow_pickle=False) as saved:
            arrays = {key: saved[key] for key in saved.files}
    except (OSError, ValueError) as error:
        raise FormatError(f"not an inexeval index: {error}", path) from None
    if "format" not in arrays or arrays["format"].tobytes().decode() != INDEX_FORMAT:
        raise FormatError(f"not an {INDEX_FORMAT} file", path)
    sizes = arrays["sizes"]
    names = _strings(arrays["names"], len(sizes))
    total = int(sizes.sum())
    documents = _SavedDocuments(
        arrays, names, _strings(arrays["paths"], total), _strings(arrays["tags"], total))
    source = arrays["source"].tobytes().decode("utf-8")
    return CollectionIndex(documents, source=str(path), meta={"root": source} if source else {})


def load_collection(path: str | Path) -> CollectionIndex:
    """A collection index from a folder of XML documents (indexed now) or a saved index."""
    path = Path(path)
    if path.is_dir():
        return build_index(path)
    if not path.exists():
        raise InexevalError("no such collection folder or index file", path)
    return load_index(path)
