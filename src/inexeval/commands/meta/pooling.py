"""``inexeval meta pooling``: simulate pooling strategies on a finished campaign's qrels and
runs (:mod:`inexeval.analysis.strategy_study`); the ``meta pooling`` study."""

from __future__ import annotations

import argparse
import json

from inexeval.cli import add_executor_arguments, non_negative, positive

NAME = "meta pooling"
HELP = ("simulate pooling strategies on finished qrels: per strategy and budget, the relevant "
        "units found and the Kendall tau / RMSE of the runs' MAP against the full qrels")

DEFAULT_STRATEGIES = "depth,take,mtf,bandit,hedge"
DEFAULT_BUDGETS = "10,20,30,50,75,100,150,200,300,500"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.cli_args import add_run_options

    parser.add_argument("qrels", metavar="QRELS", help="the finished qrels (TREC or FOL)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="the runs pooled and ranked")
    parser.add_argument("--strategies", default=DEFAULT_STRATEGIES, metavar="LIST",
                        help="comma-separated strategies of 'pool --strategy', take's fusion "
                        "or the bandit's method after a colon (take:combsum, bandit:ucb); "
                        f"default {DEFAULT_STRATEGIES}")
    parser.add_argument("--budgets", default=DEFAULT_BUDGETS, metavar="LIST",
                        help=f"judgements per topic, comma-separated (default {DEFAULT_BUDGETS})")
    parser.add_argument("--depth", type=positive, default=100, metavar="K",
                        help="the depth-K pool the strategies order (default 100)")
    parser.add_argument("--max-results", type=positive, default=1000, metavar="N",
                        help="results of each run that its average precision reads (default "
                        "1000)")
    parser.add_argument("--seed", type=non_negative, default=1,
                        help="seed of the bandits (default 1)")
    add_executor_arguments(parser, "topics")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: a tab-separated table with a header (default); json: "
                        '{"curves": [{strategy, budget, topic_count, judged, relevant_found, '
                        "kendall_tau, rmse}]}")
    parser.add_argument("-o", "--output", metavar="FILE", help="output file (default stdout)")
    add_run_options(parser, default_order=None)


def run(args: argparse.Namespace) -> int:
    from inexeval.analysis.strategies import StrategyOptions
    from inexeval.analysis.strategy_study import curves_json, parse_strategies, strategy_study
    from inexeval.errors import InexevalError
    from inexeval.executor import make_executor
    from inexeval.formats.detect import load_assessments, load_run
    from inexeval.options import check_given_once

    check_given_once(args.runs)
    strategies = parse_strategies(args.strategies)
    try:
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    except ValueError:
        raise InexevalError(f"--budgets {args.budgets!r} is not a comma-separated list of "
                            "whole numbers") from None
    if args.jobs > 1 and args.scheduler is not None:
        raise InexevalError("--jobs and --scheduler do not go together")
    qrels = load_assessments(args.qrels)
    runs = [load_run(path, args.run_format, args.keep_repeats) for path in args.runs]
    executor = make_executor(args.jobs, args.scheduler)
    try:
        points = strategy_study(runs, qrels, strategies, budgets, depth=args.depth,
                                max_results=args.max_results, order=args.order,
                                options=StrategyOptions(seed=args.seed), executor=executor)
    finally:
        close = getattr(executor, "close", None)
        if close is not None:
            close()
    if args.format == "json":
        text = json.dumps(curves_json(points), indent=1) + "\n"
    else:
        header = "strategy\tbudget\ttopic_count\tjudged\trelevant_found\tkendall_tau\trmse\n"
        text = header + "".join(
            f"{p.strategy}\t{p.budget}\t{p.topic_count}\t{p.judged}\t{p.relevant_found}\t"
            f"{p.kendall_tau:.4f}\t{p.rmse:.4f}\n" for p in points)
    from inexeval.cli_args import write

    write(args, text, args.qrels, *args.runs)
    return 0
