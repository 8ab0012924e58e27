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


def parse(source: str | Path | bytes, file: str | Path | None = None) -> etree._ElementTree:
    """Parse a whole (small) XML document: a path, or bytes with ``file`` naming them."""
    name = file if file is not None else (source if not isinstance(source, bytes) else "<bytes>")
    try:
        # Bytes rather than a file name: lxml reports encoding errors of named files as OSError
        # without a line.
        data = source if isinstance(source, bytes) else Path(source).read_bytes()
        tree = etree.ElementTree(etree.fromstring(data, parser()))
    except etree.XMLSyntaxError as error:
        raise _syntax_error(error, name) from None
    except OSError as error:
        raise FormatError(f"cannot read the file: {error.strerror or error}", name) from None
    check_entities(tree, name)
    return tree


def iterparse(
    source: str | Path | IO[bytes],
    file: str | Path | None = None,
    events: tuple[str, ...] = ("start", "end"),
) -> Iterator[tuple[str, etree._Element]]:
    """Stream ``(event, element)`` pairs of a document with the safe options.

    The caller clears what it has consumed (see :func:`release`) so that memory stays bounded.
    The entity check runs at the first ``start`` event, before any content is reported.
    """
    name = file if file is not None else (source if isinstance(source, (str, Path)) else "<stream>")
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
