"""trec_eval's preference judgements (``-R prefs``, ``get_prefs.c``): lines
``topic jg jsg doc level``, a judgement group (one user's information need), a sub-group within
it (documents ranked against each other by their levels) and a level (a number; 0 means not
relevant); and trec_eval's qrels read as preferences (``-R qrels_prefs``,
``get_qrels_prefs.c``): ``topic jg doc level``, the qrels' second column the judgement group,
one sub-group a group.

Read as trec_eval reads them, but strictly: ``#`` comment lines are skipped, and blank lines;
a line with another number of fields or a level that is not a finite number is an error naming
the line (trec_eval reads levels with ``atof``, so ``abc`` is 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from inexeval.errors import FormatError, shown
from inexeval.formats.source import fields_of


@dataclass(frozen=True)
class Preference:
    """One line: the document ``document`` has ``level`` in sub-group ``jsg`` of judgement
    group ``jg``."""

    jg: str
    jsg: str
    document: str
    level: float


def read_prefs(path: str | Path, qrels: bool = False) -> dict[str, list[Preference]]:
    """The preference lines of each topic, topics in ``strcmp`` order (trec_eval's), lines in
    file order; ``qrels``: the file is TREC qrels (``-R qrels_prefs``)."""
    width = 4 if qrels else 5
    expected = "topic jg doc level" if qrels else "topic jg jsg doc level"
    out: dict[str, list[Preference]] = {}
    for name, number, fields in fields_of(path, width, expected):
        try:
            level = float(fields[-1])
        except ValueError:
            level = math.nan
        if not math.isfinite(level):
            raise FormatError(f"the level {shown(fields[-1])} is not a finite number", name,
                              number)
        jsg = "0" if qrels else fields[2]
        out.setdefault(fields[0], []).append(Preference(fields[1], jsg, fields[-2], level))
    if not out:
        raise FormatError("the preferences have no judgement line", path)
    return {topic: out[topic] for topic in sorted(out, key=lambda t: t.encode("utf-8"))}
