"""The experiment at the centre: one study's inputs and choices, evaluated once, for the Python
API and every command alike (PyTerrier's ``pt.Experiment`` is the model).

:class:`Experiment` owns what a study is: the assessments, the runs (file names, streamed a group
of topics at a time; or :class:`~inexeval.model.Run` objects, DataFrames and dicts held in
memory), the collection, the measures or an official task, the topics, the averaging rule
(:data:`inexeval.scores.RULES`), how results are ordered and cut, and who evaluates the runs
(``jobs`` processes or a Dask ``scheduler``, :mod:`inexeval.executor`). :meth:`Experiment.evaluate`
gives an :class:`Evaluation`: the :class:`~inexeval.results.Results` ``eval`` prints and the
:class:`~inexeval.scores.Scores` (runs × topics × measures) every analysis starts from;
:meth:`~Experiment.compare`, :meth:`~Experiment.agree`, :meth:`~Experiment.curves` and
:meth:`~Experiment.report` work on those scores.

The averaging rule is chosen once per call: ``answered`` (trec_eval's, each run over the assessed
topics it answers) for :meth:`~Experiment.evaluate`, ``any`` (the topics assessed and answered
by at least one run, a missing one scoring 0) for everything that compares runs, ``all``
(``complete``, trec_eval's ``-c``) on request. When the runs answer fewer than half the assessed
topics one warning says so.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from inexeval.defaults import TASKS
from inexeval.errors import InexevalError, MeasureError
from inexeval.outcomes import RunOutcome, warn_coverage
from inexeval.results import Results, together
from inexeval.scores import RULES, Scores, describe_rule, natural_order
from inexeval.version import package_version

if TYPE_CHECKING:
    from inexeval.comparison import Comparison
    from inexeval.model import Assessments, Run


EVALUATION_RULE = "answered"
"""The rule of :meth:`Experiment.evaluate` (``inexeval eval``): trec_eval's."""

COMPARISON_RULE = "any"
"""The rule of every comparison of runs (``compare``, ``agree``, ``plot``, ``report``)."""

# Options of element evaluation that the official passage tasks do not use (the official
# evaluator's rules: file order, no limit, FOL qrels; the collection turns element runs into
# passages): name and default.
_NOT_FOR_TASKS = (("limit", None), ("order", None), ("keep_repeats", False),
                  ("num_docs", None), ("implicit", True), ("strict", False),
                  ("topic_file", None), ("navigation", None), ("ideal_run", None))

# Official task means whose per-topic values have their own name.
_PER_TOPIC_NAME = {"AiP": "MAiP", "AgP": "MAgP"}


def option_name(name: str) -> str:
    """The command line's spelling of an option (``keep_repeats`` is ``--keep-repeats``)."""
    return "--" + name.replace("_", "-")


def _rule(rule: str | None, complete: bool, default: str) -> str:
    if rule is not None and rule not in RULES:
        raise InexevalError(f"unknown averaging rule {rule!r} (one of {', '.join(RULES)})")
    if complete and rule not in (None, "all"):
        raise InexevalError(f"complete (-c) is rule 'all', not {rule!r}: give one")
    return "all" if complete else rule or default


