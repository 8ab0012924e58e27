"""Quantisation functions: spec §10 T-Q spot checks and the full §2.1 tables."""

from __future__ import annotations

import pytest

from inexeval.model.assessments import COVERAGE_CODES, build_topic
from inexeval.quantise import quantise, quantise_dimensions


def q2003(name: str, e: int, s: int) -> float:
    ta = build_topic("1", "inex2003", [("A", "/a[1]", {"exhaustivity": e, "specificity": s})])
    return float(quantise(name, ta)[0])


def q2002(name: str, rel: int, cov: str) -> float:
    ta = build_topic("1", "inex2002", [("A", "/a[1]", {"relevance": rel,
                                                       "coverage": COVERAGE_CODES[cov]})])
    return float(quantise(name, ta)[0])


def q2005(name: str, e: int, size: int, rsize: int, **options: float) -> float:
    ta = build_topic("1", "inex2005", [("A", "/a[1]", {"exhaustivity": e, "size": size,
                                                       "rsize": rsize})])
    return float(quantise(name, ta, **options)[0])


def test_t_q_spot_checks() -> None:
    assert q2003("generalised", 2, 3) == 0.75
    assert q2003("generalised", 3, 1) == 0.75
    assert q2003("generalised", 2, 1) == 0.5
    assert q2003("sog", 2, 3) == 0.9
    assert q2003("sog", 3, 1) == 0.25
    assert q2003("sog", 1, 1) == 0.1
    assert q2003("liberal", 1, 2) == 1
    assert q2003("liberal", 1, 1) == 0
    assert q2003("s3e32", 1, 3) == 0
    assert q2002("generalised2002", 2, "S") == 0.5
    assert q2002("generalised2002", 3, "L") == 0.75
    assert q2005("strict2005", 2, 100, 100) == 1
    assert q2005("strict2005", 2, 100, 99) == 0
    assert q2005("gen2005", -1, 100, 100) == 0
    assert q2005("gen2005", 1, 100, 50) == 0.5
    assert q2003("anyrel", 1, 1) == 1 and q2003("anyrel", 3, 1) == 1
    assert q2003("anyrel", 0, 0) == 0


def test_aliases() -> None:
    for e in range(4):
        for s in range(4):
            if (e == 0) != (s == 0):
                continue
            assert q2003("Strict4", e, s) == q2003("strict", e, s)
            assert q2003("Gen4", e, s) == q2003("generalised", e, s)
            assert q2003("exhaustive", e, s) == q2003("e3s321", e, s)
            assert q2003("specific", e, s) == q2003("s3e321", e, s)
    assert q2005("Strict5", 2, 10, 10) == q2005("strict2005", 2, 10, 10)
    assert q2005("Gen5", 2, 10, 5) == q2005("gen2005", 2, 10, 5) == 1.0


TABLE_2003 = {  # spec §2.1, columns 33 32 31 23 22 21 13 12 11 00
    "strict": [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    "generalised": [1, .75, .75, .75, .5, .5, .5, .25, .25, 0],
    "sog": [1, .75, .25, .9, .5, .1, .75, .25, .1, 0],
    "e3s321": [1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
    "e3s32": [1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
    "s3e321": [1, 0, 0, 1, 0, 0, 1, 0, 0, 0],
    "s3e32": [1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    "liberal": [1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
    "anyrel": [1, 1, 1, 1, 1, 1, 1, 1, 1, 0],
}
PAIRS = [(3, 3), (3, 2), (3, 1), (2, 3), (2, 2), (2, 1), (1, 3), (1, 2), (1, 1), (0, 0)]


@pytest.mark.parametrize("name", sorted(TABLE_2003))
def test_2003_table(name: str) -> None:
    assert [q2003(name, e, s) for e, s in PAIRS] == TABLE_2003[name]


def test_2002_table() -> None:
    combos = ["3E", "3L", "2E", "2L", "2S", "1E", "1L", "1S", "0N"]
    values = [q2002("generalised2002", int(c[0]), c[1]) for c in combos]
    assert values == [1.0, 0.75, 0.75, 0.5, 0.5, 0.5, 0.25, 0.25, 0]
    assert [q2002("strict2002", int(c[0]), c[1]) for c in combos] == [1] + [0] * 8
    assert q2002("strict", 3, "E") == 1 and q2002("generalised", 2, "L") == 0.5


def test_too_small_value_option() -> None:
    assert q2005("gen2005", -1, 10, 10, too_small_value=1) == 1.0
    assert q2005("gen2005", -1, 10, 10, too_small_value=0.5) == 0.5


def test_ng_dimensions() -> None:
    ta = build_topic("1", "inex2003", [("A", "/a[1]", {"exhaustivity": 3, "specificity": 2})])
    e, s = quantise_dimensions("generalised", ta)
    assert (float(e[0]), float(s[0])) == (1.0, pytest.approx(2 / 3))
    e, s = quantise_dimensions("strict", ta)
    assert (float(e[0]), float(s[0])) == (1.0, 0.0)
