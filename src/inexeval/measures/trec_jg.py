"""trec_eval 10.0's judgement-group measures (``-R qrels_jg``; ``m_map_avgjg.c``,
``m_P_avgjg.c``, ``m_Rprec_mult_avgjg.c``, ``form_res_rels_jg.c``): qrels whose second column
names a judgement group (one assessor's judgements of the topic); each group's ``map``, ``P``
or ``Rprec_mult`` is computed as the ad hoc measure on that group's judgements alone
(:mod:`inexeval.measures.trec_eval`, the same options), and a topic's value is their mean over
its groups (added in the groups' ``strcmp`` order).

Each (topic, group) is evaluated as a topic of its own, ``topic group`` (a space sorts below
every character of an id, so these keep trec_eval's order of topics, then groups), the run's
lines of the topic repeated for each of its groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np

from inexeval.errors import MeasureError
from inexeval.measures.trec_eval import (
    BY_NAME,
    Chosen,
    Definition,
    Evaluated,
    TrecEvalResults,
    choose_definition,
    evaluate,
    overall_values,
)
from inexeval.measures.trec_eval_more import as_zscores

DEFINITIONS: tuple[Definition, ...] = (
    Definition("map_avgjg", description="map of each judgement group, averaged over groups"),
    Definition("P_avgjg", "cutoffs", BY_NAME["P"].default,
               description="P at cut-offs of each judgement group, averaged over groups"),
    Definition("Rprec_mult_avgjg", "levels", BY_NAME["Rprec_mult"].default,
               description="Rprec_mult of each judgement group, averaged over groups"),
)
"""The judgement-group measures, in trec_eval's table order."""

TABLE = (BY_NAME["runid"], BY_NAME["num_q"], *DEFINITIONS)
NICKNAMES = {"qrels_jg": tuple(d.name for d in TABLE)}
AD_HOC = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
"""The ad hoc measure each computes on one group."""


def choose(requests: Iterable[str]) -> list[Chosen]:
    """The judgement-group measures of ``-m`` arguments (``map_avgjg``, ``P_avgjg.5,10``,
    ``Rprec_mult_avgjg.0.5``, the set ``qrels_jg``), in trec_eval's order; none given is
    ``qrels_jg``. A measure's parameters are those of its first ``-m`` that has any."""
    known = {d.name: d for d in TABLE}
    marked: set[str] = set()
    given: dict[str, str] = {}
    for request in list(requests) or ["qrels_jg"]:
        name, dot, params = request.partition(".")
        names = NICKNAMES.get(name, (name,))
        if any(n not in known for n in names):
            raise MeasureError(f"{request!r} is not a judgement-group measure; known: "
                               f"{', '.join(known)}; set: qrels_jg")
        if dot:
            if not params:
                raise MeasureError(f"improper measure in parameter {request!r}")
            given.setdefault(name, params)
        marked.update(names)
    return [choose_definition(d, given.get(d.name)) for d in TABLE if d.name in marked]


def evaluate_groups(qrels: Any, run: Any, measures: Iterable[str] = (), *,
                    zscores: Mapping[str, Mapping[str, tuple[float, float]]] | None = None,
                    **options: Any) -> TrecEvalResults:
    """A run on judgement-group qrels (:func:`~inexeval.formats.trec_jg.read_qrels_jg`:
    columns whose topic ids are ``topic group``) as trec_eval 10.0 evaluates it with
    ``-R qrels_jg``; ``options`` those of :func:`~inexeval.measures.trec_eval.evaluate`
    (``complete``, ``relevance_level``, ``max_docs``, ``judged_only``, ...)."""
    chosen = choose(measures)
    groups_of: dict[bytes, list[bytes]] = {}
    for key in dict.fromkeys(qrels.topics.tolist()):
        topic = key.partition(b" ")[0]
        groups_of.setdefault(topic, []).append(key)
    rows, keys = [], []
    for i, topic in enumerate(run.topics.tolist()):
        for key in groups_of.get(topic, ()):
            rows.append(i)
            keys.append(key)
    index = np.array(rows, dtype=np.int64)
    width = max((len(k) for k in keys), default=1)
    replicated = type(run)(np.array(keys, dtype=f"S{width}"), run.documents[index],
                           run.values[index], run.lines[index], run.run_id, run.source)
    inner = [f"{AD_HOC[c.definition.name]}"
             + ("" if not c.values else "." + ",".join(repr(float(v)) if
                                                       c.definition.kind == "levels"
                                                       else str(int(v)) for v in c.values))
             for c in chosen if c.definition.name in AD_HOC]
    per_group = evaluate(qrels, replicated, inner, **options) if inner else None
    if per_group is None:  # runid and num_q alone: the topics evaluated
        per_group = evaluate(qrels, replicated, ["num_q"], **options)
    topics = list(dict.fromkeys(t.split(" ")[0] for t in per_group.topics))
    owner = [topics.index(t.split(" ")[0]) for t in per_group.topics]
    by_name = {m.chosen.definition.name: m for m in per_group.measures}
    complete = bool(options.get("complete", False))
    summary = SimpleNamespace(topics=topics, complete=complete, qrels_positive=0)
    evaluated = []
    for c in chosen:
        values = np.zeros((len(topics), len(c.labels)))
        if c.definition.name in AD_HOC:
            inner_values = by_name[AD_HOC[c.definition.name]].values
            counts = np.zeros(len(topics), dtype=np.int64)
            for g, t in enumerate(owner):
                values[t] += inner_values[g]
                counts[t] += 1
            several = counts > 1
            values[several] /= counts[several][:, None]
        if zscores is not None:
            values = as_zscores(topics, c.labels, values, zscores)
        evaluated.append(Evaluated(c, values, overall_values(summary, c.definition,  # type: ignore[arg-type]
                                                       values)))
    return TrecEvalResults(topics, run.run_id, evaluated, zscores is not None)

