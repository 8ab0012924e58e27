"""Seed 004's experiment on the demo collection: the ideal run scores 1 and EPRUM falls
smoothly as the random walk's move probability m goes from 0 to 0.9 (mean over 20 seeds)."""

from __future__ import annotations

import warnings

import numpy as np

from inexeval import demo
from inexeval.analysis.randomise import ideal_run, random_walk_run
from inexeval.collection.build import build_index
from inexeval.evaluation import Evaluator, with_implicit
from inexeval.formats.detect import load_assessments


def test_eprum_falls_with_the_move_probability() -> None:
    collection = build_index(demo.COLLECTION)
    assessments = with_implicit(load_assessments(demo.ASSESSMENTS_2004), collection=collection)
    ideal = ideal_run(assessments)
    evaluator = Evaluator(["EPRUM"], assessments, collection=collection, keep_repeats=True)
    curve = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for move in np.arange(10) / 10:
            runs = [random_walk_run(ideal, collection, float(move), seed=s, name=str(s))
                    for s in range(20)]
            results = evaluator.evaluate(runs)
            curve.append(np.mean([results.mean("EPRUM", str(s)) for s in range(20)]))
    assert abs(curve[0] - 1.0) < 1e-12
    steps = np.diff(curve)
    assert np.all(steps < 0)
    assert np.max(-steps) < 0.15  # smooth: no step drops by more than 0.15
