"""meta pool and meta reuse on a real Dask cluster: a scheduler and two workers started as
subprocesses on loopback give the same bytes as --jobs 1 and --jobs 2, also when a worker is
killed in the middle of a study (issue 21)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from inexeval.cli import main

pytest.importorskip("distributed", reason="needs distributed (pip install 'inexeval[dask]')")

DASK = Path(sys.executable).parent / "dask"
LIMIT = 240.0  # seconds any one step may take on a loaded machine


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


class Cluster:
    """A ``dask scheduler`` and two ``dask worker`` processes (no nanny: a worker's PID is the
    worker) on 127.0.0.1, free ports."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.log = folder
        self.processes: list[subprocess.Popen[bytes]] = []
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self._start("scheduler", [str(DASK), "scheduler", "--host", "127.0.0.1", "--port",
                                  str(self.port), "--no-dashboard"])
        for n in range(2):
            port = _free_port()
            self.workers[f"tcp://127.0.0.1:{port}"] = self._start(
                f"worker{n}", [str(DASK), "worker", self.address, "--host", "127.0.0.1",
                               "--worker-port", str(port), "--nthreads", "1", "--no-nanny",
                               "--no-dashboard"])
        from distributed import Client

        with Client(self.address, timeout=f"{int(LIMIT)}s") as client:
            client.wait_for_workers(2, timeout=LIMIT)

    def _start(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        with (self.log / f"{name}.log").open("wb") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                       env=dict(os.environ))
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in reversed(self.processes):
            _stop(process)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    (tmp_path / "logs").mkdir()
    started = Cluster(tmp_path / "logs")
    try:
        yield started
    finally:
        started.stop()


def _inputs(folder: Path, topics: int = 24, runs: int = 12) -> tuple[Path, list[Path]]:
    """FOL qrels of ``topics`` topics (60 judged articles each, a third relevant) and ``runs``
    runs in four groups, each ranking 40 articles per topic, a few of them unjudged."""
    rng = np.random.default_rng(21)
    qrels = []
    for t in range(1, topics + 1):
        for a in range(60):
            rsize = int(rng.integers(10, 90)) if a % 3 == 0 else 0
            qrels.append(f"{t} Q0 d{t}-{a} {rsize} 100" + (f" -1 0:{rsize}" if rsize else ""))
    (folder / "qrels.fol").write_text("\n".join(qrels) + "\n")
    paths = []
    for r in range(runs):
        name = f"g{r % 4}r{r}"
        lines = []
        for t in range(1, topics + 1):
            articles = [f"d{t}-{a}" for a in rng.permutation(60)[:36]]
            articles += [f"x{t}-{r}-{k}" for k in range(4)]
            for rank, a in enumerate(rng.permutation(articles), 1):
                lines.append(f"{t} Q0 {a} {rank} {1 / rank:.5f} {name} 0 {int(rng.integers(20, 100))}")
        path = folder / f"{name}.fol"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return folder / "qrels.fol", paths


def _command(study: str, qrels: Path, runs: list[Path]) -> list[str]:
    common = [str(qrels), *map(str, runs), "--task", "focused", "--format", "json"]
    if study == "reuse":
        return ["meta", "reuse", *common, "--depth", "20", "--group", r"^(g\d)"]
    return ["meta", "pool", *common, "--sample", "random", "--rates", "0.2,0.5,0.8",
            "--iterations", "6", "--replicates", "400", "--seed", "7"]


def _output(tmp_path: Path, argv: list[str], label: str) -> bytes:
    out = tmp_path / f"{label}.json"
    assert main([*argv, "-o", str(out)]) == 0
    return out.read_bytes()


def _notes(err: str) -> str:
    """What a study said on stderr, less its last line naming the file it wrote (each run of
    the test writes its own)."""
    return "".join(line for line in err.splitlines(keepends=True)
                   if not line.startswith("inexeval: wrote "))


