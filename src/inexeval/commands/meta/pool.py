"""``inexeval meta pool`` and ``inexeval meta reuse``: how far to trust a pool (subcommands of
``meta``, listed in :data:`SUBCOMMANDS`: ``name -> (help, add_arguments, run)``)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from inexeval.cli import add_executor_arguments, digits, non_negative, positive, probability
from inexeval.errors import InexevalError

if TYPE_CHECKING:
    from inexeval.meta.pool import InputReader, Plan, StudyInputs

FORMATS = ("table", "markdown", "latex", "csv", "json")

POOL_HELP = ("re-pool at smaller depths or article counts, or sample the judgements: Kendall's "
             "tau, tau_AP, RMSE and discriminative power against the full qrels")
REUSE_HELP = ("leave each run or group out of the pool: its scores without its own "
              "contribution, rank changes, unique relevant units, mean and max drop")


def _numbers(kind: Callable[[str], Any], what: str) -> Callable[[str], list[Any]]:
    def parse(text: str) -> list[Any]:
        try:
            values = [kind(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of "
                                             f"{what}") from None
        if not values:
            raise argparse.ArgumentTypeError(f"{text!r} names no {what}")
        return values
    return parse


def _whole(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise ValueError(text)
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    """Inputs, how the qrels were pooled, output and executor: both subcommands."""
    from inexeval.cli_args import add_complete_argument, add_input_arguments

    add_input_arguments(parser)
    add_complete_argument(parser, "any")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--depth", type=positive, metavar="K",
                     help="the qrels judge the union of each run's top K results (as pool "
                     "--depth K)")
    how.add_argument("--articles", type=positive, metavar="N",
                     help="the qrels judge round-robin pools of N articles per topic (as pool "
                     "--articles N)")
    parser.add_argument("--runs-per-group", type=positive, metavar="M",
                        help="the pool took the first M runs of each --group only (as pool "
                        "--runs-per-group M --group REGEX); the others are scored, not pooled")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="output format (default table; csv and json at full precision)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically) instead of the standard output")
    parser.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals printed (table, markdown, latex; default 4)")
    parser.add_argument("--plot", metavar="FILE",
                        help="also draw the study's figure to FILE (.png, .svg or .pdf; needs "
                        "the plot extra)")
    add_executor_arguments(parser, "study's tasks")
    parser.add_argument("--inputs", choices=("shared", "each", "send"),
                        help="with --scheduler: shared (default), the workers read the runs "
                        "and qrels from their paths (they see the same files: one machine, a "
                        "shared file system), once per study and machine, the first worker "
                        "of a machine storing them for the others; each, every worker reads "
                        "them (more CPU and memory, the others not waiting for the first); "
                        "send, they are read here and sent to every worker")


def add_pool_arguments(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    levels = parser.add_mutually_exclusive_group()
    levels.add_argument("--depths", type=_numbers(_whole, "depths"), metavar="D,...",
                        help="re-pool at these depths (with --depth), e.g. 1,2,5,10,20,50,100")
    levels.add_argument("--article-counts", type=_numbers(_whole, "article counts"),
                        metavar="N,...",
                        help="re-pool round-robin to these article counts (with --articles)")
    levels.add_argument("--sample", choices=("random", "stratified"),
                        help="sample the judged units instead: uniformly, or relevant and "
                        "non-relevant separately (Buckley and Voorhees 2004)")
    parser.add_argument("--rates", type=_numbers(_rate, "rates in (0, 1]"), metavar="R,...",
                        help="sampling rates of --sample, e.g. 0.1,0.2,0.5")
    parser.add_argument("--iterations", type=positive, default=1, metavar="I",
                        help="samples drawn per rate (default 1)")
    parser.add_argument("--condensed", action="store_true",
                        help="remove the unjudged units from the runs (Sakai 2007) instead of "
                        "scoring them non-relevant")
    parser.add_argument("--seed", type=non_negative, default=42,
                        help="seed of the samples and of the power's replicates (default 42)")
    parser.add_argument("--power", choices=("bootstrap", "randomised-tukey", "none"),
                        default="bootstrap",
                        help="discriminative power at each level by the paired bootstrap "
                        "(default), the randomised Tukey HSD, or none (faster)")
    parser.add_argument("--replicates", type=positive, metavar="B",
                        help="replicates of the power's test (default meta power's, 1000)")
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="significance level of the discriminative power (default 0.05)")
    parser.add_argument("--group", metavar="REGEX",
                        help="a run's group, the first match group of REGEX in its run name "
                        "(with --runs-per-group)")


def add_reuse_arguments(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    parser.add_argument("--group", metavar="REGEX",
                        help="leave out whole groups (a run's group: the first match group of "
                        "REGEX in its run name) instead of one run at a time; also the groups "
                        "of --runs-per-group")


class _Study:
    """A pool study's request checked, and its inputs: read here as ``eval`` reads them
    (:func:`_read`), or, with ``--scheduler`` and ``--inputs shared``, the reader each Dask
    worker reads them with (:class:`_FileReader`)."""

    def __init__(self, args: argparse.Namespace) -> None:
        if args.runs_per_group is not None:
            if args.group is None:
                raise InexevalError("--runs-per-group M needs --group REGEX (a run's group)")
            if args.depth is None and args.articles is None:
                raise InexevalError("--runs-per-group says how the qrels were pooled: give "
                                    "--depth K or --articles N too")

        if args.plot is not None:
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise InexevalError("--plot needs matplotlib: pip install 'inexeval[plot]'"
                                    ) from None
            from pathlib import Path

            if Path(args.plot).suffix.lower() not in (".png", ".svg", ".pdf"):
                raise InexevalError("cannot tell the figure format from the suffix (.png, "
                                    ".svg or .pdf)", args.plot)
        if args.output is not None or args.plot is not None:
            from inexeval.outputs import check_output

            for target in (args.output, args.plot):
                if target is not None:
                    check_output(target, args.assessments, *args.runs, args.collection)
        if args.measure or args.task:
            from inexeval.analysis.compare import comparable_measures

            comparable_measures(args.measure, args.task)
        if args.inputs is not None and args.scheduler is None:
            raise InexevalError("--inputs says where a Dask cluster's workers get the inputs: "
                                "it goes with --scheduler")
        self.pooled_by = ("depth" if args.depth is not None else
                          "articles" if args.articles is not None else None)
        self.reader: InputReader
        if args.scheduler is not None and (args.inputs or "shared") != "send":
            self.reader = _FileReader(args)
        else:
            self.reader = _read(args)


def _read(args: argparse.Namespace, *, here: bool = True) -> StudyInputs:
    """The inputs of ``args`` read as ``eval`` reads them, the scoring and the pooling; the
    note of reading them written at once ``here``, else kept with them (a worker's)."""
    from inexeval.cli_args import experiment
    from inexeval.meta.pool import Pooling, Scoring, StudyInputs, pool_unit

    study = experiment(args)
    if here:
        sys.stderr.write(study.note)
    assessments, runs, collection = study.assessments, study.runs(), study.collection
    if not args.c:  # compare's topics: assessed and answered by at least one run
        from inexeval.meta import answered_topics

        assessments = assessments.select(answered_topics(assessments, runs))
    measures, task = study.measures, study.task
    if task:
        chosen = () if study.default_task else tuple(study.comparison_measures())
        scoring = Scoring(tuple(measures or ()), task=task, collection=collection,
                          task_options=study.task_options, chosen=chosen)
    else:
        scoring = Scoring(tuple(measures), collection=collection,
                          options={"num_docs": study.num_docs, "order": study.order,
                                   "limit": study.limit, "keep_repeats": study.keep_repeats,
                                   "options": study.options})
    pooling = None
    if args.depth is not None or args.articles is not None:
        unit = pool_unit(assessments, runs, args.depth)
        pooled = None
        if args.runs_per_group is not None:
            from inexeval.analysis.pooling import select_runs

            pooled = tuple(select_runs([r.name for r in runs], args.group, args.runs_per_group))
        pooling = Pooling(args.depth, args.articles, unit, args.order, pooled)
    return StudyInputs(assessments, runs, scoring, pooling, "" if here else study.note)


_PATHS = ("assessments", "collection", "topic_file", "navigation", "ideal_run")
"""The options naming files (besides the runs), made absolute for the workers."""


class _FileReader:
    """Reads a study's inputs from their paths where it is called (a Dask worker with
    ``--inputs shared``): the paths made absolute (a worker need not share this directory),
    the inputs then named as given here, in their sources and in what reading them said."""

    def __init__(self, args: argparse.Namespace) -> None:
        import os

        def absolute(path: str) -> str:
            if path == "-":
                raise InexevalError("--inputs shared: the workers read the inputs from their "
                                    "paths, not from the standard input (use --inputs send)")
            return os.path.abspath(path)

        given = {name: getattr(args, name, None) for name in _PATHS}
        self.args = argparse.Namespace(**{
            **vars(args), "jobs": 1, "runs": [absolute(path) for path in args.runs],
            **{name: absolute(path) for name, path in given.items() if path is not None}})
        self.given = {absolute(path): path for path in [*args.runs, *given.values()]
                      if path is not None}

    def read(self) -> StudyInputs:
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            inputs = _read(self.args, here=False)
        named = sorted(self.given.items(), key=lambda pair: -len(pair[0]))

        def as_given(text: str) -> str:
            for path, given in named:
                text = text.replace(path, given)
            return text

        runs = [replace(run, source=self.given.get(run.source, run.source))
                if run.source is not None else run for run in inputs.runs]
        assessments = inputs.assessments
        if assessments.source is not None:
            assessments = replace(assessments, source=self.given.get(assessments.source,
                                                                     assessments.source))
        said = [type(w.message)(as_given(str(w.message))) for w in caught
                if isinstance(w.message, Warning)]
        return replace(inputs, assessments=assessments, runs=runs, said=said)


def _executor(args: argparse.Namespace) -> Any:
    from inexeval.executor import make_executor

    return make_executor(args.jobs, args.scheduler, args.inputs or "shared")


def run_pool(args: argparse.Namespace) -> int:
    from inexeval.meta.pool import LEVEL_COLUMNS, Power, read_pool_study, row_values

    levels = args.depths or args.article_counts
    if args.depths is not None and args.depth is None:
        raise InexevalError("--depths re-pools qrels pooled by depth: say how deep with --depth K")
    if args.article_counts is not None and args.articles is None:
        raise InexevalError("--article-counts re-pools qrels pooled by articles: say how many "
                            "with --articles N")
    if args.sample is None and levels is None:
        raise InexevalError("give the levels (--depths or --article-counts) or --sample "
                            "random|stratified with --rates")
    if (args.sample is None) != (args.rates is None):
        raise InexevalError("--sample and --rates go together")
    if args.group is not None and args.runs_per_group is None:
        raise InexevalError("--group goes with --runs-per-group M (how the qrels were pooled)")
    if args.sample is None and args.iterations != 1:
        raise InexevalError("--iterations goes with --sample (a re-pooled level is the same "
                            "every time)")
    study = _Study(args)
    power = (None if args.power == "none" else
             Power(args.power, args.replicates, args.alpha, args.seed))
    executor = _executor(args)
    try:
        rows, plan = read_pool_study(
            study.reader, levels=levels or (), sample=args.sample, rates=args.rates or (),
            iterations=args.iterations, condensed=args.condensed, seed=args.seed,
            power=power, executor=executor, pooled_by=study.pooled_by, say=_say)
    finally:
        if hasattr(executor, "close"):
            executor.close()
    labels = _typed_names(args)
    rows = [replace(row, measure=labels.get(row.measure, row.measure)) for row in rows]
    table = [row_values(row, LEVEL_COLUMNS) for row in rows]
    how = ([f"{args.sample} samples, {args.iterations} per rate, seed {args.seed}"]
           if args.sample else []) + (["unjudged units removed (condensed)"]
                                      if args.condensed else [])
    if power is not None:
        from inexeval.meta.power import REPLICATES

        how.append(f"discriminative power: {power.method}, B = "
                   f"{power.replicates or REPLICATES[power.method]}, alpha = {power.alpha:g}, "
                   f"seed {power.seed}")
    title = _title(plan, args, "smaller pools") + "".join(f"; {h}" for h in how)
    if args.format == "json":
        text = _json({"levels": [dict(zip(LEVEL_COLUMNS, row)) for row in table]},
                     _facts(plan, args, title))
    else:
        from inexeval.report.comparison import render_rows

        text = render_rows(LEVEL_COLUMNS, table, args.format, args.digits,
                           title=title)
    _write(args, text)
    if args.plot is not None:
        from inexeval.report.figures import captioned, save_figure
        from inexeval.report.pools import levels_figure

        save_figure(captioned(levels_figure(rows), title), args.plot)
        _wrote_plot(args.plot)
    return 0


def run_reuse(args: argparse.Namespace) -> int:
    from inexeval.meta.pool import row_values
    from inexeval.meta.reuse import (
        RUN_COLUMNS,
        SUMMARY_COLUMNS,
        read_reuse_study,
        run_groups,
    )

    if args.depth is None and args.articles is None:
        raise InexevalError("say how the qrels were pooled: --depth K or --articles N")
    study = _Study(args)
    group = args.group
    executor = _executor(args)
    try:
        reuse, plan = read_reuse_study(
            study.reader, groups=(None if group is None else
                                  lambda names: run_groups(names, group)),
            executor=executor, say=_say)
    finally:
        if hasattr(executor, "close"):
            executor.close()
    labels = _typed_names(args)
    reuse = replace(reuse, runs=[replace(row, measure=labels.get(row.measure, row.measure))
                                 for row in reuse.runs],
                    summary=[replace(row, measure=labels.get(row.measure, row.measure))
                             for row in reuse.summary])
    runs = [row_values(row, RUN_COLUMNS) for row in reuse.runs]
    summary = [row_values(row, SUMMARY_COLUMNS) for row in reuse.summary]
    title = _title(plan, args, "leave-" + ("one-group" if group is not None else "one-run")
                   + "-out")
    if args.format == "json":
        text = _json({"runs": [dict(zip(RUN_COLUMNS, row)) for row in runs],
                      "summary": [dict(zip(SUMMARY_COLUMNS, row)) for row in summary]},
                     _facts(plan, args, title))
    elif args.format == "csv":
        from inexeval.report.comparison import render_csv

        text = render_csv(RUN_COLUMNS, runs) + "\n" + render_csv(SUMMARY_COLUMNS, summary)
    else:
        from inexeval.report.comparison import render_rows

        text = (render_rows(RUN_COLUMNS, runs, args.format, args.digits, title=title) + "\n"
                + render_rows(SUMMARY_COLUMNS, summary, args.format, args.digits,
                              title="over all runs: drop = score_full - score_without"))
    _write(args, text)
    if args.plot is not None:
        from inexeval.report.figures import captioned, save_figure
        from inexeval.report.pools import reuse_figure

        measure = reuse.summary[0].measure if args.task is None else _main(reuse.summary)
        chosen = [row for row in reuse.runs if row.measure == measure]
        tau = next(s.kendall_tau for s in reuse.summary if s.measure == measure)
        save_figure(captioned(reuse_figure(measure, [r.score_full for r in chosen],
                                           [r.score_without for r in chosen],
                                           [r.run for r in chosen], tau), title), args.plot)
        _wrote_plot(args.plot)
    return 0


def _typed_names(args: argparse.Namespace) -> dict[str, str]:
    """Each measure's name to the name it was asked for (``AP`` to ``map``, ``P@10`` to
    ``P_10``) on TREC qrels, as the experiment's labels give them to compare and the other
    meta studies (the inputs may be read on a worker: the names are made here, from ``-m``)."""
    if args.task or not args.measure or not _on_documents(args):
        return {}
    from inexeval.experiment import measure_names
    from inexeval.measures.trec_names import trec_eval_requests

    return trec_eval_requests(measure_names(args.measure)).labels


def _on_documents(args: argparse.Namespace) -> bool:
    """Whether the qrels are TREC's or NIST's sampled ones (documents, not INEX articles), as
    far as this process tells without reading them whole (the inputs may be read on a
    worker)."""
    if args.assessments in (None, "-"):
        return False
    from inexeval.formats.detect import detect_assessments_format

    try:
        fmt = args.assessments_format or detect_assessments_format(args.assessments)
    except InexevalError:
        return False
    return fmt in ("trec", "sampled")


def _main(summary: Sequence[Any]) -> str:
    """The measure a task's figure shows: its official one (iP[0.01] for focused), else the
    first."""
    names = [s.measure for s in summary]
    return "iP[0.01]" if "iP[0.01]" in names else names[0]


def _say(plan: Plan) -> None:
    """The note of reading the inputs on a worker (--inputs shared), here."""
    sys.stderr.write(plan.note)


def _title(plan: Plan, args: argparse.Namespace, what: str) -> str:
    pooled = (f"pooled to depth {args.depth}" if args.depth is not None else
              f"pooled to {args.articles} articles" if args.articles is not None else "")
    if pooled and args.runs_per_group is not None:
        pooled += f" from {args.runs_per_group} run(s) per group"
    from inexeval.meta import topic_rule

    unit = "document" if plan.unit == "article" and _on_documents(args) else plan.unit
    if unit == "document":
        pooled = pooled.replace(" articles", " documents")
    return (f"{what}: {len(plan.names)} runs, {topic_rule(plan.topics, _rule(args))}"
            + (f"; {pooled} ({unit}s)" if pooled else ""))


def _rule(args: argparse.Namespace) -> str:
    """The study's topic rule: compare's (``any``), or every assessed topic with ``-c``."""
    return "all" if args.c else "any"


def _facts(plan: Plan, args: argparse.Namespace, title: str) -> dict[str, Any]:
    """JSON's ``study``: as the other meta studies give it (the title, runs, topic count and
    rule)."""
    from inexeval.meta import topic_rule

    rule = _rule(args)
    return {"title": title, "runs": len(plan.names), "topics": plan.topics, "rule": rule,
            "topic_rule": topic_rule(plan.topics, rule)}


def _json(data: dict[str, Any], facts: dict[str, Any]) -> str:
    def clean(value: Any) -> Any:
        return None if isinstance(value, float) and math.isnan(value) else value
    cleaned: dict[str, Any] = {"study": facts}
    cleaned.update({key: [{k: clean(v) for k, v in row.items()} for row in rows]
                    for key, rows in data.items()})
    return json.dumps(cleaned, indent=1) + "\n"


def _wrote_plot(target: str) -> None:
    from inexeval.outputs import wrote

    wrote(target)


def _write(args: argparse.Namespace, text: str) -> None:
    from inexeval.cli_args import write

    write(args, text)


SUBCOMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                             Callable[[argparse.Namespace], int]]] = {
    "pool": (POOL_HELP, add_pool_arguments, run_pool),
    "reuse": (REUSE_HELP, add_reuse_arguments, run_reuse),
}
"""The subcommands of ``inexeval meta`` this module gives: name -> (help, add_arguments, run)."""
