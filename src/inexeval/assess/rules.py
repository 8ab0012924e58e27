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
  - highlight mode (INEX 2005, the relevance assessment guide of Lalmas and Piwowarski as X-Rai
    enforced it; Pehcevski 2006): every element that holds highlighted text has an exhaustivity
    (``2``, ``1`` or ``?`` for too small, the lowest), no element without highlighted text has
    one, an element is at least as exhaustive as any element inside it, an element holding a
    whole highlighted passage is not too small, and a relevant document has a best entry point.
    A done document with nothing highlighted is non-relevant (and then has no best entry
    point). Inline elements (:mod:`inexeval.assess.names`) are never asked: they are ``?``.
    How one change of the assessor resets the values it makes inconsistent and infers those the
    rules force is :func:`settle` (the document page runs the same rules, ``static/rules.js``).
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
from bisect import bisect_left
from collections import deque
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
from inexeval.collection.paths import ancestors, is_ancestor_or_self, parent

_CODE_2002 = re.compile(r"^([0-3])([NSLE])$")
_CODE_2003 = re.compile(r"^E([0-3])S([0-3])$")
NON_RELEVANT = {"2002": "0N", "2003": "E0S0"}


MAX_PASSAGES = 1000
"""Most passages (once merged) of one judgement: far above an assessor's (a few per article),
low enough that no save, check or read costs a noticeable time."""


class RuleViolation(ValueError):
    """A judgement that breaks the rules; ``messages`` says what, one readable line each."""

    def __init__(self, messages: Sequence[str]):
        super().__init__("; ".join(messages))
        self.messages = list(messages)


@dataclass(frozen=True)
class Structure:
    """A document as the rules see it: its text length and its elements ``(path, start, end)``
    in document order (ends exclusive, code point offsets), and which of them are inline."""

    length: int
    elements: tuple[tuple[str, int, int], ...]
    inline: frozenset[str] = frozenset()
    """Elements never asked for an exhaustivity in highlight mode (:mod:`inexeval.assess.names`)."""

    def paths(self) -> dict[str, tuple[int, int]]:
        return {path: (start, end) for path, start, end in self.elements}


def holding(structure: Structure, passages: Sequence[tuple[int, int]]) -> list[str]:
    """The elements (in document order) whose text intersects a highlighted passage (an empty
    element, such as an image, holds no text: as ``judge.js`` counts them). The passages are
    merged first; then an element holds text when the last passage starting before its end
    ends after its start (sorted merged passages end in order): O((E + P) log P)."""
    merged = merge_passages(passages)
    starts = [s for s, _ in merged]
    found = []
    for path, start, end in structure.elements:
        last = bisect_left(starts, end) - 1
        if start < end and last >= 0 and merged[last][1] > start:
            found.append(path)
    return found


def validate(j: Judgement, structure: Structure, mode: str) -> list[str]:
    """Errors that refuse a save whatever the status (see the module docstring)."""
    errors: list[str] = []
    if mode not in MODES:
        errors.append(f"unknown mode {mode!r}")
    if j.status not in STATUSES:
        errors.append(f"status {j.status!r} is not one of {', '.join(STATUSES)}")
    if len(j.passages) > MAX_PASSAGES and len(merge_passages(j.passages)) > MAX_PASSAGES:
        errors.append(f"{len(merge_passages(j.passages))} passages once merged: at most "
                      f"{MAX_PASSAGES} are kept per document")
        return errors
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
    j = replace(j, passages=merge_passages(j.passages))
    found = []
    held = holding(structure, j.passages)
    held_set = set(held)
    for path in held:  # an inline element is never asked (its value, if any, is "?")
        if path not in j.exhaustivity and path not in structure.inline:
            found.append(f"{path} holds highlighted text but has no exhaustivity")
    for path in j.exhaustivity:
        if path not in held_set:
            found.append(f"{path} has an exhaustivity but holds no highlighted text")
    spans = structure.paths()
    for path, code in j.exhaustivity.items():
        if code == TOO_SMALL and path in spans and path not in structure.inline:
            whole = whole_passage(spans[path], j.passages)
            if whole is not None:
                found.append(_cannot_be_too_small(path, whole))
    for path, code in j.exhaustivity.items():
        for above in ancestors(path):
            if above in j.exhaustivity and _rank(j.exhaustivity[above]) < _rank(code):
                found.append(f"{above} ({j.exhaustivity[above]}) is less exhaustive than "
                             f"{path} ({code}) inside it")
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
    request has errors (:func:`validate`), changes a value the 2005 rules refuse (highlight mode,
    :func:`refusals`) or asks for done while :func:`problems` finds some. It saves the
    exhaustivity as requested: the resets and inferences of :func:`settle` are the page's (and
    ``POST .../check``'s) answer to one change, so that undo can bring back any saved state."""
    errors = validate(requested, structure, mode)
    if errors:
        raise RuleViolation(errors)
    result = replace(requested, passages=merge_passages(requested.passages))
    if mode == "highlight":
        refused = refusals(before.exhaustivity, result.exhaustivity, structure, result.passages)
        if refused:
            raise RuleViolation(refused)
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


