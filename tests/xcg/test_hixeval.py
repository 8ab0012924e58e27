"""HiXEval against spec §10 T-HIX, its overlap invariant, and the highlighting checks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inexeval.errors import InexevalError
from inexeval.measures.hixeval import validate_highlighting
from tests.xcg.xcg_helpers import assessments, collection, document, passages, run, score

ART, E1, E2, E3 = "/article[1]", "/article[1]/sec[1]", "/article[1]/sec[1]/p[1]", "/article[1]/sec[2]"
COLL = collection(document("d", {ART: (0, 2000), E1: (0, 500), E2: (0, 200), E3: (500, 800),
                                 "/article[1]/sec[3]": (800, 2000)}))
HIGHLIGHTS = {"d": [(0, 400), (500, 600), (1000, 1500)]}
RECORDS = [
    ("d", ART, {"exhaustivity": 1, "size": 2000, "rsize": 1000}),
    ("d", E1, {"exhaustivity": 1, "size": 500, "rsize": 400}),
    ("d", E2, {"exhaustivity": 2, "size": 200, "rsize": 200}),
    ("d", E3, {"exhaustivity": 1, "size": 300, "rsize": 100}),
    ("d", "/article[1]/sec[3]", {"exhaustivity": 1, "size": 1200, "rsize": 500}),
]
TA = assessments("inex2005", RECORDS, HIGHLIGHTS)
T_HIX_RUN = run([("d", E1), ("d", E2), ("d", E3)])

T_HIX = {  # alpha: (P@1, R@1, P@2, R@2, F@2, P@3, R@3, F@3)
    1.0: (0.8, 0.4, 0.571428571, 0.4, 0.470588235, 0.5, 0.5, 0.5),
    0.0: (0.8, 0.4, 0.857142857, 0.6, 0.705882353, 0.7, 0.7, 0.7),
    0.5: (0.8, 0.4, 0.714285714, 0.5, 0.588235294, 0.6, 0.6, 0.6),
}


@pytest.mark.parametrize("alpha", sorted(T_HIX))
@pytest.mark.parametrize("with_collection", [True, False])
def test_t_hix(alpha: float, with_collection: bool) -> None:
    coll = COLL if with_collection else None  # without: positions rebuilt from size and rsize
    got = [score(f"HiXEval_{m}(alpha={alpha})@{k}", TA, T_HIX_RUN, coll)
           for m, k in [("P", 1), ("R", 1), ("P", 2), ("R", 2), ("F", 2), ("P", 3), ("R", 3),
                        ("F", 3)]]
    assert got == pytest.approx(T_HIX[alpha], abs=1e-8)
    # shorter runs keep their last values; no cut-off scores the whole list
    assert score(f"HiXEval_F(alpha={alpha})@50", TA, T_HIX_RUN, coll) == pytest.approx(
        T_HIX[alpha][7])
    assert score(f"HiXEval_P(alpha={alpha})", TA, T_HIX_RUN, coll) == pytest.approx(
        T_HIX[alpha][5])


def test_passage_results() -> None:
    # the highlighted passages themselves: precision 1, recall 1 (HiXEval alpha=1 = Focused)
    perfect = passages([("d", 0, 400), ("d", 500, 100), ("d", 1000, 500)])
    assert score("HiXEval_P", TA, perfect, COLL) == pytest.approx(1.0)
    assert score("HiXEval_R", TA, perfect, COLL) == pytest.approx(1.0)
    overlapping = passages([("d", 0, 400), ("d", 200, 400)])
    # second passage [200, 600): 200 + 100 highlighted, 200 of them seen: rval 100
    assert score("HiXEval_P", TA, overlapping, COLL) == pytest.approx(500 / 800)


def test_empty_run_and_nothing_highlighted() -> None:
    assert score("HiXEval_F@10", TA, run([]), COLL) == 0.0
    bare = assessments("inex2005", [("d", ART, {"exhaustivity": 1, "size": 2000})])
    assert score("HiXEval_F@10", bare, T_HIX_RUN, COLL) is None


ELEMENTS = [ART, E1, E2, E3, "/article[1]/sec[3]"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(ELEMENTS), min_size=1, max_size=6), st.data())
def test_returning_an_element_twice_never_raises_precision(order: list[str], data: st.DataObject) -> None:
    again = data.draw(st.sampled_from(order))
    where = data.draw(st.integers(min_value=order.index(again) + 1, max_value=len(order)))
    doubled = [*order[:where], again, *order[where:]]
    before = score("HiXEval_P", TA, run([("d", p) for p in order]), COLL)
    after = score("HiXEval_P", TA, run([("d", p) for p in doubled]), COLL)
    assert after <= before + 1e-12


def test_validate_highlighting() -> None:
    good = validate_highlighting(TA, COLL)
    assert good == []
    bad = assessments("inex2005", [
        ("d", E1, {"exhaustivity": 1, "size": 500, "rsize": 300}),
        ("d", E3, {"exhaustivity": 1, "size": 301, "rsize": 100}),
    ], {"d": [(0, 400), (350, 450), (500, 600)]})
    with pytest.warns(UserWarning) as caught:
        problems = validate_highlighting(bad, COLL)
    assert len(problems) == len(caught) == 3
    assert any("[350, 450) overlaps" in p for p in problems)
    assert any(E1 in p and "rsize 300, but 450" in p for p in problems)
    assert any(E3 in p and "size 301" in p for p in problems)
    with pytest.raises(InexevalError, match="and 2 more"):
        validate_highlighting(bad, COLL, strict=True)
