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

The walk is one pass over lxml's ``iterwalk`` events recording numbers only (tag, parent, start
and end offsets, text-node spans); canonical paths are built from the parent pointers when a
document's paths are first read. The saved index is one uncompressed ``.npz`` file of plain
integer arrays (no pickle; strings as UTF-8 bytes), carrying the format marker and version
:data:`INDEX_FORMAT` and checked on loading; each document's index is built on first access.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

import numpy as np
import numpy.typing as npt
from lxml import etree

from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.errors import FormatError, InexevalError
from inexeval.formats.xmlsafe import parse

INDEX_FORMAT = "inexeval-index"
INDEX_VERSION = 2
"""Version of the saved layout; an index of another version is refused (rebuild it)."""
_SEPARATOR = "\n"
IntArray = npt.NDArray[np.int64]


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


class LazyPaths(Sequence[str]):
    """The canonical paths of a document's elements (``/article[1]/bdy[1]/sec[2]``), built from
    tags and parent pointers on first use: the position among same-tag siblings is the rank
    within a stable sort by (parent, tag)."""

    def __init__(self, tags: Sequence[str], parent: npt.NDArray[np.int64]) -> None:
        self._tags = tags
        self._parent = parent
        self._built: tuple[str, ...] | None = None

    def _paths(self) -> tuple[str, ...]:
        if self._built is None:
            self._built = _paths(self._tags, self._parent)
        return self._built

    def __len__(self) -> int:
        return len(self._tags)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[str, ...]: ...

    def __getitem__(self, i: int | slice) -> str | tuple[str, ...]:
        return self._paths()[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths())


def _paths(tags: Sequence[str], parent: npt.NDArray[np.int64]) -> tuple[str, ...]:
    n = len(tags)
    if n == 0:
        return ()
    _, tag_codes = np.unique(np.array(tags, dtype=object), return_inverse=True)
    order = np.lexsort((tag_codes.reshape(-1), parent))
    key = parent[order] * n + tag_codes.reshape(-1)[order]
    group_start = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    sizes = np.diff(np.append(group_start, n))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - np.repeat(group_start, sizes) + 1
    paths: list[str] = []
    for tag, up, k in zip(tags, parent.tolist(), rank.tolist()):
        paths.append(f"{paths[up] if up >= 0 else ''}/{tag}[{k}]")
    return tuple(paths)


_EVENT_KINDS = {("start", True): 0, ("end", True): 1, ("start", False): 2, ("end", False): 3,
                ("comment", False): 4, ("pi", False): 4}
"""Event codes: element start, element end, entity start, entity end, comment or PI."""


