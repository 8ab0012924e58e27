"""The executor: results in task order and bit-identical seeded output on any executor."""

from __future__ import annotations

import numpy as np
import pytest

from inexeval.errors import InexevalError
from inexeval.executor import (
    Processes,
    ReadOnWorkers,
    Serial,
    blocks,
    chunks,
    make_executor,
    map_chunked,
    task_seed,
    task_seeds,
    worker_count,
)


def _draw(shared: dict[str, int], task: tuple[int, np.random.SeedSequence]) -> list[float]:
    index, seed = task
    rng = np.random.default_rng(seed)
    return [index, *rng.random(shared["n"]).tolist()]


def _tasks(n: int) -> list[tuple[int, np.random.SeedSequence]]:
    return list(enumerate(task_seeds(7, n)))


def test_processes_give_the_serial_results_in_task_order() -> None:
    serial = Serial().map(_draw, _tasks(9), {"n": 3})
    assert [row[0] for row in serial] == list(range(9))
    assert Processes(3).map(_draw, _tasks(9), {"n": 3}) == serial
    assert make_executor(jobs=2).map(_draw, _tasks(9), {"n": 3}) == serial


def test_a_task_seed_does_not_depend_on_how_many_tasks_follow() -> None:
    assert Serial().map(_draw, _tasks(3), {"n": 2}) == Serial().map(_draw, _tasks(8), {"n": 2})[:3]


def test_a_task_seed_made_alone_is_its_child_of_the_study_s_seed() -> None:
    for i, child in enumerate(task_seeds(7, 5)):
        alone = task_seed(7, i)
        assert alone.spawn_key == child.spawn_key and alone.entropy == child.entropy
        assert (np.random.default_rng(alone).random(4)
                == np.random.default_rng(child).random(4)).all()


def test_blocks_cover_by_index() -> None:
    assert list(blocks(10, 4)) == [(0, 4), (4, 8), (8, 10)]
    assert list(blocks(0, 4)) == []
    with pytest.raises(InexevalError):
        list(blocks(3, 0))
    with pytest.raises(InexevalError, match="--jobs"):
        Processes(0)


def test_chunks_are_contiguous_and_even() -> None:
    assert chunks(10, 4) == [(0, 3), (3, 6), (6, 8), (8, 10)]
    assert chunks(3, 8) == [(0, 1), (1, 2), (2, 3)]
    assert chunks(0, 4) == []
    with pytest.raises(InexevalError):
        chunks(3, 0)


def test_chunked_tasks_give_the_results_of_one_task_at_a_time() -> None:
    serial = Serial().map(_draw, _tasks(11), {"n": 3})
    assert (worker_count(Serial()), worker_count(Processes(3))) == (1, 3)
    for executor in (Serial(), Processes(2), Processes(3)):
        for per_worker in (1, 2, 4, 20):
            assert map_chunked(executor, _draw, _tasks(11), {"n": 3},
                               per_worker=per_worker) == serial
    assert map_chunked(Processes(2), _draw, [], {"n": 3}) == []


def _contents(runs: object) -> list[object]:
    return [(run.name, run.kind, run.source, dict(run.meta),
             {t: {f: getattr(tr, f).tolist() for f in ("files", "paths", "offsets", "lengths",
                                                      "ranks", "rsv", "lines", "missing",
                                                      "codes")}
              for t, tr in run.topics.items()}) for run in runs.runs]  # type: ignore[attr-defined]


