"""Inline elements of the INEX collections are never asked for an exhaustivity in highlight
mode (issue 36): IEEE's fonts and references (``it``, ``b``, ``ss``, ``tt``, ``sub``, ``sup``,
``ref`` ...), Wikipedia's ``emph`` and ``link`` (2009) and ``emph2``, ``collectionlink`` (2006),
also when long and when one holds another, and a judgement that gives none of them a value
lacks nothing."""

from __future__ import annotations

from inexeval.assess import rules
from inexeval.assess.model import Judgement
from inexeval.assess.names import inline_elements

ART = "/article[1]"
P = f"{ART}/bdy[1]/sec[1]/p[1]"


def test_inline_tags_of_both_collections_long_or_nested() -> None:
    # a 100-character paragraph; every inline element is 30 characters (above the size limit)
    elements = [(ART, 0, 100), (f"{ART}/bdy[1]", 0, 100), (f"{ART}/bdy[1]/sec[1]", 0, 100),
                (P, 0, 100)]
    inline = [f"{P}/{tag}[1]" for tag in ("it", "b", "ss", "tt", "sub", "sup", "ref", "emph",
                                          "link", "emph2", "collectionlink")]
    elements += [(path, 0, 30) for path in inline]
    elements += [(f"{P}/it[1]/ss[1]", 0, 30), (f"{P}/emph[1]/link[1]", 0, 30)]
    found = inline_elements(elements, min_chars=20)
    assert set(inline) | {f"{P}/it[1]/ss[1]", f"{P}/emph[1]/link[1]"} <= found
    assert not {ART, P} & found


def test_a_held_inline_element_without_a_value_is_no_problem() -> None:
    elements = ((ART, 0, 100), (P, 0, 100), (f"{P}/it[1]", 10, 40))
    structure = rules.Structure(100, elements, inline_elements(elements, min_chars=20))
    j = Judgement("1", "co/a1", "bob", passages=((0, 50),), best_entry_point=0,
                  exhaustivity={ART: "2", P: "2"})
    assert rules.problems(j, structure, "highlight") == []
    # a block element without a value is still asked
    j = Judgement("1", "co/a1", "bob", passages=((0, 50),), best_entry_point=0,
                  exhaustivity={ART: "2"})
    assert rules.problems(j, structure, "highlight") == [
        f"{P} holds highlighted text but has no exhaustivity"]


def test_semantic_annotations_of_the_2009_wikipedia_in_the_text_are_inline() -> None:
    """The INEX 2009-2010 Wikipedia wraps entities of its text in elements named after YAGO's
    classes (``<person>``, ``<country>``, nested, by the thousand): in a paragraph, a title or
    an item they are in the line of text, never asked; a section, a list or a paragraph is still
    asked, and an element of an unknown tag outside any text holder too."""
    body = f"{ART}/bdy[1]"
    sec = f"{body}/section[1]"
    p = f"{sec}/p[1]"
    item = f"{sec}/list[1]/item[1]"
    elements = [(ART, 0, 400), (body, 0, 400), (sec, 0, 400), (f"{sec}/title[1]", 0, 40),
                (f"{sec}/title[1]/country[1]", 5, 35), (p, 40, 300),
                (f"{p}/person[1]", 50, 90), (f"{p}/person[1]/link[1]", 50, 90),
                (f"{p}/person[1]/musician[1]", 55, 85), (f"{p}/link[1]", 100, 140),
                (f"{p}/link[1]/city[1]", 100, 140),
                (f"{sec}/list[1]", 300, 400), (item, 300, 400), (f"{item}/album[1]", 310, 350),
                (f"{body}/template[1]", 0, 0), (f"{ART}/header[1]", 0, 0),
                (f"{ART}/artifact[1]", 0, 60)]
    found = inline_elements(sorted(elements, key=lambda e: (e[1], -e[2])), min_chars=20)
    assert {f"{sec}/title[1]/country[1]", f"{p}/person[1]", f"{p}/person[1]/link[1]",
            f"{p}/person[1]/musician[1]", f"{p}/link[1]/city[1]", f"{item}/album[1]"} <= found
    assert not {ART, body, sec, p, f"{sec}/list[1]", item, f"{ART}/artifact[1]"} & found