class Experiment:
    """A study: ``assessments``, ``runs`` and every choice that says how they are evaluated.

    ``assessments``: a file or folder name, read as ``inexeval eval`` reads it (the format
    detected or ``assessments_format``; the implicit assessments of INEX 2002-2005 added unless
    ``implicit`` is False, except for the CAS topics with target elements of ``topic_file``;
    INEX 2005-2008 highlighting checked, an error with ``strict``), or anything
    :func:`inexeval.as_assessments` takes (used as given). ``runs``: one or a list of file names
    (streamed a group of topics at a time; format detected or ``run_format``), :class:`Run`
    objects, DataFrames or dicts (these named ``run1``, ``run2``... by position).

    ``measures``: names (``inexeval measures``), objects of :mod:`inexeval.measures` or of
    ir_measures (``ir_measures.AP@10``); with ``task`` (an official INEX 2007-2010 task) the
    task's measures to keep. Neither: the defaults of the assessments' kind
    (:func:`inexeval.defaults.default_measures`, announced in :attr:`note`). ``topics``: the
    assessed topics evaluated (default all). ``rule``: the averaging rule of every call
    (default: each call's, see the module docstring); ``complete`` is rule ``all``.
    ``collection``, ``num_docs``, ``order``, ``limit``, ``keep_repeats``, ``options``: as for
    :class:`inexeval.evaluation.Evaluator`; ``options`` may give ``navigation`` and
    ``ideal_run`` as file names. ``task_options``: ``beta``, ``bep_n``, ``irr``,
    ``exact_buckets`` of :func:`inexeval.measures.focused.evaluate_task`. ``jobs`` processes
    or a Dask ``scheduler`` (:func:`inexeval.executor.make_executor`) evaluate the runs; the
    numbers and their order do not change.

    An option the measures or the task would not use (``strict`` or ``implicit`` off on
    assessments without highlighting or implicit assessments, a navigation model without
    ``nav=custom``, an ideal run without ``ideal_list=given``, a collection on TREC qrels, an
    element option with a task) is an error, never silently ignored.
    """

    def __init__(
        self,
        assessments: Any,
        runs: Any,
        *,
        collection: Any = None,
        measures: Any = None,
        task: str | None = None,
        topics: Iterable[str] | str | None = None,
        rule: str | None = None,
        complete: bool = False,
        order: str | None = None,
        limit: int | None = None,
        keep_repeats: bool = False,
        num_docs: int | None = None,
        jobs: int = 1,
        scheduler: str | None = None,
        run_format: str | None = None,
        assessments_format: str | None = None,
        implicit: bool = True,
        topic_file: str | None = None,
        strict: bool = False,
        options: Mapping[str, Any] | None = None,
        task_options: Mapping[str, Any] | None = None,
    ) -> None:
        from inexeval.options import check_given_once

        if rule is not None or complete:
            _rule(rule, complete, EVALUATION_RULE)
        self.rule = "all" if complete else rule
        if task is not None and task not in TASKS:
            raise InexevalError(f"unknown task {task!r} (one of {', '.join(TASKS)})")
        self.inputs = _run_inputs(runs)
        from inexeval.model import Run

        self.sources = [str(r) if isinstance(r, (str, Path)) else
                        r.name if isinstance(r, Run) and r.name else f"run{i + 1}"
                        for i, r in enumerate(self.inputs)]
        self.task = task
        self.task_options = _task_options(task, measures, task_options)
        self.measures = measure_names(measures)
        if self.task is None and self.measures:
            _check_measures(self.measures)  # a misnamed measure before any file is read
        check_given_once([source for source, item in zip(self.sources, self.inputs)
                          if isinstance(item, str)])
        self.run_format = run_format
        self.keep_repeats = keep_repeats
        self.num_docs = num_docs
        self.topics = None if topics is None else _topic_set(topics)
        self.collection_source = (str(collection) if isinstance(collection, (str, Path))
                                  else None)
        self.collection = _collection(collection)
        self.assessments = self._assessments(assessments, assessments_format, topic_file,
                                             implicit, strict)
        self.options = self._options(options)
        self.order, self.limit = order, limit
        self.jobs, self.scheduler = jobs, scheduler
        self.note = ""
        self.default_task = False
        self.labels: dict[str, str] = {}
        """Each measure's name (canonical) to the name it was asked for: trec_eval's names
        (``map``, ``P_10``) and the others as typed, on TREC qrels."""
        if self.task is None and self.measures and self.assessments.scale == "trec":
            from inexeval.measures.trec_names import trec_eval_requests

            requests = trec_eval_requests(self.measures)
            self.measures, self.labels = requests.measures, requests.labels
        if not self.measures and self.task is None:
            self._default_measures()
        self._check_unused(implicit=implicit, strict=strict, topic_file=topic_file)
        self._evaluators: dict[bool, Any] = {}

    # inputs ------------------------------------------------------------------------------------
    def _assessments(self, given: Any, fmt: str | None, topic_file: str | None, implicit: bool,
                     strict: bool) -> Assessments:
        from inexeval.inputs import as_assessments
        from inexeval.options import check_assessed_elements, check_topic_file, check_topics

        if not isinstance(given, (str, Path)):
            assessments = as_assessments(given)
            if self.topics is not None:
                check_topics(self.topics, assessments)
                assessments = assessments.select(self.topics)
            return assessments
        assessments = _load_assessments(str(given), fmt, self.sources)
        check_topic_file(topic_file, assessments)
        collection = self.collection
        if collection is not None and assessments.scale != "fol":
            check_assessed_elements(assessments, collection)
        if self.topics is not None:
            check_topics(self.topics, assessments)
            assessments = assessments.select(self.topics)
        if assessments.scale == "inex2005":
            from inexeval.collection.implicit import resolve_passages
            from inexeval.measures.hixeval import validate_highlighting

            for ta in assessments.values():
                as_given = ta if collection is None or not ta.passages else resolve_passages(
                    ta, collection, merge=False)
                validate_highlighting(as_given, collection, strict=strict)
        if assessments.scale in ("inex2002", "inex2003", "inex2005"):
            from inexeval.evaluation import with_implicit

            targets: set[str] = set()
            if topic_file:
                from inexeval.formats.topics import read_topics

                targets = {t for t, topic in read_topics(topic_file).items()
                           if topic.target_elements}
            assessments = with_implicit(assessments, skip=targets, collection=collection,
                                        implicit=implicit)
        return assessments

    def _options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``options`` checked (only :data:`inexeval.evaluation.EVALUATOR_OPTIONS`), files
        read."""
        from inexeval.evaluation import EVALUATOR_OPTIONS

        given = dict(options or {})
        unknown = sorted(set(given) - set(EVALUATOR_OPTIONS))
        if unknown:
            raise InexevalError(f"unknown option {', '.join(map(repr, unknown))} (known: "
                                f"{', '.join(EVALUATOR_OPTIONS)})")
        if isinstance(given.get("navigation"), (str, Path)):
            from inexeval.measures.navigation import read_navigation

            given["navigation"] = read_navigation(str(given["navigation"]))
        if isinstance(given.get("ideal_run"), (str, Path)):
            from inexeval.formats.detect import load_run

            given["ideal_run"] = load_run(str(given["ideal_run"]), self.run_format)
        return {k: v for k, v in given.items() if v is not None}

    def _default_measures(self) -> None:
        import io

        from inexeval.defaults import default_measures

        note = io.StringIO()
        self.task, self.measures = default_measures(
            self.assessments.scale, passage_runs=self._passage_runs(),
            collection=self.collection is not None, stream=note)
        self.note = note.getvalue()
        self.default_task = self.task is not None

    def _passage_runs(self) -> bool:
        """Whether the runs are scored as passages on FOL qrels (FOL runs, and element runs,
        which are turned into passages), to choose the default measures before any run is
        read: only a regular file whose first line is a document run's says no. Standard input,
        pipes and files that cannot be read are not looked at (a pipe is read once, by the
        run's reader; an unreadable run is reported with the runs)."""
        from inexeval.formats.detect import detect_run_kind
        from inexeval.inputs import as_run

        def passages(item: Any) -> bool:
            if not isinstance(item, (str, Path)):
                return bool(as_run(item).kind != "document")
            path = str(item)
            if path == "-" or not Path(path).is_file():
                return self.run_format in (None, "fol")
            try:
                return detect_run_kind(path, self.run_format) != "document"
            except (InexevalError, OSError):
                return True

        return all(passages(item) for item in self.inputs)

    def _check_unused(self, *, implicit: bool, strict: bool, topic_file: str | None) -> None:
        """Refuse every option that the measures or the task would silently ignore."""
        given = {"limit": self.limit, "order": self.order, "keep_repeats": self.keep_repeats,
                 "num_docs": self.num_docs, "implicit": implicit, "strict": strict,
                 "topic_file": topic_file, "navigation": self.options.get("navigation"),
                 "ideal_run": self.options.get("ideal_run")}
        if self.task is not None:
            unused = [option_name(name) for name, default in _NOT_FOR_TASKS
                      if given[name] is not None and given[name] != default]
            if unused:
                chosen = ("--task" if not self.default_task else
                          f"the default measures (the {self.task} task's; name others with -m)")
                raise InexevalError(f"{', '.join(unused)} not used by {chosen}, which follows "
                                    "the official evaluator's rules (file order, no limit, FOL "
                                    f"qrels): leave {'it' if len(unused) == 1 else 'them'} out")
            return
        from inexeval.measures.registry import parse_measures

        scale = self.assessments.scale
        settings = [m.settings for m in parse_measures(self.measures)]
        unused_by: list[tuple[str, str]] = []
        if strict and scale != "inex2005":
            why = f"{scale} assessments (it checks INEX 2005-2008 highlighting)"
            unused_by.append(("--strict", why))
        if not implicit and scale not in ("inex2002", "inex2003", "inex2005"):
            why = f"{scale} assessments, which have no implicit assessments"
            unused_by.append(("--implicit off", why))
        if "navigation" in self.options and not any(s.get("nav") == "custom" for s in settings):
            unused_by.append(("--navigation", "the measures (no nav=custom)"))
        if "ideal_run" in self.options and not any(s.get("ideal_list") == "given"
                                                   for s in settings):
            unused_by.append(("--ideal-run", "the measures (no ideal_list=given)"))
        if self.collection is not None and scale == "trec":
            unused_by.append(("--collection", "the document measures of TREC qrels"))
        if unused_by:
            option, what = unused_by[0]
            raise InexevalError(f"{option} is not used by {what}: leave it out")

    # evaluation ------------------------------------------------------------------------------
    def _evaluator(self, complete: bool) -> Any:
        """The element measures bound once (an :class:`~inexeval.evaluation.Evaluator`), or None
        for an official task."""
        if self.task is not None:
            return None
        if complete not in self._evaluators:
            from inexeval.evaluation import Evaluator

            self._evaluators[complete] = Evaluator(
                self.measures, self.assessments, complete=complete, collection=self.collection,
                num_docs=self.num_docs, order=self.order, limit=self.limit,
                keep_repeats=self.keep_repeats, options=self.options)
        return self._evaluators[complete]

    def run_evaluator(self, assessments: Assessments | None = None) -> Any:
        """A :class:`~inexeval.evaluation.RunEvaluator` with this experiment's measures or task
        and options (every assessed topic, ``-c``), on ``assessments`` (default the
        experiment's): what the studies of :mod:`inexeval.meta` call to score runs again on
        smaller qrels."""
        from inexeval.evaluation import RunEvaluator

        given = self.assessments if assessments is None else assessments
        if self.task is not None:
            return RunEvaluator(given, [], task=self.task, collection=self.collection,
                                task_options=self.task_options)
        return RunEvaluator(given, self.measures, collection=self.collection,
                            num_docs=self.num_docs, order=self.order, limit=self.limit,
                            keep_repeats=self.keep_repeats, options=self.options)

    def outcomes(self, *, complete: bool = False, per_topic: bool = True,
                 official: bool = False) -> Iterator[RunOutcome]:
        """Each run evaluated (read, scored and released; a run in a file a group of topics at
        a time), in the order given, by the executor of ``jobs``/``scheduler``; a run that
        cannot be read or breaks the task's rules gives an outcome with its error, and the
        others are still evaluated. ``complete``: every assessed topic, a missing one scoring
        as an empty run; ``per_topic``: keep the per-topic values of an official task;
        ``official``: the official layout's text too."""
        from inexeval.executor import blocks, make_executor
        from inexeval.progress import progress

        job = _Job(self, self._evaluator(complete), complete, per_topic,
                   official)
        indices = list(range(len(self.inputs)))
        if self.jobs == 1 and self.scheduler is None or "-" in self.sources:
            yield from progress((_evaluate(job, i) for i in indices), "runs", len(indices))
            return
        executor = make_executor(self.jobs, self.scheduler)
        try:
            # runs given out in blocks: results printed as each block comes, in order (a block
            # is one pool of workers; small blocks would spend the time starting them)
            size = max(32, 8 * self.jobs)
            given_out = (outcome for start, stop in blocks(len(indices), size)
                         for outcome in executor.map(_evaluate, indices[start:stop], job))
            yield from progress(given_out, "runs", len(indices))
        finally:
            close = getattr(executor, "close", None)
            if close is not None:
                close()

    def evaluate(self, rule: str | None = None) -> Evaluation:
        """Every run's results and scores under ``rule`` (default the experiment's, else
        ``answered``). A run that cannot be evaluated raises its error; one warning says when
        the runs answer fewer than half the assessed topics."""
        rule = _rule(rule or self.rule, False, EVALUATION_RULE)
        collected: list[RunOutcome] = []
        for outcome in self.outcomes(complete=rule != "answered"):
            for message in outcome.warnings:
                warnings.warn(message, stacklevel=2)
            if outcome.error is not None:
                raise InexevalError(outcome.error)
            collected.append(outcome)
        self.warn_coverage(t for outcome in collected for t in outcome.answered)
        return self.evaluation(collected, rule)

    def evaluation(self, outcomes: Sequence[RunOutcome], rule: str) -> Evaluation:
        """The :class:`Evaluation` of outcomes of :meth:`outcomes` (evaluated with ``complete``
        unless ``rule`` is ``answered``), runs sharing a run-id named ``run-id (file)``."""
        results = together([(o.source, o.results) for o in outcomes if o.results is not None])
        runs = results.runs()
        answered = {name: o.answered for name, o in zip(runs, outcomes)}
        assessed = natural_order(self.assessments)
        union = natural_order({t for topics in answered.values() for t in topics})
        topics = assessed if rule == "all" else union
        rows = [r._replace(measure=_PER_TOPIC_NAME.get(r.measure, r.measure))
                for r in results.rows]
        scores = Scores.from_rows(((r.run, r.topic, r.measure, r.value) for r in rows),
                                  rule=rule, topics=topics, runs=runs, answered=answered)
        files = {name: o.source for name, o in zip(runs, outcomes)}
        if rule == "any":
            chosen = set(union)
            results = Results(rows=[r for r in rows if r.topic in chosen],
                              aggregates={**results.aggregates, "AiP": "mean", "AgP": "mean"},
                              topics_evaluated={r: list(union) for r in runs})
        results.files = {name: str(file) for name, file in files.items() if file}
        return Evaluation(results, scores, rule, files, len(assessed))

    def warn_coverage(self, answered: Iterable[str]) -> None:
        """One warning when the runs answer fewer than half the assessed topics."""
        warn_coverage(set(self.assessments), answered, self.assessments.source)

    # studies on the scores -------------------------------------------------------------------
    def scores(self, rule: str | None = None) -> Scores:
        """The runs × topics × measures scores under ``rule`` (default ``any``)."""
        return self.evaluate(rule or self.rule or COMPARISON_RULE).scores

    def comparison_measures(self) -> list[str]:
        """The measures compared, by their canonical names: the measures, or under an
        official task its per-topic measures or their means ``MAiP``/``MAgP`` (default the
        official tables' measures, :data:`inexeval.defaults.HEADLINE`)."""
        from inexeval.analysis.compare import comparable_measures

        return comparable_measures(self.measures if not self.default_task else None, self.task)

    def compare(self, *, baseline: str | None = None, test: str | Sequence[str] = "t",
                correction: str = "none", all_pairs: bool = False, alpha: float = 0.05,
                permutations: int = 10_000, seed: int = 42,
                evaluation: Evaluation | None = None, power: bool = False,
                wilcoxon: str = "scipy") -> Comparison:
        """Paired significance tests of the runs (each against ``baseline``, a run name or
        file, default the first; or ``all_pairs``) on the scores under the rule (default
        ``any``); ``power``: each comparison's achieved power besides; ``wilcoxon``: the
        Wilcoxon test's rule (``scipy`` or ``r``); see
        :func:`inexeval.analysis.compare.compare_scores`."""
        from inexeval.analysis.compare import check_request, compare_scores

        tests = [test] if isinstance(test, str) else list(test)
        check_request(tests, correction, all_pairs=all_pairs, permutations=permutations,
                      baseline=baseline, wilcoxon=wilcoxon)
        if len(self.inputs) < 2:
            raise InexevalError(f"comparing needs at least two runs, not {len(self.inputs)}")
        names = self.comparison_measures()
        evaluation = evaluation or self.evaluate(self.rule or COMPARISON_RULE)
        if baseline is not None:
            try:
                baseline = evaluation.run(baseline)
            except KeyError:
                raise InexevalError(f"unknown baseline {baseline!r}: give a run's name or file "
                                    f"({evaluation.named_files()})", "--baseline") from None
        return compare_scores(evaluation.scores, names, baseline=baseline,
                              tests=tests, correction=correction, all_pairs=all_pairs,
                              alpha=alpha, permutations=permutations, seed=seed,
                              power=power, wilcoxon=wilcoxon)

    def agree(self, other: Experiment | None = None, *,
              evaluation: Evaluation | None = None) -> Agreement:
        """Agreement of the measures' rankings of the runs (at least two measures), or, with
        ``other`` (the same runs under other assessments), of each measure's rankings under
        the two (:func:`inexeval.analysis.agreement.measure_agreement`); means under the rule
        (default ``any``). An :class:`Agreement`: the list of rows, with a short repr,
        ``print`` giving the table, ``to_markdown()``, ``to_dataframe()``."""
        from inexeval.analysis.agreement import measure_agreement

        measures = self.comparison_measures()
        evaluation = evaluation or self.evaluate(self.rule or COMPARISON_RULE)
        means = evaluation.mean_table(measures)
        if other is None:
            if len(measures) < 2:
                raise InexevalError("measure agreement needs at least two measures (-m M1 -m "
                                    "M2), or other assessments")
            return Agreement(measure_agreement(means, measures))
        means_b = other.evaluate(other.rule or COMPARISON_RULE).mean_table(measures)
        rows = Agreement()
        for m in measures:
            rows.extend(measure_agreement({f"{m} [A]": means[m], f"{m} [B]": means_b[m]}))
        return rows

    def curves(self, measure: str | None = None, *, ranks: int = 50, topic: str | None = None,
               rule: str | None = None) -> tuple[Any, Results, list[Run]]:
        """The measure's curve (with a task, the task's: iP or gP) for every run: its
        :class:`inexeval.measures.curves.CurveSpec`, the results of every point (each the
        registered measure, computed by the same code as :meth:`evaluate`) and the runs;
        averaged under ``rule`` (default ``any``), or of one ``topic``."""
        from inexeval.measures.curves import evaluate_curve, natural_curve, task_measure

        rule = _rule(rule or self.rule, False, COMPARISON_RULE)
        if self.task is not None and not self.default_task and self.measures and measure:
            raise InexevalError("with --task the curve is the task's (iP or gP): leave out -m")
        if self.task is not None:
            spec = natural_curve(task_measure(self.task, **self.task_options), ranks)
        else:
            names = [measure] if measure is not None else self.measures
            if len(names) != 1:
                raise InexevalError(f"a curve is of one measure: give one -m (or --task), not "
                                    f"{len(names)}")
            spec = natural_curve(names[0], ranks)
        if topic is not None and topic not in self.assessments:
            raise InexevalError(f"topic {topic} has no assessments", self.assessments.source)
        runs = self.runs()
        assessments = self.assessments
        if rule == "any" and topic is None:
            assessments = assessments.select({t for r in runs for t in r if t in assessments})
        options = ({"collection": self.collection} if self.task else
                   {"collection": self.collection, "num_docs": self.num_docs,
                    "order": self.order, "limit": self.limit,
                    "keep_repeats": self.keep_repeats, "options": self.options})
        results = evaluate_curve(spec, assessments, runs, official=bool(self.task),
                                 complete=topic is not None or rule != "answered", **options)
        return spec, results, runs

    def plot(self, kind: str = "curve", *, topic: str | None = None,
             baseline: str | None = None, ranks: int = 50, rule: str | None = None) -> Any:
        """A matplotlib figure (:mod:`inexeval.report.plots`) of ``kind``: ``curve`` (the
        measure's or the task's curve per run; one ``topic``'s with ``topic``), ``per-topic``
        (each run's per-topic difference from ``baseline`` under the lead measure),
        ``scatter`` (two measures, one point per run, Kendall's tau) or ``box`` (per-topic
        values per run); averaged under ``rule`` (default ``any``), said in the title."""
        from inexeval.report import plots
        from inexeval.report.html import main_measure, topic_differences

        rule = _rule(rule or self.rule, False, COMPARISON_RULE)
        if topic is not None and kind != "curve":
            raise InexevalError("--topic goes with --kind curve")
        if kind == "curve":
            from inexeval.measures.curves import series

            spec, results, runs = self.curves(ranks=ranks, topic=topic, rule=rule)
            count = len(results.topics_evaluated.get(runs[0].name, [])) if runs else 0
            fig, (ax,) = plots.figure(width=10.0 if len(runs) > 6 else 7.0)
            plots.curves(ax, spec.x, {run.name: series(results, spec, run.name, topic)
                                      for run in runs},
                         x_label=spec.x_label, y_label=spec.y_label,
                         title=plots.curve_title(spec, topic),
                         rule=None if topic is not None else rule,
                         n_topics=None if topic is not None else count)
            return fig
        if kind not in ("per-topic", "scatter", "box"):
            raise InexevalError(f"unknown kind of plot {kind!r} (curve, per-topic, scatter, box)")
        if kind == "scatter" and len(self.comparison_measures()) != 2:
            raise InexevalError("a scatter plot is of two measures: give two -m, not "
                                f"{len(self.measures)}")
        evaluation = self.evaluate(rule)
        scores, names = evaluation.scores, self.comparison_measures()
        if kind == "scatter":
            from inexeval.analysis.agreement import ranking_agreement

            means = evaluation.mean_table(names)
            shown = [r for r in scores.runs
                     if means[names[0]][r] is not None and means[names[1]][r] is not None]
            a = [float(means[names[0]][r] or 0.0) for r in shown]
            b = [float(means[names[1]][r] or 0.0) for r in shown]
            fit = ranking_agreement(a, b, names[0], names[1])
            fig, (ax,) = plots.figure(width=9.0)
            plots.scatter(ax, a, b, shown, measure_a=self.labels.get(names[0], names[0]),
                          measure_b=self.labels.get(names[1], names[1]),
                          slope=fit.slope, intercept=fit.intercept, tau=fit.kendall_tau,
                          rule=rule, n_topics=len(scores.topics))
        elif kind == "box":
            measure = main_measure(names)
            _, _, matrix = scores.matrix(measure)
            included = scores.included()
            fig, (ax,) = plots.figure()
            plots.box(ax, {run: [float(v) for v, yes in zip(matrix[i], included[i])
                                 if yes and not math.isnan(v)]
                           for i, run in enumerate(scores.runs)},
                      measure=self.labels.get(measure, measure),
                      rule=rule, n_topics=len(scores.topics))
        else:
            measure = main_measure(names)
            comparison = self.compare(baseline=baseline, evaluation=evaluation)
            base = str(comparison.baseline)
            others = [r for r in comparison.runs if r != base]
            differences = [topic_differences(comparison.per_topic[measure], other, base)
                           for other in others]
            fig, axes = plots.figure(len(others), width=max(7.0, 0.12 * len(scores.topics)),
                                     share_y=True)
            for ax, other, by_topic in zip(axes, others, differences):
                plots.per_topic_differences(
                    ax, by_topic, run=other, baseline=base,
                    measure=self.labels.get(measure, measure),
                    reach=plots.difference_reach(differences), rule=rule,
                    n_topics=len(scores.topics))
        return fig

    def report(self, comparison: Comparison | None = None, *, ranks: int = 50,
               digits: int = 4, command: str = "", title: str | None = None,
               meta: bool = False, meta_replicates: int | None = None,
               evaluation: Evaluation | None = None, **compare: Any) -> str:
        """One self-contained HTML page (:mod:`inexeval.report.html`): the ``comparison``
        (default :meth:`compare` with the keyword arguments ``compare``), its tests, the
        measures' curves averaged as the comparison is, the per-topic values; ``command``:
        the command line that made it. ``meta``: a Measures section besides, each measure's
        discriminative power, difference required and ASL curve
        (:func:`inexeval.meta.power.power_study`, bootstrap test, B ``meta_replicates``
        (default ``meta power``'s, :data:`inexeval.meta.power.REPLICATES`), the comparison's
        ``alpha`` and ``seed``) on the scores the comparison was made from (``evaluation``,
        default the runs evaluated again under its rule), as ``meta power`` gives them under
        that rule."""
        import warnings as _warnings

        from inexeval.errors import InexevalWarning
        from inexeval.measures.curves import natural_curve, series
        from inexeval.report import html

        if comparison is None:
            comparison = self.compare(evaluation=evaluation, **compare)
        powers = []
        if meta:
            from inexeval.meta.power import power_study

            scores = (evaluation or self.evaluate(comparison.rule)).scores
            powers = power_study(scores.select(measures=comparison.measures),
                                 method="bootstrap", replicates=meta_replicates,
                                 alpha=comparison.alpha, seed=comparison.seed)
        specs: dict[tuple[str, ...], Any] = {}
        names = ([task_curve_name(self.task, self.task_options)] if self.task
                 else comparison.measures)
        for name in names:
            try:
                spec = natural_curve(name, ranks)
            except MeasureError:
                continue
            specs.setdefault(tuple(spec.names), spec)
        curves = []
        runs: list[Run] = []
        with _warnings.catch_warnings():
            # the runs were read and evaluated for the comparison: their warnings are shown
            _warnings.simplefilter("ignore", InexevalWarning)
            for spec in specs.values():
                _, results, runs = self.curves(spec.measure if not self.task else None,
                                               ranks=ranks, rule=comparison.rule)
                curves.append(html.Curve(
                    f"{self.labels.get(spec.measure, spec.measure)}: {spec.y_label} over "
                    f"{spec.x_label}, mean "
                    f"{describe_rule(comparison.rule, len(comparison.topics))}", spec.x,
                    {run.name: series(results, spec, run.name).tolist() for run in runs},
                    spec.x_label, spec.y_label))
            if not runs:
                runs = self.runs()
        comparison = comparison.relabelled(self.labels)  # the measures as typed (map, not AP)
        powers = [replace(p, measure=self.labels.get(p.measure, p.measure)) for p in powers]
        what = f"{self.task} task" if self.task else ", ".join(comparison.measures)
        source = self.assessments.source or "assessments"
        page = html.from_comparison(
            comparison, title=title or f"Evaluation report: {what}",
            subtitle=(f"{len(runs)} runs, {describe_rule(comparison.rule, len(comparison.topics))}"
                      f"; assessments {Path(str(source)).name}"),
            command=command, version=package_version(), curves=curves,
            inputs=[(run.name, path, sum(1 for t in run if len(run[t])))
                    for run, path in zip(runs, self.sources)], digits=digits,
            created=html.report_date(),
            files=[html.InputFile.of("assessments", str(source)),
                   *(html.InputFile.of(f"run {run.name}", path)
                     for run, path, given in zip(runs, self.sources, self.inputs)
                     if isinstance(given, (str, Path))),
                   *([html.InputFile.of("collection", self.collection_source)]
                     if self.collection_source else [])],
            rule=comparison.rule, n_assessed=len(self.assessments), meta=powers)
        return html.render(page)

    def runs(self) -> list[Run]:
        """The runs read whole (for curves and plots), cut to the topics and checked, runs
        sharing a run-id named ``run-id (file)``."""
        from inexeval.inputs import as_run
        from inexeval.model.run import distinct_names
        from inexeval.options import check_run
        from inexeval.progress import progress

        runs = []
        for item, source in progress(zip(self.inputs, self.sources), "reading runs",
                                     len(self.inputs)):
            run = (_load_run(source, self.run_format, self.keep_repeats)
                   if isinstance(item, (str, Path)) else as_run(item, name=source))
            run = self._chosen_topics(run)
            check_run(run, self.assessments, self.num_docs)
            runs.append(run)
        names = distinct_names([r.name for r in runs], [str(r.source or "") for r in runs])
        return [r if r.name == name else replace(r, name=name) for r, name in zip(runs, names)]

    def _chosen_topics(self, run: Any) -> Any:
        """The run (or a part of it) cut to the topics chosen."""
        if self.topics is None:
            return run
        return replace(run, topics={t: tr for t, tr in run.items() if t in self.topics})

    def __repr__(self) -> str:
        what = f"task={self.task!r}" if self.task else f"measures={self.measures!r}"
        return (f"Experiment({len(self.assessments)} assessed topics, {len(self.inputs)} runs, "
                f"{what})")


class Agreement(list[Any]):
    """The rows of a measure agreement (:meth:`Experiment.agree`), each an
    :class:`inexeval.analysis.agreement.AgreementRow`: a list that says what it holds in a line
    (its repr), prints the table ``inexeval agree`` prints (``print(agreement)``) and gives it
    as Markdown, HTML (a notebook) and a DataFrame."""

    def __repr__(self) -> str:
        pairs = [f"{row.measure_a} ~ {row.measure_b}" for row in self[:3]]
        more = f", ... ({len(self)} pairs)" if len(self) > 3 else ""
        runs = "/".join(str(n) for n in sorted({row.n_runs for row in self})) or "0"
        return (f"Agreement({len(self)} pairs of measures over {runs} runs: "
                f"{', '.join(pairs)}{more})")[:480]

    def __str__(self) -> str:
        return self._table("table", 4)

    def to_markdown(self, digits: int = 4) -> str:
        """The table of ``inexeval agree --format markdown``."""
        return self._table("markdown", digits)

    def _repr_html_(self) -> str:
        """The terminal table, preformatted (a notebook shows it)."""
        from html import escape

        return f"<pre>{escape(str(self))}</pre>"

    def to_dataframe(self) -> Any:
        """The rows as a pandas DataFrame, a column per field of the rows."""
        import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]

        from inexeval.analysis.agreement import AGREEMENT_COLUMNS

        return pd.DataFrame(list(self), columns=list(AGREEMENT_COLUMNS))

    def _table(self, fmt: str, digits: int) -> str:
        from inexeval.analysis.agreement import AGREEMENT_COLUMNS
        from inexeval.report.comparison import render_rows

        return render_rows(AGREEMENT_COLUMNS, self, fmt, digits)


