"""Evaluating the measures themselves, from one matrix of scores (:class:`inexeval.Scores`).

* :mod:`~inexeval.meta.power`: discriminative power by the paired bootstrap test (Sakai 2006) or
  the randomised Tukey HSD (Sakai 2012), ASL curves and the difference required;
* :mod:`~inexeval.meta.swap`: swap rates and their extrapolation (Voorhees and Buckley 2002;
  Sakai 2007's bootstrap variant);
* :mod:`~inexeval.meta.topics`: topic-set-size design (Sakai 2016) with exact power;
* :mod:`~inexeval.meta.repro`: reproducibility measures of runs (Breuer et al. 2020, as
  repro_eval computes them);
* :mod:`~inexeval.meta.agree`: agreement of system rankings with the tie-aware tau_AP variants
  (Urbano and Marrero 2017), RBO and bootstrap confidence intervals.

The definitions are those of the team's ``spec/meta.md`` as the README's ``meta`` section
states them. Every study is a list of independent replicate blocks given to an executor
(:mod:`inexeval.executor`); their randomness depends on the seed and the replicate index only,
so neither ``--block`` nor ``--jobs`` changes a number.
"""

from __future__ import annotations

import numpy as np

from inexeval.errors import InexevalError
from inexeval.scores import Matrix, Scores


def topics_by_runs(scores: Scores, measure: str) -> Matrix:
    """X, the topics × runs matrix of one measure (topics in the scores' natural order, runs in
    their order). InexevalError when the measure is undefined (NaN) anywhere: a study of the
    measure needs a value for every run and topic."""
    runs, topics, values = scores.matrix(measure)
    undefined = np.isnan(values)
    if undefined.any():
        r, t = (int(i[0]) for i in undefined.nonzero())
        raise InexevalError(f"{measure} is undefined for run {runs[r]} on topic {topics[t]}: "
                            "a study of a measure needs a value for every run and topic")
    return values.T.copy()
