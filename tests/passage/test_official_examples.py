"""Spec §15.15 worked examples (the official evaluator's exact output) and §10 vectors."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from inexeval.errors import FormatError, InexevalWarning, RunError
from inexeval.formats.fol import read_fol_qrels, read_fol_run
from inexeval.measures.focused import evaluate_task
from inexeval.model import Assessments
from inexeval.model.assessments import build_topic

from .conftest import Evaluate, same, values

E1_QRELS = ("1 Q0 A 100 1000 100 500:60 100:40\r\n1 Q0 B 0 800\r\n1 Q0 C 50 600 20\r\n"
            "2 Q0 E 100 1000 0 0:100\r\n")
E1_RUN = """1 Q0 B 1 9 myrun 0 50
1 Q0 A 2 8 myrun 100 29
1 Q0 A 3 7 myrun 500 60
1 Q0 C 4 6 myrun 0 10
2 Q0 E 1 1 myrun 0 29
3 Q0 Z 1 1 myrun 0 10
"""


def test_e15_1_focused(evaluate: Evaluate) -> None:
    with pytest.warns(UserWarning, match="not in the qrels"):
        results = evaluate(E1_QRELS, E1_RUN, "focused")
    one, two, total = values(results, "1"), values(results, "2"), values(results, "all")
    assert one == pytest.approx({
        "num_ret": 3, "num_rel": 2, "num_rel_ret": 2, "ret_size": 149, "rel_size": 150,
        "rel_ret_size": 89, "art_prec": 0.6666666666666666, "art_rec": 1.0, "art_f1": 0.8,
        "char_prec": 0.5973154362416108, "char_rec": 0.5933333333333334,
        "char_f1": 0.5953177257525084, "iP[0.00]": 0.6402877697841727,
        "iP[0.01]": 0.6402877697841727, "iP[0.05]": 0.6402877697841727,
        "iP[0.10]": 0.6402877697841727, "AiP": 0.38036897214901366}, abs=1e-12)
    assert same(two["char_f1"], 0.44961240310077516) and same(two["AiP"], 29 / 101)
    assert same(total["num_q"], 2) and same(total["ret_size"], 178)
    assert same(total["MAiP"], 0.33374884251015036) and same(total["art_f1"], 0.9)
    assert same(total["char_f1"], 0.5224650644266418)
    assert same(total["ircl_prn.0.28"], 0.8201438848920863)
    assert same(total["ircl_prn.0.29"], 0.32014388489208634)
    assert same(total["ircl_prn.0.59"], 0.32014388489208634)
    assert same(total["ircl_prn.0.60"], 0.0)
    names = [r.measure for r in results.means()]
    assert names[:8] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size",
                         "rel_ret_size", "art_prec"]
    assert names[17] == "MAiP" and names[-1] == "ircl_prn.1.00" and len(names) == 119


def test_t_fp_1_exact_buckets(evaluate: Evaluate) -> None:
    """29/100 lands in bucket 28 in doubles (official) and in bucket 29 exactly."""
    qrels, run = "2 Q0 E 100 1000 0 0:100\n", "2 Q0 E 1 1 r 0 29\n"
    official = values(evaluate(qrels, run, "focused"), "2")
    assert same(official["AiP"], 29 / 101)
    exact = values(evaluate(qrels, run, "focused", exact_buckets=True), "2")
    assert same(exact["AiP"], 30 / 101)


E2_QRELS = "7 Q0 A 60 1000 0 100:40 300:20\n7 Q0 N 0 500\n"
E2_RUN = """7 Q0 A 1 1 th 100 20
7 Q0 A 2 1 th 300 50
7 Q0 A 3 1 th 50 300
7 Q0 N 4 1 th 0 100
7 Q0 N 5 1 th 50 100
7 Q0 A 6 1 th 0 1000
7 Q0 A 7 1 th X 0
7 Q0 N 8 1 th -1 0
"""


def test_e15_2_thorough(evaluate: Evaluate) -> None:
    total = values(evaluate(E2_QRELS, E2_RUN, "thorough"), "all")
    expected = {"num_q": 1, "num_ret": 2, "num_rel": 1, "num_rel_ret": 1, "ret_size": 1218,
                "rel_size": 60, "rel_ret_size": 60, "art_prec": 0.5, "art_rec": 1.0,
                "art_f1": 0.6666666666666666, "char_prec": 0.04926108374384237,
                "char_rec": 1.0, "char_f1": 0.09389671361502348, "iP[0.00]": 1.0,
                "MAiP": 0.5906647807637909, "ircl_prn.0.33": 1.0,
                "ircl_prn.0.34": 0.5714285714285714, "ircl_prn.0.66": 0.5714285714285714,
                "ircl_prn.0.67": 0.2, "ircl_prn.1.00": 0.2}
    for name, value in expected.items():
        assert same(total[name], value), name


def test_e15_2_overlap_rejected_in_focused(evaluate: Evaluate) -> None:
    with pytest.raises(RunError, match="overlaps") as error:
        evaluate(E2_QRELS, E2_RUN, "focused")
    assert error.value.line == 3 and error.value.file is not None


E3_QRELS = """8 Q0 A 100 1000 150 100:100
8 Q0 B 50 400 0 0:50
8 Q0 C 200 2000 900 900:200
8 Q0 D 0 300
9 Q0 X1 10 100 5 5:10
"""
E3_RUN = """8 Q0 A 1 1 ric 100 50
8 Q0 A 1 1 ric 300 100
8 Q0 D 2 1 ric 0 300
8 Q0 B 3 1 ric 0 100
"""


def test_e15_3_relevant_in_context(evaluate: Evaluate) -> None:
    results = evaluate(E3_QRELS, E3_RUN, "relevant-in-context")
    topic = values(results, "8")
    expected = {"num_ret": 3, "num_rel": 3, "num_rel_ret": 2, "ret_size": 550, "rel_size": 350,
                "rel_ret_size": 100, "gP[1]": 0.3399999999999999, "gR[1]": 0.3333333333333333,
                "gP[2]": 0.16999999999999996, "gP[3]": 0.285050505050505,
                "gR[3]": 0.6666666666666666, "gP[50]": 0.285050505050505,
                "gR[50]": 0.6666666666666666, "AgP": 0.20835016835016829}
    for name, value in expected.items():
        assert same(topic[name], value), name
    total = values(results, "all")
    assert same(total["num_rel"], 4) and same(total["rel_size"], 360)
    assert same(total["MAgP"], 0.20835016835016829)
    assert same(total["ircl_prn.0.30"], 0.3399999999999999)
    assert same(total["ircl_prn.0.40"], 0.285050505050505)
    assert same(total["ircl_prn.0.70"], 0.0)
    complete = values(evaluate(E3_QRELS, E3_RUN, "relevant-in-context", complete=True), "all")
    assert same(complete["num_q"], 2) and same(complete["MAgP"], 0.10417508417508414)
    assert same(complete["gP[1]"], 0.16999999999999996)
    assert same(complete["gR[1]"], 0.16666666666666666)
    assert same(complete["num_rel"], 4)
    harmonic = values(evaluate(E3_QRELS, E3_RUN, "relevant-in-context", beta=1.0), "all")
    assert same(harmonic["MAgP"], 0.2518518518518518) and same(harmonic["gP[1]"], 0.4)
    assert same(harmonic["gP[3]"], 0.35555555555555557)


E4_QRELS = """11 Q0 A 100 1000 150 100:100
11 Q0 B 50 400 0 0:50
11 Q0 C 200 2000 900
11 Q0 D 0 300
11 Q0 E 30 300 -1 10:30
"""
E4_RUN = """11 Q0 A 1 1 bic 400 1
11 Q0 D 2 1 bic 0 1
11 Q0 B 3 1 bic 500 1
11 Q0 C 4 1 bic 900 1
11 Q0 E 5 1 bic 10 1
11 Q0 Z 6 1 bic X 1
"""


def test_e15_4_best_in_context(evaluate: Evaluate) -> None:
    with pytest.warns(InexevalWarning, match="end beyond the article length"):
        results = evaluate(E4_QRELS, E4_RUN, "best-in-context")
    topic = values(results, "11")
    expected = {"num_ret": 6, "num_rel": 4, "num_rel_ret": 4, "ret_size": 0, "rel_size": 380,
                "rel_ret_size": 0, "gP[1]": 0.5, "gR[1]": 0.25, "gP[2]": 0.25,
                "gP[3]": 0.16666666666666666, "gR[3]": 0.5, "gP[5]": 0.1, "gR[5]": 1.0,
                "gP[10]": 0.08333333333333333, "AgP": 0.22291666666666665}
    for name, value in expected.items():
        assert same(topic[name], value), name
    total = values(results, "all")
    for point, value in (("0.20", 0.5), ("0.30", 0.16666666666666666), ("0.50",
                         0.16666666666666666), ("0.60", 0.125), ("0.70", 0.125), ("0.80", 0.1)):
        assert same(total[f"ircl_prn.{point}"], value), point
    with pytest.warns(InexevalWarning, match="end beyond the article length"):
        wide = values(evaluate(E4_QRELS, E4_RUN, "best-in-context", bep_n=1000), "all")
    assert same(wide["MAgP"], 0.4322916666666667) and same(wide["gP[1]"], 0.75)
    assert same(wide["gP[3]"], 0.4166666666666667)


def test_e15_4_one_result_per_article(evaluate: Evaluate) -> None:
    run = E4_RUN.replace("bic 400 1\n", "bic 400 1\n11 Q0 A 2 1 bic 100 1\n", 1)
    with pytest.raises(RunError, match="multiple results") as error, \
            pytest.warns(InexevalWarning, match="end beyond the article length"):
        evaluate(E4_QRELS, run, "best-in-context")
    assert error.value.line == 2


E5_QRELS = """12 Q0 A 200 1000 100 100:100 600:100
12 Q0 B 200 1000 100 600:100 100:100
12 Q0 C 50 400 0 0:50
12 Q0 R 40 100 0 0:40
"""
E5_RUN = """12 Q0 A 1 1 t2i 150 100
12 Q0 B 2 1 t2i 600 50
12 Q0 B 2 1 t2i 100 20
12 Q0 C 3 1 t2i X 0
"""


@pytest.mark.parametrize(("irr", "gp1", "gp3", "agp"), [
    (1, 0.9803921568627451, 0.9822332688944123, 0.7364448126668508),
    (50, 0.5, 0.5277777777777778, 0.39236111111111116),
    (150, 0.25, 0.3333333333333333, 0.23958333333333331),
    (151, 0.398406374501992, 0.3818338212797861, 0.30715320456218026),
    (300, 0.25, 0.242063492063492, 0.19593253968253965),
    (400, 0.2, 0.19924242424242422, 0.15890151515151515),
    (1000, 0.2, 0.17500000000000002, 0.14375000000000002),
])
def test_e15_5_t2i(evaluate: Evaluate, irr: int, gp1: float, gp3: float, agp: float) -> None:
    topic = values(evaluate(E5_QRELS, E5_RUN, "t2i", irr=irr), "12")
    assert same(topic["gP[1]"], gp1) and same(topic["gP[3]"], gp3) and same(topic["AgP"], agp)
    if irr == 300:
        assert same(topic["gP[2]"], 0.29166666666666663) and same(topic["ret_size"], 188)
        assert same(topic["rel_ret_size"], 120) and same(topic["gR[3]"], 0.75)


def test_e15_5_same_run_under_relevant_in_context(evaluate: Evaluate) -> None:
    assert same(values(evaluate(E5_QRELS, E5_RUN, "relevant-in-context"), "12")["AgP"],
                0.40425084175084175)


E6_QRELS = "9 Q0 A 10 100 0 0:10\n10 Q0 B 20 100 0 0:20\n10 Q0 C 20 100 0 50:20\n100 Q0 N 0 100\n"


def test_e15_6_split_topic_is_grouped(evaluate: Evaluate) -> None:
    """The official tool prints num_rel_ret 3 > num_rel 2 here; grouped by topic it is right."""
    run = "10 Q0 B 1 1 sp 0 20\n9 Q0 A 1 1 sp 0 10\n10 Q0 C 2 1 sp 50 20\n10 Q0 B 3 1 sp 20 10\n"
    with pytest.warns(UserWarning, match="resumes"):
        topic = values(evaluate(E6_QRELS, run, "focused"), "10")
    assert topic["num_ret"] == 2 and topic["num_rel_ret"] == 2 and topic["art_rec"] == 1.0
    assert same(topic["char_prec"], 40 / 50) and same(topic["char_rec"], 1.0)
    with pytest.raises(RunError, match="interleaved") as error, \
            pytest.warns(InexevalWarning, match="resumes"):
        evaluate(E6_QRELS, run, "relevant-in-context")
    assert error.value.line == 4


def test_e15_6_topic_without_relevant_articles(evaluate: Evaluate) -> None:
    run = "9 Q0 A 1 1 nn 0 10\n100 Q0 N 1 1 nn 0 10\n"
    results = evaluate(E6_QRELS, run, "focused")
    total = values(results, "all")
    assert same(total["num_q"], 2) and same(total["art_prec"], 0.5)
    assert math.isnan(total["art_rec"] or 0.0) and same(total["art_f1"], 0.5)
    assert same(total["char_rec"], math.nan) and same(total["MAiP"], 0.5)
    assert [r.topic for r in results.rows][::17] == ["100", "9"]
    complete = values(evaluate(E6_QRELS, run, "focused", complete=True), "all")
    assert same(complete["num_q"], 3) and same(complete["art_prec"], 0.3333333333333333)
    assert same(complete["MAiP"], 0.3333333333333333)
    ric = evaluate(E6_QRELS, run, "relevant-in-context", complete=True)
    assert [r.topic for r in ric.rows][::21] == ["10", "100", "9"]
    ric_total = values(ric, "all")
    assert same(ric_total["num_q"], 3) and same(ric_total["MAgP"], math.nan)
    assert same(ric_total["gP[1]"], 0.3333333333333333) and same(ric_total["gR[1]"], math.nan)


def test_e15_6_impossible_recall_point(tmp_path: Path) -> None:
    """A file declaring fewer relevant characters (rsize 10) than it highlights (50) is refused
    now; the same judgement built in memory still scores as the official evaluator scores it."""
    (tmp_path / "q.txt").write_text("6 Q0 F 10 1000 0 0:50\n")
    with pytest.raises(FormatError, match=r"rsize 10 is not the sum .* \(50\)"):
        read_fol_qrels(tmp_path / "q.txt")
    qrels = Assessments({"6": build_topic(
        "6", "fol", [("F", "", {"rsize": 10, "length": 1000, "bep": 0})],
        dim_types={"rsize": int, "length": int, "bep": int},
        highlights={"F": np.array([[0, 50]], dtype=np.int64)}, best_entry_points={"F": 0})},
        "fol")
    (tmp_path / "r.run").write_text("6 Q0 F 1 1 imp 0 50\n")
    with pytest.warns(UserWarning, match="impossible recall point 500"):
        topic = values(evaluate_task(qrels, [read_fol_run(tmp_path / "r.run")], "focused"), "6")
    assert same(topic["char_prec"], 1.0) and same(topic["char_rec"], 5.0)
    assert same(topic["char_f1"], 1.6666666666666667) and same(topic["AiP"], 0.0)


def test_t_foc(evaluate: Evaluate) -> None:
    """Spec §10 T-FOC: AiP = 22/101, iP[0.15] = 0.75, iP[0.16] = 0.4."""
    qrels = "1 Q0 A 1000 5000 0 0:150 1000:250 2000:600\n"
    run = "1 Q0 A 1 1 r 0 200\n1 Q0 A 2 1 r 300 500\n1 Q0 A 3 1 r 1000 300\n"
    topic = values(evaluate(qrels, run, "focused"), "1")
    assert same(topic["AiP"], 22 / 101) and same(topic["iP[0.10]"], 0.75)
    assert same(topic["char_prec"], 0.4) and same(topic["char_rec"], 0.4)


T_RIC_QRELS = ("1 Q0 A 500 1000 0 0:500\n1 Q0 B 400 1000 0 0:400\n1 Q0 C 100 1000 0 0:100\n"
               "1 Q0 X 0 1000\n")
T_RIC_RUN = "1 Q0 A 1 1 r 200 400\n1 Q0 X 2 1 r 0 50\n1 Q0 B 3 1 r 0 100\n"


@pytest.mark.parametrize(("beta", "agp", "gp"), [
    (1.0, 46 / 135, [2 / 3, 1 / 3, (2 / 3 + 0.4) / 3]), (0.25, 0.422947, None)])
def test_t_ric(evaluate: Evaluate, beta: float, agp: float, gp: list[float] | None) -> None:
    topic = values(evaluate(T_RIC_QRELS, T_RIC_RUN, "relevant-in-context", beta=beta), "1")
    assert topic["AgP"] == pytest.approx(agp, abs=1e-6)
    if gp is not None:
        assert [topic["gP[1]"], topic["gP[2]"], topic["gP[3]"]] == pytest.approx(gp)
        assert same(topic["gP[5]"], gp[2])  # official: the last rank's value past the end
        assert [topic["gR[1]"], topic["gR[3]"]] == pytest.approx([1 / 3, 2 / 3])


@pytest.mark.parametrize(("n", "agp", "gp"), [(1000, 1 / 3, [0.7, 0.35, 0.3]),
                                              (500, 0.177778, [0.4, 0.2, 0.133333])])
def test_t_bic(evaluate: Evaluate, n: int, agp: float, gp: list[float]) -> None:
    qrels = ("1 Q0 A 500 3000 1200 1000:500\n1 Q0 B 400 1000 0 0:400\n"
             "1 Q0 C 100 1000 0 0:100\n")
    run = "1 Q0 A 1 1 r 1500 1\n1 Q0 X 2 1 r 0 1\n1 Q0 B 3 1 r 800 1\n"
    topic = values(evaluate(qrels, run, "best-in-context", bep_n=n), "1")
    assert topic["AgP"] == pytest.approx(agp, abs=1e-6)
    assert [topic["gP[1]"], topic["gP[2]"], topic["gP[3]"]] == pytest.approx(gp, abs=1e-6)