def test_shipped_runs_come_back_equal(tmp_path: object) -> None:
    import pickle
    from dataclasses import replace
    from pathlib import Path

    from inexeval.formats.detect import load_run
    from inexeval.meta.pool import ShippedRuns
    from tests.helpers import element_run

    folder = Path(str(tmp_path))
    (folder / "a.fol").write_text("1 Q0 d1 1 0.9 a 0 10\n1 Q0 d2 2 0.5 a 5 7\n"
                                  "3 Q0 d1 1 0.3 a 2 9\n")
    (folder / "d.fol").write_text("4 Q0 a0 1 0.9 d 0 10\n1 Q0 d1 1 0.9 d 0 10\n"
                                  "1 Q0 d2 2 0.5 d 5 7\n1 Q0 d1 3 0.4 d 30 7\n")
    read = load_run(str(folder / "d.fol"))
    runs = [load_run(str(folder / "a.fol")),
            element_run("b", {"1": [("d1", "/article[1]/sec[2]")], "2": []}),
            element_run("c", {"1": [("", ""), ("x\ny", "/a[1]")]}),  # not one text
            replace(read, topics={"1": read.topics["1"]}, columns=None)]  # a0's code unused
    shipped = ShippedRuns(runs)
    back = pickle.loads(pickle.dumps(shipped))
    assert repr(_contents(back)) == repr(_contents(shipped))  # NaN scores too
    assert len(back) == 4 and back.runs[0].topics["3"].rsv.tolist() == [0.3]
    assert back.runs[3].topics["1"].files.tolist() == ["d1", "d2", "d1"]
    first = back.runs[0].topics["1"]
    assert {getattr(first, f).dtype for f in ("offsets", "lengths", "ranks", "lines")} == {
        np.dtype(np.int64)}  # shipped narrower, given back as read
    assert first.files.dtype == object and first.offsets.tolist() == [0, 5]


def test_a_local_dask_cluster_gives_the_same_bytes() -> None:
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    from inexeval.executor import DaskExecutor

    with DaskExecutor("local:2") as cluster:
        assert cluster.map(_draw, _tasks(9), {"n": 3}) == Serial().map(_draw, _tasks(9), {"n": 3})


def test_a_cluster_is_given_one_task_per_thread_at_a_time() -> None:
    # the next task goes out when one ends, so it runs on the worker that is free (given out
    # at once, the scheduler placed them all from the start and one worker could end a task
    # or more before the other)
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    from inexeval.executor import DaskExecutor

    with DaskExecutor("local:2") as cluster:
        submitted: list[object] = []
        submit = cluster.client.submit

        def counted(*args: object, **options: object) -> object:
            assert sum(not f.done() for f in submitted) < 2  # type: ignore[attr-defined]
            submitted.append(submit(*args, **options))
            return submitted[-1]

        cluster.client.submit = counted  # type: ignore[method-assign]
        assert cluster.map(_draw, _tasks(9), {"n": 3}) == Serial().map(_draw, _tasks(9),
                                                                        {"n": 3})
        assert len(submitted) == 9


def _profiling(shared: object, task: int) -> tuple[bool, float]:
    import time

    from distributed import get_worker

    time.sleep(0.3)  # the worker's loop pauses the profiler as the task starts
    return _profiler_running(get_worker())


def _profiler_running(dask_worker: object) -> tuple[bool, float]:
    """Whether the worker's profiler runs, and its watchdog's interval (ms)."""
    callbacks = dask_worker.periodic_callbacks  # type: ignore[attr-defined]
    return bool(callbacks["profile"].is_running()), float(callbacks["tick"].callback_time)


def test_a_worker_s_profiler_is_paused_and_its_watchdog_slowed_while_it_runs_our_tasks(
        ) -> None:
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    import dask
    from dask.utils import parse_timedelta

    from inexeval.executor import WATCHDOG_MS, DaskExecutor

    configured = 1000 * parse_timedelta(dask.config.get("distributed.admin.tick.interval"),
                                        default="ms")
    with DaskExecutor("local:1") as cluster:
        [(running, tick)] = cluster.client.run(_profiler_running).values()
        assert tick == configured  # Dask's default: 20 ms
        slowed = max(configured, WATCHDOG_MS)
        assert cluster.map(_profiling, [1, 2, 3]) == [(False, slowed)] * 3
        assert list(cluster.client.run(_profiler_running).values()) == [(running, configured)]
    with (dask.config.set({"distributed.admin.tick.interval": "2s"}),
          DaskExecutor("local:1") as cluster):  # a slower watchdog is left as it is
        assert cluster.map(_profiling, [1]) == [(False, 2000.0)]


