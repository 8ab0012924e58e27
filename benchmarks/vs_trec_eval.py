"""inexeval against trec_eval 10.0 on TREC document runs, side by side (issue 23, speed goals).

Generates the workload of the issue (seeded): 200 topics with 300 judged documents each (levels
0, 0, 0, 1, 2 drawn), and runs of 1,000 documents a topic (scores with ties, 4 decimals). The
measures ``map ndcg_cut_10 P_10 recip_rank bpref``. Times, start-up included:

* one run: ``trec_eval`` against ``inexeval trec_eval`` (and ``inexeval eval`` on the same
  measures in inexeval's names, which takes trec_eval's reader and kernels: issue 33);
* ten runs: ten ``trec_eval`` processes (as users run it) against one ``inexeval trec_eval``
  call with the ten runs (and one ``inexeval eval`` call);
* ranx's ``evaluate`` on the ten runs, timed after numba's compilation (and, apart, its
  reading of the files), in a Python that has ranx (``--ranx-python PATH``, e.g. a venv made
  for it: ranx is no dependency of inexeval; skipped without it); against it, the whole
  ``inexeval trec_eval`` call (start-up and reading included) and, timed as ranx is, inexeval's
  ``evaluate`` on the runs read beforehand, in one process and one thread.

The commands are run in turn, each once to warm up, then ``--repeat`` rounds of all of them
interleaved (trec_eval, then inexeval, ...), so that a busy machine slows both alike; the least
wall time and the least CPU time (the process's rusage, user + system, its worker processes
included) over the rounds are shown, and the peak memory (``ru_maxrss``). The outputs of trec_eval,
``inexeval trec_eval`` and ``inexeval eval --format trec_eval`` are compared (they must be the
same bytes). trec_eval is
``--trec-eval PATH``, ``$TREC_EVAL`` or on the PATH. The load (``uptime``) is printed before and
after.

    python benchmarks/vs_trec_eval.py [--topics 200] [--judged 300] [--depth 1000] [--runs 10]
        [--repeat 5] [--keep DIR] [--trec-eval PATH] [--ranx-python PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
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


def measure(commands: dict[str, list[list[str]]], repeat: int) -> dict[str, Measured]:
    """For each label, the least wall time and the least CPU over ``repeat`` rounds of running
    its commands one after the other (after one run to warm up), the labels interleaved in
    each round; and the peak RSS of any of them."""
    for group in commands.values():
        for command in group:
            subprocess.run(command, stdout=subprocess.DEVNULL, env=ENVIRONMENT, check=True)
    best = {label: Measured(float("inf"), float("inf"), 0.0) for label in commands}
    for _ in range(repeat):
        for label, group in commands.items():
            wall = cpu = 0.0
            for command in group:
                start = time.perf_counter()
                process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=ENVIRONMENT)
                _, status, usage = os.wait4(process.pid, 0)
                wall += time.perf_counter() - start
                if os.waitstatus_to_exitcode(status) != 0:
                    raise SystemExit(f"{' '.join(command[:4])} ... failed")
                cpu += usage.ru_utime + usage.ru_stime
                best[label].rss_mib = max(best[label].rss_mib, usage.ru_maxrss / 1024)
            best[label].wall = min(best[label].wall, wall)
            best[label].cpu = min(best[label].cpu, cpu)
    return best


def show(label: str, ours: Measured, theirs: Measured | None, name: str) -> None:
    print(f"  {label:34} wall {ours.wall:6.3f} s  cpu {ours.cpu:6.3f} s  "
          f"peak {ours.rss_mib:5.0f} MiB" + ("" if theirs is None else
                                            f"   ({ours.wall / theirs.wall:.2f}x {name}'s "
                                            f"wall, {ours.cpu / theirs.cpu:.2f}x its cpu)"))


TIMED = """
import sys, time
qrels, runs, repeat = sys.argv[1], sys.argv[2:-1], int(sys.argv[-1])
start = time.perf_counter()
{read}
reading = time.perf_counter() - start
evaluate_one(loaded[0])  # the first call: numba compiles here, caches fill
best = float("inf")
for _ in range(repeat):
    start = time.perf_counter()
    for run in loaded:
        evaluate_one(run)
    best = min(best, time.perf_counter() - start)
