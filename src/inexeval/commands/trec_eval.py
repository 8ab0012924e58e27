"""``inexeval trec_eval``: trec_eval 10.0's command line, options and output, on TREC qrels and
document runs (:mod:`inexeval.measures.trec_eval`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from inexeval.cli import non_negative, positive

NAME = "trec_eval"
HELP = "evaluate TREC document runs as trec_eval 10.0 does (its options, names and output)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="TREC qrels: topic iter doc level")
    parser.add_argument("runs", metavar="RUN", nargs="+",
                        help="TREC runs: topic Q0 doc rank score run-id ('-': standard input); "
                        "several runs are evaluated in turn, as many trec_eval calls would, "
                        "each run's block opening with its runid line (trec_eval's -m runid)")
    parser.add_argument("-q", action="store_true",
                        help="print every topic's values too, before the summary")
    parser.add_argument("-m", action="append", default=[], metavar="MEASURE[.PARAMS]",
                        help="a trec_eval measure or set (official (the default), all_trec, "
                        "set; with -R prefs: all_prefs, prefs; with -R qrels_jg: qrels_jg), "
                        "with parameters after a dot: P.5,10 ndcg_cut.10 "
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
    parser.add_argument("-R", default="qrels",
                        choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"),
                        help="judgements' format: qrels (the default); prefs (preference "
                        "judgements: topic jg jsg doc level) or qrels_prefs (qrels read as "
                        "preferences, the second column the judgement group), for the "
                        "preference measures (-m all_prefs; default -m prefs); qrels_jg (qrels "
                        "whose second column is a judgement group) for map_avgjg, P_avgjg, "
                        "Rprec_mult_avgjg (-m qrels_jg, the default)")
    parser.add_argument("-T", default="trec_results", choices=("trec_results",),
                        help="run format (only trec_eval's trec_results)")
    parser.add_argument("-Z", metavar="ZSCORES_FILE",
                        help="print z-scores instead: (value - mean) / sd with each topic's and "
                        "measure's mean and sd from ZSCORES_FILE (lines: topic measure mean sd); "
                        "-1000000 where the file lacks them")
    parser.add_argument("-D", type=_debug_level, metavar="LEVEL[.TOPIC]",
                        help="trec_eval's debug level, accepted and not used (no trace is "
                        "printed); with .TOPIC only that topic is evaluated")
    parser.add_argument("--keep-repeats", action="store_true",
                        help="a document retrieved twice for a topic is kept twice (trec_eval "
                        "stops with an error)")
    parser.add_argument("--jobs", type=positive, metavar="N",
                        help="evaluate several runs in N processes (default: one per processor; "
                        "the output is the same, in the order the runs are given)")


def run(args: argparse.Namespace) -> int:
    from inexeval.allocator import keep_freed_memory

    keep_freed_memory()
    if args.R == "qrels_jg":
        return _judgement_groups(args)
    if args.R != "qrels":
        return _preferences(args)
    from inexeval.measures.trec_eval import choose

    choose(args.m)  # a wrong measure is told before any file is read
    options: dict[str, Any] = {
        "complete": args.c, "relevance_level": args.l, "max_docs": args.M,
        "judged_only": args.J, "num_docs": args.N, "keep_repeats": args.keep_repeats,
        "zscores": _zscores(args)}
    topic = args.D[1] if args.D is not None else None
    if topic is not None:
        # one topic (-D LEVEL.TOPIC): its lines cut from the whole files
        from inexeval.formats.trec_columns import read_trec_eval_qrels, read_trec_eval_run
        from inexeval.measures.trec_eval import evaluate

        qrels = _only(read_trec_eval_qrels(args.qrels), topic)
        every: Any = (evaluate(qrels, _only(read_trec_eval_run(path), topic), args.m, **options)
                      for path in args.runs)
    else:
        from inexeval.trec_eval_runs import evaluate_runs, usable_cpus

        jobs = args.jobs if args.jobs is not None else usable_cpus()
        every = evaluate_runs(args.qrels, args.runs, args.m, jobs=jobs, **options)
    for results in every:
        sys.stdout.write(results.render(per_topic=args.q, summary=not args.n,
                                         runid_first=len(args.runs) > 1))
    return 0


def _preferences(args: argparse.Namespace) -> int:
    """``-R prefs`` and ``-R qrels_prefs``: the preference measures."""
    from inexeval.errors import InexevalError
    from inexeval.formats.trec_columns import read_trec_eval_run
    from inexeval.formats.trec_prefs import read_prefs
    from inexeval.measures.trec_prefs import choose, evaluate

    unused = [option for option, used in (("-J", args.J), ("-l", args.l != 1),
                                          ("-N", args.N != 0),
                                          ("--keep-repeats", args.keep_repeats)) if used]
    if unused:
        raise InexevalError(f"{', '.join(unused)} has no effect on the preference measures "
                            f"(-R {args.R})")
    choose(args.m)
    zscores = _zscores(args)
    topic = args.D[1] if args.D is not None else None
    prefs = read_prefs(args.qrels, qrels=args.R == "qrels_prefs")
    if topic is not None:
        prefs = {t: lines for t, lines in prefs.items() if t == topic}
    for path in args.runs:
        results = evaluate(prefs, _only(read_trec_eval_run(path), topic), args.m,
                           complete=args.c, max_docs=args.M, zscores=zscores)
        sys.stdout.write(results.render(per_topic=args.q, summary=not args.n,
                                         runid_first=len(args.runs) > 1))
    return 0


def _judgement_groups(args: argparse.Namespace) -> int:
    """``-R qrels_jg``: each judgement group's measures, averaged over a topic's groups."""
    import numpy as np

    from inexeval.formats.trec_columns import read_trec_eval_run
    from inexeval.formats.trec_jg import read_qrels_jg
    from inexeval.measures.trec_jg import choose, evaluate_groups

    choose(args.m)
    zscores = _zscores(args)
    topic = args.D[1] if args.D is not None else None
    qrels = read_qrels_jg(args.qrels)
    if topic is not None:
        keep = np.char.startswith(qrels.topics, (topic + " ").encode("utf-8"))
        qrels = _only(qrels, None, keep)
    for path in args.runs:
        results = evaluate_groups(qrels, _only(read_trec_eval_run(path), topic), args.m,
                                  zscores=zscores, complete=args.c, relevance_level=args.l,
                                  max_docs=args.M, judged_only=args.J, num_docs=args.N,
                                  keep_repeats=args.keep_repeats)
        sys.stdout.write(results.render(per_topic=args.q, summary=not args.n,
                                         runid_first=len(args.runs) > 1))
    return 0


def _zscores(args: argparse.Namespace) -> Any:
    """The means and sds of ``-Z``'s file, or None."""
    if args.Z is None:
        return None
    from inexeval.formats.trec_zscores import read_zscores

    return read_zscores(args.Z)


def _debug_level(text: str) -> tuple[int, str | None]:
    """argparse type of ``-D``: trec_eval's ``LEVEL[.TOPIC]``, the level a whole number."""
    level, dot, topic = text.partition(".")
    try:
        number = int(level)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the debug level is not a whole number"
                                         ) from None
    return number, topic if dot and topic else None


def _only(columns: Any, topic: str | None, keep: Any = None) -> Any:
    """The lines of one topic (``-D LEVEL.TOPIC``), or those ``keep`` marks, or all."""
    if topic is None and keep is None:
        return columns
    import dataclasses

    if keep is None:
        keep = columns.topics == str(topic).encode("utf-8")

    return dataclasses.replace(columns, topics=columns.topics[keep],
                               documents=columns.documents[keep], values=columns.values[keep],
                               lines=columns.lines[keep])
