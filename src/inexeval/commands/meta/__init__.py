"""``inexeval meta``: evaluating the measures themselves (discriminative power, swap rates,
topic-set size, reproducibility, agreement), from assessments and runs or saved scores.

Each study is one entry of :data:`STUDIES` (name → help, arguments, run), added with
:func:`register` at the end of this module: a new study is one more line there (its functions
may live in a module of their own).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from inexeval.cli import add_executor_arguments, digits, positive, probability
from inexeval.errors import InexevalError

NAME = "meta"
HELP = ("evaluate the measures and the pools: discriminative power, swap rates, topic-set "
        "size, reproducibility, agreement; smaller pools, leave-one-out reuse, pooling "
        "strategies")

FORMATS = ("table", "markdown", "latex", "csv", "json")


class Study(NamedTuple):
    """One ``inexeval meta`` sub-command: its help line, ``add_arguments(parser)`` and
    ``run(args) -> int``."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


STUDIES: dict[str, Study] = {}


def register(name: str, study: Study) -> None:
    """Add a study (``inexeval meta NAME``)."""
    STUDIES[name] = study


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_chosen_arguments(parser, ())


def add_chosen_arguments(parser: argparse.ArgumentParser, words: Sequence[str]) -> None:
    """Every study's subcommand; its options only for the study ``words`` (the command line
    after ``meta``) run, when its first word names one (the others by name, so that a wrong
    name is still told the choices): building every study's options, and importing their
    modules, took 33 ms of CPU for ``meta pool``, its own options 12."""
    chosen = words[0] if words and words[0] in STUDIES else None
    sub = parser.add_subparsers(dest="study", metavar="STUDY")
    for name, study in STUDIES.items():
        # conflict_handler: a study may give an input option its own default or help
        command = sub.add_parser(name, help=study.help, description=study.help,
                                 conflict_handler="resolve")
        if chosen is None or name == chosen:
            study.add_arguments(command)


def run(args: argparse.Namespace) -> int:
    if not getattr(args, "study", None):
        raise InexevalError(f"give a study: inexeval meta {{{','.join(STUDIES)}}} ...")
    return STUDIES[args.study].run(args)


# inputs --------------------------------------------------------------------------------------
def add_study_inputs(parser: argparse.ArgumentParser, *, runs: bool = True,
                     drawn: bool = True) -> None:
    """The inputs of ``compare`` (assessments, runs, -m/--task, ``-c``, ``--topics`` and every
    input option) or ``--scores FILE``, and the output options; ``drawn``: a study that draws
    (``--seed``, ``--block``, ``--scheduler``); one that does not has ``--jobs`` for evaluating
    the runs only."""
    from inexeval.cli import non_negative
    from inexeval.cli_args import add_complete_argument, add_input_arguments

    add_input_arguments(parser, required=False)
    if runs:
        add_complete_argument(parser, "any")
        parser.add_argument("--scores", metavar="FILE",
                            help="per-topic scores saved by `inexeval eval -q` (--format scores, "
                            "trec, csv or json) instead of ASSESSMENTS and RUNs")
        parser.add_argument("--bioasq-version", type=int, choices=(2, 3, 5, 8, 9),
                            metavar="E", help="BioASQ JSON files: the version of BioASQ's "
                            "evaluator (its -e: 2, 3, 5, 8 or 9; default 8)")
    if drawn:
        parser.add_argument("--seed", type=non_negative, default=None,
                            help=f"random seed (default {SEED})")
        parser.add_argument("--block", type=positive, metavar="N",
                            help="replicates per block: bounds the memory, changes no number "
                            "(default: about 4 million numbers a block)")
        add_executor_arguments(parser, "replicate blocks and measures")
    else:
        parser.add_argument("--jobs", type=positive, default=1, metavar="N",
                            help="evaluate the runs in N processes (same numbers; default 1)")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="output format (default table; csv and json at full precision)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically); a .png, .svg or .pdf FILE gets the "
                        "study's figure (plot extra)")
    parser.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals printed (table, markdown, latex; default 4)")


