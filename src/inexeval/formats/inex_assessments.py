"""INEX 2002-2008 XML assessment files (spec §1.5.1-§1.5.3).

Layout: ``<assessments topic="…">`` › ``<file file="…">`` (or ``name="…"``) › one record per
judged element, ``<path path="…" …/>`` or ``<element path="…" …/>``, attributes in either quote
style. The scale is detected from the record attributes (or forced with ``scale=``):

* ``inex2002`` (seed 003 §4.4): ``relevance`` 0-3 and ``coverage`` N/S/L/E; the valid
  combinations are 0N, 1S 1L 1E, 2S 2L 2E, 3L 3E. Coverage is stored as an int
  (:data:`~inexeval.model.assessments.COVERAGE_CODES`: N=0, S=1, L=2, E=3).
* ``inex2003`` (INEX 2003/2004, seed 000): ``exhaustiveness`` or ``exhaustivity`` and
  ``specificity`` 0-3; valid pairs (0,0) and {1,2,3}².
* ``inex2005`` (INEX 2005-2008 highlighting, seed 001, X-Rai exporter): ``exhaustivity`` ``?``/1/2
  (``?`` stored as -1), ``size`` and ``rsize`` characters with ``0 < rsize <= size``; the file
  blocks may also hold ``<passage start="XPointer" end="XPointer" size="n"/>`` (kept as given in
  ``TopicAssessments.passages`` until :func:`inexeval.collection.implicit.resolve_passages`) and
  ``<best-entry-point path="…"/>`` (kept as the XPointer string in ``best_entry_points``). The
  topic definition the 2005 files carry (``<inex_topic>``) is skipped.

The path may be one file or a folder of per-topic files (read recursively, sorted); a topic
found in two files is an error. Files are streamed (iterparse, consumed elements freed). Every
problem - a duplicated (file, path) in a topic, a path that is not an absolute path of child
steps, an invalid combination, ``rsize > size`` or ``rsize <= 0``, a negative passage size - is
a :class:`~inexeval.errors.FormatError` naming the file and the line (spec §9.4: strict).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from inexeval.collection.paths import canonical_path
from inexeval.errors import FormatError, InexevalError, shown
from inexeval.formats import DIM_TYPES
from inexeval.formats.lines import MAX_DIGITS, topic_id
from inexeval.formats.source import Source, opened
from inexeval.formats.xmlsafe import iterparse, release
from inexeval.model.assessments import COVERAGE_CODES, Assessments, TopicAssessments, build_topic

VALID_2002 = frozenset({(0, "N"), (1, "S"), (1, "L"), (1, "E"), (2, "S"), (2, "L"), (2, "E"),
                        (3, "L"), (3, "E")})
VALID_2003 = frozenset({(0, 0)} | {(e, s) for e in (1, 2, 3) for s in (1, 2, 3)})
EXHAUSTIVITY_2005 = {"?": -1, "1": 1, "2": 2}


_TOPIC_ATTRIBUTES = ("topic", "topic-id", "topic_id", "id")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_XPOINTER = re.compile(rf"^(?P<path>.*?)(?:/text\(\)(?:\[\s*(?P<node>[0-9]{{1,{MAX_DIGITS}}})\s*\])?)?"
                       rf"(?:\.(?P<offset>[0-9]{{1,{MAX_DIGITS}}}))?$")


class XPointer(NamedTuple):
    """A point of a 2005+ passage or best entry point (spec §1.2): the element's canonical
    path, the 1-based text-node child (0 = the element itself) and the character offset in it
    (None when the pointer gives none: the start or the end of the node, depending on use)."""

    path: str
    text_node: int
    offset: int | None


def parse_xpointer(text: str) -> XPointer:
    """Parse ``/article[1]/bdy[1]/p[3]/text()[2].15`` (or a plain element path, optionally with
    ``.offset``) into an :class:`XPointer`; raises :class:`InexevalError` when it is neither.
    ``text()`` without a position is the first text node."""
    compact = "".join(text.split())
    match = _XPOINTER.match(compact)
    if match is None or not match.group("path"):
        raise InexevalError(f"unparsable XPointer {shown(text)}")
    node = 0
    if "/text()" in compact[len(match.group("path")):]:
        node = int(match.group("node") or 1)
        if node < 1:
            raise InexevalError(f"XPointer {shown(text)} has a text node position below 1")
    offset = match.group("offset")
    return XPointer(canonical_path(match.group("path")), node, None if offset is None else int(offset))


class _Topic:
    """Records of one topic while its file is streamed."""

    def __init__(self, topic: str, file: Path) -> None:
        self.topic = topic
        self.file = file
        self.records: list[tuple[str, str, dict[str, Any]]] = []
        self.seen: dict[tuple[str, str], int] = {}
        self.passages: dict[str, list[tuple[str, str]]] = {}
        self.best_entry_points: dict[str, str] = {}


def _int(value: str | None, name: str, file: Path, line: int | None) -> int:
    """An integer attribute: ASCII digits only (``int`` would read ``２`` or ``٢``), at most
    :data:`~inexeval.formats.lines.MAX_DIGITS` of them."""
    if value is None:
        raise FormatError(f"the record has no {name!r} attribute", file, line)
    text = value.strip()
    if _INTEGER.fullmatch(text) is None:
        raise FormatError(f"{name}={shown(value)} is not an integer", file, line)
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise FormatError(f"{name}={shown(value)} is too large", file, line)
    return int(text)


def detect_scale(attributes: Mapping[str, str]) -> str | None:
    """The assessment scale a record's attribute names belong to, None if they tell nothing."""
    if "relevance" in attributes or "coverage" in attributes:
        return "inex2002"
    if "specificity" in attributes:
        return "inex2003"
    if "size" in attributes or "rsize" in attributes or attributes.get("exhaustivity") == "?":
        return "inex2005"
    return None


