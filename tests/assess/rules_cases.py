"""One table of INEX 2005 highlight-mode cases, run three ways: through
:func:`inexeval.assess.rules.settle` (tests/assess/test_rules_2005.py), through the server's
``POST .../check`` and through the document page in Chromium (tests/ui/test_rules_2005.py).

Every case is on ``co/a1`` of the browser tests' campaign (:mod:`tests.ui.campaign`):

    article › fm › ti                 "Element retrieval evaluation"
            › bdy › sec[1] › st       "Passages and elements"
                           › p[1]     "Assessors highlight relevant passages in articles."
                           › p[2]     "Elements holding highlighted text get exhaustivity."
                  › sec[2] › st       "Best entry points"                      (17 chars: inline)
                           › p[1]     "A best entry point is where reading should start."
                  › sec[3] › st       "Items"                                  (inline)
                           › list › item[1] "First item of the list."
                                  › item[2] "Second item of the list."

The passages: A "highlight relevant" inside sec[1]/p[1]; B "articles.Elements" across p[1]
and p[2] of sec[1]; C "should start.ItemsFirst item" from sec[2]/p[1] into sec[3]'s first item.
So sec[1] and p[1] hold a whole passage (never too small), p[2], sec[2], sec[3], the list and
its first item do not; sec[3]/st is inline. Hand-worked from the guide's section 5.4.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ART = "/article[1]"
BDY = f"{ART}/bdy[1]"
S1, S2, S3 = (f"{BDY}/sec[{i}]" for i in (1, 2, 3))
P1, P2 = f"{S1}/p[1]", f"{S1}/p[2]"
S2P = f"{S2}/p[1]"
S3T = f"{S3}/st[1]"
LIST = f"{S3}/list[1]"
I1 = f"{LIST}/item[1]"

PASSAGE_PHRASES = {"A": ("highlight relevant",), "B": ("articles.", "Elements"),
                   "C": ("should start.", "First item")}
"""Each passage from the start of its first phrase to the end of its last."""
D = ("holding",)
"""A passage wholly inside sec[1]/p[2] (case ``kept_too_small_now_holds_a_passage``)."""

FRESH = {S3T: "?"}
"""Nothing assessed yet: only the inline title, which is never asked, is too small."""


@dataclass(frozen=True)
class Case:
    """From ``before`` (a settled state, with the passages ``before_passages``), the assessor
    sets ``change`` (path: value) or, with ``rest``, presses "too small for the remaining
    children" on that element, or changes the passages to ``after_passages``; the rules give
    ``after`` with ``resets`` ``(path, before, after)`` in order, or refuse (``refused``, a
    substring of the message)."""

    name: str
    before: dict[str, str]
    change: dict[str, str] = field(default_factory=dict)
    after: dict[str, str] = field(default_factory=dict)
    resets: tuple[tuple[str, str, str | None], ...] = ()
    inferred: dict[str, str] = field(default_factory=dict)
    refused: str = ""
    rest: str = ""
    before_passages: tuple[str, ...] = ("A", "B", "C")
    after_passages: tuple[str, ...] = ("A", "B", "C")
    skipped: tuple[str, ...] = ()


CASES = [
    Case("two_is_inferred_upwards", FRESH, {P2: "2"},
         after={P2: "2", S1: "2", BDY: "2", ART: "2", S3T: "?"},
         inferred={S1: P2, BDY: S1, ART: BDY, S3T: ""}),
    Case("too_small_is_inferred_downwards", FRESH, {S3: "?"},
         after={S3: "?", LIST: "?", I1: "?", S3T: "?"},
         inferred={S3T: "", LIST: S3, I1: LIST}),
    Case("an_element_holding_a_whole_passage_is_never_too_small", FRESH, {S1: "?"},
         refused=f"{S1} contains the whole highlighted passage"),
    Case("a_parent_given_less_resets_the_child_above_it", {
        P1: "2", S1: "2", BDY: "2", ART: "2", S3T: "?"}, {S1: "1"},
         after={S1: "1", S3T: "?"},
         resets=((P1, "2", None), (BDY, "2", None), (ART, "2", None)),
         inferred={S3T: ""}),
    Case("a_child_given_two_raises_every_parent", {
        ART: "1", BDY: "1", S1: "1", S3T: "?"}, {P1: "2"},
         after={ART: "2", BDY: "2", S1: "2", P1: "2", S3T: "?"},
         resets=((S1, "1", "2"), (BDY, "1", "2"), (ART, "1", "2")),
         inferred={ART: BDY, BDY: S1, S1: P1, S3T: ""}),
    Case("a_child_given_more_than_too_small_resets_the_too_small_above", {
        S3: "?", LIST: "?", I1: "?", S3T: "?"}, {I1: "1"},
         after={I1: "1", S3T: "?"},
         resets=((LIST, "?", None), (S3, "?", None)),
         inferred={S3T: ""}),
    Case("no_longer_too_small_resets_the_too_small_inside", {
        S3: "?", LIST: "?", I1: "?", S3T: "?"}, {S3: "1"},
         after={S3: "1", S3T: "?"},
         resets=((LIST, "?", None), (I1, "?", None)),
         inferred={S3T: ""}),
    Case("a_parent_that_loses_its_only_support_is_reset", {
        S2P: "2", S2: "2", BDY: "2", ART: "2", S3T: "?"}, {S2P: "1"},
         after={S2P: "1", S3T: "?"},
         resets=((S2, "2", None), (BDY, "2", None), (ART, "2", None)),
         inferred={S3T: ""}),
    Case("another_child_still_supports_the_parent", {
        S1: "1", P1: "1", P2: "1", S3T: "?"}, {P2: "?"},
         after={S1: "1", P1: "1", P2: "?", S3T: "?"},
         inferred={S3T: ""}),
    Case("too_small_for_the_remaining_children", {S1: "1", S3T: "?"}, rest=S1,
         after={S1: "1", P2: "?", S3T: "?"}, skipped=(P1,), inferred={S3T: ""}),
    Case("too_small_for_the_remaining_children_and_inside_them", FRESH, rest=S3,
         after={S3T: "?", LIST: "?", I1: "?"}, inferred={S3T: "", I1: LIST}),
    Case("unhighlighting_resets_the_value_of_an_element_left_without_highlight", {
        P2: "?", S1: "1", P1: "1", S3T: "?"}, after_passages=("A", "C"),
         after={S1: "1", P1: "1", S3T: "?"}, resets=((P2, "?", None),),
         inferred={S3T: ""}),
    Case("kept_too_small_now_holds_a_passage", {P2: "?", S1: "1", S3T: "?"},
         after_passages=("A", "B", "C", "D"),
         after={S1: "1", S3T: "?"}, resets=((P2, "?", None),), inferred={S3T: ""}),
]


def passage(text: str, phrases: tuple[str, ...]) -> tuple[int, int]:
    """The span from the first phrase's start to the last phrase's end (each found once)."""
    for phrase in phrases:
        assert text.count(phrase) == 1, phrase
    return text.index(phrases[0]), text.index(phrases[-1]) + len(phrases[-1])


def passages(text: str, names: tuple[str, ...]) -> list[tuple[int, int]]:
    return sorted(passage(text, D if name == "D" else PASSAGE_PHRASES[name]) for name in names)
