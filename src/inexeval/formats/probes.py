"""What a file is, told cheaply: the command line's first choice of reader. Each test reads
at most a few kilobytes and imports no reader (a command on TREC files starts without the
Chroma, BioASQ or TREC Genomics readers)."""

from __future__ import annotations

from pathlib import Path

from inexeval.formats.source import BOM, Source, opened

QUESTIONS_HEADER = ("question", "references", "corpus_id")
"""The header of Chroma's questions CSV (how it is detected)."""


def is_questions_csv(path: str | Path) -> bool:
    """Whether ``path`` is a file whose first line is Chroma's questions header."""
    try:
        with open(path, "rb") as f:
            first = f.readline(4096)
    except OSError:
        return False
    text = first.decode("utf-8", "replace").lstrip("\ufeff").strip()
    return tuple(text.split(",")) == QUESTIONS_HEADER


def looks_like_bioasq(path: str | Path | Source) -> bool:
    """Whether the file's first non-blank character opens a JSON object or array (no other
    assessment format does)."""
    if str(path) == "-" or (not isinstance(path, Source) and Path(path).is_dir()):
        return False
    try:
        with opened(path) as source:
            head = source.head(4096)
    except OSError:
        return False
    return head.removeprefix(BOM).lstrip()[:1] in (b"{", b"[")


def is_genomics_line(line: str) -> bool:
    """Whether a line has the TREC Genomics 2007 gold standard's layout (five tab-separated
    fields, the second to fourth integers)."""
    fields = line.rstrip().split("\t")
    return len(fields) == 5 and all(f.strip().isdigit() for f in fields[1:4])
