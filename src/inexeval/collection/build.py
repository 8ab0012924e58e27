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

No Python code runs per element: lxml parses each document, C functions mapped over its nodes
read four numbers per node (tag code, text and tail lengths, number of children) and array
operations over many documents at a time give parents, depths, offsets and text-node spans
(:func:`_layout`); canonical paths are built from the parent pointers when a document's paths
are first read. The saved index is one uncompressed ``.npz`` file of plain
integer arrays (no pickle; strings as UTF-8 bytes), carrying the format marker and version
:data:`INDEX_FORMAT` and checked on loading; each document's index is built on first access.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter, length_hint
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
_TAG, _PREFIX, _TEXT, _TAIL = (attrgetter(a) for a in ("tag", "prefix", "text", "tail"))


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


class _Codes(dict[Any, int]):
    """Codes of keys in order of first appearance, a new key getting the next code: looked up by
    ``map`` in C, Python runs once per distinct key."""

    def __missing__(self, key: Any) -> int:
        code = self[key] = len(self)
        return code


def _lengths(strings: Iterable[str | None]) -> Iterator[int]:
    """Lengths of strings, 0 for None, computed in C (``length_hint`` of None is its default)."""
    return map(length_hint, strings)


def _name(key: Any) -> Any:
    """The element name of a node key (see :meth:`_Nodes.add`): ``prefix:local`` as written in
    the document, or lxml's ``Comment``/``PI``/``Entity`` factory for other nodes."""
    tag, prefix = key if isinstance(key, tuple) else (key, None)
    if not isinstance(tag, str) or tag[0] != "{":
        return tag
    local = tag.partition("}")[2]
    return f"{prefix}:{local}" if prefix else local


_OTHER_NODES = (etree.Comment, etree.PI, etree.Entity)
_COMMENT, _ENTITY = -1, -2
"""Codes of nodes that are not elements: a comment or processing instruction, an entity."""


class _Nodes:
    """The nodes of documents as lxml's ``iter()`` gives them (elements, comments, processing
    instructions and entity references, in document order), end to end: per node a key code, its
    text and tail lengths and its number of children. Each is read by a ``map`` over a
    document's nodes with C functions (``attrgetter``, ``len``), so no Python code runs per node.
    Every :data:`CHUNK` nodes or so, the documents read are laid out with array operations
    (:func:`_layout`): the arrays stay small (in cache, memory reused) whatever the collection."""

    CHUNK = 1 << 15

    def __init__(self) -> None:
        self.codes = _Codes()
        self.node_codes: list[int] = []  # per key code: itself for an element, else its kind
        self.laid_out: list[dict[str, npt.NDArray[Any]]] = []
        self._start()

    def _start(self) -> None:
        self.keys, self.texts, self.tails, self.children, self.counts = (
            array("q") for _ in range(5))

    def add(self, root: etree._Element) -> None:
        nodes = list(root.iter())
        tags = list(map(_TAG, nodes))
        distinct = dict.fromkeys(tags)
        for other in _OTHER_NODES:
            distinct.pop(other, None)
        # A namespaced tag ({uri}local) is named by its prefix in the document: key (tag, prefix)
        keys = zip(tags, map(_PREFIX, nodes)) if "{" in "".join(distinct) else tags
        self.keys.extend(map(self.codes.__getitem__, keys))
        self.texts.extend(_lengths(map(_TEXT, nodes)))
        self.tails.extend(_lengths(map(_TAIL, nodes)))
        self.children.extend(map(len, nodes))
        self.counts.append(len(nodes))
        if len(self.keys) >= self.CHUNK:
            self._lay_out()

    def _lay_out(self) -> None:
        for number, key in enumerate(list(self.codes)[len(self.node_codes):], len(self.node_codes)):
            name = _name(key)
            self.node_codes.append(number if isinstance(name, str) else
                                   _ENTITY if name is etree.Entity else _COMMENT)
        code = np.array(self.node_codes, dtype=np.int64)[np.frombuffer(self.keys, dtype=np.int64)]
        laid_out = _layout(code, *(np.frombuffer(values, dtype=np.int64) for values in
                                   (self.texts, self.tails, self.children, self.counts)))
        self.laid_out.append({name: _narrow(values) for name, values in laid_out.items()})
        self._start()

    def parts(self) -> tuple[list[dict[str, npt.NDArray[Any]]], list[Any]]:
        """The documents laid out, their tags as key codes, and the keys in code order."""
        if self.counts:
            self._lay_out()
        return self.laid_out, list(self.codes)