class _Events:
    """lxml's events of documents, end to end: per event its kind and the characters it adds
    after itself (an element's text, a tail, an entity and its tail), per element its tag."""

    def __init__(self) -> None:
        self.kinds: list[npt.NDArray[np.int8]] = []
        self.sizes: list[IntArray] = []
        self.tags: list[str] = []
        self.qualified: dict[tuple[str, str | None], str] = {}

    def add(self, root: etree._Element) -> None:
        events = list(etree.iterwalk(root, events=("start", "end", "comment", "pi")))
        self.kinds.append(np.fromiter([_EVENT_KINDS[e, n.tag.__class__ is str] for e, n in events],
                                      dtype=np.int8, count=len(events)))
        self.sizes.append(np.fromiter(
            [len((n.text if e == "start" else n.tail) or "") for e, n in events],
            dtype=np.int64, count=len(events)))
        qualified = self.qualified
        self.tags.extend(
            n.tag if n.tag[0] != "{" else
            qualified.get((n.tag, n.prefix)) or qualified.setdefault((n.tag, n.prefix), _name(n))
            for e, n in events if e == "start" and n.tag.__class__ is str)

    def arrays(self) -> tuple[dict[str, npt.NDArray[Any]], list[str]]:
        """The saved layout of the documents (see :func:`save_index`) and the tag vocabulary.

        The depth is a running sum of starts and ends; the element an event belongs to is the
        last one started at the depth after the event (a ``searchsorted`` over (depth, event)
        keys), which gives parents and ends. A piece of text starts a new text node unless it is
        an entity following an item of the same element that added text (child elements,
        comments and processing instructions break a node)."""
        kind = np.concatenate(self.kinds).astype(np.int64)
        size = np.concatenate(self.sizes)
        documents = len(self.kinds)
        first_event = np.concatenate(([0], np.cumsum([len(k) for k in self.kinds])))
        size[kind == 2] = 0
        size[kind == 3] += 1
        size[first_event[1:] - 1] = 0  # the root's tail is outside the document
        before = np.cumsum(size) - size
        base = before[first_event[:-1]]
        event_document = np.repeat(np.arange(documents), np.diff(first_event))
        opened = kind == 0
        level = np.cumsum(opened.astype(np.int64) - (kind == 1))
        starts = np.flatnonzero(opened)
        stride = len(kind) + 1
        keys = level[starts] * stride + starts
        by_key = np.argsort(keys, kind="stable")
        keys = keys[by_key]

        def started_last(levels: IntArray, upto: IntArray) -> IntArray:
            return by_key[np.searchsorted(keys, levels * stride + upto, side="right") - 1]

        current = started_last(level, np.arange(len(kind)))
        depth = level[starts]
        element_document = event_document[starts]
        sizes = np.bincount(element_document, minlength=documents)
        first_element = np.cumsum(sizes) - sizes
        parent = np.where(depth > 1, current[np.maximum(starts - 1, 0)]
                          - first_element[element_document], -1)
        closing = np.flatnonzero(kind == 1)
        end = np.zeros(len(starts), dtype=np.int64)
        end[started_last(level[closing] + 1, closing)] = before[closing]
        item = np.flatnonzero((kind != 2) & (level > 0))
        owner = current[item]
        order = np.argsort(owner, kind="stable")
        item, owner = item[order], owner[order]
        added = size[item] > 0
        follows = np.concatenate(([False], (owner[1:] == owner[:-1]) & added[:-1]))
        new = added & ~((kind[item] == 3) & follows)
        pieces = np.flatnonzero(added)
        first = np.flatnonzero(new[pieces])
        text_start = before[item[pieces[first]]]
        # the pieces of a text node are consecutive among the pieces
        text_end = text_start + (np.add.reduceat(size[item[pieces]], first) if len(first)
                                 else np.zeros(0, dtype=np.int64))
        text_base = base[event_document[item[pieces[first]]]]
        vocabulary = {tag: code for code, tag in enumerate(dict.fromkeys(self.tags))}
        tag_codes = np.fromiter(map(vocabulary.__getitem__, self.tags), dtype=np.int64,
                                count=len(self.tags))
        element_base = base[element_document]
        arrays = {
            "sizes": sizes,
            "lengths": np.add.reduceat(size, first_event[:-1]) if documents else sizes,
            "tags": tag_codes,
            "parent": parent,
            "depth": depth,
            "start": before[starts] - element_base,
            "end": end - element_base,
            "text_counts": np.bincount(owner[pieces[first]], minlength=len(starts)),
            "text_spans": np.stack([text_start - text_base, text_end - text_base], axis=1),
        }
        return arrays, list(vocabulary)


def index_document(name: str, source: str | Path | bytes) -> IndexedDocument:
    """Index one XML document (a path or its bytes)."""
    events = _Events()
    events.add(parse(source, name if isinstance(source, bytes) else source).getroot())
    arrays, vocabulary = events.arrays()
    return _SavedDocuments(arrays, [name], vocabulary).build(name, 0)


def _xml_files(folder: Path) -> list[str]:
    """Every ``*.xml`` file below ``folder`` (paths as strings), in path order; a subfolder that
    cannot be read is an error (its documents would silently be missing from the index)."""

    def refuse(error: OSError) -> None:
        raise InexevalError(f"cannot read the folder: {error.strerror or error}",
                            error.filename or folder)

    files: list[str] = []
    for here, _, names in os.walk(folder, onerror=refuse):
        files.extend(os.path.join(here, name) for name in names if name.endswith(".xml"))
    return sorted(files, key=lambda file: file.split(os.sep))


