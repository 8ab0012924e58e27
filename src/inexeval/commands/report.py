"""``inexeval report``: one self-contained HTML file comparing runs, to mail around.

The report is ``inexeval compare --format html -o FILE``: the same options, the same comparison,
written as :mod:`inexeval.report.html` lays it out, with the measures' curves besides.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from inexeval.cli import positive

NAME = "report"
HELP = "write a self-contained HTML report: comparison, tests, curves, per-topic values"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.commands import compare

    compare.add_arguments(parser)
    parser.add_argument("--ranks", type=positive, default=50, metavar="N",
                        help="last rank of a curve over ranks (gP, nxCG, P ...; default 50)")
    parser.set_defaults(format="html")


def run(args: argparse.Namespace) -> int:
    from inexeval.commands import compare
    from inexeval.errors import InexevalError

    if args.output is None:
        raise InexevalError("a report is a file: give -o FILE (e.g. -o report.html)")
    if args.format != "html":
        raise InexevalError(f"a report is HTML; for --format {args.format} use inexeval "
                            "compare")
    return compare.run(args)


def html_report(args: argparse.Namespace, comparison: Any) -> str:
    """The HTML page of ``inexeval report`` and ``inexeval compare --format html``."""
    import warnings

    from inexeval.commands.eval import load_inputs
    from inexeval.commands.plot import Inputs
    from inexeval.errors import InexevalWarning
    from inexeval.report import html

    with warnings.catch_warnings():
        # the inputs were read and evaluated for the comparison: their warnings are shown
        warnings.simplefilter("ignore", InexevalWarning)
        inputs = Inputs(*load_inputs(args))
        curves = _curves(args, inputs, comparison.measures)
    what = f"{args.task} task" if args.task else ", ".join(comparison.measures)
    page = html.from_comparison(
        comparison, title=f"Evaluation report: {what}",
        subtitle=(f"{len(inputs.runs)} runs, {len(comparison.topics)} assessed topics, "
                  f"assessments {Path(args.assessments).name}"),
        command=command_line(args), version=version(), curves=curves,
        inputs=[(run.name, path, sum(1 for t in run if len(run[t]))) for run, path in
                zip(inputs.runs, args.runs)], digits=args.digits)
    return html.render(page)


def _curves(args: argparse.Namespace, inputs: Any, names: list[str]) -> list[Any]:
    """The curves of the compared measures (with ``--task`` the task's), each once, averaged
    over every assessed topic as the comparison is."""
    from inexeval.commands.plot import curve_results
    from inexeval.errors import MeasureError
    from inexeval.measures.curves import natural_curve, series, task_measure
    from inexeval.report.html import Curve

    if args.task:
        measures = [task_measure(args.task, beta=args.beta, bep_n=args.bep_n, irr=args.irr,
                                 exact_buckets=args.exact_buckets)]
    else:
        measures = names
    specs: dict[tuple[str, ...], Any] = {}
    for name in measures:
        try:
            spec = natural_curve(name, getattr(args, "ranks", 50))
        except MeasureError:
            continue
        specs.setdefault(tuple(spec.names), spec)
    curves = []
    for spec in specs.values():
        results = curve_results(args, inputs, spec, complete=True)
        curves.append(Curve(
            f"{spec.measure}: {spec.y_label} over {spec.x_label}, mean over every assessed "
            "topic", spec.x, {run.name: series(results, spec, run.name).tolist()
                              for run in inputs.runs}, spec.x_label, spec.y_label))
    return curves


def command_line(args: argparse.Namespace) -> str:
    """The command as typed (quoted for a POSIX shell)."""
    import shlex

    return shlex.join(getattr(args, "argv", ["inexeval", NAME]))


def version() -> str:
    from inexeval.cli import installed_version

    return installed_version()
