"""Plain-text and Markdown documents for the assessment store (issue 34: a RAG corpus, as
Chroma's folder of ``{corpus_id}.md``).

A document is one text, read as UTF-8 with Python's universal newlines (as Chroma's evaluation
and :func:`inexeval.formats.chroma.read_corpus_file` read it), so its offsets are the code
points the questions CSV and the span runs count. The browser shows it as text, never as HTML
(Markdown is not rendered: its offsets are those of the source). So that its paragraphs show as
paragraphs and highlight mode has elements to ask about, the store gives it a root element
``/article[1]`` over the whole text and one ``/article[1]/p[k]`` per paragraph (a run of text
between blank lines, without its surrounding white space); the text between paragraphs is the
root's own text.
"""

from __future__ import annotations

import re
from pathlib import Path

from inexeval.assess.store import Document
from inexeval.errors import FormatError, InexevalError
from inexeval.formats.chroma import read_corpus_file

ROOT = "/article[1]"
_PARAGRAPH = re.compile(r"\S(?:.|\n(?![ \t\r\f\v]*\n))*")
"""From a non-blank character to the last one before a blank line (or the end)."""


def text_document(name: str, text: str) -> Document:
    """The stored document of a plain text (see the module docstring)."""
    paragraphs = [(m.start(), m.start() + len(m.group().rstrip()))
                  for m in _PARAGRAPH.finditer(text)]
    elements = [(ROOT, 0, len(text))]
    elements += [(f"{ROOT}/p[{k}]", start, end) for k, (start, end) in enumerate(paragraphs, 1)]
    nodes: list[tuple[int, int, int]] = []
    at = 0
    for k, (start, end) in enumerate(paragraphs, 1):
        if start > at:
            nodes.append((0, at, start))
        nodes.append((k, start, end))
        at = end
    if at < len(text) or not nodes:
        nodes.append((0, at, len(text)))
    return Document(name, text, tuple(elements), tuple(nodes))


def read_text_document(folder: Path, name: str, where: str, line: int | None) -> Document:
    """The document ``name`` of a folder of plain-text files: the one file ``{name}.*`` (or
    ``name`` itself), ``name`` possibly under subfolders; never a file a link takes out of the
    folder."""
    relative = Path(name)
    base = folder / relative.parent
    found = [] if (relative.is_absolute() or ".." in relative.parts or not relative.name
                   or not base.is_dir()) else [
        p for p in base.iterdir() if p.is_file() and relative.name in (p.stem, p.name)]
    if not found:
        raise FormatError(f"document {name} is not in the collection {folder}", where, line)
    inside = folder.resolve()
    for path in found:
        if not path.resolve().is_relative_to(inside):
            raise FormatError(f"document {name}: {path.name} links out of the collection "
                              f"{folder}", where, line)
    try:
        text = read_corpus_file(base, relative.name, where)
    except FormatError:
        raise
    except InexevalError as error:  # several files
        raise FormatError(f"document {name}: {error.reason}", where, line) from None
    return text_document(name, text)
