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

The definitions are those of the team's ``spec/meta.md`` as the ``meta`` section of
docs/guides/meta-evaluation.md states them. Every study is a list of independent replicate blocks given to an executor
(:mod:`inexeval.executor`); their randomness depends on the seed and the replicate index only,
so neither ``--block`` nor ``--jobs`` changes a number.

Every study uses the topics ``compare`` uses (:func:`study_scores`): those assessed and answered
by at least one run (rule ``any``), or with ``complete`` (``-c``) every assessed topic (rule
``all``), a topic a run did not answer scoring 0; the rule and the topic count are said in its
output (:func:`describe_topics`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from inexeval.errors import InexevalError
from inexeval.scores import RULES, Matrix, Scores

STUDY_RULE = "any"
"""The rule of every study without ``-c``: ``compare``'s."""


def study_scores(scores: Scores, *, complete: bool | None = None,
                 topics: Sequence[str] | None = None) -> Scores:
    """The scores a study reads: ``topics`` (default all of the scores'), then under rule
    ``any`` (``complete`` False; default: unless the scores are under rule ``all``) those
    answered by at least one run, under ``all`` (``complete`` True) every one, a topic a run
    did not answer scoring 0. Scores saved without ``-c`` (rule ``answered`` or ``any``) hold
    no topic that no run answered: ``complete`` is an error there."""
    if complete is None:
        complete = scores.rule == "all"
    if complete and scores.rule != "all":
        raise InexevalError(f"-c (every assessed topic) needs scores of every assessed topic, "
                            f"and these are under rule {scores.rule!r} (only the answered "
                            "topics): save them with eval -q -c --format scores")
    if topics is not None:
        chosen = set(topics)
        unknown = [t for t in dict.fromkeys(topics) if t not in scores.topics]
        if unknown and scores.rule == "all":
            raise InexevalError(f"topic {unknown[0]} is not assessed (not in the scores)")
        scores = scores.select(topics=[t for t in scores.topics if t in chosen])
        if not scores.topics:
            raise InexevalError(f"no topic of --topics ({', '.join(topics[:3])}"
                                f"{' ...' if len(topics) > 3 else ''}) is in the scores")
    if complete:
        return scores
    kept = np.flatnonzero(scores.answered.any(axis=0))
    return scores.select(topics=[scores.topics[int(j)] for j in kept],
                         rule=STUDY_RULE)


def describe_topics(scores: Scores) -> str:
    """The topic count and the rule of a study, in one phrase: ``60 topics: assessed and
    answered by at least one run``."""
    return topic_rule(len(scores.topics), scores.rule)


def topic_rule(n: int, rule: str) -> str:
    """:func:`describe_topics` of ``n`` topics under ``rule``."""
    what = {"any": "assessed and answered by at least one run (a missing one scoring 0)",
            "all": "every assessed topic (-c; a missing one scoring 0)"}
    return f"{n} topic{'s' if n != 1 else ''}: {what.get(rule, RULES[rule])}"


def answered_topics(assessments: Iterable[str], runs: Iterable[Iterable[str]]) -> set[str]:
    """The topics of rule ``any``: assessed and answered by at least one of the runs (each
    given as the topics it has)."""
    assessed = set(assessments)
    return {t for run in runs for t in run if t in assessed}


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
