"""Three-way merge of a judgement: a change made on a stale version is applied to the stored one.

A client sends the judgement it wants together with the version it started from (the *base*).
When another tab or a queued offline change saved meanwhile, the stored judgement (*theirs*) is
newer than the base; instead of refusing, the server merges the client's change (*mine*, the
difference between base and mine) into theirs:

- passages are sets of characters: the characters mine added are added, those mine removed are
  removed, the others are as theirs has them (a highlight in one tab and another elsewhere both
  survive; an unhighlight removes only its own characters). Passages never conflict.
- a value of one element (exhaustivity, 2002/2003 values), the best entry point: mine when only
  mine changed it, theirs when only theirs did, and a **conflict** when both changed it to
  different values (the only case the assessor is asked about).
- the status: as above, except that two different changes give ``in-progress`` (one tab's work
  is not finished; nothing is lost), and a ``done`` of mine whose content theirs changed is
  ``in-progress`` too (the assessor decided on a content that is no longer the document's).
- seconds: theirs plus the seconds mine added (both tabs' time counts).

A change that says exactly what theirs says, seconds included, is theirs already: a save resent
after its answer was lost (the client cannot tell a lost save from a lost answer). Nothing is
merged then, and its seconds are not counted twice.

The base is the judgement as stored at the base version: the action log keeps every saved state
(:meth:`inexeval.assess.store.Store.save`), so nothing more is stored for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

from inexeval.assess.model import MAX_SECONDS, Judgement, Passage, merge_passages, same_record
from inexeval.assess.store import Conflict

T = TypeVar("T")


class MergeConflict(Conflict):
    """Both sides changed the same value differently; ``fields`` names them (``status``,
    ``best_entry_point``, ``exhaustivity /article[1]/sec[2]``, ...)."""

    def __init__(self, current: Judgement, fields: Sequence[str]):
        super().__init__(current)
        self.fields = list(fields)


def union(a: Sequence[Passage], b: Sequence[Passage]) -> tuple[Passage, ...]:
    """The characters of ``a`` or ``b`` as sorted, merged passages."""
    return merge_passages([*a, *b])


def subtract(a: Sequence[Passage], b: Sequence[Passage]) -> tuple[Passage, ...]:
    """The characters of ``a`` not in ``b`` as sorted, merged passages."""
    left = list(merge_passages(tuple(a)))
    for cut_start, cut_end in merge_passages(tuple(b)):
        kept: list[Passage] = []
        for start, end in left:
            if end <= cut_start or start >= cut_end:
                kept.append((start, end))
                continue
            if start < cut_start:
                kept.append((start, cut_start))
            if end > cut_end:
                kept.append((cut_end, end))
        left = kept
    return merge_passages(left)


def merge_passage_sets(base: Sequence[Passage], mine: Sequence[Passage],
                       theirs: Sequence[Passage]) -> tuple[Passage, ...]:
    """``(theirs ∪ (mine − base)) − (base − mine)``, characters as sets."""
    added, removed = subtract(mine, base), subtract(base, mine)
    return subtract(union(theirs, added), removed)


def _scalar(name: str, base: T, mine: T, theirs: T, conflicts: list[str]) -> T:
    if mine == base or mine == theirs:
        return theirs
    if theirs == base:
        return mine
    conflicts.append(name)
    return theirs


def _mapping(name: str, base: Mapping[str, str], mine: Mapping[str, str],
             theirs: Mapping[str, str], conflicts: list[str]) -> dict[str, str]:
    merged: dict[str, str] = {}
    for key in sorted({*base, *mine, *theirs}):
        value = _scalar(f"{name} {key}", base.get(key), mine.get(key), theirs.get(key),
                        conflicts)
        if value is not None:
            merged[key] = value
    return merged


def _inside(point: int | None, passages: Sequence[Passage]) -> int | None:
    """A merged best entry point kept where it lies in a passage; outside every passage (the
    passage it was in taken away by one side) it moves to the start of the next passage, else
    of the last one; with no passage left there is none."""
    if point is None or not passages:
        return None
    if any(start <= point < end for start, end in passages):
        return point
    return next((start for start, _ in passages if start > point), passages[-1][0])


def three_way(base: Judgement, mine: Judgement, theirs: Judgement) -> Judgement:
    """``mine``'s change since ``base`` applied to ``theirs`` (see the module docs); raises
    :class:`MergeConflict` (with ``theirs`` as the current judgement) on a true conflict."""
    if same_record(mine, theirs):
        return theirs
    conflicts: list[str] = []
    passages = merge_passage_sets(base.passages, mine.passages, theirs.passages)
    best = _scalar("best_entry_point", base.best_entry_point, mine.best_entry_point,
                   theirs.best_entry_point, conflicts)
    exhaustivity = _mapping("exhaustivity", base.exhaustivity, mine.exhaustivity,
                            theirs.exhaustivity, conflicts)
    values = _mapping("values", base.values, mine.values, theirs.values, conflicts)
    if conflicts:
        raise MergeConflict(theirs, conflicts)
    best = _inside(best, passages)
    if mine.status == base.status or mine.status == theirs.status:
        status = theirs.status
    elif theirs.status == base.status:
        status = mine.status
    else:
        status = "in-progress"
    content = (passages, best, exhaustivity, values)
    if status == "done" and mine.status == "done" and content != (
            merge_passages(mine.passages), mine.best_entry_point, dict(mine.exhaustivity),
            dict(mine.values)):
        status = "in-progress"
    seconds = min(MAX_SECONDS, theirs.seconds + max(0.0, mine.seconds - base.seconds))
    return replace(theirs, status=status, passages=passages, best_entry_point=best,
                   exhaustivity=exhaustivity, values=values, seconds=seconds)
