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