def _combined(pieces: Iterable[tuple[list[dict[str, npt.NDArray[Any]]], list[Any]]]
              ) -> tuple[dict[str, npt.NDArray[Any]], list[str]]:
    """The saved layout (see :func:`save_index`) of documents laid out in pieces, in order, each
    with its own key codes (:meth:`_Nodes.parts`), and the tag vocabulary in order of first
    appearance."""
    vocabulary = _Codes()
    laid_out = []
    for parts, keys in pieces:
        names = [_name(key) for key in keys]
        recode = np.array([vocabulary[name] if isinstance(name, str) else -1 for name in names],
                          dtype=np.int64)
        laid_out += [{**part, "tags": recode[part["tags"]]} for part in parts]
    arrays = {key: np.concatenate([part[key] for part in laid_out]) for key in laid_out[0]}
    arrays["tags"] = _narrow(arrays["tags"])
    return arrays, list(vocabulary)


def _layout(code: IntArray, text: IntArray, tail: IntArray, children: IntArray,
            counts: IntArray) -> dict[str, npt.NDArray[Any]]:
    """The saved layout from the nodes of documents in document order: per node its code (a key
    code, :data:`_COMMENT` for a comment or processing instruction, :data:`_ENTITY`), text and tail
    lengths and number of children; per document its number of nodes. Linear after two sorts of
    small integers (radix sorts).

    Structure: before visiting node k, ``slots[k]`` nodes are still to come as children (or
    documents); each node takes one and adds its children. Among the nodes with the same count,
    in document order, an element's successor is its last child (every node between them has
    more), so following successors from k down to the first leaf gives the last node of k's
    subtree; k's depth counts the subtrees open around it. Among the nodes of one depth in
    document order, siblings are consecutive, the first of them following its parent directly.
    Offsets: the text before a node is the text and tails of all nodes before it, less the tails
    of its ancestors (still to come). Text nodes: the pieces of text of an element, in document
    order, are its own text, then after each child that child's tail; an entity reference's piece
    (its character and tail) continues the text node when the piece before it added text."""
    n, documents = len(code), len(counts)
    position = np.arange(n)
    root = np.cumsum(counts) - counts
    element = code >= 0
    entity = code == _ENTITY
    text = np.where(element, text, entity)  # a comment's or PI's content is not text
    tail[root] = 0  # the root's tail is outside the document
    slots = np.cumsum(children - 1) + documents - children + 1
    by_slots = np.argsort(_narrow(slots), kind="stable")
    leaf_rank = np.where(children[by_slots] == 0, position, n)
    subtree_end = np.empty(n, dtype=np.int64)  # one past its last node
    subtree_end[by_slots] = by_slots[np.minimum.accumulate(leaf_rank[::-1])[::-1]] + 1
    depth = position + 1 - np.cumsum(np.bincount(subtree_end, minlength=n + 1)[:n])
    by_depth = np.argsort(_narrow(depth), kind="stable")
    first_child = np.ones(n, dtype=bool)  # or a root
    first_child[1:] = (depth[1:] > depth[:-1]) | (depth[1:] == 1)
    head = np.maximum.accumulate(np.where(first_child[by_depth], position, 0))
    parent = np.empty(n, dtype=np.int64)
    parent[by_depth] = by_depth[head] - 1
    parent[root] = -1
    rank = np.empty(n, dtype=np.int64)  # among the siblings
    rank[by_depth] = position - head

    before = np.concatenate(([0], np.cumsum(text + tail)))
    # float weights: exact, the sums being integers far below 2**53
    closed_tails = np.cumsum(np.bincount(subtree_end, weights=tail, minlength=n + 1)[:n])
    start = before[:n] - (np.cumsum(tail) - tail - closed_tails.astype(np.int64))
    end = start + text + before[subtree_end] - before[1:]

    pieces = np.where(element, children + 1, 0)
    first_piece = np.cumsum(pieces) - pieces
    elements = np.flatnonzero(element)
    child = np.flatnonzero(parent >= 0)
    at = first_piece[parent[child]] + 1 + rank[child]
    piece_start = np.empty(first_piece[-1] + pieces[-1], dtype=np.int64)
    piece_size = np.empty_like(piece_start)
    continues = np.zeros_like(piece_start, dtype=bool)
    piece_start[first_piece[elements]] = start[elements]
    piece_size[first_piece[elements]] = text[elements]
    piece_start[at] = end[child] - entity[child]
    piece_size[at] = tail[child] + entity[child]
    references = np.flatnonzero(entity)
    continues[first_piece[parent[references]] + 1 + rank[references]] = (
        piece_size[first_piece[parent[references]] + rank[references]] > 0)
    added = np.flatnonzero(piece_size > 0)
    new = np.flatnonzero(~continues[added])
    text_start = piece_start[added[new]]
    text_end = text_start + (np.add.reduceat(piece_size[added], new) if len(new)
                             else np.zeros(0, dtype=np.int64))
    text_owner = np.repeat(position, pieces)[added[new]]

    document = np.repeat(np.arange(documents), counts)
    base = start[root]
    element_document = document[elements]
    sizes = np.bincount(element_document, minlength=documents)
    number = np.cumsum(element) - 1 - (np.cumsum(sizes) - sizes)[document]
    up = parent[elements]
    text_base = base[document[text_owner]]
    return {
        "sizes": sizes,
        "lengths": end[root] - base,
        "tags": code[elements],
        "parent": np.where(up >= 0, number[up], -1),
        "depth": depth[elements],
        "start": start[elements] - base[element_document],
        "end": end[elements] - base[element_document],
        "text_counts": np.bincount(text_owner, minlength=n)[elements],
        "text_spans": np.stack([text_start - text_base, text_end - text_base], axis=1),
    }


