"""Time ``inexeval meta reuse`` (issue 21): leave-one-group-out for 100 runs in 25 groups x the
107 INEX 2010 topics, ``--task focused``, at ``--jobs 1`` and ``--jobs 2``, on a running Dask
cluster (``dask scheduler`` and 1 or 2 ``dask worker`` processes started first, as a user starts
them) and with ``--scheduler local:2`` (the cluster started by the command); prints wall and CPU
time (the command's, its children's and the cluster's meanwhile), the parallel efficiency (wall
at 1 worker / (2 x wall at 2 workers)) and Dask's overhead on 2 workers against ``--jobs 2``
(the goal: under 10%). Each output is checked to be the same bytes as ``--jobs 1``.

The runs are derived from the real data as ``bench_pool.py`` derives them: topic ``t`` of run
``k`` takes the passages of one topic of the real FOL run ``ipcs/bert_inex_converted_1.run``
(cyclically), each article replaced with probability 0.6 by an article judged for that topic in
``inex2010/inex2010.qrels`` (one not already in the list, so no two passages overlap, as the
focused task requires), ranks jittered. Run ``k`` is named ``gGGrR`` (group ``k // 4``), written
to ``--folder`` (default /tmp/inexeval-bench-pools) once and reused.

    python benchmarks/bench_pools.py [--runs 100] [--groups 25] [--folder DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pool import QRELS, TOPICS, _judged, _real_run


def make_runs(folder: Path, count: int, groups: int) -> list[Path]:
    """Write ``count`` FOL runs over the 107 INEX 2010 topics, ``count / groups`` per group."""
    import re

    per_group = max(count // groups, 1)
    paths = [folder / f"g{k // per_group:02d}r{k % per_group}.fol" for k in range(count)]
    if all(p.exists() for p in paths):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
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
            articles = list(dict.fromkeys(f for f, _, _ in items))
            candidates = [a for a in dict.fromkeys(judged.get(topic) or every)
                          if a not in set(articles)]
            picked = rng.permutation(len(candidates))
            swap, used = {}, 0
            for a in articles:
                if rng.random() < 0.6 and used < len(candidates):
                    swap[a] = candidates[int(picked[used])]
                    used += 1
            order = np.argsort(np.arange(len(items)) + rng.normal(0, 20, len(items)),
                               kind="stable")
            for rank, i in enumerate(order, 1):
                file, offset, length = items[int(i)]
                lines.append(f"{topic} Q0 {swap.get(file, file)} {rank} {1.0 / rank:.6f} "
                             f"{path.stem} {offset} {length}\n")
        path.write_text("".join(lines))
    return paths


def _ticks(pid: int) -> float:
    """User + system CPU seconds of a running process (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(command: list[str], cluster: list[subprocess.Popen[bytes]] = ()
          ) -> tuple[float, float, bytes]:
    """Wall and CPU of the command, of everything it started and of the ``cluster``'s
    processes meanwhile; and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    held = sum(_ticks(p.pid) for p in cluster)
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu + sum(_ticks(p.pid) for p in cluster) - held, done.stdout


def start_cluster(workers: int) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """A ``dask scheduler`` and ``workers`` single-threaded ``dask worker`` processes on
    127.0.0.1 (no nanny), ready; as a user starts them before a study."""
    import socket

    from distributed import Client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).parent / "dask")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port",
                                   str(port), "--no-dashboard"], **quiet)]
    processes += [subprocess.Popen([dask, "worker", address, "--host", "127.0.0.1",
                                    "--nthreads", "1", "--no-nanny", "--no-dashboard"], **quiet)
                  for _ in range(workers)]
    with Client(address, timeout="120s") as client:
        client.wait_for_workers(workers, timeout=300)
    return address, processes


def stop_cluster(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in reversed(processes):
        process.terminate()
        process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--groups", type=int, default=25)
    parser.add_argument("--articles", type=int, default=500)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/inexeval-bench-pools"))
    args = parser.parse_args()
    runs = make_runs(args.folder, args.runs, args.groups)
    print(f"{len(runs)} runs in {args.groups} groups, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    command = [sys.executable, "-m", "inexeval.cli", "meta", "reuse", str(QRELS),
               *map(str, runs), "--task", "focused", "--articles", str(args.articles),
               "--group", r"^(g\d+)", "--format", "json"]
    walls, cpus = {}, {}
    reference = b""

    def report(label: str, wall: float, cpu: float, out: bytes) -> None:
        nonlocal reference
        reference = reference or out
        same = "same bytes" if out == reference else "DIFFERENT OUTPUT"
        walls[label], cpus[label] = wall, cpu
        print(f"{label:28s} wall {wall:6.2f} s  CPU {cpu:6.2f} s  ({same})", flush=True)

    for jobs in (1, 2):
        report(f"--jobs {jobs}", *timed([*command, "--jobs", str(jobs)]))
    for workers in (1, 2):
        address, cluster = start_cluster(workers)
        try:
            report(f"Dask, {workers} worker(s) running",
                   *timed([*command, "--scheduler", address], cluster))
        finally:
            stop_cluster(cluster)
    report("--scheduler local:2 (started)", *timed([*command, "--scheduler", "local:2"]))
    one, two = walls["Dask, 1 worker(s) running"], walls["Dask, 2 worker(s) running"]
    print(f"parallel efficiency on 2 Dask workers: {one / (2 * two):.2f}; Dask against "
          f"--jobs 2: wall {two / walls['--jobs 2'] - 1:+.1%}, CPU "
          f"{cpus['Dask, 2 worker(s) running'] / cpus['--jobs 2'] - 1:+.1%} (goal: under 10%); "
          f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
