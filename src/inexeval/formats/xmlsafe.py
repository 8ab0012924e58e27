"""The one place where XML parsers are configured.

Every XML file inexeval reads (topics, assessments, submissions, collection documents) goes
through :func:`parse` or :func:`iterparse`. The parsers never fetch or resolve anything outside
the file: external entities and DTDs are not loaded (``load_dtd=False``, ``no_network=True``),
entity references are not substituted (``resolve_entities=False``) and libxml2's size limits
stay on (``huge_tree=False``). On top of that, a document whose internal DTD subset declares any
entity other than the five predefined ones (``lt gt amp apos quot``, which libxml2 keeps with
their standard meaning even when a DTD redeclares them, as the INEX 2009/2010 topic files do) is
refused: such entities are either a hostile construction (an entity bomb) or text we would
silently lose. libxml2 itself refuses entity amplification within microseconds (tested on the
"billion laughs" document), so nothing is ever expanded.

A file that names an external DTD may use entities that DTD would define; since it is never
read, libxml2 drops such a reference from an attribute (``topic="20&x;1"`` reads ``201``) and
keeps it as an unresolved node in text. Readers of identifiers (assessments, runs, topics) pass
``strict_entities=True``: any entity left undefined is then an error naming the line. Collection
documents of the IEEE kind legitimately use the entities of their external DTD in text and are
read as before.

Encoding: UTF-8 unless the XML declaration (or a byte-order mark) says otherwise; invalid bytes
are a :class:`~inexeval.errors.FormatError` with the line. Every syntax error becomes a
``FormatError(reason, file, line)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from lxml import etree

from inexeval.errors import FormatError
from inexeval.formats.source import Source

PREDEFINED_ENTITIES = frozenset({"lt", "gt", "amp", "apos", "quot"})

_OPTIONS = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False}


def parser() -> etree.XMLParser:
    """A fresh lxml parser with the safe options (a parser is not thread-safe: make one each)."""
    return etree.XMLParser(remove_blank_text=False, **_OPTIONS)


def _syntax_error(error: etree.XMLSyntaxError, file: str | Path) -> FormatError:
    line = error.lineno if error.lineno and error.lineno > 0 else None
    reason = (error.msg or str(error)).split(", line ")[0]
    return FormatError(f"malformed XML: {reason}", file, line)


def check_entities(tree: etree._ElementTree, file: str | Path) -> None:
    """Refuse an internal DTD subset that declares entities beyond the predefined five."""
    dtd = tree.docinfo.internalDTD
    if dtd is None:
        return
    for entity in dtd.iterentities():
        if entity.name not in PREDEFINED_ENTITIES:
            raise FormatError(
                f"the document declares the entity {entity.name!r}; entity declarations are "
                "refused (never expanded or fetched)",
                file,
            )


def _undefined_entities(log: etree._ListErrorLog, file: str | Path) -> None:
    for entry in log:
        if entry.type_name == "WAR_UNDECLARED_ENTITY":
            name = entry.message.split("'")[1] if entry.message.count("'") >= 2 else "?"
            raise FormatError(f"the entity &{name}; is not defined in the file (external DTDs "
                              "are never read): write the character itself", file,
                              entry.line or None)


def parse(source: str | Path | bytes | Source, file: str | Path | None = None,
          strict_entities: bool = False) -> etree._ElementTree:
    """Parse a whole (small) XML document: a path, a :class:`Source`, or bytes with ``file``
    naming them."""
    if isinstance(source, Source):
        name: str | Path = file if file is not None else source.name
    else:
        name = file if file is not None else (source if not isinstance(source, bytes)
                                              else "<bytes>")
    safe = parser()
    try:
        if isinstance(source, Source):
            tree = etree.parse(source, safe)
        else:
            # Bytes rather than a file name: lxml reports encoding errors of named files as
            # OSError without a line.
            data = source if isinstance(source, bytes) else Path(source).read_bytes()
            tree = etree.ElementTree(etree.fromstring(data, safe))
    except etree.XMLSyntaxError as error:
        raise _syntax_error(error, name) from None
    except OSError as error:
        raise FormatError(f"cannot read the file: {error.strerror or error}", name) from None
    check_entities(tree, name)
    if strict_entities:
        _undefined_entities(safe.error_log, name)
    return tree


def root_tag(source: Source) -> str:
    """The root element's name, from the first bytes of ``source`` (not consumed)."""
    return str(_root(source).tag)


def root_attributes(source: Source) -> dict[str, str]:
    """The root element's attributes, from the first bytes of ``source`` (not consumed)."""
    return {str(k): str(v) for k, v in _root(source).attrib.items()}


def _root(source: Source) -> etree._Element:
    pull = etree.XMLPullParser(events=("start",), **_OPTIONS)
    size = 1 << 12
    while True:
        head = source.head(size)
        try:
            pull.feed(head)
            for _, element in pull.read_events():
                return element
            if len(head) < size:
                pull.close()
        except etree.XMLSyntaxError as error:
            raise _syntax_error(error, source.name) from None
        if len(head) < size:
            raise FormatError("empty XML document", source.name)
        if size > 1 << 22:
            raise FormatError("no root element in the first 4 MB", source.name)
        pull = etree.XMLPullParser(events=("start",), **_OPTIONS)
        size *= 4


def iterparse(
    source: str | Path | IO[bytes] | Source,
    file: str | Path | None = None,
    events: tuple[str, ...] = ("start", "end"),
    strict_entities: bool = False,
) -> Iterator[tuple[str, etree._Element]]:
    """Stream ``(event, element)`` pairs of a document with the safe options.

    The caller clears what it has consumed (see :func:`release`) so that memory stays bounded.
    The entity check runs at the first ``start`` event, before any content is reported; with
    ``strict_entities``, an undefined entity is an error at the end of the document.
    """
    if file is None:
        file = source.name if isinstance(source, Source) else (
            source if isinstance(source, (str, Path)) else "<stream>")
    name = file
    wanted = set(events)
    checked = False
    try:
        stream = etree.iterparse(
            str(source) if isinstance(source, (str, Path)) else source,
            events=tuple(wanted | {"start"}),
            **_OPTIONS,
        )
        for event, element in stream:
            if not checked:
                check_entities(element.getroottree(), name)
                checked = True
            if event in wanted:
                yield event, element
        if strict_entities:
            _undefined_entities(stream.error_log, name)
    except etree.XMLSyntaxError as error:
        raise _syntax_error(error, name) from None
    except OSError as error:
        raise FormatError(f"cannot read the file: {error}", name) from None


def release(element: etree._Element) -> None:
    """Free a consumed element and its already consumed preceding siblings."""
    element.clear(keep_tail=True)
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]
