"""The INEX 2005 rules of highlight mode (rules.settle and its helpers), one test per rule from
the table of tests/assess/rules_cases.py (the same table runs through the page and through
``POST .../check`` in tests/ui/test_rules_2005.py), and the names for people."""

from __future__ import annotations

from pathlib import Path

import pytest

from inexeval.assess.documents import stored_document
from inexeval.assess.model import Judgement
from inexeval.assess.names import element_names, inline_elements
from inexeval.assess.rules import (
    RuleViolation,
    Structure,
    apply,
    holding,
    problems,
    settle,
    too_small_rest,
)
from tests.assess.rules_cases import CASES, Case, passages
from tests.ui.campaign import write_campaign


@pytest.fixture(scope="module")
def a1(tmp_path_factory: pytest.TempPathFactory) -> tuple[Structure, str]:
    folder = tmp_path_factory.mktemp("campaign")
    files = write_campaign(folder, big_chars=100)
    document = stored_document("co/a1", Path(files["collection"]) / "co" / "a1.xml")
    return (Structure(document.length, document.elements, inline_elements(document.elements)),
            document.text)


def run(case: Case, structure: Structure, text: str) -> tuple[dict[str, str], list[tuple[
        str, str, str | None]], dict[str, str], list[str]]:
    """The case through rules.py: (exhaustivity, resets, inferred, skipped)."""
    after_passages = passages(text, case.after_passages)
    requested = {**case.before, **case.change}
    skipped: list[str] = []
    if case.rest:
        requested, skipped = too_small_rest(case.before, structure, after_passages, case.rest)
    settled = settle(case.before, requested, structure, after_passages)
    return (settled.exhaustivity, [(r.path, r.before, r.after) for r in settled.resets],
            settled.inferred, skipped)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule(case: Case, a1: tuple[Structure, str]) -> None:
    structure, text = a1
    if case.refused:
        with pytest.raises(RuleViolation, match=case.refused.replace("[", r"\[")):
            run(case, structure, text)
        return
    exhaustivity, resets, inferred, skipped = run(case, structure, text)
    assert exhaustivity == case.after
    assert resets == list(case.resets)
    assert inferred == case.inferred
    assert skipped == list(case.skipped)
    # the result is consistent: nothing but missing values keeps it from being done
    after = Judgement("1", "co/a1", "a", passages=tuple(passages(text, case.after_passages)),
                      best_entry_point=0, exhaustivity=exhaustivity)
    assert [p for p in problems(after, structure, "highlight")
            if "has no exhaustivity" not in p] == []
    # settling again changes nothing; the page sends the settled state, the server saves it
    again = settle(case.before, exhaustivity, structure, after.passages)
    assert again.exhaustivity == exhaustivity and again.resets == ()
    assert settle(exhaustivity, exhaustivity, structure, after.passages).exhaustivity == \
        exhaustivity


def test_every_before_state_is_settled(a1: tuple[Structure, str]) -> None:
    """The table starts from states the rules could have left (else its cases prove little)."""
    structure, text = a1
    for case in CASES:
        before = passages(text, case.before_passages)
        assert settle(case.before, case.before, structure, before).exhaustivity == case.before, \
            case.name


def test_saving_refuses_too_small_for_an_element_holding_a_whole_passage(
        a1: tuple[Structure, str]) -> None:
    structure, text = a1
    spans = passages(text, ("A", "B", "C"))
    section = "/article[1]/bdy[1]/sec[1]"
    before = Judgement("1", "co/a1", "a", passages=tuple(spans))
    with pytest.raises(RuleViolation, match="cannot be too small"):
        apply(before, Judgement("1", "co/a1", "a", "in-progress", tuple(spans),
                                exhaustivity={section: "?"}), structure, "highlight")
    # a kept value is not refused (a highlight made it inconsistent): done is
    kept = Judgement("1", "co/a1", "a", "in-progress", tuple(spans), 0,
                     {p: "2" for p in holding(structure, spans)} | {section: "?"})
    saved = apply(kept, kept, structure, "highlight")
    assert saved.exhaustivity[section] == "?"
    with pytest.raises(RuleViolation, match="less exhaustive than"):
        apply(kept, Judgement(**{**kept.__dict__, "status": "done"}), structure, "highlight")


def test_inline_elements_are_never_asked(a1: tuple[Structure, str]) -> None:
    structure, _ = a1
    sections = "/article[1]/bdy[1]/sec"
    # "Best entry points" (17 characters) and "Items" are shorter than 20; the rest is not
    assert sorted(p for p in structure.inline if p.startswith(sections)) == [
        f"{sections}[2]/st[1]", f"{sections}[3]/st[1]"]
    elements = (("/a[1]", 0, 100), ("/a[1]/p[1]", 0, 60), ("/a[1]/p[1]/it[1]", 5, 40),
                ("/a[1]/p[1]/b[1]", 40, 60), ("/a[1]/p[1]/b[1]/p[1]", 40, 60),
                ("/a[1]/p[2]", 60, 100), ("/a[1]/p[2]/collectionlink[1]", 60, 100))
    # an inline tag of any length, unless it holds a block; anything shorter than min_chars
    assert inline_elements(elements) == {"/a[1]/p[1]/it[1]", "/a[1]/p[2]/collectionlink[1]"}
    assert inline_elements(elements, min_chars=36) == {
        "/a[1]/p[1]/it[1]", "/a[1]/p[2]/collectionlink[1]", "/a[1]/p[1]/b[1]",
        "/a[1]/p[1]/b[1]/p[1]"}
    assert inline_elements(elements, min_chars=0) == {"/a[1]/p[1]/it[1]",
                                                      "/a[1]/p[2]/collectionlink[1]"}


