"""Scores: the runs × topics × measures matrix and its averaging rules, worked by hand."""

import math

import numpy as np
import pytest

from inexeval.scores import Scores, natural_order, topic_key

ROWS = [("a", "1", "AP", 0.5), ("a", "2", "AP", None), ("b", "1", "AP", 0.2),
        ("b", "3", "AP", 0.4), ("a", "all", "AP", 0.9)]


def test_rules_average_over_their_topics() -> None:
    answered = Scores.from_rows(ROWS, rule="answered")
    assert answered.topics == ("1", "2", "3")
    # a answers 1 and 2 (2 undefined): 0.5; b answers 1 and 3: 0.3
    assert answered.means()[:, 0].tolist() == [0.5, pytest.approx(0.3)]
    anyrule = answered.select(rule="any")
    # a: 0.5 and a missing 3 scoring 0 (2 undefined); b: 0.2, 0 and 0.4
    assert anyrule.means()[:, 0].tolist() == [0.25, pytest.approx(0.2)]
    runs, topics, matrix = anyrule.matrix("AP")
    assert runs == ["a", "b"] and topics == ["1", "2", "3"]
    assert matrix[0, 2] == 0.0 and math.isnan(matrix[0, 1])
    assert not anyrule.answered[0, 2] and anyrule.answered[1, 2]


def test_lookups_name_what_they_know() -> None:
    scores = Scores.from_rows(ROWS)
    with pytest.raises(KeyError, match="they have AP"):
        scores.matrix("MAP")
    with pytest.raises(KeyError, match="they have a, b"):
        scores.mean("AP", "c")
    assert "2 runs × 3 topics × 1 measures" in repr(scores)


def test_values_are_read_only() -> None:
    scores = Scores.from_rows(ROWS)
    with pytest.raises(ValueError):
        scores.values[0, 0, 0] = 1.0
    assert np.array_equal(scores.select(topics=["3"]).values[:, 0, 0], [0.0, 0.4])


def test_natural_order_takes_only_ascii_digits_as_numbers() -> None:
    assert natural_order(["10", "9", "b", "²", "a"]) == ["9", "10", "a", "b", "²"]
    assert topic_key("²") == (1, 0, "²")