@dataclass(repr=False)
class Evaluation:
    """What :meth:`Experiment.evaluate` gives: ``results`` (as ``inexeval eval`` prints them),
    ``scores`` (runs × topics × measures, with the ``rule``), each run's file (``files``) and
    the number of assessed topics. ``evaluation[run]`` (a run's name or file) is the run's
    means under the rule, ``{measure: mean}``."""

    results: Results
    scores: Scores
    rule: str
    files: dict[str, str]
    assessed: int

    def run(self, name: str) -> str:
        """The run named ``name`` or read from the file ``name``."""
        if name in self.files:
            return name
        for run, file in self.files.items():
            if Path(name) == Path(file):
                return run
        raise KeyError(f"no run {name!r}: the runs are {', '.join(self.files)} (files "
                       f"{', '.join(self.files.values())})")

    def named_files(self) -> str:
        """The runs with their files: ``the runs are STANDARD (file runA), runB (file
        runB)``."""
        return "the runs are " + ", ".join(f"{run} (file {file})"
                                           for run, file in self.files.items())

    def __getitem__(self, name: str) -> dict[str, float | None]:
        run = self.run(name)
        return {m: _finite(self.scores.mean(m, run)) for m in self.scores.measures}

    def mean_table(self, measures: Sequence[str]) -> dict[str, dict[str, float | None]]:
        """``{measure: {run: mean}}`` under the rule."""
        means = self.scores.means()
        missing = [m for m in measures if m not in self.scores.measures]
        if missing:
            raise InexevalError(f"measure {missing[0]} has no per-topic values")
        return {m: {r: _finite(float(means[i, self.scores.measures.index(m)]))
                    for i, r in enumerate(self.scores.runs)} for m in measures}

    def answered(self) -> set[str]:
        """The assessed topics answered by at least one run."""
        answered = np.flatnonzero(self.scores.answered.any(axis=0)).tolist()
        return {self.scores.topics[i] for i in answered}

    def describe(self) -> str:
        """The topic count and the rule, in one line."""
        return describe_rule(self.rule, len(self.scores.topics))

    def to_dict(self) -> dict[str, dict[str, dict[str, float | None]]]:
        """``{run: {topic: {measure: value}}}`` with the means under topic ``all``, as
        ``inexeval eval -q --format json`` prints them."""
        return self.results.to_dict()

    def to_dataframe(self, means: bool = False) -> Any:
        """The scores in long format (pandas: ``run, topic, measure, value, answered``); with
        ``means`` also each run's means under the rule, topic ``all`` (as
        :meth:`inexeval.results.Results.to_dataframe`)."""
        frame = self.scores.to_dataframe()
        if not means:
            return frame
        import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]

        table = self.mean_table(list(self.scores.measures))
        rows = [(run, "all", m, table[m][run], True) for run in self.scores.runs
                for m in self.scores.measures]
        return pd.concat([frame, pd.DataFrame(rows, columns=list(frame.columns))],
                         ignore_index=True)

    def __str__(self) -> str:
        """The means, runs × measures (``print(evaluation)``: the terminal table)."""
        return str(self.results)

    def to_markdown(self, digits: int = 4) -> str:
        """The means, runs × measures, as a Markdown table."""
        return self.results.to_markdown(digits)

    def _repr_html_(self) -> str:
        """The means, runs × measures, as an HTML table (a notebook shows it)."""
        return self.results._repr_html_()

    def __repr__(self) -> str:
        return (f"Evaluation({len(self.scores.runs)} runs × {len(self.scores.topics)} topics × "
                f"{len(self.scores.measures)} measures, rule={self.rule!r})")


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def compare(
    assessments: Assessments | str | Path | Any,
    runs: Sequence[Run | str | Path | Any],
    measures: str | Sequence[str] | None = None,
    *,
    baseline: str | None = None,
    test: str | Sequence[str] = "t",
    correction: str = "none",
    all_pairs: bool = False,
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 42,
    task: str | None = None,
    collection: Any = None,
    jobs: int = 1,
    rule: str | None = None,
    complete: bool = False,
    power: bool = False,
    wilcoxon: str = "scipy",
    **options: Any,
) -> Comparison:
    """Evaluate ``runs`` against ``assessments`` and compare them; see :func:`inexeval.analysis.compare.compare_results`
    for the comparison's arguments (``test`` is one test name or several).

    ``assessments``: a file or folder name, read as ``inexeval eval`` reads it (with the
    implicit assessments of INEX 2002-2008), or anything :func:`inexeval.as_assessments` takes
    (used as given); ``runs``: file names or anything :func:`inexeval.as_run` takes (a run built
    from a DataFrame or dict is named ``run1``, ``run2``, ... by position).

    ``measures`` are measure names (``inexeval measures``), or with ``task`` (an official INEX
    2007-2010 task, FOL qrels and runs) names of that task's measures (default
    :data:`inexeval.defaults.HEADLINE`). ``collection``, ``options`` (``limit``, ``order``, ...): as for
    :class:`inexeval.experiment.Experiment`. ``jobs``: runs evaluated in that many processes
    (the numbers do not change). ``rule``: the averaging rule (default ``any``: the topics
    assessed and answered by at least one run, a missing one scoring 0; ``complete``: ``all``,
    every assessed topic). ``power``: each comparison's achieved power besides (column
    ``power`` of the rows, :func:`inexeval.analysis.compare.achieved_power`). ``wilcoxon``:
    the Wilcoxon test's rule, ``scipy`` (scipy.stats.wilcoxon's default) or ``r`` (R's
    wilcox.test defaults), named in the comparison's header.
    """
    from inexeval.analysis.compare import check_request

    if isinstance(runs, (str, Path)) or not isinstance(runs, Sequence):
        raise TypeError("runs are a list of runs (file names, Runs, DataFrames or dicts), not "
                        f"one {type(runs).__name__}: comparing needs at least two")
    tests = [test] if isinstance(test, str) else list(test)
    check_request(tests, correction, all_pairs=all_pairs, permutations=permutations,
                  baseline=baseline, wilcoxon=wilcoxon)
    keys = {"beta", "bep_n", "irr", "exact_buckets"}
    experiment = Experiment(
        assessments, list(runs), measures=measures, task=task, collection=collection,
        jobs=jobs, rule=rule, complete=complete,
        task_options={k: v for k, v in options.items() if k in keys},
        **{k: v for k, v in options.items() if k not in keys})
    return experiment.compare(baseline=baseline, test=tests, correction=correction,
                              all_pairs=all_pairs, alpha=alpha, permutations=permutations,
                              seed=seed, power=power, wilcoxon=wilcoxon)


