"""P@k and overlap@k: spec §10 T-OV, seed 000's edge cases, and trec_eval's P@k."""

from __future__ import annotations

import random
import warnings

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.helpers import assessments, element_run

from inexeval import evaluate
from inexeval.errors import InexevalWarning
from inexeval.measures.cutoff import first_overlap_ranks
from inexeval.measures.registry import TopicContext
from inexeval.model.run import make_topic_run

T_OV_RUN = [("A", "/article[1]"), ("A", "/article[1]/bdy[1]/sec[1]"),
            ("B", "/article[1]/bdy[1]/sec[2]"), ("A", "/article[1]/bdy[1]/sec[2]")]
E33 = {"exhaustivity": 3, "specificity": 3}


def _qrels() -> object:
    return assessments("inex2003", {"1": [("A", "/article[1]", E33)]})


def test_t_ov_1_overlap_at_cutoffs() -> None:
    results = evaluate(_qrels(), element_run("r", {"1": T_OV_RUN}),
                       [f"overlap@{k}" for k in range(1, 6)])
    values = [results.value("r", "1", f"overlap@{k}") for k in range(1, 6)]
    assert values == pytest.approx([0, 1.0, 2 / 3, 0.75, 0.6], abs=1e-9)


def test_t_ov_2_paths_compared_by_steps() -> None:
    run = make_topic_run("1", ["A", "A"], paths=["/article[1]/bdy[1]/sec[1]",
                                                 "/article[1]/bdy[1]/sec[10]"])
    assert first_overlap_ranks(run, TopicContext()).tolist() == [2, 2]


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_t_ov_3_root_first_gives_full_overlap(k: int) -> None:
    items = [("A", "/article[1]")] + [("A", f"/article[1]/bdy[1]/sec[{i}]") for i in range(1, k)]
    results = evaluate(_qrels(), element_run("r", {"1": items}), [f"overlap@{k}"])
    assert results.value("r", "1", f"overlap@{k}") == 1.0


def test_same_element_twice_overlaps_when_duplicates_kept() -> None:
    run = make_topic_run("1", ["A", "A"], paths=["/article[1]", "/article[1]"])
    assert first_overlap_ranks(run, TopicContext()).tolist() == [1, 0]


def test_precision_keeps_denominator_k_and_uses_quantisation() -> None:
    qrels = assessments("inex2003", {"1": [
        ("A", "/article[1]/bdy[1]/sec[1]", E33),
        ("A", "/article[1]/bdy[1]/sec[2]", {"exhaustivity": 2, "specificity": 3}),
        ("A", "/article[1]", {"exhaustivity": 1, "specificity": 1}),
    ]})
    run = element_run("r", {"1": [("A", "/article[1]/bdy[1]/sec[1]"),
                                  ("A", "/article[1]/bdy[1]/sec[2]"), ("A", "/article[1]")]})
    measures = ["P@2", "P@10", "P(quant=liberal)@3", "P(quant=generalised)@3",
                "P(quant=s3e321)@3", "P(quant=generalised,binarise=True)@3"]
    results = evaluate(qrels, run, measures)
    got = [results.value("r", "1", m) for m in measures]
    assert got == pytest.approx([0.5, 0.1, 2 / 3, (1 + 0.75 + 0.25) / 3, 2 / 3, 1.0])


def test_missing_topic_scores_zero_only_with_complete() -> None:
    qrels = assessments("inex2003", {"1": [("A", "/article[1]", E33)],
                                     "2": [("B", "/article[1]", E33)]})
    run = element_run("r", {"1": [("A", "/article[1]")]})
    assert evaluate(qrels, run, ["P@1"]).mean("P@1") == 1.0
    complete = evaluate(qrels, run, ["P@1"], complete=True)
    assert complete.mean("P@1") == 0.5
    assert complete.mean("num_q") == 2


def _random_trec(rng: random.Random) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for t in range(1, 8):
        docs = [f"d{i}" for i in range(60)]
        qrels[str(t)] = {d: rng.choice((0, 0, 1, 2)) for d in rng.sample(docs, 30)}
        scores = rng.sample(range(10_000), rng.randint(3, 50))
        run[str(t)] = {d: float(s) for d, s in zip(rng.sample(docs, len(scores)), scores)}
    return qrels, run


def test_article_run_precision_equals_trec_eval() -> None:
    qrels_dict, run_dict = _random_trec(random.Random(7))
    qrels = assessments("trec", {t: [(d, "", {"relevance": r}) for d, r in docs.items()]
                                 for t, docs in qrels_dict.items()})
    topics = {}
    for t, docs in run_dict.items():
        ranked = sorted(docs.items(), key=lambda kv: -kv[1])
        topics[t] = make_topic_run(t, [d for d, _ in ranked], rsv=[s for _, s in ranked])
    from inexeval.model import Run

    run = Run("r", "document", topics)
    cutoffs = [1, 5, 10, 20, 100]
    ours = evaluate(qrels, run, [f"P@{k}" for k in cutoffs])
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.P @ k for k in cutoffs], qrels_dict, run_dict)}
    for t in qrels_dict:
        for k in cutoffs:
            assert ours.value("r", t, f"P@{k}") == pytest.approx(theirs[(t, f"P@{k}")], abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("AB"), st.lists(st.integers(1, 3), min_size=1,
                                                          max_size=4)), min_size=0, max_size=25),
       st.integers(1, 30))
def test_overlap_matches_brute_force(items: list[tuple[str, list[int]]], k: int) -> None:
    paths = ["/article[1]" + "".join(f"/s[{i}]" for i in steps) for _, steps in items]
    files = [f for f, _ in items]
    run = make_topic_run("1", files, paths=paths)
    partner = first_overlap_ranks(run, TopicContext())
    n = len(items)
    for r in range(n):
        expect = min([s for s in range(n) if s != r and files[s] == files[r] and (
            paths[s] == paths[r] or paths[s].startswith(paths[r] + "/")
            or paths[r].startswith(paths[s] + "/"))], default=n)
        assert partner[r] == expect
    top = min(k, n)
    brute = sum(1 for r in range(top) if partner[r] < top) / k
    with warnings.catch_warnings():  # the generated list may repeat a result
        warnings.filterwarnings("ignore", ".*repeated result", InexevalWarning)
        got = evaluate(_qrels(), element_run("r", {"1": list(zip(files, paths))}),
                       [f"overlap@{k}"], limit=0)
    # repeated results are dropped by validation, so compare on the de-duplicated list
    unique = list(dict.fromkeys(zip(files, paths)))
    if len(unique) == n:
        assert got.value("r", "1", f"overlap@{k}") == pytest.approx(brute)
    assert 0.0 <= got.value("r", "1", f"overlap@{k}") <= 1.0
    assert np.all(partner >= 0)
