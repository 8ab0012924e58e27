"""Five-point scale (spec §10 T-5P), its statistics, and the simulated runs of seeds 001/002."""

from __future__ import annotations

import numpy as np
import pytest

from inexeval.analysis.grades import five_point_grades, grade_statistics, summarise
from inexeval.analysis.simulate import grade_runs, ideal_answer_set
from inexeval.errors import InexevalError
from inexeval.evaluation import evaluate
from inexeval.measures.hixeval import validate_highlighting
from inexeval.model import Assessments
from tests.xcg.xcg_helpers import assessments, collection, document

T_5P = [  # path, size, rsize, grade
    ("/article[1]", 1300, 600, "PA"),
    ("/article[1]/sec[1]", 400, 300, "EA"),
    ("/article[1]/sec[1]/p[1]", 200, 200, "EA"),
    ("/article[1]/sec[1]/p[2]", 200, 100, "PA"),
    ("/article[1]/sec[2]", 600, 0, "NR"),
    ("/article[1]/sec[3]", 300, 300, "EA"),
    ("/article[1]/sec[3]/p[1]", 100, 100, "NA"),
    ("/article[1]/sec[3]/p[2]", 200, 200, "NA"),
]


def records(rows: list[tuple[str, int, int, str]], e: int = 1) -> list:
    return [("d", p, {"exhaustivity": e, "size": s, "rsize": r}) for p, s, r, _ in rows]


def test_t_5p() -> None:
    ta = assessments("inex2005", records(T_5P))
    assert five_point_grades(ta).tolist() == [g for *_, g in T_5P]


@pytest.mark.parametrize("size, rsize, grade", [
    (100, 66, "PA"), (1000, 665, "EA"), (100, 33, "PA"), (10000, 3299, "BA"), (3, 2, "EA"),
    (3, 1, "PA"), (10, 1, "BA"), (10, 10, "EA"),
])
def test_literal_decimal_bounds(size: int, rsize: int, grade: str) -> None:
    ta = assessments("inex2005", [("d", "/article[1]/sec[1]", {"exhaustivity": 1, "size": size,
                                                               "rsize": rsize})])
    assert five_point_grades(ta).tolist() == [grade]


def test_needs_2005_assessments() -> None:
    with pytest.raises(InexevalError, match="five-point"):
        five_point_grades(assessments("inex2003", [("d", "/a[1]", {"exhaustivity": 3,
                                                                   "specificity": 3})]))


def test_statistics_like_seed_001_tables_4_and_5() -> None:
    rows = records(T_5P)
    rows[6][2]["exhaustivity"] = -1  # sec[3]/p[1] too small
    first = grade_statistics(assessments("inex2005", rows))
    assert first["EA"].count == 3
    assert first["EA"].mean_size == pytest.approx(300)
    assert first["EA"].mean_proportion == pytest.approx((0.75 + 1 + 1) / 3)
    assert first["NA"].exhaustivity == {"E2": 0.0, "E1": 0.5, "E?": 0.5}
    assert first["BA"].count == 0 and first["BA"].mean_size is None
    second = grade_statistics(assessments("inex2005", records(T_5P[:2]), topic="2"))
    summary = summarise({"1": first, "2": second})
    assert summary["EA"]["Mean"]["Total"] == pytest.approx(2.0)
    assert summary["EA"]["Minimum"]["Total"] == 1 and summary["EA"]["Maximum"]["Total"] == 3
    assert summary["EA"]["StDev"]["Total"] == pytest.approx(np.std([3, 1], ddof=1))
    assert summary["EA"]["Median"]["av_size"] == pytest.approx((300 + 400) / 2)
    assert summary["NA"]["Mean"]["Total"] == pytest.approx(1.0)  # 2 and 0
    assert summary["NA"]["Mean"]["av_prel"] == pytest.approx(1.0)  # topic 1 only


# A small collection: two articles whose relevant text sits in a few paragraphs.
D1 = {"/article[1]": (0, 10000), "/article[1]/sec[1]": (0, 2000),
      "/article[1]/sec[1]/p[1]": (0, 500), "/article[1]/sec[1]/p[1]/s[1]": (0, 100),
      "/article[1]/sec[1]/p[2]": (500, 1000), "/article[1]/sec[1]/p[3]": (1000, 2000),
      "/article[1]/sec[2]": (2000, 10000), "/article[1]/sec[2]/p[1]": (2000, 2400),
      "/article[1]/sec[2]/p[2]": (2400, 10000)}
D2 = {"/article[1]": (0, 4000), "/article[1]/sec[1]": (0, 1000),
      "/article[1]/sec[1]/p[1]": (0, 700), "/article[1]/sec[2]": (1000, 4000)}
COLL = collection(document("d1", D1), document("d2", D2))
HIGHLIGHTS = {"d1": [(0, 500), (500, 800), (2000, 2400)], "d2": [(0, 600), (1000, 1200)]}


