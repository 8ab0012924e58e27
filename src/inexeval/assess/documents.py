"""The text of collection documents, counted as the collection index counts it.

The assessment store keeps each pooled document's text and element spans, so that serving and
exporting never need the collection again. The text is the concatenation of the document's
character data in document order (tags, comments and processing instructions excluded) and an
entity reference is one character, exactly as :func:`inexeval.collection.build.index_document`
counts offsets: an unresolved entity (the IEEE collection's ``&ouml;``, declared in a DTD that is
never loaded) becomes the character HTML gives that name, or U+FFFD when it has none.
"""

from __future__ import annotations

from html.entities import name2codepoint
from pathlib import Path

import numpy as np
from lxml import etree

from inexeval.assess.store import Document
from inexeval.collection.build import IndexedDocument, index_document
from inexeval.collection.paths import depth, parent
from inexeval.errors import FormatError
from inexeval.formats.xmlsafe import parse


def document_text(source: str | Path | bytes, name: str) -> str:
    """The text content of an XML document, one character per entity reference."""
    root = parse(source, name if isinstance(source, bytes) else source).getroot()
    parts = [root.text or ""]
    stack = [(root, iter(root))]
    while stack:
        element, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if stack:
                parts.append(element.tail or "")
        elif isinstance(child, etree._Entity):
            parts.append(_entity_character(child.name))
            parts.append(child.tail or "")
        elif isinstance(child.tag, str):
            parts.append(child.text or "")
            stack.append((child, iter(child)))
        else:
            parts.append(child.tail or "")
    return "".join(parts)


def _entity_character(name: str) -> str:
    return chr(name2codepoint[name]) if name in name2codepoint else "\ufffd"


def stored_document(name: str, xml: Path, index: IndexedDocument | None = None) -> Document:
    """A document for the store: its text, element and text-node spans, from its XML file and
    (when given) the collection index, which must agree with the file."""
    if index is None:
        index = index_document(name, xml)
    text = document_text(xml, name)
    if len(text) != index.length:
        raise FormatError(f"the document has {len(text)} characters of text but the collection "
                          f"index says {index.length}: the index is not of this file", xml)
    elements = tuple((path, int(start), int(end))
                     for path, start, end in zip(index.paths, index.start, index.end))
    text_nodes = tuple((i, int(index.text_start[k]), int(index.text_end[k]))
                       for i in range(len(index))
                       for k in range(int(index.text_ptr[i]), int(index.text_ptr[i + 1])))
    return Document(name, text, elements, text_nodes)


def document_index(document: Document) -> IndexedDocument:
    """The collection index of a stored document (what the exporters need), rebuilt from its
    element and text-node spans."""
    paths = [path for path, _, _ in document.elements]
    position = {path: i for i, path in enumerate(paths)}
    counts = np.zeros(len(paths), dtype=np.int64)
    for element, _, _ in document.text_nodes:
        counts[element] += 1
    return IndexedDocument(
        name=document.file, paths=tuple(paths),
        tags=tuple(step(path) for path in paths),
        parent=np.array([position.get(parent(p) or "", -1) for p in paths], dtype=np.int64),
        depth=np.array([depth(p) for p in paths], dtype=np.int64),
        start=np.array([s for _, s, _ in document.elements], dtype=np.int64),
        end=np.array([e for _, _, e in document.elements], dtype=np.int64),
        length=document.length,
        text_ptr=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        text_start=np.array([s for _, s, _ in document.text_nodes], dtype=np.int64),
        text_end=np.array([e for _, _, e in document.text_nodes], dtype=np.int64))


def step(path: str) -> str:
    """The element name of a canonical path's last step (``/a[1]/sec[2]`` gives ``sec``)."""
    return path[path.rfind("/") + 1:path.rfind("[")]