def _values(scale: str, a: Mapping[str, str], file: Path, line: int | None) -> dict[str, Any]:
    if scale == "inex2002":
        relevance = _int(a.get("relevance"), "relevance", file, line)
        coverage = (a.get("coverage") or "").strip().upper()
        if (relevance, coverage) not in VALID_2002:
            raise FormatError(
                f"invalid INEX 2002 assessment relevance={relevance} coverage={coverage!r} "
                "(valid: 0N 1S 1L 1E 2S 2L 2E 3L 3E)", file, line)
        return {"relevance": relevance, "coverage": COVERAGE_CODES[coverage]}
    if scale == "inex2003":
        name = "exhaustiveness" if "exhaustiveness" in a else "exhaustivity"
        exhaustivity = _int(a.get(name), name, file, line)
        specificity = _int(a.get("specificity"), "specificity", file, line)
        if (exhaustivity, specificity) not in VALID_2003:
            raise FormatError(
                f"invalid INEX 2003/2004 assessment (e, s) = ({exhaustivity}, {specificity}) "
                "(valid: (0,0) and e, s in 1..3)", file, line)
        return {"exhaustivity": exhaustivity, "specificity": specificity}
    raw = (a.get("exhaustivity") or "").strip()
    if raw not in EXHAUSTIVITY_2005:
        raise FormatError(f"invalid INEX 2005 exhaustivity {raw!r} (valid: ?, 1, 2)", file, line)
    size = _int(a.get("size"), "size", file, line)
    rsize = _int(a.get("rsize"), "rsize", file, line)
    if not 0 < rsize <= size:
        raise FormatError(f"rsize={rsize} with size={size}: need 0 < rsize <= size", file, line)
    return {"exhaustivity": EXHAUSTIVITY_2005[raw], "size": float(size), "rsize": float(rsize)}


def _path(value: str | None, file: Path, line: int | None) -> str:
    if value is None:
        raise FormatError("the record has no 'path' attribute", file, line)
    try:
        return canonical_path(value)
    except InexevalError as error:
        raise FormatError(error.reason, file, line) from None


def _xpointer(value: str | None, name: str, file: Path, line: int | None) -> str:
    if value is None:
        raise FormatError(f"<passage> has no {name!r} attribute", file, line)
    try:
        parse_xpointer(value)
    except InexevalError as error:
        raise FormatError(error.reason, file, line) from None
    return value.strip()


_RECORD_TAGS = frozenset({"path", "element", "passage", "best-entry-point"})


