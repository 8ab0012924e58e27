"""``inexeval eval``: evaluate runs against assessments and print trec_eval-style results."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from inexeval.cli import digits, positive
from inexeval.cli_args import add_complete_argument, add_input_arguments

NAME = "eval"
HELP = "evaluate runs against assessments (trec_eval-style output)"

FORMATS = ("trec", "csv", "json", "latex", "table", "official", "scores", "trec_eval")
"""Output formats of ``eval`` (:func:`_report` prints each)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("-q", action="store_true", help="print per-topic values too")
    parser.add_argument("-l", type=int, default=1, metavar="LEVEL",
                        help="TREC qrels: the lowest level counted as relevant by every "
                        "document measure that does not give rel= (trec_eval's -l; default 1)")
    add_complete_argument(parser, "answered")
    parser.add_argument("--digits", type=digits, default=4, metavar="N", help="decimals printed")
    parser.add_argument("--format", choices=FORMATS,
                        default="trec", help="output format (default trec; official: the "
                        "official INEX evaluator's layout, with --task; scores: every "
                        "per-topic value at full precision, for inexeval meta --scores; "
                        "trec_eval: trec_eval's layout, as inexeval trec_eval prints it, "
                        "each run's block opening with its runid line when there are several)")
    parser.add_argument("-Z", metavar="ZSCORES_FILE",
                        help="with --format trec_eval on TREC qrels: every value printed as a "
                        "z-score, as trec_eval's -Z (lines of ZSCORES_FILE: topic measure "
                        "mean sd; -1000000 where it lacks them)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the output to FILE (atomically, never over an input; "
                        "said on stderr)")
    parser.add_argument("--table", action="store_true",
                        help="print runs x measures of the means (same as --format table); with "
                        "--task the task's headline measures (iP[0.00], iP[0.01], iP[0.05], "
                        "iP[0.10], MAiP; gP[5]...MAgP in context) unless -m names others")
    parser.add_argument("--jobs", type=positive, default=1, metavar="N",
                        help="evaluate runs in N processes (same output, same order; default 1)")
    parser.add_argument("--bioasq-version", type=int, choices=(2, 3, 5, 8, 9), metavar="E",
                        help="BioASQ JSON files: the version of BioASQ's evaluator (its -e: 2, "
                        "3, 5, 8 or 9; default 8)")


def run(args: argparse.Namespace) -> int:
    from inexeval.allocator import keep_freed_memory
    from inexeval.cli_args import experiment
    from inexeval.errors import InexevalError
    from inexeval.formats.probes import is_questions_csv
    from inexeval.options import check_eval_options

    if args.Z is not None:
        _check_z(args)
    if is_questions_csv(args.assessments):
        from inexeval.evaluation_spans import eval_span_runs

        return eval_span_runs(args)
    keep_freed_memory()
    check_eval_options(args)
    from inexeval.formats.probes import looks_like_bioasq

    if looks_like_bioasq(args.assessments):
        from inexeval.evaluation_bioasq import bioasq_study

        bioasq = bioasq_study(args, per_question=args.format == "scores")
        return _report(args, "table" if args.table else args.format, bioasq,
                       bioasq.outcomes(complete=args.c), names_ahead=False)
    if args.bioasq_version is not None:
        raise InexevalError("--bioasq-version goes with BioASQ JSON files (GOLD.json "
                            "SYSTEM.json)", args.assessments)
    fmt = "table" if args.table else args.format
    labels = _trec_eval_names(args)
    if args.Z is not None:
        from inexeval.formats.trec_zscores import read_zscores

        args.zscores = read_zscores(args.Z)
    from inexeval.evaluation_trec_eval import trec_eval_study

    # TREC qrels and runs, trec_eval's measures: its reader and kernels (the same output)
    study: Any = trec_eval_study(args, fmt)
    if study is not None and args.output is not None:
        study = study.settled()  # the qrels' problems told before the output's
    if study is None:
        study = experiment(args)
    if fmt == "official" and not study.task:
        raise InexevalError("--format official goes with --task")
    inputs = (args.assessments, *args.runs, *([args.Z] if args.Z is not None else []))
    if args.output is not None:
        from inexeval.outputs import check_output

        check_output(args.output, *inputs)  # never over an input, told before any work
    if study.task and fmt == "table":
        from inexeval.defaults import table_measures

        study.measures = table_measures(study.task, [] if study.default_task else study.measures)
    # -Z: every topic's value is needed to average the z-scores
    outcomes = study.outcomes(complete=args.c, per_topic=args.q or args.Z is not None,
                              official=fmt == "official")
    if args.output is None or fmt == "scores":
        code = _report(args, fmt, study, outcomes, labels)
        if args.output is not None:
            from inexeval.outputs import wrote

            wrote(args.output)
        return code
    import contextlib
    import io

    from inexeval.cli_args import write

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = _report(args, fmt, study, outcomes, labels)
    write(args, printed.getvalue(), *inputs)
    return code


