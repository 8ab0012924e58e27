"""Document runs on TREC qrels ranked and looked up in the qrels for all topics at once (issue 23:
``inexeval eval`` on TREC qrels).

The evaluator's general path orders each topic's results (:meth:`TopicRun.ordered`, an argsort
of the document ids as strings), numbers them in the element table (a Python call per result)
and drops repeats (:func:`inexeval.evaluation.prepare`), a topic at a time. For a document run
on TREC qrels under the document measures, all of that is one ranking: trec_eval's order (score
descending, ties by document id descending) and each result's position in its topic's qrels
(``judged_positions``: the first judgement of the document, -1 if none). :func:`positions`
computes it for every topic of a run in a few array operations; the evaluator then gives each
topic's kernels these positions (the memo key of :func:`inexeval.measures.common.
judged_positions`), so the measures' own code computes every value, and the numbers are the
general path's to the last bit by construction.

:func:`fast_measures` decides, in one place, when this is used: every measure of a family in
:data:`FAMILIES` (whose kernels see a ranking only through ``judged_positions`` and the
number of results), TREC qrels, a document run, trec_eval's order (no ``order``), no limit,
repeats dropped (the run has none: a run with a repeated document, or a score that is not a
number, goes the general way, which warns as before), no collection and no options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]

FAMILIES = frozenset({"AP", "R", "nDCG", "RR", "R-Prec", "bpref", "Judged", "num_ret",
                      "num_rel", "num_rel_ret", "P"})
"""The measure families whose kernels read a ranking only through
:func:`~inexeval.measures.common.judged_positions` (or the trec ranking made from it) and the
number of results: TREC's document measures and precision at k."""


def fast_measures(measures: Sequence[Any], scale: str, *, order: str | None, limit: int,
                  keep_repeats: bool, collection: Any, options: Mapping[str, Any]) -> bool:
    """Whether an evaluator with these measures and options may rank document runs with
    :func:`positions`."""
    return (scale == "trec" and order is None and limit == 0 and not keep_repeats
            and collection is None and not options
            and all(m.family.name in FAMILIES for m in measures))


class Lookup:
    """The assessments' documents numbered once for an evaluator: ``codes`` (document id →
    code, grown with the runs' documents) and, per topic index, the judgements keyed
    ``code * topics + topic`` (sorted) with the position of each key's first judgement in its
    topic's assessments."""

    def __init__(self, assessments: Any) -> None:
        self.topic_index = {t: i for i, t in enumerate(assessments)}
        self.codes: dict[str, int] = {}
        count = len(self.topic_index)
        keys, positions = [], []
        for topic, ta in assessments.items():
            files = ta.files.tolist()
            index = self.codes
            codes = np.array([index.setdefault(f, len(index)) for f in files], dtype=np.int64)
            keys.append(codes * count + self.topic_index[topic])
            positions.append(np.arange(len(files), dtype=np.int64))
        every = np.concatenate(keys) if keys else np.zeros(0, np.int64)
        where = np.concatenate(positions) if positions else np.zeros(0, np.int64)
        order = np.lexsort((where, every))  # a key's first judgement first
        every, where = every[order], where[order]
        first = np.concatenate(([True], every[1:] != every[:-1])) if len(every) else every > 0
        self.keys, self.positions = every[first], where[first]


def positions(lookup: Lookup, run: Any, topics: Sequence[str]) -> dict[str, Ints] | None:
    """For each of ``topics`` (assessed, with results in ``run``), the position in its
    assessments of each result in trec_eval's order (score descending, ties by document id
    descending, as :meth:`TopicRun.ordered` orders them), -1 where not judged; None when the
    run has a repeated document in a topic or a score that is not a number (the general path
    then warns or orders as it does)."""
    if not topics:
        return {}
    results = [run.topics[t] for t in topics]
    sizes = np.array([len(r) for r in results], dtype=np.int64)
    scores = np.concatenate([r.rsv for r in results]).astype(np.float64, copy=False)
    if np.isnan(scores).any():
        return None
    index = lookup.codes
    files = np.concatenate([r.files for r in results]).tolist()
    codes = np.array([index.setdefault(f, len(index)) for f in files], dtype=np.int64)
    group = np.repeat(np.arange(len(topics), dtype=np.int64), sizes)
    count = len(lookup.topic_index)
    assessed = np.array([lookup.topic_index[t] for t in topics], dtype=np.int64)
    keys = codes * count + assessed[group]
    order = np.lexsort((-scores, group))
    ranked_keys = keys[order]
    if len(np.unique(ranked_keys)) < len(ranked_keys):
        return None
    # ties (equal score in a topic): by document id descending (strings' order)
    g, s = group[order], -scores[order]
    tied = np.zeros(len(order), dtype=bool)
    same = (g[1:] == g[:-1]) & (s[1:] == s[:-1])
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():
        where = np.flatnonzero(tied)
        run_start = np.concatenate(([True], ~same[where[1:] - 1] if len(where) > 1 else []))
        block = np.cumsum(run_start) - 1
        names = np.array([files[i] for i in order[where].tolist()], dtype=str)
        _, rank = np.unique(names, return_inverse=True)
        within = np.lexsort((-rank.reshape(-1), block))
        order[where] = order[where][within]
        ranked_keys = keys[order]
    at = np.searchsorted(lookup.keys, ranked_keys)
    at = np.minimum(at, max(len(lookup.keys) - 1, 0))
    found = (lookup.keys[at] == ranked_keys) if len(lookup.keys) else np.zeros(len(at), bool)
    pos = np.where(found, lookup.positions[at] if len(lookup.keys) else -1, -1).astype(np.int64)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    return {t: pos[bounds[i]:bounds[i + 1]] for i, t in enumerate(topics)}
