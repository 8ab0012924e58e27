"""The arguments several commands share, and the :class:`~inexeval.experiment.Experiment` they
describe. Not a command: commands import this module, never each other."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from inexeval.analysis.choices import PERMUTATIONS
from inexeval.cli import digits, non_negative, positive, probability, topic_ids
from inexeval.defaults import TASKS
from inexeval.outputs import write_output

RESAMPLING_TESTS = {"randomised", "bootstrap", "randomised-tukey"}
"""The tests that draw (``--permutations`` draws, seeded by ``--seed``)."""
COMPARISON_SEED = 42
"""``--permutations`` and ``--seed`` of a comparison when not given."""


def add_input_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """The inputs of an evaluation, shared by ``eval``, ``compare``, ``agree``, ``plot`` and
    ``report`` (``agree --judgements`` needs no runs: ``required`` False)."""
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
                        help="override format detection: inex, fol, trec, sampled (NIST: "
                        "topic iter docno stratum rel), genomics (TREC Genomics 2007 gold "
                        "standard)")
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
    """The options that say how runs are read and ordered (``eval``, ``pool``, the studies).
    Default None: :func:`inexeval.model.run.default_order`, document runs (TREC runs) as
    trec_eval orders them, others by rank."""
    parser.add_argument("--run-format", metavar="FORMAT",
                        help="override format detection: xml (INEX submission), trec, fol")
    by_qrels = ("; document runs (TREC runs): trec_eval's, as eval orders them on TREC qrels"
                if default_order is None else "")
    parser.add_argument("--order", choices=("rank", "score", "file", "trec_eval"),
                        default=default_order,
                        help="result order: rank if every result has one, else score, else file "
                        f"order (the default{by_qrels}); or by score, file order only, or "
                        "trec_eval's (score descending, ties by document id descending)")
    parser.add_argument("--keep-repeats", action="store_true",
                        help="keep a result repeated in a topic (the randomised runs of "
                        "Piwowarski and Dupret 2006); by default only its first occurrence "
                        "counts, as in INEX 2002")


STRATEGIES = ("depth", "round-robin", "take", "mtf", "bandit", "hedge")
"""The choices of :mod:`inexeval.analysis.strategies`, here so that a parser imports no numpy."""
ADAPTIVE = ("mtf", "bandit", "hedge")
FUSIONS = ("combsum", "combmnz", "rrf", "rbp")
BANDITS = ("mm-ns", "mm", "ucb", "random", "mtf")


def add_strategy_options(group: Any) -> None:
    """The parameters of the pooling strategies (``pool``, ``assess init``): ``--fusion``,
    ``--rrf-k``, ``--rbp-p``, ``--bandit``, ``--discount``, ``--hedge-beta``, ``--seed``."""
    group.add_argument("--fusion", choices=FUSIONS, default="rrf",
                       help="take: combsum, combmnz (min-max normalised scores), rrf "
                       "(default) or rbp")
    group.add_argument("--rrf-k", type=float, default=60.0, metavar="K",
                       help="rrf: 1/(K + rank) (default 60)")
    group.add_argument("--rbp-p", type=float, default=0.8, metavar="P",
                       help="rbp: (1 - P) P^(rank - 1) (default 0.8)")
    group.add_argument("--bandit", choices=BANDITS, default="mm-ns",
                       help="bandit: mm-ns (default), mm, ucb (UCB1-Tuned), random, mtf")
    group.add_argument("--discount", type=float, default=0.9, metavar="G",
                       help="mm-ns: weight of a run's judgement per later judgement of the "
                       "run (default 0.9)")
    group.add_argument("--hedge-beta", type=float, default=0.1, metavar="B",
                       help="hedge: Hedge's beta (default 0.1)")
    group.add_argument("--seed", type=non_negative, default=1,
                       help="seed of the bandits' random choices (default 1)")


def strategy_options(args: argparse.Namespace) -> Any:
    """The :class:`~inexeval.analysis.strategies.StrategyOptions` of
    :func:`add_strategy_options`' arguments."""
    from inexeval.analysis.strategies import StrategyOptions

    return StrategyOptions(args.fusion, args.rrf_k, args.rbp_p, args.bandit, args.discount,
                           args.hedge_beta, args.seed)