def _check_z(args: argparse.Namespace) -> None:
    """``-Z`` goes with trec_eval's layout on TREC qrels (told before any reading: qrels on
    the standard input are not read here, their format is told when they are read)."""
    from inexeval.errors import InexevalError

    fmt = args.assessments_format
    if fmt is None and args.assessments != "-":
        from inexeval.formats.probes import is_questions_csv, looks_like_bioasq

        if is_questions_csv(args.assessments) or looks_like_bioasq(args.assessments):
            fmt = "spans"  # questions with their excerpts (Chroma's CSV, BioASQ's JSON)
        else:
            from inexeval.formats.detect import detect_assessments_format

            fmt = detect_assessments_format(args.assessments)
    if args.format != "trec_eval" or args.table or args.task or fmt not in (None, "trec"):
        raise InexevalError("-Z (z-scores) goes with --format trec_eval on TREC qrels")


def _trec_eval_names(args: argparse.Namespace) -> dict[str, str]:
    """On TREC qrels, ``-m`` arguments in trec_eval's names (``map``, ``P.5,10``) made the
    registry's (``args.measure`` rewritten), and the names to print them under
    (:func:`~inexeval.measures.trec_names.trec_eval_requests`); elsewhere nothing changes."""
    from inexeval.errors import InexevalError

    fmt = args.assessments_format
    if fmt is None and args.assessments != "-" and not args.task:
        from inexeval.formats.detect import detect_assessments_format

        try:
            fmt = detect_assessments_format(args.assessments)
        except InexevalError:
            fmt = "unknown"  # told when the assessments are read
    # sampled qrels (NIST's, TREC's documents): the names as typed, as compare prints them
    # there, but no -l and no default measures of trec_eval's (not the inferred ones)
    sampled = fmt == "sampled" and bool(args.measure) and args.l == 1
    if args.task or (fmt not in (None, "trec") and not sampled):
        if args.l != 1 and fmt != "unknown":
            raise InexevalError("-l (the lowest relevant level) goes with TREC qrels; give "
                                "other assessments' measures a quantisation (quant=)")
        return {}
    if not args.measure:
        if args.l == 1 and args.format != "trec_eval":
            return {}
        from inexeval.defaults import DOCUMENT

        # trec_eval's layout: trec_eval's default measures, as inexeval trec_eval prints them
        args.measure = ["official"] if args.format == "trec_eval" else list(DOCUMENT)
    from inexeval.measures.trec_names import trec_eval_requests

    requests = trec_eval_requests(args.measure, args.l)
    args.measure = requests.measures
    args.runid = "runid" in requests.extras
    args.num_q = "num_q" in requests.extras
    if not args.measure and requests.extras:
        # -m runid or -m num_q alone: trec_eval prints those lines alone (not eval's default
        # measures); num_ret is computed for the run's name and topics, and not printed
        args.measure = ["num_ret"]
        args.unprinted = "num_ret"
    return requests.labels