print(best, reading)
"""
"""A script timing a tool's evaluation of the runs read beforehand (``{read}`` reads them into
``loaded`` and defines ``evaluate_one(run)``): the least seconds over ``repeat`` rounds after
one call, and the seconds spent reading."""

RANX = TIMED.format(read="""
from ranx import Qrels, Run, evaluate
q = Qrels.from_file(qrels, kind="trec")
loaded = [Run.from_file(r, kind="trec") for r in runs]
metrics = ["map", "ndcg@10", "precision@10", "mrr", "bpref"]
evaluate_one = lambda run: evaluate(q, run, metrics)
""")

IN_PROCESS = TIMED.format(read="""
from inexeval.formats.trec_columns import read_trec_eval_qrels, read_trec_eval_run
from inexeval.measures.trec_eval import evaluate, judgements
judged = judgements(read_trec_eval_qrels(qrels))
loaded = [read_trec_eval_run(r) for r in runs]
measures = ["map", "ndcg_cut.10", "P.10", "recip_rank", "bpref"]
evaluate_one = lambda run: evaluate(judged, run, measures)
""")


def in_process_time(qrels: Path, runs: list[Path], repeat: int) -> float:
    """inexeval's evaluation of the runs read beforehand, in one process, timed as ranx's
    ``evaluate`` is: the least seconds over ``repeat`` rounds after one call."""
    done = subprocess.run([sys.executable, "-c", IN_PROCESS, str(qrels), *map(str, runs),
                           str(repeat)], capture_output=True, text=True, check=True,
                          env=ENVIRONMENT)
    return float(done.stdout.split()[0])


def ranx_time(python: str | None, qrels: Path, runs: list[Path],
              repeat: int) -> tuple[float, float] | None:
    """ranx's ``evaluate`` on the runs (read beforehand), the least seconds over ``repeat``
    rounds after a call that compiles its numba kernels, and the seconds it took to read the
    files; None without a Python that has ranx."""
    if python is None:
        return None
    done = subprocess.run([python, "-c", RANX, str(qrels), *map(str, runs), str(repeat)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"  ranx failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    seconds, reading = done.stdout.split()
    return float(seconds), float(reading)


def uptime() -> str:
    try:
        return "load average " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load average unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--judged", type=int, default=300)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL")
                        or shutil.which("trec_eval"))
    parser.add_argument("--keep", type=Path, help="write the workload into this folder (reused)")
    parser.add_argument("--ranx-python", metavar="PATH",
                        help="a Python with ranx installed (e.g. a venv's bin/python)")
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
            # several runs in one call: each block opens with its runid line (a documented
            # departure), which trec_eval prints for -m runid
            named = [args.trec_eval, "-m", "runid", *flags, str(qrels)]
            expected = "".join(subprocess.run([*(named if len(runs) > 1 else theirs), str(r)],
                                              capture_output=True, text=True,
                                              check=True).stdout for r in runs)
            got = subprocess.run([*ours, *map(str, runs)], capture_output=True, text=True,
                                 check=True, env=ENVIRONMENT).stdout
            layout = [sys.executable, "-m", "inexeval.cli", "eval", "--format", "trec_eval",
                      *flags, str(qrels), *map(str, runs)]
            evaluated = subprocess.run(layout, capture_output=True, text=True, check=True,
                                       env=ENVIRONMENT).stdout
            print("outputs: " + ("the same bytes" if got == expected else "DIFFERENT")
                  + "; inexeval eval --format trec_eval: "
                  + ("the same bytes" if evaluated == expected else "DIFFERENT"))
        else:
            print("skipping trec_eval: not found (--trec-eval PATH or $TREC_EVAL)")
        lines = args.topics * args.depth
        print(f"{args.topics} topics x {args.judged} judged, runs of {lines:,} lines; "
              f"measures {' '.join(MEASURES)}; least of {args.repeat} interleaved rounds; "
              f"{os.cpu_count()} processors; {uptime()}")
        floor = [sys.executable, "-c", "import numpy"]
        one: dict[str, list[list[str]]] = {"python + import numpy": [floor]}
        if theirs is not None:
            one["trec_eval"] = [[*theirs, str(runs[0])]]
        one["inexeval trec_eval"] = [[*ours, str(runs[0])]]
        one["inexeval eval"] = [[*element, str(runs[0])]]
        print("one run:")
        results = measure(one, args.repeat)
        reference = results.get("trec_eval")
        for label, measured in results.items():
            show(label, measured, None if label == "trec_eval" else reference, "trec_eval")
        print(f"{len(runs)} runs:")
        many: dict[str, list[list[str]]] = {}
        if theirs is not None:
            many[f"trec_eval, {len(runs)} processes"] = [[*theirs, str(r)] for r in runs]
        many["inexeval trec_eval, one call"] = [[*ours, *map(str, runs)]]
        many["  the same, --jobs 1"] = [[*ours, "--jobs", "1", *map(str, runs)]]
        many["inexeval eval, one call"] = [[*element, *map(str, runs)]]
        results = measure(many, args.repeat)
        reference = results.get(f"trec_eval, {len(runs)} processes")
        for label, measured in results.items():
            show(label, measured, None if label.startswith("trec_eval") else reference,
                 "trec_eval")
        timed = ranx_time(args.ranx_python, qrels, runs, args.repeat)
        if timed is None:
            print("  ranx evaluate: skipped (--ranx-python PATH of a Python with ranx)")
        else:
            ours_call = results["inexeval trec_eval, one call"]
            inside = in_process_time(qrels, runs, args.repeat)
            print(f"  ranx evaluate (compiled, in process) {timed[0]:6.3f} s, reading the files "
                  f"{timed[1]:.3f} s; inexeval trec_eval's whole call (start-up, reading, "
                  f"evaluating) is {ours_call.wall / timed[0]:.2f}x ranx's evaluate")
            print(f"  inexeval evaluate (in process, one thread, runs read beforehand, as ranx "
                  f"is timed) {inside:6.3f} s: {inside / timed[0]:.2f}x ranx's evaluate")
        print(f"after: {uptime()}")
    finally:
        if args.keep is None:
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
