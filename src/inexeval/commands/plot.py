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
_NO_DATE: dict[str, Any] = {"png": None, "svg": {"Date": None}, "pdf": {"CreationDate": None}}


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
    if args.kind == "curve":
        fig = _curve(args, Inputs(*load_inputs(args)))
    else:
        fig = {"per-topic": _per_topic, "scatter": _scatter, "box": _box}[args.kind](args)
    import matplotlib

    # no creation date, fixed SVG ids: the same data give the same file
    with atomic_output(args.output, "wb") as handle, matplotlib.rc_context(
            {"svg.hashsalt": "inexeval"}):
        fig.savefig(handle, format=suffix, metadata=_NO_DATE[suffix],
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
            raise InexevalError("with --task the curve is the task's (iP or gP): leave out -m")
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
    fig, (ax,) = plots.figure(width=10.0 if len(inputs.runs) > 6 else 7.0)
    # -c: every assessed topic; else each run over the assessed topics it answers
    rule, n_topics = ((None, None) if args.topic else ("all", len(inputs.assessments)) if args.c
                      else ("answered", len(results.topics())))
    plots.curves(ax, spec.x, {run.name: series(results, spec, run.name, args.topic)
                              for run in inputs.runs},
                 x_label=spec.x_label, y_label=spec.y_label,
                 title=plots.curve_title(spec, args.topic), rule=rule, n_topics=n_topics)
    return fig


def _evaluated(args: argparse.Namespace) -> tuple[Any, list[str], list[str], list[Any]]:
    """The per-topic values of the measures (``-m`` or the task's) on every assessed topic, a
    topic without results scoring 0, as ``inexeval compare`` evaluates them."""
    from inexeval.commands.compare import evaluate_for_comparison

    return evaluate_for_comparison(args, args.measure)


def _per_topic(args: argparse.Namespace) -> Any:
    from inexeval.analysis.compare import compare_results
    from inexeval.commands.compare import baseline_name
    from inexeval.report import plots
    from inexeval.report.html import main_measure, topic_differences

    results, names, topics, runs = _evaluated(args)
    measure = main_measure(names)
    comparison = compare_results(results, [measure], topics=topics,
                                 baseline=baseline_name(args.baseline, runs, args.runs))
    baseline = str(comparison.baseline)
    others = [r for r in comparison.runs if r != baseline]
    differences = [topic_differences(comparison.per_topic[measure], other, baseline)
                   for other in others]
    fig, axes = plots.figure(len(others), width=max(7.0, 0.12 * len(topics)), share_y=True)
    for ax, other, by_topic in zip(axes, others, differences):
        plots.per_topic_differences(ax, by_topic, run=other, baseline=baseline, measure=measure,
                                    reach=plots.difference_reach(differences), rule="all",
                                    n_topics=len(topics))
    return fig


def _scatter(args: argparse.Namespace) -> Any:
    from inexeval.analysis.agreement import ranking_agreement
    from inexeval.analysis.compare import compare_results
    from inexeval.errors import InexevalError
    from inexeval.report import plots

    if len(args.measure) != 2:
        raise InexevalError("a scatter plot is of two measures: give two -m, not "
                            f"{len(args.measure)}")
    results, names, topics, _ = _evaluated(args)
    means = compare_results(results, names, topics=topics).means
    runs = [r for r in means[names[0]]
            if means[names[0]][r] is not None and means[names[1]][r] is not None]
    a = [float(means[names[0]][r] or 0.0) for r in runs]
    b = [float(means[names[1]][r] or 0.0) for r in runs]
    fit = ranking_agreement(a, b, names[0], names[1])
    fig, (ax,) = plots.figure(width=9.0)
    plots.scatter(ax, a, b, runs, measure_a=names[0], measure_b=names[1], slope=fit.slope,
                  intercept=fit.intercept, tau=fit.kendall_tau, rule="all",
                  n_topics=len(topics))
    return fig


def _box(args: argparse.Namespace) -> Any:
    from inexeval.analysis.compare import per_topic_values
    from inexeval.report import plots
    from inexeval.report.html import main_measure

    results, names, topics, runs = _evaluated(args)
    measure = main_measure(names)
    values = per_topic_values(results, [measure], [r.name for r in runs], topics)[measure]
    fig, (ax,) = plots.figure()
    plots.box(ax, {run: [v for v in by_topic.values() if v is not None]
                   for run, by_topic in values.items()}, measure=measure, rule="all",
              n_topics=len(topics))
    return fig