@pytest.mark.slow
def test_a_cluster_gives_the_bytes_of_one_process(cluster: Cluster, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = _inputs(tmp_path)
    for study in ("reuse", "pool"):
        argv = _command(study, qrels, runs)
        capsys.readouterr()
        one = _output(tmp_path, [*argv, "--jobs", "1"], f"{study}-1")
        said = _notes(capsys.readouterr().err)
        assert b'"kendall_tau"' in one
        assert _output(tmp_path, [*argv, "--jobs", "2"], f"{study}-2") == one
        for inputs in ("shared", "each", "send"):  # read once a machine, by each worker;
            # read here and sent
            assert _output(tmp_path, [*argv, "--scheduler", cluster.address, "--inputs",
                                      inputs], f"{study}-dask-{inputs}") == one
            assert _notes(capsys.readouterr().err) == said  # the notes and warnings, said here


@pytest.mark.slow
def test_a_worker_that_cannot_read_an_input_says_which_and_where(
        cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = _inputs(tmp_path, topics=4, runs=4)
    gone = tmp_path / "elsewhere" / "g0r9.fol"
    assert main([*_command("reuse", qrels, [*runs, gone]), "--scheduler",
                 cluster.address]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert str(gone) in err
    assert any(f"worker {address}" in err for address in cluster.workers), err


@pytest.mark.slow
def test_a_worker_killed_during_a_study_changes_nothing(cluster: Cluster,
                                                        tmp_path: Path) -> None:
    from distributed import Client

    qrels, runs = _inputs(tmp_path)
    argv = _command("pool", qrels, runs)
    expected = _output(tmp_path, [*argv, "--jobs", "1"], "reference")
    out = tmp_path / "killed.json"
    study = subprocess.Popen([sys.executable, "-m", "inexeval.cli", *argv, "--scheduler",
                              cluster.address, "-o", str(out)], stderr=subprocess.PIPE)
    try:
        victim = None
        with Client(cluster.address, timeout=f"{int(LIMIT)}s") as client:
            deadline = time.monotonic() + LIMIT
            while victim is None and time.monotonic() < deadline and study.poll() is None:
                busy = [w for w, keys in client.processing().items()
                        if keys and any(str(k).startswith("_dask_call") for k in keys)]
                victim = next((w for w in busy if w in cluster.workers), None)
                time.sleep(0.05)
        assert victim is not None, "the study never ran a task on a worker"
        cluster.workers[victim].send_signal(signal.SIGKILL)
        cluster.workers[victim].wait(LIMIT)
        _, err = study.communicate(timeout=LIMIT)
    finally:
        _stop(study)
    assert study.returncode == 0, err.decode()
    assert out.read_bytes() == expected


@pytest.mark.slow
def test_a_task_whose_worker_dies_is_given_out_again_with_its_payload(
        cluster: Cluster, tmp_path: Path) -> None:
    from inexeval.executor import DaskExecutor

    def dies_once(marker: str, task: int) -> int:  # by value: the workers cannot import tests
        if task == 3 and not os.path.exists(marker):
            with open(marker, "w") as note:
                note.write(str(os.getpid()))
            os._exit(1)  # the worker holding this task's payload (scattered to it) dies
        return task * 10

    marker = tmp_path / "died"
    with DaskExecutor(cluster.address) as executor:
        assert executor.map(dies_once, list(range(8)), str(marker)) == [t * 10 for t in range(8)]
    died = int(marker.read_text())
    assert died in [w.pid for w in cluster.workers.values()]
    assert next(w for w in cluster.workers.values() if w.pid == died).poll() is not None


INTERRUPTIBLE = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                 "from inexeval.cli import main; sys.exit(main(sys.argv[1:]))")
"""``inexeval ARGS`` with Ctrl+C raising KeyboardInterrupt: a test suite started in the
background by a non-interactive shell (``pytest ... &``, as some CI runners start it) hands its
processes SIGINT ignored, and Python then installs no KeyboardInterrupt for it."""


@pytest.mark.slow
def test_ctrl_c_leaves_no_worker_busy(cluster: Cluster, tmp_path: Path) -> None:
    from distributed import Client

    qrels, runs = _inputs(tmp_path)
    study = subprocess.Popen([sys.executable, "-c", INTERRUPTIBLE,
                              *_command("pool", qrels, runs), "--iterations", "400",
                              "--scheduler", cluster.address], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    try:
        with Client(cluster.address, timeout=f"{int(LIMIT)}s") as client:
            deadline = time.monotonic() + LIMIT
            while (time.monotonic() < deadline and study.poll() is None
                   and not any(client.processing().values())):
                time.sleep(0.05)
            assert study.poll() is None, "the study ended before it could be interrupted"
            study.send_signal(signal.SIGINT)
            _, err = study.communicate(timeout=LIMIT)
            assert study.returncode == 130, err.decode()
            deadline = time.monotonic() + LIMIT
            while any(client.processing().values()) and time.monotonic() < deadline:
                time.sleep(0.1)
            # the task a worker was running when interrupted ends; nothing queued is left
            assert not any(client.processing().values())
            assert not any(client.has_what().values())
    finally:
        _stop(study)


@pytest.mark.slow
def test_with_shared_inputs_the_command_reads_nothing(cluster: Cluster, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from inexeval.commands.meta import pool as meta_pool

    qrels, runs = _inputs(tmp_path, topics=6, runs=8)
    argv = _command("reuse", qrels, runs)
    one = _output(tmp_path, [*argv, "--jobs", "1"], "one")

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the command read the inputs")

    monkeypatch.setattr(meta_pool, "_read", no_reading)  # this process only: not the workers
    assert _output(tmp_path, [*argv, "--scheduler", cluster.address], "shared") == one

    def held() -> int:  # by value: the workers cannot import tests
        from inexeval import executor

        return len(executor._MADE)

    from distributed import Client

    with Client(cluster.address, timeout=f"{int(LIMIT)}s") as client:
        # the workers made the inputs, and dropped them when the command was over
        assert client.run(held) == dict.fromkeys(cluster.workers, 0)
    with pytest.raises(AssertionError, match="read the inputs"):
        main([*argv, "--scheduler", cluster.address, "--inputs", "send"])


@pytest.mark.slow
def test_the_workers_of_a_machine_make_a_study_s_inputs_once(cluster: Cluster,
                                                             tmp_path: Path) -> None:
    from inexeval.executor import DaskExecutor, ReadOnWorkers
    from inexeval.executor_store import store_folder

    marker = tmp_path / "made"

    def make(source: int) -> list[int]:  # by value: the workers cannot import tests
        with open(marker, "a") as note:
            note.write(f"{os.getpid()}\n")
        time.sleep(1.0)  # both workers come while it makes
        return [source] * 3

    def picked(shared: list[int], task: int) -> int:
        return shared[task] + task

    recipe = ReadOnWorkers(make, 5)
    with DaskExecutor(cluster.address, inputs="shared") as executor:
        assert executor.map(picked, [0, 1, 2, 0, 1, 2], recipe) == [5, 6, 7, 5, 6, 7]
        # each worker is given the study at once: one made the inputs, the other loaded them
        assert len(marker.read_text().split()) == 1
    with DaskExecutor(cluster.address, inputs="each") as executor:
        assert executor.map(picked, [0, 1, 2], ReadOnWorkers(make, 6)) == [6, 7, 8]
        assert len(marker.read_text().split()) == 3  # made by both workers
    folder = store_folder()
    assert folder is not None
    deadline = time.monotonic() + LIMIT
    while list(folder.glob(f"{recipe.key}.*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not list(folder.glob(f"{recipe.key}.*"))  # let go when the study was over
