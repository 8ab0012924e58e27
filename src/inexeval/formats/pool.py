"""Pool files: the TSV that ``inexeval pool`` writes and ``inexeval assess init`` reads, and the
per-topic XML pool files of X-Rai-era tooling.

TSV: one line per pooled unit, five tab-separated fields, no header::

    topic <TAB> file <TAB> path <TAB> min_rank <TAB> runs

``path`` is empty for a whole article, else an element path (canonicalised on reading, spec
§1.2); ``min_rank`` is the best rank (1-based) at which a pooled run returned the unit and
``runs`` how many pooled runs returned it within the pool's depth; both are positive integers.
The file is read through :mod:`inexeval.formats.source` (compressed, ``-``; blank lines and
trailing blanks skipped, a UTF-8 byte-order mark and CRLF line ends accepted). Units keep
the file's order within a topic; topics are in numeric order where ids are numbers. A unit
listed twice for a topic, a wrong number of fields, an empty topic or file, a bad path or a
non-positive number is a :class:`~inexeval.errors.FormatError` naming file and line.

XML (``--format inex``), one file ``pool-TOPIC.xml`` per topic, documents in pool order::

    <pool topic="91">
      <file name="co/2000/r7000">
        <path>/article[1]/bdy[1]/sec[2]</path>
      </file>
    </pool>

(an article pool has ``<file>`` elements without ``<path>``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import IO

from lxml import etree

from inexeval.collection.paths import canonical_path
from inexeval.errors import FormatError, InexevalError, shown
from inexeval.formats.lines import MAX_DIGITS
from inexeval.formats.source import opened
from inexeval.model.pool import Pool, TopicPool, make_topic_pool, topic_order

FIELDS = ("topic", "file", "path", "min_rank", "runs")


def _positive(value: str, name: str, path: str, line: int) -> int:
    if not (value.isascii() and value.isdigit()) or len(value) > MAX_DIGITS or int(value) < 1:
        raise FormatError(f"{name} {shown(value)} is not a positive integer", path, line)
    return int(value)


def read_pool(path: str | Path) -> Pool:
    """Read a pool TSV (see the module docstring) into a :class:`~inexeval.model.pool.Pool`."""
    units: dict[str, list[tuple[str, str, int, int]]] = {}
    lines: dict[str, list[int]] = {}
    seen: set[tuple[str, str, str]] = set()
    with opened(path) as source:
        name = source.name
        for number, line in source.lines():
            add_pooled_unit(line, number, name, units, lines, seen)
    if not units:
        raise FormatError("the pool has no unit line", name)
    topics = {t: make_topic_pool(t, units[t], lines[t]) for t in sorted(units, key=topic_order)}
    return Pool(topics, source=name)


def add_pooled_unit(line: str, number: int, path: str, units: dict[str, list[tuple[str, str, int, int]]],
          lines: dict[str, list[int]], seen: set[tuple[str, str, str]]) -> None:
    """Add the pooled unit of one TSV line."""
    fields = line.split("\t")
    if len(fields) != len(FIELDS):
        raise FormatError(f"{len(fields)} tab-separated fields, expected "
                          f"{len(FIELDS)}: {' '.join(FIELDS)}", path, number)
    topic, file, element, rank, runs = (f.strip() for f in fields)
    if not topic or not file:
        raise FormatError(f"empty {'topic' if not topic else 'file'}", path, number)
    if element:
        try:
            element = canonical_path(element)
        except InexevalError as error:
            raise FormatError(error.reason, path, number) from None
    key = (topic, file, element)
    if key in seen:
        unit = f"{file} {element}" if element else file
        raise FormatError(f"topic {topic} lists {unit} twice", path, number)
    seen.add(key)
    units.setdefault(topic, []).append(
        (file, element, _positive(rank, "min_rank", path, number),
         _positive(runs, "runs", path, number)))
    lines.setdefault(topic, []).append(number)


def pool_lines(pool: Pool) -> Iterable[str]:
    """The TSV lines of ``pool`` (with their ``\\n``), topics and units in the pool's order."""
    for topic, tp in pool.items():
        for unit in tp:
            yield f"{topic}\t{unit.file}\t{unit.path}\t{unit.min_rank}\t{unit.runs}\n"


def write_pool(pool: Pool, out: IO[str]) -> None:
    """Write ``pool`` as TSV to an open text file."""
    out.writelines(pool_lines(pool))


def inex_pool_xml(tp: TopicPool) -> bytes:
    """The XML pool file of one topic (see the module docstring), UTF-8 with a declaration."""
    root = etree.Element("pool", topic=tp.topic)
    current: dict[str, etree._Element] = {}
    for unit in tp:
        element = current.get(unit.file)
        if element is None:
            element = current[unit.file] = etree.SubElement(root, "file", name=unit.file)
        if unit.path:
            etree.SubElement(element, "path").text = unit.path
    return bytes(etree.tostring(root, encoding="UTF-8", xml_declaration=True, pretty_print=True))


def inex_pool_name(topic: str) -> str:
    """The file name of a topic's XML pool file in the output folder."""
    return f"pool-{topic}.xml"
