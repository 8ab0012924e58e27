"""inexeval against the official INEX evaluator (inex_eval 3.1), side by side (issue 12, goals 1-2).

Derives runs from the real bert run of ``data/ipcs`` (about 18,700 lines each): run ``k`` keeps
every line but perturbs scores and swaps neighbouring passages of a topic deterministically, so
each run is a different ranking of the same passages (never overlapping ones). Then both tools
evaluate the same runs with ``--task focused`` (the jar: ``-f``), all runs in one call each, as a
user would run them, and again on one run. CPU is the children's rusage (user + system), peak
memory their ``ru_maxrss``. Skips with a message where java or the jar is missing.

    python benchmarks/vs_official.py [--runs 100] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

SHARED = Path(os.environ.get("INEXEVAL_SHARED", Path(__file__).resolve().parents[2] / "shared"))
JAR = SHARED / "tools" / "inex_eval.jar"
QRELS = SHARED / "data" / "ipcs" / "INEX_Qrels.txt"
BERT = SHARED / "data" / "ipcs" / "bert_inex_converted_1.run"


@dataclass
class Measured:
    wall: float
    cpu: float
    rss_mib: float


def derive_runs(source: Path, folder: Path, count: int) -> list[Path]:
    """``count`` runs from ``source``: scores jittered, neighbours of a topic swapped at random
    (seeded by the run's number), run-id ``derivedK``."""
    lines = source.read_text().splitlines()
    paths = []
    for k in range(count):
        rng = random.Random(k)
        out = list(lines)
        for i in range(len(out) - 1):
            if out[i].split(None, 1)[0] == out[i + 1].split(None, 1)[0] and rng.random() < 0.3:
                out[i], out[i + 1] = out[i + 1], out[i]
        rows = []
        for rank, line in enumerate(out, 1):
            f = line.split()
            score = float(f[4]) * (1 + rng.uniform(-0.01, 0.01))
            rows.append(f"{f[0]} Q0 {f[2]} {rank} {score:.7g} derived{k} {f[6]} {f[7]}\n")
        path = folder / f"derived{k:03d}.run"
        path.write_text("".join(rows))
        paths.append(path)
    return paths


# As a user runs an installed package: modules compiled once (pip writes the .pyc files at
# install time), not at every start as with PYTHONDONTWRITEBYTECODE set.
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(command: list[str]) -> Measured:
    """Wall time, CPU (user + system) and peak RSS of one command run to completion, after one
    run to warm up (file cache, compiled modules) that is not counted."""
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=ENVIRONMENT, check=False)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=ENVIRONMENT)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.stderr is not None
    errors = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} ... failed ({process.returncode}): {errors}")
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def compare(label: str, runs: list[Path], *options: str, qrels: Path = QRELS) -> None:
    java = shutil.which("java")
    official = (measure([java, "-jar", str(JAR), "-f", str(qrels), *map(str, runs)])
                if java and JAR.exists() else None)
    ours = measure([sys.executable, "-m", "inexeval.cli", "eval", "--task", "focused",
                    *options, str(qrels), *map(str, runs)])
    print(f"{label}:")
    print(f"  inexeval  wall {ours.wall:6.2f} s  cpu {ours.cpu:6.2f} s  peak {ours.rss_mib:6.0f} MiB")
    if official is None:
        return
    print(f"  inex_eval wall {official.wall:6.2f} s  cpu {official.cpu:6.2f} s  "
          f"peak {official.rss_mib:6.0f} MiB")
    print(f"  ratio     wall {ours.wall / official.wall:6.2f}    cpu {ours.cpu / official.cpu:6.2f}"
          f"    peak {ours.rss_mib / official.rss_mib:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--keep", type=Path, help="derive the runs into this folder (reused)")
    args = parser.parse_args()
    if shutil.which("java") is None:
        print("skipping the official evaluator: java is not installed (inexeval alone below)")
    elif not JAR.exists():
        print(f"skipping the official evaluator: {JAR} is missing (inexeval alone below)")
    folder = args.keep or Path(tempfile.mkdtemp(prefix="inexeval-vs-official-"))
    folder.mkdir(parents=True, exist_ok=True)
    runs = sorted(folder.glob("derived*.run"))[: args.runs]
    if len(runs) < args.runs:
        runs = derive_runs(BERT, folder, args.runs)
    try:
        compare(f"{len(runs)} runs, --task focused, one call", runs)
        compare(f"{len(runs)} runs, --task focused --jobs 2, one call", runs, "--jobs", "2")
        compare("1 run", runs[:1])
        # start-up: one judged article, a one-line run
        tiny_qrels, tiny_run = folder / "tiny.qrels", folder / "tiny.fol"
        tiny_qrels.write_text("2010001 Q0 100 10 50 0 0:10\n")
        tiny_run.write_text("2010001 Q0 100 1 1.0 tiny 0 10\n")
        compare("start-up (a one-line run and qrels)", [tiny_run], qrels=tiny_qrels)
    finally:
        if args.keep is None:
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
