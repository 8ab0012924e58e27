"""``inexeval plot``: a figure of an evaluation (PNG, SVG or PDF; needs the ``plot`` extra)."""

from __future__ import annotations

import argparse
import sys

from inexeval.cli import positive
from inexeval.cli_args import add_complete_argument, add_input_arguments

NAME = "plot"
HELP = "draw curves, per-topic differences, measure scatter plots or per-topic boxes"

KINDS = ("curve", "per-topic", "scatter", "box")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--kind", choices=KINDS, default="curve",
                        help="curve: the measure's curve for every run (default); per-topic: "
                        "sorted per-topic differences against the baseline; scatter: two "
                        "measures, one point per run; box: per-topic values per run")
    add_complete_argument(parser, "any")
    parser.add_argument("--topic", metavar="TOPIC", help="curve: one topic's curve, not the mean")
    parser.add_argument("--baseline", metavar="RUN",
                        help="per-topic: the run the others are compared with, its name or "
                        "file (default: the first run)")
    parser.add_argument("--ranks", type=positive, default=50, metavar="N",
                        help="curve: last rank of a curve over ranks (gP, nxCG, P ...; 50)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the figure; its suffix gives the format: .png, .svg or .pdf")
    parser.set_defaults(jobs=1)


def _matplotlib() -> None:
    from inexeval.errors import InexevalError

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InexevalError("plot needs matplotlib: pip install 'inexeval[plot]'") from None


def run(args: argparse.Namespace) -> int:
    from inexeval.cli_args import experiment, write
    from inexeval.errors import InexevalError
    from inexeval.outputs import check_output
    from inexeval.report.figures import figure_bytes, required_format

    _matplotlib()
    suffix = required_format(args.output)
    inputs = (args.assessments, *args.runs, args.collection)
    check_output(args.output, *inputs)
    if args.topic is not None and args.kind != "curve":
        raise InexevalError("--topic goes with --kind curve")
    if args.kind == "curve" and args.task and args.measure:
        raise InexevalError("with --task the curve is the task's (iP or gP): leave out -m")
    if args.kind == "scatter" and len(args.measure) != 2:
        raise InexevalError("a scatter plot is of two measures: give two -m, not "
                            f"{len(args.measure)}")
    study = experiment(args)
    sys.stderr.write(study.note)
    fig = study.plot(args.kind, topic=args.topic, baseline=args.baseline, ranks=args.ranks,
                     rule="all" if args.c else "any")
    write(args, figure_bytes(fig, suffix), *inputs)
    return 0
