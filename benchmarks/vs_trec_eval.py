"""inexeval against trec_eval 10.0 on TREC document runs, side by side (issue 23, speed goals).

Generates the workload of the issue (seeded): 200 topics with 300 judged documents each (levels
0, 0, 0, 1, 2 drawn), and runs of 1,000 documents a topic (scores with ties, 4 decimals). The
measures ``map ndcg_cut_10 P_10 recip_rank bpref``. Times, start-up included:

* one run: ``trec_eval`` against ``inexeval trec_eval`` (and ``inexeval eval`` on the same
  measures, the element-measure path);
* ten runs: ten ``trec_eval`` processes (as users run it) against one ``inexeval trec_eval``
  call with the ten runs (and one ``inexeval eval`` call);
* ranx's ``evaluate`` on the ten runs, timed after numba's compilation, in this process
  (``pip install ranx``; skipped without it).

CPU is the children's rusage (user + system), peak memory their ``ru_maxrss``; every command runs
once to warm up first. The outputs of trec_eval and ``inexeval trec_eval`` are compared (they
must be the same bytes). trec_eval is ``--trec-eval PATH``, ``$TREC_EVAL`` or on the PATH.

    python benchmarks/vs_trec_eval.py [--topics 200] [--judged 300] [--depth 1000] [--runs 10]
        [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MEASURES = ["map", "ndcg_cut.10", "P.10", "recip_rank", "bpref"]
ELEMENT_MEASURES = ["AP", "nDCG@10", "P@10", "RR", "bpref"]
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass
class Measured:
    wall: float
    cpu: float
    rss_mib: float


def generate(folder: Path, topics: int, judged: int, depth: int, runs: int) -> tuple[Path,
                                                                                   list[Path]]:
    """The qrels and ``runs`` runs of the workload, written once into ``folder``."""
    rng = np.random.default_rng(23)
    pool = max(5 * judged, 2 * depth)
    qrels = folder / "qrels"
    if not qrels.exists():
        with qrels.open("w") as out:
            for t in range(1, topics + 1):
                documents = rng.choice(pool, judged, replace=False)
                levels = rng.choice([0, 0, 0, 1, 2], judged)
                out.writelines(f"{t} 0 doc{d:06d} {v}\n" for d, v in zip(documents, levels))
    paths = []
    for r in range(runs):
        path = folder / f"run{r:02d}"
        paths.append(path)
        if path.exists():
            continue
        with path.open("w") as out:
            for t in range(1, topics + 1):
                documents = rng.choice(pool, depth, replace=False)
                scores = np.round(rng.normal(size=depth), 2)  # ties
                order = np.argsort(-scores, kind="stable")
                out.writelines(f"{t} Q0 doc{documents[j]:06d} {i} {scores[j]} run{r}\n"
                               for i, j in enumerate(order, 1))
    return qrels, paths


def measure(commands: list[list[str]], repeat: int) -> Measured:
    """Median wall time and CPU over ``repeat`` times of running ``commands`` one after the
    other (after one run to warm up), and the peak RSS of any of them."""
    for command in commands:
        subprocess.run(command, stdout=subprocess.DEVNULL, env=ENVIRONMENT, check=True)
    walls, cpus, peak = [], [], 0.0
    for _ in range(repeat):
        wall = cpu = 0.0
        for command in commands:
            start = time.perf_counter()
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=ENVIRONMENT)
            _, status, usage = os.wait4(process.pid, 0)
            wall += time.perf_counter() - start
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"{' '.join(command[:4])} ... failed")
            cpu += usage.ru_utime + usage.ru_stime
            peak = max(peak, usage.ru_maxrss / 1024)
        walls.append(wall)
        cpus.append(cpu)
    return Measured(statistics.median(walls), statistics.median(cpus), peak)


def show(label: str, ours: Measured, theirs: Measured | None, name: str) -> None:
    print(f"  {label:34} wall {ours.wall:6.2f} s  cpu {ours.cpu:6.2f} s  "
          f"peak {ours.rss_mib:5.0f} MiB" + ("" if theirs is None else
                                            f"   ({ours.wall / theirs.wall:.2f}x {name}'s "
                                            f"wall, {ours.cpu / theirs.cpu:.2f}x its cpu)"))


def ranx_time(qrels: Path, runs: list[Path], repeat: int) -> float | None:
    """ranx's ``evaluate`` on the runs (read beforehand), median seconds after a warm-up call
    that compiles its numba kernels; None without ranx."""
    try:
        from ranx import Qrels, Run, evaluate
    except ImportError:
        return None
    q = Qrels.from_file(str(qrels), kind="trec")
    loaded = [Run.from_file(str(r), kind="trec") for r in runs]
    metrics = ["map", "ndcg@10", "precision@10", "mrr", "bpref"]
    evaluate(q, loaded[0], metrics)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for run in loaded:
            evaluate(q, run, metrics)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--judged", type=int, default=300)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL")
                        or shutil.which("trec_eval"))
    parser.add_argument("--keep", type=Path, help="write the workload into this folder (reused)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="inexeval-vs-trec_eval-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        qrels, runs = generate(folder, args.topics, args.judged, args.depth, args.runs)
        flags = [f for m in MEASURES for f in ("-m", m)]
        ours = [sys.executable, "-m", "inexeval.cli", "trec_eval", *flags, str(qrels)]
        element = [sys.executable, "-m", "inexeval.cli", "eval",
                   *[f for m in ELEMENT_MEASURES for f in ("-m", m)], str(qrels)]
        theirs = [args.trec_eval, *flags, str(qrels)] if args.trec_eval else None
        if theirs is not None:
            expected = "".join(subprocess.run([*theirs, str(r)], capture_output=True,
                                              text=True, check=True).stdout for r in runs)
            got = subprocess.run([*ours, *map(str, runs)], capture_output=True, text=True,
                                 check=True, env=ENVIRONMENT).stdout
            print("outputs: " + ("the same bytes" if got == expected else "DIFFERENT"))
        else:
            print("skipping trec_eval: not found (--trec-eval PATH or $TREC_EVAL)")
        lines = args.topics * args.depth
        print(f"{args.topics} topics x {args.judged} judged, runs of {lines:,} lines; "
              f"measures {' '.join(MEASURES)}; median of {args.repeat}")
        print("one run:")
        reference = measure([[*theirs, str(runs[0])]], args.repeat) if theirs else None
        if reference is not None:
            show("trec_eval", reference, None, "")
        show("inexeval trec_eval", measure([[*ours, str(runs[0])]], args.repeat), reference,
             "trec_eval")
        show("inexeval eval", measure([[*element, str(runs[0])]], args.repeat), reference,
             "trec_eval")
        print(f"{len(runs)} runs:")
        reference = (measure([[*theirs, str(r)] for r in runs], args.repeat)
                     if theirs else None)
        if reference is not None:
            show(f"trec_eval, {len(runs)} processes", reference, None, "")
        show("inexeval trec_eval, one call", measure([[*ours, *map(str, runs)]], args.repeat),
             reference, "trec_eval")
        show("inexeval eval, one call", measure([[*element, *map(str, runs)]], args.repeat),
             reference, "trec_eval")
        seconds = ranx_time(qrels, runs, args.repeat)
        print("  ranx evaluate (compiled, in process): " + (
            "skipped (pip install ranx)" if seconds is None else f"{seconds:.2f} s"))
    finally:
        if args.keep is None:
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
