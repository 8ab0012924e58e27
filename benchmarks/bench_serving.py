"""Time what an adaptive campaign does on each serve (issue 24, ``assess init --strategy``):
the strategy replayed on the judgements so far (:func:`inexeval.assess.adaptive.chooser`),
for one INEX 2010 topic pooled from 100 runs to depth 100.

The runs are bench_pool.py's (100 FOL runs over the 107 INEX 2010 topics); one assessor
answers by the INEX 2010 qrels in the order served. Prints the CPU time of the serve after 0,
100, 400 and 800 judgements (the replay grows with the judgements) for each strategy.

    python benchmarks/bench_serving.py [--runs 100] [--depth 100] [--topic 2010003]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pool import QRELS, make_runs

from inexeval.analysis.pooling import topic_candidates, unit_relevance
from inexeval.analysis.strategies import StrategyOptions
from inexeval.assess.adaptive import Plan, candidates_json, chooser
from inexeval.assess.model import Judgement
from inexeval.formats.detect import load_assessments, load_run

STRATEGIES = (("depth", "mm-ns"), ("take", "mm-ns"), ("mtf", "mm-ns"), ("bandit", "mm-ns"),
              ("bandit", "ucb"), ("hedge", "mm-ns"))
CHECKPOINTS = (0, 100, 400, 800)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--topic", default="2010003")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/inexeval-bench-pool"))
    args = parser.parse_args()
    runs = [load_run(str(p)) for p in make_runs(args.folder, args.runs)]
    tc = topic_candidates(runs, args.topic, args.depth)
    relevant = unit_relevance(load_assessments(str(QRELS)), args.topic, tc.files, tc.paths,
                              "article")
    assert relevant is not None
    truth = dict(zip(tc.files.tolist(), relevant.tolist()))
    stored = candidates_json(tc, 0)
    print(f"topic {args.topic}: {tc.candidates.size} articles in the depth-{args.depth} pool "
          f"of {args.runs} runs, {int(relevant.sum())} relevant; candidates "
          f"{len(stored):,} bytes of JSON")
    print("strategy\t" + "\t".join(f"serve after {k} (ms CPU)" for k in CHECKPOINTS))
    for name, bandit in STRATEGIES:
        choose = chooser(Plan(name, args.depth, None, StrategyOptions(bandit=bandit)))
        given: list[tuple[str, str, bool]] = []
        done: list[Judgement] = []
        times = []
        while len(given) <= max(CHECKPOINTS) and len(given) < tc.candidates.size:
            start = time.process_time()
            file = choose(stored, given, done)
            elapsed = time.process_time() - start
            if len(given) in CHECKPOINTS:
                times.append(f"{1000 * elapsed:.1f}")
            if file is None:
                break
            given.append((file, "a", True))
            done.append(Judgement("t", file, "a", status="done",
                                  passages=((0, 1),) if truth[file] else ()))
        label = name if name != "bandit" else f"bandit:{bandit}"
        print(f"{label}\t" + "\t".join(times))


if __name__ == "__main__":
    main()
