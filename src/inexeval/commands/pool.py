"""``inexeval pool``: pool submitted runs into the units each topic's assessor judges, or report
the statistics of a pool (``--stats POOL.tsv [RUN...]``)."""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

from inexeval.cli import positive, topic_ids
from inexeval.cli_args import ADAPTIVE, STRATEGIES, add_run_options, add_strategy_options

NAME = "pool"
HELP = ("pool runs to a depth or round-robin to N articles per topic, or with a pooling "
        "strategy to a judgement budget (or --stats of a pool)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", metavar="RUN", nargs="*",
                        help="run files, in the order that round-robin and --runs-per-group use")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--depth", type=positive, metavar="K",
                     help="the union of each run's top K results per topic (INEX 2002: 100)")
    how.add_argument("--articles", type=positive, metavar="N",
                     help="round-robin over the runs, rank 1 of each, then rank 2, ..., until a "
                     "topic's pool holds N distinct articles (INEX 2006-2010)")
    strategy = parser.add_argument_group("pooling strategies (judging less for the same answer)")
    strategy.add_argument("--strategy", choices=STRATEGIES,
                          help="order the depth-K pool (--depth, default 100) as this strategy "
                          "judges it and keep the first --budget units per topic: depth, "
                          "round-robin (as --articles), take (a fused ranking), mtf "
                          "(move-to-front), bandit, hedge; the adaptive ones (mtf, bandit, "
                          "hedge) are simulated on --qrels")
    strategy.add_argument("--budget", type=positive, metavar="N",
                          help="judgements per topic (default: the whole depth pool); with "
                          "--sample statap, units drawn per topic")
    strategy.add_argument("--qrels", metavar="FILE",
                          help="finished qrels the adaptive strategies read judgements from "
                          "(with --sample: fill the sample from them, --format sampled-qrels)")
    add_strategy_options(strategy)
    sample = parser.add_argument_group("sampled judgements (for xinfAP, infNDCG, statAP)")
    sample.add_argument("--sample", choices=("stratified", "statap"),
                        help="stratified: rank the depth-K pool by --fusion and draw from each "
                        "--strata range of ranks at its rate; statap: draw about --budget "
                        "units by the AP prior (binned into strata by inclusion probability); "
                        "writes every unit with its stratum, inclusion probability and "
                        "whether it was drawn")
    sample.add_argument("--strata", metavar="SPEC",
                        help="ranges of fused ranks and rates, as 1-10:1.0,11-100:0.2,"
                        "101-1000:0.05")
    parser.add_argument("--unit", choices=("element", "article", "span"),
                        help="pool elements (element runs only) or articles (default: element "
                        "with --depth when every run is an element run, else article); span: "
                        "the characters of span runs (FOL or JSONL, RAG chunks) with --depth, "
                        "'qid doc start end min_rank runs' lines, overlapping spans merged")
    parser.add_argument("--runs-per-group", type=positive, metavar="M",
                        help="pool the first M runs of each group (with --group)")
    parser.add_argument("--group", metavar="REGEX",
                        help="a run's group: the first match group of REGEX in its run name")
    parser.add_argument("--topics", type=topic_ids, metavar="IDS",
                        help="comma-separated topic ids to pool")
    parser.add_argument("--topic-file", metavar="FILE", help="pool the topics of this topic file")
    parser.add_argument("--format", choices=("tsv", "inex", "sampled-qrels"), default="tsv",
                        help="tsv: 'topic file path min_rank runs' lines (default; with "
                        "--sample: and 'stratum probability sampled'); inex: one XML pool file "
                        "per topic, pool-TOPIC.xml, in the folder given by -o; sampled-qrels "
                        "(with --sample and --qrels): the sample's qrels as NIST writes them, "
                        "filled from finished qrels (a simulation)")
    parser.add_argument("-o", "--output", metavar="FILE|DIR",
                        help="output file (tsv; default standard output) or folder (inex)")
    parser.add_argument("--stats", metavar="POOL",
                        help="print the statistics of a pool TSV instead: per topic units, "
                        "articles, units only one run returned and, with the pooled RUNs "
                        "given, each run's unique contribution; then median and total")
    add_run_options(parser, default_order=None)


def run(args: argparse.Namespace) -> int:
    from inexeval.errors import InexevalError
    from inexeval.options import check_given_once

    check_given_once(args.runs)
    for path in [*args.runs, args.topic_file, args.stats, args.qrels]:
        if path is not None and path != "-" and not Path(path).exists():
            raise InexevalError("no such file or folder", path)
    if args.stats is not None:
        for option in ("depth", "articles", "unit", "runs_per_group", "group", "topics",
                       "topic_file", "strategy", "budget", "qrels", "sample", "strata"):
            if getattr(args, option) is not None:
                raise InexevalError(f"--{option.replace('_', '-')} does not go with --stats")
        if args.format != "tsv":
            raise InexevalError("--stats prints tab-separated lines: no --format")
        return _stats(args)
    if not args.runs:
        raise InexevalError("give the runs to pool (or --stats POOL.tsv)")
    if args.unit == "span":
        return _span_pool(args)
    if args.sample is not None or args.strata is not None:
        return _sample(args)
    _check_strategy(args)
    if args.format == "sampled-qrels":
        raise InexevalError("--format sampled-qrels writes the qrels of a --sample")
    if args.depth is None and args.articles is None and args.strategy is None:
        raise InexevalError("give --depth K, --articles N or --strategy NAME")
    if (args.runs_per_group is None) != (args.group is None):
        raise InexevalError("--runs-per-group and --group go together")
    pool = _pool(args)
    if args.format == "inex":
        _write_inex(pool, args)
    elif args.output is None:
        from inexeval.formats.pool import write_pool

        write_pool(pool, sys.stdout)
    else:
        from inexeval.formats.pool import write_pool
        from inexeval.outputs import atomic_output, check_output

        target = check_output(args.output, *args.runs, args.topic_file, args.qrels)
        with atomic_output(target) as out:
            write_pool(pool, out)
        _wrote(target)
    return 0