SEED = 42
"""The studies' ``--seed`` when not given."""


def seed_of(args: argparse.Namespace) -> int:
    """``--seed``, or :data:`SEED` when not given."""
    return SEED if args.seed is None else int(args.seed)


def scores_from_inputs(args: argparse.Namespace) -> Any:
    """The study's :class:`~inexeval.scores.Scores` under the comparison's topic rule
    (:func:`inexeval.meta.study_scores`: the topics assessed and answered by at least one run;
    ``-c`` every assessed topic; ``--topics`` a selection): read from ``--scores`` (cut to
    ``-m``, a measure named in any of its spellings), or every run evaluated. The one place a
    meta study evaluates runs."""
    from inexeval.meta import study_scores

    if args.scores is not None:
        if args.assessments is not None or args.runs:
            raise InexevalError("give --scores FILE or ASSESSMENTS and RUNs, not both")
        if args.task:
            raise InexevalError("--task goes with ASSESSMENTS and RUNs, not --scores")
        from inexeval.formats.scores import read_scores

        scores = mean_names(read_scores(args.scores))
        if args.measure:
            # each measure printed as typed (map, not the matrix's AP), the first of two
            # spellings of one measure, as when the runs are evaluated; an official task's
            # mean under its mean name (AiP as MAiP), as a study on the runs gives it
            from inexeval.scores import MEAN_NAME

            typed: dict[str, str] = {}
            for m in args.measure:
                found = _measure_in(scores, m, args.scores)
                typed.setdefault(found, found if found in MEAN_NAME.values()
                                 else _printed_name(m))
            scores = scores.select(measures=list(typed))
            scores = replace(scores, measures=tuple(typed[m] for m in scores.measures))
        topics = None if args.topics is None else args.topics.split(",")
        try:
            return study_scores(scores, complete=bool(args.c), topics=topics)
        except InexevalError as error:
            raise InexevalError(str(error), args.scores) from None
    if args.assessments is None or len(args.runs) < 2:
        raise InexevalError("give ASSESSMENTS and at least two RUNs, or --scores FILE")
    return evaluate_inputs(args)


def _printed_name(name: str) -> str:
    """The name a measure asked for as ``name`` is printed under: as typed, trec_eval's
    ``P.10`` as trec_eval prints it (``P_10``)."""
    from inexeval.measures.trec_names import trec_eval_requests

    try:
        labels = trec_eval_requests([name]).labels
    except InexevalError:
        return name
    return next(iter(labels.values())) if len(labels) == 1 else name


def _measure_in(scores: Any, name: str, path: str) -> str:
    from inexeval.scores import find_measure

    found = find_measure(scores.measures, name)
    if found is None:
        raise InexevalError(f"no measure {name} in the scores (they have "
                            f"{', '.join(scores.measures)})", path)
    return found


def mean_names(scores: Any) -> Any:
    """The scores with the focused task's per-topic measures under their mean names (``AiP``
    as ``MAiP``), the names a study on the assessments and runs gives them."""

    from inexeval.scores import MEAN_NAME

    renamed = tuple(MEAN_NAME.get(m, m) if MEAN_NAME.get(m) not in scores.measures else m
                    for m in scores.measures)
    return scores if renamed == scores.measures else replace(scores, measures=renamed)


