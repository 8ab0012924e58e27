"""Time ``inexeval pool`` at campaign scale (issue 10): 100 runs x 107 topics pooled round-robin
to 500 articles per topic; the target is under 10 s for the whole command.

The runs are derived deterministically from a real run: each of the 107 INEX 2010 topics takes
the passages of one topic of the real FOL run ``ipcs/bert_inex_converted_1.run`` (cyclically);
run ``k`` replaces each of its articles with probability 0.6 by an article judged for that
topic in ``inex2010/inex2010.qrels`` (or by an article of another topic of the real run when
the topic has no judgements) and jitters the ranks, so the runs overlap as submitted runs do.
They are written to ``--folder`` (default /tmp/inexeval-bench-pool) once and reused.

    python benchmarks/bench_pool.py [--runs 100] [--articles 500] [--folder DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

SHARED = Path(os.environ.get("INEXEVAL_SHARED",
                           Path(__file__).resolve().parents[2] / "shared")) / "data"
REAL_RUN = SHARED / "ipcs" / "bert_inex_converted_1.run"
QRELS = SHARED / "inex2010" / "inex2010.qrels"
TOPICS = SHARED / "inex2010" / "2010-topics.xml"


def _real_run() -> dict[str, list[tuple[str, int, int]]]:
    results: dict[str, list[tuple[str, int, int]]] = {}
    for line in REAL_RUN.read_text().splitlines():
        topic, _, file, _, _, _, offset, length = line.split()
        results.setdefault(topic, []).append((file, int(offset), int(length)))
    return results


def _judged() -> dict[str, list[str]]:
    judged: dict[str, list[str]] = {}
    for line in QRELS.read_text().splitlines():
        fields = line.split()
        if fields:
            judged.setdefault(fields[0], []).append(fields[2])
    return judged


Swaps = Callable[[np.random.Generator, str, list[tuple[str, int, int]], dict[str, list[str]],
                  list[str]], dict[str, str]]
"""Which articles of a topic's results a derived run replaces, and by what: ``(rng, topic,
results, judged articles per topic, every article)``."""


def write_runs(paths: list[Path], run_id: Callable[[int, Path], str], swaps: Swaps) -> None:
    """Write FOL runs over the 107 INEX 2010 topics: run k takes the real run's results of
    topic t from one of its topics, replaces the articles ``swaps`` picks and perturbs the
    ranks, all drawn from ``default_rng(k * 1000 + t)``."""
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    real = _real_run()
    sources = sorted(real)
    judged = _judged()
    topics = re.findall(r'<topic[^>]*\bid="(\d+)"', TOPICS.read_text())
    every = sorted({f for items in real.values() for f, _, _ in items})
    for k, path in enumerate(paths):
        lines = []
        for t, topic in enumerate(topics):
            items = real[sources[t % len(sources)]]
            rng = np.random.default_rng(k * 1000 + t)
            swap = swaps(rng, topic, items, judged, every)
            order = np.argsort(np.arange(len(items)) + rng.normal(0, 20, len(items)),
                               kind="stable")
            for rank, i in enumerate(order, 1):
                file, offset, length = items[int(i)]
                lines.append(f"{topic} Q0 {swap.get(file, file)} {rank} {1.0 / rank:.6f} "
                             f"{run_id(k, path)} {offset} {length}\n")
        path.write_text("".join(lines))


def _random_swaps(rng: np.random.Generator, topic: str, items: list[tuple[str, int, int]],
                  judged: dict[str, list[str]], every: list[str]) -> dict[str, str]:
    """Each article, with probability 0.6, replaced by a judged article of the topic (or any)."""
    candidates = judged.get(topic) or every
    articles = sorted({f for f, _, _ in items})
    return {a: str(candidates[int(rng.integers(len(candidates)))])
            for a in articles if rng.random() < 0.6}


def make_runs(folder: Path, count: int) -> list[Path]:
    """Write ``count`` FOL runs over the 107 INEX 2010 topics into ``folder`` (once)."""
    paths = [folder / f"run{k:03d}.fol" for k in range(count)]
    if not all(p.exists() for p in paths):
        write_runs(paths, lambda k, _: f"bench{k:03d}", _random_swaps)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--articles", type=int, default=500)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/inexeval-bench-pool"))
    args = parser.parse_args()
    runs = make_runs(args.folder, args.runs)
    size = sum(p.stat().st_size for p in runs)
    lines = sum(p.read_bytes().count(b"\n") for p in runs)
    print(f"{len(runs)} runs, {lines} results, {size / 1e6:.1f} MB in {args.folder}")

    out = args.folder / "pool.tsv"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "inexeval.cli", "pool", *map(str, runs),
                    "--articles", str(args.articles), "-o", str(out)], check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    pool_lines = out.read_text().splitlines()
    topics = {line.split("\t")[0] for line in pool_lines}
    print(f"inexeval pool --articles {args.articles}: wall {wall:.2f} s, CPU {cpu:.2f} s; "
          f"{len(pool_lines)} pooled articles over {len(topics)} topics "
          f"(target: under 10 s wall)")

    from inexeval.analysis.pooling import pool_runs
    from inexeval.formats.detect import load_run

    start, cpu_start = time.perf_counter(), time.process_time()
    loaded = [load_run(p) for p in runs]
    reading = time.perf_counter() - start, time.process_time() - cpu_start
    start, cpu_start = time.perf_counter(), time.process_time()
    pool_runs(loaded, articles=args.articles)
    pooling = time.perf_counter() - start, time.process_time() - cpu_start
    print(f"in process: reading the runs (inexeval.load_run) wall {reading[0]:.2f} s, CPU "
          f"{reading[1]:.2f} s; pooling (pool_runs) wall {pooling[0]:.2f} s, CPU "
          f"{pooling[1]:.2f} s")

if __name__ == "__main__":
    main()