def _wrote(target: str | Path) -> None:
    from inexeval.outputs import wrote

    wrote(target)


def _runs(args: argparse.Namespace, paths: list[str]) -> list[Any]:
    from inexeval.formats.detect import load_run
    from inexeval.progress import progress

    return [load_run(path, args.run_format, args.keep_repeats)
            for path in progress(paths, "runs", len(paths))]


def _pool(args: argparse.Namespace) -> Any:
    from inexeval.analysis.pooling import pool_runs, select_runs
    from inexeval.errors import warn

    runs = _runs(args, args.runs)
    if args.group is not None:
        kept = select_runs([r.name for r in runs], args.group, args.runs_per_group)
        for i in sorted(set(range(len(runs))) - set(kept)):
            warn(f"not pooled: more than {args.runs_per_group} runs of its group",
                 args.runs[i])
        runs = [runs[i] for i in kept]
    by_depth = (args.depth is not None and args.strategy is None) or args.strategy == "depth"
    unit = args.unit or ("element" if by_depth and all(r.kind == "element" for r in runs)
                         else "article")
    topics = _topics(args, runs)
    if args.strategy == "round-robin":
        return pool_runs(runs, articles=args.budget, unit=unit, topics=topics, order=args.order)
    if args.strategy is None:
        return pool_runs(runs, depth=args.depth, articles=args.articles, unit=unit,
                         topics=topics, order=args.order)
    if args.strategy == "depth" and args.budget is None:
        return pool_runs(runs, depth=args.depth or DEFAULT_DEPTH, unit=unit, topics=topics,
                         order=args.order)
    from inexeval.analysis.pooling import strategy_pool
    from inexeval.cli_args import strategy_options
    from inexeval.formats.detect import load_assessments

    options = strategy_options(args)
    assessments = load_assessments(args.qrels) if args.qrels is not None else None
    return strategy_pool(runs, args.strategy, depth=args.depth or DEFAULT_DEPTH,
                         budget=args.budget, unit=unit, topics=topics, order=args.order,
                         options=options, assessments=assessments)


DEFAULT_DEPTH = 100
"""The depth of the pool a strategy orders when --depth is not given (INEX 2002's)."""


def _check_strategy(args: argparse.Namespace) -> None:
    """The strategy options go with --strategy, and each with its strategy."""
    from inexeval.errors import InexevalError

    if args.strategy is None:
        for option in ("budget", "qrels"):
            if getattr(args, option) is not None:
                raise InexevalError(f"--{option} goes with --strategy")
        return
    if args.articles is not None:
        raise InexevalError("--articles is the round-robin strategy: give --strategy "
                            "round-robin --budget N, or --articles alone")
    if args.strategy == "round-robin":
        if args.budget is None:
            raise InexevalError("--strategy round-robin needs --budget N (articles per topic)")
        if args.depth is not None:
            raise InexevalError("--strategy round-robin goes to --budget articles: no --depth")
    if args.qrels is not None and args.strategy not in ADAPTIVE:
        raise InexevalError(f"the {args.strategy} strategy reads no judgements: no --qrels")


