"""Time ``inexeval meta reuse`` (issue 21) on one process, local processes and Dask, by CPU.

The study: leave-one-group-out for 100 runs in 25 groups x the 107 INEX 2010 topics,
``--task focused``, ``--articles 500``. It runs at ``--jobs 1`` and ``--jobs 2``, on a running
Dask cluster (a ``dask scheduler`` and 1 or 2 single-threaded ``dask worker`` processes, no
nanny, started first as a user starts them) and with ``--scheduler local:2`` (the cluster
started by the command). Every output is checked to be the same bytes as ``--jobs 1``.

How the overhead is measured (the issue's goal: Dask on 2 workers costs under 10% more than the
study on one process). Wall time says little on a shared machine, so the figures are CPU
seconds (user + system):

* the command: its usage as ``wait4`` gives it, which counts the processes it started and
  waited for (``--jobs`` and ``local:N`` workers);
* a running cluster: ``/proc/PID/stat`` of the scheduler and of each worker, before and after
  the command (all they spent meanwhile: the tasks, deserialising the inputs, heartbeats);
* the peak resident size (printed in MB): the command's (``ru_maxrss``, the largest of it and
  the processes it waited for) and each worker's (``VmHWM``; a cluster is started for each
  configuration, so the peak of its first study, the full one);
* overhead = CPU(Dask, 2 workers: command + scheduler + workers) / CPU(``--jobs 1``) - 1, and
  the same against ``--jobs 2``; the parallel efficiency = wall(1 worker) / (2 x wall(2
  workers)), meaningful on an idle machine only;
* a running cluster ticks while idle (heartbeats, its system monitor: about 0.02 CPU s/s for
  the scheduler and 0.03 for each worker here), so its share grows with the wall time: on a
  loaded machine the wall time, and so the ticking, is several times what it is on an idle
  one. The cluster is watched idle for ``--idle`` seconds before the study and the overhead is
  also printed without that rate x the wall time (what the cluster spends whether a study runs
  or not); ``--quiet-cluster`` starts the cluster with the configuration docs/guides/cluster.md suggests for a
  cluster that waits (:data:`QUIET`: about a fifth of the ticking).

``--study pool`` measures ``meta pool`` re-pooled to a few article counts instead: few long
tasks (each scores every run), the inputs (runs included) shipped once to every worker.

Each configuration runs ``--repeat`` times (default 3) and the run of least CPU is kept; the
load average (``uptime``) is printed before and after. For figures to quote, run it on an idle
machine of at least 3 cores (the scheduler and the command need a core besides the workers):

    python benchmarks/bench_pools.py                      # the issue's study, 3 repeats
    python benchmarks/bench_pools.py --repeat 1 --skip local   # quicker
    INEXEVAL_SHARED=/path/to/shared python benchmarks/bench_pools.py --folder /tmp/runs

This machine's speed moves by a fifth within minutes, which single runs cannot tell from an
overhead of 10%: ``--alternate N`` starts the 2-worker cluster once and runs the study at
``--jobs 1`` and on it in turn, N times, printing the medians of the ratios of the same minutes
(the workers' CPU together, with and without their idle ticking, and the wall time). On a
virtual machine booted a short while before, the first touch of a page of memory cost about
2.3 s a GB here (against 0.1-0.3 s for a page touched before, freed and taken again): the
worker that writes a study's store (about 1 GB for 1,000 runs) paid 2-4 s more the first
times. ``--warm-memory GB`` touches that much memory first, for figures of a machine that has
run a while:

    python benchmarks/bench_pools.py --runs 1000 --groups 250 --alternate 4 --warm-memory 19

The runs are derived from the real data as ``bench_pool.py`` derives them: topic ``t`` of run
``k`` takes the passages of one topic of the real FOL run ``ipcs/bert_inex_converted_1.run``
(cyclically), each article replaced with probability 0.6 by an article judged for that topic in
``inex2010/inex2010.qrels`` (one not already in the list, so no two passages overlap, as the
focused task requires), ranks jittered. Run ``k`` is named ``gGGrR`` (group ``k // 4``), written
to ``--folder`` (default /tmp/inexeval-bench-pools) once and reused.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pool import QRELS, write_runs


def make_runs(folder: Path, count: int, groups: int) -> list[Path]:
    """Write ``count`` FOL runs over the 107 INEX 2010 topics, ``count / groups`` per group."""
    per_group = max(count // groups, 1)
    paths = [folder / f"g{k // per_group:02d}r{k % per_group}.fol" for k in range(count)]
    if not all(p.exists() for p in paths):
        write_runs(paths, lambda _, path: path.stem, _distinct_swaps)
    return paths


def _distinct_swaps(rng: np.random.Generator, topic: str, items: list[tuple[str, int, int]],
                    judged: dict[str, list[str]], every: list[str]) -> dict[str, str]:
    """Each article, with probability 0.6, replaced by a judged article of the topic (or any)
    that the results do not hold, no two by the same."""
    articles = list(dict.fromkeys(f for f, _, _ in items))
    held = set(articles)
    candidates = [a for a in dict.fromkeys(judged.get(topic) or every) if a not in held]
    picked = rng.permutation(len(candidates))
    swap, used = {}, 0
    for a in articles:
        if rng.random() < 0.6 and used < len(candidates):
            swap[a] = candidates[int(picked[used])]
            used += 1
    return swap


def _ticks(pid: int) -> float:
    """User + system CPU seconds of a running process (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Timing:
    """One run of the command: wall seconds, CPU seconds of the command (and the processes it
    waited for) and of each process of the running cluster meanwhile; its output."""

    wall: float
    command: float
    cluster: dict[str, float]
    output: bytes

    idle: float = 0.0
    """CPU seconds per second the running cluster spends idle (heartbeats, its monitors)."""
    peak: dict[str, float] = field(default_factory=dict)
    """Peak resident size in MB: the command's (the largest of it and the processes it waited
    for) and each running worker's since it started (a cluster is started for each
    configuration, so its first study's peak)."""

    @property
    def cpu(self) -> float:
        return self.command + sum(self.cluster.values())

    @property
    def ticking(self) -> float:
        """What the running cluster would have spent idle over the command's wall time."""
        return self.idle * self.wall


def _peak_mb(pid: int) -> float:
    """The peak resident size of a running process since it started (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return math.nan


def timed(command: list[str], cluster: dict[str, subprocess.Popen[bytes]] | None = None
          ) -> Timing:
    """Run ``command`` once and measure it (see the module docstring)."""
    cluster = cluster or {}
    held = {name: _ticks(p.pid) for name, p in cluster.items()}
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    output = process.stdout.read()
    # wait4: this command's own usage (with the processes it waited for: --jobs, local:N)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, command)
    return Timing(wall, usage.ru_utime + usage.ru_stime,
                  {name: _ticks(p.pid) - held[name] for name, p in cluster.items()}, output,
                  peak={"command": usage.ru_maxrss / 1024,
                        **{name: _peak_mb(p.pid) for name, p in cluster.items()
                           if name != "scheduler"}})


def idle_rate(cluster: dict[str, subprocess.Popen[bytes]], seconds: float) -> float:
    """CPU seconds per second of all the cluster's processes, idle, over ``seconds``."""
    if not cluster or seconds <= 0:
        return 0.0
    before = sum(_ticks(p.pid) for p in cluster.values())
    start = time.perf_counter()
    time.sleep(seconds)
    return (sum(_ticks(p.pid) for p in cluster.values()) - before) / (time.perf_counter() - start)


QUIET = {"DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
         "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
         "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
"""The configuration docs/guides/cluster.md suggests for a cluster that waits
(``--quiet-cluster``): a fifth of the default ticking."""


def start_cluster(workers: int, quiet_cluster: bool = False
                  ) -> tuple[str, dict[str, subprocess.Popen[bytes]]]:
    """A ``dask scheduler`` and ``workers`` single-threaded ``dask worker`` processes on
    127.0.0.1 (no nanny, but the environment a nanny gives its worker), ready; as a user starts
    them before a study (with :data:`QUIET` if ``quiet_cluster``)."""
    import socket

    import dask.config
    from distributed import Client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    command = str(Path(sys.executable).parent / "dask")
    # what Dask's nanny sets in a worker it starts (one BLAS thread a worker, malloc's trim
    # threshold): the workers here run without one, so that /proc reads their own CPU, and get
    # it from here, as a user's workers do; without it each worker's OpenBLAS ran a thread a
    # core (the long study's two workers: +12% of CPU), and with it, before inexeval set glibc's
    # mmap threshold on the workers (executor.tune_malloc), each worker spent 70% more
    spawn = dask.config.get("distributed.nanny.pre-spawn-environ")
    nanny = {k: str(v) for k, v in spawn.items()}
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
                             "env": {**os.environ, **(QUIET if quiet_cluster else {})}}
    as_nanny = {**quiet, "env": {**quiet["env"], **nanny}}
    processes = {"scheduler": subprocess.Popen([command, "scheduler", "--host", "127.0.0.1",
                                                "--port", str(port), "--no-dashboard"],
                                               **quiet)}
    for n in range(workers):
        processes[f"worker {n + 1}"] = subprocess.Popen(
            [command, "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
             "--no-dashboard"], **as_nanny)
    with Client(address, timeout="120s") as client:
        client.wait_for_workers(workers, timeout=300)
    return address, processes


def stop_cluster(processes: dict[str, subprocess.Popen[bytes]]) -> None:
    for process in reversed(list(processes.values())):
        process.terminate()
        process.wait(30)


def what_travels(runs: list[Path], articles: int, workers: int = 2) -> None:
    """Print what a Dask executor of ``workers`` workers would send for the reuse study: the
    shared inputs (to every worker) and each chunk of tasks, pickled as it pickles them."""
    import pickle

    from inexeval.executor import Serial
    from inexeval.formats.detect import load_assessments, load_run
    from inexeval.meta.pool import Pooling, Scoring
    from inexeval.meta.reuse import reuse_study, run_groups

    class Probe:
        """Serial, saying it has ``workers`` workers, measuring what it would ship."""

        def __init__(self) -> None:
            self.workers = workers

        def map(self, fn: Any, tasks: Any, shared: Any = None, *,
                description: str | None = None) -> list[Any]:
            start = time.process_time()
            sizes = [len(pickle.dumps(t, protocol=pickle.HIGHEST_PROTOCOL)) for t in tasks]
            spent = time.process_time() - start
            every = len(pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL))
            print(f"shared inputs: {every / 1e6:.1f} MB to each worker; {len(tasks)} tasks "
                  f"(chunks): {sum(sizes) / 1e6:.1f} MB, {min(sizes) / 1e6:.1f}-"
                  f"{max(sizes) / 1e6:.1f} MB each, pickled in {spent:.2f} s of CPU")
            return Serial().map(fn, tasks, shared)

    qrels = load_assessments(str(QRELS))
    loaded = [load_run(str(path)) for path in runs]
    groups = run_groups([r.name for r in loaded], r"^(g\d+)")
    reuse_study(qrels, loaded, Scoring(task="focused"), Pooling(articles=articles),
                groups=groups, executor=Probe())