def evaluate_inputs(args: argparse.Namespace) -> Any:
    """Every run of ``args.runs`` evaluated by the experiment of the command line
    (:func:`inexeval.cli_args.experiment`) under the comparison's rule (``any``, ``-c``:
    ``all``): its :class:`~inexeval.scores.Scores`, cut to the measures a comparison reads."""
    from inexeval.cli_args import experiment
    from inexeval.formats.probes import is_questions_csv, looks_like_bioasq
    from inexeval.meta import study_scores
    from inexeval.outputs import note

    if is_questions_csv(args.assessments):
        from inexeval.evaluation_spans import span_run_scores

        return study_scores(span_run_scores(args), complete=bool(args.c))
    if looks_like_bioasq(args.assessments):
        from inexeval.evaluation_bioasq import bioasq_scores

        study_b, found, _ = bioasq_scores(args)
        if study_b.note:
            note(study_b.note.removeprefix("inexeval: ").rstrip())
        return study_scores(found, complete=bool(args.c))
    if getattr(args, "bioasq_version", None) is not None:
        raise InexevalError("--bioasq-version goes with BioASQ JSON files (GOLD.json "
                            "SYSTEM.json)", args.assessments)

    study = experiment(args)
    scores = study.evaluate("all" if args.c else "any").scores
    scores = scores.select(measures=[m for m in study.comparison_measures()
                                     if m in scores.measures])
    if study.labels:  # the measures as the user typed them (map, not AP), as compare does
        scores = replace(scores, measures=tuple(study.labels.get(m, m) for m in scores.measures))
    return study_scores(scores)


def executor_of(args: argparse.Namespace) -> Any:
    from inexeval.executor import make_executor

    return make_executor(args.jobs, args.scheduler)


def _inputs(args: argparse.Namespace) -> list[str | None]:
    return [getattr(args, "scores", None), args.assessments, *args.runs, args.collection,
            *(getattr(args, "original", None) or ()), *(getattr(args, "reproduced", None) or ())]


# output --------------------------------------------------------------------------------------
def _figure_format(args: argparse.Namespace) -> str | None:
    from inexeval.report.figures import figure_format

    return None if args.output is None else figure_format(args.output)


def check_output(args: argparse.Namespace) -> None:
    """The output checked before any work: a writable file that is no input; a figure needs
    matplotlib."""
    if args.output is None:
        return
    from inexeval.outputs import check_output as checked

    checked(args.output, *_inputs(args))
    if _figure_format(args) is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InexevalError("a figure needs matplotlib: pip install 'inexeval[plot]'",
                                args.output) from None


def emit(args: argparse.Namespace, title: str, tables: dict[str, list[dict[str, Any]]],
         columns: dict[str, tuple[str, ...]], draw: Callable[[], Any] | None = None,
         scores: Any = None) -> None:
    """Print or write the study: its tables in ``--format`` (JSON: ``{name: rows}`` at full
    precision, NaN as null, and with ``scores`` a ``study`` object: the title, the topic
    count and rule; CSV: the first table), or its figure when ``-o`` names one, captioned
    with the title (the topics, the rule and the study's parameters)."""
    figure = _figure_format(args)
    if figure is not None:
        if draw is None:
            raise InexevalError("this study has no figure: write a table (-o FILE.txt, "
                                "--format ...)", args.output)
        from inexeval.outputs import wrote
        from inexeval.report.figures import captioned, save_figure

        save_figure(captioned(draw(), title), args.output)
        wrote(args.output)
        return
    if args.format == "json":
        data: dict[str, Any] = {}
        if scores is not None:
            data["study"] = study_facts(title, scores)
        data.update({name: [{k: _json(row.get(k)) for k in _keys(columns[name], row)}
                            for row in rows] for name, rows in tables.items()})
        text = json.dumps(data, indent=1) + "\n"
    elif args.format == "csv":
        from inexeval.report.comparison import render_csv

        name = next(iter(tables))
        text = render_csv(columns[name], [[row.get(k) for k in columns[name]]
                                          for row in tables[name]])
    else:
        from inexeval.report.comparison import render_rows

        parts = [render_rows(columns[name], [[row.get(k) for k in columns[name]]
                                             for row in rows], args.format, args.digits,
                             f"{title}: {name}")
                 for name, rows in tables.items()]
        text = "\n".join(parts)
    if args.output is None:
        import sys

        sys.stdout.write(text)
        return
    from inexeval.cli_args import write

    write(args, text)


