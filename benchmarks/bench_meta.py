"""Time ``inexeval meta power`` and ``meta swap``: 100 runs x 107 topics x 5 measures, B = 1000
(bootstrap and randomised Tukey HSD), 1000 pairs of topic sets per size (5 to 53 topics).

The matrix of scores is generated (a study's cost depends only on its shape): run effects plus
topic effects plus noise, clipped to [0, 1], one measure on P@10's grid of tenths; or read
from ``--scores FILE`` (``inexeval eval -q --format scores``). Each study is timed in wall-clock
and CPU seconds (this process and its workers), with the peak resident memory; the goal is
under 30 s each on 2 cores.

    python benchmarks/bench_meta.py [--jobs 2] [--replicates 1000] [--subsets 1000]
"""

from __future__ import annotations

import argparse
import os
import resource
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the command line sets it

import numpy as np

from inexeval.executor import make_executor
from inexeval.meta.power import power_study
from inexeval.meta.swap import swap_study
from inexeval.scores import Scores


def generated(runs: int, topics: int, measures: int, seed: int = 1) -> Scores:
    rng = np.random.default_rng(seed)
    run_effect = rng.normal(0.0, 0.08, size=(runs, 1, 1))
    topic_effect = rng.normal(0.0, 0.15, size=(1, topics, 1))
    values = np.clip(0.3 + run_effect + topic_effect
                     + rng.normal(0.0, 0.12, size=(runs, topics, measures)), 0.0, 1.0)
    values[:, :, 0] = np.round(values[:, :, 0] * 10) / 10
    return Scores(tuple(f"run{i:03d}" for i in range(runs)),
                  tuple(str(2010000 + t) for t in range(topics)),
                  ("P@10", *(f"M{k}" for k in range(1, measures))), values,
                  np.ones((runs, topics), dtype=bool), "all")


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(label: str, study: object) -> None:
    wall, used = time.perf_counter(), cpu()
    result = study()  # type: ignore[operator]
    wall, used = time.perf_counter() - wall, cpu() - used
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    print(f"{label:<34} {wall:7.2f} s wall {used:7.2f} s CPU  peak {peak:6.0f} MB  "
          f"({result})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scores", help="a saved scores file instead of generated scores")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=107)
    parser.add_argument("--measures", type=int, default=5)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--subsets", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    if args.scores:
        from inexeval.formats.scores import read_scores

        scores = read_scores(args.scores)
    else:
        scores = generated(args.runs, args.topics, args.measures)
    print(f"{scores!r}, jobs {args.jobs}")
    executor = make_executor(args.jobs)
    for method in ("bootstrap", "randomised-tukey"):
        timed(f"meta power {method}", lambda method=method: " ".join(
            f"{r.measure} {r.discriminative_power:.3f}"
            for r in power_study(scores, method=method, replicates=args.replicates,
                                 executor=executor)))
    timed("meta swap", lambda: " ".join(
        f"{r.measure} {r.min_difference(len(scores.topics))}"
        for r in swap_study(scores, subsets=args.subsets, executor=executor)))


if __name__ == "__main__":
    main()
