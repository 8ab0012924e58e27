"""``inexeval report``: one self-contained HTML file comparing runs, to mail around.

The report is ``inexeval compare --format html -o FILE``: the same options, the same comparison,
written as :mod:`inexeval.report.html` lays it out, with the measures' curves besides
(:meth:`inexeval.experiment.Experiment.report`).
"""

from __future__ import annotations

import argparse

from inexeval.cli import positive
from inexeval.cli_args import add_comparison_arguments, comparison

NAME = "report"
HELP = "write a self-contained HTML report: comparison, tests, curves, per-topic values"

FORMATS = ("table", "markdown", "latex", "csv", "json", "html")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_comparison_arguments(parser, FORMATS)
    parser.add_argument("--ranks", type=positive, default=50, metavar="N",
                        help="last rank of a curve over ranks (gP, nxCG, P ...; default 50)")
    parser.set_defaults(format="html")


def run(args: argparse.Namespace) -> int:
    from inexeval.errors import InexevalError

    if args.output is None:
        raise InexevalError("a report is a file: give -o FILE (e.g. -o report.html)")
    if args.format != "html":
        raise InexevalError(f"a report is HTML; for --format {args.format} use inexeval "
                            "compare")
    return comparison(args, NAME)
