"""``inexeval trec_eval``: trec_eval 10.0's command line, options and output, on TREC qrels and
document runs (:mod:`inexeval.measures.trec_eval`)."""

from __future__ import annotations

import argparse
import sys

from inexeval.cli import non_negative, positive

NAME = "trec_eval"
HELP = "evaluate TREC document runs as trec_eval 10.0 does (its options, names and output)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="TREC qrels: topic iter doc level")
    parser.add_argument("runs", metavar="RUN", nargs="+",
                        help="TREC runs: topic Q0 doc rank score run-id ('-': standard input); "
                        "several runs are evaluated in turn, as many trec_eval calls would")
    parser.add_argument("-q", action="store_true",
                        help="print every topic's values too, before the summary")
    parser.add_argument("-m", action="append", default=[], metavar="MEASURE[.PARAMS]",
                        help="a trec_eval measure or set (official (the default), all_trec, "
                        "set), with parameters after a dot: P.5,10 ndcg_cut.10 "
                        "iprec_at_recall..1,.5 ndcg.1=3,2=9 rbp.p=0.8")
    parser.add_argument("-c", action="store_true",
                        help="average over every topic of the qrels; a topic without results "
                        "scores as a list of one unjudged document")
    parser.add_argument("-l", type=int, default=1, metavar="LEVEL",
                        help="lowest level counted as relevant (default 1)")
    parser.add_argument("-n", action="store_true", help="no summary (the all lines)")
    parser.add_argument("-J", action="store_true",
                        help="judged documents only: unjudged ones are dropped from the lists")
    parser.add_argument("-N", type=non_negative, default=0, metavar="NUM",
                        help="documents in the collection (for utility)")
    parser.add_argument("-M", type=non_negative, metavar="NUM",
                        help="documents per topic used (the rest are dropped)")
    parser.add_argument("-R", default="qrels", choices=("qrels",),
                        help="qrels format (only trec_eval's qrels)")
    parser.add_argument("-T", default="trec_results", choices=("trec_results",),
                        help="run format (only trec_eval's trec_results)")
    parser.add_argument("--keep-repeats", action="store_true",
                        help="a document retrieved twice for a topic is kept twice (trec_eval "
                        "stops with an error)")
    parser.add_argument("--jobs", type=positive, metavar="N",
                        help="evaluate several runs in N processes (default: one per processor; "
                        "the output is the same, in the order the runs are given)")


def run(args: argparse.Namespace) -> int:
    from inexeval.trec_eval_runs import evaluate_runs, usable_cpus

    jobs = args.jobs if args.jobs is not None else usable_cpus()
    for results in evaluate_runs(args.qrels, args.runs, args.m, jobs=jobs, complete=args.c,
                                 relevance_level=args.l, max_docs=args.M, judged_only=args.J,
                                 num_docs=args.N, keep_repeats=args.keep_repeats):
        sys.stdout.write(results.render(per_topic=args.q, summary=not args.n))
    return 0
