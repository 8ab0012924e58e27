"""The consistency rules, hand-worked on a six-element document."""

from __future__ import annotations

import pytest

from inexeval.assess.model import Judgement
from inexeval.assess.rules import (
    RuleViolation,
    Structure,
    apply,
    holding,
    implicit_values,
    on_scale,
    problems,
    validate,
)

A, S1, P11, P12, S2, P21 = ("/article[1]", "/article[1]/sec[1]", "/article[1]/sec[1]/p[1]",
                            "/article[1]/sec[1]/p[2]", "/article[1]/sec[2]",
                            "/article[1]/sec[2]/p[1]")
DOC = Structure(100, ((A, 0, 100), (S1, 0, 50), (P11, 0, 20), (P12, 20, 50), (S2, 50, 100),
                      (P21, 50, 100)))


def judged(**fields: object) -> Judgement:
    return Judgement(topic="1", file="d", assessor="a", **fields)  # type: ignore[arg-type]


def test_holding_is_positive_overlap_in_document_order() -> None:
    assert holding(DOC, [(20, 21)]) == [A, S1, P12]
    assert holding(DOC, [(19, 51)]) == [A, S1, P11, P12, S2, P21]
    # touching a boundary is not holding: [0, 20) ends where p[2] starts
    assert holding(DOC, [(0, 20)]) == [A, S1, P11]
    assert holding(DOC, []) == []


@pytest.mark.parametrize(("fields", "message"), [
    ({"passages": ((5, 5),)}, "does not end after it starts"),
    ({"passages": ((7, 3),)}, "does not end after it starts"),
    ({"passages": ((-1, 3),)}, "outside the document"),
    ({"passages": ((90, 101),)}, "outside the document"),
    ({"best_entry_point": 100}, "best entry point 100 is outside"),
    ({"best_entry_point": -1}, "best entry point -1 is outside"),
    ({"exhaustivity": {"/article[1]/sec[3]": "2"}}, "not an element of the document"),
    ({"exhaustivity": {A: "3"}}, "'3' for /article[1] is not on the highlight scale"),
    ({"values": {A: "3E"}}, "is not on the highlight scale"),
    ({"status": "finished"}, "status 'finished' is not one of"),
    ({"seconds": -2.0}, "seconds -2.0"),
    ({"seconds": float("nan")}, "seconds nan"),
])
def test_validate_refuses(fields: dict[str, object], message: str) -> None:
    errors = validate(judged(**fields), DOC, "highlight")
    assert len(errors) == 1 and message in errors[0], errors


def test_validate_accepts_the_edges() -> None:
    assert validate(judged(passages=((0, 100),), best_entry_point=99), DOC, "highlight") == []
    assert validate(judged(values={A: "3E", P11: "0N"}), DOC, "2002") == []
    assert validate(judged(values={A: "E3S1"}), DOC, "2003") == []


def test_scales() -> None:
    assert [on_scale("highlight", "exhaustivity", c) for c in ("2", "1", "?", "0", 2)] == [
        True, True, True, False, False]
    assert [on_scale("2002", "values", c) for c in ("3E", "0N", "1S", "4E", "3X", "E3S3")] == [
        True, True, True, False, False, False]
    assert [on_scale("2003", "values", c) for c in ("E3S3", "E0S0", "E4S1", "3E")] == [
        True, True, False, False]
    assert not on_scale("2002", "exhaustivity", "2")


def test_highlight_done_needs_every_holding_element_and_a_best_entry_point() -> None:
    partial = judged(passages=((25, 30),), exhaustivity={A: "2", S1: "1"})
    assert problems(partial, DOC, "highlight") == [
        f"{P12} holds highlighted text but has no exhaustivity",
        "a relevant document needs a best entry point"]
    complete = judged(passages=((25, 30),), exhaustivity={A: "2", S1: "1", P12: "1"},
                      best_entry_point=25)
    assert problems(complete, DOC, "highlight") == []


def test_highlight_stray_values_are_problems() -> None:
    stray = judged(passages=((25, 30),), exhaustivity={A: "2", S1: "2", P12: "2", S2: "1"},
                   best_entry_point=0)
    assert problems(stray, DOC, "highlight") == [
        f"{S2} has an exhaustivity but holds no highlighted text"]
    assert problems(judged(best_entry_point=3), DOC, "highlight") == [
        "a best entry point on a document with nothing highlighted"]


def test_nothing_highlighted_done_is_non_relevant() -> None:
    done = apply(judged(), judged(status="done"), DOC, "highlight")
    assert done.status == "done" and not done.relevant


def test_2002_combinations_and_too_small() -> None:
    found = problems(judged(values={P11: "0E", P12: "2N", P21: "3S"}), DOC, "2002")
    assert found == [
        f"{P11}: relevance 0 with coverage E (relevance 0 goes with coverage N, and only with it)",
        f"{P12}: relevance 2 with coverage N (relevance 0 goes with coverage N, and only with it)",
        f"{P21}: a too small (S) component cannot be highly relevant (3)"]


