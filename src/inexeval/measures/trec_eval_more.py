"""trec_eval 10.0's ``-Z``: the values as z-scores against a file of means and standard
deviations (``convert_zscores.c``), for :mod:`inexeval.measures.trec_eval` and the preference
and judgement-group measures alike (a module of its own, which imports none of them)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]

MISSING_ZSCORE = -1000000.0
"""What trec_eval prints for a value whose topic or measure the z-score file lacks."""


def as_zscores(topics: list[str], labels: tuple[str, ...], values: Floats,
               zscores: Mapping[str, Mapping[str, tuple[float, float]]]) -> Floats:
    """A measure's values (``values[t, j]``, topic t, label j) as trec_eval's ``-Z`` makes
    them, topic by topic before they are averaged: ``(value - mean) / sd`` with the topic's and
    label's mean and sd from ``zscores`` (:func:`inexeval.formats.trec_zscores.read_zscores`);
    an sd of 0 gives 0 if the value is the mean; a topic or label the file lacks, or an sd of 0
    with another value, gives -1000000. A topic's value of ``gm_map`` and ``gm_bpref`` is the
    logarithm they average, and is scored as it is (as trec_eval does)."""
    out = values.copy()
    for t, topic in enumerate(topics):
        known = zscores.get(topic, {})
        for j, label in enumerate(labels):
            value = float(values[t, j])
            pair = known.get(label)
            if pair is None:
                score = MISSING_ZSCORE
            elif pair[1]:
                score = (value - pair[0]) / pair[1]
            else:
                score = 0.0 if value == pair[0] else MISSING_ZSCORE
            out[t, j] = score
    return out
