"""The span runs of a Chroma questions CSV (``QUESTIONS.csv RUN...``) in ``eval``,
``compare``/``report`` and the ``meta`` studies: what those commands do when their assessments
are a questions CSV (``inexeval chunks`` evaluates chunkers; this is the runs' side)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

FORMATS = ("table", "trec", "csv", "json", "latex", "scores")
"""The formats of ``chunks`` and of ``eval`` on span runs."""

def print_results(results: Any, fmt: str, digits: int, per_topic: bool) -> None:
    from inexeval.report.text import render

    sys.stdout.write(render(results, fmt, digits=digits, per_topic=per_topic,
                            terminal=sys.stdout.isatty()))


def eval_span_runs(args: argparse.Namespace) -> int:
    """``inexeval eval QUESTIONS.csv RUN...``: span runs on Chroma's questions (the corpus is
    ``--collection``, by default beside the CSV)."""
    from inexeval.errors import InexevalError
    from inexeval.formats.chroma import read_questions, read_span_run
    from inexeval.rag.evaluate import evaluate_runs, parse

    _check_unused(args, "a Chroma questions CSV")
    fmt = "table" if args.table else args.format
    if fmt not in FORMATS:
        raise InexevalError(f"--format {fmt} is not available on a Chroma questions CSV")
    if args.output is not None and fmt != "scores":
        raise InexevalError("-o goes with --format scores")
    measures = parse(args.measure or ["chroma_R", "chroma_P", "chroma_IoU"])
    questions = read_questions(args.assessments, args.collection)
    runs = [read_span_run(path, questions.corpora) for path in args.runs]
    results = evaluate_runs(questions, runs, measures, complete=args.c)
    if fmt == "trec":
        from inexeval.report.text import render_trec

        sys.stdout.write(render_trec(results, args.digits, args.q, run_column=len(runs) > 1))
    elif fmt == "scores":
        from inexeval.formats.scores import write_results

        write_results(results, args.c, args.output, args.assessments, *args.runs)
    else:
        print_results(results, fmt, args.digits, args.q)
    from inexeval.outputs import note
    from inexeval.scores import describe_rule

    sys.stdout.flush()
    answered = {q for run in runs for q in run.rankings} & set(questions.ids())
    note(describe_rule("all" if args.c else "answered",
                       len(questions) if args.c else len(answered)))
    return 0


UNUSED = {"task": None, "num_docs": None, "topics": None, "topic_file": None, "implicit": "on",
          "strict": False, "assessments_format": None, "run_format": None, "order": None,
          "keep_repeats": False, "limit": None, "navigation": None, "ideal_run": None,
          "beta": 0.25, "bep_n": 500, "irr": 300, "exact_buckets": False, "jobs": 1,
          "bioasq_version": None}
"""Options of ``eval`` and ``compare`` (and their defaults) that span runs on a Chroma questions
CSV do not use."""


def _check_unused(args: argparse.Namespace, what: str) -> None:
    from inexeval.options import check_unused

    check_unused(args, UNUSED, set(), what)


def compare_span_runs(args: argparse.Namespace, tests: list[str]) -> int:
    """``inexeval compare QUESTIONS.csv RUN...``: span runs compared under the rule of every
    comparison, paired over the questions some run answers (``-c``: every question), a question
    a run does not answer scoring 0."""
    from inexeval.analysis.choices import PERMUTATIONS
    from inexeval.analysis.compare import compare_scores
    from inexeval.errors import InexevalError
    from inexeval.formats.chroma import read_questions, read_span_run
    from inexeval.outputs import write_output
    from inexeval.rag.evaluate import evaluate_runs, parse
    from inexeval.report.comparison import render_comparison
    from inexeval.scores import Scores

    _check_unused(args, "a Chroma questions CSV")
    html = args.format == "html"
    if getattr(args, "ranks", 50) != 50:
        raise InexevalError("--ranks not used by a Chroma questions CSV: leave it out (the "
                            "report draws the measures against k)")
    measures = parse(args.measure or (REPORT_MEASURES if html else ["chroma_R@5"]))
    questions = read_questions(args.assessments, args.collection)
    runs = [read_span_run(path, questions.corpora) for path in args.runs]
    rule = "all" if args.c else "any"  # the one topic rule of every comparison
    results = evaluate_runs(questions, runs, measures, rule=rule)
    if not results.topics():
        raise InexevalError("no question of the questions CSV is answered by any run (-c: "
                            "compare over every question)")
    scores = Scores.from_results(results, rule=rule, topics=results.topics(), answered={
        name: list(run.rankings) for name, run in zip(results.runs(), runs)})
    compared = compare_scores(scores, [str(m) for m in measures], baseline=args.baseline,
                               tests=tests, correction=args.correction,
                               all_pairs=args.all_pairs, alpha=args.alpha,
                               permutations=PERMUTATIONS if args.permutations is None
                               else args.permutations, seed=args.seed, power=args.power,
                               wilcoxon=args.wilcoxon)
    if html:
        from inexeval.formats.chroma import default_corpus
        from inexeval.rag.report import render_report
        from inexeval.report.html import InputFile

        corpus = args.collection or str(default_corpus(args.assessments))
        text = render_report(
            results, measures, compared, what="runs", argv=getattr(args, "argv", ["inexeval"]),
            files=[InputFile.of("assessments", args.assessments),
                   *(InputFile.of(f"run {name}", path)
                     for name, path in zip(results.runs(), args.runs)),
                   InputFile.of("collection", corpus)],
            inputs=[(name, run.source, len(run.rankings))
                    for name, run in zip(results.runs(), runs)],
            digits=args.digits, meta=args.meta, meta_replicates=args.permutations,
            subtitle=f"{len(runs)} span runs; questions {Path(args.assessments).name}")
    else:
        text = render_comparison(compared, args.format, args.digits)
    write_output(args.output, text, args.assessments, *args.runs)
    return 0


def span_run_scores(args: argparse.Namespace) -> Any:
    """``inexeval meta ... QUESTIONS.csv RUN...``: the span runs' scores of every question
    (rule ``all``; each run's answered questions flagged), ``compare``'s measures (default
    ``chroma_R@5``)."""
    from inexeval.formats.chroma import read_questions, read_span_run
    from inexeval.rag.evaluate import evaluate_runs, parse
    from inexeval.scores import Scores

    _check_unused(args, "a Chroma questions CSV")
    measures = parse(args.measure or ["chroma_R@5"])
    questions = read_questions(args.assessments, args.collection)
    runs = [read_span_run(path, questions.corpora) for path in args.runs]
    results = evaluate_runs(questions, runs, measures, rule="all")
    return Scores.from_results(results, rule="all", topics=questions.ids(), answered={
        name: list(run.rankings) for name, run in zip(results.runs(), runs)})


REPORT_MEASURES = ("chroma_R", "chroma_P", "chroma_IoU")
"""What the report of span runs compares with no ``-m`` (each at k = 1, 3, 5, 10)."""