def synthetic() -> Assessments:
    rows = []
    for name, elements in (("d1", D1), ("d2", D2)):
        marked = np.array(HIGHLIGHTS[name])
        for path, (start, end) in elements.items():
            inside = int(np.clip(np.minimum(marked[:, 1], end) - np.maximum(marked[:, 0], start),
                                 0, None).sum())
            if inside:
                rows.append((name, path, {"exhaustivity": 2, "size": end - start, "rsize": inside}))
    ta = assessments("inex2005", rows, HIGHLIGHTS, topic="7")
    return Assessments({"7": ta}, "inex2005")


def test_synthetic_assessments_are_consistent() -> None:
    assert validate_highlighting(synthetic()["7"], COLL, strict=True) == []


def test_ea_run_beats_ba_run_under_hixeval() -> None:
    """Seed 001 Fig. 4: the EA run beats the BA run; the passage run is perfect."""
    runs = grade_runs(synthetic())
    assert [p for p in runs["EA"]["7"].paths] == ["/article[1]/sec[1]/p[1]",
                                                   "/article[1]/sec[1]/p[1]",
                                                   "/article[1]/sec[2]/p[1]"]
    assert runs["EA"]["7"].files.tolist() == ["d2", "d1", "d1"]
    measures = ["HiXEval_P", "HiXEval_R", "HiXEval_F", "HiXEval_F@2"]
    results = evaluate(synthetic(), list(runs.values()), measures, collection=COLL)
    f = {name: results.value(name, "7", "HiXEval_F") for name in runs}
    assert f["EA"] > f["BA"] + 0.2
    assert f["EA"] > f["FullRB"]
    assert results.value("Passage", "7", "HiXEval_P") == pytest.approx(1.0)
    assert results.value("Passage", "7", "HiXEval_R") == pytest.approx(1.0)
    assert len(runs["Passage"]["7"]) == 4  # d1's [0, 500) and [500, 800) merge


def test_grade_runs_limit_and_unknown_name() -> None:
    assert len(grade_runs(synthetic(), limit=2, runs=["FullRB"])["FullRB"]["7"]) == 2
    with pytest.raises(InexevalError, match="unknown simulated"):
        grade_runs(synthetic(), runs=["XX"])


def test_ideal_answer_set_order() -> None:
    ta = assessments("inex2003", [
        ("d", "/a[1]/f[1]", {"exhaustivity": 2, "specificity": 2}),  # 0.5, size 100
        ("d", "/a[1]/f[2]", {"exhaustivity": 3, "specificity": 3}),  # 1.0, size 10
        ("d", "/a[1]/f[3]", {"exhaustivity": 1, "specificity": 3}),  # 0.5, size 300
        ("d", "/a[1]/f[4]", {"exhaustivity": 0, "specificity": 0}),  # 0, size 500
        ("d", "/a[1]/f[5]", {"exhaustivity": 0, "specificity": 0}),  # 0, size 900
    ])
    coll = collection(document("d", {"/a[1]": (0, 2000), "/a[1]/f[1]": (0, 100),
                                     "/a[1]/f[2]": (100, 110), "/a[1]/f[3]": (110, 410),
                                     "/a[1]/f[4]": (410, 910), "/a[1]/f[5]": (910, 1810)}))
    both = Assessments({"1": ta}, "inex2003")
    by_value = ideal_answer_set(both, collection=coll)["1"].paths.tolist()
    assert by_value == ["/a[1]/f[2]", "/a[1]/f[3]", "/a[1]/f[1]", "/a[1]/f[5]", "/a[1]/f[4]"]
    by_mass = ideal_answer_set(both, collection=coll, sort_key="size_x_value")["1"].paths.tolist()
    assert by_mass == ["/a[1]/f[3]", "/a[1]/f[1]", "/a[1]/f[2]", "/a[1]/f[5]", "/a[1]/f[4]"]
    fragments = {"d": ["/a[1]/f[1]", "/a[1]/f[5]", "/a[1]"]}
    picked = ideal_answer_set(both, collection=coll, fragments=fragments, limit=2)["1"]
    assert picked.paths.tolist() == ["/a[1]/f[1]", "/a[1]"]
    with pytest.raises(InexevalError, match="sizes"):
        ideal_answer_set(both)


def test_grades_command(capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    from inexeval.cli import main

    fixture = Path(__file__).parent / "data" / "t5p_2005.xml"
    assert main(["grades", str(fixture)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "topic\tgrade\tTotal\tav_size\tav_prel\tE2\tE1\tE?"
    assert lines[1] == "203\tEA\t3\t300\t0.92\t0.67\t0.33\t0.00"
    assert lines[4] == "203\tNA\t2\t150\t1.00\t0.00\t0.00\t1.00"
    assert "Mean\tPA\t2\t750\t0.48\t0.00\t1.00\t0.00" in lines
    assert main(["grades", str(fixture.with_name("missing.xml"))]) == 2
