"""The judgement of one document by one assessor for one topic: the unit every stage shares.

The store saves it, the HTTP API sends it (as :meth:`Judgement.to_api`), the consistency rules
check it and the exporters write it. Offsets are Unicode code points into the document's text as
:mod:`inexeval.collection` counts it (the offsets of FOL qrels), ends exclusive.

Modes and their per-element values (``values`` maps a canonical element path to a code):

========== ====================================================================================
mode       what an assessor gives
========== ====================================================================================
passages   passages and, for a relevant document, a best entry point; no per-element value
           (INEX 2006-2010: the relevance assessment guides of Lalmas and Piwowarski, which
           dropped 2005's exhaustivity; what FOL qrels hold)
highlight  passages; ``exhaustivity`` ``"2"``, ``"1"`` or ``"?"`` (too small) for each element
           holding highlighted text (INEX 2005-2008, Piwowarski et al.); a best entry point
2002       ``values``: relevance 0-3 and coverage N/S/L/E, written ``"3E"``, ``"1S"``, ``"0N"``
           (INEX 2002, Kazai et al.)
2003       ``values``: exhaustivity 0-3 and specificity 0-3, written ``"E3S2"`` (INEX 2003/2004)
========== ====================================================================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

MODES = ("passages", "highlight", "2002", "2003")
STATUSES = ("unseen", "in-progress", "done")
EXHAUSTIVITY_VALUES = ("2", "1", "?")
MAX_SECONDS = 24 * 3600.0
"""Most seconds one judgement may record (a save claiming more is refused)."""
ACTIVE_SECONDS = 120.0
"""Assessing time, the one definition (document page, ``/admin``, ``assess stats``): the seconds a
document page is visible while the assessor acted on it (a key, a click, a scroll, a pointer
move) within the last ``ACTIVE_SECONDS``; a judgement's ``seconds`` is the sum of that time over
its visits (and over tabs, when a merge adds them)."""

Passage = tuple[int, int]


@dataclass(frozen=True)
class Judgement:
    """One (topic, assessor, document) judgement; see the module docstring."""

    topic: str
    file: str
    assessor: str
    status: str = "unseen"
    passages: tuple[Passage, ...] = ()
    best_entry_point: int | None = None
    exhaustivity: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, str] = field(default_factory=dict)
    version: int = 0
    seconds: float = 0.0
    updated: str | None = None

    @property
    def relevant(self) -> bool:
        """Done with highlighted text (passages and highlight modes) or a non-zero value (2002/2003)."""
        if self.passages:
            return True
        return any(not _is_zero(code) for code in self.values.values())

    def to_api(self) -> dict[str, Any]:
        """The JSON object of ``GET /api/topics/{topic}/docs/{file}``."""
        return {
            "topic": self.topic, "file": self.file, "assessor": self.assessor,
            "version": self.version, "status": self.status,
            "passages": [list(p) for p in merge_passages(self.passages)],
            "best_entry_point": self.best_entry_point,
            "exhaustivity": dict(self.exhaustivity), "values": dict(self.values),
            "seconds": self.seconds, "updated": self.updated,
        }


def same_record(a: Judgement, b: Judgement) -> bool:
    """Whether two judgements of a document say the same (status, passages, best entry point,
    values, seconds), whatever their versions and times."""
    return (a.status == b.status and merge_passages(a.passages) == merge_passages(b.passages)
            and a.best_entry_point == b.best_entry_point
            and dict(a.exhaustivity) == dict(b.exhaustivity) and dict(a.values) == dict(b.values)
            and a.seconds == b.seconds)


def merge_passages(passages: Sequence[Passage]) -> tuple[Passage, ...]:
    """Sorted ``[start, end)`` passages with touching or overlapping ones merged."""
    merged: list[list[int]] = []
    for start, end in sorted(passages):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((s, e) for s, e in merged)


def _is_zero(code: str) -> bool:
    """``"0N"`` (2002) and ``"E0S0"`` (2003) are the non-relevant codes."""
    return code in ("0N", "E0S0")


def topic_keywords(topic: dict[str, Any]) -> list[str]:
    """The words to colour in documents: the topic's keywords (comma or semicolon separated),
    else the words of its title (operators, quotes and structural hints removed)."""
    listed = [k.strip() for k in re.split(r"[,;\n]", topic.get("keywords") or "") if k.strip()]
    if listed:
        return listed
    return [w for w in re.findall(r"[\w-]+", topic.get("title") or "") if len(w) > 2]