def build_index(
    folder: str | Path, progress: Callable[[int, int], None] | None = None
) -> CollectionIndex:
    """Index every ``*.xml`` file below ``folder``; a document's name is its path below the
    folder without ``.xml`` (``co/2000/r7108``). ``progress(done, total)`` is called per file."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InexevalError("no such collection folder", folder)
    files = _xml_files(folder)
    if not files:
        raise InexevalError("no XML documents (*.xml files) in this folder or below", folder)
    events = _Events()
    names = []
    below = len(os.path.join(str(folder), ""))
    for done, file in enumerate(files, 1):
        names.append(file[below:].replace(os.sep, "/").removesuffix(".xml"))
        events.add(parse(file).getroot())
        if progress is not None:
            progress(done, len(files))
    arrays, vocabulary = events.arrays()
    return CollectionIndex(_SavedDocuments(arrays, names, vocabulary), source=str(folder),
                           meta={"root": str(folder.resolve())})


def _blob(strings: Sequence[str]) -> npt.NDArray[np.uint8]:
    return np.frombuffer(_SEPARATOR.join(strings).encode("utf-8"), dtype=np.uint8)


def _strings(blob: npt.NDArray[np.uint8], count: int) -> list[str]:
    if count == 0:
        return []
    strings = blob.tobytes().decode("utf-8").split(_SEPARATOR)
    if len(strings) != count:
        raise ValueError(f"{len(strings)} strings, {count} expected")
    return strings


def _joined(arrays: list[IntArray]) -> IntArray:
    return np.concatenate(arrays).astype(np.int64) if arrays else np.zeros(0, dtype=np.int64)


def _narrow(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``values`` in the narrowest signed integer type that holds them (a smaller file, read
    faster; widened again per document on loading)."""
    for dtype in (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        if not len(values) or info.min <= values.min() and values.max() <= info.max:
            return values.astype(dtype)
    return values.astype(np.int64)


def element_count(index: CollectionIndex) -> int:
    """The number of elements of all documents (without building each document's index)."""
    if isinstance(index.documents, _SavedDocuments):
        return int(index.documents.arrays["sizes"].sum())
    return sum(len(index[name]) for name in index)


def save_index(index: CollectionIndex, path: str | Path) -> None:
    """Save a collection index as one uncompressed ``.npz`` file of plain integer arrays (no
    pickle, each in the narrowest integer type), written atomically (a temporary file renamed
    when complete).

    Per document its element count (``sizes``) and text length; per element its tag (a code into
    ``vocabulary``), parent (-1 or the position in the document), depth, start and end offsets
    and number of text nodes; per text node its span. Paths are not saved: they follow from tags
    and parent pointers."""
    from inexeval.outputs import atomic_output

    documents = index.documents
    if isinstance(documents, _SavedDocuments):
        arrays, vocabulary = documents.arrays, documents.vocabulary
    else:
        arrays, vocabulary = _arrays([index[name] for name in index])
    saved: dict[str, npt.NDArray[Any]] = {
        "format": np.frombuffer(INDEX_FORMAT.encode(), dtype=np.uint8),
        "version": np.array([INDEX_VERSION], dtype=np.int64),
        "names": _blob(list(index)),
        "source": _blob([index.source or ""]),
        "vocabulary": _blob(vocabulary),
        **{key: _narrow(values) for key, values in arrays.items()},
    }
    with atomic_output(path, "wb") as handle:
        np.savez(handle, **saved)  # type: ignore[arg-type]


def _arrays(documents: list[DocumentIndex]) -> tuple[dict[str, npt.NDArray[Any]], list[str]]:
    """The saved layout of documents given as objects (text-node spans where they have them)."""
    vocabulary: dict[str, int] = {}
    tags = [np.array([vocabulary.setdefault(t, len(vocabulary)) for t in d.tags], dtype=np.int64)
            for d in documents]
    text_counts: list[IntArray] = []
    text_spans: list[IntArray] = []
    for d in documents:
        if isinstance(d, IndexedDocument):
            text_counts.append(np.diff(d.text_ptr))
            text_spans.append(np.stack([d.text_start, d.text_end], axis=1))
        else:
            text_counts.append(np.zeros(len(d), dtype=np.int64))
    arrays = {
        "sizes": np.array([len(d) for d in documents], dtype=np.int64),
        "lengths": np.array([d.length for d in documents], dtype=np.int64),
        "tags": _joined(tags),
        "parent": _joined([d.parent for d in documents]),
        "depth": _joined([d.depth for d in documents]),
        "start": _joined([d.start for d in documents]),
        "end": _joined([d.end for d in documents]),
        "text_counts": _joined(text_counts),
        "text_spans": _joined(text_spans).reshape(-1, 2),
    }
    return arrays, list(vocabulary)


class _SavedDocuments(Mapping[str, DocumentIndex]):
    """The documents of a saved index, each built from the arrays on first access."""

    def __init__(self, arrays: Mapping[str, npt.NDArray[np.int64]], names: list[str],
                 vocabulary: list[str]) -> None:
        self.arrays = arrays
        self.vocabulary = vocabulary
        self._names = {name: i for i, name in enumerate(names)}
        self._first = np.concatenate(([0], np.cumsum(arrays["sizes"]))).astype(np.int64)
        self._text_ptr = np.concatenate(([0], np.cumsum(arrays["text_counts"]))).astype(np.int64)
        self._built: dict[str, DocumentIndex] = {}

    def __getitem__(self, name: str) -> DocumentIndex:
        built = self._built.get(name)
        if built is None:
            built = self.build(name, self._names[name])
            self._built[name] = built
        return built

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def build(self, name: str, i: int) -> IndexedDocument:
        a, b = int(self._first[i]), int(self._first[i + 1])
        t0, t1 = int(self._text_ptr[a]), int(self._text_ptr[b])
        spans = self.arrays["text_spans"]
        tags = tuple(self.vocabulary[t] for t in self.arrays["tags"][a:b].tolist())
        parent = self.arrays["parent"][a:b].astype(np.int64)
        return IndexedDocument(
            name=name,
            paths=LazyPaths(tags, parent),
            tags=tags,
            parent=parent,
            depth=self.arrays["depth"][a:b].astype(np.int64),
            start=self.arrays["start"][a:b].astype(np.int64),
            end=self.arrays["end"][a:b].astype(np.int64),
            length=int(self.arrays["lengths"][i]),
            text_ptr=self._text_ptr[a : b + 1] - t0,
            text_start=spans[t0:t1, 0].astype(np.int64),
            text_end=spans[t0:t1, 1].astype(np.int64),
        )


_ELEMENT_ARRAYS = ("tags", "parent", "depth", "start", "end", "text_counts")


def _check(arrays: Mapping[str, npt.NDArray[Any]]) -> tuple[list[str], list[str]]:
    """Names and tag vocabulary of a saved index, after checking that its arrays fit together
    (any inconsistency raises ValueError or KeyError)."""
    integers = ("version", "sizes", "lengths", "text_spans", *_ELEMENT_ARRAYS)
    if any(arrays[key].dtype.kind != "i" for key in integers):
        raise ValueError("arrays of the wrong type")
    if any(arrays[key].dtype != np.uint8 for key in ("names", "source", "vocabulary")):
        raise ValueError("strings of the wrong type")
    sizes, lengths = arrays["sizes"], arrays["lengths"]
    total = int(sizes.sum())
    if (sizes.ndim != 1 or lengths.shape != sizes.shape or np.any(sizes < 1)
            or any(arrays[key].shape != (total,) for key in _ELEMENT_ARRAYS)):
        raise ValueError("arrays of inconsistent sizes")
    names = _strings(arrays["names"], len(sizes))
    blob = arrays["vocabulary"].tobytes()
    vocabulary = blob.decode("utf-8").split(_SEPARATOR) if blob else []
    local = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    parent, tags = arrays["parent"], arrays["tags"]
    if (len(set(names)) != len(names) or np.any(parent >= local) or np.any(parent < -1)
            or np.any((parent == -1) != (local == 0))
            or np.any(tags < 0) or np.any(tags >= len(vocabulary))):
        raise ValueError("inconsistent elements")
    document_length = np.repeat(lengths, sizes)
    start, end = arrays["start"], arrays["end"]
    spans, counts = arrays["text_spans"], arrays["text_counts"]
    if (np.any(start < 0) or np.any(end < start) or np.any(end > document_length)
            or np.any(counts < 0) or spans.shape != (int(counts.sum()), 2)
            or np.any(spans[:, 0] < 0) or np.any(spans[:, 1] < spans[:, 0])):
        raise ValueError("inconsistent offsets")
    return names, vocabulary


def load_index(path: str | Path) -> CollectionIndex:
    """Load an index saved by :func:`save_index`. Anything else (another file, an index of an
    older format, a truncated or damaged one, a pickle) is a :class:`FormatError` asking to
    rebuild it."""
    path = Path(path)
    if not path.is_file():
        raise InexevalError("no such index file", path)
    damaged = FormatError("not an inexeval index (or damaged): rebuild it with `inexeval index`",
                          path)
    try:
        with np.load(path, allow_pickle=False) as saved:
            arrays = {key: saved[key] for key in saved.files}
        if arrays["format"].tobytes() != INDEX_FORMAT.encode():
            raise damaged
        if arrays["version"].tolist() != [INDEX_VERSION]:
            raise FormatError(f"an inexeval index of format version {arrays['version'][:1]}; "
                              f"this inexeval reads version {INDEX_VERSION}: rebuild it with "
                              "`inexeval index`", path)
        names, vocabulary = _check(arrays)
        source = arrays["source"].tobytes().decode("utf-8")
    except (OSError, ValueError, KeyError, EOFError, AttributeError, IndexError, TypeError,
            UnicodeDecodeError, zipfile.BadZipFile, zlib.error,
            # zip flags of another compression or of encryption; an array header claiming
            # more than memory holds (the allocation fails at once)
            NotImplementedError, RuntimeError, MemoryError):
        raise damaged from None
    documents = _SavedDocuments(arrays, names, vocabulary)
    return CollectionIndex(documents, source=str(path), meta={"root": source} if source else {})


def load_collection(path: str | Path) -> CollectionIndex:
    """A collection index from a folder of XML documents (indexed now) or a saved index."""
    path = Path(path)
    if path.is_dir():
        return build_index(path)
    if not path.exists():
        raise InexevalError("no such collection folder or index file", path)
    return load_index(path)
