"""Topic files of INEX 2002-2010 (spec §1.4).

* INEX 2002 ``<INEX-Topic topic-id query-type ct-no>`` with ``Title`` made of ``te`` (target
  elements), ``cw`` (content words) and ``ce`` (context elements), then ``Description``,
  ``Narrative``, ``Keywords`` (seed 003, Fig. 2-4).
* INEX 2003-2006 ``<inex_topic topic_id query_type ct_no>`` with ``title`` (a NEXI expression for
  CAS topics), ``castitle``, ``parent``, ``description``, ``narrative``, ``keywords`` (and the
  ``InitialTopicStatement`` of the 2005 assessment files), ``topic.dtd`` of X-Rai.
* INEX 2009/2010 ``<inex-topic-file>`` of ``<topic id ct_no>`` with ``title``, ``castitle``,
  ``phrasetitle``, ``description``, ``narrative`` (inline DTD).

A file may hold one topic (its root) or many; a folder is read file by file (``*.xml``, sorted).
Target elements (which switch implicit assessments off, spec §1.6) are the comma-separated ``te``
list of a 2002 topic and, for a topic whose query type contains ``CAS``, the element types of the
last step of its NEXI title (``//article[...]//sec[...]`` gives ``sec``; ``*`` gives none).
Text fields have their runs of whitespace collapsed to one space.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from inexeval.errors import FormatError, InexevalError
from inexeval.formats.lines import topic_id
from inexeval.formats.source import opened
from inexeval.formats.xmlsafe import parse
from inexeval.model.topic import Topic

_TOPIC_TAGS = ("INEX-Topic", "inex_topic", "topic")
_ID_ATTRIBUTES = ("topic-id", "topic_id", "id")


def _text(element: etree._Element | None) -> str:
    return "" if element is None else " ".join("".join(element.itertext()).split())


def nexi_target(expression: str) -> tuple[str, ...]:
    """Element types of the last step of a NEXI path (``//a[...]//(sec|p)[...]`` gives
    ``('sec', 'p')``); empty for ``*`` or an expression without steps."""
    depth = 0
    outside = []
    for char in expression:
        if char == "[":
            depth += 1
        elif char == "]":
            depth = max(depth - 1, 0)
        elif depth == 0:
            outside.append(char)
    steps = [s for s in "".join(outside).replace(" ", "").split("/") if s]
    if not steps:
        return ()
    names = [n for n in steps[-1].strip("()").split("|") if n and n != "*"]
    return tuple(names)


def _child(topic: etree._Element, *names: str) -> etree._Element | None:
    for child in topic:
        if isinstance(child.tag, str) and child.tag in names:
            return child
    return None


def _topic_2002(element: etree._Element, file: Path) -> Topic:
    title = _child(element, "Title")
    parts: dict[str, list[str]] = {"te": [], "cw": [], "ce": []}
    if title is not None:
        for child in title:
            if isinstance(child.tag, str) and child.tag in parts:
                parts[child.tag].append(_text(child))
    targets = tuple(t.strip() for te in parts["te"] for t in te.split(",") if t.strip())
    fields = {name: " | ".join(values) for name, values in parts.items() if values}
    fields["ct_no"] = element.get("ct-no", "")
    return Topic(
        topic_id=_topic_id(element, file),
        query_type=element.get("query-type", "").strip(),
        title=" ".join(parts["cw"]),
        description=_text(_child(element, "Description")),
        narrative=_text(_child(element, "Narrative")),
        keywords=_text(_child(element, "Keywords")),
        target_elements=targets,
        fields=fields,
    )


def _topic_later(element: etree._Element, file: Path) -> Topic:
    fields = {
        child.tag: _text(child)
        for child in element
        if isinstance(child.tag, str)
    }
    query_type = (element.get("query_type") or element.get("query-type") or "").strip()
    title = fields.get("title", "")
    castitle = fields.get("castitle", "")
    targets = nexi_target(title or castitle) if "CAS" in query_type.upper() else ()
    if element.get("ct_no") is not None:
        fields["ct_no"] = element.get("ct_no", "")
    return Topic(
        topic_id=_topic_id(element, file),
        query_type=query_type,
        title=title,
        castitle=castitle,
        description=fields.get("description", ""),
        narrative=fields.get("narrative", ""),
        keywords=fields.get("keywords", ""),
        target_elements=targets,
        fields=fields,
    )


def _topic_id(element: etree._Element, file: Path) -> str:
    for name in _ID_ATTRIBUTES:
        value = element.get(name)
        if value is not None:
            return topic_id(value, file, element.sourceline)
    raise FormatError(f"<{element.tag}> has no topic id attribute", file, element.sourceline)


def _read_file(file: Path, topics: dict[str, Topic]) -> None:
    with opened(file) as source:
        root = parse(source, strict_entities=True).getroot()
    if root.tag in _TOPIC_TAGS:
        elements = [root]
    else:
        elements = [e for e in root.iter(*_TOPIC_TAGS)]
    if not elements:
        raise FormatError(f"no topic found (root element <{root.tag}>)", file, root.sourceline)
    for element in elements:
        topic = _topic_2002(element, file) if element.tag == "INEX-Topic" else _topic_later(
            element, file
        )
        if topic.topic_id in topics:
            raise FormatError(f"topic {topic.topic_id} is defined twice", file, element.sourceline)
        topics[topic.topic_id] = topic


def read_topics(path: str | Path) -> dict[str, Topic]:
    """Read a topic file, or a folder of topic files, into ``{topic id: Topic}`` in file order."""
    path = Path(path)
    if not path.exists() and str(path) != "-":
        raise InexevalError("no such file or folder", path)
    files = sorted(path.rglob("*.xml")) if path.is_dir() else [path]
    if not files:
        raise FormatError("the folder holds no .xml topic file", path)
    topics: dict[str, Topic] = {}
    for file in files:
        _read_file(file, topics)
    return topics