def test_inputs_go_straight_to_the_workers_or_through_the_scheduler() -> None:
    # sent direct by default (the scheduler then holds no byte of them); a worker this process
    # cannot reach sends them, and the rest of the study's, through the scheduler; Dask's own
    # setting turns the direct send off
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    import dask

    from inexeval.executor import DaskExecutor

    expected = Serial().map(_draw, _tasks(9), {"n": 3})
    with DaskExecutor("local:2") as cluster:
        assert cluster.direct
        sent: list[object] = []
        scatter = cluster.client.scatter

        def unreachable(data: object, **options: object) -> object:
            sent.append(options["direct"])
            if options["direct"]:
                raise OSError("Timed out trying to connect to tcp://10.0.0.9:4567")
            return scatter(data, **options)

        cluster.client.scatter = unreachable  # type: ignore[method-assign]
        assert cluster.map(_draw, _tasks(9), {"n": 3}) == expected
        assert sent == [True, False, False] and not cluster.direct
    # a worker that cannot be reached at the first send: nothing is sent direct (a direct
    # send that fails part way would leave what it placed on the others behind)
    with DaskExecutor("local:2") as cluster:
        assert cluster._reaches_workers()
        cluster._reaches_workers = lambda: False  # type: ignore[method-assign]
        sent.clear()
        scatter = cluster.client.scatter

        def watched(data: object, **options: object) -> object:
            sent.append(options["direct"])
            return scatter(data, **options)

        cluster.client.scatter = watched  # type: ignore[method-assign]
        assert cluster.map(_draw, _tasks(9), {"n": 3}) == expected
        assert sent == [False, False] and not cluster.direct
    with dask.config.set({"distributed.client.direct-to-workers": False}), \
            DaskExecutor("local:1") as cluster:
        assert not cluster.direct
        assert cluster.map(_draw, _tasks(9), {"n": 3}) == expected


def test_bad_scheduler_addresses_are_errors() -> None:
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    from inexeval.executor import DaskExecutor

    with pytest.raises(InexevalError, match="local:N"):
        DaskExecutor("local:x")


_MADE_BY: list[int] = []


def _made(source: int) -> list[int]:
    _MADE_BY.append(source)
    return [source] * 3


def _picked(shared: list[int], task: int) -> int:
    return shared[task] + task


@pytest.mark.parametrize("executor", [Serial(), Processes(2)])
def test_inputs_made_once_per_study_by_the_process_that_uses_them(
        executor: Serial | Processes) -> None:
    _MADE_BY.clear()
    recipe = ReadOnWorkers(_made, 5)
    assert map_chunked(executor, _picked, [0, 1, 2], recipe) == [5, 6, 7]
    assert executor.map(_picked, [2], recipe) == [7]
    assert _MADE_BY == [5]  # made here, before the forked processes, once for both maps
    assert executor.map(_picked, [1], ReadOnWorkers(_made, 8)) == [9]
    assert _MADE_BY == [5, 8]  # another study: made again


def test_a_study_s_inputs_are_dropped_and_their_memory_given_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from inexeval import executor

    given_back: list[bool] = []
    give_back = executor._give_back_memory
    monkeypatch.setattr(executor, "_give_back_memory", lambda: given_back.append(True))
    recipe = ReadOnWorkers(_made, 5)
    recipe.value()
    executor._forget_on_worker(["another study"])
    assert executor._MADE and not given_back
    executor._forget_on_worker([recipe.key])
    assert not executor._MADE and given_back == [True]
    give_back()  # glibc's malloc_trim here, nothing where there is none


@pytest.mark.parametrize(("environ", "set_here"), [
    ({"MALLOC_TRIM_THRESHOLD_": "65536"}, True),  # Dask's nanny's environment
    ({"MALLOC_TRIM_THRESHOLD_": "65536", "MALLOC_MMAP_THRESHOLD_": "1048576"}, False),
    ({}, False),  # glibc's own sliding threshold is left alone
])
def test_a_worker_whose_malloc_the_nanny_froze_gets_a_large_mmap_threshold(
        monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], set_here: bool) -> None:
    import ctypes

    from inexeval import executor

    calls: list[tuple[int, int]] = []

    class Libc:
        def mallopt(self, option: int, value: int) -> int:
            calls.append((option, value))
            return 1

    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc())
    monkeypatch.setattr(executor, "_TUNED", [])
    assert executor.tune_malloc(environ) is set_here
    assert calls == ([(-3, 32 << 20), (-1, 64 << 20)] if set_here else [])
    assert executor.tune_malloc(environ) is False  # once per process
    assert len(calls) == 2 * int(set_here)


