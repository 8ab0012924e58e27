"""trec_eval's judgement-group qrels (``-R qrels_jg``, ``get_qrels_jg.c``): TREC qrels
``topic group doc level`` whose second column names a judgement group (one assessor's
judgements), read as columns whose topic ids are ``topic group`` (for
:mod:`inexeval.measures.trec_jg`).

Read as trec_eval reads them, but strictly: ``#`` comment lines and blank lines are skipped; a
line with another number of fields, a level that is not an integer or above
:data:`~inexeval.formats.trec_columns.MAX_LEVEL`, or a document judged twice in one group is an error
naming the line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from inexeval.errors import FormatError, shown
from inexeval.formats.source import fields_of
from inexeval.formats.trec_columns import MAX_LEVEL, TrecColumns


def read_qrels_jg(path: str | Path) -> TrecColumns:
    """The judgements, one row a line, the topic id ``topic group``."""
    keys: list[bytes] = []
    documents: list[bytes] = []
    levels: list[int] = []
    lines: list[int] = []
    seen: dict[tuple[bytes, bytes], int] = {}
    name = str(path)
    for name, number, fields in fields_of(path, 4, "topic group doc level"):
        try:
            level = int(fields[3])
        except ValueError:
            raise FormatError(f"the relevance level {shown(fields[3])} is not an integer",
                              name, number) from None
        if level > MAX_LEVEL:
            raise FormatError(f"relevance level {level} is above {MAX_LEVEL}", name, number)
        key = f"{fields[0]} {fields[1]}".encode()
        document = fields[2].encode()
        if (key, document) in seen:
            raise FormatError(f"topic {fields[0]!r} group {fields[1]!r} judges {fields[2]!r} "
                              f"twice (first at line {seen[(key, document)]})", name, number)
        seen[(key, document)] = number
        keys.append(key)
        documents.append(document)
        levels.append(level)
        lines.append(number)
    if not keys:
        raise FormatError("the qrels have no judgement line", name)
    return TrecColumns(np.array(keys), np.array(documents), np.array(levels, dtype=np.int64),
                       np.array(lines, dtype=np.int64), "", name)
