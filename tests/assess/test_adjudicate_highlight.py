"""Adjudication keeps what the assessors gave (issue 36): in highlight mode a union, an
intersection or an edit carries exhaustivity for every element holding its text."""

from __future__ import annotations

from inexeval.assess.adjudicate import adjudicated_judgement
from inexeval.assess.model import Judgement

ART, SEC = "/article[1]", "/article[1]/sec[1]"
P1, P2, IT = f"{SEC}/p[1]", f"{SEC}/p[2]", f"{SEC}/p[2]/it[1]"
ELEMENTS = ((ART, 0, 100), (SEC, 0, 100), (P1, 0, 50), (P2, 50, 100), (IT, 60, 65))


def _j(who: str, passages: tuple[tuple[int, int], ...], best: int,
       exhaustivity: dict[str, str]) -> Judgement:
    return Judgement("1", "co/a1", who, status="done", passages=passages,
                     best_entry_point=best, exhaustivity=exhaustivity)


A = _j("alice", ((10, 40),), 10, {ART: "2", SEC: "2", P1: "2"})
B = _j("bob", ((20, 45), (55, 70)), 55, {ART: "1", SEC: "1", P1: "1", P2: "?", IT: "?"})


def test_union_and_intersection_keep_exhaustivity() -> None:
    union = adjudicated_judgement("highlight", "union", A, B, 100,
                                  elements=ELEMENTS, inline=frozenset({IT}))
    assert union.passages == ((10, 45), (55, 70))
    assert union.exhaustivity == {ART: "2", SEC: "2", P1: "2", P2: "?", IT: "?"}
    both = adjudicated_judgement("highlight", "intersection", A, B, 100,
                                 elements=ELEMENTS, inline=frozenset({IT}))
    assert both.passages == ((20, 40),)
    assert both.exhaustivity == {ART: "1", SEC: "1", P1: "1"}
    assert both.best_entry_point == 20  # neither point lies in it: the passage's start


def test_an_edit_keeps_values() -> None:
    edit = adjudicated_judgement("highlight", "edit", A, B, 100, passages=[(10, 40), (80, 90)],
                                 best_entry_point=30, elements=ELEMENTS, inline=frozenset({IT}))
    assert edit.best_entry_point == 30
    # P2 holds the added text: neither gave a value to it in A; B's "?" is kept
    assert edit.exhaustivity == {ART: "2", SEC: "2", P1: "2", P2: "?"}
    # passages mode: no exhaustivity
    assert adjudicated_judgement("passages", "union", A, B, 100, elements=ELEMENTS
                                 ).exhaustivity == {}
