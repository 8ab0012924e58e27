"""A study's inputs made once per machine for the Dask workers on it (issue 35): the first
worker makes them and stores them, the others load them; whatever goes wrong, each makes them."""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inexeval import executor_store

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs POSIX (fork, flock)")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    yield tmp_path / f"inexeval-{os.getuid()}"
    executor_store.forget(list(executor_store._HELD))


def _making(log: Path, pause: float) -> object:
    def make() -> list[int]:
        with log.open("a") as out:
            out.write(f"{os.getpid()}\n")
        time.sleep(pause)
        return [os.getpid(), 7]
    return make


def _worker(key: str, log: Path, pause: float, results: Path, done: Any = None) -> None:
    made = executor_store.made_on_machine(key, _making(log, pause))  # type: ignore[arg-type]
    results.with_name(f"{results.name}.{os.getpid()}").write_text(repr(made))
    if done is not None:
        done.wait(60)  # every worker has the inputs before any lets go of them
    executor_store.forget([key])


def _fork(*args: object) -> multiprocessing.process.BaseProcess:
    process = multiprocessing.get_context("fork").Process(target=_worker, args=args)
    process.start()
    return process


def test_the_first_worker_makes_the_inputs_and_the_others_load_them(store: Path,
                                                                    tmp_path: Path) -> None:
    key, log = uuid.uuid4().hex, tmp_path / "made"
    done = multiprocessing.get_context("fork").Barrier(3)
    workers = [_fork(key, log, 0.5, tmp_path / "result", done) for _ in range(3)]
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    [maker] = log.read_text().split()  # made once for the three
    results = {p.read_text() for p in tmp_path.glob("result.*")}
    assert results == {repr([int(maker), 7])}
    assert not list(store.iterdir())  # the last to let go removed the study's files


def test_a_maker_killed_while_making_leaves_the_making_to_the_next(store: Path,
                                                                  tmp_path: Path) -> None:
    key, log = uuid.uuid4().hex, tmp_path / "made"
    first = _fork(key, log, 60.0, tmp_path / "result")
    deadline = time.monotonic() + 30
    while not log.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    second = _fork(key, log, 0.0, tmp_path / "result")
    time.sleep(0.3)
    assert second.is_alive()  # waiting for the first
    assert first.pid is not None
    os.kill(first.pid, signal.SIGKILL)
    second.join(60)
    assert second.exitcode == 0
    assert log.read_text().split() == [str(first.pid), str(second.pid)]
    assert (tmp_path / f"result.{second.pid}").read_text() == repr([second.pid, 7])


def test_the_stored_inputs_load_and_a_study_nobody_holds_is_swept(store: Path) -> None:
    assert executor_store.made_on_machine("a", lambda: {"made": 3}) == {"made": 3}
    assert sorted(p.name for p in store.iterdir()) == ["a.lock", "a.made", "a.use"]
    again = executor_store.made_on_machine("a", lambda: pytest.fail("made twice"))
    assert again == {"made": 3}  # loaded
    # a study whose workers are gone (nobody holds its .use) is removed by the next making
    (store / "gone.use").touch()
    (store / "gone.made").write_bytes(b"stale")
    executor_store.made_on_machine("b", lambda: 1)
    assert not (store / "gone.made").exists() and not (store / "gone.use").exists()
    assert (store / "a.made").exists()  # held by this process
    executor_store.forget(["a", "b"])
    assert not list(store.iterdir())


