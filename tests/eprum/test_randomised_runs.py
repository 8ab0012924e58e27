"""Seed 004 §7's experiment on a small synthetic collection: ideal runs score 1, and EPRUM
decreases as the random-walk move probability m goes from 0 to 0.9."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from tests.eprum.eprum_synthetic import random_collection

from inexeval.analysis.randomise import ideal_run, random_walk_run
from inexeval.errors import InexevalError, InexevalWarning
from inexeval.evaluation import Evaluator
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run

COLLECTION = random_collection(12, seed=7)


def _assessments(n_topics: int, seed: int) -> Assessments:
    """Per topic, some relevant paragraphs, sections and list items (nested ones included: the
    overlap-free selection keeps the deepest), graded 1-3 as TREC relevance."""
    rng = np.random.default_rng(seed)
    topics = {}
    for t in range(n_topics):
        records = []
        for name, doc in COLLECTION.items():
            if rng.random() < 0.5:
                continue
            for i in rng.choice(len(doc), size=min(4, len(doc)), replace=False).tolist():
                if doc.depth[i] > 1:
                    records.append((name, doc.paths[i], {"relevance": int(rng.integers(1, 4))}))
        topics[str(t)] = build_topic(str(t), "trec", records, dim_types={"relevance": int})
    return Assessments(topics, "trec")


def test_ideal_run_scores_one_and_randomised_runs_degrade() -> None:
    assessments = _assessments(6, seed=3)
    ideal = ideal_run(assessments)
    measures = ["EPRUM", "EPRUM(quant=binary)@0.5"]
    evaluator = Evaluator(measures, assessments, collection=COLLECTION)
    at_zero = evaluator.evaluate(random_walk_run(ideal, COLLECTION, 0.0, seed=1))
    assert at_zero.mean("EPRUM") == pytest.approx(1.0, abs=1e-12)
    assert evaluator.evaluate(ideal).mean("EPRUM(quant=binary)[0.50]") == pytest.approx(1.0)
    curve = []
    for move in np.arange(0.0, 1.0, 0.1).round(1).tolist():
        runs = [random_walk_run(ideal, COLLECTION, move, seed=s) for s in range(4)]
        with warnings.catch_warnings():  # two walks may land on one element
            warnings.filterwarnings("ignore", ".*repeated result", InexevalWarning)
            results = evaluator.evaluate(runs)
        # the four walks share a name: the results tell them apart as "name (1)" ... "name (4)"
        assert len(results.runs()) == len(runs)
        curve.append(float(np.mean([results.mean("EPRUM", name) for name in results.runs()])))
    assert curve[0] == pytest.approx(1.0)
    assert all(b < a for a, b in itertools.pairwise(curve)), curve
    assert curve[-1] > 0.0  # near misses keep some credit (seed 004 Fig. 4)


def test_random_walk_is_reproducible_and_stays_in_the_tree() -> None:
    ideal = ideal_run(_assessments(2, seed=5))
    first = random_walk_run(ideal, COLLECTION, 0.6, seed=11)
    again = random_walk_run(ideal, COLLECTION, 0.6, seed=11)
    other = random_walk_run(ideal, COLLECTION, 0.6, seed=12)
    for topic in ideal:
        assert first[topic].paths.tolist() == again[topic].paths.tolist()
        assert first[topic].files.tolist() == ideal[topic].files.tolist()
        for file, path in zip(first[topic].files.tolist(), first[topic].paths.tolist()):
            assert COLLECTION[file].find(path) >= 0
    assert any(first[t].paths.tolist() != other[t].paths.tolist() for t in ideal)
    assert first.meta["move"] == 0.6 and first.name == "ideal-m0.6"


def test_random_walk_rejects_unknown_elements_and_bad_moves() -> None:
    run = Run("r", "element", {"1": make_topic_run("1", ["doc0"], paths=["/article[1]/x[1]"],
                                                   lines=[4])}, source="r.txt")
    with pytest.raises(InexevalError, match=r"r.txt:4: .*not an element"):
        random_walk_run(run, COLLECTION, 0.5)
    with pytest.raises(InexevalError, match="move probability"):
        random_walk_run(run, COLLECTION, 1.0)
