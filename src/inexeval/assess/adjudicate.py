"""Adjudication of two assessors' judgements of a topic (issue 22), as INCEpTION's curation view
does it for two annotators: the documents where they disagree, and the organiser's choice of A,
B, their union, their intersection or an edit of them, stored as the topic's adjudicated
judgement (assessor :data:`~inexeval.assess.store.ADJUDICATED`).

Two done judgements of a document disagree when one is relevant and the other not, or, both
relevant, when the character F1 of their highlighted text (``2 |A ∩ B| / (|A| + |B|)``, the
``f1`` of ``inexeval agree --judgements`` for one article) is below a threshold
(:data:`THRESHOLD` unless given); in the 2002/2003 modes, when their element values differ.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inexeval.assess.model import Judgement, Passage, merge_passages
from inexeval.assess.names import MIN_ELEMENT_CHARS, inline_elements
from inexeval.assess.store import ADJUDICATED, Store
from inexeval.errors import InexevalError

THRESHOLD = 0.8
"""Both relevant, two judgements whose character F1 is below this disagree."""
CHOICES = ("a", "b", "union", "intersection", "edit")
HIGHLIGHTING_MODES = ("passages", "highlight")


class AdjudicationError(InexevalError):
    """A choice the adjudication refuses (unknown assessor, bad passages, ...)."""


def intersection(a: Sequence[Passage], b: Sequence[Passage]) -> tuple[Passage, ...]:
    """The characters highlighted in both, as sorted, merged passages."""
    first, second = merge_passages(list(a)), merge_passages(list(b))
    found: list[Passage] = []
    i = j = 0
    while i < len(first) and j < len(second):
        start, end = max(first[i][0], second[j][0]), min(first[i][1], second[j][1])
        if start < end:
            found.append((start, end))
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return merge_passages(found)


def union(a: Sequence[Passage], b: Sequence[Passage]) -> tuple[Passage, ...]:
    return merge_passages([*a, *b])


def characters(passages: Sequence[Passage]) -> int:
    return sum(end - start for start, end in merge_passages(list(passages)))


def character_f1(a: Sequence[Passage], b: Sequence[Passage]) -> float | None:
    """``2 |A ∩ B| / (|A| + |B|)``; None when neither highlights anything."""
    total = characters(a) + characters(b)
    return 2 * characters(intersection(a, b)) / total if total else None


@dataclass(frozen=True)
class Disagreement:
    file: str
    reason: str
    relevant_a: bool
    relevant_b: bool
    f1: float | None
    adjudicated: bool

    def to_api(self) -> dict[str, Any]:
        return {"file": self.file, "reason": self.reason, "relevant_a": self.relevant_a,
                "relevant_b": self.relevant_b, "f1": self.f1, "adjudicated": self.adjudicated}


def disagreement(a: Judgement, b: Judgement, mode: str, threshold: float) -> str | None:
    """Why two done judgements disagree (see the module docstring), or None."""
    if a.relevant != b.relevant:
        return "relevance"
    if mode not in HIGHLIGHTING_MODES:
        return None if dict(a.values) == dict(b.values) else "element values"
    f1 = character_f1(a.passages, b.passages)
    if a.relevant and f1 is not None and f1 < threshold:
        return f"character F1 {f1:.2f} below {threshold:g}"
    return None


def pair(store: Store, topic: str, a: str | None, b: str | None) -> tuple[str, str]:
    """The two assessors to adjudicate between: ``a`` and ``b`` when given, else the topic's
    first two in assignment order (:class:`AdjudicationError` for fewer than two)."""
    assessors = store.assessors(topic)
    if a is None and b is None:
        if len(assessors) < 2:
            raise AdjudicationError(f"topic {topic} has {len(assessors)} assessor(s): "
                                    "adjudication needs two")
        return assessors[0], assessors[1]
    if a is None or b is None or a == b or a not in assessors or b not in assessors:
        raise AdjudicationError(f"topic {topic}: a and b must be two of its assessors "
                                f"({', '.join(assessors) or 'none'})")
    return a, b


def disagreements(store: Store, topic: str, a: str, b: str,
                  threshold: float = THRESHOLD) -> dict[str, Any]:
    """The articles of the topic's pool (in pool order) both ``a`` and ``b`` have done and
    disagree on, with whether each has an adjudicated judgement; the counts of articles done
    by both, agreed on, and not yet done by both."""
    mode = store.mode()
    files = store.pool_files(topic)
    judged = {(j.assessor, j.file): j for name in (a, b, ADJUDICATED)
              for j in store.judgements(topic, name)}
    found = []
    both = 0
    for file in files:
        first, second = judged.get((a, file)), judged.get((b, file))
        if first is None or second is None or first.status != "done" \
                or second.status != "done":
            continue
        both += 1
        reason = disagreement(first, second, mode, threshold)
        if reason is not None:
            settled = judged.get((ADJUDICATED, file))
            found.append(Disagreement(
                file, reason, first.relevant, second.relevant,
                character_f1(first.passages, second.passages)
                if mode in HIGHLIGHTING_MODES else None,
                settled is not None and settled.status == "done"))
    return {"topic": topic, "a": a, "b": b, "threshold": threshold, "mode": mode,
            "articles": len(files), "done_by_both": both, "agreed": both - len(found),
            "pending": len(files) - both, "disagreements": [d.to_api() for d in found]}


def adjudicated_judgement(mode: str, choice: str, first: Judgement, second: Judgement,
                          length: int, passages: Sequence[Passage] | None = None,
                          best_entry_point: int | None = None,
                          elements: Sequence[tuple[str, int, int]] = (),
                          inline: frozenset[str] = frozenset()) -> Judgement:
    """The adjudicated judgement of ``choice`` (one of :data:`CHOICES`) between ``first`` (A)
    and ``second`` (B), both done: A's or B's whole judgement; the union or the intersection
    of their passages with A's best entry point if it falls in one, else B's, else the first
    passage's start; or ``passages`` and ``best_entry_point`` as given (``edit``: inside the
    document's ``length`` characters, the entry point in a passage or None for the first
    passage's start). An empty result is a non-relevant
    judgement. In highlight mode the union, intersection or edit keeps exhaustivity for every
    element holding its text (:func:`_exhaustivity`, from the document's ``elements``, ``inline``
    those never asked). The 2002/2003 modes take A or B only."""
    if choice not in CHOICES:
        raise AdjudicationError(f"choice: one of {', '.join(CHOICES)}")
    if first.status != "done" or second.status != "done":
        raise AdjudicationError(f"document {first.file}: both assessors must have done it")
    if choice in ("a", "b"):
        chosen = first if choice == "a" else second
        return Judgement(topic=chosen.topic, file=chosen.file, assessor=ADJUDICATED,
                         status="done", passages=chosen.passages,
                         best_entry_point=chosen.best_entry_point,
                         exhaustivity=chosen.exhaustivity, values=chosen.values)
    if mode not in HIGHLIGHTING_MODES:
        raise AdjudicationError(f"in {mode} mode adjudication takes A or B")
    if choice == "edit":
        if passages is None:
            raise AdjudicationError("edit: the passages are required")
        result = merge_passages(list(passages))
        for start, end in result:
            if not 0 <= start < end <= length:
                raise AdjudicationError(f"passage [{start}, {end}) is not inside the document "
                                        f"({length} characters)")
        candidates = [best_entry_point]
        if best_entry_point is not None and not _inside(best_entry_point, result):
            raise AdjudicationError(f"best entry point {best_entry_point} is not in a passage")
    else:
        combine = union if choice == "union" else intersection
        result = combine(first.passages, second.passages)
        candidates = [first.best_entry_point, second.best_entry_point]
    entry = next((p for p in candidates if p is not None and _inside(p, result)),
                 result[0][0] if result else None)
    exhaustivity = {} if mode != "highlight" else _exhaustivity(
        result, elements, inline, first.exhaustivity, second.exhaustivity,
        min if choice == "intersection" else max)
    return Judgement(topic=first.topic, file=first.file, assessor=ADJUDICATED, status="done",
                     passages=result, best_entry_point=entry if result else None,
                     exhaustivity=exhaustivity)


_RANK = {"?": 0, "1": 1, "2": 2}


def _exhaustivity(passages: Sequence[Passage], elements: Sequence[tuple[str, int, int]],
                  inline: frozenset[str], a: Mapping[str, str], b: Mapping[str, str],
                  pick: Callable[..., str]) -> dict[str, str]:
    """Highlight mode: the exhaustivity of every element holding text of ``passages`` (sorted,
    merged): A's and B's values of it combined by ``pick`` (``max`` for a union or an edit,
    ``min`` for an intersection: either keeps the 2005 rule that no element is less exhaustive
    than one inside it); an element neither gave a value is ``?`` when inline (never asked),
    else ``1``."""
    ends = [end for _, end in passages]
    found: dict[str, str] = {}
    for path, start, end in elements:
        at = bisect.bisect_right(ends, start)  # the first passage ending after the start
        if end <= start or at == len(passages) or passages[at][0] >= end:
            continue
        given = [v for v in (a.get(path), b.get(path)) if v in _RANK]
        if given:
            found[path] = pick(given, key=_RANK.__getitem__)
        else:
            found[path] = "?" if path in inline else "1"
    return found


def _inside(offset: int, passages: Sequence[Passage]) -> bool:
    return any(start <= offset < end for start, end in passages)


def adjudicate(store: Store, topic: str, file: str, choice: str, a: str, b: str, actor: str,
               passages: Sequence[Passage] | None = None,
               best_entry_point: int | None = None) -> Judgement:
    """Store the adjudicated judgement of ``choice`` between assessors ``a`` and ``b`` of
    ``topic`` for ``file`` (:func:`adjudicated_judgement`); one transaction."""
    a, b = pair(store, topic, a, b)
    first, second = (store.judgement(topic, file, name) for name in (a, b))
    mode = store.mode()
    elements: tuple[tuple[str, int, int], ...] = ()
    inline: frozenset[str] = frozenset()
    if mode == "highlight" and choice in ("union", "intersection", "edit"):
        elements = store.document(file).elements
        chars = store.setting("min_element_chars")
        inline = inline_elements(elements, MIN_ELEMENT_CHARS if chars is None else int(chars))
    judgement = adjudicated_judgement(mode, choice, first, second,
                                      store.document_lengths().get(file, 0), passages,
                                      best_entry_point, elements, inline)
    return store.put_adjudicated([judgement], actor)[0]


def accept_agreed(store: Store, topic: str, a: str, b: str, actor: str,
                  threshold: float = THRESHOLD) -> list[str]:
    """Store A's judgement as the adjudicated one of every article of the topic that ``a`` and
    ``b`` have both done and agree on (at ``threshold``) and that has no adjudicated judgement
    yet, in one transaction; returns those articles in pool order."""
    a, b = pair(store, topic, a, b)
    mode = store.mode()
    judged = {(j.assessor, j.file): j for name in (a, b, ADJUDICATED)
              for j in store.judgements(topic, name)}
    chosen = []
    for file in store.pool_files(topic):
        first, second = judged.get((a, file)), judged.get((b, file))
        if first is None or second is None or first.status != "done" \
                or second.status != "done" or (ADJUDICATED, file) in judged:
            continue
        if disagreement(first, second, mode, threshold) is None:
            chosen.append(adjudicated_judgement(mode, "a", first, second, 0))
    store.put_adjudicated(chosen, actor)
    return [j.file for j in chosen]
