"""inex_eval_ng against spec §10 T-NG and the invariants of seed 002 §7.3.3."""

from __future__ import annotations

import numpy as np
import pytest

from inexeval.errors import InexevalError
from inexeval.measures.ng import (
    assessment_layout,
    interpolate_max,
    overlap_free_recall_base,
    recall_precision_o,
)
from inexeval.measures.registry import TopicContext
from inexeval.quantise import quantise_dimensions
from tests.xcg.xcg_helpers import assessments, collection, document, run, score

A, S1, S2 = "/article[1]", "/article[1]/sec[1]", "/article[1]/sec[2]"
COLL = collection(document("d", {A: (0, 1000), S1: (0, 400), S2: (400, 1000)}))
TA = assessments("inex2003", [
    ("d", A, {"exhaustivity": 3, "specificity": 2}),
    ("d", S1, {"exhaustivity": 2, "specificity": 3}),
    ("d", S2, {"exhaustivity": 1, "specificity": 1}),
])


def curve(order: list[str], **options: str) -> tuple[np.ndarray, np.ndarray]:
    result = recall_precision_o(TA, run([("d", p) for p in order]), TopicContext(COLL),
                                quant="generalised", **options)
    assert result is not None
    return result


def test_t_ng_1_overlap_considered() -> None:
    recall, precision = curve([S1, A])
    np.testing.assert_allclose(recall, [1 / 3, 0.633333333], atol=1e-8)
    np.testing.assert_allclose(precision, [1.0, 0.8], atol=1e-12)
    recall, precision = curve([A, S1])
    np.testing.assert_allclose(recall, [0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(precision, [2 / 3, 2 / 3], atol=1e-12)


def test_t_ng_2_overlap_ignored_is_order_free() -> None:
    for order in ([A, S1], [S1, A]):
        recall, precision = curve(order, overlap="ignored")
        assert recall[-1] == pytest.approx(0.833333333, abs=1e-8)
        assert precision[-1] == pytest.approx(0.761904762, abs=1e-8)


def test_order_of_ancestor_and_descendant() -> None:
    """Seed 002's criticism: once both are returned, the order of an ancestor and its descendant
    changes recall_o and precision_o with overlap considered, and not with overlap ignored."""
    ignored = [curve(order, overlap="ignored") for order in ([A, S1], [S1, A])]
    assert ignored[0][0][-1] == pytest.approx(ignored[1][0][-1], abs=1e-12)
    assert ignored[0][1][-1] == pytest.approx(ignored[1][1][-1], abs=1e-12)
    considered = [curve(order) for order in ([A, S1], [S1, A])]
    assert considered[1][0][-1] > considered[0][0][-1] + 0.1
    assert considered[1][1][-1] > considered[0][1][-1] + 0.1
    longer = [[A, S1, S2], [S1, A, S2], [S1, S2, A]]
    final = {tuple(o): curve(o, overlap="ignored") for o in longer}
    assert len({round(float(c[0][-1]), 12) for c in final.values()}) == 1
    assert len({round(float(c[1][-1]), 12) for c in final.values()}) == 1


def test_average_over_recall_points_by_hand() -> None:
    # run [S1, A], considered: (R, P) = (1/3, 1.0), (0.6333, 0.8); interpolated precision is 1.0
    # for x <= 0.33, 0.8 for 0.34..0.63, 0 above: (33 * 1.0 + 30 * 0.8) / 100.
    value = score("inex_eval_ng(quant=generalised)", TA, run([("d", S1), ("d", A)]), COLL)
    assert value == pytest.approx((33 + 30 * 0.8) / 100, abs=1e-12)
    at = score("inex_eval_ng(quant=generalised)@0.5", TA, run([("d", S1), ("d", A)]), COLL)
    assert at == pytest.approx(0.8)


def test_recall_bases() -> None:
    e, _ = quantise_dimensions("generalised", TA)
    assert float(e.sum()) == pytest.approx(2.0)
    # best antichain: max(e'(A) = 1, e'(S1) + e'(S2) = 1) = 1
    assert overlap_free_recall_base(TA, e) == pytest.approx(1.0)
    recall, _ = curve([S1, S2], recall_base="overlap_free")
    assert recall[-1] == pytest.approx(1.0)  # 100 % recall with no overlapping answer
    literal, _ = curve([S1, S2])
    assert literal[-1] == pytest.approx(0.5)  # literal base: nested components counted twice


def test_strict_topic_without_relevant_is_undefined() -> None:
    weak = assessments("inex2003", [("d", A, {"exhaustivity": 2, "specificity": 2})])
    assert score("inex_eval_ng", weak, run([("d", A)]), COLL) is None
    strict = assessments("inex2003", [("d", S1, {"exhaustivity": 3, "specificity": 3})])
    assert score("inex_eval_ng", strict, run([("d", A), ("d", S1)]), COLL) == pytest.approx(
        # rank 1: A unjudged, P = 0 at R = 0; rank 2: S1 fully seen, nothing new
        0.0
    )
    assert score("inex_eval_ng", strict, run([("d", S1)]), COLL) == pytest.approx(1.0)


def test_unknown_size_is_an_error_unless_given() -> None:
    with pytest.raises(InexevalError, match="unknown_size"):
        score("inex_eval_ng", TA, run([("d", "/article[1]/sec[9]")]), COLL)
    value = score("inex_eval_ng(quant=generalised,unknown_size=100)", TA,
                  run([("d", "/article[1]/sec[9]"), ("d", S1)]), COLL)
    # rank 2: R = (2/3)/2, P = 400/500
    assert value == pytest.approx(33 * 0.8 / 100)


def test_interpolate_max() -> None:
    got = interpolate_max(np.array([0.2, 0.5, 0.29]), np.array([0.9, 0.4, 0.7]), [0.1, 0.29, 0.3, 0.5, 0.6])
    np.testing.assert_allclose(got, [0.9, 0.7, 0.4, 0.4, 0.0])


def test_assessment_layout_keeps_sizes_nesting_and_rsize() -> None:
    ta = assessments("inex2005", [
        ("d", A, {"exhaustivity": 1, "size": 1300, "rsize": 600}),
        ("d", S1, {"exhaustivity": 1, "size": 400, "rsize": 300}),
        ("d", S1 + "/p[1]", {"exhaustivity": 2, "size": 200, "rsize": 200}),
        ("d", "/article[1]/sec[3]", {"exhaustivity": 2, "size": 300, "rsize": 300}),
    ])
    index, highlights = assessment_layout(ta)
    doc = index["d"]
    for path, size in [(A, 1300), (S1, 400), (S1 + "/p[1]", 200), ("/article[1]/sec[3]", 300)]:
        span = doc.span(path)
        assert span is not None and span[1] - span[0] == size
    marked = highlights["d"]
    assert int((marked[:, 1] - marked[:, 0]).sum()) == 600
    s1 = doc.span(S1)
    assert s1 is not None
    inside = np.clip(np.minimum(marked[:, 1], s1[1]) - np.maximum(marked[:, 0], s1[0]), 0, None)
    assert int(inside.sum()) == 300


def test_t_q_per_dimension_quantisations() -> None:
    ta = assessments("inex2003", [("d", "/a[1]", {"exhaustivity": e, "specificity": s})
                                  for e, s in [(3, 3), (3, 1), (2, 3), (1, 2), (0, 0)]])
    e, s = quantise_dimensions("strict", ta)
    np.testing.assert_array_equal(e, [1, 1, 0, 0, 0])
    np.testing.assert_array_equal(s, [1, 0, 1, 0, 0])
    e, s = quantise_dimensions("generalised", ta)
    np.testing.assert_allclose(e, [1, 1, 2 / 3, 1 / 3, 0])
    np.testing.assert_allclose(s, [1, 1 / 3, 1, 2 / 3, 0])
