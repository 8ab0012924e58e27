"""Benchmark of issue 2: ``inexeval eval`` at INEX 2005 scale.

A 2,000-document collection, 30 topics with ~5,000 judged elements each, 50 runs of 1,500
results per topic; one ``inexeval eval`` call with P@k (7 cut-offs x 4 quantisations),
overlap@k (7 cut-offs) and inex_eval (2 quantisations) over all 50 runs. Prints the time to
index the collection, to read the inputs, to compute the measures, and the whole command.

    python benchmarks/bench_eval.py [--runs 50] [--keep DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import make_element_workload

CUTOFFS = (5, 10, 20, 30, 100, 200, 1500)
QUANTS = ("strict", "liberal", "e3s321", "s3e321")


def measures() -> list[str]:
    out = [f"P(quant={q})@{k}" for q in QUANTS for k in CUTOFFS]
    out += [f"overlap@{k}" for k in CUTOFFS]
    return out + ["inex_eval(quant=strict)", "inex_eval(quant=generalised)"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--keep", type=Path, help="write the workload here and keep it")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="inexeval-bench-"))
    t0 = time.perf_counter()
    work = make_element_workload(folder, runs=args.runs)
    print(f"workload generated in {time.perf_counter() - t0:.1f} s under {folder}")

    from inexeval.collection.build import build_index, save_index
    from inexeval.evaluation import Evaluator
    from inexeval.formats.detect import load_assessments, load_run

    t0 = time.perf_counter()
    index = build_index(work.collection)
    save_index(index, folder / "collection.idx")
    print(f"index of {index.num_docs} documents built and saved: {time.perf_counter() - t0:.2f} s")

    t0 = time.perf_counter()
    qrels = load_assessments(work.assessments)
    runs = [load_run(p) for p in work.runs]
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    results = Evaluator(measures(), qrels, num_docs=work.num_docs).evaluate(runs)
    compute = time.perf_counter() - t0
    print(f"in process: reading inputs {read:.2f} s, measures {compute:.2f} s "
          f"({len(results.rows)} values)")

    command = ["inexeval", "eval", str(work.assessments), *map(str, work.runs),
               "--collection", str(folder / "collection.idx")]
    for m in measures():
        command += ["-m", m]
    t0 = time.perf_counter()
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    total = time.perf_counter() - t0
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        sys.exit(done.returncode)
    print(f"whole command `inexeval eval` on {len(work.runs)} runs: {total:.2f} s "
          f"({len(done.stdout.splitlines())} lines)")


if __name__ == "__main__":
    main()