def alternate(times: int, command: list[str], inputs: list[str], idle: float,
              quiet_cluster: bool) -> None:
    """The study at ``--jobs 1`` and on a running 2-worker cluster, alternately ``times``
    times: each pair's figures, then the medians of the ratios (workers' CPU together, less the
    cluster's idle ticking over the wall time, and wall time, against the ``--jobs 1`` run just
    before)."""
    address, cluster = start_cluster(2, quiet_cluster)
    try:
        rate = idle_rate({k: p for k, p in cluster.items() if k != "scheduler"}, idle)
        cpu, net, wall = [], [], []
        for n in range(times):
            one = timed([*command, "--jobs", "1"])
            two = timed([*command, "--scheduler", address, *inputs], cluster)
            if two.output != one.output:
                raise SystemExit("DIFFERENT OUTPUT on the cluster")
            workers = sum(v for k, v in two.cluster.items() if k != "scheduler")
            cpu.append(workers / one.cpu - 1)
            net.append((workers - rate * two.wall) / one.cpu - 1)
            wall.append(two.wall / one.wall)
            peaks = ", ".join(f"{name} {mb:.0f}" for name, mb in two.peak.items())
            print(f"{n + 1}: --jobs 1 CPU {one.cpu:.2f} s wall {one.wall:.2f} s; workers CPU "
                  f"{workers:.2f} s ({cpu[-1]:+.1%}; less idle ticking {net[-1]:+.1%}), "
                  f"command {two.command:.2f} s, scheduler {two.cluster['scheduler']:.2f} s, "
                  f"wall {two.wall:.2f} s ({wall[-1]:.2f}x); same bytes; peak RSS MB so far: "
                  f"{peaks}", flush=True)
        print(f"medians of {times}: the workers' CPU against --jobs 1 {np.median(cpu):+.1%} "
              f"(less the workers' idle ticking, {rate:.3f} CPU s/s: {np.median(net):+.1%}); "
              f"wall {np.median(wall):.2f}x")
    finally:
        stop_cluster(cluster)