def test_names_for_people_ieee() -> None:
    ieee = ("/article[1]", "/article[1]/fm[1]", "/article[1]/fm[1]/atl[1]", "/article[1]/bdy[1]",
            "/article[1]/bdy[1]/sec[1]", "/article[1]/bdy[1]/sec[1]/st[1]",
            "/article[1]/bdy[1]/sec[1]/ip1[1]", "/article[1]/bdy[1]/sec[1]/p[1]",
            "/article[1]/bdy[1]/sec[1]/p[1]/it[1]", "/article[1]/bdy[1]/sec[1]/ss1[1]",
            "/article[1]/bdy[1]/sec[1]/ss1[1]/p[1]", "/article[1]/bdy[1]/sec[2]",
            "/article[1]/bdy[1]/sec[2]/p[1]", "/article[1]/bdy[1]/sec[2]/p[2]",
            "/article[1]/bdy[1]/sec[2]/p[3]", "/article[1]/bm[1]", "/article[1]/bm[1]/bib[1]",
            "/article[1]/bm[1]/bib[1]/bb[2]", "/article[1]/bdy[1]/sec[2]/p[3]/x:foo[1]")
    names = element_names([(p, 0, 1) for p in ieee])
    assert [names[p] for p in ieee] == [
        "Article", "Front matter", "Front matter › Title", "Body", "Section 1",
        "Section 1 › Title", "Section 1 › ¶ 1", "Section 1 › ¶ 2", "Section 1 › ¶ 2 › italic",
        "Section 1 › Subsection 1", "Section 1 › Subsection 1 › ¶ 1", "Section 2",
        "Section 2 › ¶ 1", "Section 2 › ¶ 2", "Section 2 › ¶ 3", "Back matter",
        "Back matter › Bibliography", "Back matter › Bibliography › Reference 1",
        "Section 2 › ¶ 3 › foo"]


def test_names_for_people_wikipedia() -> None:
    wiki = ("/article[1]", "/article[1]/name[1]", "/article[1]/body[1]",
            "/article[1]/body[1]/p[1]", "/article[1]/body[1]/p[1]/collectionlink[1]",
            "/article[1]/body[1]/p[1]/collectionlink[2]", "/article[1]/body[1]/section[1]",
            "/article[1]/body[1]/section[1]/title[1]", "/article[1]/body[1]/section[1]/p[1]",
            "/article[1]/body[1]/section[1]/normallist[1]",
            "/article[1]/body[1]/section[1]/normallist[1]/item[2]")
    names = element_names([(p, 0, 1) for p in wiki])
    assert [names[p] for p in wiki] == [
        "Article", "Title", "Body", "¶ 1", "¶ 1 › link 1", "¶ 1 › link 2", "Section 1",
        "Section 1 › Title", "Section 1 › ¶ 1", "Section 1 › List", "Section 1 › List › Item 1"]


def test_any_sequence_of_changes_stays_consistent(a1: tuple[Structure, str]) -> None:
    """Random changes (values and passages) from settled states: every result has no
    consistency problem and settles to itself (seeded, 600 changes)."""
    import random

    structure, text = a1
    rng = random.Random(5)
    names = ("A", "B", "C", "D")
    for _ in range(100):
        spans = passages(text, tuple(sorted(rng.sample(names, rng.randint(1, 4)))))
        state: dict[str, str] = {}
        for _ in range(6):
            requested = dict(state)
            if rng.random() < 0.2:
                spans = passages(text, tuple(sorted(rng.sample(names, rng.randint(1, 4)))))
            path = rng.choice(holding(structure, spans))
            code = rng.choice(["2", "1", "?", None])
            if code is None:
                requested.pop(path, None)
            else:
                requested[path] = code
            try:
                result = settle(state, requested, structure, spans)
            except RuleViolation:
                continue
            j = Judgement("1", "co/a1", "a", passages=tuple(spans), best_entry_point=0,
                          exhaustivity=result.exhaustivity)
            assert [p for p in problems(j, structure, "highlight")
                    if "has no exhaustivity" not in p] == [], (state, requested)
            again = settle(state, result.exhaustivity, structure, spans)
            assert again.exhaustivity == result.exhaustivity and again.resets == ()
            state = result.exhaustivity


def test_an_empty_element_holds_no_highlighted_text() -> None:
    """An image (``<art/>``) inside a highlighted passage has no text: it is never asked nor
    required (the page, judge.js, counts the same)."""
    structure = Structure(40, (("/a[1]", 0, 40), ("/a[1]/p[1]", 0, 40),
                               ("/a[1]/p[1]/art[1]", 10, 10)), frozenset({"/a[1]/p[1]/art[1]"}))
    assert holding(structure, [(5, 30)]) == ["/a[1]", "/a[1]/p[1]"]
    settled = settle({}, {"/a[1]/p[1]": "2"}, structure, [(5, 30)])
    assert settled.exhaustivity == {"/a[1]/p[1]": "2", "/a[1]": "2"}
