"""The consistency rules of assessment: pure functions over one judgement and its document.

The store calls :func:`apply` on every save and the HTTP API exposes :func:`problems` and
:func:`implicit_values` to the browser interface, so both use this one module.

Two kinds of findings:

* :func:`validate` – errors that make a saved judgement meaningless whatever its status: an
  offset outside the document, a passage whose end is not after its start, a path that is not an
  element of the document, a value that is not on the mode's scale. A save with any is refused.
* :func:`problems` – what keeps a document from being ``done``:

  - passages mode (INEX 2006-2010): a relevant document has a best entry point, a document
    with nothing highlighted has none; exhaustivity is not asked (and refused).
  - highlight mode (INEX 2005-2008, Pehcevski 2006; Piwowarski et al.): every element that holds
    highlighted text has an exhaustivity (``2``, ``1`` or ``?`` for too small), no element
    without highlighted text has one, and a relevant document has a best entry point. A done
    document with nothing highlighted is non-relevant (and then has no best entry point).
  - 2002 mode (Kazai et al., INEX 2002, §4.4 and §5.1): relevance 0 goes with coverage N and
    coverage N with relevance 0; a too small (S) component cannot be highly relevant (3S); an
    element is at least as relevant as any judged descendant; a judged element above a component
    of exact (E) or too large (L) coverage has coverage L; every pooled element of the document
    has a value, explicit or implicit.
  - 2003 mode (INEX 2003/2004): exhaustivity 0 goes with specificity 0 and back; an element is at
    least as exhaustive as any judged descendant; every ancestor of a relevant element is judged
    (its specificity cannot be deduced); every pooled element has a value, explicit or implicit.

Implicit values (:func:`implicit_values`): below an element judged non-relevant (``0N``,
``E0S0``) everything is non-relevant; in 2002 mode an unjudged ancestor of judged elements takes
the highest relevance among its children and coverage L (N when that relevance is 0), as
:mod:`inexeval.collection.implicit` derives them for evaluation.

A change to a done document makes it in-progress again (:func:`apply`); marking it done is then
a request of its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from inexeval.assess.model import (
    EXHAUSTIVITY_VALUES,
    MAX_SECONDS,
    MODES,
    STATUSES,
    Judgement,
    merge_passages,
)
from inexeval.collection.paths import ancestors, is_ancestor_or_self

_CODE_2002 = re.compile(r"^([0-3])([NSLE])$")
_CODE_2003 = re.compile(r"^E([0-3])S([0-3])$")
NON_RELEVANT = {"2002": "0N", "2003": "E0S0"}


class RuleViolation(ValueError):
    """A judgement that breaks the rules; ``messages`` says what, one readable line each."""

    def __init__(self, messages: Sequence[str]):
        super().__init__("; ".join(messages))
        self.messages = list(messages)


@dataclass(frozen=True)
class Structure:
    """A document as the rules see it: its text length and its elements ``(path, start, end)``
    in document order (ends exclusive, code point offsets)."""

    length: int
    elements: tuple[tuple[str, int, int], ...]

    def paths(self) -> dict[str, tuple[int, int]]:
        return {path: (start, end) for path, start, end in self.elements}


def holding(structure: Structure, passages: Sequence[tuple[int, int]]) -> list[str]:
    """The elements (in document order) whose text intersects a highlighted passage."""
    return [path for path, start, end in structure.elements
            if any(s < end and start < e for s, e in passages)]


def validate(j: Judgement, structure: Structure, mode: str) -> list[str]:
    """Errors that refuse a save whatever the status (see the module docstring)."""
    errors: list[str] = []
    if mode not in MODES:
        errors.append(f"unknown mode {mode!r}")
    if j.status not in STATUSES:
        errors.append(f"status {j.status!r} is not one of {', '.join(STATUSES)}")
    for start, end in j.passages:
        if end <= start:
            errors.append(f"passage [{start}, {end}] does not end after it starts")
        elif start < 0 or end > structure.length:
            errors.append(f"passage [{start}, {end}] is outside the document "
                          f"(0 to {structure.length})")
    point = j.best_entry_point
    if point is not None and not 0 <= point < max(structure.length, 1):
        errors.append(f"best entry point {point} is outside the document "
                      f"(0 to {structure.length - 1})")
    if not (math.isfinite(j.seconds) and 0 <= j.seconds <= MAX_SECONDS):
        errors.append(f"seconds {j.seconds} is not a number of seconds from 0 to "
                      f"{MAX_SECONDS:.0f}")
    known = structure.paths()
    for field, values in (("exhaustivity", j.exhaustivity), ("values", j.values)):
        for path, code in values.items():
            if path not in known:
                errors.append(f"{field}: {path} is not an element of the document")
            elif not on_scale(mode, field, code):
                errors.append(f"{field}: {code!r} for {path} is not on the {mode} scale")
    return errors


def on_scale(mode: str, field: str, code: object) -> bool:
    """Whether ``code`` is a value of ``field`` (``exhaustivity`` or ``values``) in ``mode``:
    exhaustivity only in highlight mode, values only in 2002 and 2003 modes."""
    if not isinstance(code, str):
        return False
    if field == "exhaustivity":
        return mode == "highlight" and code in EXHAUSTIVITY_VALUES
    pattern = {"2002": _CODE_2002, "2003": _CODE_2003}.get(mode)
    return pattern is not None and pattern.match(code) is not None


def problems(j: Judgement, structure: Structure, mode: str,
             pooled: Sequence[str] = ()) -> list[str]:
    """What keeps the judgement from being ``done`` (empty when it may be); ``pooled`` are the
    pooled elements of the document (an article pool has none)."""
    if mode == "passages":
        return _problems_best_entry_point(j)
    if mode == "highlight":
        return _problems_highlight(j, structure)
    return _problems_graded(j, structure, mode, pooled)


def _problems_highlight(j: Judgement, structure: Structure) -> list[str]:
    found = []
    held = holding(structure, j.passages)
    held_set = set(held)
    for path in held:
        if path not in j.exhaustivity:
            found.append(f"{path} holds highlighted text but has no exhaustivity")
    for path in j.exhaustivity:
        if path not in held_set:
            found.append(f"{path} has an exhaustivity but holds no highlighted text")
    return found + _problems_best_entry_point(j)


def _problems_best_entry_point(j: Judgement) -> list[str]:
    """A relevant document has a best entry point, one with nothing highlighted none."""
    found = []
    if j.passages and j.best_entry_point is None:
        found.append("a relevant document needs a best entry point")
    if not j.passages and j.best_entry_point is not None:
        found.append("a best entry point on a document with nothing highlighted")
    return found


def _grades(mode: str, code: str) -> tuple[int, str]:
    """(relevance or exhaustivity, coverage letter or specificity digit) of a valid code."""
    match = (_CODE_2002 if mode == "2002" else _CODE_2003).match(code)
    assert match is not None
    return int(match.group(1)), match.group(2)


def _problems_graded(j: Judgement, structure: Structure, mode: str,
                     pooled: Sequence[str]) -> list[str]:
    found = []
    grades = {path: _grades(mode, code) for path, code in j.values.items()}
    for path, (level, other) in grades.items():
        if mode == "2002":
            if (level == 0) != (other == "N"):
                found.append(f"{path}: relevance {level} with coverage {other} (relevance 0 "
                             "goes with coverage N, and only with it)")
            if level == 3 and other == "S":
                found.append(f"{path}: a too small (S) component cannot be highly relevant (3)")
        elif (level == 0) != (other == "0"):
            found.append(f"{path}: exhaustivity {level} with specificity {other} (0 goes with 0)")
    for path, (level, other) in grades.items():
        for above in ancestors(path):
            if above not in grades:
                continue
            above_level, above_other = grades[above]
            if above_level < level:
                found.append(f"{above} ({j.values[above]}) is less "
                             f"{'relevant' if mode == '2002' else 'exhaustive'} than the "
                             f"element it contains, {path} ({j.values[path]})")
            if mode == "2002" and other in "EL" and above_other != "L" and level > 0:
                found.append(f"{above} ({j.values[above]}) contains {path} of coverage {other}, "
                             "so its coverage is too large (L)")
    implicit = implicit_values(j.values, structure, mode)
    if mode == "2003":
        unjudged: dict[str, str] = {}
        for path, (level, _) in grades.items():
            for above in ancestors(path):
                if level > 0 and above not in grades:
                    unjudged.setdefault(above, path)
        found.extend(f"{above} contains the relevant {path} and needs a value"
                     for above, path in unjudged.items())
    for path in pooled:
        if path not in j.values and path not in implicit:
            found.append(f"pooled element {path} has no value")
    return list(dict.fromkeys(found))


def implicit_values(values: Mapping[str, str], structure: Structure, mode: str) -> dict[str, str]:
    """Values deduced for elements not judged explicitly (see the module docstring)."""
    if mode not in NON_RELEVANT:
        return {}
    zero = NON_RELEVANT[mode]
    deduced: dict[str, str] = {}
    roots = [path for path, code in values.items() if code == zero]
    for path, _, _ in structure.elements:
        if path not in values and any(is_ancestor_or_self(root, path) for root in roots):
            deduced[path] = zero
    if mode == "2002":
        order = {path: i for i, (path, _, _) in enumerate(structure.elements)}
        best: dict[str, int] = {}
        # deepest first, so each ancestor sees the final level of its children
        for path in sorted(values, key=lambda p: -p.count("/")):
            level = _grades(mode, values[path])[0] if _CODE_2002.match(values[path]) else 0
            for above in ancestors(path):
                if above in values or above not in order:
                    break
                best[above] = max(best.get(above, 0), level)
        for path, level in best.items():
            deduced[path] = f"{level}L" if level > 0 else "0N"
    return deduced


def apply(before: Judgement, requested: Judgement, structure: Structure, mode: str,
          pooled: Sequence[str] = ()) -> Judgement:
    """The judgement to store when ``requested`` replaces ``before``: passages merged, the
    status as requested except that a change to a done document makes it in-progress again
    and a change to an unseen one makes it in-progress. Raises :class:`RuleViolation` when the
    request has errors (:func:`validate`) or asks for done while :func:`problems` finds some."""
    errors = validate(requested, structure, mode)
    if errors:
        raise RuleViolation(errors)
    result = replace(requested, passages=merge_passages(requested.passages))
    changed = _content(result) != _content(before)
    status = result.status
    if changed and (status == "unseen" or status == "done" and before.status == "done"):
        status = "in-progress"
    result = replace(result, status=status)
    if status == "done":
        found = problems(result, structure, mode, pooled)
        if found:
            raise RuleViolation([f"cannot be done: {p}" for p in found])
    return result


def _content(j: Judgement) -> tuple[object, ...]:
    return (tuple(j.passages), j.best_entry_point, dict(j.exhaustivity), dict(j.values))