# -- highlight mode: the INEX 2005 rules as X-Rai enforced them ----------------------------------

TOO_SMALL = "?"
HIGHEST = "2"
_RANKS = {TOO_SMALL: 0, "1": 1, HIGHEST: 2}


def _rank(code: str | None) -> int:
    """Exhaustivity in order: unknown (-1) < too small < 1 < 2."""
    return -1 if code is None else _RANKS.get(code, -1)


def whole_passage(span: tuple[int, int], passages: Sequence[tuple[int, int]],
                  ) -> tuple[int, int] | None:
    """The first highlighted passage that lies wholly inside ``span``, or None; ``passages``
    sorted and merged (:func:`inexeval.assess.model.merge_passages`, as every judgement's are
    before a rule runs): the first one starting in ``span`` ends first, O(log P)."""
    start, end = span
    first = bisect_left(passages, (start, -1))
    if first < len(passages) and passages[first][1] <= end:
        return passages[first][0], passages[first][1]
    return None


def _cannot_be_too_small(path: str, passage: tuple[int, int]) -> str:
    return (f"{path} contains the whole highlighted passage [{passage[0]}, {passage[1]}), "
            "so it cannot be too small (?)")


@dataclass(frozen=True)
class Reset:
    """A value a change made inconsistent: ``path`` had ``before`` and now has ``after`` (None:
    unknown again, to be assessed anew; a value: the one the rules now force)."""

    path: str
    before: str
    after: str | None
    reason: str

    def to_api(self) -> dict[str, str | None]:
        return {"path": self.path, "before": self.before, "after": self.after,
                "reason": self.reason}


@dataclass(frozen=True)
class Settled:
    """What the 2005 rules make of a change: the exhaustivity to save, the values the change
    reset (in the order they were reset) and the inferred values (path: what forces it, the
    empty string for an inline element)."""

    exhaustivity: dict[str, str]
    resets: tuple[Reset, ...]
    inferred: dict[str, str]


def refusals(before: Mapping[str, str], requested: Mapping[str, str], structure: Structure,
             passages: Sequence[tuple[int, int]]) -> list[str]:
    """The changed values the 2005 rules refuse: too small (``?``) for an element that holds a
    whole highlighted passage (X-Rai disabled the button; an inline element, never asked, is
    too small whatever it holds)."""
    spans = structure.paths()
    found = []
    for path, code in requested.items():
        if before.get(path) == code or path not in spans or path in structure.inline:
            continue
        if code == TOO_SMALL:
            whole = whole_passage(spans[path], passages)
            if whole is not None:
                found.append(_cannot_be_too_small(path, whole))
    return found


def settle(before: Mapping[str, str], requested: Mapping[str, str], structure: Structure,
           passages: Sequence[tuple[int, int]]) -> Settled:
    """The exhaustivity after an assessor's change from ``before`` to ``requested`` (with the
    highlighted ``passages`` of after the change), by the rules of the INEX 2005 assessment
    guide (Lalmas and Piwowarski, section 5.4) as X-Rai applied them; ``?`` (too small) is the
    lowest value, and a parent is at least as exhaustive as any child:

    1. a value the change refuses (:func:`refusals`) raises :class:`RuleViolation`;
    2. a kept value of an element that holds no highlighted text any more is reset, and so is a
       kept ``?`` of an element that now holds a whole passage;
    3. an element given ``?`` makes every element inside it ``?`` (other values there are
       reset); one changed from ``?`` to another value resets the ``?`` inside it;
    4. an element given ``1`` resets the ``2`` inside it and the ``?`` above it; one given ``2``
       makes every element above it ``2``;
    5. a value lowered below the value of an element above it that no other element inside
       supports any more resets that element, unless the change gave it that value (and so on
       upwards: the guide's example, a section ``2`` whose only paragraph goes from ``2`` to
       ``1`` is reset);
    6. inferred: ``2`` above a ``2``, ``?`` inside a ``?``, and ``?`` for an inline element
       holding highlighted text.

    Values are compared in document order of the changed elements; applying ``settle`` to its
    own result changes nothing.
    """
    passages = merge_passages(passages)
    errors = refusals(before, requested, structure, passages)
    if errors:
        raise RuleViolation(errors)
    spans = structure.paths()
    order = {path: i for i, (path, _, _) in enumerate(structure.elements)}
    held = [path for path in holding(structure, passages)]
    held_set = set(held)
    values = {path: code for path, code in requested.items() if path in spans}
    resets: dict[str, Reset] = {}
    changed = sorted({p for p in (*before, *requested) if p in spans
                      and before.get(p) != requested.get(p)}, key=order.__getitem__)
    changed_set = set(changed)
    # every change, the assessor's and then the rules' own, goes through the same rules
    work = deque((path, before.get(path), values.get(path)) for path in changed)

    def reset(path: str, reason: str, after: str | None = None) -> None:
        old = values.pop(path)
        if after is not None:
            values[path] = after
        first = resets.pop(path, None)
        resets[path] = Reset(path, first.before if first else old, after, reason)
        work.append((path, old, after))

    def inside(path: str) -> list[str]:
        return [d for d in sorted(values, key=order.__getitem__)
                if d != path and is_ancestor_or_self(path, d)]

    for path in sorted(values, key=order.__getitem__):
        if path in changed_set:
            continue
        if path not in held_set:
            reset(path, f"{path} holds no highlighted text any more")
        elif values[path] == TOO_SMALL and path not in structure.inline:
            whole = whole_passage(spans[path], passages)
            if whole is not None:
                reset(path, f"{path} now contains the whole highlighted passage "
                            f"[{whole[0]}, {whole[1]}), so it cannot be too small (?)")
    steps = 0
    while work:
        path, old, new = work.popleft()
        steps += 1
        if values.get(path) != new or steps > 8 * len(order) + 8:
            continue  # changed again since (the later change is queued), or a runaway
        if new == TOO_SMALL:
            for below in inside(path):
                if values[below] != TOO_SMALL:
                    reset(below, f"{path} is too small, so everything inside it is", TOO_SMALL)
        elif old == TOO_SMALL:
            for below in inside(path):
                if values[below] == TOO_SMALL and below not in structure.inline:
                    reset(below, f"{path} is no longer too small: assess what is inside it anew")
        if new == "1":
            for below in inside(path):
                if _rank(values[below]) > _rank(new):
                    reset(below, f"{path} is now 1, less than this element inside it")
            for above in ancestors(path):
                if values.get(above) == TOO_SMALL:
                    reset(above, f"{path} inside it is now 1, more than too small")
        elif new == HIGHEST:
            for above in ancestors(path):
                if above in values and values[above] != HIGHEST:
                    reset(above, f"{path} inside it is now 2", HIGHEST)
        if _rank(new) >= _rank(old):
            continue
        for above in ancestors(path):
            code = values.get(above)
            if code is None or code == TOO_SMALL or above in structure.inline \
                    or above in changed_set or not _rank(old) >= _rank(code) > _rank(new):
                continue
            if not any(_rank(values[d]) >= _rank(code) for d in inside(above)):
                reset(above, f"{path} inside it was its only support for {code} and is now "
                             f"{new or 'unknown'}")
    inferred = _fill(values, structure, held, order)
    return Settled(values, tuple(resets.values()), inferred)