def add_complete_argument(parser: argparse.ArgumentParser, default_rule: str) -> None:
    """``-c``: the averaging rule ``all`` instead of the command's ``default_rule``."""
    from inexeval.scores import RULES

    parser.add_argument("-c", action="store_true",
                        help=f"average over every assessed topic, a topic without results "
                        f"scoring 0 (default: {RULES[default_rule]})")


def add_output_arguments(parser: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    """``--format``, ``-o``, ``--digits`` and ``--jobs``, shared by ``compare`` and ``agree``."""
    parser.add_argument("--format", choices=formats, default="table",
                        help="output format (default table; csv and json at full precision)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically) instead of the standard output")
    parser.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals printed (table, markdown, latex; default 4)")
    parser.add_argument("--jobs", type=positive, default=1, metavar="N",
                        help="evaluate the runs in N processes (same numbers; default 1)")


def add_comparison_arguments(parser: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    """The arguments of ``compare`` and ``report``: inputs, ``-c``, the baseline, the tests and
    the output."""
    from inexeval.analysis.choices import CORRECTIONS, TESTS, WILCOXON_RULES

    add_input_arguments(parser)
    add_complete_argument(parser, "any")
    parser.add_argument("--baseline", metavar="RUN",
                        help="the run the others are compared with: its name or file (default: "
                        "the first run)")
    parser.add_argument("--all-pairs", action="store_true",
                        help="compare every pair of runs instead of each run with the baseline")
    parser.add_argument("--test", action="append", metavar="TEST",
                        help=f"significance test, repeatable: {', '.join(TESTS)} (the last two "
                        "with --all-pairs; default t)")
    parser.add_argument("--wilcoxon", default=WILCOXON_RULES[0], choices=WILCOXON_RULES,
                        help="how the wilcoxon test finds its p-value: scipy (default: "
                        "scipy.stats.wilcoxon's own rule; zeros dropped, exact with at most 50 "
                        "differences and no zeros or tied |d|, enumerated with at most 13, else "
                        "the normal approximation) or r (R's wilcox.test defaults: exact below "
                        "50 differences with no zeros or ties, else the normal approximation "
                        "with continuity correction); named in the output's header")
    parser.add_argument("--correction", default="none", metavar="METHOD",
                        help="multiple-testing correction per measure: "
                        f"{', '.join(CORRECTIONS)} (default none)")
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="significance level of the marks (default 0.05)")
    parser.add_argument("--permutations", type=positive, metavar="B",
                        help="permutations of the randomised tests, resamples of the bootstrap "
                        f"(default {PERMUTATIONS}); with --meta also the replicates of its "
                        "bootstrap (default meta power's B, 1000)")
    parser.add_argument("--seed", type=non_negative, default=COMPARISON_SEED,
                        help="random seed of the randomised and bootstrap tests (default 42)")
    parser.add_argument("--power", action="store_true",
                        help="add each comparison's achieved power (Sakai 2016): the power of a "
                        "two-sided paired t test at --alpha with its n topics and its own "
                        "effect size d = t / sqrt(n), from the noncentral t with noncentrality "
                        "sqrt(n) |d| (column power, last)")
    parser.add_argument("--meta", action="store_true",
                        help="(html) add a Measures section: each measure's discriminative "
                        "power and difference required (bootstrap test of every pair of runs "
                        "at --alpha, --seed, B as meta power's unless --permutations is given; "
                        "the comparison's topics) and its ASL curve (Sakai 2006), as inexeval "
                        "meta power gives them")
    parser.add_argument("--bioasq-version", type=int, choices=(2, 3, 5, 8, 9), metavar="E",
                        help="BioASQ JSON files: the version of BioASQ's evaluator (its -e: 2, "
                        "3, 5, 8 or 9; default 8)")
    add_output_arguments(parser, formats)


def experiment(args: argparse.Namespace, *, assessments: str | None = None) -> Any:
    """The :class:`~inexeval.experiment.Experiment` of :func:`add_input_arguments` (other
    ``assessments`` for ``agree --assessments-b``)."""
    from inexeval.experiment import Experiment

    options = {"navigation": args.navigation, "ideal_run": args.ideal_run}
    return Experiment(
        assessments or args.assessments, list(args.runs), collection=args.collection,
        measures=args.measure or None, task=args.task,
        topics=None if args.topics is None else args.topics.split(","),
        complete=bool(getattr(args, "c", False)), order=args.order, limit=args.limit,
        keep_repeats=args.keep_repeats, num_docs=args.num_docs,
        jobs=getattr(args, "jobs", 1), run_format=args.run_format,
        assessments_format=args.assessments_format, implicit=args.implicit == "on",
        topic_file=args.topic_file, strict=args.strict,
        options={k: v for k, v in options.items() if v is not None},
        task_options={"beta": args.beta, "bep_n": args.bep_n, "irr": args.irr,
                      "exact_buckets": args.exact_buckets})


def write(args: argparse.Namespace, text: str | bytes, *inputs: str | None) -> None:
    """Print ``text``, or write it to ``-o FILE`` atomically (never over an input) and say so
    in one line on stderr (:func:`inexeval.outputs.write_output`)."""
    write_output(args.output, text, *inputs)


def comparison(args: argparse.Namespace, command: str) -> int:
    """``compare`` and ``report``: the runs evaluated under the rule (``any``, ``-c``: ``all``),
    compared, and the comparison written in the format asked for (``html``: the report)."""
    from inexeval.analysis.compare import check_request
    from inexeval.errors import InexevalError
    from inexeval.report.comparison import render_comparison

    inputs = (args.assessments, *args.runs, args.collection)
    if args.output is not None:
        from inexeval.outputs import check_output

        check_output(args.output, *inputs)
    tests = args.test or ["t"]
    if args.meta and args.format != "html":
        raise InexevalError("--meta adds a section to the HTML report: use it with --format "
                            "html (inexeval report); for tables, inexeval meta power")
    permutations = PERMUTATIONS if args.permutations is None else args.permutations
    check_request(tests, args.correction, all_pairs=args.all_pairs,
                  permutations=permutations, baseline=args.baseline,
                  wilcoxon=args.wilcoxon)
    if not args.meta and not set(tests) & RESAMPLING_TESTS:
        from inexeval.options import check_unused

        check_unused(args, {"permutations": None, "seed": COMPARISON_SEED}, set(),
                     f"the {', '.join(dict.fromkeys(tests))} test"
                     f"{'s' if len(set(tests)) > 1 else ''} (randomised, bootstrap and "
                     "randomised-tukey draw; so does --meta)")
    if len(args.runs) < 2:
        raise InexevalError(f"comparing needs at least two runs, not {len(args.runs)}")
    from inexeval.formats.probes import is_questions_csv

    if is_questions_csv(args.assessments):
        from inexeval.evaluation_spans import compare_span_runs

        return compare_span_runs(args, tests)
    from inexeval.formats.probes import looks_like_bioasq

    if looks_like_bioasq(args.assessments):
        from inexeval.evaluation_bioasq import compare_bioasq

        return compare_bioasq(args, tests, command)
    if getattr(args, "bioasq_version", None) is not None:
        raise InexevalError("--bioasq-version goes with BioASQ JSON files (GOLD.json "
                            "SYSTEM.json)", args.assessments)
    study = experiment(args)
    sys.stderr.write(study.note)
    evaluation = study.evaluate("all" if args.c else "any")
    compared = study.compare(baseline=args.baseline, test=tests, correction=args.correction,
                             all_pairs=args.all_pairs, alpha=args.alpha,
                             permutations=permutations, seed=args.seed,
                             evaluation=evaluation, power=args.power, wilcoxon=args.wilcoxon)
    if args.format == "html":
        import shlex

        text = study.report(compared, ranks=getattr(args, "ranks", 50), digits=args.digits,
                            command=shlex.join(getattr(args, "argv", ["inexeval", command])),
                            meta=args.meta, meta_replicates=args.permutations,
                            evaluation=evaluation)
    else:
        text = render_comparison(compared.relabelled(study.labels), args.format, args.digits)
    write(args, text, *inputs)
    return 0