class _Items:
    """Inputs whose ``items`` the store writes one by one (:class:`executor_store.Streamed`)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.made: list[Any] = []  # weak references to each item's array

    def items(self) -> Iterator[tuple[str, Any]]:
        for k in range(self.count):
            # every item before this one written and let go of (not held until the end)
            assert all(made() is None for made in self.made)
            yield f"item {k}", self._array(k)

    def _array(self, k: int) -> Any:
        import weakref

        import numpy as np

        array = np.arange(50_000, dtype=np.int64) * (k + 1)
        self.made.append(weakref.ref(array))
        return array

    def __reduce_stored__(self, later: Any) -> tuple[Any, tuple[Any, ...]]:
        return dict, ({"items": executor_store.Streamed(self.items()), "more": [1, 2]},)


def test_streamed_items_are_written_one_by_one_and_load_as_a_tuple(store: Path) -> None:
    import pickle

    import numpy as np

    executor_store.made_on_machine("t", lambda: _Items(4))
    loaded = executor_store.made_on_machine("t", lambda: pytest.fail("made twice"))
    assert loaded["more"] == [1, 2] and isinstance(loaded["items"], tuple)
    assert [name for name, _ in loaded["items"]] == [f"item {k}" for k in range(4)]
    for k, (_, array) in enumerate(loaded["items"]):
        assert np.array_equal(array, np.arange(50_000) * (k + 1))
        base = array
        while isinstance(base, np.ndarray):
            base = base.base
        assert isinstance(base, memoryview)  # the file mapped, not copied
    # pickled anywhere else, a tuple
    assert pickle.loads(pickle.dumps(executor_store.Streamed(iter([1, 2])))) == (1, 2)


def test_without_a_store_of_its_own_each_worker_makes_the_inputs(
        store: Path, caplog: pytest.LogCaptureFixture) -> None:
    store.mkdir(mode=0o777)
    store.chmod(0o777)  # open to others: not used
    assert executor_store.store_folder() is None
    assert executor_store.made_on_machine("c", lambda: 5) == 5
    assert not list(store.iterdir())
    store.chmod(0o700)
    with caplog.at_level("WARNING"):
        assert executor_store.made_on_machine("d", lambda: (lambda: 1)) is not None  # no pickle
    assert "not stored" in caplog.text
    assert sorted(p.name for p in store.iterdir()) == ["d.lock", "d.use"]
    (store / "e.made").write_bytes(b"not a pickle")
    with caplog.at_level("WARNING"):
        assert executor_store.made_on_machine("e", lambda: 6) == 6
    assert "do not load" in caplog.text


def test_stored_study_inputs_unpack_the_runs_a_task_uses(store: Path, tmp_path: Path) -> None:
    from inexeval.formats.detect import load_assessments, load_run
    from inexeval.meta.pool import Pooling, Scoring, StudyInputs, _PackedRuns

    (tmp_path / "q.fol").write_text("1 Q0 d1 20 100 -1 0:20\n1 Q0 d2 0 50\n"
                                    "2 Q0 d3 10 40 -1 5:10\n")
    (tmp_path / "a.fol").write_text("1 Q0 d1 1 0.9 a 0 10\n1 Q0 d2 2 0.5 a 5 7\n"
                                    "2 Q0 d3 1 0.3 a 2 9\n9 Q0 d9 1 0.3 a 2 9\n")
    (tmp_path / "b.fol").write_text("2 Q0 d3 1 0.9 b 5 5\n1 Q0 d2 1 0.5 b 0 7\n")
    inputs = StudyInputs(load_assessments(str(tmp_path / "q.fol")),
                         [load_run(str(tmp_path / n)) for n in ("a.fol", "b.fol")],
                         Scoring((), task="focused"), Pooling(depth=10), "read\n",
                         (UserWarning("said"),))
    made = executor_store.made_on_machine("s", lambda: inputs)
    assert made is inputs and "plan" in inputs.__dict__  # made with the store
    stored = executor_store.made_on_machine("s", lambda: pytest.fail("made twice"))
    runs = stored.assessed_runs
    assert isinstance(runs, _PackedRuns) and runs._runs == [None, None]
    assert runs[1].name == "b" and runs._runs[0] is None  # unpacked when used, no other
    assert list(runs[0]) == ["1", "2"]  # the assessed topics
    plan, again = inputs.plan, stored.plan
    assert again.names == plan.names == ["a", "b"] and again.note == "read\n"
    assert again.measures == plan.measures
    assert again.full_means.tolist() == plan.full_means.tolist()
    assert [str(w) for w in again.warnings] == [str(w) for w in plan.warnings]
    assert str(again.warnings[0]) == "said" and len(again.warnings) > 1


def test_a_lock_file_removed_while_waiting_for_it_is_made_again(store: Path) -> None:
    import fcntl
    import threading

    executor_store.made_on_machine("x", lambda: 0)  # the folder made
    executor_store.forget(["x"])
    use = os.open(store / "k.use", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(use, fcntl.LOCK_EX)  # the last worker of a study, letting go of it
    got: list[object] = []
    waiting = threading.Thread(target=lambda: got.append(
        executor_store.made_on_machine("k", lambda: "made")))
    waiting.start()
    time.sleep(0.3)
    assert not got  # waits for the lock
    for name in os.listdir(store):
        os.unlink(store / name)
    os.close(use)  # removed, then let go: the waiting worker must not use the removed file
    waiting.join(30)
    assert got == ["made"]
    held = executor_store._HELD["k"]
    assert os.fstat(held).st_ino == os.stat(store / "k.use").st_ino
    executor_store.forget(["k"])
    assert not list(store.iterdir())


def test_a_study_that_ends_while_its_inputs_are_made_lets_them_go_once_made(
        store: Path) -> None:
    import threading

    from inexeval import executor
    from inexeval.executor import ReadOnWorkers

    started, go = threading.Event(), threading.Event()

    def make(_: None) -> str:
        started.set()
        go.wait(30)
        return "made"

    recipe = ReadOnWorkers(make, None)
    got: list[object] = []
    making = threading.Thread(target=lambda: got.append(recipe.value(machine=True)))
    making.start()
    assert started.wait(30)
    executor._forget_on_worker([recipe.key])  # the command closed: does not wait
    go.set()
    making.join(30)
    assert got == ["made"]
    assert not executor._MADE and not executor._LATE and recipe.key not in executor_store._HELD
    assert not list(store.iterdir())


def test_without_flock_each_worker_makes_the_inputs_and_lets_them_go(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from inexeval import executor
    from inexeval.executor import ReadOnWorkers

    monkeypatch.setattr(executor_store, "fcntl", None)  # as on Windows
    recipe = ReadOnWorkers(lambda source: [source], 3)
    assert recipe.value(machine=True) == [3]
    assert not store.exists()
    executor._forget_on_worker([recipe.key])
    assert not executor._MADE


class _Work:
    """Inputs whose plan is made after they are stored (as a study's are)."""

    def __init__(self, inputs: Any) -> None:
        self.inputs = inputs

    def __after_stored__(self) -> object:
        return self.inputs.plan


class _Slow(_Work):
    """A plan made once ``go`` is set, after saying ``stored``."""

    stored: Any = None
    go: Any = None

    def __after_stored__(self) -> object:
        self.stored.set()
        self.go.wait(30)
        return super().__after_stored__()


def _study(folder: Path) -> Any:
    from inexeval.formats.detect import load_assessments, load_run
    from inexeval.meta.pool import Pooling, Scoring, StudyInputs

    (folder / "q.fol").write_text("1 Q0 d1 20 100 -1 0:20\n2 Q0 d3 10 40 -1 5:10\n")
    (folder / "a.fol").write_text("1 Q0 d1 1 0.9 a 0 10\n9 Q0 d9 1 0.3 a 2 9\n")
    return StudyInputs(load_assessments(str(folder / "q.fol")), [load_run(str(folder / "a.fol"))],
                       Scoring((), task="focused"), Pooling(depth=10), "read\n")


def _made_again(folder: str) -> _Work:
    return _Work(_study(Path(folder)))


def test_a_study_s_plan_is_stored_after_its_inputs(store: Path, tmp_path: Path) -> None:
    from inexeval.executor import ReadOnWorkers

    recipe = ReadOnWorkers(_made_again, str(tmp_path))
    made = executor_store.made_on_machine("p", lambda: _made_again(str(tmp_path)), recipe)
    assert "plan" in made.inputs.__dict__  # made after the inputs were stored
    assert sorted(p.name for p in store.iterdir()) == [
        "p.later", "p.later.lock", "p.lock", "p.made", "p.use"]
    loaded = executor_store.made_on_machine("p", lambda: pytest.fail("made twice"), recipe)
    assert "plan" not in loaded.inputs.__dict__  # stored before it
    plan, again = made.inputs.plan, loaded.inputs.plan  # loaded from p.later
    assert (again.names, again.note, again.measures) == (plan.names, plan.note, plan.measures)
    assert again.full_means.tolist() == plan.full_means.tolist()
    assert [str(w) for w in again.warnings] == [str(w) for w in plan.warnings]
    assert "are not in the qrels" in str(again.warnings[0])  # of the run's unassessed topic
    # the worker that stored the inputs died before storing the plan: made again from the recipe
    (store / "p.later").unlink()
    orphan = executor_store.made_on_machine("p", lambda: pytest.fail("made twice"), recipe)
    assert [str(w) for w in orphan.inputs.plan.warnings] == [str(w) for w in plan.warnings]


def test_a_plan_asked_for_while_it_is_made_is_waited_for(store: Path, tmp_path: Path) -> None:
    import threading

    from inexeval.executor import ReadOnWorkers

    stored, go = _Slow.stored, _Slow.go = threading.Event(), threading.Event()
    recipe = ReadOnWorkers(_made_again, str(tmp_path))
    maker = threading.Thread(target=lambda: executor_store.made_on_machine(
        "w", lambda: _Slow(_study(tmp_path)), recipe))
    maker.start()
    assert stored.wait(30)
    executor_store._HELD.pop("w")  # as another worker: its own hold
    loaded = executor_store.made_on_machine("w", lambda: pytest.fail("made twice"), recipe)
    got: list[object] = []
    asking = threading.Thread(target=lambda: got.append(loaded.inputs.plan))
    asking.start()
    time.sleep(0.3)
    assert not got  # waits for the plan being made
    go.set()
    maker.join(30)
    asking.join(30)
    assert got and got[0].names == ["a"]  # type: ignore[attr-defined]
