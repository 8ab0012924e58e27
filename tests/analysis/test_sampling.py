"""Sampling a pool: strata, the AP prior, inclusion probabilities worked on paper, and the
probabilities a sample reports equal to the frequencies of many seeded draws."""

from __future__ import annotations

import numpy as np
import pytest

from inexeval.analysis.sampling import (
    ap_prior,
    inclusion_probabilities,
    parse_strata,
    statap_sample,
    stratified_sample,
)
from inexeval.errors import InexevalError


def test_parse_strata() -> None:
    strata = parse_strata("1-10:1.0, 11-100:0.2,101-1000:5e-2")
    assert [(s.name, s.rate) for s in strata] == [("1-10", 1.0), ("11-100", 0.2),
                                                 ("101-1000", 0.05)]
    for bad, message in (("1-10", "FIRST-LAST:RATE"), ("0-3:1", "from 1"),
                         ("1-3:0", "not in"), ("1-3:1.5", "not in"),
                         ("1-10:1,5-20:0.5", "overlaps")):
        with pytest.raises(InexevalError, match=message):
            parse_strata(bad)


def test_stratified_sample_draws_exactly_the_rate() -> None:
    strata = parse_strata("1-2:1,3-12:0.3,20-30:0.01")
    sample = stratified_sample(25, strata, np.random.default_rng(1))
    # ranks 1-2 whole; 3 of ranks 3-12; ranks 20-25 (6 units) at least one
    assert sample.stratum.tolist() == [0] * 2 + [1] * 10 + [2] * 6
    assert sample.drawn[:2].all() and sample.drawn[2:12].sum() == 3
    assert sample.drawn[12:].sum() == 1
    assert sample.probability.tolist() == [1.0] * 2 + [0.3] * 10 + [1 / 6] * 6


def test_ap_prior_worked_on_paper() -> None:
    # depth 2: rank 1 weighs (1 + 1 + 1/2) / 4 = 0.625, rank 2 (1 + 1/2) / 4 = 0.375
    one = ap_prior([np.array([0, 1])], [np.array([1, 2])], 2, 2)
    assert one.tolist() == [0.625, 0.375]
    two = ap_prior([np.array([0, 1]), np.array([1])], [np.array([1, 2]), np.array([1])], 2, 2)
    assert two.tolist() == [0.3125, 0.5]


def test_inclusion_probabilities_are_capped_at_one() -> None:
    assert inclusion_probabilities(np.array([4.0, 2, 1, 1]), 2).tolist() == [1, 0.5, 0.25, 0.25]
    assert inclusion_probabilities(np.array([10.0, 1, 1]), 2).tolist() == [1, 0.5, 0.5]
    assert inclusion_probabilities(np.array([1.0, 2]), 5).tolist() == [1, 1]


def test_a_samples_probabilities_are_its_frequencies() -> None:
    weight = np.random.default_rng(3).gamma(0.5, size=60)
    counts = np.zeros(60)
    rng = np.random.default_rng(4)
    draws = 2000
    for _ in range(draws):
        order, names, sample = statap_sample(weight, 15, rng)
        counts[order[sample.drawn]] += 1
    order, names, sample = statap_sample(weight, 15, np.random.default_rng(0))
    assert names[0] == "p1" and len(names) == len(set(names))
    assert abs(sample.probability.sum() - 15) <= len(names)
    frequency = counts[order] / draws
    error = np.sqrt(sample.probability * (1 - sample.probability) / draws)
    assert np.all(np.abs(frequency - sample.probability) <= 4 * error + 1e-12)
