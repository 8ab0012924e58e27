"""The array-built index against a plain recursive walk over the same lxml tree (the definition
of offsets and text nodes in :mod:`inexeval.collection.build`, written the obvious way), on
generated documents with comments, processing instructions, CDATA, character references,
unresolved entities, namespaces, non-ASCII text and CRLF line ends; and the same index whatever
the number of documents laid out at a time or of worker processes."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from inexeval.collection import build
from inexeval.collection.build import IndexedDocument, build_index, index_document
from inexeval.errors import FormatError
from inexeval.formats.xmlsafe import parse

Row = tuple[str, str, int, int, int, int]


def reference(root: etree._Element) -> tuple[list[Row], int, list[list[tuple[int, int]]]]:
    """Per element (path, tag, parent, depth, start, end), the text length and per element its
    text nodes, by walking the tree one node at a time."""
    rows: list[Row] = []
    text_nodes: list[list[tuple[int, int]]] = []
    position = 0

    def name(element: etree._Element) -> str:
        local = etree.QName(element).localname
        return f"{element.prefix}:{local}" if element.prefix else local

    def visit(element: etree._Element, path: str, parent: int, depth: int) -> None:
        nonlocal position
        me = len(rows)
        rows.append(("", "", 0, 0, 0, 0))
        text_nodes.append([])
        start = position
        last_added = False

        def piece(size: int, entity: bool) -> None:
            nonlocal position, last_added
            if size and entity and last_added:
                begin, _ = text_nodes[me][-1]
                text_nodes[me][-1] = (begin, position + size)
            elif size:
                text_nodes[me].append((position, position + size))
            position += size
            last_added = size > 0

        piece(len(element.text or ""), False)
        seen: Counter[str] = Counter()
        for child in element:
            if isinstance(child.tag, str):
                seen[name(child)] += 1
                visit(child, f"{path}/{name(child)}[{seen[name(child)]}]", me, depth + 1)
                piece(len(child.tail or ""), False)
            else:
                piece((child.tag is etree.Entity) + len(child.tail or ""),
                      child.tag is etree.Entity)
        rows[me] = (path, name(element), parent, depth, start, position)

    visit(root, f"/{name(root)}[1]", -1, 1)
    return rows, position, text_nodes


def check(doc: IndexedDocument, root: etree._Element) -> None:
    rows, length, text_nodes = reference(root)
    assert list(doc.paths) == [r[0] for r in rows]
    assert list(doc.tags) == [r[1] for r in rows]
    for field, column in (("parent", 2), ("depth", 3), ("start", 4), ("end", 5)):
        assert getattr(doc, field).tolist() == [r[column] for r in rows], field
    assert doc.length == length
    assert [[doc.text_node(i, k + 1) for k in range(len(nodes) + 1)]
            for i, nodes in enumerate(text_nodes)] == [[*nodes, None] for nodes in text_nodes]


TEXT = st.text(alphabet="ab \n\t\u00e9\u20ac\U0001d11e<>&\"'", max_size=6).map(
    lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace("\n", "\r\n"))
OTHER = st.sampled_from(["&amp;", "&#233;", "&#x1D11E;", "&ouml;", "&nbsp;", "<!--c-->",
                         "<!---->", "<?pi data?>", "<![CDATA[x<y]]>", "<![CDATA[]]>", ""])
NAMES = st.sampled_from(["a", "b", "sec", "p", "x:q", "y:q", "x:a"])


@st.composite
def element(draw: st.DrawFn, depth: int = 0) -> str:
    name = draw(NAMES)
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 4 if depth < 4 else 0))):
        parts.append(draw(element(depth + 1)) if draw(st.booleans()) else "")
        parts.append(draw(st.one_of(TEXT, OTHER)))
    return f"<{name}>{draw(TEXT)}{''.join(parts)}</{name}>"


@st.composite
def document(draw: st.DrawFn) -> bytes:
    body = draw(element())
    namespaces = ' xmlns:x="urn:x" xmlns:y="urn:x"' + draw(
        st.sampled_from(["", ' xmlns="urn:d"']))
    head, rest = body.split(">", 1)
    doctype = '<!DOCTYPE r SYSTEM "r.dtd">\n' if draw(st.booleans()) or "&ouml;" in body or \
        "&nbsp;" in body else ""
    return f'<?xml version="1.0"?>\n{doctype}<!--before-->{head}{namespaces}>{rest}\n'.encode()


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(document(), min_size=1, max_size=4), st.sampled_from([1, 3, 1 << 16]))
def test_index_equals_the_walk_one_node_at_a_time(documents: list[bytes], chunk: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        patch.setattr(build._Nodes, "CHUNK", chunk)
        for i, xml in enumerate(documents):
            (Path(tmp) / f"d{i}.xml").write_bytes(xml)
        index = build_index(tmp)
        for i, xml in enumerate(documents):
            doc = index[f"d{i}"]
            assert isinstance(doc, IndexedDocument)
            check(doc, parse(xml, f"d{i}").getroot())
            check(index_document(f"d{i}", xml), parse(xml, f"d{i}").getroot())


def _arrays(folder: Path, jobs: int = 1) -> dict[str, Any]:
    documents = build_index(folder, jobs=jobs).documents
    assert isinstance(documents, build._SavedDocuments)
    return {**documents.arrays, "vocabulary": documents.vocabulary}


def test_the_same_index_whatever_the_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(30):
        (tmp_path / f"{i:02}.xml").write_text(
            f"<article><fm>{i}</fm>" + "<sec><p>x &amp; y<b>z</b></p>&#233;</sec>" * (i % 7)
            + "<!-- c --><bm>end</bm></article>")
    whole = _arrays(tmp_path)
    for chunk in (1, 10, 64):
        monkeypatch.setattr(build._Nodes, "CHUNK", chunk)
        parts = _arrays(tmp_path)
        assert parts["vocabulary"] == whole["vocabulary"]
        for key in whole:
            assert np.array_equal(parts[key], whole[key]), key


def test_the_same_index_in_worker_processes(tmp_path: Path) -> None:
    for i in range(40):
        name = ["a", "x:b", "c"][i % 3]
        (tmp_path / f"{i:02}.xml").write_text(
            f'<r xmlns:x="urn:x"><{name}>{i}</{name}><y{i % 5}/>&#233;<!--c--></r>')
    whole = _arrays(tmp_path)
    parts = _arrays(tmp_path, jobs=3)
    assert parts["vocabulary"] == whole["vocabulary"]
    for key in whole:
        assert np.array_equal(parts[key], whole[key]), key
    done: list[tuple[int, int]] = []
    assert len(build_index(tmp_path, progress=lambda *d: done.append(d), jobs=2)) == 40
    assert done[-1] == (40, 40) and len(done) > 1
    (tmp_path / "17.xml").write_text("<r>\n<a></r>")
    with pytest.raises(FormatError) as caught:
        build_index(tmp_path, jobs=2)
    assert (caught.value.file, caught.value.line) == (str(tmp_path / "17.xml"), 2)