def study_facts(title: str, scores: Any) -> dict[str, Any]:
    """JSON's ``study``: the title, runs, topic count, rule (``any`` or ``all``) and its
    words."""
    from inexeval.meta import describe_topics

    return {"title": title, "runs": len(scores.runs), "topics": len(scores.topics),
            "rule": scores.rule, "topic_rule": describe_topics(scores)}


def _keys(columns: tuple[str, ...], row: dict[str, Any]) -> list[str]:
    return [*columns, *(k for k in row if k not in columns)]


def _json(value: Any) -> Any:
    return None if isinstance(value, float) and math.isnan(value) else value


def header(what: str, scores: Any) -> str:
    """The title line: the study, the runs, the topic count and the rule that chose them."""
    from inexeval.meta import describe_topics
    from inexeval.scores import geometric_measures

    geometric = geometric_measures(scores.measures)
    return f"{what}; {len(scores.runs)} runs, {describe_topics(scores)}" + (
        f"; {', '.join(geometric)}: a run's mean, where one is shown, is the geometric mean (the "
        "exponential of the mean per-topic logarithm, trec_eval's value); what the study "
        "computes from the per-topic values (tests, ASLs, differences, swap rates, errors) is on "
        "the per-topic logarithms" if geometric else "")


def positive_number(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


# power ---------------------------------------------------------------------------------------
POWER_PAIRS = ("measure", "run_a", "run_b", "n_topics", "mean_a", "mean_b", "delta", "asl")
POWER_SUMMARY = ("measure", "method", "replicates", "alpha", "pairs", "significant",
                 "discriminative_power", "difference_required")


def _power_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.meta.power import METHODS, REPLICATES

    add_study_inputs(parser)
    parser.add_argument("--method", choices=METHODS, default="bootstrap",
                        help="paired bootstrap test, shift method (Sakai 2006), or randomised "
                        "Tukey HSD (Sakai 2012); default bootstrap. The latter's difference "
                        "required, the ceil(alpha B)-th largest range of the run means, is our "
                        "choice")
    parser.add_argument("--replicates", type=positive, metavar="B",
                        help="bootstrap replicates or permutations (default "
                        f"{REPLICATES['bootstrap']}, as report --meta)")
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="significance level (default 0.05)")
    parser.add_argument("--replicate-matrix", metavar="FILE",
                        help="the bootstrap's topic indices: B lines of n 0-based indices "
                        "(default: rows of numpy.random.default_rng(seed).integers(0, n, "
                        "size=(B, n))); it decides B and the draws, so --replicates and "
                        "--seed go without it")


def _power(args: argparse.Namespace) -> int:
    from inexeval.meta.power import REPLICATES, power_study, read_replicate_matrix

    if args.replicate_matrix is not None:
        given_too = [option for option, value in (("--replicates", args.replicates),
                                                  ("--seed", args.seed)) if value is not None]
        if given_too:
            raise InexevalError(f"--replicate-matrix decides the replicates: {given_too[0]} "
                                "goes without it")
    replicates = args.replicates or REPLICATES[args.method]
    check_output(args)
    scores = scores_from_inputs(args)
    given = (read_replicate_matrix(args.replicate_matrix, len(scores.topics))
             if args.replicate_matrix else None)
    executor = executor_of(args)
    try:
        results = power_study(scores, method=args.method, replicates=replicates,
                              alpha=args.alpha, seed=seed_of(args), executor=executor,
                              block=args.block, replicates_given=given)
    finally:
        getattr(executor, "close", lambda: None)()
    replicates = results[0].replicates if results else replicates
    source = (f"replicate matrix {args.replicate_matrix}" if given is not None
              else f"seed {seed_of(args)}")
    title = header(f"discriminative power ({args.method}, B = {replicates}, {source}, "
                   f"alpha = {args.alpha:g})", scores)

    def draw() -> Any:
        from inexeval.meta.plots import asl_curves
        from inexeval.report.plots import figure

        fig, [ax] = figure()
        asl_curves(ax, results)
        return fig

    emit(args, title, {"pairs": [row for r in results for row in r.pair_rows()],
                       "summary": [r.summary() for r in results]},
         {"pairs": POWER_PAIRS, "summary": POWER_SUMMARY}, draw, scores)
    return 0


