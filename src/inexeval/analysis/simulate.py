"""Simulated runs built from the assessments: seed 001's grade runs and seed 002's ideal sets.

* :func:`grade_runs` (seed 001 §4.2): per topic, a run of the judged elements of each grade of the
  five-point scale (EA, PA, BA, NA; :mod:`inexeval.analysis.grades`), a run of the whole full
  recall base (every element with highlighted text, overlapping ones included) and a run of the
  highlighted passages themselves; each ranked by the harmonic mean of the unit's precision
  (``rsize / size``) and recall (``rsize / Trel``), at most 1,500 units.
* :func:`ideal_answer_set` (seed 002 §7.3.4, spec §7): the units with a quantised value above 0,
  sorted by value then size (both descending) or by ``size x value``, then the non-relevant units
  by size descending, at most 1,500.

Both return :class:`inexeval.model.Run` objects ready to be evaluated or written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from inexeval import spans
from inexeval.analysis.grades import five_point_grades
from inexeval.collection.index import CollectionIndex
from inexeval.collection.paths import ancestors
from inexeval.errors import InexevalError
from inexeval.model import Assessments, Run, TopicAssessments
from inexeval.model.run import TopicRun, make_topic_run
from inexeval.quantise import quantise

GRADE_RUNS = ("EA", "PA", "BA", "NA", "FullRB", "Passage")
SORT_KEYS = ("value", "size_x_value")


def _ranked(topic: str, files: Sequence[str], score: npt.NDArray[np.float64], limit: int, *,
            paths: Sequence[str] | None = None, offsets: Sequence[int] | None = None,
            lengths: Sequence[int] | None = None) -> TopicRun:
    """The units in decreasing ``score`` (stable: ties keep the given order), cut at ``limit``."""
    order = np.argsort(-score, kind="stable")[:limit].tolist()
    pick = [files[i] for i in order]
    return make_topic_run(
        topic, pick,
        paths=None if paths is None else [paths[i] for i in order],
        offsets=None if offsets is None else [offsets[i] for i in order],
        lengths=None if lengths is None else [lengths[i] for i in order],
        ranks=list(range(1, len(order) + 1)),
        rsv=[float(score[i]) for i in order],
    )


def _harmonic(precision: npt.NDArray[np.float64], recall: npt.NDArray[np.float64]
              ) -> npt.NDArray[np.float64]:
    both = precision + recall
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(both > 0, 2 * precision * recall / both, 0.0)


def _relevant_total(ta: TopicAssessments) -> float:
    """``Trel``: the highlighted characters of the topic, from the resolved passages, else the
    ``rsize`` of the judged elements that have no judged ancestor."""
    if ta.highlights:
        _, starts, ends = _merged_all(ta)
        return float((ends - starts).sum())
    rsize = np.nan_to_num(ta.dims.get("rsize", np.zeros(len(ta))))
    judged = set(zip(ta.files.tolist(), ta.paths.tolist()))
    top = np.array([not any((f, a) in judged for a in ancestors(p))
                    for f, p in zip(ta.files.tolist(), ta.paths.tolist())], dtype=bool)
    return float(rsize[top].sum()) if len(top) else 0.0


def _merged_all(ta: TopicAssessments) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                                npt.NDArray[np.int64]]:
    """Every document's highlighted spans merged: ``(docs, starts, ends)``, docs numbered in
    the order of ``ta.highlights``."""
    rows = [np.asarray(r, dtype=np.int64).reshape(-1, 2) for r in ta.highlights.values()]
    docs = np.concatenate([np.full(len(r), k, dtype=np.int64) for k, r in enumerate(rows)])
    table = np.concatenate(rows)
    return spans.merge(table[:, 0], table[:, 1], docs)


def grade_runs(
    assessments: Assessments, *, limit: int = 1500, runs: Sequence[str] = GRADE_RUNS
) -> dict[str, Run]:
    """Seed 001 §4.2's simulated runs, by name (a subset with ``runs``; see module docstring).

    Needs INEX 2005-2008 assessments (size and rsize); the ``Passage`` run needs the highlighted
    passages resolved to character offsets (assessments read with the collection index).
    """
    unknown = [r for r in runs if r not in GRADE_RUNS]
    if unknown:
        raise InexevalError(f"unknown simulated run(s) {', '.join(unknown)}; "
                            f"choose from {', '.join(GRADE_RUNS)}")
    topics: dict[str, dict[str, TopicRun]] = {name: {} for name in runs}
    for topic, ta in assessments.items():
        grades = five_point_grades(ta)
        size = np.nan_to_num(ta.dims["size"])
        rsize = np.nan_to_num(ta.dims.get("rsize", np.zeros(len(ta))))
        total = _relevant_total(ta)
        if total <= 0:
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            score = _harmonic(np.where(size > 0, rsize / size, 0.0), rsize / total)
        files, paths = ta.files.tolist(), ta.paths.tolist()
        for name in runs:
            if name == "Passage":
                topics[name][topic] = _passage_run(ta, total, limit, assessments.source)
                continue
            keep = np.flatnonzero(grades != "NR" if name == "FullRB" else grades == name)
            topics[name][topic] = _ranked(
                topic, [files[i] for i in keep], score[keep], limit,
                paths=[paths[i] for i in keep],
            )
    return {name: Run(name, "passage" if name == "Passage" else "element", topics[name],
                      meta={"simulated": "Pehcevski 2006, §4.2"}) for name in runs}


def _passage_run(ta: TopicAssessments, total: float, limit: int, source: str | None) -> TopicRun:
    if not ta.highlights:
        raise InexevalError(
            f"topic {ta.topic}: the passage run needs the highlighted passages as character "
            "offsets (read the assessments with the collection index)", source,
        )
    names = list(ta.highlights)
    docs, starts, ends = _merged_all(ta)
    lengths = (ends - starts).astype(np.float64)
    score = _harmonic(np.ones(len(lengths)), lengths / total)
    return _ranked(ta.topic, [names[d] for d in docs.tolist()], score, limit,
                   offsets=starts.tolist(), lengths=(ends - starts).tolist())


def ideal_answer_set(
    assessments: Assessments,
    *,
    quant: str = "generalised",
    sort_key: str = "value",
    limit: int = 1500,
    collection: CollectionIndex | None = None,
    fragments: Mapping[str, Sequence[str]] | None = None,
    name: str = "ideal",
) -> Run:
    """Seed 002 §7.3.4's ideal answer set per topic (spec §7).

    The candidate units are ``fragments`` (document -> element paths: the fixed fragment
    collection of the seed) when given, else the judged units. Those with a quantised value
    above 0 come first, by ``sort_key``: ``value`` (value, then size, both descending; ideal for
    strict inex_eval_ng) or ``size_x_value`` (size x value, then size; ideal for generalised
    inex_eval_ng); then the others by size descending; at most ``limit``. Sizes come from
    ``collection`` when given, else from the assessments' ``size`` (INEX 2005-2008).
    """
    if sort_key not in SORT_KEYS:
        raise InexevalError(f"unknown sort key {sort_key!r}; choose from {', '.join(SORT_KEYS)}")
    topics: dict[str, TopicRun] = {}
    for topic, ta in assessments.items():
        values = np.nan_to_num(quantise(quant, ta))
        if fragments is None:
            files, paths = ta.files.tolist(), ta.paths.tolist()
            value = values
        else:
            files = [f for f, ps in fragments.items() for _ in ps]
            paths = [p for ps in fragments.values() for p in ps]
            judged = ta.lookup(files, paths)
            value = np.where(judged >= 0, values[np.maximum(judged, 0)], 0.0)
        size = _unit_sizes(ta, files, paths, collection)
        primary = value if sort_key == "value" else value * size
        # relevant first (by key, then size), then the rest by size: one stable lexsort
        order = np.lexsort((-size, -primary, value <= 0))[:limit].tolist()
        n = len(order)
        topics[topic] = make_topic_run(
            topic, [files[i] for i in order], paths=[paths[i] for i in order],
            ranks=list(range(1, n + 1)), rsv=[float(n - k) for k in range(n)],
        )
    return Run(name, "element", topics, meta={"quant": quant, "sort_key": sort_key})


def _unit_sizes(ta: TopicAssessments, files: Sequence[str], paths: Sequence[str],
                collection: CollectionIndex | None) -> npt.NDArray[np.float64]:
    if collection is not None:
        out = np.zeros(len(files))
        for k, (file, path) in enumerate(zip(files, paths)):
            span = collection.span(file, path)
            if span is None:
                raise InexevalError(f"topic {ta.topic}: {file} {path} is not in the collection")
            out[k] = span[1] - span[0]
        return out
    if "size" not in ta.dims:
        raise InexevalError(f"topic {ta.topic}: sizes are needed to sort the ideal answer set; "
                            "give the collection index", ta.source)
    judged = ta.lookup(list(files), list(paths))
    if bool(np.any(judged < 0)):
        raise InexevalError(f"topic {ta.topic}: fragment sizes are unknown without the "
                            "collection index", ta.source)
    return np.asarray(np.nan_to_num(ta.dims["size"][judged]), dtype=np.float64)
