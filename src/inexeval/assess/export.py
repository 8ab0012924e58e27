"""Export judgements as the qrels that ``inexeval eval`` reads (issue 10, ``assess export``).

The writers take :class:`~inexeval.assess.model.Judgement` objects and the collection index
(document lengths, element spans and text nodes) and write:

=========== ===============================================================================
format      what is written
=========== ===============================================================================
``fol``     FOL qrels as the official INEX 2010 file: a relevant article
            ``topic Q0 file rsize length bep o1:l1 o2:l2 ...`` (``rsize`` the highlighted
            characters, ``length`` the article's, passages as ``offset:length``; ``-1`` when
            no best entry point was set, which inexeval reads as none), a judged non-relevant
            article ``topic Q0 file 0 length``. Highlight mode.
``inex2005`` one ``topic-T.xml`` per topic in the INEX 2005-2008 (X-Rai) layout: per article
            ``<best-entry-point path=…/>``, ``<passage start=… end=… size=…/>`` with XPointers
            ``/article[1]/…/p[3]/text()[2].15`` (the text node and the character offset in it)
            and ``<element path=… exhaustivity=… size=… rsize=…/>`` for every element given an
            exhaustivity; a non-relevant article is an empty ``<file>`` (the 2005 files list
            completed files only, and the reader keeps no record for it). Highlight mode.
``inex2002`` one ``topic-T.xml`` per topic, ``<path path=… relevance=… coverage=…/>`` per judged
            element (INEX 2002, Kazai et al. 2004); a non-relevant article without values is
            its root element judged ``0N``.
``inex2003`` the same with ``exhaustiveness`` and ``specificity`` (INEX 2003/2004); a
            non-relevant article without values is its root judged ``E0S0``.
``json``    every judgement given, whatever its status, as the API's objects
            (:meth:`Judgement.to_api`) in ``{"format": "inexeval-judgements-1",
            "judgements": [...]}``; :func:`read_json` reads it back.
=========== ===============================================================================

The qrels formats hold assessments, so they take the ``done`` judgements only. Topics are in
numeric order where ids are numbers, documents in name order, elements in document order. Two
judgements of one (topic, document), a document not in the collection, a value off the format's
scale or a judgement of another mode is an :class:`~inexeval.errors.InexevalError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree

from inexeval.assess.model import Judgement
from inexeval.collection.build import IndexedDocument
from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.errors import InexevalError
from inexeval.model.pool import topic_order

EXPORT_FORMATS = ("fol", "inex2005", "inex2002", "inex2003", "json", "sampled")
"""``sampled``: a sampled campaign's NIST qrels (:mod:`inexeval.assess.sample`)."""
JSON_FORMAT = "inexeval-judgements-1"

_CODE_2002 = re.compile(r"^([0-3])([NSLE])$")
_CODE_2003 = re.compile(r"^E([0-3])S([0-3])$")


def done_by_topic(judgements: Iterable[Judgement]) -> dict[str, list[Judgement]]:
    """The ``done`` judgements per topic (topics in numeric order, documents by name); two
    judgements of one document for one topic are an error (export one assessor at a time)."""
    topics: dict[str, dict[str, Judgement]] = {}
    for j in judgements:
        if j.status != "done":
            continue
        known = topics.setdefault(j.topic, {}).get(j.file)
        if known is not None:
            raise InexevalError(f"topic {j.topic}: document {j.file} is judged by both "
                                f"{known.assessor} and {j.assessor}; export one assessor's "
                                "judgements at a time")
        topics[j.topic][j.file] = j
    return {t: [topics[t][f] for f in sorted(topics[t])] for t in sorted(topics, key=topic_order)}


def _document(collection: CollectionIndex, j: Judgement) -> DocumentIndex:
    doc = collection.get(j.file)
    if doc is None:
        raise InexevalError(f"topic {j.topic}: document {j.file} is not in the collection")
    return doc


def _highlighting(j: Judgement, fmt: str, collection: CollectionIndex) -> DocumentIndex:
    """The judged document, after checking that ``j`` is a highlighting judgement as the store
    saves it: passages sorted, inside the document, neither touching nor overlapping; an
    exhaustivity only with highlighted text."""
    where = f"topic {j.topic}, document {j.file}"
    if j.values:
        raise InexevalError(f"{where}: {fmt} exports highlighting judgements, this one has "
                            "2002/2003 values")
    doc = _document(collection, j)
    previous = -1
    for start, end in j.passages:
        if not previous < start < end <= doc.length:
            raise InexevalError(f"{where}: passage [{start}, {end}) is not inside the document "
                                f"(length {doc.length}) after the previous one, apart from it")
        previous = end
    if j.exhaustivity and not j.passages:
        raise InexevalError(f"{where}: exhaustivity given but nothing highlighted")
    return doc