# swap ----------------------------------------------------------------------------------------
SWAP_RATES = ("measure", "topics", "bin_low", "bin_high", "comparisons", "swaps", "swap_rate")
SWAP_SUMMARY = ("measure", "topics", "min_difference", "note")


def _swap_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.meta.swap import METHODS

    add_study_inputs(parser)
    parser.add_argument("--method", choices=METHODS, default="sampling",
                        help="disjoint topic sets drawn without replacement (Voorhees and "
                        "Buckley 2002; default) or with replacement (Sakai 2007: bootstrap)")
    parser.add_argument("--subsets", type=positive, default=1000, metavar="N",
                        help="pairs of topic sets per size (default 1000)")
    parser.add_argument("--bin", type=positive_number, default=0.01, metavar="W",
                        help="width of the difference bins (default 0.01). Our choice where the "
                        "papers leave it open: per bin, swap rate = exp(a + b c) fitted by "
                        "Poisson regression of the swaps (the comparisons as exposure) over the "
                        "sizes with at least 30 comparisons, b <= 0, then made non-increasing "
                        "in the difference (weighted isotonic regression)")


def _swap(args: argparse.Namespace) -> int:
    from inexeval.meta.swap import swap_study

    check_output(args)
    scores = scores_from_inputs(args)
    executor = executor_of(args)
    try:
        results = swap_study(scores, method=args.method, subsets=args.subsets,
                             bin_width=args.bin, seed=seed_of(args), executor=executor,
                             block=args.block)
    finally:
        getattr(executor, "close", lambda: None)()
    title = header(f"swap rates ({args.method}, {args.subsets} pairs of topic sets per size, "
                   f"bins of {args.bin:g}, seed {seed_of(args)}; min_difference: the difference "
                   "beyond which the fitted swap rate stays below 5%)", scores)

    def draw() -> Any:
        from inexeval.meta.plots import swap_curves
        from inexeval.report.plots import figure

        fig, axes = figure(len(results))
        for ax, result in zip(axes, results):
            swap_curves(ax, result)
        return fig

    emit(args, title, {"rates": [row for r in results for row in r.rate_rows()],
                       "summary": [row for r in results for row in r.summary_rows()]},
         {"rates": SWAP_RATES, "summary": SWAP_SUMMARY}, draw, scores)
    return 0


# topics --------------------------------------------------------------------------------------
TOPICS_DESIGN = ("measure", "test", "alpha", "power", "min_diff", "systems", "ci_width",
                 "variance", "topics")
TOPICS_POWER = ("measure", "test", "topics", "min_diff", "power")


def _topics_arguments(parser: argparse.ArgumentParser) -> None:
    add_study_inputs(parser, drawn=False)
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="significance level, two-sided (default 0.05)")
    parser.add_argument("--power", type=probability, default=0.8,
                        help="target power 1 - beta (default 0.8)")
    parser.add_argument("--min-diff", type=positive_number, metavar="D",
                        help="paired t test: the smallest difference to detect")
    parser.add_argument("--systems", type=positive, metavar="M",
                        help="one-way ANOVA over M systems (with --min-range, or --min-diff)")
    parser.add_argument("--min-range", type=positive_number, metavar="D",
                        help="one-way ANOVA: the smallest range of the system means to detect")
    parser.add_argument("--ci-width", type=positive_number, metavar="W",
                        help="the expected width of the 100(1 - alpha)%% interval of a "
                        "difference")
    parser.add_argument("--n-topics", type=positive, metavar="N",
                        help="the power of the t and ANOVA designs at N topics")


