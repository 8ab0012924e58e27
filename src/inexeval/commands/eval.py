"""``inexeval eval``: evaluate runs against assessments and print trec_eval-style results."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inexeval.cli import non_negative, positive

NAME = "eval"
HELP = "evaluate runs against assessments (trec_eval-style output)"

TASKS = ("focused", "thorough", "relevant-in-context", "best-in-context", "t2i")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("assessments", metavar="ASSESSMENTS",
                        help="assessment file or folder of per-topic files (INEX XML, FOL or "
                        "TREC qrels)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run files")
    parser.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                        help="a measure, e.g. 'P(quant=strict)@10', overlap@10, "
                        "'inex_eval(quant=generalised)' (repeatable; see `inexeval measures`)")
    parser.add_argument("--task", choices=TASKS,
                        help="the official INEX 2007-2010 measure set and run rules of a task")
    parser.add_argument("--collection", metavar="DIR|INDEX",
                        help="the XML documents, or an index saved by `inexeval index`")
    parser.add_argument("--num-docs", type=positive, metavar="N",
                        help="documents in the collection (inex_eval's virtual final rank)")
    parser.add_argument("-q", action="store_true", help="print per-topic values too")
    parser.add_argument("-c", action="store_true",
                        help="average over all assessed topics, a topic without results scoring 0")
    parser.add_argument("--topics", metavar="IDS", help="comma-separated topic ids to evaluate")
    parser.add_argument("--topic-file", metavar="FILE",
                        help="topic file: CAS topics with target elements get no implicit "
                        "assessments")
    parser.add_argument("--implicit", choices=("on", "off"), default="on",
                        help="implicit assessments of ancestors (default on)")
    parser.add_argument("--strict", action="store_true",
                        help="inconsistent highlighting assessments (overlapping passages, rsize "
                        "or sizes that disagree) are an error instead of a warning")
    parser.add_argument("--digits", type=non_negative, default=4, metavar="N", help="decimals printed")
    parser.add_argument("--format", choices=("trec", "csv", "json", "latex", "table", "official"),
                        default="trec", help="output format (default trec; official: the "
                        "official INEX evaluator's layout, with --task)")
    parser.add_argument("--table", action="store_true",
                        help="print runs x measures of the means (same as --format table); with "
                        "--task the task's headline measures (iP[0.00], iP[0.01], iP[0.05], "
                        "iP[0.10], MAiP; gP[5]...MAgP in context) unless -m names others")
    parser.add_argument("--assessments-format", metavar="FORMAT",
                        help="override format detection: inex, fol, trec, genomics (TREC "
                        "Genomics 2007 gold standard)")
    add_run_options(parser, default_order=None)
    parser.add_argument("--limit", type=non_negative, metavar="N",
                        help="results kept per topic (default 1500 for element and document "
                        "runs, 100 for INEX 2002, none for passage runs and TREC qrels; 0: all)")
    parser.add_argument("--navigation", metavar="FILE",
                        help="custom navigation model for nav=custom (rows FROM_FILE FROM_PATH "
                        "TO_FILE TO_PATH PROBABILITY)")
    parser.add_argument("--ideal-run", metavar="RUN",
                        help="the ideal list for ideal_list=given (EPRUM, PRUM, T2I)")
    passage = parser.add_argument_group("passage tasks (--task)")
    passage.add_argument("--beta", type=float, default=0.25,
                         help="relevant-in-context: weight of recall in the F-score (0.25)")
    passage.add_argument("--bep-n", type=positive, default=500,
                         help="best-in-context: BEP distance limit in characters (500)")
    passage.add_argument("--irr", type=non_negative, default=300,
                         help="t2i: tolerance to irrelevance in characters (300)")
    passage.add_argument("--exact-buckets", action="store_true",
                         help="focused/thorough: recall buckets in exact arithmetic instead of "
                         "the official tool's floor(100*R) in doubles")


def add_run_options(parser: argparse.ArgumentParser, default_order: str | None = "rank") -> None:
    """The options that say how runs are read and ordered (``eval``, ``pool``). ``eval`` has no
    fixed default order (None): document runs on TREC qrels are ordered as trec_eval orders them."""
    parser.add_argument("--run-format", metavar="FORMAT",
                        help="override format detection: xml (INEX submission), trec, fol")
    by_qrels = "; document runs on TREC qrels: trec_eval" if default_order is None else ""
    parser.add_argument("--order", choices=("rank", "score", "file", "trec_eval"),
                        default=default_order,
                        help="result order: rank if every result has one, else score, else file "
                        f"order (the default{by_qrels}); or by score, file order only, or "
                        "trec_eval's (score descending, ties by document id descending)")
    parser.add_argument("--keep-repeats", action="store_true",
                        help="keep a result repeated in a topic (the randomised runs of "
                        "Piwowarski and Dupret 2006); by default only its first occurrence "
                        "counts, as in INEX 2002")


def _assessments(args: argparse.Namespace, collection: Any) -> Any:
    from inexeval.formats.detect import load_assessments

    assessments = load_assessments(args.assessments, args.assessments_format)
    if args.topics is not None:
        from inexeval.errors import warn

        unknown = sorted(_selected(args) - set(assessments))
        if unknown:
            warn(f"--topics names topic(s) without assessments: {', '.join(unknown)}",
                 args.assessments)
        assessments = assessments.select(_selected(args))
    if assessments.scale == "inex2005":
        from inexeval.collection.implicit import resolve_passages
        from inexeval.measures.hixeval import validate_highlighting

        for ta in assessments.values():
            as_given = ta if collection is None or not ta.passages else resolve_passages(
                ta, collection, merge=False)
            validate_highlighting(as_given, collection, strict=args.strict)
    if assessments.scale in ("inex2002", "inex2003", "inex2005"):
        from inexeval.evaluation import with_implicit

        targets: set[str] = set()
        if args.topic_file:
            from inexeval.formats.topics import read_topics

            targets = {t for t, topic in read_topics(args.topic_file).items()
                       if topic.target_elements}
        assessments = with_implicit(assessments, skip=targets, collection=collection,
                                    implicit=args.implicit == "on")
    return assessments


def _selected(args: argparse.Namespace) -> set[str]:
    return {t.strip() for t in args.topics.split(",") if t.strip()}


# Options of element evaluation that the official passage tasks do not use (the official
# evaluator's rules: file order, no limit, FOL qrels).
_NOT_FOR_TASKS = (("limit", None), ("order", None), ("keep_repeats", False),
                  ("num_docs", None), ("collection", None), ("implicit", "on"),
                  ("strict", False), ("topic_file", None), ("navigation", None),
                  ("ideal_run", None))


def run(args: argparse.Namespace) -> int:
    from inexeval.errors import InexevalError
    from inexeval.evaluation import Evaluator
    from inexeval.formats.detect import load_run
    from inexeval.report import render

    if args.measure:
        from inexeval.measures.registry import parse_measures

        parse_measures(args.measure)
    for path in [args.assessments, *args.runs, *([args.collection] if args.collection else [])]:
        if not Path(path).exists():
            raise InexevalError("no such file or folder", path)
    collection = None
    if args.collection:
        from inexeval.collection.build import load_collection

        collection = load_collection(args.collection)
    assessments = _assessments(args, collection)
    runs = [load_run(path, args.run_format, args.keep_repeats) for path in args.runs]
    if args.topics is not None:
        from dataclasses import replace

        runs = [replace(r, topics={t: tr for t, tr in r.items() if t in _selected(args)})
                for r in runs]
    _unique_names(runs)
    fmt = "table" if args.table else args.format
    if not args.measure and not args.task:
        from inexeval.defaults import default_measures

        args.task, args.measure = default_measures(
            assessments.scale, passage_runs=all(r.kind == "passage" for r in runs),
            collection=collection is not None)
    if fmt == "official" and not args.task:
        raise InexevalError("--format official goes with --task")
    if args.task:
        from inexeval.errors import warn
        from inexeval.measures.focused import evaluate_task

        unused = ["--" + name.replace("_", "-") for name, default in _NOT_FOR_TASKS
                  if getattr(args, name) != default]
        if unused:
            warn(f"{', '.join(unused)} not used by --task (the official evaluator's rules: "
                 "file order, no limit, FOL qrels)")

        results = evaluate_task(assessments, runs, args.task, complete=args.c, per_topic=args.q,
                                beta=args.beta, bep_n=args.bep_n, irr=args.irr,
                                exact_buckets=args.exact_buckets)
        if fmt == "table":
            from inexeval.defaults import table_measures

            args.measure = table_measures(args.task, args.measure)
        if args.measure:
            results = _only(results, args.measure)
        if fmt == "official":
            from inexeval.report.official import render_official

            sys.stdout.write(render_official(results, runs, args.runs, list(assessments),
                                             per_topic=args.q))
            return 0
    else:
        measures = args.measure
        options: dict[str, Any] = {}
        if args.navigation:
            from inexeval.measures.navigation import read_navigation

            options["navigation"] = read_navigation(args.navigation)
        if args.ideal_run:
            options["ideal_run"] = load_run(args.ideal_run, args.run_format)
        evaluator = Evaluator(measures, assessments, collection=collection,
                              num_docs=args.num_docs, complete=args.c, order=args.order,
                              limit=args.limit, keep_repeats=args.keep_repeats,
                              options=options)
        results = evaluator.evaluate(runs)
    sys.stdout.write(render(results, fmt, digits=args.digits, per_topic=args.q))
    return 0


def _only(results: Any, measures: list[str]) -> Any:
    """Keep the official task's lines of the measures asked for with ``-m`` (``iP@0.01`` and
    ``iP[0.01]`` are one measure; ``MAiP`` also keeps the per-topic ``AiP``, ``MAgP`` ``AgP``)."""
    from dataclasses import replace

    from inexeval.errors import MeasureError
    from inexeval.measures.registry import parse_measures

    asked = [str(m) for m in parse_measures(measures)]
    wanted = set(asked) | {name[1:] for name in asked if name in ("MAiP", "MAgP")}
    offered = {r.measure for r in results.rows + results.overall}
    missing = [name for name in asked if name not in offered]
    if missing:
        shown = sorted(m for m in offered - {"num_q"} if not m.startswith("ircl_prn."))
        raise MeasureError(f"not in the measure set of this task: {', '.join(missing)} (it has "
                           f"{', '.join(shown)}, ircl_prn.0.00 ... ircl_prn.1.00; without --task, "
                           "-m computes any measure)")
    return replace(results, rows=[r for r in results.rows if r.measure in wanted],
                   overall=[r for r in results.overall if r.measure in wanted | {"num_q"}])


def _unique_names(runs: list[Any]) -> None:
    """Several runs with one run-id would be indistinguishable: name them by file instead, by
    the fewest trailing path parts that tell the files apart (so that a table stays narrow)."""
    names = [r.name for r in runs]
    if len(set(names)) < len(names):
        from dataclasses import replace

        parts = [Path(str(r.source or r.name)).parts for r in runs]
        depth = next((d for d in range(1, max(map(len, parts)) + 1)
                      if len({p[-d:] for p in parts}) == len(set(parts))), None)
        for i, r in enumerate(runs):
            runs[i] = replace(r, name=str(Path(*parts[i][-depth:])) if depth else r.name)
