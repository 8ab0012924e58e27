"""Time the Focused task on 100 synthetic runs of 52 topics x 1,500 passages (INEX 2010 qrels).

Runs are generated into a temporary directory from the real qrels (a mix of relevant and
non-relevant judged articles and unjudged ones, non-overlapping passages), then read and
evaluated in one call, as ``inexeval eval QRELS RUN... --task focused`` does. The official
evaluator needs about 1.5 s per 180,000-line run including JVM start; the goal here is the
whole batch in under 60 s.

    python benchmarks/bench_focused.py [--runs 100] [--passages 1500] [--task focused]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

from inexeval.formats.fol import read_fol_qrels, read_fol_run
from inexeval.measures.focused import TASKS, evaluate_task
from inexeval.model import Assessments

QRELS = Path(os.environ.get("INEXEVAL_SHARED", Path(__file__).resolve().parents[2] / "shared")
             ) / "data" / "inex2010" / "inex2010.qrels"


def write_runs(qrels: Assessments, folder: Path, runs: int, passages: int, seed: int) -> list[Path]:
    """Synthetic FOL runs: per topic, judged articles in random order (and 10% unjudged ones),
    each appearing once with 1-5 consecutive non-overlapping passages."""
    rng = random.Random(seed)
    paths = []
    for number in range(runs):
        lines = []
        for topic, judged in qrels.items():
            articles = judged.files.tolist()
            lengths = dict(zip(articles, judged.dim("length").tolist()))
            order = rng.sample(articles, len(articles))
            written = 0
            while written < passages:
                unjudged = not order or rng.random() < 0.1
                article = f"u{rng.randrange(10**9)}" if unjudged else order.pop()
                size = max(int(lengths.get(article, 5000)), 50)
                offset = rng.randrange(0, size // 2)
                for _ in range(min(rng.randint(1, 5), passages - written)):
                    length = rng.randint(1, 400)
                    lines.append(f"{topic} Q0 {article} {written + 1} {1.0 / (written + 1):.6f} "
                                 f"run{number} {offset} {length}\n")
                    offset += length + rng.randint(0, 200)
                    written += 1
        path = folder / f"run{number}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--passages", type=int, default=1500)
    parser.add_argument("--task", default="focused", choices=TASKS)
    args = parser.parse_args()
    qrels = read_fol_qrels(QRELS)
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_runs(qrels, Path(tmp), args.runs, args.passages, seed=1)
        lines = sum(1 for p in paths for _ in p.open())
        task = args.task
        if task in ("relevant-in-context", "best-in-context", "t2i"):
            print("note: synthetic runs interleave articles; only focused/thorough are timed")
            task = "focused"
        start = time.perf_counter()
        runs = [read_fol_run(p) for p in paths]
        read = time.perf_counter() - start
        results = evaluate_task(qrels, runs, task, per_topic=True)
        total = time.perf_counter() - start
    print(f"{args.runs} runs, {lines:,} lines, task {task}: read {read:.1f} s, "
          f"evaluate {total - read:.1f} s, total {total:.1f} s "
          f"({total / args.runs * 1000:.0f} ms per run; {len(results.rows):,} per-topic values)")


if __name__ == "__main__":
    main()
