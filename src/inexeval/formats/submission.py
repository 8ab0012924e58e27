"""INEX XML submissions, 2002-2008 (spec §1.7.1).

``<inex-submission run-id=… task=… …>`` › ``<topic topic-id=…>`` › ``<result>`` with ``<file>``,
``<path>``, and optionally ``<rank>`` and ``<rsv>``. Passage results give ``<offset>`` and
``<length>`` (characters, spec §1.3) instead of ``<path>``; a run holds either element or passage
results. The run's name is its ``run-id`` (else the file name); the root's other attributes go to
``Run.meta``. The file is streamed and consumed results are freed. Results without a rank get
-1, without an rsv NaN; the evaluation order is decided later (``TopicRun.ordered``).
"""

from __future__ import annotations

import math
from pathlib import Path

from lxml import etree

from inexeval.collection.paths import canonical_path
from inexeval.errors import FormatError, InexevalError, shown
from inexeval.formats import SUBMISSION_ROOT
from inexeval.formats.lines import topic_id
from inexeval.formats.runbuild import RunBuilder
from inexeval.formats.source import Source, opened
from inexeval.formats.xmlsafe import iterparse, release
from inexeval.model.run import Run

ROOT = SUBMISSION_ROOT
_TOPIC_ID = ("topic-id", "topic_id", "id")


def _field(result: etree._Element, name: str) -> str | None:
    child = result.find(name)
    if child is None:
        return None
    return "".join(child.itertext()).strip()


def _number(text: str, name: str, kind: type, file: Path, line: int | None) -> float:
    """A finite number in ASCII (an integer below 10^15 where ``kind`` is int)."""
    try:
        if "_" in text or not text.isascii():
            raise ValueError(text)
        value = kind(text)
    except ValueError:
        raise FormatError(f"<{name}> {shown(text)} is not a number", file, line) from None
    if not math.isfinite(value) or (kind is int and abs(value) >= 10**15):
        raise FormatError(f"<{name}> {shown(text)} is not a finite number (below 10^15)",
                          file, line)
    return float(value)


def read_submission(path: str | Path | Source, keep_repeats: bool = False) -> Run:
    """Read an INEX XML submission into a :class:`Run` of kind ``element`` or ``passage``
    (a repeated result is dropped with a warning unless ``keep_repeats``)."""
    with opened(path) as source:
        return _read(source, Path(source.name), keep_repeats)


def _read(source: Source, path: Path, keep_repeats: bool) -> Run:
    builder = RunBuilder(path, keep_repeats)
    meta: dict[str, str] = {}
    topic: str | None = None
    kind: str | None = None
    for event, element in iterparse(source, path, strict_entities=True):
        tag = element.tag
        line = element.sourceline
        if event == "start":
            if element.getparent() is None:
                if tag != ROOT:
                    raise FormatError(f"root element <{tag}> is not <{ROOT}>", path, line)
                meta = {str(k): str(v) for k, v in element.attrib.items()}
            elif tag == "topic":
                found = next((element.get(n) for n in _TOPIC_ID if element.get(n)), None)
                if found is None:
                    raise FormatError("<topic> has no topic-id attribute", path, line)
                topic = topic_id(found, path, line)
            continue
        if tag == "result":
            if topic is None:
                raise FormatError("<result> outside <topic>", path, line)
            kind = _result(builder, element, topic, kind, path, line or 0)
            release(element)
        elif tag == "topic":
            topic = None
            release(element)
    return builder.build(meta.get("run-id", path.stem), kind or "element", meta)


def _result(builder: RunBuilder, result: etree._Element, topic: str, kind: str | None,
            path: Path, line: int) -> str:
    """Add one ``<result>``; returns the run's kind, which every result must share."""
    file = _field(result, "file")
    if not file:
        raise FormatError("<result> has no <file>", path, line)
    rank_text, rsv_text = _field(result, "rank"), _field(result, "rsv")
    rank = int(_number(rank_text, "rank", int, path, line)) if rank_text else -1
    if rank_text and rank < 0:
        raise FormatError(f"negative rank {rank}", path, line)
    rsv = _number(rsv_text, "rsv", float, path, line) if rsv_text else math.nan
    element_path = _field(result, "path")
    offset_text, length_text = _field(result, "offset"), _field(result, "length")
    if element_path:
        found = "element"
        try:
            builder.add(topic, file, line, path=canonical_path(element_path), rank=rank, rsv=rsv)
        except InexevalError as error:
            raise FormatError(error.reason, path, line) from None
    elif offset_text and length_text:
        found = "passage"
        offset = int(_number(offset_text, "offset", int, path, line))
        length = int(_number(length_text, "length", int, path, line))
        if offset < 0 or length < 0:
            raise FormatError(f"negative passage offset or length ({offset}, {length})",
                              path, line)
        builder.add(topic, file, line, offset=offset, length=length, rank=rank, rsv=rsv)
    else:
        raise FormatError("<result> has neither <path> nor <offset> and <length>", path, line)
    if kind is not None and kind != found:
        raise FormatError(f"a {found} result in a run of {kind} results", path, line)
    return found