class _Timer:
    """A worker's periodic callback, as far as the profiler's pause looks at it."""

    def __init__(self) -> None:
        self.running, self.starts = True, 0
        self.callback_time = 20.0

    def is_running(self) -> bool:
        return self.running

    def stop(self) -> None:
        self.running = False

    def start(self) -> None:
        self.starts += 1
        self.running = True


class _Worker:
    def __init__(self) -> None:
        self.periodic_callbacks = {"profile": _Timer(), "tick": _Timer()}


def test_each_worker_of_a_process_has_its_own_profiler_pause() -> None:
    """Review: the count of our tasks running was one per process, so with two workers in one
    process (a LocalCluster of threads) the one whose task ended last restarted its own,
    running, profiler (two timers) and the other's stayed paused for good."""
    from inexeval.executor import _pause_profiler

    a, b = _Worker(), _Worker()
    for worker, change in ((a, 1), (b, 1), (a, -1), (b, -1)):
        _pause_profiler(worker, change)
    for worker in (a, b):
        assert worker.periodic_callbacks["profile"].running
        assert worker.periodic_callbacks["profile"].starts == 1
        assert worker.periodic_callbacks["tick"].callback_time == 20.0
    _pause_profiler(a, 1)
    _pause_profiler(a, 1)
    assert a.periodic_callbacks["tick"].callback_time == 1000.0
    _pause_profiler(a, -1)
    assert a.periodic_callbacks["tick"].callback_time == 1000.0
    _pause_profiler(a, -1)
    assert a.periodic_callbacks["tick"].callback_time == 20.0
    off = _Worker()  # configured off: stays off
    off.periodic_callbacks["profile"].running = False
    _pause_profiler(off, 1)
    _pause_profiler(off, -1)
    assert not off.periodic_callbacks["profile"].running


def test_a_watchdog_with_a_short_limit_is_slowed_to_a_third_of_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # review: slowed to 1 s under a limit of 0.5 s, every tick would be logged as a blocked loop
    core = pytest.importorskip("distributed.core",
                               reason="needs distributed (pip install '.[dask]')")
    from inexeval.executor import _pause_profiler

    monkeypatch.setattr(core, "tick_maximum_delay", 0.5)
    worker = _Worker()
    _pause_profiler(worker, 1)
    assert worker.periodic_callbacks["tick"].callback_time == pytest.approx(500 / 3)
    _pause_profiler(worker, -1)
    assert worker.periodic_callbacks["tick"].callback_time == 20.0


def test_the_first_import_of_distributed_freezes_what_the_process_holds() -> None:
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    import subprocess
    import sys

    code = ("import gc\nfrom inexeval.executor import _import_distributed\n"
            "_import_distributed()\nfirst = gc.get_freeze_count()\n_import_distributed()\n"
            "print(first > 10000, gc.get_freeze_count() == first, gc.isenabled())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["True", "True", "True"]


def test_two_threads_importing_distributed_give_yaml_its_own_safe_load_back() -> None:
    """Two threads importing distributed at once (a review finding): the second saved the
    first's libyaml wrapper as PyYAML's own and put it back last, for good."""
    pytest.importorskip("yaml")
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    import subprocess
    import sys

    code = ("import gc, threading, yaml\nfrom inexeval.executor import _import_distributed\n"
            "own = yaml.safe_load\nbarrier = threading.Barrier(2)\n"
            "def go():\n    barrier.wait()\n    _import_distributed()\n"
            "threads = [threading.Thread(target=go) for _ in range(2)]\n"
            "[t.start() for t in threads]\n[t.join() for t in threads]\n"
            "print(yaml.safe_load is own, gc.isenabled())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["True", "True"]


def test_dask_s_configuration_is_read_alike_by_libyaml() -> None:
    yaml = pytest.importorskip("yaml")
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    import importlib.util
    from pathlib import Path

    from inexeval.executor import _libyaml

    pure = yaml.safe_load
    for package, name in (("dask", "dask.yaml"), ("distributed", "distributed.yaml")):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None
        text = (Path(spec.origin).parent / name).read_text()
        with _libyaml():
            fast = yaml.safe_load(text)
        assert fast == pure(text) and fast
    assert yaml.safe_load is pure
