"""Navigation models, GR/ERR, T2I, Fetch & Browse items and bad input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from tests.eprum.eprum_synthetic import small_collection

from inexeval.errors import InexevalError, InexevalWarning, MeasureError
from inexeval.evaluation import Evaluator
from inexeval.measures import eprum
from inexeval.measures.navigation import (
    CallableNavigation,
    Geometry,
    HierarchicalNavigation,
    Item,
    Pointer,
    parse_navigation,
    read_navigation,
)
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run

S1, P1, P2, S2, ART = ("/article[1]/sec[1]", "/article[1]/sec[1]/p[1]",
                       "/article[1]/sec[1]/p[2]", "/article[1]/sec[2]", "/article[1]")


def evaluate(measures: list[str], results: list[tuple[str, str]] | list[Any],
             judged: Mapping[tuple[str, str], int], collection: Any = "small",
             **options: Any) -> dict[str, float | None]:
    ta = build_topic("1", "trec", [(f, p, {"relevance": r}) for (f, p), r in judged.items()],
                     dim_types={"relevance": int})
    if results and isinstance(results[0], tuple) and len(results[0]) == 3:
        topic_run = make_topic_run("1", [r[0] for r in results], offsets=[r[1] for r in results],
                                   lengths=[r[2] for r in results])
    else:
        topic_run = make_topic_run("1", [r[0] for r in results], paths=[r[1] for r in results])
    coll = small_collection() if collection == "small" else collection
    out = Evaluator(measures, Assessments({"1": ta}, "trec"), collection=coll,
                    options=options).evaluate(Run("r", "element", {"1": topic_run}))
    return {m: out.value("r", "1", m) for m in out.measures()}


def test_hierarchical_probabilities() -> None:
    geometry = Geometry(small_collection())
    targets = (Pointer("d1", P2), Pointer("d1", S1), Pointer("d2", P2))
    items: list[Item] = [(Pointer("d1", S1),), (Pointer("d1", ART),), (Pointer("d1", P1),),
                         (Pointer("d1", P2),), (Pointer("d2", ""),)]
    reach = HierarchicalNavigation().reach(items, targets, geometry, [None] * 5)
    got = {(int(k), int(x)): float(p) for k, x, p in zip(reach.ranks, reach.targets, reach.probs)}
    assert got == pytest.approx({
        (0, 0): 40 / 60, (0, 1): 1.0,           # sec[1] -> its p[2]; itself
        (1, 0): 40 / 100, (1, 1): 60 / 100,     # the article -> descendants
        (2, 1): 20 / 60,                        # p[1] -> its ancestor sec[1]; not its sibling
        (3, 0): 1.0, (3, 1): 40 / 60,           # p[2] -> itself, its ancestor
        (4, 2): 40 / 100,                       # the whole document d2 -> its p[2]
    })


def test_hierarchical_eprum_by_hand() -> None:
    # ideal p[2]; run sec[1], p[2]: F_1 ~ Bernoulli(2/3), F_2 = 1
    # E[A/ML] = 2/3 * 1 + 1/3 * 1/2 = 5/6, E[ML*] = 1
    values = evaluate(["EPRUM", "EPRUM_P@1", "EPRUM(nav=classical)", "GR@1", "ERR@2"],
                      [("d1", S1), ("d1", P2)], {("d1", P2): 1, ("d1", S1): 0})
    assert values["EPRUM"] == pytest.approx(5 / 6)
    assert values["EPRUM_P@1"] == pytest.approx(2 / 3)
    assert values["EPRUM(nav=classical)"] == pytest.approx(1 / 2)
    assert values["GR@1"] == pytest.approx(100 * 2 / 3)
    assert values["ERR@2"] == pytest.approx(1.0)


def test_lengths_from_assessment_sizes() -> None:
    # inex2005 assessments carry the sizes: no collection needed
    ta = build_topic("1", "inex2005", [
        ("d1", ART, {"exhaustivity": 2, "size": 100, "rsize": 40}),
        ("d1", S1, {"exhaustivity": 2, "size": 60, "rsize": 40}),
        ("d1", P2, {"exhaustivity": 2, "size": 40, "rsize": 40})])
    run = Run("r", "element", {"1": make_topic_run("1", ["d1", "d1"], paths=[S1, P2])})
    out = Evaluator(["EPRUM", "GR@1"], Assessments({"1": ta}, "inex2005")).evaluate(run)
    assert out.value("r", "1", "EPRUM") == pytest.approx(5 / 6)
    # relevant units (strict2005: fully highlighted): only p[2]
    assert out.value("r", "1", "GR@1") == pytest.approx(100 * 2 / 3)


def test_graded_idealism() -> None:
    # generalised2002: sec[2] 2E -> 0.75, p[2] 2S -> 0.5, the article 3L -> 0.75 but it contains
    # both and loses to the deeper sec[2]; levels v = 0.5 (ideal {sec[2], p[2]}), 0.75 ({sec[2]})
    ta = build_topic("1", "inex2002", [
        ("d1", P2, {"relevance": 2, "coverage": 1}), ("d1", S2, {"relevance": 2, "coverage": 3}),
        ("d1", ART, {"relevance": 3, "coverage": 2})])
    run = Run("r", "element", {"1": make_topic_run("1", ["d1"], paths=[S2])})
    names = ["EPRUM(quant=generalised,nav=classical)",
             "EPRUM(quant=generalised,nav=classical,levels_norm=none)",
             "EPRUM(quant=generalised,nav=classical)@1"]
    out = Evaluator(names, Assessments({"1": ta}, "inex2002")).evaluate(run)
    # level 0.5 (weight 0.5): AP = (1 + 0) / 2; level 0.75 (weight 0.25): AP = 1
    assert out.value("r", "1", names[0]) == pytest.approx((0.5 * 0.5 + 0.25 * 1) / 0.75)
    assert out.value("r", "1", names[1]) == pytest.approx(0.5 * 0.5 + 0.25 * 1)
    # recall 1: level 0.5 needs both units (precision 0), level 0.75 has it at rank 1
    assert out.value("r", "1", "EPRUM(quant=generalised,nav=classical)[1.00]") == \
        pytest.approx(0.25 / 0.75)


def test_t2i_tolerance() -> None:
    judged = {("d1", P2): 1}
    results = [("d1", P1)]
    assert evaluate(["T2I(tolerance=20)"], results, judged)["T2I(tolerance=20)"] == 1.0
    assert evaluate(["T2I(tolerance=19)"], results, judged)["T2I(tolerance=19)"] == 0.0
    # a passage at offset 10 is 10 characters before p[2] = [20, 60)
    passage = [("d1", 10, 5)]
    with pytest.warns(InexevalWarning, match="not in the collection"):
        assert evaluate(["T2I(tolerance=10)"], passage, judged)["T2I(tolerance=10)"] == 1.0
    with pytest.warns(InexevalWarning, match="not in the collection"):
        assert evaluate(["T2I(tolerance=9)"], passage, judged)["T2I(tolerance=9)"] == 0.0
    # starting inside sec[2], after p[2]: nothing ahead in the document
    assert evaluate(["T2I(tolerance=1000)"], [("d1", S2)], judged)["T2I(tolerance=1000)"] == 0.0
    with pytest.raises(MeasureError, match="tolerance"):
        evaluate(["T2I"], results, judged)


def test_fetch_and_browse_items() -> None:
    judged = {("d1", P2): 1, ("d2", P1): 1}
    results = [("d1", P1), ("d1", P2), ("d2", P1)]
    per_result = evaluate(["EPRUM(nav=classical)@0.5"], results, judged)
    per_document = evaluate(["EPRUM(nav=classical,items=document)@0.5"], results, judged)
    assert list(per_result.values()) == [pytest.approx(0.5)]
    assert list(per_document.values()) == [pytest.approx(1.0)]


def test_custom_rows() -> None:
    model = parse_navigation(["# from -> to", f"d1 {P1} d1 {P2} 0.25", f"d1 {S2} d1 - 0.5"])
    values = evaluate(["EPRUM(nav=custom)", "GR(nav=custom)@1"], [("d1", P1)],
                      {("d1", P2): 1}, navigation=model)
    assert values["EPRUM(nav=custom)"] == pytest.approx(0.25)
    assert values["GR(nav=custom)@1"] == pytest.approx(25.0)


def test_bad_probabilities_name_the_row() -> None:
    with pytest.raises(InexevalError, match=r"nav.txt:2: navigation probability '1.5'"):
        parse_navigation(["d1 /a d1 /a/b 0.5", "d1 /a d1 /a/c 1.5"], "nav.txt")
    with pytest.raises(InexevalError, match=r"nav.txt:1: expected FROM_FILE"):
        parse_navigation(["d1 /a d1 0.5"], "nav.txt")
    with pytest.raises(InexevalError, match=r"nav.txt:1: .*unsupported step"):
        parse_navigation(["d1 /a[x] d1 /b 0.5"], "nav.txt")

    def bad(item: Item) -> Mapping[tuple[str, str], float]:
        return {("d1", P2): 1.5}

    with pytest.raises(InexevalError, match=r"rank 1 \(run line 1\): navigation probability 1.5"):
        evaluate(["EPRUM(nav=custom)"], [("d1", P1)], {("d1", P2): 1},
                 navigation=CallableNavigation(bad))


def test_custom_model_naming_unknown_elements() -> None:
    model = parse_navigation([f"d1 {P1} d1 {P2} 0.5", f"d1 {P1} d1 /article[1]/sec[9] 0.5"],
                             "nav.txt")
    with pytest.raises(InexevalError, match=r"nav.txt:2: .*unknown element d1 "
                       r"/article\[1\]/sec\[9\]"):
        evaluate(["EPRUM(nav=custom)"], [("d1", P1)], {("d1", P2): 1}, navigation=model)


def test_inconsistent_sizes_are_an_error() -> None:
    ta = build_topic("1", "inex2005", [
        ("d1", S1, {"exhaustivity": 2, "size": 30, "rsize": 30}),
        ("d1", P2, {"exhaustivity": 2, "size": 40, "rsize": 40})])
    run = Run("r", "element", {"1": make_topic_run("1", ["d1"], paths=[S1], lines=[7])})
    with pytest.raises(InexevalError, match=r"run line 7.*outside \[0, 1\]"):
        Evaluator(["EPRUM"], Assessments({"1": ta}, "inex2005")).evaluate(run)
    unknown = Run("r", "element", {"1": make_topic_run("1", ["d1"], paths=[P1])})
    ta2 = build_topic("1", "trec", [("d1", S1, {"relevance": 1})])
    with pytest.raises(InexevalError, match="needs the length"):
        Evaluator(["EPRUM"], Assessments({"1": ta2}, "trec")).evaluate(unknown)


def test_nested_ideal_set() -> None:
    judged = {("d1", S1): 1, ("d1", P2): 1, ("d2", P1): 1}
    with pytest.raises(InexevalError, match=r"d1 /article\[1\]/sec\[1\] and d1 "
                       r"/article\[1\]/sec\[1\]/p\[2\] are nested"):
        evaluate(["EPRUM(ideal=given)"], [("d1", P1)], judged)
    # the overlap-free selection keeps the deeper of two equally ideal nested units
    ta = build_topic("1", "trec", [(f, p, {"relevance": 1}) for f, p in judged])
    ideal = eprum.ideal_set(ta, eprum.quantised(ta, eprum.TopicContext(), "strict"))
    assert ideal.units == (Pointer("d1", P2), Pointer("d2", P1))


def test_empty_run_and_no_ideal_units() -> None:
    values = evaluate(["EPRUM", "EPRUM@0.5", "EPRUM_P@5", "GR@5"], [], {("d1", P2): 1})
    assert values == {"EPRUM": 0.0, "EPRUM[0.50]": 0.0, "EPRUM_P@5": 0.0, "GR@5": 0.0}
    values = evaluate(["EPRUM", "GR@5"], [("d1", P2)], {("d1", P2): 0})
    assert values == {"EPRUM": None, "GR@5": None}


def test_read_navigation_file(tmp_path: Any) -> None:
    path = tmp_path / "nav.txt"
    path.write_text(f"d1 {P1} d1 {P2} 0.25\n\nd1 {P1} d1 {P2} 0.5\n", encoding="utf-8")
    with pytest.raises(InexevalError, match=r"nav.txt:3: pair .* already given on line 1"):
        read_navigation(path)