def fol_lines(judgements: Iterable[Judgement], collection: CollectionIndex) -> Iterator[str]:
    """The FOL qrels lines (with ``\\n``) of the done judgements (see the module docstring)."""
    for topic, judged in done_by_topic(judgements).items():
        for j in judged:
            length = _highlighting(j, "FOL qrels", collection).length
            if not j.passages:
                yield f"{topic} Q0 {j.file} 0 {length}\n"
                continue
            rsize = sum(end - start for start, end in j.passages)
            bep = -1 if j.best_entry_point is None else j.best_entry_point
            spans = " ".join(f"{start}:{end - start}" for start, end in j.passages)
            yield f"{topic} Q0 {j.file} {rsize} {length} {bep} {spans}\n"


class _TextNodes:
    """The text nodes of a document sorted by position, to write a character offset as an
    XPointer ``element/text()[k].offset`` that :func:`inexeval.collection.implicit.resolve_passages`
    reads back to the same offset."""

    def __init__(self, doc: DocumentIndex, where: str) -> None:
        if not isinstance(doc, IndexedDocument):
            raise InexevalError(f"the index of {doc.name} has no text-node offsets: rebuild it "
                                "with inexeval index", where)
        counts = np.diff(doc.text_ptr)
        element = np.repeat(np.arange(len(doc), dtype=np.int64), counts)
        number = np.arange(len(element), dtype=np.int64) - np.repeat(doc.text_ptr[:-1], counts) + 1
        keep = doc.text_end > doc.text_start
        order = np.argsort(doc.text_start[keep], kind="stable")
        self.doc = doc
        self.start = doc.text_start[keep][order]
        self.end = doc.text_end[keep][order]
        self.element = element[keep][order]
        self.number = number[keep][order]

    def pointer(self, offset: int, is_end: bool) -> str:
        """The XPointer of ``offset``: in the text node it starts (a start) or ends (an end)
        a character of; at the document's end a start is the end of the last node."""
        i = int(np.searchsorted(self.start, offset, side="left" if is_end else "right")) - 1
        if i < 0 or offset > self.end[i] or (not is_end and offset == self.end[i]
                                               and offset < self.doc.length):
            raise InexevalError(f"offset {offset} is outside the text of {self.doc.name}")
        path = self.doc.paths[int(self.element[i])]
        return f"{path}/text()[{int(self.number[i])}].{offset - int(self.start[i])}"


def _xml_root(topic: str, scale: str) -> etree._Element:
    attributes = {"topic": topic}
    if scale == "inex2005":
        attributes["version"] = "2"
    return etree.Element("assessments", attributes)


def _inex2005_file(root: etree._Element, j: Judgement, collection: CollectionIndex) -> None:
    doc = _highlighting(j, "inex2005", collection)
    block = etree.SubElement(root, "file", name=j.file)
    if not j.passages:
        return
    nodes = _TextNodes(doc, j.file)
    if j.best_entry_point is not None:
        etree.SubElement(block, "best-entry-point", path=nodes.pointer(j.best_entry_point, False))
    for start, end in j.passages:
        etree.SubElement(block, "passage", start=nodes.pointer(start, False),
                         end=nodes.pointer(end, True), size=str(end - start))
    highlighted = np.array(j.passages, dtype=np.int64).reshape(-1, 2)
    for path in sorted(j.exhaustivity, key=lambda p: _position(doc, j, p)):
        i = _position(doc, j, path)
        start, end = int(doc.start[i]), int(doc.end[i])
        rsize = int(np.clip(np.minimum(highlighted[:, 1], end)
                            - np.maximum(highlighted[:, 0], start), 0, None).sum())
        if rsize == 0:
            raise InexevalError(f"topic {j.topic}, document {j.file}: {path} has an "
                                "exhaustivity but no highlighted text")
        etree.SubElement(block, "element", path=path, exhaustivity=j.exhaustivity[path],
                         size=str(end - start), rsize=str(rsize))


def _position(doc: DocumentIndex, j: Judgement, path: str) -> int:
    i = doc.find(path)
    if i < 0:
        raise InexevalError(f"topic {j.topic}: element {path} is not in document {j.file}")
    return i


