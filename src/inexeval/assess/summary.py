"""What the pool page shows of each document: its title and its first words.

Read from the first characters of the stored text and of the element list only (a pool of a
thousand articles would otherwise read every article whole), once per document per process:
documents never change after ``assess init``.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Sequence

import sqlalchemy as sa

from inexeval.assess.names import inline_kinds, tag
from inexeval.assess.store import Store, documents

TITLE_TAGS = ("atl", "ti", "title", "name")
"""Tags of an element naming a document: IEEE ``fm/tig/atl`` (``fm/hdr/hdr1/ti`` is the
journal's), the Wikipedia collections' ``name`` (whose ``title`` elements are the section
headings) or ``header/title``. The shallowest such element is the title, the first of these
tags among equally deep ones."""
HEADING_TAGS = ("st", "h1", "hdr")
"""Tags of a heading standing for the title when no element has a title tag."""
PREFIX = 2000
"""Characters of the text and of the element list read."""
FIRST_WORDS = 25

ALSO_IN_LINE = frozenset({"math", "code", "bold"})
"""Tags whose edges break no word in the first words although the judging page may ask about
them (a formula ``<math>n</math>-dimensional`` reads "n-dimensional")."""
METADATA_TAGS = frozenset({"conversionwarning"})
"""Tags of elements about the document rather than of it, whose text is never among its first
words: the Wikipedia collections' ``<conversionwarning>0</conversionwarning>`` (the count of
the XML conversion's warnings) before the body."""

_ELEMENT = re.compile(r'\["((?:[^"\\]|\\.)*)",(\d+),(\d+)\]')
_cache: dict[tuple[str, str], tuple[str, str]] = {}
_lock = threading.Lock()


def summarise(text: str, elements: str) -> tuple[str, str]:
    """``(title, first words)`` from the start of a document's text and of its element list
    (JSON ``[[path, start, end], ...]``, possibly cut short)."""
    found = [(json.loads(f'"{path}"'), int(start), int(end))
             for path, start, end in _ELEMENT.findall(elements)]
    title, after = "", 0
    ranked = [(path.count("/"), TITLE_TAGS.index(tag(path)), s, e) for path, s, e in found
              if tag(path) in TITLE_TAGS and e <= len(text)]
    if not ranked:
        ranked = [(0, HEADING_TAGS.index(tag(path)), s, e) for path, s, e in found
                  if tag(path) in HEADING_TAGS and e <= len(text)]
    if ranked:
        _, _, start, end = min(ranked)
        title = " ".join(text[start:end].split())
        after = end
    # an element's edges break words unless it is in the line of text (the stored text has
    # no blank between elements): the judging page's rule (names.inline_kinds)
    inline = inline_kinds(found)
    breaks = sorted({at for path, start, end in found
                     if not (inline[path] or tag(path) in ALSO_IN_LINE)
                     for at in (start, end) if after < at < len(text)})
    cuts = [after, *breaks, len(text)]
    metadata = [(start, end) for path, start, end in found if tag(path) in METADATA_TAGS]
    words = " ".join(text[a:b] for a, b in itertools.pairwise(cuts)
                     if not any(s <= a and b <= e for s, e in metadata)).split()
    first = " ".join(words[:FIRST_WORDS]) + ("…" if len(words) > FIRST_WORDS else "")
    return title, first


def summaries(store: Store, files: Sequence[str]) -> dict[str, tuple[str, str]]:
    """``{file: (title, first words)}`` for ``files`` (cached per store and file)."""
    with _lock:
        known = {f: _cache[(store.url, f)] for f in files if (store.url, f) in _cache}
    missing = [f for f in files if f not in known]
    for chunk in range(0, len(missing), 500):
        part = missing[chunk:chunk + 500]
        with store.engine.connect() as connection:
            rows = connection.execute(sa.select(
                documents.c.file, sa.func.substr(documents.c.text, 1, PREFIX).label("text"),
                sa.func.substr(documents.c.elements, 1, PREFIX).label("elements"))
                .where(documents.c.file.in_(part))).all()
        for row in rows:
            known[row.file] = summarise(row.text, row.elements)
    with _lock:
        for file in missing:
            if file in known:
                _cache[(store.url, file)] = known[file]
    return known
