"""``eval --format trec_eval``: results printed in trec_eval's layout, by the code that prints
``inexeval trec_eval`` (:meth:`inexeval.measures.trec_eval.TrecEvalResults.render`).

Each run is printed in turn as trec_eval prints one run: with ``-q`` every topic's lines first,
topic by topic in ``strcmp`` order of the topic ids, then the ``all`` lines, the measures under
trec_eval's names in its table order (``num_q`` first, as trec_eval prints it with ``-m num_q``;
inexeval's own names after them, in their order); each line
``%-22s\\t%s\\t%6.4f``, counts (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``) as
integers. A value undefined for a topic (an INEX measure with nothing relevant under a strict
quantisation) prints as ``nan``, which trec_eval's measures never are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from inexeval.results import ALL, Results


def render_trec_eval(results: Results, per_topic: bool = False, runid: bool = False,
                     num_q: bool = True,
                     zscores: Mapping[str, Mapping[str, tuple[float, float]]] | None = None
                     ) -> str:
    """Every run of ``results`` in trec_eval's layout (``per_topic``: its ``-q``); each run's
    block opens with its ``runid`` line when ``runid`` (trec_eval's ``-m runid``) or when
    there are several runs (which trec_eval, one run a call, never prints together);
    ``num_q``: the number of topics is printed (trec_eval prints it when asked).
    ``zscores`` (trec_eval's ``-Z``, :func:`~inexeval.formats.trec_zscores.read_zscores`):
    each topic's value made a z-score under the name printed
    (:func:`~inexeval.measures.trec_eval_more.as_zscores`), the ``all`` line their mean (sum,
    geometric mean) as the measure's is, names printed ``Z`` + name, as trec_eval prints
    them."""
    from inexeval.measures.trec_eval import BY_NAME, Chosen, Definition, Evaluated, TrecEvalResults
    from inexeval.measures.trec_eval_more import as_zscores
    from inexeval.report.text import COUNT_MEASURES

    means = sorted(results.means(), key=lambda r: _table_place(r.measure))
    given = {(r.run, r.measure) for r in results.overall}  # an all value a family computed
    out = []
    runs = results.runs()
    for run in runs:
        rows = [r for r in results.rows if r.run == run]
        topics = sorted(dict.fromkeys(r.topic for r in rows), key=lambda t: t.encode("utf-8"))
        place = {topic: i for i, topic in enumerate(topics)}
        measures = []
        if runid and len(runs) == 1:
            measures.append(Evaluated(Chosen(BY_NAME["runid"], (), (), ("runid",)),
                                      np.zeros((len(topics), 0)), []))
        for mean in (r for r in means if r.run == run and r.topic == ALL
                     and (num_q or r.measure != "num_q")):
            known = BY_NAME.get(_family(mean.measure))
            printed = "long" if mean.measure in COUNT_MEASURES or (
                known is not None and known.printed == "long") else "double"
            overall = [math.nan if mean.value is None else mean.value]
            if mean.measure == "num_q":
                definition = Definition("num_q", printed="long", per_topic=False,
                                        average="count")
                values = np.zeros((len(topics), 1))
            else:
                definition = Definition(mean.measure, printed=printed,
                                        per_topic=known is None or known.per_topic)
                values = np.full((len(topics), 1), math.nan)
                valued = np.zeros(len(topics), dtype=bool)  # (a NaN value is one: -nan)
                for r in rows:
                    if r.measure == mean.measure and r.value is not None:
                        values[place[r.topic], 0] = r.value
                        valued[place[r.topic]] = True
                if zscores is not None:
                    answered = ~np.isnan(values[:, 0])
                    values = as_zscores(topics, (mean.measure,), values, zscores)
                    overall = [_overall(values[answered, 0],
                                        results.aggregates.get(mean.measure, "mean"),
                                        math.fsum)]
                elif mean.value is not None and (run, mean.measure) not in given:
                    overall = [_overall(values[valued, 0],
                                        results.aggregates.get(mean.measure, "mean"))]
            measures.append(Evaluated(Chosen(definition, (), (), (mean.measure,)), values,
                                      overall))
        out.append(TrecEvalResults(topics, run, measures, zscores is not None).render(
            per_topic=per_topic, runid_first=len(runs) > 1))
    return "".join(out)


def _overall(values: np.ndarray, aggregate: str,
             add: Callable[[list[float]], float] | None = None) -> float:
    """The ``all`` value as trec_eval computes it (``te_calc_avg_meas_s``): the topics' values
    added one after the other in its (``strcmp``) order of the topics, not exactly
    (:meth:`~inexeval.results.Results.means`' ``fsum``), then divided by their number (their
    sum for a count, the exponential of their mean for a geometric mean, whose values are
    logarithms): a mean on a rounding boundary (0.02125 of 0.015, 0.025, 0.02, 0.025) prints
    as trec_eval prints it (0.0212, not fsum's 0.0213); a NaN among them (``Rndcg`` at
    ``-l 0``) makes it NaN of the same sign, printed ``-nan`` as trec_eval prints it. ``add``
    another way of adding them (``math.fsum`` for ``-Z``'s z-scores); NaN without any."""
    given = values.tolist()
    if not given:
        return math.nan
    total = add(given) if add is not None else _in_order(given)
    if aggregate == "sum":
        return total
    return math.exp(total / len(given)) if aggregate == "gm" else total / len(given)


def _in_order(values: list[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


def _table_place(label: str) -> int:
    """Where trec_eval prints a measure (its table order, ``measures.c``); after them all a
    name that is not trec_eval's."""
    from inexeval.measures.trec_eval import BY_NAME, DEFINITIONS

    definition = BY_NAME.get(_family(label))
    return DEFINITIONS.index(definition) if definition is not None else len(DEFINITIONS)


def _family(label: str) -> str:
    """trec_eval's measure of a label it prints (``P_10``: ``P``; ``ndcg_1=3``: ``ndcg``)."""
    from inexeval.measures.trec_eval import BY_NAME

    if label in BY_NAME:
        return label
    for end in range(len(label) - 1, 0, -1):
        if label[end] == "_" and label[:end] in BY_NAME:
            return label[:end]
    return label