def _values_file(root: etree._Element, j: Judgement, collection: CollectionIndex,
                 scale: str) -> None:
    if j.passages or j.exhaustivity:
        raise InexevalError(f"topic {j.topic}, document {j.file}: {scale} exports 2002/2003 "
                            "values, this judgement is highlighting")
    doc = _document(collection, j)
    pattern, zero = (_CODE_2002, "0N") if scale == "inex2002" else (_CODE_2003, "E0S0")
    values = dict(j.values) or {doc.paths[0]: zero}
    block = etree.SubElement(root, "file", file=j.file)
    for path in sorted(values, key=lambda p: _position(doc, j, p)):
        match = pattern.match(values[path])
        if match is None:
            raise InexevalError(f"topic {j.topic}, document {j.file}, {path}: value "
                                f"{values[path]!r} is not on the {scale[4:]} scale")
        first, second = match.groups()
        if scale == "inex2002":
            etree.SubElement(block, "path", path=path, relevance=first, coverage=second)
        else:
            etree.SubElement(block, "path", path=path, exhaustiveness=first, specificity=second)


def inex_xml(topic: str, judged: list[Judgement], collection: CollectionIndex,
             scale: str) -> bytes:
    """One topic's assessment file in the layout of ``scale`` (``inex2005``, ``inex2002`` or
    ``inex2003``) for its done judgements ``judged``."""
    root = _xml_root(topic, scale)
    for j in judged:
        if scale == "inex2005":
            _inex2005_file(root, j, collection)
        else:
            _values_file(root, j, collection, scale)
    return bytes(etree.tostring(root, encoding="UTF-8", xml_declaration=True,
                                pretty_print=True))


def inex_file_name(topic: str) -> str:
    """The name of a topic's assessment file in the export folder."""
    return f"topic-{topic}.xml"


def json_text(judgements: Iterable[Judgement]) -> str:
    """Every judgement given as JSON (see the module docstring), sorted by topic, document and
    assessor."""
    ordered = sorted(judgements, key=lambda j: (topic_order(j.topic), j.file, j.assessor))
    return json.dumps({"format": JSON_FORMAT, "judgements": [j.to_api() for j in ordered]},
                      ensure_ascii=False, indent=1) + "\n"


def read_json(path: str | Path) -> list[Judgement]:
    """Read judgements written by :func:`json_text`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InexevalError(f"not a JSON judgement file: {error}", path) from None
    if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
        raise InexevalError(f"not an {JSON_FORMAT} file", path)
    judgements = []
    for number, item in enumerate(data.get("judgements", []), 1):
        try:
            judgements.append(_judgement(item))
        except (KeyError, TypeError, ValueError) as error:
            raise InexevalError(f"judgement {number}: {error!r}", path) from None
    return judgements


def _judgement(item: dict[str, Any]) -> Judgement:
    bep = item["best_entry_point"]
    return Judgement(
        topic=str(item["topic"]), file=str(item["file"]), assessor=str(item["assessor"]),
        status=str(item["status"]),
        passages=tuple((int(s), int(e)) for s, e in item["passages"]),
        best_entry_point=None if bep is None else int(bep),
        exhaustivity={str(k): str(v) for k, v in item["exhaustivity"].items()},
        values={str(k): str(v) for k, v in item["values"].items()},
        version=int(item["version"]), seconds=float(item["seconds"]),
        updated=None if item["updated"] is None else str(item["updated"]))


def write_export(judgements: Iterable[Judgement], collection: CollectionIndex | None, fmt: str,
                 target: str | Path, *inputs: str | Path | None) -> int:
    """Write ``judgements`` in ``fmt`` (one of :data:`EXPORT_FORMATS`) to ``target``: a file for
    ``fol`` and ``json``, a folder (created if absent, one ``topic-T.xml`` per topic) for the
    XML formats; each file written atomically, never over one of ``inputs``. Returns the number
    of documents (qrels formats) or judgements (json) written."""
    from inexeval.outputs import atomic_output, check_output, write_folder

    if fmt not in EXPORT_FORMATS:
        raise InexevalError(f"unknown export format {fmt!r} (known: {', '.join(EXPORT_FORMATS)})")
    if fmt == "sampled":
        raise InexevalError("sampled qrels are written from a sampled campaign's store "
                            "(inexeval.assess.campaign.export_store)")
    given = list(judgements)
    if fmt == "json":
        with atomic_output(check_output(target, *inputs)) as out:
            out.write(json_text(given))
        return len(given)
    if collection is None:
        raise InexevalError(f"the {fmt} export needs the collection index")
    if fmt == "fol":
        lines = list(fol_lines(given, collection))
        with atomic_output(check_output(target, *inputs)) as out:
            out.writelines(lines)
        return len(lines)
    topics = done_by_topic(given)
    write_folder(target, {inex_file_name(t): inex_xml(t, judged, collection, fmt)
                          for t, judged in topics.items()}, *inputs)
    return sum(len(judged) for judged in topics.values())

