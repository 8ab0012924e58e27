"""``inexeval simulate``: runs built from the assessments, for experiments and sanity checks.

* ``grades``: the runs of each five-point grade (EA, PA, BA, NA) of Pehcevski (2006), the full
  recall base and the passage run, one run file each;
* ``ideal``: the ideal answer set of Lehtonen (2006) for a quantisation and sort key;
* ``random``: the randomised runs of Piwowarski and Dupret (2006): the EPRUM ideal run with every
  element moved by a random walk up or down the tree with move probability ``--move`` (seeded,
  reproducible).

Runs are written as TREC-like element runs (passage runs as FOL runs) into ``-o``, atomically
(:mod:`inexeval.outputs`); the folder that holds ``-o`` must exist, as for every command.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from inexeval.cli import non_negative
from inexeval.outputs import check_output, note

USED = {"grades": set(), "ideal": {"quant", "sort_key"}, "random": {"quant", "move", "seed"}}
"""The options of each kind of simulated run (the others are refused, not ignored)."""

NAME = "simulate"
HELP = "build simulated runs (five-point grades, ideal answer sets, randomised ideal runs)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=("grades", "ideal", "random"), help="which runs to build")
    parser.add_argument("assessments", metavar="ASSESSMENTS", help="assessment file or folder")
    parser.add_argument("-o", "--output", metavar="PATH", required=True,
                        help="output file (ideal, random) or folder (grades)")
    parser.add_argument("--collection", metavar="DIR|INDEX",
                        help="the XML documents or a saved index (needed by random, by the "
                        "grades passage run, and for sizes)")
    parser.add_argument("--quant", default=None,
                        help="quantisation (ideal: default generalised; random: default strict)")
    parser.add_argument("--sort-key", default="value",
                        help="ideal: the sort key of the answer set (default value)")
    parser.add_argument("--move", type=float, action="append",
                        help="random: move probability in [0, 1) (repeatable: one run each)")
    parser.add_argument("--seed", type=non_negative, default=0, help="random: seed of the walk (0)")
    parser.add_argument("--limit", type=non_negative, default=1500, help="results per topic (1500)")


def _write(run: Any, path: Path, args: argparse.Namespace) -> None:
    from inexeval.formats.fol import write_fol_run
    from inexeval.formats.trec import write_trec_run

    check_output(path, args.assessments, args.collection)
    (write_fol_run if run.kind == "passage" else write_trec_run)(run, path)
    note(f"wrote {path} ({sum(len(t) for t in run.values()):,} results of {len(run)} topics, "
         f"{path.stat().st_size:,} bytes)")


def run(args: argparse.Namespace) -> int:
    from inexeval.errors import InexevalError
    from inexeval.evaluation import with_implicit
    from inexeval.formats.detect import load_assessments
    from inexeval.options import check_unused

    check_unused(args, {"quant": None, "sort_key": "value", "move": None, "seed": 0},
                 USED[args.kind], f"simulate {args.kind}")
    for path in [args.assessments, *([args.collection] if args.collection else [])]:
        if not Path(path).exists():
            raise InexevalError("no such file or folder", path)
    check_output(args.output, args.assessments, *([args.collection] if args.collection else []),
                 folder=args.kind == "grades")
    collection = None
    if args.collection:
        from inexeval.collection.build import load_collection

        collection = load_collection(args.collection)
    assessments = load_assessments(args.assessments)
    if assessments.scale in ("inex2002", "inex2005"):
        assessments = with_implicit(assessments, collection=collection)
    out = Path(args.output)
    if args.kind == "grades":
        from inexeval.analysis.simulate import grade_runs

        if out.exists() and not out.is_dir():
            raise InexevalError("simulate grades writes a folder of runs, and this is a file",
                                out)
        out.mkdir(exist_ok=True)  # its parent exists (check_output), like every output's
        for name, simulated in grade_runs(assessments, limit=args.limit).items():
            _write(simulated, out / f"{name}.{'fol' if simulated.kind == 'passage' else 'txt'}",
                   args)
    elif args.kind == "ideal":
        from inexeval.analysis.simulate import ideal_answer_set

        _write(ideal_answer_set(assessments, quant=args.quant or "generalised",
                                sort_key=args.sort_key, limit=args.limit,
                                collection=collection), out, args)
    else:
        from inexeval.analysis.randomise import ideal_run, random_walk_run

        if collection is None:
            raise InexevalError("simulate random needs --collection (the trees to walk)")
        ideal = ideal_run(assessments, quant=args.quant or "strict")
        if args.limit:
            from dataclasses import replace

            ideal = replace(ideal, topics={t: r.take(slice(0, args.limit))
                                           for t, r in ideal.items()})
        from inexeval.progress import progress

        moves = args.move or [0.0]
        for move in progress(moves, "random runs", len(moves)):
            walked = random_walk_run(ideal, collection, move, seed=args.seed,
                                     name=f"random-m{move:g}")
            target = out if len(moves) == 1 else out.with_name(f"{out.stem}-m{move:g}{out.suffix}")
            _write(walked, target, args)
    return 0
