"""``inexeval pool``: pool submitted runs into the units each topic's assessor judges, or report
the statistics of a pool (``--stats POOL.tsv [RUN...]``)."""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

from inexeval.cli import positive, topic_ids
from inexeval.cli_args import add_run_options

NAME = "pool"
HELP = "pool runs to a depth or round-robin to N articles per topic (or --stats of a pool)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", metavar="RUN", nargs="*",
                        help="run files, in the order that round-robin and --runs-per-group use")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--depth", type=positive, metavar="K",
                     help="the union of each run's top K results per topic (INEX 2002: 100)")
    how.add_argument("--articles", type=positive, metavar="N",
                     help="round-robin over the runs, rank 1 of each, then rank 2, ..., until a "
                     "topic's pool holds N distinct articles (INEX 2006-2010)")
    parser.add_argument("--unit", choices=("element", "article"),
                        help="pool elements (element runs only) or articles (default: element "
                        "with --depth when every run is an element run, else article)")
    parser.add_argument("--runs-per-group", type=positive, metavar="M",
                        help="pool the first M runs of each group (with --group)")
    parser.add_argument("--group", metavar="REGEX",
                        help="a run's group: the first match group of REGEX in its run name")
    parser.add_argument("--topics", type=topic_ids, metavar="IDS",
                        help="comma-separated topic ids to pool")
    parser.add_argument("--topic-file", metavar="FILE", help="pool the topics of this topic file")
    parser.add_argument("--format", choices=("tsv", "inex"), default="tsv",
                        help="tsv: 'topic file path min_rank runs' lines (default); inex: one "
                        "XML pool file per topic, pool-TOPIC.xml, in the folder given by -o")
    parser.add_argument("-o", "--output", metavar="FILE|DIR",
                        help="output file (tsv; default standard output) or folder (inex)")
    parser.add_argument("--stats", metavar="POOL",
                        help="print the statistics of a pool TSV instead: per topic units, "
                        "articles, units only one run returned and, with the pooled RUNs "
                        "given, each run's unique contribution; then median and total")
    add_run_options(parser)


def run(args: argparse.Namespace) -> int:
    from inexeval.errors import InexevalError
    from inexeval.options import check_given_once

    check_given_once(args.runs)
    for path in [*args.runs, args.topic_file, args.stats]:
        if path is not None and path != "-" and not Path(path).exists():
            raise InexevalError("no such file or folder", path)
    if args.stats is not None:
        for option in ("depth", "articles", "unit", "runs_per_group", "group", "topics",
                       "topic_file"):
            if getattr(args, option) is not None:
                raise InexevalError(f"--{option.replace('_', '-')} does not go with --stats")
        if args.format != "tsv":
            raise InexevalError("--stats prints tab-separated lines: no --format")
        return _stats(args)
    if not args.runs:
        raise InexevalError("give the runs to pool (or --stats POOL.tsv)")
    if args.depth is None and args.articles is None:
        raise InexevalError("give --depth K or --articles N")
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

        target = check_output(args.output, *args.runs, args.topic_file)
        with atomic_output(target) as out:
            write_pool(pool, out)
    return 0


def _runs(args: argparse.Namespace, paths: list[str]) -> list[Any]:
    from inexeval.formats.detect import load_run

    return [load_run(path, args.run_format, args.keep_repeats) for path in paths]


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
    unit = args.unit or ("element" if args.depth is not None
                         and all(r.kind == "element" for r in runs) else "article")
    topics = _topics(args, runs)
    return pool_runs(runs, depth=args.depth, articles=args.articles, unit=unit, topics=topics,
                     order=args.order)


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

        with atomic_output(check_output(args.output, args.stats, *args.runs)) as out:
            out.write(text)
    return 0


def _summary(values: list[int], how: str) -> str:
    """The median (a half when the topic count is even and the middle two differ) or the sum."""
    if how == "total":
        return str(sum(values))
    middle = statistics.median(values) if values else 0
    return str(int(middle)) if middle == int(middle) else f"{middle:.1f}"
