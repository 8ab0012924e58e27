"""``inexeval compare``: paired significance tests of runs against a baseline (or of every pair)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inexeval.analysis.choices import CORRECTIONS, TESTS
from inexeval.cli import digits, positive
from inexeval.errors import InexevalError

NAME = "compare"
HELP = "compare runs with significance tests (paired over all assessed topics)"

FORMATS = ("table", "markdown", "latex", "csv", "json", "html")


def probability(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1")
    return value


def add_output_arguments(parser: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    """``--format``, ``-o``, ``--digits`` and ``--jobs``, shared by ``compare`` and ``agree``."""
    parser.add_argument("--format", choices=formats, default="table",
                        help="output format (default table; csv and json at full precision)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically) instead of the standard output")
    parser.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals printed (table, markdown, latex; default 4)")
    parser.add_argument("--jobs", type=positive, default=1, metavar="N",
                        help="evaluate the runs in N processes (same numbers; default 1)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.commands.eval import add_input_arguments

    add_input_arguments(parser)
    parser.add_argument("--baseline", metavar="RUN",
                        help="the run the others are compared with: its name or file (default: "
                        "the first run)")
    parser.add_argument("--all-pairs", action="store_true",
                        help="compare every pair of runs instead of each run with the baseline")
    parser.add_argument("--test", action="append", metavar="TEST",
                        help=f"significance test, repeatable: {', '.join(TESTS)} (the last two "
                        "with --all-pairs; default t)")
    parser.add_argument("--correction", default="none", metavar="METHOD",
                        help="multiple-testing correction per measure: "
                        f"{', '.join(CORRECTIONS)} (default none)")
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="significance level of the marks (default 0.05)")
    parser.add_argument("--permutations", type=int, default=10_000, metavar="B",
                        help="permutations of the randomised tests, resamples of the bootstrap "
                        "(default 10000)")
    parser.add_argument("--seed", type=int, default=42,
                        help="random seed of the randomised and bootstrap tests (default 42)")
    add_output_arguments(parser, FORMATS)


def evaluate_for_comparison(args: argparse.Namespace, measures: list[str] | None) -> tuple[Any, list[str], list[str], Any]:
    """Read the inputs and evaluate every run on every assessed topic (``eval -c``): the
    results, the canonical measure names, the assessed topics and the runs. Without measures
    and task, ``eval``'s defaults for the kind of assessments (:mod:`inexeval.defaults`)."""
    from inexeval.analysis.compare import check_runs, comparable_measures, natural_order
    from inexeval.commands.eval import evaluator_options, load_inputs, task_options
    from inexeval.evaluation import RunEvaluator, evaluate_runs

    if measures or args.task:
        comparable_measures(measures, args.task)  # a misnamed measure before any file is read
    assessments, runs, collection = load_inputs(args)
    if not measures and not args.task:
        from inexeval.defaults import default_measures

        args.task, measures = default_measures(
            assessments.scale, passage_runs=all(r.kind != "document" for r in runs),
            collection=collection is not None)
    names = comparable_measures(measures, args.task)
    if args.task:
        evaluate_one = RunEvaluator(assessments, names, task=args.task, collection=collection,
                                    task_options=task_options(args))
    else:
        evaluate_one = RunEvaluator(assessments, names, **evaluator_options(args, collection))
    check_runs(assessments, runs)
    results = evaluate_runs(evaluate_one, runs, args.jobs)
    return results, names, natural_order(list(assessments)), runs


def baseline_name(given: str | None, runs: list[Any], files: list[str]) -> str | None:
    """The run named by ``--baseline``: a run's name, or the file it was read from."""
    if given is None:
        return None
    for run, file in zip(runs, files):
        if given == run.name or Path(given) == Path(file):
            return str(run.name)
    raise InexevalError(f"unknown baseline {given!r} (the runs are "
                        f"{', '.join(str(r.name) for r in runs)})", "--baseline")


def write(args: argparse.Namespace, text: str, *inputs: str | None) -> None:
    """Print ``text``, or write it to ``-o FILE`` atomically (never over an input)."""
    if args.output is None:
        sys.stdout.write(text)
        return
    from inexeval.outputs import atomic_output, check_output

    target = check_output(args.output, *inputs)
    with atomic_output(target) as handle:
        handle.write(text)


def run(args: argparse.Namespace) -> int:
    from inexeval.analysis.compare import check_request, compare_results
    from inexeval.commands.report import html_report
    from inexeval.report.comparison import render_comparison

    if args.output is not None:
        from inexeval.outputs import check_output

        check_output(args.output, args.assessments, *args.runs, args.collection)
    tests = args.test or ["t"]
    check_request(tests, args.correction, all_pairs=args.all_pairs,
                  permutations=args.permutations, baseline=args.baseline)
    if len(args.runs) < 2:
        raise InexevalError(f"comparing needs at least two runs, not {len(args.runs)}")
    results, measures, topics, runs = evaluate_for_comparison(args, args.measure)
    comparison = compare_results(results, measures,
                                 baseline=baseline_name(args.baseline, runs, args.runs),
                                 tests=tests, correction=args.correction,
                                 all_pairs=args.all_pairs, alpha=args.alpha,
                                 permutations=args.permutations, seed=args.seed, topics=topics)
    write(args, html_report(args, comparison) if args.format == "html" else
          render_comparison(comparison, args.format, args.digits), args.assessments,
          *args.runs, args.collection)
    return 0