def _report(args: argparse.Namespace, fmt: str, study: Any, outcomes: Iterator[Any],
            labels: dict[str, str] | None = None, names_ahead: bool = True) -> int:
    """Print each run's warnings and results as it comes (trec, csv, official; the other formats
    at the end); a run that failed is reported and the others still printed. Exit code 2 if any
    failed. Runs sharing a run-id are named ``run-id (file)`` (:func:`distinct_names`), which
    needs every run's name before the first is printed: trec and csv results are printed as
    they come when the names can be read ahead (:func:`peek_run_name`), else at the end. The
    number of topics and the averaging rule end the output, on stderr. ``labels``: measures
    printed under other names (trec_eval's, as typed), in every format but ``scores``;
    ``names_ahead`` False: the outcomes' names are final (printed as they come)."""
    import warnings

    from inexeval.report.text import render, render_csv, render_trec
    from inexeval.results import named, together

    several = len(args.runs) > 1
    ahead = _names_ahead(args) if names_ahead and several and fmt in ("trec", "csv") else {}
    held: list[tuple[str, Any]] = []
    printed = failed = 0
    answered: set[str] = set()
    answered_by: list[list[str]] = []  # of each run held, in order (the scores' answered)
    noted = False
    for outcome in outcomes:
        if outcome.error is None and not noted:
            # the study's note read once a run is done (trec_eval's study may have gone the
            # general way when it read the qrels)
            sys.stderr.write(study.note)
            noted = True
        for message in outcome.warnings:
            warnings.warn(message, stacklevel=1)
        if outcome.error is not None:
            print(f"inexeval: error: {outcome.error}", file=sys.stderr)
            failed += 1
            continue
        answered.update(outcome.answered)
        results = outcome.results
        unprinted = getattr(args, "unprinted", None)
        if unprinted is not None:  # (-m runid or -m num_q alone)
            from dataclasses import replace

            results = replace(results, rows=[r for r in results.rows if r.measure != unprinted],
                              overall=[r for r in results.overall if r.measure != unprinted])
        if labels and fmt != "scores":
            results = results.relabelled(labels)
        if fmt == "official":
            sys.stdout.write(outcome.official)
        elif fmt in ("trec", "csv") and ahead is not None:
            results = named(results, ahead.get(outcome.source, results.runs()[0]))
            sys.stdout.write(render_trec(results, args.digits, args.q, run_column=several)
                             if fmt == "trec" else
                             render_csv(results, args.digits, args.q, header=printed == 0))
            printed += 1
        else:
            held.append((outcome.source, results))
            answered_by.append(list(outcome.answered))
            continue
        sys.stdout.flush()
    if held or fmt not in ("official", "trec", "csv"):
        merged = together(held)
        if fmt == "trec":
            sys.stdout.write(render_trec(merged, args.digits, args.q, run_column=several))
        elif fmt == "csv":
            sys.stdout.write(render_csv(merged, args.digits, args.q))
        elif fmt == "scores":
            from inexeval.formats.scores import write_results

            write_results(merged, args.c, args.output, args.assessments, *args.runs,
                          answered=dict(zip(merged.runs(), answered_by)))
        elif fmt == "trec_eval":
            from inexeval.report.trec_eval import render_trec_eval

            sys.stdout.write(render_trec_eval(merged, per_topic=args.q,
                                              runid=getattr(args, "runid", False),
                                              num_q=getattr(args, "num_q", True),
                                              zscores=getattr(args, "zscores", None)))
        else:
            sys.stdout.write(render(merged, fmt, digits=args.digits, per_topic=args.q,
                                    terminal=sys.stdout.isatty(),
                                    rule="all" if args.c else "answered"))
    if failed < len(args.runs):
        _say_rule(study, args.c, answered)
    if failed:
        if several:  # one run: its own error line says it all
            print(f"inexeval: error: {failed} of {len(args.runs)} runs could not be evaluated",
                  file=sys.stderr)
        return 2
    return 0


def _say_rule(study: Any, complete: bool, answered: set[str]) -> None:
    """The number of topics and the averaging rule, once, on stderr (and the warning when the
    runs answer fewer than half the assessed topics)."""
    from inexeval.outputs import note
    from inexeval.scores import describe_rule

    sys.stdout.flush()
    study.warn_coverage(answered)
    topics = len(study.assessments) if complete else len(answered)
    note(describe_rule("all" if complete else "answered", topics))


def _names_ahead(args: argparse.Namespace) -> dict[str, str] | None:
    """Each run file's name (:func:`distinct_names`) read before the runs are evaluated, or
    None when some run's name cannot be read ahead (standard input, a pipe, a compressed FOL
    run, a file that cannot be read)."""
    from inexeval.formats.detect import peek_run_name
    from inexeval.model.run import distinct_names

    names = [peek_run_name(path, args.run_format) for path in args.runs]
    if None in names:
        return None
    return dict(zip(args.runs, distinct_names([str(n) for n in names], args.runs)))
