"""``inexeval plot``: a figure of an evaluation (PNG, SVG or PDF; needs the ``plot`` extra)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from inexeval.cli import positive
from inexeval.commands.eval import add_input_arguments

if TYPE_CHECKING:
    from inexeval.model import Assessments, Run


class Inputs(NamedTuple):
    """What :func:`inexeval.commands.eval.load_inputs` read."""

    assessments: Assessments
    runs: list[Run]
    collection: Any

NAME = "plot"
HELP = "draw curves, per-topic differences, measure scatter plots or per-topic boxes"

KINDS = ("curve", "per-topic", "scatter", "box")
FORMATS = ("png", "svg", "pdf")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--kind", choices=KINDS, default="curve",
                        help="curve: the measure's curve for every run (default); per-topic: "
                        "sorted per-topic differences against the baseline; scatter: two "
                        "measures, one point per run; box: per-topic values per run")
    parser.add_argument("-c", action="store_true",
                        help="curve: average over all assessed topics, a topic without results "
                        "scoring 0 (as eval -c; the other kinds always do)")
    parser.add_argument("--topic", metavar="TOPIC", help="curve: one topic's curve, not the mean")
    parser.add_argument("--baseline", metavar="RUN",
                        help="per-topic: the run the others are compared with (default: the "
                        "first run)")
    parser.add_argument("--ranks", type=positive, default=50, metavar="N",
                        help="curve: last rank of a curve over ranks (gP, nxCG, P ...; 50)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the figure; its suffix gives the format: .png, .svg or .pdf")


def _matplotlib() -> None:
    from inexeval.errors import InexevalError

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InexevalError("plot needs matplotlib: pip install 'inexeval[plot]'") from None


def run(args: argparse.Namespace) -> int:
    from inexeval.commands.eval import load_inputs
    from inexeval.errors import InexevalError
    from inexeval.outputs import atomic_output, check_output

    _matplotlib()
    suffix = Path(args.output).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise InexevalError(f"cannot tell the figure format from the suffix {suffix!r} (.png, "
                            ".svg or .pdf)", args.output)
    check_output(args.output, args.assessments, *args.runs)
    if args.topic is not None and args.kind != "curve":
        raise InexevalError("--topic goes with --kind curve")
    inputs = Inputs(*load_inputs(args))
    draw = {"curve": _curve, "per-topic": _per_topic, "scatter": _scatter, "box": _box}[args.kind]
    fig = draw(args, inputs)
    with atomic_output(args.output, "wb") as handle:
        # no creation date in SVG and PDF: the same data give the same file
        fig.savefig(handle, format=suffix, metadata={"Date": None} if suffix != "png" else None,
                    dpi=150)
    return 0


def curve_spec(args: argparse.Namespace) -> Any:
    """The curve asked for: with ``--task`` the task's (iP or gP), else that of the one
    ``-m`` measure."""
    from inexeval.commands.eval import task_options
    from inexeval.errors import InexevalError
    from inexeval.measures.curves import natural_curve, task_measure

    if args.task:
        if args.measure:
            raise InexevalError(f"with --task the curve is the task's (iP or gP): leave out -m")
        return natural_curve(task_measure(args.task, **task_options(args)), args.ranks)
    if len(args.measure) != 1:
        raise InexevalError(f"a curve is of one measure: give one -m (or --task), not "
                            f"{len(args.measure)}")
    return natural_curve(args.measure[0], args.ranks)


def curve_results(args: argparse.Namespace, inputs: Inputs, spec: Any, complete: bool) -> Any:
    """Every point of the curve for every run and topic, read as ``eval`` reads the runs."""
    from inexeval.commands.eval import evaluator_options
    from inexeval.measures.curves import evaluate_curve

    options = ({"collection": inputs.collection} if args.task
               else evaluator_options(args, inputs.collection))
    return evaluate_curve(spec, inputs.assessments, inputs.runs, official=bool(args.task),
                          complete=complete, **options)


def _curve(args: argparse.Namespace, inputs: Inputs) -> Any:
    from inexeval.errors import InexevalError
    from inexeval.measures.curves import series
    from inexeval.report import plots

    spec = curve_spec(args)
    if args.topic is not None and args.topic not in inputs.assessments:
        raise InexevalError(f"topic {args.topic} has no assessments", args.assessments)
    results = curve_results(args, inputs, spec, complete=args.c or args.topic is not None)
    fig, (ax,) = plots.figure()
    title = spec.measure + (f", topic {args.topic}" if args.topic else ", mean over topics")
    plots.curves(ax, spec.x, {run.name: series(results, spec, run.name, args.topic)
                              for run in inputs.runs},
                 x_label=spec.x_label, y_label=spec.y_label, title=title)
    return fig


def per_topic(args: argparse.Namespace, inputs: Inputs, names: list[str] | None = None) -> Any:
    """The comparison's per-topic values (every assessed topic, a missing one scoring 0) of
    the measures (``-m`` or the task's)."""
    from inexeval.analysis.compare import comparable_measures, natural_order, per_topic_values
    from inexeval.commands.eval import evaluator_options, task_options
    from inexeval.evaluation import RunEvaluator, evaluate_runs

    names = names or comparable_measures(args.measure, args.task)
    if args.task:
        evaluate_one = RunEvaluator(inputs.assessments, names, task=args.task,
                                    task_options=task_options(args))
    else:
        evaluate_one = RunEvaluator(inputs.assessments, names,
                                    **evaluator_options(args, inputs.collection))
    results = evaluate_runs(evaluate_one, inputs.runs, getattr(args, "jobs", 1))
    topics = natural_order(list(inputs.assessments))
    return names, results, per_topic_values(results, names, [r.name for r in inputs.runs],
                                            topics)


def _per_topic(args: argparse.Namespace, inputs: Inputs) -> Any:
    from inexeval.errors import InexevalError
    from inexeval.report import plots
    from inexeval.report.html import topic_differences

    names, _, values = per_topic(args, inputs)
    runs = [r.name for r in inputs.runs]
    baseline = args.baseline or runs[0]
    if baseline not in runs:
        raise InexevalError(f"unknown baseline {baseline!r} (runs: {', '.join(runs)})")
    if len(runs) < 2:
        raise InexevalError("per-topic differences need at least two runs")
    others = [r for r in runs if r != baseline]
    fig, axes = plots.figure(len(others), width=max(7.0, 0.15 * len(inputs.assessments)))
    for ax, other in zip(axes, others):
        plots.per_topic_differences(ax, topic_differences(values[names[0]], other, baseline),
                                    run=other, baseline=baseline, measure=names[0])
    return fig


def _scatter(args: argparse.Namespace, inputs: Inputs) -> Any:
    from inexeval.analysis.agreement import ranking_agreement
    from inexeval.analysis.compare import compare_results
    from inexeval.errors import InexevalError
    from inexeval.report import plots

    if len(args.measure) != 2:
        raise InexevalError(f"a scatter plot is of two measures: give two -m, not "
                            f"{len(args.measure)}")
    names, results, _ = per_topic(args, inputs)
    comparison = compare_results(results, names)
    runs = [r for r in comparison.runs if all(comparison.means[m][r] is not None for m in names)]
    a = [comparison.means[names[0]][r] for r in runs]
    b = [comparison.means[names[1]][r] for r in runs]
    fit = ranking_agreement(a, b, names[0], names[1])
    fig, (ax,) = plots.figure()
    plots.scatter(ax, a, b, runs, measure_a=names[0], measure_b=names[1], slope=fit.slope,
                  intercept=fit.intercept, tau=fit.kendall_tau)
    return fig


def _box(args: argparse.Namespace, inputs: Inputs) -> Any:
    from inexeval.report import plots

    names, _, values = per_topic(args, inputs)
    fig, (ax,) = plots.figure()
    plots.box(ax, {run: [v for v in by_topic.values() if v is not None]
                   for run, by_topic in values[names[0]].items()}, measure=names[0])
    return fig
