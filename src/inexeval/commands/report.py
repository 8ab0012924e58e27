"""``inexeval report``: one self-contained HTML file comparing runs, to mail around."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from inexeval.cli import non_negative, positive
from inexeval.commands.eval import add_input_arguments

NAME = "report"
HELP = "write a self-contained HTML report: comparison, tests, curves, per-topic values"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    add_comparison_arguments(parser)
    parser.add_argument("--ranks", type=positive, default=50, metavar="N",
                        help="last rank of a curve over ranks (gP, nxCG, P ...; 50)")
    parser.add_argument("--digits", type=non_negative, default=4, metavar="N",
                        help="decimals shown")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the HTML file to write")


def run(args: argparse.Namespace) -> int:
    from inexeval.analysis.compare import compare_results, natural_order
    from inexeval.commands.eval import load_inputs
    from inexeval.commands.plot import Inputs, per_topic
    from inexeval.outputs import atomic_output, check_output
    from inexeval.report import html

    check_output(args.output, args.assessments, *args.runs)
    inputs = Inputs(*load_inputs(args))
    names, results, _ = per_topic(args, inputs)
    comparison = compare_results(
        results, names, baseline=args.baseline, tests=args.test or ["t"], correction=args.correction,
        alpha=args.alpha, permutations=args.permutations, seed=args.seed,
        topics=natural_order(list(inputs.assessments)))
    what = f"{args.task} task" if args.task else ", ".join(comparison.measures)
    page = html.from_comparison(
        comparison, title=f"Evaluation report: {what}",
        subtitle=(f"{len(inputs.runs)} runs, {len(comparison.topics)} assessed topics, "
                  f"assessments {Path(args.assessments).name}"),
        command=command_line(args), version=version(), curves=_curves(args, inputs, names),
        inputs=[(run.name, path, sum(1 for t in run if len(run[t]))) for run, path in
                zip(inputs.runs, args.runs)], digits=args.digits)
    with atomic_output(args.output) as handle:
        handle.write(html.render(page))
    return 0


def add_comparison_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.analysis.significance import CORRECTIONS, TESTS

    parser.add_argument("--baseline", metavar="RUN",
                        help="the run the others are compared with (default: the first)")
    parser.add_argument("--test", action="append", choices=TESTS, metavar="TEST",
                        help=f"significance test, repeatable ({', '.join(TESTS)}; default t)")
    parser.add_argument("--correction", choices=CORRECTIONS, default="none",
                        help="multiple-testing correction per measure (default none)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="significance level of the markers (0.05)")
    parser.add_argument("--permutations", type=positive, default=10_000, metavar="B",
                        help="randomised and bootstrap tests: permutations or resamples "
                        "(10000)")
    parser.add_argument("--seed", type=int, default=42, help="random seed (42)")
    parser.add_argument("--jobs", type=positive, default=1, metavar="N",
                        help="runs evaluated in N processes (1)")


def _curves(args: argparse.Namespace, inputs: Any, names: list[str]) -> list[Any]:
    """The curves of the compared measures (with ``--task`` the task's), each once, averaged
    over every assessed topic as the comparison is."""
    from inexeval.commands.plot import curve_results
    from inexeval.errors import MeasureError
    from inexeval.measures.curves import natural_curve, series, task_measure
    from inexeval.report.html import Curve

    specs = {}
    if args.task:
        from inexeval.commands.eval import task_options

        measures = [task_measure(args.task, **task_options(args))]
    else:
        measures = names
    for name in measures:
        try:
            spec = natural_curve(name, args.ranks)
        except MeasureError:
            continue
        specs.setdefault(tuple(spec.names), spec)
    curves = []
    for spec in specs.values():
        results = curve_results(args, inputs, spec, complete=True)
        curves.append(Curve(
            f"{spec.y_label} over {spec.x_label} ({spec.measure}), mean over every assessed "
            "topic", spec.x, {run.name: series(results, spec, run.name).tolist()
                              for run in inputs.runs}, spec.x_label, spec.y_label))
    return curves


def command_line(args: argparse.Namespace) -> str:
    """The command as typed (quoted for a POSIX shell)."""
    import shlex

    return shlex.join(getattr(args, "argv", ["inexeval", NAME]))


def version() -> str:
    from inexeval.cli import _version

    return _version()
