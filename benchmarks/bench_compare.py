"""Time ``inexeval compare``: 100 runs x 107 topics (INEX 2010 Focused, the real qrels), the five
official Focused measures, the randomised test with B = 10,000 against one baseline.

Runs are generated deterministically from the qrels (``bench_focused.write_runs`` for the 52
assessed topics, plus results for the 55 other topics of the INEX 2010 topic set, which the
evaluation ignores as unassessed). The evaluation (``eval -c``'s per-topic values) and the
comparison are timed apart; the goal is the comparison under 10 s on 2 cores.

    python benchmarks/bench_compare.py [--runs 100] [--passages 150] [--jobs 1]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
import warnings
from pathlib import Path

from bench_focused import QRELS, write_runs

from inexeval.analysis.compare import compare_scores
from inexeval.defaults import HEADLINE
from inexeval.experiment import Experiment
from inexeval.formats.fol import read_fol_qrels

TOPICS = QRELS.parent / "2010-topics.xml"


def add_unassessed_topics(paths: list[Path], assessed: set[str]) -> int:
    """Append ten results for every topic of the topic set without assessments; the number of
    topics per run afterwards."""
    ids = re.findall(r'<topic id="(\d+)"', TOPICS.read_text())
    others = [t for t in ids if t not in assessed]
    for number, path in enumerate(paths):
        with path.open("a") as out:
            for topic in others:
                for rank in range(1, 11):
                    out.write(f"{topic} Q0 x{rank} {rank} {1 / rank:.6f} run{number} 0 100\n")
    return len(assessed | set(others))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--passages", type=int, default=150, help="per assessed topic")
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    qrels = read_fol_qrels(QRELS)
    measures = HEADLINE["focused"]
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unassessed topics, said once per run
        paths = write_runs(qrels, Path(tmp), args.runs, args.passages, seed=1)
        topics = add_unassessed_topics(paths, set(qrels))
        start = time.perf_counter()
        study = Experiment(qrels, [str(p) for p in paths], task="focused", jobs=args.jobs,
                           complete=True)
        scores = study.evaluate().scores
        evaluated = time.perf_counter() - start
    start = time.perf_counter()
    import scipy.stats  # noqa: F401  (once per command; timed apart)

    imported = time.perf_counter() - start
    timings = {}
    for test in ("randomised", "t"):
        start = time.perf_counter()
        comparison = compare_scores(scores, measures, tests=[test],
                                    permutations=args.permutations, seed=42)
        timings[test] = time.perf_counter() - start
    print(f"{args.runs} runs x {topics} topics ({len(qrels)} assessed), {len(measures)} measures, "
          f"{len(comparison.rows)} comparisons per test")
    print(f"read + evaluate (--jobs {args.jobs}): {evaluated:.1f} s")
    print(f"import scipy.stats (once per command): {imported:.2f} s")
    print(f"compare, randomised B = {args.permutations:,}: {timings['randomised']:.2f} s "
          f"(goal < 10 s); paired t: {timings['t']:.2f} s")


if __name__ == "__main__":
    main()