def _topics(args: argparse.Namespace) -> int:
    from inexeval.meta import topics_by_runs
    from inexeval.meta.topics import anova_power, design, power_at, t_power

    if args.min_diff is None and args.systems is None and args.ci_width is None:
        raise InexevalError("give a design: --min-diff D (t test), --systems M with "
                            "--min-range D (ANOVA), or --ci-width W")
    check_output(args)
    at = args.n_topics
    scores = scores_from_inputs(args)
    rows, powers = [], []
    matrices = {m: topics_by_runs(scores, m) for m in scores.measures}
    for measure, x in matrices.items():
        rows += [d.row() for d in design(measure, x, alpha=args.alpha, power=args.power,
                                         min_diff=args.min_diff, systems=args.systems,
                                         min_range=args.min_range, width=args.ci_width)]
        if at is not None:
            powers += power_at(measure, x, at, alpha=args.alpha,
                               min_diff=args.min_diff, systems=args.systems,
                               min_range=args.min_range)
    title = header(f"topic-set size (Sakai 2016; alpha = {args.alpha:g} two-sided, power "
                   f"{args.power:g}; variance: residual mean square of the two-way ANOVA)",
                   scores)
    tables: dict[str, list[dict[str, Any]]] = {"design": rows}
    columns = {"design": TOPICS_DESIGN, "power": TOPICS_POWER}
    if at is not None:
        tables = {"power": powers, "design": rows}

    def draw() -> Any:
        from inexeval.meta.plots import power_curves
        from inexeval.meta.topics import residual_variance
        from inexeval.report.plots import figure

        largest = max([at or 0, *(r["topics"] or 0 for r in rows), 10])
        counts = list(range(2, 2 * largest + 1))
        curves: dict[str, Any] = {}
        for measure, x in matrices.items():
            variance = residual_variance(x)
            if args.min_diff is not None:
                curves[f"{measure} t"] = t_power(counts, args.min_diff, variance, args.alpha)
            d = args.min_range if args.min_range is not None else args.min_diff
            if args.systems is not None and d is not None:
                curves[f"{measure} ANOVA"] = anova_power(counts, args.systems, d, variance,
                                                         args.alpha)
        fig, [ax] = figure()
        power_curves(ax, counts, curves, args.power)
        return fig

    emit(args, title, tables, columns, draw, scores)
    return 0


# agree ---------------------------------------------------------------------------------------
def _agree_arguments(parser: argparse.ArgumentParser) -> None:
    add_study_inputs(parser)
    parser.add_argument("--resamples", type=positive, default=1000, metavar="B",
                        help="bootstrap resamples of the topics for the intervals (default 1000)")
    parser.add_argument("--rbo-p", type=probability, default=0.9, metavar="P",
                        help="persistence of the rank-biased overlap (default 0.9). Our choice: "
                        "run means rounded to 12 decimals before ranking (equal but for "
                        "rounding: tied); tau_AP_a counts a pair tied in the truth as not "
                        "concordant (ircor refuses such a truth)")


def _agree(args: argparse.Namespace) -> int:
    from inexeval.meta.agree import COLUMNS, agreement_study

    check_output(args)
    scores = scores_from_inputs(args)
    executor = executor_of(args)
    try:
        rows = agreement_study(scores, resamples=args.resamples, seed=seed_of(args),
                               persistence=args.rbo_p, executor=executor, block=args.block)
    finally:
        getattr(executor, "close", lambda: None)()
    title = header(f"agreement of the measures' rankings of the runs (tau_AP with measure_a "
                   f"as the truth; RBO p = {args.rbo_p:g}; 95% percentile bootstrap intervals, "
                   f"{args.resamples} resamples of the topics, seed {seed_of(args)})", scores)
    emit(args, title, {"agreement": rows}, {"agreement": COLUMNS}, scores=scores)
    return 0