def _sample(args: argparse.Namespace) -> int:
    """``pool --sample stratified --strata SPEC``: the sampled pool, or its simulated qrels."""
    from inexeval.analysis.pooling import sampled_pool
    from inexeval.analysis.sampling import parse_strata
    from inexeval.analysis.strategies import StrategyOptions
    from inexeval.errors import InexevalError
    from inexeval.formats.sampled import sampled_pool_lines, simulated_sampled_qrels_lines

    if args.sample is None:
        raise InexevalError("--strata goes with --sample stratified")
    if (args.sample == "stratified") != (args.strata is not None):
        raise InexevalError("--sample stratified and --strata SPEC go together")
    if (args.sample == "statap") != (args.budget is not None):
        raise InexevalError("--sample statap and --budget N go together")
    for option in ("articles", "strategy", "runs_per_group"):
        if getattr(args, option) is not None:
            raise InexevalError(f"--{option.replace('_', '-')} does not go with --sample")
    if args.format == "inex":
        raise InexevalError("--sample writes tab-separated lines or --format sampled-qrels")
    if (args.format == "sampled-qrels") != (args.qrels is not None):
        raise InexevalError("--format sampled-qrels and --qrels go together with --sample")
    if not args.runs:
        raise InexevalError("give the runs to pool")
    strata = parse_strata(args.strata) if args.strata is not None else ()
    runs = _runs(args, args.runs)
    options = StrategyOptions(fusion=args.fusion, rrf_k=args.rrf_k, rbp_p=args.rbp_p,
                              seed=args.seed)
    sample = sampled_pool(runs, strata, method=args.sample, budget=args.budget,
                          depth=args.depth or DEFAULT_DEPTH,
                          unit=args.unit or "article", topics=_topics(args, runs),
                          order=args.order, options=options)
    if args.qrels is not None:
        from inexeval.formats.detect import load_assessments

        qrels = load_assessments(args.qrels)
        if qrels.scale not in ("trec", "fol"):
            raise InexevalError("--format sampled-qrels fills the sample from TREC or FOL "
                                "qrels", args.qrels)
        lines = simulated_sampled_qrels_lines(sample, qrels)
    else:
        lines = sampled_pool_lines(sample)
    if args.output is None:
        sys.stdout.writelines(lines)
    else:
        from inexeval.outputs import atomic_output, check_output

        target = check_output(args.output, *args.runs, args.topic_file, args.qrels)
        with atomic_output(target) as out:
            out.writelines(lines)
        _wrote(target)
    return 0


def _topics(args: argparse.Namespace, runs: list[Any]) -> list[str] | None:
    from inexeval.errors import warn

    wanted: list[str] | None = None
    if args.topic_file is not None:
        from inexeval.formats.topics import read_topics

        wanted = list(read_topics(args.topic_file))
    if args.topics is not None:
        chosen = [t.strip() for t in args.topics.split(",") if t.strip()]
        wanted = chosen if wanted is None else [t for t in wanted if t in set(chosen)]
    if wanted is not None:
        returned = {t for r in runs for t in r}
        missing = [t for t in wanted if t not in returned]
        if missing:
            warn(f"no run has results for topic(s) {', '.join(missing)}: not in the pool")
    return wanted


def _write_inex(pool: Any, args: argparse.Namespace) -> None:
    from inexeval.errors import InexevalError
    from inexeval.formats.pool import inex_pool_name, inex_pool_xml
    from inexeval.outputs import write_folder

    if args.output is None:
        raise InexevalError("--format inex writes one file per topic: give the folder with -o")
    write_folder(args.output, {inex_pool_name(t): inex_pool_xml(tp) for t, tp in pool.items()},
                 *args.runs, args.topic_file)


def _stats(args: argparse.Namespace) -> int:
    from inexeval.analysis.pooling import pool_statistics
    from inexeval.formats.pool import read_pool

    pool = read_pool(args.stats)
    stats = pool_statistics(pool, _runs(args, args.runs), order=args.order)
    names = list(stats[0].contributions) if stats else []
    columns = {"units": [s.units for s in stats], "articles": [s.articles for s in stats],
               "unique": [s.unique for s in stats],
               **{f"unique.{name}": [s.contributions[name] for s in stats] for name in names}}
    lines = [f"{statistic}\t{s.topic}\t{values[i]}" for i, s in enumerate(stats)
             for statistic, values in columns.items()]
    for summary in ("median", "total"):
        lines.extend(f"{statistic}\t{summary}\t{_summary(values, summary)}"
                     for statistic, values in columns.items())
    text = "".join(line + "\n" for line in lines)
    if args.output is None:
        sys.stdout.write(text)
    else:
        from inexeval.outputs import atomic_output, check_output

        target = check_output(args.output, args.stats, *args.runs)
        with atomic_output(target) as out:
            out.write(text)
        _wrote(target)
    return 0


def _summary(values: list[int], how: str) -> str:
    """The median (a half when the topic count is even and the middle two differ) or the sum."""
    if how == "total":
        return str(sum(values))
    middle = statistics.median(values) if values else 0
    return str(int(middle)) if middle == int(middle) else f"{middle:.1f}"


def _span_pool(args: argparse.Namespace) -> int:
    """``--unit span``: the depth-K pool of span runs (:func:`inexeval.rag.pool.pool_spans`)."""
    from inexeval.errors import InexevalError
    from inexeval.formats.chroma import read_span_run
    from inexeval.rag.pool import pool_spans

    if args.depth is None:
        raise InexevalError("--unit span pools to --depth K")
    for option in ("strategy", "budget", "qrels", "runs_per_group", "group", "topics",
                   "topic_file"):
        if getattr(args, option) is not None:
            raise InexevalError(f"--{option.replace('_', '-')} does not go with --unit span")
    if args.format != "tsv":
        raise InexevalError("--unit span writes tab-separated lines: no --format")
    pooled = pool_spans([read_span_run(path, None) for path in args.runs], args.depth)
    text = "".join("\t".join(map(str, row)) + "\n" for row in pooled)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    from inexeval.outputs import atomic_output, check_output

    target = check_output(args.output, *args.runs)
    with atomic_output(target) as out:
        out.write(text)
    _wrote(target)
    return 0
