"""Seed 004's worked numbers (spec §10 T-EP-1..6), through the public functions and the
registered measures."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pytest

from inexeval.evaluation import Evaluator
from inexeval.measures import eprum
from inexeval.measures.navigation import CallableNavigation, Item, Reach, hitting_probability
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run


def reach(*rows: tuple[int, int, float]) -> Reach:
    return Reach.from_entries(rows)


# Fig. 3 / Table 1: targets a = 0, b = 1; ranks point at c, d, a.
KEY = reach((0, 0, 0.4), (0, 1, 0.4), (1, 0, 0.6), (1, 1, 0.4), (2, 0, 1.0))


def test_t_ep_1_noisy_or() -> None:
    seen = eprum.seen_probabilities(KEY, 3, 2)
    assert seen[:, 0] == pytest.approx([0.4, 0.76, 1.0], abs=1e-12)
    assert seen[:, 1] == pytest.approx([0.4, 0.64, 0.64], abs=1e-12)


def test_table_1_scenarios() -> None:
    seen = eprum.seen_probabilities(KEY, 3, 2)
    first = np.diff(np.vstack([np.zeros(2), seen, np.ones(2)]), axis=0)  # rank 1..3, never
    # columns of Table 1 as (rank a first seen, rank b first seen), 3 = never
    columns = [(0, 0), (0, 1), (0, 3), (1, 0), (1, 1), (1, 3), (2, 0), (2, 1), (2, 3)]
    ps = [first[a, 0] * first[b, 1] for a, b in columns]
    assert ps == pytest.approx([0.16, 0.096, 0.144, 0.144, 0.0864, 0.1296, 0.096, 0.0576,
                                0.0864], abs=1e-12)
    assert sum(ps) == pytest.approx(1.0)
    # the A/ML rows of Table 1 weighted by PS give the expectations of eq. 5
    one = [1, 1, 1, 1, 1 / 2, 1 / 2, 1, 1 / 2, 1 / 3]
    two = [1, 1 / 2, 0, 1 / 2, 1 / 2, 0, 1 / 3, 1 / 3, 0]
    inverse = eprum.expected_inverse_search_length(eprum.below_probabilities(KEY, 3, 2))
    assert inverse == pytest.approx([np.dot(ps, one), np.dot(ps, two)], abs=1e-12)


def test_t_ep_2_3_key_example_probabilities() -> None:
    below = eprum.below_probabilities(KEY, 3, 2)
    assert below[:, 0] == pytest.approx([0.36, 0.0864, 0.0], abs=1e-12)
    assert below[:, 1] == pytest.approx([0.84, 0.5136, 0.36], abs=1e-12)
    inverse = eprum.expected_inverse_search_length(below)
    assert inverse == pytest.approx([0.8056, 0.3744], abs=1e-12)
    ideal = eprum.below_probabilities(reach((0, 0, 1.0), (1, 1, 1.0)), 2, 2)
    best = eprum.expected_ideal_search_length(ideal)
    assert best == pytest.approx([1.0, 2.0])
    assert best * inverse == pytest.approx([0.8056, 0.7488], abs=1e-12)


def _key_example_model(item: Item) -> Mapping[tuple[str, str], float]:
    (pointer,) = item
    moves = {"/c[1]": {"/a[1]": 0.4, "/b[1]": 0.4}, "/d[1]": {"/a[1]": 0.6, "/b[1]": 0.4}}
    out = {("doc", to): p for to, p in moves.get(pointer.path, {}).items()}
    out[(pointer.file, pointer.path)] = 1.0
    return out


def _evaluate(measures: list[str], run_paths: list[str], judged: dict[str, int],
              **options: object) -> dict[str, float | None]:
    ta = build_topic("1", "trec", [("doc", p, {"relevance": r}) for p, r in judged.items()],
                     dim_types={"relevance": int})
    run = Run("r", "element", {"1": make_topic_run("1", ["doc"] * len(run_paths),
                                                   paths=run_paths)})
    results = Evaluator(measures, Assessments({"1": ta}, "trec"), options=options).evaluate(run)
    return {m: results.value("r", "1", m) for m in results.measures()}


def test_t_ep_2_3_through_the_measure() -> None:
    values = _evaluate(["EPRUM(nav=custom)@0.5", "EPRUM(nav=custom)@1", "EPRUM(nav=custom)",
                        "PRUM(nav=custom)@1", "EPRUM(nav=classical)@0.5"],
                       ["/c[1]", "/d[1]", "/a[1]"],
                       {"/a[1]": 1, "/b[1]": 1, "/c[1]": 0, "/d[1]": 0},
                       navigation=CallableNavigation(_key_example_model))
    assert values["EPRUM(nav=custom)[0.50]"] == pytest.approx(0.8056, abs=1e-12)
    assert values["EPRUM(nav=custom)[1.00]"] == pytest.approx(0.7488, abs=1e-12)
    assert values["EPRUM(nav=custom)"] == pytest.approx((0.8056 + 0.7488) / 2, abs=1e-12)
    assert values["PRUM(nav=custom)[1.00]"] == pytest.approx(0.7488, abs=1e-12)
    # standard precision-recall on the same list (seed 004 §4): 1/3 at recall 1
    assert values["EPRUM(nav=classical)[0.50]"] == pytest.approx(1 / 3, abs=1e-12)


def test_t_ep_4_ideal_search_length() -> None:
    # elements a, b, c; b = 0 and c = 1 ideal; from a the user reaches b and c with 0.9 each
    below = eprum.below_probabilities(
        reach((0, 0, 0.9), (0, 1, 0.9), (1, 0, 1.0), (2, 1, 1.0)), 3, 2)
    assert below[:, 1] == pytest.approx([0.19, 0.1, 0.0], abs=1e-12)
    assert eprum.expected_ideal_search_length(below)[1] == pytest.approx(1.29, abs=1e-12)
    only_b = eprum.below_probabilities(reach((0, 0, 1.0)), 1, 2)
    assert eprum.expected_ideal_search_length(only_b)[0] == pytest.approx(1.0)
    assert np.isinf(eprum.expected_ideal_search_length(only_b)[1])  # b alone never gives 2


def test_t_ep_5_navigation_example() -> None:
    moves = {"x": {"y": 0.5, "z": 0.3}, "y": {"z": 0.8}, "z": {"y": 0.12}}
    to_y = hitting_probability(moves, "x", ["y"])
    to_z = hitting_probability(moves, "x", ["z"])
    assert to_y == pytest.approx(0.536, abs=1e-12)
    assert to_z == pytest.approx(0.7, abs=1e-12)
    assert hitting_probability(moves, "x", ["x"]) == 1.0
    either = hitting_probability(moves, "x", ["y", "z"])
    assert to_y + to_z - either == pytest.approx(0.436, abs=1e-12)  # exact joint
    assert to_y * to_z == pytest.approx(0.3752, abs=1e-12)  # independence hypothesis 3.1
    assert moves["x"]["y"] * moves["x"]["z"] == pytest.approx(0.15)  # direct moves only


def test_t_ep_6_classical_reduction() -> None:
    values = _evaluate(["EPRUM(nav=classical)@0.33", "EPRUM(nav=classical)@0.66",
                        "EPRUM(nav=classical)@1", "EPRUM_P(nav=classical)@4"],
                       ["/r[1]", "/n[1]", "/n[2]", "/r[2]"],
                       {"/r[1]": 1, "/r[2]": 1, "/r[3]": 1})
    assert values["EPRUM(nav=classical)[0.33]"] == pytest.approx(1.0, abs=1e-12)
    assert values["EPRUM(nav=classical)[0.66]"] == pytest.approx(0.5, abs=1e-12)
    assert values["EPRUM(nav=classical)[1.00]"] == pytest.approx(0.0, abs=1e-12)
    assert values["EPRUM_P(nav=classical)@4"] == pytest.approx(0.5, abs=1e-12)