def _record(current: _Topic, document: str, tag: str, attributes: Mapping[str, str],
            scale: str | None, file: Path, line: int | None) -> str | None:
    """Add one record of a ``<file>`` block; returns the scale, fixed by the first record."""
    if tag == "passage":
        start = _xpointer(attributes.get("start"), "start", file, line)
        end = _xpointer(attributes.get("end"), "end", file, line)
        if "size" in attributes and _int(attributes["size"], "size", file, line) < 0:
            raise FormatError(f"negative passage size {attributes['size']}", file, line)
        current.passages.setdefault(document, []).append((start, end))
        return scale
    if tag == "best-entry-point":
        current.best_entry_points[document] = _xpointer(attributes.get("path"), "path", file, line)
        return scale
    path = _path(attributes.get("path"), file, line)
    found = detect_scale(attributes)
    if scale is None:
        if found is None:
            raise FormatError(
                f"cannot tell the assessment scale from attributes {sorted(attributes)}",
                file, line)
        scale = found
    elif found is not None and found != scale:
        raise FormatError(
            f"a {found} record in {scale} assessments (attributes {sorted(attributes)})",
            file, line)
    values = _values(scale, attributes, file, line)
    key = (document, path)
    if key in current.seen:
        raise FormatError(
            f"duplicated assessment of {document} {path} (first at line {current.seen[key]})",
            file, line)
    current.seen[key] = line or 0
    current.records.append((document, path, values))
    return scale


def _read_file(source: Path | Source, scale: str | None) -> tuple[list[_Topic], str | None]:
    """Stream one assessment file; returns its topic(s) and the scale seen so far."""
    with opened(source) as opened_source:
        return _read_stream(opened_source, Path(opened_source.name), scale)


def _read_stream(source: Source, file: Path, scale: str | None
                 ) -> tuple[list[_Topic], str | None]:
    topics: list[_Topic] = []
    current: _Topic | None = None
    document: str | None = None
    skip = 0
    for event, element in iterparse(source, file, strict_entities=True):
        tag = element.tag
        if event == "start":
            if tag == "inex_topic":
                skip += 1
            elif skip:
                continue
            elif tag == "assessments":
                topic = next((element.get(n) for n in _TOPIC_ATTRIBUTES if element.get(n)), None)
                if topic is None:  # other spellings, e.g. topic-no or inex_topic_id
                    topic = next((v for k, v in element.attrib.items()
                                  if "topic" in str(k).lower() and v.strip()), None)
                if topic is None:
                    raise FormatError("<assessments> has no topic attribute", file,
                                      element.sourceline)
                current = _Topic(topic_id(topic, file, element.sourceline), file)
                topics.append(current)
            elif tag == "file":
                name = element.get("file") or element.get("name")
                if name is None or not name.strip():
                    raise FormatError("<file> has no file or name attribute", file,
                                      element.sourceline)
                document = name.strip()
            continue
        if tag == "inex_topic":
            skip -= 1
        elif tag in _RECORD_TAGS and not skip:
            if current is None or document is None:
                raise FormatError(f"<{tag}> outside <assessments> › <file>", file,
                                  element.sourceline)
            scale = _record(current, document, tag, element.attrib, scale, file,
                            element.sourceline)
        elif tag == "file":
            document = None
        if tag != "assessments":
            release(element)
    if not topics:
        raise FormatError("no <assessments> element", file)
    return topics, scale


def read_inex_assessments(path: str | Path | Source, scale: str | None = None) -> Assessments:
    """Read INEX 2002-2008 XML assessments from a file (or :class:`Source`) or a folder of
    per-topic files.

    ``scale`` (``inex2002``, ``inex2003``, ``inex2005``) forces the scale; by default it is
    detected from the first record's attributes and every later record must agree.
    """
    if scale is not None and scale not in DIM_TYPES:
        raise InexevalError(f"unknown INEX XML assessment scale {scale!r}", str(path))
    files: list[Path | Source]
    if isinstance(path, Source):
        files, path = [path], Path(path.name)
    else:
        path = Path(path)
        if not path.exists():
            raise InexevalError("no such file or folder", path)
        files = [*sorted(path.rglob("*.xml"))] if path.is_dir() else [path]
    if not files:
        raise FormatError("the folder holds no .xml assessment file", path)
    read: list[_Topic] = []
    owner: dict[str, Path] = {}
    for file in files:
        topics, scale = _read_file(file, scale)
        for topic in topics:
            if topic.topic in owner:
                raise FormatError(f"topic {topic.topic} is assessed in {owner[topic.topic]} and "
                                  "again here", topic.file)
            owner[topic.topic] = topic.file
        read.extend(topics)
    if scale is None:
        raise FormatError("no assessment record: cannot tell the scale (give it)", path)
    result: dict[str, TopicAssessments] = {}
    for topic in read:
        assessed = build_topic(
            topic.topic, scale, topic.records, dim_types=DIM_TYPES[scale],
            best_entry_points=topic.best_entry_points, source=str(topic.file))
        if topic.passages:
            assessed = replace(
                assessed, passages={f: tuple(p) for f, p in topic.passages.items()})
        result[topic.topic] = assessed
    return Assessments(topics=result, scale=scale, source=str(path))