def warm_memory(gigabytes: float) -> None:
    """Touch ``gigabytes`` of memory, a byte a page, and let it go (``--warm-memory``)."""
    start = time.perf_counter()
    meminfo = Path("/proc/meminfo").read_text().split()
    available = int(meminfo[meminfo.index("MemAvailable:") + 1]) / 2**20  # GB
    if math.ceil(gigabytes) > available - 2:
        raise SystemExit(f"--warm-memory {gigabytes:g}: this machine has {available:.1f} GB "
                         "available; keep 2 GB free")
    held = []  # held until the end: a block let go would be given back for the next one
    for _ in range(math.ceil(gigabytes)):
        block = np.empty(1 << 30, dtype=np.uint8)
        block[::4096] = 1
        held.append(block)
    del held
    print(f"touched {math.ceil(gigabytes)} GB of memory in {time.perf_counter() - start:.1f} s",
          flush=True)


def _load() -> str:
    return subprocess.run(["uptime"], check=False, capture_output=True,
                          text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100, help="runs (default 100)")
    parser.add_argument("--groups", type=int, default=25, help="groups (default 25)")
    parser.add_argument("--articles", type=int, default=500,
                        help="the pool's articles per topic (default 500)")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/inexeval-bench-pools"),
                        help="where the runs are written once (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each configuration; the one of least CPU is kept "
                        "(default 3)")
    parser.add_argument("--study", choices=("reuse", "pool"), default="reuse",
                        help="reuse: the issue's leave-one-group-out (default); pool: meta pool "
                        "re-pooled to --levels article counts, each task scoring every run "
                        "(few, long tasks, the inputs shipped once to every worker)")
    parser.add_argument("--levels", default="50,100,200,300,400",
                        help="article counts of --study pool (default %(default)s)")
    parser.add_argument("--idle", type=float, default=10.0,
                        help="seconds a running cluster is watched idle first, to tell its "
                        "ticking (heartbeats) from the study's cost (default 10)")
    parser.add_argument("--travels", action="store_true",
                        help="only print what the reuse study ships to 2 Dask workers (bytes "
                        "of the shared inputs and of each chunk of tasks)")
    parser.add_argument("--quiet-cluster", action="store_true",
                        help="start the running clusters with the configuration that makes "
                        "them tick less (docs/guides/cluster.md); default: "
                        "Dask's defaults")
    parser.add_argument("--inputs", choices=("shared", "each", "send"),
                        help="--inputs of the Dask runs (default: the command's, shared): "
                        "the first worker of the machine reads the inputs for the others, "
                        "each worker reads them, or they are read here and sent")
    parser.add_argument("--alternate", type=int, default=0, metavar="N",
                        help="instead: start a 2-worker cluster once and run the study at "
                        "--jobs 1 and on the cluster alternately N times; print each pair and "
                        "the medians of the workers' CPU and the wall time against --jobs 1 of "
                        "the same minutes (this machine's speed moves by a fifth within "
                        "minutes)")
    parser.add_argument("--warm-memory", type=float, default=0.0, metavar="GB",
                        help="first touch GB of memory once and let it go: on a freshly booted "
                        "virtual machine the first touch of a page costs the guest about 2 s "
                        "a GB here (the host backs it then), so that the first studies, and "
                        "the worker that writes the store, pay for memory later ones reuse")
    parser.add_argument("--skip", action="append", default=[],
                        choices=("jobs2", "dask1", "local"),
                        help="leave out --jobs 2, the 1-worker cluster or local:2 (repeatable)")
    args = parser.parse_args()
    runs = make_runs(args.folder, args.runs, args.groups)
    if args.warm_memory:
        warm_memory(args.warm_memory)
    if args.travels:
        what_travels(runs, args.articles)
        return
    print(f"{len(runs)} runs in {args.groups} groups, {os.cpu_count()} cores; before: "
          f"{_load()}", flush=True)
    command = [sys.executable, "-m", "inexeval.cli", "meta", args.study, str(QRELS),
               *map(str, runs), "--task", "focused", "--articles", str(args.articles),
               "--format", "json"]
    command += (["--group", r"^(g\d+)"] if args.study == "reuse" else
                ["--article-counts", args.levels, "--power", "none"])
    print(" ".join(command[3:6]), "...", " ".join(command[-6:]), flush=True)
    kept: dict[str, Timing] = {}
    inputs = ["--inputs", args.inputs] if args.inputs else []

    def measure(label: str, argv: list[str],
                cluster: dict[str, subprocess.Popen[bytes]] | None = None) -> None:
        idle = idle_rate(cluster or {}, args.idle)
        best = min((timed(argv, cluster) for _ in range(args.repeat)), key=lambda t: t.cpu)
        best.idle = idle
        reference = kept["--jobs 1"].output if kept else best.output
        kept[label] = best
        same = "same bytes" if best.output == reference else "DIFFERENT OUTPUT"
        parts = "".join(f", {name} {cpu:.2f}" for name, cpu in best.cluster.items())
        ticking = (f"; idle ticking {idle:.3f} CPU s/s x wall = {best.ticking:.2f} s"
                   if cluster else "")
        peaks = ", ".join(f"{name} {mb:.0f}" for name, mb in best.peak.items())
        print(f"{label:30s} wall {best.wall:6.2f} s  CPU {best.cpu:6.2f} s (command "
              f"{best.command:.2f}{parts}{ticking})  {same}; peak RSS MB: {peaks}",
              flush=True)

    if args.alternate:
        alternate(args.alternate, command, inputs, args.idle, args.quiet_cluster)
        print(f"after: {_load()}")
        return
    measure("--jobs 1", [*command, "--jobs", "1"])
    if "jobs2" not in args.skip:
        measure("--jobs 2", [*command, "--jobs", "2"])
    # Dask's fixed cost: the same command on a study of two runs (two groups), whose work is
    # next to nothing, at --jobs 1 and on the 2-worker cluster (importing distributed,
    # connecting, scattering, the cluster's share)
    pair = [runs[0], runs[len(runs) // 2]]
    small = [*command[:6], *map(str, pair), *command[6 + len(runs):]]
    floor: dict[str, Timing] = {}
    for workers in (1, 2):
        if workers == 1 and "dask1" in args.skip:
            continue
        address, cluster = start_cluster(workers, args.quiet_cluster)
        try:
            measure(f"Dask, {workers} worker(s) running", [*command, "--scheduler", address,
                                                            *inputs], cluster)
            if workers == 2:
                for label, argv, on in (("--jobs 1", [*small, "--jobs", "1"], None),
                                        ("Dask", [*small, "--scheduler", address, *inputs],
                                         cluster)):
                    floor[label] = min((timed(argv, on) for _ in range(args.repeat)),
                                       key=lambda t: t.cpu)
        finally:
            stop_cluster(cluster)
    if "local" not in args.skip:
        measure("--scheduler local:2 (started)", [*command, "--scheduler", "local:2", *inputs])
    one, two = kept["--jobs 1"], kept["Dask, 2 worker(s) running"]
    print(f"Dask on 2 workers against --jobs 1: CPU {two.cpu / one.cpu - 1:+.1%} "
          f"({two.cpu - one.cpu:+.2f} s; goal: under +10%); without the cluster's idle "
          f"ticking over the wall time: {(two.cpu - two.ticking) / one.cpu - 1:+.1%} "
          f"({two.cpu - two.ticking - one.cpu:+.2f} s)")
    fixed = floor["Dask"].cpu - floor["--jobs 1"].cpu
    print(f"Dask's fixed cost (the command on 2 runs: --jobs 1 {floor['--jobs 1'].cpu:.2f} s, "
          f"Dask on 2 workers {floor['Dask'].cpu:.2f} s CPU: command "
          f"{floor['Dask'].command:.2f}"
          f"{''.join(f', {k} {v:.2f}' for k, v in floor['Dask'].cluster.items())}"
          f"): {fixed:+.2f} s, "
          f"{fixed / one.cpu:.1%} of the study at --jobs 1; the rest of the overhead: "
          f"{two.cpu - one.cpu - fixed:+.2f} s ({(two.cpu - one.cpu - fixed) / one.cpu:+.1%})")
    if "--jobs 2" in kept:
        print(f"Dask on 2 workers against --jobs 2: CPU "
              f"{two.cpu / kept['--jobs 2'].cpu - 1:+.1%}, wall "
              f"{two.wall / kept['--jobs 2'].wall - 1:+.1%}")
    if "Dask, 1 worker(s) running" in kept:
        print(f"parallel efficiency on 2 Dask workers (wall): "
              f"{kept['Dask, 1 worker(s) running'].wall / (2 * two.wall):.2f}")
    print(f"after: {_load()}")


if __name__ == "__main__":
    main()