def _fill(values: dict[str, str], structure: Structure, held: Sequence[str],
          order: Mapping[str, int]) -> dict[str, str]:
    """Add the values the rules force to ``values`` (in place); returns every inferred value's
    cause (see :func:`inferred`)."""
    for path in held:
        if path in structure.inline and path not in values:
            values[path] = TOO_SMALL
    for path in [p for p in held if values.get(p) == HIGHEST]:
        for above in ancestors(path):
            if above in order and above not in values:
                values[above] = HIGHEST
    small = [p for p in held if values.get(p) == TOO_SMALL]
    for path in held:
        if path not in values and any(is_ancestor_or_self(s, path) for s in small):
            values[path] = TOO_SMALL
    return inferred(values, structure, held)


def inferred(exhaustivity: Mapping[str, str], structure: Structure,
             held: Sequence[str]) -> dict[str, str]:
    """The values the 2005 rules force, each with its cause: ``2`` of an element holding an
    element of ``2`` (the nearest such), ``?`` of an element inside a ``?`` (the nearest), and
    ``?`` of an inline element (cause ``""``); ``held`` are the elements holding highlighted
    text, in document order."""
    causes: dict[str, str] = {}
    position = {path: at for at, path in enumerate(held)}
    for path in held:
        code = exhaustivity.get(path)
        if code is None:
            continue
        if path in structure.inline and code == TOO_SMALL:
            causes[path] = ""
        elif code == HIGHEST:
            # the elements inside an element follow it in document order: its subtree only
            at = position[path] + 1
            while at < len(held) and is_ancestor_or_self(path, held[at]):
                if exhaustivity.get(held[at]) == HIGHEST:
                    causes[path] = held[at]
                    break
                at += 1
        elif code == TOO_SMALL:
            above = next((a for a in ancestors(path) if exhaustivity.get(a) == TOO_SMALL), None)
            if above is not None:
                causes[path] = above
    return causes


def too_small_rest(exhaustivity: Mapping[str, str], structure: Structure,
                   passages: Sequence[tuple[int, int]], path: str) -> tuple[dict[str, str], list[str]]:
    """X-Rai's "assess the remaining children as too small": ``?`` for every child of ``path``
    that holds highlighted text and has no value yet, except those holding a whole passage
    (which cannot be too small). Returns the requested exhaustivity (to :func:`settle`) and
    the children left out."""
    passages = merge_passages(passages)
    spans = structure.paths()
    held = holding(structure, passages)
    requested = dict(exhaustivity)
    skipped = []
    for child in held:
        if parent(child) != path or child in exhaustivity or child in structure.inline:
            continue
        if whole_passage(spans[child], passages) is not None:
            skipped.append(child)
        else:
            requested[child] = TOO_SMALL
    return requested, skipped
