"""``inexeval chunks``: evaluate chunkings (files, or chunkers run on the corpus) and their
retrieval on Chroma's questions CSV (span runs in ``eval``, ``compare`` and ``meta``:
:mod:`inexeval.evaluation_spans`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inexeval.cli import digits
from inexeval.evaluation_spans import FORMATS

NAME = "chunks"
HELP = "evaluate chunkers and chunk retrieval on Chroma's questions CSV (RAG)"



def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("questions", metavar="QUESTIONS.csv",
                        help="Chroma's questions CSV (question,references,corpus_id)")
    parser.add_argument("chunkings", metavar="CHUNKS.tsv", nargs="*",
                        help="chunkings: doc<TAB>start<TAB>end lines, end exclusive (each named "
                        "by its file name)")
    parser.add_argument("--corpus", metavar="DIR",
                        help="the folder of {corpus_id}.* files (default: corpora/ beside the "
                        "CSV, else the CSV's folder)")
    parser.add_argument("--chunker", action="append", default=[], metavar="SPEC",
                        help="chunk the corpus: fixed:SIZE:OVERLAP or recursive:SIZE:OVERLAP "
                        "(characters; repeatable)")
    parser.add_argument("--retriever", action="append", default=[], metavar="bm25|RUN",
                        help="the ranking of chunks for the retrieval measures: bm25 (default; "
                        "needs bm25s, the rag extra) or one span run (FOL or JSONL) per "
                        "chunking, in order (or --embedder)")
    parser.add_argument("--embedder", metavar="sentence-transformers:NAME",
                        help="rank the chunks by the cosine similarity of their embeddings and "
                        "the question's, with the sentence-transformers model NAME (a name or "
                        "folder you have; pip install sentence-transformers): every chunking's "
                        "chunks embedded, each distinct text once (instead of --retriever)")
    parser.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                        help="a measure (see `inexeval measures chroma`, `inexeval measures "
                        "legal`); one without @k is taken at k = 1, 3, 5, 10 (default "
                        "chroma_P_omega; with --retriever every measure)")
    parser.add_argument("--write-chunks", metavar="DIR",
                        help="write each chunker's chunks into DIR as NAME.tsv")
    parser.add_argument("--compare", action="store_true",
                        help="compare the chunkings (each with the first, paired over the "
                        "questions) instead of listing their means")
    parser.add_argument("--test", action="append", metavar="TEST",
                        help="with --compare: a paired test (t, wilcoxon, sign, randomised, "
                        "bootstrap; repeatable; default t)")
    parser.add_argument("--plot", metavar="FILE",
                        help="also draw each measure's mean against k per chunking (.png, .svg "
                        "or .pdf; needs matplotlib, the plot extra)")
    parser.add_argument("--report", metavar="FILE",
                        help="also write the HTML report of the chunkers: chunkers x measures, "
                        "each measure's mean against k, the comparison (each with the first, "
                        "paired over the questions, --test's tests) and the per-question values "
                        "(with no -m every measure, BM25 retrieval unless --retriever or "
                        "--embedder says)")
    parser.add_argument("-q", action="store_true", help="print per-question values too")
    parser.add_argument("--digits", type=digits, default=4, metavar="N", help="decimals printed")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="output: table (chunkings x measures, the default), or eval's "
                        "trec, csv, json, latex, scores (every question's value, for "
                        "inexeval meta --scores)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="with --format scores: write to FILE (atomically)")


def run(args: argparse.Namespace) -> int:
    from inexeval.errors import InexevalError
    from inexeval.formats.chroma import read_chunking, read_questions, read_span_run
    from inexeval.rag.chunkers import parse_chunker
    from inexeval.rag.evaluate import ALL_MEASURES, chunk_study, needs_ranking, parse

    if args.test and not (args.compare or args.report):
        raise InexevalError("--test goes with --compare or --report")
    if args.output is not None and (args.format != "scores" or args.compare):
        raise InexevalError("-o goes with --format scores")
    chunkers = [parse_chunker(spec) for spec in args.chunker]
    if not args.chunkings and not chunkers:
        raise InexevalError("give chunking files or --chunker SPEC")
    measures = parse(args.measure or (ALL_MEASURES if args.retriever or args.embedder
                                      or args.report
                                      else ["chroma_P_omega"]))
    embedder = None
    if args.embedder is not None:
        from inexeval.rag.retrieve import Embedder

        if args.retriever:
            raise InexevalError("--embedder and --retriever both rank the chunks: give one")
        embedder = Embedder(args.embedder)
    files = [r for r in args.retriever if r != "bm25"]
    if files and len(files) != len(args.chunkings) + len(chunkers):
        raise InexevalError(f"{len(files)} --retriever runs for "
                            f"{len(args.chunkings) + len(chunkers)} chunkings: give one run per "
                            "chunking, or bm25")
    if files and len(files) != len(args.retriever):
        raise InexevalError("--retriever is bm25 or runs, not both")
    if args.report is not None:
        from inexeval.outputs import check_output

        check_output(args.report, args.questions, *args.chunkings, *files, args.corpus)
    questions = read_questions(args.questions, args.corpus)
    chunkings = {Path(path).name: read_chunking(path, questions.corpora)
                 for path in args.chunkings}
    if len(chunkings) < len(args.chunkings):
        raise InexevalError("two chunking files have the same name")
    for chunker in chunkers:
        if chunker.name in chunkings:
            raise InexevalError(f"chunking {chunker.name!r} given twice")
        chunkings[chunker.name] = chunker.chunk(questions.corpora)
    if args.write_chunks:
        _write_chunks(args, [c.name for c in chunkers], chunkings)
    rankings = None
    if files and needs_ranking(measures):
        rankings = [read_span_run(path, questions.corpora).rankings for path in files]
    results = chunk_study(questions, chunkings, measures, rankings, embedder)
    if args.plot is not None:
        _plot(results, measures, args)
    if args.report is not None:
        _report(results, measures, args)
    if args.compare:
        _compare(results, [str(m) for m in measures], args)
    elif args.format == "scores":
        from inexeval.formats.scores import write_results

        write_results(results, True, args.output, args.questions, *args.chunkings)
    else:
        from inexeval.evaluation_spans import print_results

        print_results(results, args.format, args.digits, args.q)
    return 0


def _write_chunks(args: argparse.Namespace, names: list[str], chunkings: Any) -> None:
    """``--write-chunks DIR``: each chunker's chunks as ``DIR/NAME.tsv`` (the characters of
    its name other than letters, digits, ``.``, ``_`` and ``-`` made ``-``)."""
    import re

    from inexeval.errors import InexevalError
    from inexeval.formats.chroma import chunking_lines
    from inexeval.outputs import write_folder

    files = {re.sub(r"[^\w.-]+", "-", name).strip("-") + ".tsv": name for name in names}
    if len(files) < len(names):
        raise InexevalError("two chunkers would write the same file: give distinct names",
                            args.write_chunks)
    write_folder(args.write_chunks, {
        file: "".join(chunking_lines(chunkings[name])).encode() for file, name in files.items()},
        args.questions)


def _plot(results: Any, measures: Any, args: argparse.Namespace) -> None:
    from inexeval.errors import InexevalError
    from inexeval.outputs import atomic_output, check_output, note
    from inexeval.rag.plots import curves_over_k
    from inexeval.report.figures import figure_bytes, required_format

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InexevalError("--plot needs matplotlib: pip install 'inexeval[plot]'") from None
    target = check_output(args.plot, args.questions, *args.chunkings)
    data = figure_bytes(curves_over_k(results, measures), required_format(args.plot))
    with atomic_output(target, "wb") as out:
        out.write(data)
    note(f"wrote {target} ({len(data):,} bytes)")


def _report(results: Any, measures: Any, args: argparse.Namespace) -> None:
    """``--report FILE``: the HTML report of the chunkers (:mod:`inexeval.rag.report`)."""
    from inexeval.analysis.compare import compare_results
    from inexeval.errors import InexevalError
    from inexeval.formats.chroma import default_corpus
    from inexeval.outputs import atomic_output, check_output, note
    from inexeval.rag.report import render_report
    from inexeval.report.html import InputFile

    if len(results.runs()) < 2:
        raise InexevalError("--report compares chunkings: give at least two")
    files = [*args.chunkings, *(r for r in args.retriever if r != "bm25")]
    target = check_output(args.report, args.questions, *files)
    compared = compare_results(results, [str(m) for m in measures], tests=args.test or ["t"])
    corpus = args.corpus or str(default_corpus(args.questions))
    text = render_report(
        results, measures, compared, what="chunkers", argv=getattr(args, "argv", ["inexeval"]),
        files=[InputFile.of("assessments", args.questions),
               *(InputFile.of(f"chunking {Path(p).name}", p) for p in args.chunkings),
               *(InputFile.of("ranking", p) for p in files[len(args.chunkings):]),
               InputFile.of("collection", corpus)],
        digits=args.digits,
        subtitle=(f"{len(results.runs())} chunkings, retrieval by "
                  f"{_retrieval(args)}; "
                  f"questions {Path(args.questions).name}"))
    with atomic_output(target) as out:
        out.write(text)
    note(f"wrote {target} ({len(text.encode()):,} bytes)")


def _retrieval(args: argparse.Namespace) -> str:
    if args.embedder is not None:
        return f"the embeddings of {args.embedder}"
    return "BM25" if args.retriever in ([], ["bm25"]) else "the runs given"


def _compare(results: Any, measures: list[str], args: argparse.Namespace) -> None:
    from inexeval.analysis.compare import compare_results
    from inexeval.errors import InexevalError
    from inexeval.report.comparison import render_comparison

    if args.format in ("trec", "scores"):
        raise InexevalError("--compare prints a table, csv, json or latex")
    if len(results.runs()) < 2:
        raise InexevalError("--compare needs at least two chunkings")
    compared = compare_results(results, measures, tests=args.test or ["t"])
    sys.stdout.write(render_comparison(compared, args.format, args.digits))
