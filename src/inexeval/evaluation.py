"""The evaluation API: ``evaluate``, ``iter_calc`` and a reusable ``Evaluator``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError, MeasureError, warn, warn_unassessed
from inexeval.measures.common import element_table
from inexeval.measures.registry import Measure, TopicContext, measure_groups, parse_measures
from inexeval.model import Assessments, Run, TopicRun
from inexeval.model.run import RunParts, distinct_names, make_topic_run
from inexeval.quantise import get as quantisation
from inexeval.results import Metric, Results, Row
from inexeval.scores import topic_key


class Evaluator:
    """Measures and assessments bound once, to evaluate many runs (ir_measures' ``evaluator``):
    ``Evaluator(measures, assessments).evaluate(runs)`` gives :class:`Results`;
    ``iter_calc(run)`` yields ``Metric`` tuples.

    ``complete`` (trec_eval's ``-c``): average over every assessed topic, a topic without results
    scoring as an empty run; otherwise over the assessed topics present in the run.
    ``order``: how results are ordered before scoring (``rank``, ``score``, ``file`` or
    ``trec_eval``; see :meth:`inexeval.model.TopicRun.ordered`); by default ``trec_eval`` for
    document runs on TREC qrels, else ``rank``.
    ``limit``: results per topic kept for element and document runs (100 for INEX 2002
    assessments, none for TREC qrels as in trec_eval, else 1500; 0 keeps all); longer lists are
    cut with a warning. Passage runs are cut only at a ``limit`` given explicitly (the official
    tool keeps everything). Repeated results of element and document runs are dropped after their
    first occurrence, with a warning (as INEX 2002 did), unless ``keep_repeats`` (the randomised
    runs of Piwowarski and Dupret (2006) keep the element a walk lands on twice).
    """

    def __init__(
        self,
        measures: Iterable[str | Measure],
        assessments: Assessments,
        *,
        collection: Any = None,
        num_docs: int | None = None,
        complete: bool = False,
        topics: Iterable[str] | None = None,
        order: str | None = None,
        limit: int | None = None,
        keep_repeats: bool = False,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(assessments, Assessments):
            from inexeval.inputs import as_assessments

            assessments = as_assessments(assessments)  # a path, a DataFrame, a dict
        collection, chosen = _checked_options(collection, num_docs, complete, topics, order,
                                              limit, keep_repeats)
        given = _listed(measures)
        listed = _measure_list(given)
        self._keys = _measure_keys(given, listed)
        self.measures = list(dict.fromkeys(parse_measures(listed)))
        if not self.measures:
            raise MeasureError("no measure given (see inexeval.measures or `inexeval measures`)")
        problems = [
            f"{m} needs {' or '.join(m.family.scales)} assessments, not {assessments.scale}"
            for m in self.measures
            if m.family.scales is not None and assessments.scale not in m.family.scales
        ]
        for m in self.measures:
            quant = m.settings.get("quant")
            if isinstance(quant, str):
                try:
                    quantisation(quant, assessments.scale)
                except MeasureError as error:
                    problems.append(f"{m}: {error.reason}")
        if problems:
            raise MeasureError("; ".join(dict.fromkeys(problems)), assessments.source)
        self.assessments = assessments
        self.collection = collection
        if num_docs is None and collection is not None:
            num_docs = collection.num_docs
        self.num_docs = num_docs
        self.complete = complete
        self.topics = chosen
        self.order = order
        self.keep_repeats = keep_repeats
        if limit is None:
            limit = {"inex2002": 100, "trec": 0}.get(assessments.scale, 1500)
        self.limit = limit
        self.passage_limit = limit or 0
        self.options = dict(options or {})
        unknown = sorted(set(self.options) - set(EVALUATOR_OPTIONS))
        if unknown:
            raise InexevalError(f"unknown option {', '.join(map(repr, unknown))} (known: "
                                f"{', '.join(EVALUATOR_OPTIONS)})")
        self.shared: dict[Any, Any] = {}

    def _topics_for(self, run: Run, complete: bool | None = None) -> list[str]:
        assessed = [t for t in self.assessments if self.topics is None or t in self.topics]
        if self.complete if complete is None else complete:
            return sorted(assessed, key=topic_key)
        present = set(run)
        return sorted((t for t in assessed if t in present), key=topic_key)

    def _order(self, run: Run) -> str:
        if self.order is not None:
            return self.order
        from inexeval.model.run import default_order

        return default_order(run, self.assessments.scale == "trec")

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield ``Metric(topic, measure, value)`` per topic and measure, topics in natural id
        order (ir_measures' ``iter_calc``); ``run`` a :class:`Run`, a path, a DataFrame or a
        dict."""
        from inexeval.inputs import as_run

        for row in self.rows(as_run(run)):
            yield Metric(row.topic, row.measure, row.value)

    def calc_aggregate(self, run: Any) -> dict[Any, float | None]:
        """The ``all`` value of each measure for ``run`` (ir_measures' ``evaluator(measures,
        qrels).calc_aggregate(run)``), keyed as :func:`calc_aggregate` keys them: by the
        ir_measures object given, else by the measure (printing as its name)."""
        from inexeval.inputs import as_run

        results = self.evaluate(as_run(run))
        return {self._keys.get(m) or m: results.mean(str(m)) for m in self.measures}

    def __repr__(self) -> str:
        shown = ", ".join(str(m) for m in self.measures[:4])
        more = f", ... ({len(self.measures)})" if len(self.measures) > 4 else ""
        return (f"Evaluator({shown}{more}; {len(self.assessments)} assessed topics, "
                f"{self.assessments.scale})")[:480]

    def rows(self, run: Run) -> Iterator[Row]:
        """Yield one :class:`Row` (run, topic, measure, value) per topic and measure. An element
        run on FOL qrels is scored as its passages (:func:`inexeval.convert.passages_for`)."""
        from inexeval.convert import passages_for

        run = passages_for(run, self.assessments, self.collection)
        warn_unassessed([t for t in run if t not in self.assessments], run.source)
        yield from self._topic_rows(run, self._topics_for(run))

    def _parts_rows(self, parts: RunParts) -> tuple[list[Row], list[str]]:
        """The rows of a run given in parts (each scored and released), in the order of
        :meth:`rows`, and the topics evaluated."""
        from inexeval.convert import passages_for

        rows: list[Row] = []
        unassessed: list[str] = []
        for part in parts:
            part = passages_for(part, self.assessments, self.collection)
            unassessed += [t for t in part if t not in self.assessments]
            rows += self._topic_rows(part, self._topics_for(part, complete=False))
        warn_unassessed(unassessed, parts.source)
        whole = parts.outline()
        topics = self._topics_for(whole)
        if self.complete:
            rows += self._topic_rows(whole, [t for t in topics if t not in whole.topics])
        position = {topic: i for i, topic in enumerate(topics)}
        rows.sort(key=lambda row: position[row.topic])  # stable: measures keep their order
        return [row if row.run == whole.name else row._replace(run=whole.name)
                for row in rows], topics

    def _topic_rows(self, run: Run, topics: list[str]) -> Iterator[Row]:
        """The rows of ``topics`` (a topic not in ``run`` is scored as an empty list)."""
        groups, names = self._groups()
        for topic in topics:
            topic_run = run.topics.get(topic) or make_topic_run(topic, [])
            topic_run = topic_run.ordered(self._order(run))
            context = TopicContext(self.collection, self.num_docs, self.options,
                                   shared=self.shared)
            if run.kind == "passage" and self.passage_limit and len(topic_run) > self.passage_limit:
                warn(f"topic {topic}: {len(topic_run)} results, cut to the first "
                     f"{self.passage_limit}", run.source)
                topic_run = topic_run.take(slice(0, self.passage_limit))
            if run.kind != "passage":
                ids = element_table(context).ids(topic_run.files.tolist(),
                                                 topic_run.paths.tolist())
                topic_run, ids = prepare(topic_run, ids, self.limit, run.source,
                                         self.keep_repeats)
                context.memo["ids"] = ids
                if self.collection is not None and run.kind == "element":
                    self._check_collection(topic_run, ids, run.source)
            yield from self._values(run.name, topic, topic_run, context, groups, names)

    def _groups(self) -> tuple[list[tuple[Any, list[Any], list[Measure]]], dict[int, list[str]]]:
        """The measures by family and parameters (one kernel call each), and their names."""
        groups = [(ms[0].settings, [m.cutoff for m in ms], ms)
                  for ms in measure_groups(self.measures).values()]
        return groups, {id(ms): [str(m) for m in ms] for _, _, ms in groups}

    def _values(self, run_name: str, topic: str, topic_run: TopicRun, context: TopicContext,
                groups: list[tuple[Any, list[Any], list[Measure]]],
                names: dict[int, list[str]]) -> Iterator[Row]:
        """The rows of one topic's list, ready to be scored."""
        assessed = self.assessments[topic]
        # A topic without results scores 0, not what a measure would give an empty list
        # (inex_eval's virtual final rank alone would give it some precision); it stays
        # undefined (None, or NaN as the official tools print) where the topic has nothing
        # relevant. Counts (summed in ``all``, as num_rel) are those of the empty list.
        missing = len(topic_run) == 0
        for settings, cutoffs, members in groups:
            values = members[0].family.kernel(assessed, topic_run, context, settings, cutoffs)
            counted = members[0].family.aggregate == "sum" or members[0].family.scores_empty
            for name, value in zip(names[id(members)], values):
                if missing and not counted and value is not None and not math.isnan(value):
                    value = 0.0
                yield Row(run_name, topic, name, value)

    def _check_collection(self, run: TopicRun, ids: npt.NDArray[np.int64],
                          source: str | None) -> None:
        """Warn about results whose element is not in the collection (scored non-relevant).
        Each element is looked up once per evaluator: ``known`` is 1 (present), -1 (absent) or
        0 (not looked up yet) by element-table id."""
        known: npt.NDArray[np.int8] = self.shared.get("in collection", np.zeros(0, np.int8))
        if len(known) <= int(ids.max(initial=-1)):
            known = np.concatenate([known, np.zeros(2 * int(ids.max()) + 1 - len(known),
                                                    np.int8)])
            self.shared["in collection"] = known
        for i in np.flatnonzero(known[ids] == 0).tolist():
            present = self.collection.span(run.files[i], run.paths[i]) is not None
            known[ids[i]] = 1 if present else -1
        absent = np.flatnonzero(known[ids] < 0)
        if len(absent):
            first = int(absent[0])
            warn(f"topic {run.topic}: {len(absent)} result(s) not in the collection, scored "
                 f"non-relevant (first: {run.files[first]} {run.paths[first]})", source,
                 int(run.lines[first]))

    def evaluate(self, runs: Run | RunParts | Sequence[Run | RunParts]) -> Results:
        """The results of the runs; runs sharing a name are named ``name (file)``
        (:func:`inexeval.model.run.distinct_names`). A run may be given in parts
        (:class:`inexeval.model.run.RunParts`): each part is scored and released."""
        from inexeval.progress import progress

        runs = ([runs] if isinstance(runs, (Run, RunParts)) else list(runs)
                if isinstance(runs, Iterable) else [])
        if not runs or not all(isinstance(r, (Run, RunParts)) for r in runs):
            raise TypeError("evaluate takes a Run or a list of Runs (see load_run)")
        results = Results(aggregates={str(m): m.family.aggregate for m in self.measures})
        evaluated = []
        for run in progress(runs, "runs", len(runs)) if len(runs) > 1 else runs:
            if isinstance(run, RunParts):
                evaluated.append(self._parts_rows(run))
            else:
                evaluated.append((list(self.rows(run)), self._topics_for(run)))
        names = distinct_names([run.name for run in runs], [run.source for run in runs])
        for run, name, (rows, topics) in zip(runs, names, evaluated):
            results.topics_evaluated[name] = topics
            if run.source is not None:
                results.files[name] = str(run.source)
            results.extend(rows if name == run.name else [row._replace(run=name) for row in rows])
        return results


EVALUATOR_OPTIONS = ("navigation", "ideal_run")
"""The keys of an :class:`Evaluator`'s ``options``: a custom navigation model (``nav=custom``,
:func:`inexeval.measures.navigation.read_navigation`) and the ideal run of ``ideal_list=given``
(a :class:`~inexeval.model.Run`)."""

ORDERS = ("rank", "score", "file", "trec_eval")
"""Result orders (:meth:`inexeval.model.TopicRun.ordered`)."""


def _checked_options(collection: Any, num_docs: Any, complete: Any, topics: Any, order: Any,
                     limit: Any, keep_repeats: Any) -> tuple[Any, set[str] | None]:
    """Check the :class:`Evaluator`'s options (TypeError for a wrong type, InexevalError for a
    wrong value); returns the collection (read from a folder or index file when given as one)
    and the topics as a set (one string is one topic)."""
    from inexeval.collection.index import CollectionIndex

    def whole(name: str, value: Any, least: int) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} is a whole number, not {type(value).__name__}")
        if value < least:
            raise InexevalError(f"{name}={value} is below {least}")

    whole("num_docs", num_docs, 1)
    whole("limit", limit, 0)
    for name, flag in (("complete", complete), ("keep_repeats", keep_repeats)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} is True or False, not {type(flag).__name__}")
    if order is not None and order not in ORDERS:
        raise InexevalError(f"unknown order {order!r} (known: {', '.join(ORDERS)})")
    chosen = None if topics is None else [topics] if isinstance(topics, str) else (
        list(topics) if isinstance(topics, Iterable) else [topics])
    if chosen is not None and not all(isinstance(t, str) for t in chosen):
        raise TypeError("topics are topic ids (str) or a list of them")
    if isinstance(collection, (str, Path)):
        from inexeval.collection.build import load_collection

        collection = load_collection(collection)
    elif collection is not None and not isinstance(collection, CollectionIndex):
        raise TypeError(f"collection is a folder or index file name or a CollectionIndex (see "
                        f"load_collection), not {type(collection).__name__}")
    return collection, None if chosen is None else set(chosen)


def _measure_list(measures: Any) -> list[str | Measure]:
    """Measures as a list: one string or :class:`Measure` is one measure (not its characters);
    ir_measures' objects as our names (:func:`~inexeval.measures.registry.from_ir_measures`)."""
    from inexeval.measures.registry import from_ir_measures, is_ir_measure

    if isinstance(measures, (str, Measure)) or is_ir_measure(measures):
        measures = [measures]
    if not isinstance(measures, Iterable):
        raise TypeError(f"measures are a measure name or a list of them, not "
                        f"{type(measures).__name__}")
    listed = [from_ir_measures(m) if is_ir_measure(m) else m for m in measures]
    wrong = [m for m in listed if not isinstance(m, (str, Measure))]
    if wrong:
        raise TypeError(f"a measure is a name such as 'P@10', not {type(wrong[0]).__name__}")
    return listed


def prepare(run: TopicRun, ids: npt.NDArray[np.int64], limit: int, source: str | None = None,
            keep_repeats: bool = False) -> tuple[TopicRun, npt.NDArray[np.int64]]:
    """Drop repeated results (same element-table id; the first is kept) unless
    ``keep_repeats``, and cut the list at ``limit`` (0: no limit). Returns the run and the ids
    of its results."""
    _, first = np.unique(ids, return_index=True)
    if len(first) < len(ids) and not keep_repeats:
        keep = np.zeros(len(ids), dtype=bool)
        keep[first] = True
        repeated = np.flatnonzero(~keep)
        warn(f"topic {run.topic}: {len(repeated)} repeated result(s) dropped, the first kept "
             f"(first repeat at line {int(run.lines[repeated[0]])})", source)
        run, ids = run.take(np.flatnonzero(keep)), ids[keep]
    if limit and len(run) > limit:
        warn(f"topic {run.topic}: {len(run)} results, cut to the first {limit}", source)
        run, ids = run.take(slice(0, limit)), ids[:limit]
    return run, ids


def _names_measures(value: Any) -> bool:
    """Whether ``value`` can only be measures: a :class:`Measure`, a string that names no file
    (a path that does not exist is reported as missing when it is read as qrels or a run), or a
    non-empty list of these."""
    from inexeval.measures.registry import is_ir_measure

    if isinstance(value, Measure) or is_ir_measure(value):
        return True
    if isinstance(value, str):
        return not Path(value).exists()
    return (isinstance(value, (list, tuple, set, frozenset)) and bool(value)
            and all(_names_measures(item) for item in value))


def _arguments(first: Any, second: Any, third: Any, measures_first: bool = False
               ) -> tuple[Assessments, Run | list[Run], list[str | Measure]]:
    """``(qrels, run, measures)`` in inexeval's order or ir_measures' ``(measures, qrels,
    run)``, whichever the arguments are (the function's own order, ``measures_first`` or not,
    when both could be), converted (:mod:`inexeval.inputs`)."""
    from inexeval.inputs import as_assessments, as_run

    leading, trailing = _names_measures(first), _names_measures(third)
    if (leading and not trailing) or (leading == trailing and measures_first):
        first, second, third = second, third, first
    measures = _measure_list(third)
    runs = ([as_run(r) for r in second] if isinstance(second, (list, tuple))
            else as_run(second))
    return as_assessments(first), runs, measures


def evaluate(
    qrels: Any,
    run: Any,
    measures: Any,
    collection: Any = None,
    **options: Any,
) -> Results:
    """Evaluate one run or several under the given measures; see :class:`Evaluator` for options.

    ``qrels``: :class:`Assessments`, a path, a pandas DataFrame (``query_id, doc_id, relevance``
    [``offset, length``]) or a dict ``{query_id: {doc_id: relevance}}``; ``run``: a
    :class:`Run`, a path, a DataFrame (``query_id, doc_id, score`` [``offset, length``]), a dict
    ``{query_id: {doc_id: score}}``, or a list of these; ``measures``: names or measure objects
    (``inexeval.measures.iP @ 0.01``). ir_measures' order ``(measures, qrels, run)`` works too.
    """
    assessments, runs, wanted = _arguments(qrels, run, measures)
    return Evaluator(wanted, assessments, collection=collection, **options).evaluate(runs)


def iter_calc(qrels: Any, run: Any, measures: Any, collection: Any = None,
              **options: Any) -> Iterator[Metric]:
    """Yield ``Metric(topic, measure, value)`` for every assessed topic and measure of one run
    (inputs as for :func:`evaluate`; ir_measures' order ``(measures, qrels, run)`` works too)."""
    assessments, one, wanted = _arguments(qrels, run, measures)
    if not isinstance(one, Run):
        raise MeasureError("iter_calc evaluates one run; use evaluate for several")
    return Evaluator(wanted, assessments, collection=collection, **options).iter_calc(one)


def calc_aggregate(measures: Any, qrels: Any, run: Any, collection: Any = None,
                   **options: Any) -> dict[Any, float | None]:
    """The ``all`` value of each measure for one run, keyed by measure object (printing as its
    name; an ir_measures object given is the key of its value), as ir_measures'
    ``calc_aggregate(measures, qrels, run)``."""
    assessments, one, wanted = _arguments(measures, qrels, run, measures_first=True)
    given = measures if _names_measures(measures) else run
    given = list(given) if isinstance(given, (list, tuple, set, frozenset)) else [given]
    evaluator = Evaluator(wanted, assessments, collection=collection, **options)
    evaluator._keys = _measure_keys(given, wanted)
    return evaluator.calc_aggregate(one)


def _listed(measures: Any) -> Any:
    """The measures given, as a list when they are several (an iterator read once), else as
    given (one name, measure or object; what is no measure is told by :func:`_measure_list`)."""
    from inexeval.measures.registry import is_ir_measure

    if isinstance(measures, (str, Measure)) or is_ir_measure(measures):
        return [measures]
    return list(measures) if isinstance(measures, Iterable) else measures


def _measure_keys(given: Sequence[Any], listed: Sequence[str | Measure]) -> dict[Measure, Any]:
    """Each measure (``listed``: the names of ``given``) to the ir_measures object it was given
    as, if any (the key of its value in :func:`calc_aggregate`'s answer)."""
    from inexeval.measures.registry import is_ir_measure

    keys: dict[Measure, Any] = {}
    for text, asked in zip(listed, given):
        keys.setdefault(parse_measures([text])[0], asked if is_ir_measure(asked) else None)
    return keys


def with_implicit(assessments: Assessments, *, skip: Iterable[str] = (),
                  collection: Any = None, implicit: bool = True) -> Assessments:
    """Assessments ready for the element measures: INEX 2005-2008 highlighted passages resolved
    into character spans when the collection is given, and the implicit assessments of the scale
    added (parents inherit from their children, as INEX 2002-2005 did) unless ``implicit`` is False, except for the topics in ``skip`` (INEX 2002:
    CAS topics with target elements)."""
    from inexeval.collection.implicit import implicit_assessments, resolve_passages

    skipped = set(skip)
    topics = {}
    for t, ta in assessments.items():
        if collection is not None and ta.passages:
            ta = resolve_passages(ta, collection)
        if implicit and t not in skipped:
            ta = implicit_assessments(ta, collection)
        topics[t] = ta
    return replace(assessments, topics=topics)


class RunEvaluator:
    """One run's per-topic values over every assessed topic (``-c``): the measures through an
    :class:`Evaluator`, or an official task (``task``) through
    :func:`inexeval.measures.focused.evaluate_task` with its keyword ``task_options``. A
    picklable callable, for studies that score runs again and again on other assessments
    (:mod:`inexeval.meta`); :meth:`inexeval.experiment.Experiment.run_evaluator` makes one with
    an experiment's choices."""

    def __init__(self, assessments: Assessments, measures: Sequence[str], *,
                 task: str | None = None, collection: Any = None,
                 task_options: Mapping[str, Any] | None = None, **options: Any) -> None:
        self.task = task
        self.assessments = assessments
        self.collection = collection
        self.task_options = dict(task_options or {})
        self.evaluator = None if task else Evaluator(measures, assessments, collection=collection,
                                                     complete=True, **options)

    def __call__(self, run: Run) -> Results:
        if self.evaluator is not None:
            return self.evaluator.evaluate(run)
        from inexeval.measures.focused import evaluate_task

        return evaluate_task(self.assessments, [run], str(self.task), complete=True,
                             per_topic=True, collection=self.collection, **self.task_options)


def evaluate_runs(evaluate_one: Any, runs: Sequence[Run]) -> Results:
    """The results of ``evaluate_one(run)`` for every run, merged in the order of ``runs``."""
    merged = Results()
    for run in runs:
        part = evaluate_one(run)
        merged.rows.extend(part.rows)
        merged.overall.extend(part.overall)
        merged.aggregates.update(part.aggregates)
        merged.topics_evaluated.update(part.topics_evaluated)
        merged.files.update(part.files)
    return merged
