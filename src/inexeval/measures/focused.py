"""The character-based tasks of INEX 2007-2010 as the official evaluator computes them.

Focused and Thorough (iP[x], MAiP, article and character precision/recall; spec §5.2, §15.5,
§15.6), Relevant in Context (per-article F-beta, gP[r], gR[r], MAgP; §5.3, §15.8), Best in
Context (BEP distance, §5.4, §15.9) and Relevant in Context scored with T2I (§15.10), on FOL qrels
(:func:`inexeval.formats.fol.read_fol_qrels`) and passage runs. :func:`evaluate_task` reproduces
the official evaluator inex_eval 3.1 value for value (§15, worked examples §15.15), including its
surprises, which are defaults here:

* the ranking is the file order (rank and score columns ignored), nothing is truncated;
* precision is measured after every passage; recall buckets are ``floor(100.0 * R)`` taken in
  doubles, so 29/100 lands in bucket 28 (``exact_buckets=True``: exact rational buckets);
* a non-existent passage (``X``/``-1``) counts 18 characters (0 in a Thorough relevant article);
* Thorough charges only characters of an article not returned before (relevant articles only);
* judged passages are counted once per listing (§15.4), declared ``rsize`` is used for recall.

The work is split by concern: :mod:`~inexeval.measures.focused_qrels` prepares the qrels,
:mod:`~inexeval.measures.focused_lines` maps a run's lines onto them and checks the run rules,
:mod:`~inexeval.measures.focused_scoring` scores each topic; this module scores whole runs (the
official "all" lines, runs read whole or in parts) and registers the families for ``-m``.

One deliberate difference: the run is grouped by topic, so a topic whose lines are split into
several blocks is scored as one list (the official tool carries the previous topic's rank
counter and article table into it and prints wrong values or "Impossible recall point").

The families registered for ``-m`` (scale ``fol``) are ``iP[x]`` (``iP@x`` is the same),
``MAiP`` (alias ``AiP``), ``art_prec``, ``art_rec``, ``art_f1``, ``char_prec``, ``char_rec``,
``char_f1`` (parameter ``task=focused|thorough``), and ``gP[r]``, ``gR[r]``, ``MAgP`` (alias
``AgP``) with ``task=relevant-in-context|best-in-context|t2i``, ``beta``, ``bep_n``, ``irr``.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

from inexeval import spans
from inexeval.errors import InexevalError, MeasureError, warn
from inexeval.measures.focused_lines import IN_CONTEXT, NONEXISTENT_OFFSET, RunLines, run_lines
from inexeval.measures.focused_qrels import (
    FloatArray,
    IntArray,
    JudgedArticles,
    judged_articles,
    topic_order,
)
from inexeval.measures.focused_scoring import (
    COUNTS,
    NONEXISTENT_SIZE,
    RECALL_POINTS,
    REPORTED_IP,
    REPORTED_RANKS,
    SCORES,
    TASKS,
    ScoredTopics,
    TaskSettings,
    TopicScores,
    focused_scores,
    measure_names,
    topic_scores,
)
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model import Assessments, Run, TopicAssessments, TopicRun
from inexeval.model.run import RunParts, distinct_names, make_topic_run, topic_sizes
from inexeval.results import Results, Row

if TYPE_CHECKING:
    from inexeval.collection.index import CollectionIndex

__all__ = ["COUNTS", "IN_CONTEXT", "NONEXISTENT_OFFSET", "NONEXISTENT_SIZE", "RECALL_POINTS",
           "REPORTED_IP", "REPORTED_RANKS", "SCORES", "TASKS", "FloatArray", "IntArray",
           "TaskSettings", "TopicScores", "evaluate_task", "measure_names", "non_negative",
           "positive_finite", "topic_order", "topic_scores"]


def _means(values: FloatArray) -> FloatArray:
    """Column means of ``values`` as the official tool takes them: a left-to-right double sum
    divided by the number of rows (NaN for no rows)."""
    if len(values) == 0:
        return np.full(values.shape[1], math.nan)
    return np.cumsum(values, axis=0)[-1] / len(values)  # type: ignore[no-any-return]


def _overall(task: str, scored: ScoredTopics, included: IntArray) -> dict[str, float]:
    """The "all" values: counts summed (over T, or over every qrels topic in-context), the rest
    the plain mean over T in topic order (spec §15.5, §15.7)."""
    summed = scored.values if task in IN_CONTEXT else scored.values[included]
    out: dict[str, float] = {"num_q": float(len(included))}
    out.update(zip(COUNTS, summed[:, :len(COUNTS)].sum(axis=0).tolist()))
    names = measure_names(task, per_topic=True)[len(COUNTS):]
    means = dict(zip(names, _means(scored.values[included, len(COUNTS):]).tolist()))
    curve = _means(scored.curves[included]).tolist()
    points = len(curve)
    for name in measure_names(task, per_topic=False)[1 + len(COUNTS):]:
        if name.startswith("ircl_prn."):
            out[name] = curve[round(float(name[9:]) * (points - 1))]
        elif name in ("MAiP", "MAgP"):
            out[name] = means["A" + name[2:]]
        else:
            out[name] = means[name]
    return out


@dataclass
class _InputNotes:
    """What is warned about a run once it is read (a run given in parts is noted part by part):
    topics not in the qrels, passages ending beyond the article length the qrels give."""

    unknown: list[str] = field(default_factory=list)
    unknown_line: int | None = None
    beyond: int = 0
    beyond_line: int | None = None

    def note(self, judged: JudgedArticles, lines: RunLines, run: Run) -> None:
        unknown = [t for t in run if t not in judged.row_of]
        if unknown:
            self.unknown += unknown
            first = min(int(run[t].lines[0]) for t in unknown)
            self.unknown_line = first if self.unknown_line is None else min(self.unknown_line,
                                                                            first)
        known = (lines.article >= 0) & ~lines.missing
        beyond = lines.lines[known][lines.end[known] > judged.length[lines.article[known]]]
        if len(beyond):
            self.beyond += len(beyond)
            first = int(beyond.min())
            self.beyond_line = first if self.beyond_line is None else min(self.beyond_line, first)

    def warn(self, source: str | None) -> None:
        """One warning per kind, for the whole run."""
        unknown = self.unknown
        if unknown:
            warn(f"{len(unknown)} topic(s) of the run are not in the qrels and are ignored: "
                 f"{', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''}", source,
                 self.unknown_line)
        if self.beyond:
            warn(f"{self.beyond} passage(s) end beyond the article length given in the qrels",
                 source, self.beyond_line)


def _warn_impossible(topic: str, bucket: int, source: str | None) -> None:
    warn(f"impossible recall point {bucket} in topic {topic} (the qrels declare fewer relevant "
         "characters than their passages hold); point skipped as the official tool does", source)


_EMPTY: weakref.WeakKeyDictionary[TopicAssessments, dict[TaskSettings, TopicScores]] = (
    weakref.WeakKeyDictionary())


def _topic_by_topic(qrels: Assessments, run: Run, settings: TaskSettings) -> ScoredTopics:
    """Every qrels topic scored on its own (in-context tasks, and runs breaking a rule: the
    first broken rule in topic order raises, after the warnings of the topics before it)."""
    scores = []
    for topic in topic_order(list(qrels)):
        results = run.topics.get(topic)
        if results is not None and len(results):
            scores.append(topic_scores(qrels[topic], results, settings, run.source))
            if scores[-1].impossible:
                _warn_impossible(topic, scores[-1].impossible[0], run.source)
        else:
            empty = _EMPTY.setdefault(qrels[topic], {})
            if settings not in empty:
                empty[settings] = topic_scores(qrels[topic], make_topic_run(topic, []), settings)
            scores.append(empty[settings])
    names = measure_names(settings.task, per_topic=True)
    values = np.array([[*(s.counts[n] for n in COUNTS), *(s.values[n] for n in names[len(COUNTS):])]
                       for s in scores], dtype=np.float64).reshape(len(scores), len(names))
    points = 11 if settings.task in IN_CONTEXT else 101
    curves = np.array([s.curve for s in scores], dtype=np.float64).reshape(len(scores), points)
    return ScoredTopics(values, curves, {})


def _run_scores(qrels: Assessments, run: Run, settings: TaskSettings,
                notes: _InputNotes | None = None) -> ScoredTopics:
    """The values of every qrels topic (official order) for one run, with the run's warnings
    (those about its input kept in ``notes`` when given: the run is one part of several).

    Focused and Thorough score the whole run at once; the in-context tasks go topic by topic."""
    judged = judged_articles(qrels)
    lines = run_lines(judged, run)
    whole = notes is None
    notes = _InputNotes() if notes is None else notes
    notes.note(judged, lines, run)
    if whole:
        notes.warn(run.source)
    if settings.task == "thorough" or (settings.task == "focused" and not _overlapping(lines)):
        scored = focused_scores(judged, lines, settings.task == "thorough",
                                 settings.exact_buckets)
        for t, bucket in sorted(scored.impossible.items()):
            _warn_impossible(judged.topics[t], bucket, run.source)
        return scored
    return _topic_by_topic(qrels, run, settings)


def _parts_scores(qrels: Assessments, parts: Iterable[Run], settings: TaskSettings
                  ) -> tuple[ScoredTopics, dict[str, int]]:
    """:func:`_run_scores` of a run given in parts (runs of whole topics), and the number of
    results of each topic of the run: each part is scored and released, the rows of its topics
    kept."""
    given = iter(parts)
    first, second = next(given, None), next(given, None)
    if first is None or second is None:  # one part: the run's own warnings in their order
        run = first if first is not None else Run("", "passage", {})
        return _run_scores(qrels, run, settings), topic_sizes(run)
    judged = judged_articles(qrels)
    notes = _InputNotes()
    sizes: dict[str, int] = {}
    values = curves = None
    source = None
    for part in chain((first, second), given):
        source = part.source
        sizes.update(topic_sizes(part))
        if values is not None and not len(part):
            continue
        scored = _run_scores(qrels, part, settings, notes)
        if values is None or curves is None:
            values, curves = scored.values, scored.curves
            continue
        rows = [judged.row_of[topic] for topic in part if topic in judged.row_of]
        if rows:  # the arrays are the scoring's own
            values[rows] = scored.values[rows]
            curves[rows] = scored.curves[rows]
    notes.warn(source)
    assert values is not None and curves is not None
    return ScoredTopics(values, curves, {}), sizes


def _overlapping(lines: RunLines) -> bool:
    live = ~lines.missing
    return spans.conflicts(lines.start[live], lines.end[live], lines.doc[live])


def evaluate_task(
    qrels: Assessments,
    runs: Sequence[Run | RunParts],
    task: str,
    *,
    complete: bool = False,
    per_topic: bool = True,
    beta: float = 0.25,
    bep_n: int = 500,
    irr: int = 300,
    exact_buckets: bool = False,
    collection: CollectionIndex | None = None,
) -> Results:
    """Evaluate FOL runs under an official INEX task exactly as inex_eval 3.1 does (spec §15).

    ``task``: ``focused``, ``thorough``, ``relevant-in-context``, ``best-in-context`` or ``t2i``.
    ``complete`` (``-c``): average over every qrels topic; otherwise over the qrels topics with at
    least one run line. ``beta`` (``-beta``, 0.25): weight of recall in the RiC F-score;
    ``bep_n`` (``-n``, 500): BEP distance limit; ``irr`` (``-irr``, 300): T2I tolerance in
    characters; ``exact_buckets``: exact rational recall buckets instead of the tool's doubles.
    An element run is scored as the passage run ``inexeval convert run`` makes of it with
    ``collection`` (:func:`inexeval.convert.passages_for`; without a collection, an error).
    A FOL run may be given in parts (:class:`inexeval.model.run.RunParts`, of
    :func:`inexeval.formats.fol.read_fol_run_parts`): each part is scored and released, so a run
    of any length is evaluated in the memory of one part.

    Per-topic rows (if ``per_topic``) use the official per-topic names (``AiP``, ``AgP``) and
    come topic by topic in string order of topic ids, measures in official order
    (:func:`measure_names`); ``Results.means()`` gives the official "all" lines in official
    order (``num_q`` first, ``MAiP``/``MAgP``, ``ircl_prn.x``), NaN where the tool prints NaN.
    Runs breaking the task's rules raise :class:`RunError` naming the run file and line.
    """
    if qrels.scale != "fol":
        raise MeasureError(f"task {task} needs FOL qrels, not {qrels.scale} assessments",
                           qrels.source)
    for name, value, check in (("beta", beta, positive_finite), ("bep_n", bep_n, positive_finite),
                               ("irr", irr, non_negative)):
        try:
            check(value)
        except MeasureError as error:
            raise MeasureError(f"{name}: {error.reason}") from None
    settings = TaskSettings(task, beta, bep_n, irr, exact_buckets)
    from inexeval.convert import element_run_to_passages, passages_for

    def passages(run: Run) -> Run:
        run = passages_for(run, qrels, collection)
        if run.kind == "document":
            # a task scores characters: a whole-article result is the article's text
            if collection is None:
                raise InexevalError(f"a document run scored by the {task} task needs the "
                                    "collection (--collection DIR|INDEX) for the articles' "
                                    "lengths in characters", run.source)
            run = element_run_to_passages(run, collection)
        return run

    all_topics = topic_order(list(qrels))
    per_topic_names = measure_names(task, per_topic=True)
    results = Results(aggregates={"AiP": "none", "AgP": "none"})
    scores = []
    for run in runs:
        parts = run if isinstance(run, RunParts) else [run]
        scores.append(_parts_scores(qrels, map(passages, parts), settings))
    labels = distinct_names([run.name for run in runs], [run.source for run in runs])
    for (scored, sizes), label in zip(scores, labels):
        included = np.array([t for t, topic in enumerate(all_topics)
                             if complete or sizes.get(topic, 0)], dtype=np.int64)
        results.topics_evaluated[label] = [all_topics[t] for t in included.tolist()]
        if per_topic:
            for t in included.tolist():
                results.extend([Row(label, all_topics[t], name, value) for name, value
                                in zip(per_topic_names, scored.values[t].tolist())])
        overall = _overall(task, scored, included)
        results.overall.extend(Row(label, "all", name, value) for name, value in overall.items())
    return results


# --------------------------------------------------------------------------------------------
# Families for -m


def _scores(assessed: TopicAssessments, run: TopicRun, ctx: TopicContext,
            settings: TaskSettings) -> TopicScores:
    result: TopicScores = ctx.cached(("focused.topic_scores", settings),
                                     lambda: topic_scores(assessed, run, settings))
    return result


def _defined(value: float) -> Value:
    return None if math.isnan(value) else value


def _settings(params: Mapping[str, Any]) -> TaskSettings:
    return TaskSettings(**{k: v for k, v in params.items()
                           if k in ("task", "beta", "bep_n", "irr", "exact_buckets")})


def _ip_kernel(assessed: Any, run: Any, ctx: TopicContext, params: Mapping[str, Any],
               cutoffs: Sequence[Any]) -> list[Value]:
    scores = _scores(assessed, run, ctx, _settings(params))
    out: list[Value] = []
    for x in cutoffs:
        bucket = round(float(x) * 100)
        if not 0 <= bucket <= 100 or abs(bucket - float(x) * 100) > 1e-6:
            raise MeasureError(f"iP[{x}]: recall level must be one of 0.00, 0.01, ..., 1.00")
        out.append(float(scores.curve[bucket]))
    return out


def _value_kernel(name: str) -> Any:
    def kernel(assessed: Any, run: Any, ctx: TopicContext, params: Mapping[str, Any],
               cutoffs: Sequence[Any]) -> list[Value]:
        scores = _scores(assessed, run, ctx, _settings(params))
        if name in ("gP", "gR"):
            return [_defined(_rank_value(scores, name, int(c))) for c in cutoffs]
        return [_defined(scores.values[name])]
    return kernel


def _rank_value(scores: TopicScores, name: str, cutoff: int) -> float:
    """gP/gR at any rank with the official rule: past the last article, the last article's
    value (not divided by the cut-off, spec §15.7); 0 for an empty list."""
    values = scores.ranks[name]
    return float(values[min(cutoff, len(values)) - 1]) if len(values) else 0.0


def positive_finite(value: float) -> None:
    """Param check: a finite number above 0 (``beta``, ``bep_n``)."""
    if not (math.isfinite(value) and value > 0):
        raise MeasureError(f"{value!r} is not a finite number above 0")


def non_negative(value: float) -> None:
    """Param check: a number of at least 0 (``irr``)."""
    if not value >= 0:
        raise MeasureError(f"{value!r} is negative")


_FOCUSED_TASK = Param("task", str, "focused", "official task: focused or thorough (characters "
                      "returned before are not charged again)", ("focused", "thorough"))
_EXACT = Param("exact_buckets", bool, False, "exact rational recall buckets instead of the "
               "official floor(100.0*R) in doubles (29/100 -> bucket 29, not 28)")
_CONTEXT_PARAMS = (
    Param("task", str, "relevant-in-context", "official in-context task", IN_CONTEXT),
    Param("beta", float, 0.25, "weight of recall in the per-article F-score (RiC; INEX 2010)",
          check=positive_finite),
    Param("bep_n", int, 500, "BEP distance limit n in characters (BiC; 1000 in 2007)",
          check=positive_finite),
    Param("irr", int, 300, "tolerance to irrelevance in characters (t2i)", check=non_negative),
)

register(Family("iP", "interpolated precision at recall level x, official INEX 2007-2010 "
                "(Kamps et al. 2007; inex_eval 3.1)", _ip_kernel,
                (_FOCUSED_TASK, _EXACT), cutoff=float, cutoff_required=True, scales=("fol",),
                bracket_cutoff=True))
register(Family("MAiP", "mean average interpolated precision over 101 recall levels; "
                "per topic AiP", _value_kernel("AiP"), (_FOCUSED_TASK, _EXACT),
                aliases=("AiP",), scales=("fol",)))
for _name, _what in (("art_prec", "article precision"), ("art_rec", "article recall"),
                     ("art_f1", "article F1"), ("char_prec", "character precision"),
                     ("char_rec", "character recall"), ("char_f1", "character F1")):
    register(Family(_name, f"{_what} of the whole list, inex_eval 3.1",
                    _value_kernel(_name), (_FOCUSED_TASK,), scales=("fol",)))
register(Family("gP", "generalised precision at article rank r, in-context tasks; "
                "past the last article the last value", _value_kernel("gP"),
                _CONTEXT_PARAMS, cutoff=int, cutoff_required=True, scales=("fol",),
                bracket_cutoff=True))
register(Family("gR", "generalised recall at article rank r",
                _value_kernel("gR"), _CONTEXT_PARAMS, cutoff=int, cutoff_required=True,
                scales=("fol",), bracket_cutoff=True))
register(Family("MAgP", "mean average generalised precision; per topic AgP",
                _value_kernel("AgP"), _CONTEXT_PARAMS, aliases=("AgP",), scales=("fol",)))
