"""``inexeval agree``: how alike measures (or assessments) rank systems, and how alike two
assessors judge."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from inexeval.errors import InexevalError

NAME = "agree"
HELP = ("agreement of measures (Kendall, tau_AP, Spearman, Pearson over run means) or of two "
        "assessments (--assessments-b, --judgements)")

FORMATS = ("table", "markdown", "latex", "csv", "json")
JUDGEMENT_OPTIONS = {"judgements", "assessments_format", "collection", "format", "output",
                     "digits"}
"""The options ``--judgements`` uses (no runs, no measures)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.cli_args import add_complete_argument, add_input_arguments, add_output_arguments

    add_input_arguments(parser, required=False)
    add_complete_argument(parser, "any")
    parser.add_argument("--assessments-b", metavar="FILE",
                        help="a second set of assessments of the same topics: agreement of each "
                        "measure's ranking of the runs under ASSESSMENTS and under FILE")
    parser.add_argument("--judgements", nargs=2, metavar=("A", "B"),
                        help="agreement of two assessments of the same topics, per topic and "
                        "overall (no runs): Cohen's kappa on relevant articles ('undefined' "
                        "when both put every article in one category), character "
                        "precision/recall/F1/Jaccard of the highlighting, element kappa per "
                        "relevance dimension, confusion matrices; with --collection, INEX "
                        "2005-2008 highlighted passages are compared character by character")
    add_output_arguments(parser, FORMATS)


def run(args: argparse.Namespace) -> int:
    from inexeval.cli_args import write

    if args.judgements:
        if args.assessments is not None or args.runs:
            raise InexevalError("--judgements A B takes no other assessments or runs")
        from inexeval.options import check_unused

        defaults = argparse.ArgumentParser()
        add_arguments(defaults)
        check_unused(args, vars(defaults.parse_args([])), JUDGEMENT_OPTIONS, "--judgements")
        text = _judgements(args)
        write(args, text, *args.judgements)
        return 0
    if args.assessments is None or not args.runs:
        raise InexevalError("give ASSESSMENTS and RUN files (or --judgements A B)")
    if len(args.runs) < 2:
        raise InexevalError(f"agreement of rankings needs at least two runs, not "
                            f"{len(args.runs)}")
    if args.output is not None:
        from inexeval.outputs import check_output

        check_output(args.output, args.assessments, args.assessments_b, *args.runs,
                     args.collection)
    text = _measures(args)
    write(args, text, args.assessments, args.assessments_b, *args.runs, args.collection)
    return 0


def _measures(args: argparse.Namespace) -> str:
    from inexeval.analysis.agreement import AGREEMENT_COLUMNS
    from inexeval.cli_args import experiment
    from inexeval.report.comparison import render_rows

    study = experiment(args)
    sys.stderr.write(study.note)
    rule = "all" if args.c else "any"
    study.rule = rule
    evaluation = study.evaluate(rule)
    if args.assessments_b is None:
        rows = study.agree(evaluation=evaluation)
        title = (f"agreement of the measures' rankings of {len(args.runs)} runs "
                 f"({evaluation.describe()}); tau_AP with measure_a's ranking as the truth")
    else:
        other = experiment(args, assessments=args.assessments_b)
        other.rule = rule
        rows = study.agree(other, evaluation=evaluation)
        title = (f"agreement of the rankings of {len(args.runs)} runs under assessments A "
                 f"({args.assessments}) and B ({args.assessments_b}); "
                 f"{evaluation.describe()}; tau_AP with A as the truth")
    return render_rows(AGREEMENT_COLUMNS, typed(rows, study.labels), args.format, args.digits,
                       title)


def typed(rows: list[Any], labels: dict[str, str]) -> list[Any]:
    """The rows with their measures named as they were asked for (``map``, not ``AP``: the
    experiment's labels, as compare prints them); ``AP [A]`` becomes ``map [A]``."""
    def name(measure: str) -> str:
        base, space, side = measure.partition(" [")
        return labels.get(base, base) + space + side

    return [row._replace(measure_a=name(row.measure_a), measure_b=name(row.measure_b))
            for row in rows]


def _judgements(args: argparse.Namespace) -> str:
    from inexeval.analysis.agreement import judgement_agreement
    from inexeval.formats.detect import load_assessments
    from inexeval.report.comparison import render_judgements

    first, second = (load_assessments(path, args.assessments_format) for path in args.judgements)
    if args.collection:
        from inexeval.collection.build import load_collection
        from inexeval.evaluation import with_implicit

        # INEX 2005-2008 highlighted passages become character spans (no implicit judgements)
        collection = load_collection(args.collection)
        first, second = (with_implicit(a, collection=collection, implicit=False)
                         for a in (first, second))
    rows = judgement_agreement(first, second)
    topics = len(rows) - 1
    title = (f"agreement of B ({args.judgements[1]}) with A ({args.judgements[0]}) on "
             f"{topics} topic{'' if topics == 1 else 's'}")
    return render_judgements(rows, args.format, args.digits, title)