def index_document(name: str, source: str | Path | bytes) -> IndexedDocument:
    """Index one XML document (a path or its bytes)."""
    nodes = _Nodes()
    nodes.add(parse(source, name if isinstance(source, bytes) else source).getroot())
    arrays, vocabulary = _combined([nodes.parts()])
    return _SavedDocuments(arrays, [name], vocabulary).build(name, 0)


def _document(file: str) -> etree._Element:
    """The root element of a file, read with as few system calls as Python allows."""
    try:
        with open(file, "rb", buffering=0) as handle:
            data = handle.readall()
    except OSError as error:
        raise FormatError(f"cannot read the file: {error.strerror or error}", file) from None
    return parse(data, file).getroot()


def _index_files(files: list[str]
                 ) -> tuple[list[dict[str, npt.NDArray[Any]]], list[Any]] | _WorkerError:
    """A batch of files indexed in a worker process; an error comes back as a value
    (:class:`_WorkerError`), not raised: a raised error crosses the process boundary pickled
    with its context, and lxml's error log does not pickle (the worker then died and the pool
    broke, now and then)."""
    nodes = _Nodes()
    try:
        for file in files:
            nodes.add(_document(file))
    except InexevalError as error:
        return _WorkerError(type(error), error.reason, error.file, error.line)
    return nodes.parts()


@dataclass(frozen=True)
class _WorkerError:
    """An error of a worker process, raised again in the parent (:func:`_in_workers`)."""

    kind: type[InexevalError]
    reason: str
    file: str | None
    line: int | None

    def raised(self) -> InexevalError:
        return self.kind(self.reason, self.file, self.line)


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


def check_index_output(output: str | Path, folder: str | Path) -> None:
    """Refuse an index output that is one of the collection's documents under another name (a
    hard link outside ``folder``: :func:`inexeval.outputs.check_output` finds the folder and the
    files inside it). Only an output with several links is compared with the documents."""
    try:
        target = os.stat(output)
    except OSError:
        return
    if target.st_nlink < 2 or not Path(folder).is_dir():
        return
    for file in _xml_files(Path(folder)):
        try:
            document = os.stat(file)
        except OSError:
            continue
        if (document.st_dev, document.st_ino) == (target.st_dev, target.st_ino):
            raise InexevalError(f"the output is a hard link of the collection's document {file} "
                                "(choose another name)", output)


def build_index(
    folder: str | Path, progress: Callable[[int, int], None] | None = None, jobs: int = 1
) -> CollectionIndex:
    """Index every ``*.xml`` file below ``folder``; a document's name is its path below the
    folder without ``.xml`` (``co/2000/r7108``). ``progress(done, total)`` is called per file
    (per batch of files with ``jobs`` > 1: the files are then indexed in batches by that many
    worker processes; the index is the same)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InexevalError("no such collection folder", folder)
    files = _xml_files(folder)
    if not files:
        raise InexevalError("no XML documents (*.xml files) in this folder or below", folder)
    below = len(os.path.join(str(folder), ""))
    names = [file[below:].replace(os.sep, "/").removesuffix(".xml") for file in files]
    if jobs == 1:
        nodes = _Nodes()
        for done, file in enumerate(files, 1):
            nodes.add(_document(file))
            if progress is not None:
                progress(done, len(files))
        arrays, vocabulary = _combined([nodes.parts()])
    else:
        arrays, vocabulary = _combined(_in_workers(files, jobs, progress))
    return CollectionIndex(_SavedDocuments(arrays, names, vocabulary), source=str(folder),
                           meta={"root": str(folder.resolve())})


def _in_workers(files: list[str], jobs: int, progress: Callable[[int, int], None] | None
                ) -> Iterator[tuple[list[dict[str, npt.NDArray[Any]]], list[Any]]]:
    """The files indexed in batches by ``jobs`` forked processes, in order (a few batches per
    process, so that a slow batch does not keep the others waiting)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = max(1, min(1000, len(files) // (4 * jobs)))
    batches = [files[i:i + size] for i in range(0, len(files), size)]
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(min(jobs, len(batches)), mp_context=context) as pool:
        done = 0
        for batch, laid_out in zip(batches, pool.map(_index_files, batches)):
            if isinstance(laid_out, _WorkerError):
                raise laid_out.raised()
            done += len(batch)
            if progress is not None:
                progress(done, len(files))
            yield laid_out


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
