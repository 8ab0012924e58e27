"""``inexeval eval``: evaluate runs against assessments and print trec_eval-style results."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inexeval.cli import digits, non_negative, positive, topic_ids

NAME = "eval"
HELP = "evaluate runs against assessments (trec_eval-style output)"

TASKS = ("focused", "thorough", "relevant-in-context", "best-in-context", "t2i")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("-q", action="store_true", help="print per-topic values too")
    parser.add_argument("-c", action="store_true",
                        help="average over all assessed topics, a topic without results scoring 0")
    parser.add_argument("--digits", type=digits, default=4, metavar="N", help="decimals printed")
    parser.add_argument("--format", choices=("trec", "csv", "json", "latex", "table", "official",
                                             "scores"),
                        default="trec", help="output format (default trec; official: the "
                        "official INEX evaluator's layout, with --task; scores: every "
                        "per-topic value at full precision, for inexeval meta --scores)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="with --format scores: write to FILE (atomically)")
    parser.add_argument("--table", action="store_true",
                        help="print runs x measures of the means (same as --format table); with "
                        "--task the task's headline measures (iP[0.00], iP[0.01], iP[0.05], "
                        "iP[0.10], MAiP; gP[5]...MAgP in context) unless -m names others")
    parser.add_argument("--jobs", type=positive, default=1, metavar="N",
                        help="evaluate runs in N processes (same output, same order; default 1)")


def add_input_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """The inputs of an evaluation, shared by ``eval``, ``compare`` and ``agree`` (whose
    ``--judgements`` needs no runs: ``required`` False)."""
    parser.add_argument("assessments", metavar="ASSESSMENTS", nargs=None if required else "?",
                        help="assessment file or folder of per-topic files (INEX XML, FOL or "
                        "TREC qrels)")
    parser.add_argument("runs", metavar="RUN", nargs="+" if required else "*", help="run files")
    parser.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                        help="a measure, e.g. 'P(quant=strict)@10', overlap@10, "
                        "'inex_eval(quant=generalised)' (repeatable; see `inexeval measures`)")
    parser.add_argument("--task", choices=TASKS,
                        help="the official INEX 2007-2010 measure set and run rules of a task")
    parser.add_argument("--collection", metavar="DIR|INDEX",
                        help="the XML documents, or an index saved by `inexeval index`")
    parser.add_argument("--num-docs", type=positive, metavar="N",
                        help="documents in the collection (inex_eval's virtual final rank)")
    parser.add_argument("--topics", type=topic_ids, metavar="IDS",
                        help="comma-separated topic ids to evaluate")
    parser.add_argument("--topic-file", metavar="FILE",
                        help="topic file of INEX 2002-2005 XML assessments: CAS topics with "
                        "target elements get no implicit assessments")
    parser.add_argument("--implicit", choices=("on", "off"), default="on",
                        help="implicit assessments of ancestors (default on)")
    parser.add_argument("--strict", action="store_true",
                        help="inconsistent highlighting assessments (overlapping passages, rsize "
                        "or sizes that disagree) are an error instead of a warning")
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
    from inexeval.options import check_assessed_elements, check_topic_file, check_topics

    assessments = load_assessments(args.assessments, args.assessments_format)
    check_topic_file(args.topic_file, assessments)
    if collection is not None and assessments.scale != "fol":
        check_assessed_elements(assessments, collection)
    if args.topics is not None:
        check_topics(_selected(args), assessments)
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
# evaluator's rules: file order, no limit, FOL qrels; the collection turns element runs into
# passages).
_NOT_FOR_TASKS = (("limit", None), ("order", None), ("keep_repeats", False),
                  ("num_docs", None), ("implicit", "on"),
                  ("strict", False), ("topic_file", None), ("navigation", None),
                  ("ideal_run", None))


def load_inputs(args: argparse.Namespace) -> tuple[Any, list[Any], Any]:
    """The assessments, runs and collection of :func:`add_input_arguments`, read and checked as
    ``eval`` reads them (the measures are checked first, before any file is read)."""
    from inexeval.options import check_task_options

    check_task_options(args)
    assessments, collection = _assessments_and_collection(args)
    runs = [_run(args, path, assessments) for path in args.runs]
    _unique_names(runs)
    return assessments, runs, collection


def _assessments_and_collection(args: argparse.Namespace) -> tuple[Any, Any]:
    """The measures checked and the runs named once each, before any file is read; then the
    collection and the assessments, read and checked."""
    from inexeval.options import check_given_once

    if args.measure:
        from inexeval.measures.registry import parse_measures

        parse_measures(args.measure)
    check_given_once(args.runs)
    collection = None
    if args.collection:
        from inexeval.collection.build import load_collection

        collection = load_collection(args.collection)
    return _assessments(args, collection), collection


def _run(args: argparse.Namespace, path: str, assessments: Any) -> Any:
    """One run read, cut to ``--topics`` and checked against the assessments."""
    from inexeval.formats.detect import load_run
    from inexeval.options import check_run

    run = _chosen_topics(args, load_run(path, args.run_format, args.keep_repeats))
    check_run(run, assessments, args.num_docs)
    return run


def _chosen_topics(args: argparse.Namespace, run: Any) -> Any:
    """The run (or a part of it) cut to ``--topics``."""
    if args.topics is None:
        return run
    from dataclasses import replace

    chosen = _selected(args)
    return replace(run, topics={t: tr for t, tr in run.items() if t in chosen})


def task_options(args: argparse.Namespace, warn_unused: bool = True) -> dict[str, Any]:
    """The keyword options of :func:`inexeval.measures.focused.evaluate_task` given on the
    command line; an element option a task does not use is an error (``warn_unused``), as every
    option that would be silently ignored."""
    if warn_unused:
        from inexeval.options import check_unused

        chosen = ("--task" if not getattr(args, "default_task", False) else
                  f"the default measures (the {args.task} task's; name others with -m)")
        check_unused(args, dict(_NOT_FOR_TASKS), set(), f"{chosen}, which follows the official "
                     "evaluator's rules (file order, no limit, FOL qrels)")
    return {"beta": args.beta, "bep_n": args.bep_n, "irr": args.irr,
            "exact_buckets": args.exact_buckets}


def evaluator_options(args: argparse.Namespace, collection: Any) -> dict[str, Any]:
    """The keyword options of :class:`inexeval.evaluation.Evaluator` given on the command line
    (``complete`` and the measures aside)."""
    from inexeval.formats.detect import load_run

    options: dict[str, Any] = {}
    if args.navigation:
        from inexeval.measures.navigation import read_navigation

        options["navigation"] = read_navigation(args.navigation)
    if args.ideal_run:
        options["ideal_run"] = load_run(args.ideal_run, args.run_format)
    return {"collection": collection, "num_docs": args.num_docs, "order": args.order,
            "limit": args.limit, "keep_repeats": args.keep_repeats, "options": options}


def run(args: argparse.Namespace) -> int:
    from inexeval.errors import InexevalError
    from inexeval.options import check_eval_options

    check_eval_options(args)
    fmt = "table" if args.table else args.format
    assessments, collection = _assessments_and_collection(args)
    args.note = ""
    if not args.measure and not args.task:
        import io

        from inexeval.defaults import default_measures

        # announced with the first results: a command that fails says one thing, its error
        note = io.StringIO()
        args.task, args.measure = default_measures(
            assessments.scale, passage_runs=_passage_runs(args), collection=collection is not None,
            stream=note)
        args.note = note.getvalue()
        args.default_task = args.task is not None
    if fmt == "official" and not args.task:
        raise InexevalError("--format official goes with --task")
    if args.output is not None and fmt != "scores":
        raise InexevalError("-o goes with --format scores")
    if args.task and fmt == "table":
        from inexeval.defaults import table_measures

        args.measure = table_measures(args.task, args.measure)
    job = _Job(args, fmt, assessments, _evaluator(args, assessments, collection), collection)
    return _report(args, fmt, _outcomes(job, args.runs, args.jobs))


def _passage_runs(args: argparse.Namespace) -> bool:
    """Whether the runs are scored as passages on FOL qrels (FOL runs, and element runs, which
    are turned into passages), to choose the default measures before any run is read: only a
    regular file whose first line is a document run's says no. Standard input, pipes and files
    that cannot be read are not looked at (a pipe is read once, by the run's reader; an
    unreadable run is reported with the runs)."""
    from inexeval.errors import InexevalError
    from inexeval.formats.detect import detect_run_kind

    def fol(path: str) -> bool:
        if path == "-" or not Path(path).is_file():
            return args.run_format in (None, "fol")
        try:
            return detect_run_kind(path, args.run_format) != "document"
        except (InexevalError, OSError):
            return True

    return all(fol(path) for path in args.runs)


def _evaluator(args: argparse.Namespace, assessments: Any, collection: Any) -> Any:
    """What evaluates one run: the element measures bound once (an :class:`Evaluator`), or None
    for an official task."""
    if args.task:
        task_options(args)  # refuses the options a task does not use
        return None
    from inexeval.evaluation import Evaluator

    return Evaluator(args.measure, assessments, complete=args.c,
                     **evaluator_options(args, collection))


@dataclass
class _Job:
    """Everything needed to evaluate one more run (shared by the worker processes)."""

    args: argparse.Namespace
    fmt: str
    assessments: Any
    evaluator: Any
    collection: Any = None


@dataclass
class _Outcome:
    """One run evaluated: its results (and official text), the warnings it raised, or the error
    (about the run) that stopped it."""

    path: str
    results: Any = None
    official: str = ""
    warnings: list[Warning | str] = field(default_factory=list)
    error: str | None = None


def _evaluate(job: _Job, path: str) -> _Outcome:
    """Read, evaluate and release one run (a FOL or TREC run in a file a group of topics at a
    time: memory bounded by a part, not by the run); its warnings are kept to be printed in run
    order."""
    import warnings

    from inexeval.errors import InexevalError

    args = job.args
    outcome = _Outcome(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run = _streamed(job, path, outcome) if args.num_docs is None else None
            if run is None:  # read whole, checked before it is evaluated
                del caught[:]
                run = _run(args, path, job.assessments)
                outcome.results = _results(job, run)
            if job.fmt == "official":
                from inexeval.report.official import render_official

                outcome.official = render_official(outcome.results, [run], [path],
                                                   list(job.assessments), per_topic=args.q)
        except InexevalError as error:
            if error.file is None or Path(error.file) != Path(path):
                raise  # not about this run (a measure, the assessments): stop the command
            outcome.error = str(error)
    outcome.warnings = [w.message for w in caught]
    return outcome


def _streamed(job: _Job, path: str, outcome: _Outcome) -> Any:
    """Evaluate the run at ``path`` a part at a time (:func:`inexeval.formats.detect.run_parts`),
    cut to ``--topics``; the run (without its results) if that could be done, else None: a topic
    resumes after lines of others (its lines must be grouped), or reading or evaluating it
    failed (:func:`_run` then reads it whole and reports the problem before any warning of
    later lines, as for any run). Standard input and pipes, which cannot be read again, are
    read whole from the start."""
    from inexeval.errors import InexevalError
    from inexeval.formats.detect import run_parts
    from inexeval.formats.source import TopicResumed
    from inexeval.model.run import RunParts
    from inexeval.options import check_run

    args = job.args
    if path == "-" or not Path(path).is_file():
        return None
    parts = run_parts(path, args.run_format, args.keep_repeats)
    streamed = RunParts((_chosen_topics(args, part) for part in parts), path)
    try:
        outcome.results = _results(job, streamed)
        run = streamed.outline()
        check_run(run, job.assessments)
    except (TopicResumed, InexevalError):
        return None
    return run


def _results(job: _Job, run: Any) -> Any:
    """The results of one run (or :class:`inexeval.model.run.RunParts`)."""
    if job.evaluator is not None:
        return job.evaluator.evaluate([run])
    return _task_results(job, run)


def _task_results(job: _Job, run: Any) -> Any:
    from inexeval.measures.focused import evaluate_task

    args = job.args
    results = evaluate_task(job.assessments, [run], args.task, complete=args.c,
                            per_topic=args.q, collection=job.collection,
                            **task_options(args, warn_unused=False))
    return _only(results, args.measure) if args.measure else results


_WORKER_JOB: _Job | None = None


def _start_worker(job: _Job) -> None:
    global _WORKER_JOB
    _WORKER_JOB = job


def _evaluate_in_worker(path: str) -> _Outcome:
    assert _WORKER_JOB is not None
    return _evaluate(_WORKER_JOB, path)


def _outcomes(job: _Job, paths: list[str], jobs: int) -> Iterator[_Outcome]:
    """The runs evaluated one after the other, or by ``jobs`` worker processes (forked, so the
    assessments are shared, not copied), always yielded in the order given."""
    if jobs == 1 or len(paths) == 1 or "-" in paths:  # standard input is the parent's
        for path in paths:
            yield _evaluate(job, path)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(min(jobs, len(paths)), mp_context=context,
                             initializer=_start_worker, initargs=(job,)) as pool:
        yield from pool.map(_evaluate_in_worker, paths)


def _report(args: argparse.Namespace, fmt: str, outcomes: Iterator[_Outcome]) -> int:
    """Print each run's warnings and results as it comes (trec, csv, official; the other formats
    at the end); a run that failed is reported and the others still printed. Exit code 2 if any
    failed. Runs sharing a run-id are named ``run-id (file)`` (:func:`distinct_names`), which
    needs every run's name before the first is printed: trec and csv results are printed as
    they come when the names can be read ahead (:func:`peek_run_name`), else at the end."""
    import warnings

    from inexeval.report.text import render, render_csv, render_trec

    several = len(args.runs) > 1
    ahead = _names_ahead(args) if several and fmt in ("trec", "csv") else {}
    held: list[tuple[str, Any]] = []
    printed = failed = 0
    for outcome in outcomes:
        if outcome.error is None and args.note:
            sys.stderr.write(args.note)
            args.note = ""
        for message in outcome.warnings:
            warnings.warn(message, stacklevel=1)
        if outcome.error is not None:
            print(f"inexeval: error: {outcome.error}", file=sys.stderr)
            failed += 1
            continue
        results = outcome.results
        if fmt == "official":
            sys.stdout.write(outcome.official)
        elif fmt in ("trec", "csv") and ahead is not None:
            results = _named(results, ahead.get(outcome.path, results.runs()[0]))
            sys.stdout.write(render_trec(results, args.digits, args.q, run_column=several)
                             if fmt == "trec" else
                             render_csv(results, args.digits, args.q, header=printed == 0))
            printed += 1
        else:
            held.append((outcome.path, results))
            continue
        sys.stdout.flush()
    if held or fmt not in ("official", "trec", "csv"):
        together = _together(held)
        if fmt == "trec":
            sys.stdout.write(render_trec(together, args.digits, args.q, run_column=several))
        elif fmt == "csv":
            sys.stdout.write(render_csv(together, args.digits, args.q))
        elif fmt == "scores":
            from inexeval.formats.scores import write_results

            write_results(together, args.c, args.output, args.assessments, *args.runs)
        else:
            sys.stdout.write(render(together, fmt, digits=args.digits, per_topic=args.q))
    if failed:
        if several:  # one run: its own error line says it all
            print(f"inexeval: error: {failed} of {len(args.runs)} runs could not be evaluated",
                  file=sys.stderr)
        return 2
    return 0


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


def _together(collected: list[tuple[str, Any]]) -> Any:
    """The results of every run in one table, runs sharing a run-id named ``run-id (file)``
    (:func:`distinct_names`)."""
    from inexeval.model.run import distinct_names
    from inexeval.results import Results

    names = distinct_names([results.runs()[0] if results.runs() else "" for _, results in
                            collected], [path for path, _ in collected])
    together = Results()
    for (_, results), name in zip(collected, names):
        results = _named(results, name)
        together.rows.extend(results.rows)
        together.overall.extend(results.overall)
        together.aggregates.update(results.aggregates)
        together.topics_evaluated.update(results.topics_evaluated)
    return together


def _named(results: Any, name: str) -> Any:
    """The results of one run under ``name``."""
    from dataclasses import replace

    if results.runs() == [name]:
        return results
    return replace(
        results,
        rows=[row._replace(run=name) for row in results.rows],
        overall=[row._replace(run=name) for row in results.overall],
        topics_evaluated={name: next(iter(results.topics_evaluated.values()), [])},
    )


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
    """Several runs with one run-id would be indistinguishable: name them ``run-id (file)``
    (:func:`distinct_names`)."""
    from dataclasses import replace

    from inexeval.model.run import distinct_names

    names = distinct_names([r.name for r in runs], [str(r.source or "") for r in runs])
    for i, (r, name) in enumerate(zip(runs, names)):
        if name != r.name:
            runs[i] = replace(r, name=name)
