"""Document text as the store keeps it: the same characters the collection index counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inexeval.assess.documents import document_index, document_text, stored_document
from inexeval.collection.build import index_document
from inexeval.errors import FormatError

XML = ('<?xml version="1.0"?>\n<!DOCTYPE article SYSTEM "xmlarticle.dtd">\n'
       "<article><fm><ti>Sch&ouml;n &amp; &#x1F600; <!-- not text --></ti><?pi skipped?>tail"
       "<au>&unknownentity;x</au></fm><bdy><p>a<b>b</b>c</p></bdy></article>")


def test_text_matches_the_index_element_by_element(tmp_path: Path) -> None:
    xml = tmp_path / "d.xml"
    xml.write_text(XML, encoding="utf-8")
    text = document_text(xml, "d")
    index = index_document("d", xml)
    assert text == "Schön & \U0001F600 tail\ufffdxabc"
    assert len(text) == index.length
    spans = {p: text[s:e] for p, s, e in zip(index.paths, index.start, index.end)}
    assert spans["/article[1]/fm[1]/ti[1]"] == "Schön & \U0001F600 "
    assert spans["/article[1]/fm[1]/au[1]"] == "\ufffdx"
    assert spans["/article[1]/bdy[1]/p[1]/b[1]"] == "b"


def test_stored_document_rebuilds_its_index(tmp_path: Path) -> None:
    xml = tmp_path / "d.xml"
    xml.write_text(XML, encoding="utf-8")
    index = index_document("d", xml)
    rebuilt = document_index(stored_document("d", xml))
    assert list(rebuilt.paths) == list(index.paths) and list(rebuilt.tags) == list(index.tags)
    for name in ("parent", "depth", "start", "end", "text_ptr", "text_start", "text_end"):
        assert getattr(rebuilt, name).tolist() == getattr(index, name).tolist(), name
    assert rebuilt.length == index.length


def test_an_index_of_another_file_is_refused(tmp_path: Path) -> None:
    xml = tmp_path / "d.xml"
    xml.write_text("<article><p>short</p></article>", encoding="utf-8")
    other = index_document("d", b"<article><p>much longer text</p></article>")
    with pytest.raises(FormatError, match="the index is not of this file"):
        stored_document("d", xml, other)