# repro ---------------------------------------------------------------------------------------
REPRO_TOPICS = ("original", "reproduced", "topic", "ktu", "rbo")  # JSON: and measure, null
REPRO_RUNS = ("measure", "original", "reproduced", "rmse", "nrmse", "p_paired", "p_unpaired")
REPRO_EFFECTS = ("measure", "er", "delta_ri")


def _repro_arguments(parser: argparse.ArgumentParser) -> None:
    add_study_inputs(parser, runs=False, drawn=False)
    parser.add_argument("--original", nargs="+", metavar="RUN", required=True,
                        help="the original runs (the first the baseline, the second the "
                        "advanced run of the effects)")
    parser.add_argument("--reproduced", nargs="+", metavar="RUN", required=True,
                        help="their reproductions, paired by position")
    parser.add_argument("--rbo-p", type=probability, default=0.95, metavar="P",
                        help="persistence of the rank-biased overlap (default 0.95, "
                        "repro_eval's)")
    parser.add_argument("--depth", type=positive, default=1000, metavar="N",
                        help="results compared per topic by KTU and RBO (default 1000, "
                        "repro_eval's); our choice: KTU of lists of different lengths on the "
                        "shorter length (repro_eval stops)")


def _repro(args: argparse.Namespace) -> int:
    from inexeval.meta.repro import repro_study

    if len(args.original) != len(args.reproduced):
        raise InexevalError(f"{len(args.original)} original runs and {len(args.reproduced)} "
                            "reproduced ones: give one reproduction per original run")
    if args.assessments is None:
        raise InexevalError("give ASSESSMENTS (the runs are --original and --reproduced)")
    if args.runs:
        raise InexevalError(f"give the runs with --original and --reproduced, not as "
                            f"{args.runs[0]}")
    check_output(args)
    args.runs = [*args.original, *args.reproduced]
    from inexeval.cli_args import experiment

    args.c = True
    study = experiment(args)
    scores = study.evaluate("all").scores
    scores = scores.select(measures=[m for m in study.comparison_measures()
                                     if m in scores.measures])
    runs = study.runs()
    half = len(args.original)
    tables = repro_study(scores, runs[:half], runs[half:], order=args.order or "rank",
                         persistence=args.rbo_p, depth=args.depth)
    title = header(f"reproducibility (Breuer et al. 2020, as repro_eval; KTU and RBO p = "
                   f"{args.rbo_p:g} over the first {args.depth} results)", scores)
    emit(args, title, tables, {"per_topic": REPRO_TOPICS, "runs": REPRO_RUNS,
                               "effects": REPRO_EFFECTS})
    return 0


register("power", Study("discriminative power: ASL of every pair of runs by the paired "
                        "bootstrap or the randomised Tukey HSD (Sakai 2006, 2012)",
                        _power_arguments, _power))
register("swap", Study("swap rates by topic-set size and difference, extrapolated "
                       "(Voorhees and Buckley 2002; Sakai 2007)", _swap_arguments, _swap))
register("topics", Study("topic-set-size design: topics needed for a t test, an ANOVA or a CI "
                         "width, with exact power (Sakai 2016)", _topics_arguments, _topics))
register("repro", Study("reproducibility of runs: KTU, RBO, RMSE, nRMSE, p-values, ER, "
                        "delta RI (Breuer et al. 2020, as repro_eval)", _repro_arguments,
                        _repro))
register("agree", Study("agreement of the measures' rankings: agree's columns, tau_a, "
                        "tau_AP_a/b (Urbano and Marrero 2017), RBO, bootstrap intervals",
                        _agree_arguments, _agree))

from inexeval.commands.meta import pooling
from inexeval.commands.meta.pool import SUBCOMMANDS as _POOL_STUDIES

for _name, (_help, _arguments, _run) in _POOL_STUDIES.items():
    register(_name, Study(_help, _arguments, _run))
register("pooling", Study(pooling.HELP, pooling.add_arguments, pooling.run))