def task_curve_name(task: str, options: Mapping[str, Any]) -> str:
    """The measure whose curve stands for an official task (iP or gP)."""
    from inexeval.measures.curves import task_measure

    return str(task_measure(task, **options))


# the work of one run, in this process or a worker -------------------------------------------
@dataclass
class _Job:
    """Everything needed to evaluate one more run (shared by the worker processes)."""

    experiment: Experiment
    evaluator: Any
    complete: bool
    per_topic: bool
    official: bool


def _evaluate(job: _Job, index: int) -> RunOutcome:
    """Read, evaluate and release one run (a FOL or TREC run in a file a group of topics at a
    time: memory bounded by a part, not by the run); its warnings are kept to be shown in run
    order."""
    from inexeval.inputs import as_run

    experiment = job.experiment
    item, source = experiment.inputs[index], experiment.sources[index]
    outcome = RunOutcome(source)
    in_file = isinstance(item, (str, Path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run = (_as_columns(job, source, outcome)
                   if in_file and experiment.num_docs is None else None)
            if run is None:
                del caught[:]
                run = (_streamed(job, source, outcome)
                       if in_file and experiment.num_docs is None else None)
            if run is None:  # read whole, checked before it is evaluated
                from inexeval.options import check_run

                del caught[:]
                run = (_load_run(source, experiment.run_format, experiment.keep_repeats)
                       if in_file else as_run(item, name=source))
                run = experiment._chosen_topics(run)
                check_run(run, experiment.assessments, experiment.num_docs)
                outcome.results = _results(job, run)
            outcome.answered = [t for t in run if t in experiment.assessments]
            if job.official:
                from inexeval.report.official import render_official

                assert outcome.results is not None
                outcome.official = render_official(outcome.results, [run], [source],
                                                   list(experiment.assessments),
                                                   per_topic=job.per_topic)
        except MeasureError:
            raise  # about the measures: stop the command
        except InexevalError as error:
            if not in_file or (error.file is not None and Path(error.file) != Path(source)):
                raise  # not about this run (the assessments, another file): stop the command
            # an error raised while scoring the run without a file (a result's line only) is
            # about this run: said with its file
            outcome.error = str(error if error.file is not None else
                                InexevalError(error.reason, source, error.line))
    outcome.warnings = [w.message for w in caught]
    return outcome


def _as_columns(job: _Job, path: str, outcome: RunOutcome) -> Any:
    """A TREC document run on TREC qrels evaluated for all its topics at once
    (:func:`inexeval.evaluation_trec.evaluate_file`, when the measures and options allow):
    the run's outline (its name and the topics chosen, without results), or None to go the
    general way."""
    evaluator = job.evaluator
    if evaluator is None or job.experiment.run_format not in (None, "trec"):
        return None
    from inexeval.evaluation_trec import evaluate_file, usable

    if not usable(evaluator):
        return None
    done = evaluate_file(evaluator, path, job.experiment.topics)
    if done is None:
        return None
    outcome.results, answered = done
    from inexeval.model import Run

    return Run(name=outcome.results.runs()[0], kind="document",
               topics={t: None for t in answered}, source=path)  # type: ignore[misc]


def _streamed(job: _Job, path: str, outcome: RunOutcome) -> Any:
    """Evaluate the run at ``path`` a part at a time (:func:`inexeval.formats.detect.run_parts`),
    cut to the topics; the run (without its results) if that could be done, else None: a topic
    resumes after lines of others (its lines must be grouped), or reading or evaluating it
    failed (it is then read whole, and the problem reported before any warning of later lines,
    as for any run). Standard input and pipes, which cannot be read again, are read whole."""
    from inexeval.formats.detect import run_parts
    from inexeval.formats.source import TopicResumed
    from inexeval.model.run import RunParts
    from inexeval.options import check_run

    experiment = job.experiment
    if path == "-" or not Path(path).is_file():
        return None
    parts = run_parts(path, experiment.run_format, experiment.keep_repeats)
    streamed = RunParts((experiment._chosen_topics(part) for part in parts), path)
    try:
        outcome.results = _results(job, streamed)
        run = streamed.outline()
        check_run(run, experiment.assessments)
    except (TopicResumed, InexevalError):
        return None
    return run


def _results(job: _Job, run: Any) -> Results:
    """The results of one run (or :class:`inexeval.model.run.RunParts`)."""
    if job.evaluator is not None:
        results: Results = job.evaluator.evaluate([run])
        return results
    from inexeval.measures.focused import evaluate_task

    experiment = job.experiment
    results = evaluate_task(experiment.assessments, [run], str(experiment.task),
                            complete=job.complete, per_topic=job.per_topic,
                            collection=experiment.collection, **experiment.task_options)
    if experiment.measures:
        return only(results, experiment.measures)
    return results


def only(results: Results, measures: Sequence[str]) -> Results:
    """Keep the official task's lines of ``measures`` (``iP@0.01`` and ``iP[0.01]`` are one
    measure; ``MAiP`` also keeps the per-topic ``AiP``, ``MAgP`` ``AgP``)."""
    from inexeval.measures.registry import parse_measures

    asked = [str(m) for m in parse_measures(list(measures))]
    wanted = set(asked) | {name[1:] for name in asked if name in ("MAiP", "MAgP")}
    offered = {r.measure for r in results.rows + results.overall}
    missing = [name for name in asked if name not in offered]
    if missing:
        shown = sorted(m for m in offered - {"num_q"} if not m.startswith("ircl_prn."))
        raise MeasureError(f"not in the measure set of this task: {', '.join(missing)} (it has "
                           f"{', '.join(shown)}, ircl_prn.0.00 ... ircl_prn.1.00; without --task, "
                           "-m computes any measure)")
    return replace(results, rows=[r for r in results.rows if r.measure in wanted],
                   overall=[r for r in results.overall if r.measure in wanted | {"num_q"}])


# inputs ---------------------------------------------------------------------------------------
def _run_inputs(runs: Any) -> list[Any]:
    """The runs as a list; a dict of DataFrames (``{"sys2": df}``) is runs named by their
    keys."""
    from inexeval.inputs import as_run, is_frame

    if isinstance(runs, Mapping) and runs and all(is_frame(r) for r in runs.values()):
        return [as_run(frame, name=str(name)) for name, frame in runs.items()]
    if isinstance(runs, (str, Path)) or not isinstance(runs, Sequence):
        runs = [runs]
    if not runs:
        raise InexevalError("no run given")
    return [str(r) if isinstance(r, Path) else r for r in runs]


def _topic_set(topics: Iterable[str] | str) -> set[str]:
    chosen = [topics] if isinstance(topics, str) else list(topics)
    if not all(isinstance(t, str) for t in chosen):
        raise TypeError("topics are topic ids (str) or a list of them")
    return {t.strip() for t in chosen if t.strip()}


def _collection(collection: Any) -> Any:
    if isinstance(collection, (str, Path)):
        from inexeval.collection.build import load_collection

        return load_collection(str(collection))
    return collection


def _task_options(task: str | None, measures: Any,
                  given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options of the official task, with defaults; a task option given with another task,
    or with measures and no task, is an error."""
    from inexeval.options import TASK_OPTIONS, check_task_values

    values = dict(given or {})
    check_task_values(task, bool(measures), values)
    return {name: values.get(name, default) for name, (default, _) in TASK_OPTIONS.items()}


def _load_assessments(path: str, fmt: str | None, runs: Sequence[str]) -> Assessments:
    """The assessments at ``path``; when they cannot be read but would be read as a run, and
    the first run as assessments, the two were swapped: said so."""
    from inexeval.formats.detect import load_assessments

    try:
        return load_assessments(path, fmt)
    except InexevalError as error:
        if fmt is None and runs and _looks_swapped(path, runs[0]):
            raise InexevalError(f"{error.reason}; ASSESSMENTS and RUN seem swapped: this file "
                                f"reads as a run and {runs[0]} as assessments (give the "
                                "assessments first)", error.file, error.line) from None
        raise


def _looks_swapped(assessments: str, run: str) -> bool:
    from inexeval.formats.detect import detect_run_kind, load_assessments

    if run == "-" or not Path(run).is_file() or not Path(assessments).is_file():
        return False
    try:
        detect_run_kind(assessments)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load_assessments(run)
    except (InexevalError, OSError):
        return False
    return True


def _load_run(path: str, fmt: str | None, keep_repeats: bool) -> Any:
    from inexeval.formats.detect import load_run

    return load_run(path, fmt, keep_repeats)


def measure_names(measures: Any) -> list[str]:
    """Measures as names: names and :mod:`inexeval.measures` objects as they are printed,
    ir_measures' objects (``AP@10``, ``nDCG@10``, ``P(rel=2)@5``) mapped to ours; one that has
    no counterpart is an error naming it."""
    if measures is None:
        return []
    from inexeval.measures.registry import Measure, from_ir_measures, is_ir_measure

    listed = [measures] if isinstance(measures, (str, Measure)) or is_ir_measure(
        measures) else list(measures)
    names = []
    for m in listed:
        if isinstance(m, (str, Measure)):
            names.append(str(m))
        elif is_ir_measure(m):
            names.append(from_ir_measures(m))
        else:
            raise TypeError(f"a measure is a name such as 'P@10', not {type(m).__name__}")
    return names


def _check_measures(measures: list[str]) -> None:
    """Raise :class:`MeasureError` for a name that is no measure, neither the registry's nor
    trec_eval's ``-m`` (``set_F.0.5``, ``official``)."""
    from inexeval.measures.registry import parse_measures

    try:
        parse_measures(measures)
    except MeasureError:
        from inexeval.measures.trec_names import trec_eval_requests

        try:
            parse_measures(trec_eval_requests(measures).measures)
        except MeasureError:
            pass
        else:
            return
        raise
