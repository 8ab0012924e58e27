"""Time ``inexeval meta pooling`` at campaign scale (issue 24): 6 strategies × 10 budgets on
100 runs × 107 topics, against the INEX 2010 qrels (the 52 judged topics make the study).

The runs are bench_pool.py's (100 FOL runs derived from a real run, over the 107 INEX 2010
topics), written to ``--folder`` once and reused. The study runs as a user types it, serially
and with ``--jobs``; the outputs must be the same bytes. Prints wall and CPU time of each and
the curves of the serial run.

    python benchmarks/bench_pooling.py [--runs 100] [--jobs 2] [--folder DIR]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pool import QRELS, make_runs

STRATEGIES = "depth,take,mtf,bandit,bandit:ucb,hedge"
BUDGETS = "10,20,30,50,75,100,150,200,300,500"


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of a command (children included) and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/inexeval-bench-pool"))
    args = parser.parse_args()
    runs = make_runs(args.folder, args.runs)
    command = [sys.executable, "-m", "inexeval.cli", "meta", "pooling", str(QRELS),
               *map(str, runs), "--strategies", STRATEGIES, "--budgets", BUDGETS]
    wall, cpu, serial = timed(command)
    print(f"meta pooling, {len(runs)} runs, 6 strategies x 10 budgets: wall {wall:.2f} s, "
          f"CPU {cpu:.2f} s")
    wall, cpu, forked = timed([*command, "--jobs", str(args.jobs)])
    print(f"  --jobs {args.jobs}: wall {wall:.2f} s, CPU {cpu:.2f} s; same output: "
          f"{forked == serial}")
    sys.stdout.write(serial)


if __name__ == "__main__":
    main()