def test_2002_parent_at_least_as_relevant_and_too_large() -> None:
    found = problems(judged(values={A: "1E", P11: "2E"}), DOC, "2002")
    assert found == [
        f"{A} (1E) is less relevant than the element it contains, {P11} (2E)",
        f"{A} (1E) contains {P11} of coverage E, so its coverage is too large (L)"]
    assert problems(judged(values={A: "2L", P11: "2E", P12: "1S"}), DOC, "2002") == []


def test_2002_implicit_values() -> None:
    # ancestors take the highest relevance below them with coverage L; below 0N all is 0N
    values = {P11: "2E", P12: "1S", S2: "0N"}
    assert implicit_values(values, DOC, "2002") == {P21: "0N", S1: "2L", A: "2L"}
    # an explicitly judged ancestor stops the deduction above it
    assert implicit_values({P11: "1E", S1: "3L"}, DOC, "2002") == {A: "3L"}


def test_2002_pooled_elements_need_a_value() -> None:
    j = judged(values={P11: "2E", S2: "0N"})
    assert problems(j, DOC, "2002", pooled=[P21, S1, P12]) == [
        f"pooled element {P12} has no value"]


def test_2003_rules() -> None:
    found = problems(judged(values={S1: "E1S1", P11: "E2S3", P21: "E0S2"}), DOC, "2003")
    assert found == [
        f"{P21}: exhaustivity 0 with specificity 2 (0 goes with 0)",
        f"{S1} (E1S1) is less exhaustive than the element it contains, {P11} (E2S3)",
        f"{A} contains the relevant {S1} and needs a value"]
    assert problems(judged(values={A: "E2S1", S1: "E2S2", P11: "E2S3", S2: "E0S0"}), DOC,
                    "2003", pooled=[P21]) == []
    assert implicit_values({S2: "E0S0"}, DOC, "2003") == {P21: "E0S0"}


def test_apply_merges_and_keeps_the_status() -> None:
    before = judged()
    after = apply(before, judged(status="in-progress", passages=((30, 40), (10, 20), (20, 25))),
                  DOC, "highlight")
    assert after.passages == ((10, 25), (30, 40)) and after.status == "in-progress"


def test_a_change_to_a_done_document_makes_it_in_progress() -> None:
    done = judged(status="done", passages=((25, 30),), best_entry_point=25,
                  exhaustivity={A: "2", S1: "2", P12: "2"})
    changed = apply(done, judged(status="done", passages=((25, 31),), best_entry_point=25,
                                 exhaustivity=done.exhaustivity), DOC, "highlight")
    assert changed.status == "in-progress"
    # the same content with done stays done; time spent alone is no change
    again = apply(done, judged(status="done", passages=done.passages, best_entry_point=25,
                               exhaustivity=done.exhaustivity, seconds=12.0), DOC, "highlight")
    assert again.status == "done" and again.seconds == 12.0
    # an unseen document that receives content is in progress
    assert apply(judged(), judged(passages=((1, 2),)), DOC, "highlight").status == "in-progress"


def test_apply_refuses_done_with_problems_and_invalid_bodies() -> None:
    with pytest.raises(RuleViolation) as refused:
        apply(judged(), judged(status="done", passages=((25, 30),)), DOC, "highlight")
    assert refused.value.messages[0] == f"cannot be done: {A} holds highlighted text but has " \
        "no exhaustivity"
    with pytest.raises(RuleViolation, match="outside the document"):
        apply(judged(), judged(status="in-progress", passages=((25, 300),)), DOC, "highlight")


def test_passages_mode_asks_a_best_entry_point_and_no_exhaustivity() -> None:
    """INEX 2006-2010: a relevant document needs a best entry point, nothing else; an
    exhaustivity is off the scale (refused on save)."""
    relevant = judged(status="done", passages=((20, 30),))
    assert problems(relevant, DOC, "passages") == [
        "a relevant document needs a best entry point"]
    assert problems(judged(status="done", passages=((20, 30),), best_entry_point=20), DOC,
                    "passages") == []
    assert problems(judged(status="done"), DOC, "passages") == []
    assert problems(judged(status="done", best_entry_point=3), DOC, "passages") == [
        "a best entry point on a document with nothing highlighted"]
    assert validate(judged(passages=((20, 30),), exhaustivity={A: "2"}), DOC, "passages") == [
        "exhaustivity: '2' for /article[1] is not on the passages scale"]
    assert not on_scale("passages", "exhaustivity", "2")
    with pytest.raises(RuleViolation, match="needs a best entry point"):
        apply(judged(), relevant, DOC, "passages")
