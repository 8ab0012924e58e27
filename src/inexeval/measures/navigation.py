"""Navigation models of the user-model measures: ``P(k ⇝ x)`` (seed 004 §3.2; spec §6.1).

A navigation model says, for each item of a ranked list, with which probability a user who
consults that item reaches each *target* unit (an ideal element for EPRUM/PRUM/T2I, a relevant
unit for GR). An item is a tuple of :class:`Pointer` (one pointer for a plain run, several for a
Fetch & Browse item grouping the results of one document); the model receives the whole item.
Every model returns a :class:`Reach`: sparse ``(rank, target, probability)`` triples in rank
order, probabilities in ``(0, 1]``.

Built-in models:

* ``classical`` - an item reaches exactly the units it points to (classical IR, seed 004 §3.3).
* ``hierarchical`` - seed 004 §7: from pointer ``x`` the user reaches ``x`` with probability 1,
  an ancestor ``y`` with ``len(x)/len(y)`` and a descendant ``y`` with ``len(y)/len(x)``.
* ``t2i`` - tolerance to irrelevance (spec §6.5): from the pointer's start offset the user reads
  on in document order and reaches the first target that starts within ``tolerance`` characters.
* :class:`CustomNavigation` - ``from -> to probability`` rows (:func:`parse_navigation`), or
  :class:`CallableNavigation` wrapping a Python function of the item.

Pointers of one item are followed independently, so for the built-in and row models an item
reaches a target with the noisy-or of its pointers' probabilities [D].
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from inexeval.collection.paths import ancestors, canonical_path
from inexeval.errors import InexevalError, shown
from inexeval.model import TopicAssessments, TopicRun


class Pointer(NamedTuple):
    """A pointer into the collection: an element (``path``), a whole document (``path == ""``
    and ``offset == -1``) or a passage (``offset``/``length`` in characters, empty path)."""

    file: str
    path: str
    offset: int = -1
    length: int = -1


Item = tuple[Pointer, ...]
"""One list item: the pointer(s) one rank of the list gives."""


@dataclass(frozen=True)
class Reach:
    """Sparse ``P(k ⇝ x)``: parallel arrays of 0-based ranks, target positions and
    probabilities, sorted by rank, every probability in ``(0, 1]``."""

    ranks: npt.NDArray[np.int64]
    targets: npt.NDArray[np.int64]
    probs: npt.NDArray[np.float64]

    @staticmethod
    def from_entries(entries: Iterable[tuple[int, int, float]]) -> Reach:
        rows = sorted(e for e in entries if e[2] > 0.0)
        return Reach(
            np.array([r[0] for r in rows], dtype=np.int64),
            np.array([r[1] for r in rows], dtype=np.int64),
            np.array([r[2] for r in rows], dtype=np.float64),
        )


@dataclass
class Geometry:
    """Lengths and spans of units, from the collection index when it holds the document, else
    from the assessments (``size`` of judged elements for the inex2005 scale, ``length`` of whole
    documents for FOL qrels). Unknown values are None."""

    collection: Any = None
    assessments: TopicAssessments | None = None
    _sizes: dict[tuple[str, str], float] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        ta = self.assessments
        if ta is None:
            return
        for dim in ("size", "length"):
            if dim in ta.dims:
                for f, p, v in zip(ta.files.tolist(), ta.paths.tolist(), ta.dims[dim].tolist()):
                    if not math.isnan(v) and (dim == "size" or p == ""):
                        self._sizes.setdefault((f, p), float(v))

    def span(self, file: str, path: str) -> tuple[int, int] | None:
        doc = None if self.collection is None else self.collection.get(file)
        if doc is None:
            return None
        if path == "":
            return (0, int(doc.length))
        return doc.span(path)  # type: ignore[no-any-return]

    def length(self, file: str, path: str) -> float | None:
        span = self.span(file, path)
        if span is not None:
            return float(span[1] - span[0])
        return self._sizes.get((file, path))

    def absent(self, file: str, path: str) -> bool:
        """True when the collection holds the document but not this element, and the
        assessments give it no size: a result that points at no text (spec §9.4)."""
        doc = None if self.collection is None else self.collection.get(file)
        return (doc is not None and path != "" and doc.span(path) is None
                and (file, path) not in self._sizes)


class NavigationModel(Protocol):
    """``reach(items, targets, geometry, lines)`` -> :class:`Reach`; ``lines`` gives the run
    line of each item (None when the list is not a run) for error messages."""

    @property
    def name(self) -> str: ...

    def reach(self, items: Sequence[Item], targets: Sequence[Pointer], geometry: Geometry,
              lines: Sequence[int | None]) -> Reach: ...


def _noisy_or(found: dict[tuple[int, int], float], rank: int, target: int, p: float) -> None:
    old = found.get((rank, target), 0.0)
    found[(rank, target)] = 1.0 - (1.0 - old) * (1.0 - p)


def _where(lines: Sequence[int | None], rank: int) -> str:
    line = lines[rank] if rank < len(lines) else None
    return f"rank {rank + 1}" + ("" if line is None else f" (run line {line})")


class ClassicalNavigation:
    """Classical IR: an item reaches the units it points to, nothing else (seed 004 §3.3)."""

    name = "classical"

    def reach(self, items: Sequence[Item], targets: Sequence[Pointer], geometry: Geometry,
              lines: Sequence[int | None]) -> Reach:
        where = {(t.file, t.path): i for i, t in enumerate(targets)}
        found = {(k, where[(p.file, p.path)]): 1.0 for k, item in enumerate(items)
                 for p in item if p.offset < 0 and (p.file, p.path) in where}
        return Reach.from_entries((k, x, v) for (k, x), v in found.items())


class HierarchicalNavigation:
    """Seed 004 §7 (and seed 002's PRUM): ancestors with ``len(x)/len(y)``, descendants with
    ``len(y)/len(x)``, the pointed element with 1; lengths in characters from the collection
    index, else from the assessment sizes. A whole document (empty path) is the ancestor of
    every element of its file. Passage pointers are not supported by this model."""

    name = "hierarchical"

    def reach(self, items: Sequence[Item], targets: Sequence[Pointer], geometry: Geometry,
              lines: Sequence[int | None]) -> Reach:
        by_file: dict[str, tuple[list[str], list[int]]] = {}
        for i, t in sorted(enumerate(targets), key=lambda e: (e[1].file, e[1].path)):
            paths, positions = by_file.setdefault(t.file, ([], []))
            paths.append(t.path)
            positions.append(i)
        found: dict[tuple[int, int], float] = {}
        for k, item in enumerate(items):
            for pointer in item:
                if pointer.file not in by_file:
                    continue
                if pointer.offset >= 0:
                    raise InexevalError(
                        f"{_where(lines, k)}: the hierarchical model needs element or document "
                        "results, not passages")
                paths, positions = by_file[pointer.file]
                path = pointer.path
                if geometry.absent(pointer.file, path):
                    # No text: the user reaches nothing by browsing from it (seed 004 §7).
                    j = bisect.bisect_left(paths, path)
                    if j < len(paths) and paths[j] == path:
                        _noisy_or(found, k, positions[j], 1.0)
                    continue
                # ancestors-or-self (the document "" included) by exact lookup, descendants as
                # the sorted range of paths that start with path + "/"
                for up in ([path, *ancestors(path), ""] if path else [""]):
                    j = bisect.bisect_left(paths, up)
                    if j < len(paths) and paths[j] == up:
                        p = 1.0 if up == path else self._ratio(geometry, pointer.file, path, up,
                                                               lines, k)
                        _noisy_or(found, k, positions[j], p)
                low = bisect.bisect_left(paths, path + "/")
                high = bisect.bisect_left(paths, path + "0")  # "0" sorts right after "/"
                for j in range(low, high):
                    _noisy_or(found, k, positions[j],
                              self._ratio(geometry, pointer.file, paths[j], path, lines, k))
        return Reach.from_entries((k, x, v) for (k, x), v in found.items())

    @staticmethod
    def _ratio(geometry: Geometry, file: str, inner: str, outer: str,
               lines: Sequence[int | None], k: int) -> float:
        small = geometry.length(file, inner)
        large = geometry.length(file, outer)
        if small is None or large is None:
            missing = inner if small is None else outer
            raise InexevalError(
                f"{_where(lines, k)}: the hierarchical model needs the length of {file} "
                f"{missing or '(whole document)'}; give the collection index")
        p = 1.0 if large == 0 else small / large
        if not 0.0 <= p <= 1.0:
            raise InexevalError(
                f"{_where(lines, k)}: navigation probability {p:g} outside [0, 1]: "
                f"{file} {inner or '(document)'} has {small:g} characters but its ancestor "
                f"{outer or '(document)'} has {large:g}")
        return p


@dataclass(frozen=True)
class T2INavigation:
    """Tolerance to irrelevance (de Vries, Kazai & Lalmas 2004; spec §6.5 [R]): from the start
    offset of a pointer the user reads on in document order and reaches the first target whose
    span ends after that offset, iff at most ``tolerance`` characters precede it. Targets must
    not overlap; spans come from the collection index (whole documents: ``[0, length)``)."""

    tolerance: float
    name: str = "t2i"

    def reach(self, items: Sequence[Item], targets: Sequence[Pointer], geometry: Geometry,
              lines: Sequence[int | None]) -> Reach:
        by_file: dict[str, list[tuple[int, int, int]]] = {}
        for i, t in enumerate(targets):
            span = (t.offset, t.offset + t.length) if t.offset >= 0 else geometry.span(t.file,
                                                                                        t.path)
            if span is None:
                raise InexevalError(f"T2I needs the span of {t.file} {t.path or '(document)'}; "
                                    "give the collection index")
            by_file.setdefault(t.file, []).append((span[1], span[0], i))
        for spans in by_file.values():
            spans.sort()
        found: dict[tuple[int, int], float] = {}
        for k, item in enumerate(items):
            for pointer in item:
                if not by_file.get(pointer.file):
                    continue
                spans = by_file[pointer.file]
                start = pointer.offset if pointer.offset >= 0 else None
                if start is None and geometry.absent(pointer.file, pointer.path):
                    continue
                if start is None:
                    span = geometry.span(pointer.file, pointer.path)
                    if span is None:
                        raise InexevalError(
                            f"{_where(lines, k)}: T2I needs the start of {pointer.file} "
                            f"{pointer.path or '(document)'}; give the collection index")
                    start = span[0]
                j = bisect.bisect_right(spans, (start, np.iinfo(np.int64).max, 0))
                if j < len(spans) and max(0, spans[j][1] - start) <= self.tolerance:
                    found[(k, spans[j][2])] = 1.0
        return Reach.from_entries((k, x, v) for (k, x), v in found.items())


@dataclass(frozen=True)
class CustomNavigation:
    """A model given as rows ``FROM_FILE FROM_PATH TO_FILE TO_PATH PROBABILITY``: from a pointer
    to ``FROM`` the user reaches ``TO`` with that probability; the pointed element itself with 1
    unless a row says otherwise; pairs without a row with 0. Built by :func:`parse_navigation`.
    ``lines`` keeps each row's line for errors; ``validate`` checks every element named against
    the collection index."""

    rows: Mapping[tuple[str, str], Mapping[tuple[str, str], float]]
    lines: Mapping[tuple[tuple[str, str], tuple[str, str]], int]
    source: str | None = None
    name: str = "custom"

    def validate(self, collection: Any) -> None:
        """InexevalError naming the first row whose element is not in ``collection``."""
        for (frm, to), line in sorted(self.lines.items(), key=lambda e: e[1]):
            for file, path in (frm, to):
                doc = collection.get(file)
                if doc is None or (path and doc.find(path) < 0):
                    raise InexevalError(f"navigation row names unknown element {file} {path}",
                                        self.source, line)

    def reach(self, items: Sequence[Item], targets: Sequence[Pointer], geometry: Geometry,
              lines: Sequence[int | None]) -> Reach:
        if geometry.collection is not None:
            self.validate(geometry.collection)
        where = {(t.file, t.path): i for i, t in enumerate(targets)}
        found: dict[tuple[int, int], float] = {}
        for k, item in enumerate(items):
            for pointer in item:
                here = (pointer.file, pointer.path)
                moves = dict(self.rows.get(here, {}))
                moves.setdefault(here, 1.0)
                for to, p in moves.items():
                    if to in where:
                        _noisy_or(found, k, where[to], p)
        return Reach.from_entries((k, x, v) for (k, x), v in found.items())


def parse_navigation(lines: Iterable[str], source: str | None = None) -> CustomNavigation:
    """Read ``FROM_FILE FROM_PATH TO_FILE TO_PATH PROBABILITY`` rows (``#`` starts a comment;
    ``-`` as a path means the whole document). InexevalError with the line for a malformed row,
    a non-canonical path, a probability outside [0, 1] or a duplicated pair."""
    rows: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
    where: dict[tuple[tuple[str, str], tuple[str, str]], int] = {}
    for number, text in enumerate(lines, start=1):
        fields = text.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) != 5:
            raise InexevalError(
                f"expected FROM_FILE FROM_PATH TO_FILE TO_PATH PROBABILITY, got {len(fields)} "
                "fields", source, number)
        try:
            frm = (fields[0], "" if fields[1] == "-" else canonical_path(fields[1]))
            to = (fields[2], "" if fields[3] == "-" else canonical_path(fields[3]))
        except InexevalError as error:
            raise InexevalError(error.reason, source, number) from None
        try:
            p = float(fields[4])
        except ValueError:
            raise InexevalError(f"navigation probability {shown(fields[4])} is not a number",
                                source, number) from None
        if not 0.0 <= p <= 1.0:
            raise InexevalError(f"navigation probability {shown(fields[4])} outside [0, 1]",
                                source, number)
        if (frm, to) in where:
            raise InexevalError(f"pair {shown(' '.join(fields[:4]))} already given on line "
                                f"{where[(frm, to)]}", source, number)
        rows.setdefault(frm, {})[to] = p
        where[(frm, to)] = number
    return CustomNavigation(rows, where, source)


def read_navigation(path: str | Path) -> CustomNavigation:
    """:func:`parse_navigation` on a file, read through :mod:`inexeval.formats.source`
    (compressed, ``-``, not UTF-8 or endless lines are errors with the line); a file without
    any row is an error."""
    from inexeval.formats.source import opened

    lines: list[str] = []
    with opened(path) as source:
        for number, text in source.lines():
            lines.extend([""] * (number - 1 - len(lines)))
            lines.append(text)
        model = parse_navigation(lines, source.name)
    if not model.rows:
        raise InexevalError("the navigation file has no row (FROM_FILE FROM_PATH TO_FILE "
                            "TO_PATH PROBABILITY)", source.name)
    return model


@dataclass(frozen=True)
class CallableNavigation:
    """A model given as ``function(item) -> {(file, path): probability}``; the function decides
    everything, including whether the pointed elements are reached. Probabilities outside [0, 1]
    raise InexevalError naming the rank."""

    function: Callable[[Item], Mapping[tuple[str, str], float]]
    name: str = "callable"

    def reach(self, items: Sequence[Item], targets: Sequence[Pointer], geometry: Geometry,
              lines: Sequence[int | None]) -> Reach:
        where = {(t.file, t.path): i for i, t in enumerate(targets)}
        entries = []
        for k, item in enumerate(items):
            for to, p in self.function(item).items():
                if not 0.0 <= p <= 1.0:
                    raise InexevalError(
                        f"{_where(lines, k)}: navigation probability {p!r} to {to[0]} {to[1]} "
                        "outside [0, 1]")
                if to in where:
                    entries.append((k, where[to], float(p)))
        return Reach.from_entries(entries)


def items_of(run: TopicRun, grouping: str) -> tuple[list[Item], list[int | None]]:
    """The list items of a run in its current order, with the run line of each: one item per
    result (``grouping="result"``) or per maximal stretch of consecutive results of one document
    (``"document"``, a Fetch & Browse / in-context item; the line is that of its first result)."""
    files = run.files.tolist()
    pointers = [Pointer(f, p, int(o), int(n)) for f, p, o, n in
                zip(files, run.paths.tolist(), run.offsets.tolist(), run.lengths.tolist())]
    lines: list[int | None] = [int(x) for x in run.lines.tolist()]
    if grouping == "result":
        return [(p,) for p in pointers], lines
    items: list[Item] = []
    item_lines: list[int | None] = []
    for i, pointer in enumerate(pointers):
        if i and files[i] == files[i - 1]:
            items[-1] = (*items[-1], pointer)
        else:
            items.append((pointer,))
            item_lines.append(lines[i])
    return items, item_lines


def hitting_probability(moves: Mapping[str, Mapping[str, float]], start: str,
                        targets: Iterable[str]) -> float:
    """Probability that a user who starts at ``start`` and, at each node ``u``, moves on to
    ``v`` with probability ``moves[u][v]`` (and stops with the rest) ever reaches one of
    ``targets``: how seed 004 §3.2 summarises observed multi-step navigation into one
    ``P(k ⇝ x)`` (Fig. 2: 0.536 and 0.7). Solves the first-step equations
    ``h(u) = Σ_v moves[u][v] · h(v)``, ``h = 1`` on the targets."""
    goal = set(targets)
    nodes = sorted({start, *goal, *moves, *(v for out in moves.values() for v in out)})
    at = {node: i for i, node in enumerate(nodes)}
    system = np.eye(len(nodes))
    rhs = np.zeros(len(nodes))
    for node in nodes:
        out = moves.get(node, {})
        if any(not 0.0 <= p <= 1.0 for p in out.values()) or sum(out.values()) > 1.0 + 1e-12:
            raise InexevalError(f"moves from {node!r} are not probabilities summing to at most 1")
        if node in goal:
            rhs[at[node]] = 1.0
            continue
        for v, p in out.items():
            system[at[node], at[v]] -= p
    try:
        return float(np.linalg.solve(system, rhs)[at[start]])
    except np.linalg.LinAlgError:
        raise InexevalError("the moves form a cycle the user never leaves") from None
