"""Who runs a study's tasks is a parameter, never a branch in the study's code.

A study (the replicate blocks of a bootstrap, the left-out groups of a reuse study, the depths
of a pool study) is a list of independent tasks and one function ``fn(shared, task)``; an
executor applies it to every task and gives the results **in task order**, whatever ran them:

* :class:`Serial`: this process, one task after another;
* :class:`Processes`: a pool of ``jobs`` forked processes of this machine (``--jobs N``), the
  shared inputs inherited by fork, never pickled per task;
* :class:`DaskExecutor`: a Dask cluster (``--scheduler ADDRESS``, or ``local:N`` for a
  ``LocalCluster`` of N single-threaded worker processes); the shared inputs are scattered to
  every worker once, each task's own inputs (pickled once) to one worker, straight from this
  process rather than through the scheduler where it reaches the workers; a task whose worker
  dies is given out again with its inputs, and an interrupted study cancels what is still
  queued. The tasks go out one per worker thread at a time, the next when one ends (a worker
  that ends early takes it), and run with the worker's statistical profiler paused. Needs the
  ``dask`` extra. With ``inputs="shared"`` (``--inputs shared``) a study's
  :class:`ReadOnWorkers` inputs are not made here and sent: the workers make them (reading
  the files from their paths), once per study and machine (the first worker of a machine
  makes them and stores them, the others load what it stored: :mod:`inexeval.executor_store`),
  and keep them for their tasks; their recipe, and tasks of a few KB, then go in the tasks,
  through the scheduler.

Randomness belongs to the task, never to the worker: :func:`task_seeds` gives task ``i`` the
``i``-th child of ``numpy.random.SeedSequence(seed)`` (:func:`task_seed`, that child alone), so
the output is bit-identical on one process, ``--jobs N`` or a cluster (numpy's "Parallel random
number generation").

A study's natural task (one left-out group, one level) may be too small to be worth shipping:
:func:`map_chunked` gives the tasks out in contiguous chunks, about :data:`CHUNKS_PER_WORKER`
per worker of the executor (:func:`worker_count`), each chunk applying ``fn`` to its tasks in
order; the results are the same list whatever the chunking, since a task's randomness is its
own (its index's seed), never its chunk's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

import numpy as np

from inexeval.errors import InexevalError
from inexeval.progress import progress_callback

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Applies ``fn(shared, task)`` to every task; results in task order. An executor may say
    how many tasks it runs at once (``workers``; :func:`worker_count`)."""

    def map(self, fn: Callable[[Any, Any], Any], tasks: Sequence[Any], shared: Any = None, *,
            description: str | None = None) -> list[Any]: ...


@dataclass(frozen=True)
class ReadOnWorkers:
    """What every task of a study needs, as the recipe to make it: ``make(source)`` (reading
    the inputs from their paths and coding them). An executor of this machine makes it here,
    once; a :class:`DaskExecutor` with ``inputs="shared"`` sends the recipe and the workers of
    a machine make it once per study (``key``; one makes it, the others load it), for all
    their tasks; with ``inputs="send"`` it is made here and sent."""

    make: Callable[[Any], Any]
    source: Any
    key: str = ""
    machine: bool = True
    """On a Dask worker: made once per machine (one worker makes them, the others load them,
    :mod:`inexeval.executor_store`); False, by every worker itself (``--inputs each``)."""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", uuid.uuid4().hex)

    def value(self, *, machine: bool = False) -> Any:
        """The inputs, made on the first call in this process and kept for the study (a
        process keeps those of the last study it was given, none other, a Dask worker until
        the study's command closes its executor; a worker's threads wait for the one making
        them). ``machine``: made once per machine, the other processes of this user loading
        them (:mod:`inexeval.executor_store`: a Dask worker's)."""
        with _MAKING:
            if _MADE and _MADE[0][0] == self.key:
                made = _MADE[0][1]
            else:
                _MADE.clear()
                if machine:
                    from inexeval import executor_store

                    executor_store.forget_others(self.key)
                    made = executor_store.made_on_machine(self.key,
                                                          lambda: self.make(self.source), self)
                else:
                    made = self.make(self.source)
                _MADE.append((self.key, made))
            if self.key in _LATE:  # the study ended while this waited: not kept
                _LATE.clear()
                _drop([self.key])
            return made

    def forget(self) -> None:
        """Let this process drop the inputs (the study is over)."""
        if _MADE and _MADE[0][0] == self.key:
            _MADE.clear()


_MADE: list[tuple[str, Any]] = []
"""The inputs this process made last (:meth:`ReadOnWorkers.value`) and their study's key."""
_MAKING = threading.Lock()
_LATE: set[str] = set()
"""Studies whose command ended while this process was making (or waiting for) their inputs:
let go of once made."""


def resolved(shared: Any) -> Any:
    """``shared`` itself, or the inputs a :class:`ReadOnWorkers` makes (in this process)."""
    return shared.value() if isinstance(shared, ReadOnWorkers) else shared


def task_seeds(seed: int, n: int) -> list[np.random.SeedSequence]:
    """The seeds of ``n`` tasks: the children of ``SeedSequence(seed)``, task ``i`` the
    ``i``-th (the same whatever runs it, and whatever the number of tasks after it)."""
    return np.random.SeedSequence(seed).spawn(n)


def task_seed(seed: int, i: int) -> np.random.SeedSequence:
    """Task ``i``'s seed of :func:`task_seeds` (the ``i``-th child of ``SeedSequence(seed)``),
    made by itself: where the task runs, so that a task carries two numbers and the process
    that gives the tasks out need not import ``numpy.random``."""
    return np.random.SeedSequence(seed, spawn_key=(i,))


def _advance(description: str | None, total: int) -> Callable[[int], None]:
    update = progress_callback(description) if description else None
    if update is None:
        return lambda done: None
    return lambda done: update(done, total)


class Serial:
    """Every task in this process, in order."""

    workers = 1

    def map(self, fn: Callable[[Any, T], R], tasks: Sequence[T], shared: Any = None, *,
            description: str | None = None) -> list[R]:
        advance = _advance(description, len(tasks))
        shared = resolved(shared)
        out = []
        for i, task in enumerate(tasks):
            out.append(fn(shared, task))
            advance(i + 1)
        return out

    def __repr__(self) -> str:
        return "Serial()"


_WORK: tuple[Callable[[Any, Any], Any], Any, Sequence[Any]] | None = None


def _run_task(index: int) -> Any:
    assert _WORK is not None
    fn, shared, tasks = _WORK
    return fn(shared, tasks[index])


class Processes:
    """Tasks spread over ``jobs`` forked processes of this machine."""

    def __init__(self, jobs: int) -> None:
        if jobs < 1:
            raise InexevalError(f"--jobs must be at least 1, not {jobs}")
        self.jobs = jobs

    @property
    def workers(self) -> int:
        return self.jobs

    def map(self, fn: Callable[[Any, T], R], tasks: Sequence[T], shared: Any = None, *,
            description: str | None = None) -> list[R]:
        if self.jobs == 1 or len(tasks) <= 1:
            return Serial().map(fn, tasks, shared, description=description)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        global _WORK
        advance = _advance(description, len(tasks))
        out: list[Any] = [None] * len(tasks)
        _WORK = (fn, resolved(shared), tasks)
        try:
            with ProcessPoolExecutor(min(self.jobs, len(tasks)),
                                     mp_context=multiprocessing.get_context("fork")) as pool:
                futures = {pool.submit(_run_task, i): i for i in range(len(tasks))}
                try:
                    for done, future in enumerate(as_completed(futures), 1):
                        out[futures[future]] = future.result()
                        advance(done)
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
        finally:
            _WORK = None
        return out

    def __repr__(self) -> str:
        return f"Processes(jobs={self.jobs})"


MMAP_THRESHOLD = 32 << 20
"""glibc's mmap threshold on a Dask worker whose environment froze it (:func:`tune_malloc`): the
largest that glibc's own sliding threshold reaches on 64-bit systems."""

_TUNED: list[bool] = []


def tune_malloc(environ: Mapping[str, str] | None = None) -> bool:
    """Once per process: when the environment fixed one of glibc's malloc settings but not the
    mmap threshold (Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``,
    which also freezes the mmap threshold at 128 KiB), set the mmap threshold to
    :data:`MMAP_THRESHOLD` and the trim threshold to twice it, so that the arrays of a study
    are taken from the heap again and not mapped afresh (or the heap given back and grown
    again) and faulted in page by page at each use: on ``meta pool`` of 100 runs the nanny's
    setting cost each worker 70% more CPU (3.8 -> 6.5 s). Memory still goes back to the system
    after a study (:func:`_give_back_memory`). Whether it set them."""
    if _TUNED:
        return False
    _TUNED.append(True)
    environ = os.environ if environ is None else environ
    frozen = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")
    if "MALLOC_MMAP_THRESHOLD_" in environ or not any(name in environ for name in frozen):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    # M_MMAP_THRESHOLD, and M_TRIM_THRESHOLD twice it, as glibc's sliding thresholds keep them
    return bool(mallopt(-3, MMAP_THRESHOLD)) and bool(mallopt(-1, 2 * MMAP_THRESHOLD))


def _dask_call(fn: Callable[[Any, Any], Any], shared: Any, task: bytes) -> Any:
    tune_malloc()
    with _unprofiled():
        if isinstance(shared, ReadOnWorkers):
            shared = _made_on_worker(shared)
        return fn(shared, pickle.loads(task))  # our own task, pickled by map


def _warm(recipe: ReadOnWorkers) -> None:
    tune_malloc()
    with _unprofiled():
        _made_on_worker(recipe)


@contextlib.contextmanager
def _unprofiled() -> Iterator[None]:
    """The Dask worker's statistical profiler (``distributed.worker.profile``, on by
    default: every 10 ms the worker's event loop walks the stack of each task running) paused
    while this task runs, and its event loop's watchdog (``distributed.admin.tick``, every
    20 ms by default) slowed to once a second, both as they were when the worker runs none of
    ours any more: on ``meta pool``'s long study the profiler cost the workers 5% of their CPU
    (the tasks' stacks are deep, and each sample holds the interpreter's lock), and the
    watchdog 1.4% of a core a worker (a block of the loop longer than its limit, 3 s by
    default, is still told). The worker's loop does both, in the order the tasks ask; a
    profiler configured off stays off, a watchdog configured slower stays as it is (and one
    whose limit is under 3 s is slowed to a third of it, :func:`_watchdog_ms`)."""
    from distributed import get_worker

    try:
        worker = get_worker()
    except ValueError:  # not a task of a worker
        yield
        return
    worker.loop.add_callback(_pause_profiler, worker, 1)
    try:
        yield
    finally:
        worker.loop.add_callback(_pause_profiler, worker, -1)


_PROFILER: dict[int, tuple[int, Any, float | None]] = {}
"""Per worker of this process (by ``id``; several when the cluster runs its workers in one
process): our tasks running there, the profiler they paused (None: none) and the watchdog's
interval in ms they slowed (None: not slowed). Changed on the worker's event loop only."""

WATCHDOG_MS = 1000.0
"""The interval of a worker's event-loop watchdog while our tasks run (:func:`_unprofiled`)."""


def _watchdog_ms() -> float:
    """:data:`WATCHDOG_MS`, or a third of the watchdog's limit if that is less (Dask logs a
    tick later than its limit as a blocked loop: slowed to the limit, every tick would be)."""
    try:
        from distributed import core
    except ImportError:
        return WATCHDOG_MS
    return min(WATCHDOG_MS, float(getattr(core, "tick_maximum_delay", 3.0)) * 1000 / 3)


def _pause_profiler(worker: Any, change: int) -> None:
    tasks, paused, interval = _PROFILER.get(id(worker), (0, None, None))
    if change > 0 and tasks == 0:
        profiler = worker.periodic_callbacks.get("profile")
        if profiler is not None and profiler.is_running():
            profiler.stop()
            paused = profiler
        tick = worker.periodic_callbacks.get("tick")
        slowed = _watchdog_ms()
        if tick is not None and getattr(tick, "callback_time", slowed) < slowed:
            interval, tick.callback_time = tick.callback_time, slowed
    tasks += change
    if tasks > 0:
        _PROFILER[id(worker)] = (tasks, paused, interval)
        return
    _PROFILER.pop(id(worker), None)
    if paused is not None and not paused.is_running():
        paused.start()  # the one this worker's tasks stopped, once
    tick = worker.periodic_callbacks.get("tick")
    if interval is not None and tick is not None:
        tick.callback_time = interval


def _forget_on_worker(keys: list[str]) -> None:
    """Drop the inputs this worker made for a study of ``keys`` (its command is over); if it
    is making inputs now, once they are made (those of ``keys``), or replaced (another
    study's)."""
    if not _MAKING.acquire(blocking=False):
        _LATE.update(keys)
        return
    try:
        _drop(keys)
    finally:
        _MAKING.release()


def _drop(keys: list[str]) -> None:
    """The inputs of the studies ``keys`` let go of (with ``_MAKING`` held)."""
    from inexeval import executor_store

    executor_store.forget(keys)
    if _MADE and _MADE[0][0] in keys:
        _MADE.clear()
        _give_back_memory()


def _give_back_memory() -> None:
    """Return the memory freed to the system where the C library can (glibc's
    ``malloc_trim``, as Dask's documentation advises for a worker whose memory stays high
    after its data is gone: a worker that dropped 100 runs fell from 470 to 160 MB)."""
    import ctypes
    import gc

    gc.collect()
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return
    trim(0)


def _made_on_worker(recipe: ReadOnWorkers) -> Any:
    """The recipe's inputs made on this Dask worker (once per study); a problem with them is
    one line naming the worker."""
    try:
        return recipe.value(machine=recipe.machine)
    except (InexevalError, OSError) as error:
        from distributed import get_worker

        where = get_worker().address
        if isinstance(error, OSError):
            name = error.filename if error.filename is not None else ""
            raise InexevalError(f"cannot read {name} on worker {where}: "
                                f"{error.strerror or error}") from None
        raise InexevalError(f"on worker {where}: {error}") from None


@contextlib.contextmanager
def _libyaml() -> Iterator[None]:
    """PyYAML's ``safe_load`` parsing with libyaml (``CSafeLoader``: the same documents, the
    same constructor, ten times faster) while Dask reads its configuration, when PyYAML has
    libyaml: importing ``distributed`` parses Dask's ``dask.yaml`` and ``distributed.yaml``
    (17 KB) and the user's configuration files, 17 ms of a pure-Python parser's CPU."""
    try:
        import yaml  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:  # Dask's dependency: Dask is missing, as the import will say
        yield
        return
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        yield
        return
    pure = yaml.safe_load
    yaml.safe_load = lambda stream: yaml.load(stream, Loader=loader)
    try:
        yield
    finally:
        yaml.safe_load = pure


def _import_distributed() -> tuple[Any, Any, Any]:
    """``dask``, and ``distributed``'s ``Client`` and ``LocalCluster``. The first time this
    process imports them, the collector waits for the import, and what the process then holds
    is frozen (``gc.freeze()``, as the assess server does once started): the import leaves
    some 40,000 objects the collector tracks (Dask, Tornado, asyncio, their configuration),
    which live as long as the process; the collector walked them in its passes while the
    command waited and, above all, in those of the interpreter's exit (``python -c 'from
    distributed import Client'``: 0.46 s of CPU, 0.38 s ended with ``os._exit`` or with
    ``gc.freeze()`` first). What else is frozen then is what the command holds to its end
    anyway (its arguments; with ``--inputs send``, the inputs it read)."""
    import gc
    import sys

    with _IMPORTING:  # (two threads importing at once swapped yaml.safe_load back wrongly)
        first = "distributed" not in sys.modules
        collecting = gc.isenabled()
        if first:
            gc.disable()
        try:
            with _libyaml() if first else contextlib.nullcontext():
                import dask
                from distributed import Client, LocalCluster
        except ImportError:
            raise InexevalError("--scheduler needs Dask's distributed scheduler: "
                                "pip install 'inexeval[dask]'") from None
        finally:
            if first and collecting:
                gc.enable()
        if first:
            gc.freeze()
    return dask, Client, LocalCluster


_IMPORTING = threading.Lock()


class DaskExecutor:
    """Tasks sent to a Dask cluster: ``address`` of a running scheduler
    (``tcp://HOST:8786``) or ``local:N`` for a ``LocalCluster`` of N worker processes started
    here (and stopped with the executor). ``retries``: how often a task whose worker died is
    run again elsewhere."""

    def __init__(self, address: str, *, retries: int = 3, inputs: str = "send") -> None:
        dask, Client, LocalCluster = _import_distributed()
        if inputs not in INPUTS:
            raise InexevalError(f"--inputs is shared, each or send, not {inputs!r}")
        self.address = address
        self.retries = retries
        self.inputs = inputs
        """``shared``: the workers make a study's :class:`ReadOnWorkers` inputs themselves
        (they see the same files), once per machine; ``each``: every worker makes them;
        ``send``: they are made here and sent to every worker."""
        self.last_payload_bytes = 0
        """The bytes of the tasks the last :meth:`map` sent (pickled), for a benchmark."""
        configured = dask.config.get("distributed.client.direct-to-workers", None)
        self.direct = True if configured is None else bool(configured)
        """Whether inputs are sent from this process to the workers themselves (Dask's
        ``distributed.client.direct-to-workers``, default here True) rather than through the
        scheduler, which otherwise receives and sends on every byte; set False when this
        process reaches the scheduler alone. A direct send that cannot reach a worker falls
        back to the scheduler for the rest of the study."""
        self._probed = False
        self._threads_asked: tuple[float, int] = (float("-inf"), 1)
        self._warming: dict[str, list[Any]] = {}
        self._made: list[str] = []
        """The keys of the inputs the workers made (``inputs="shared"``), dropped there when
        the executor closes: a worker would otherwise hold the last study's runs (GBs for
        1,000 runs) until the next study comes."""
        self._cluster: Any = None
        if address.startswith("local:"):
            count = address.partition(":")[2]
            if not (count.isascii() and count.isdigit() and int(count) >= 1):
                raise InexevalError(f"--scheduler local:N needs a number of workers N >= 1, "
                                    f"not {count!r}")
            # its workers' logs are this command's stderr: a task's error is said once, as
            # the command's own line, not also logged with its traceback by the worker
            self._cluster = LocalCluster(n_workers=int(count), threads_per_worker=1,
                                         processes=True, dashboard_address=None,
                                         silence_logs=logging.CRITICAL)
            self.client = Client(self._cluster)
        else:
            try:
                self.client = Client(address, timeout="10s")
            except (OSError, TimeoutError) as error:
                raise InexevalError(f"--scheduler {address}: no Dask scheduler answers "
                                    f"({error})") from None

    def map(self, fn: Callable[[Any, T], R], tasks: Sequence[T], shared: Any = None, *,
            description: str | None = None) -> list[R]:
        from concurrent.futures import CancelledError

        from distributed import as_completed

        if not tasks:
            return []
        advance = _advance(description, len(tasks))
        if self.inputs == "send":
            shared = resolved(shared)
        elif self.inputs == "each" and isinstance(shared, ReadOnWorkers):
            shared = replace(shared, machine=False)
        # inputs the workers make themselves go as their recipe (a few KB: the files' paths) in
        # each task, through the scheduler, as do tasks of a few KB in all: no connection to
        # every worker and no scatter for a study that sends next to nothing
        inline = isinstance(shared, ReadOnWorkers)
        scattered: list[Any] = [] if inline else self._scatter([shared], broadcast=True)
        shared_future = shared if inline else scattered[0]
        if isinstance(shared, ReadOnWorkers) and shared.key not in self._made:
            self._made.append(shared.key)
        if isinstance(shared, ReadOnWorkers) and shared.key not in self._warming:
            # every worker makes the inputs at once, not when its first task comes (after
            # the study's plan, which one worker makes first): held until the next study
            self._warming = {shared.key: [
                self.client.submit(_warm, shared_future, workers=[worker], pure=False,
                                   allow_other_workers=False)
                for worker in self.client.scheduler_info().get("workers", {})]}
        # Each task is pickled here, once, to bytes, and scattered: sent from this process
        # straight to one worker (:attr:`direct`), not through the scheduler (in a task's
        # graph the scheduler unpickled and pickled every byte: 0.55 s of its CPU for the 72
        # MB of runs of a reuse study; scattered through it, it relays them: 0.1-0.2 s; sent
        # direct, 0.03 s, only the keys). A payload dies with its worker, unlike a graph's:
        # the task is then cancelled, and given out again here with its payload (``retries``
        # times), as Dask reruns a task whose worker died. Tasks of at most INLINE_BYTES in
        # all, of a study whose workers make its inputs, go in the tasks themselves instead.
        payloads = [pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL) for task in tasks]
        self.last_payload_bytes = sum(len(p) for p in payloads)
        inline = inline and self.last_payload_bytes <= INLINE_BYTES
        placed: list[Any] = list(payloads) if inline else self._scatter(payloads)
        # The tasks are given out in order, one more each time one ends, as many at a time as
        # the workers have threads: a worker that ends early takes the next task. Given out at
        # once, the scheduler placed them all on the workers from the start (a task that needs
        # a scattered payload is not queued on the scheduler), two workers then ending up to a
        # task apart, or more when one was slowed (meta pool's 20 depths on two workers: one
        # worker idle 10 s of 130).
        futures: list[Any] = []
        index: dict[str, int] = {}
        resent = [0] * len(tasks)
        out: list[Any] = [None] * len(tasks)
        pending = as_completed()

        def submit(i: int) -> None:
            future = self.client.submit(_dask_call, fn, shared_future, placed[i], pure=False,
                                        retries=self.retries)
            if i < len(futures):
                futures[i] = future
            else:
                futures.append(future)
            index[future.key] = i
            pending.add(future)

        done = 0
        try:
            while len(futures) < len(tasks) and pending.count() < self._threads():
                submit(len(futures))
            for future in pending:
                i = index[future.key]
                try:
                    out[i] = future.result()
                except CancelledError:
                    if (inline or not placed[i].cancelled()
                            or resent[i] >= self.retries):
                        raise
                    resent[i] += 1
                    [placed[i]] = self._scatter([payloads[i]])
                    submit(i)
                    continue
                done += 1
                advance(done)
                while len(futures) < len(tasks) and pending.count() < self._threads():
                    submit(len(futures))
        except BaseException:
            self.client.cancel(futures)
            raise
        finally:
            self.client.cancel([*scattered, *([] if inline else placed)])
        return out

    def _scatter(self, data: list[Any], *, broadcast: bool = False) -> list[Any]:
        """Futures of ``data`` placed on the workers (:attr:`direct` if it can)."""
        if self.direct and not self._probed:
            self._probed = True
            self.direct = self._reaches_workers()
        if self.direct:
            try:
                placed: list[Any] = self.client.scatter(data, broadcast=broadcast, hash=False,
                                                        direct=True)
                return placed
            except OSError:  # a worker that joined since and cannot be reached (or none)
                if not self.client.scheduler_info().get("workers"):
                    raise InexevalError(f"--scheduler {self.address}: no Dask worker is "
                                        "running") from None
                self.direct = False
        placed = self.client.scatter(data, broadcast=broadcast, hash=False, direct=False)
        return placed

    def _reaches_workers(self) -> bool:
        """Whether this process connects to every worker the scheduler knows (asked once,
        before the first direct send: one that fails part way leaves what it placed on the
        workers it reached where the scheduler does not know it)."""
        addresses = list(self.client.scheduler_info().get("workers", {}))

        async def probe() -> None:
            for address in addresses:
                await self.client.rpc(address).identity()

        try:
            self.client.sync(probe)
        except OSError:  # TimeoutError included
            return False
        return True

    @property
    def workers(self) -> int:
        """The workers the scheduler knows now (at least 1)."""
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def _threads(self) -> int:
        """The threads of the workers the scheduler knows now (at least 1; the threads alone,
        not every worker's metrics), asked at most once a second (a scheduler round trip)."""
        now = time.monotonic()
        if now - self._threads_asked[0] >= 1.0:
            self._threads_asked = (now, max(1, sum(int(n) for n in
                                                   self.client.nthreads().values())))
        return self._threads_asked[1]

    def close(self) -> None:
        self._warming.clear()
        if self._made and self.client.status == "running":
            with contextlib.suppress(OSError):  # the cluster is gone: nothing is held
                self.client.run(_forget_on_worker, self._made, on_error="ignore")
        self._made.clear()
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()

    def __enter__(self) -> DaskExecutor:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"DaskExecutor({self.address!r})"


INLINE_BYTES = 1 << 20
"""The most bytes of tasks (pickled, all of a study's) that go in the tasks themselves, through
the scheduler, when the workers make the inputs (``inputs="shared"``): more are scattered."""

INPUTS = ("shared", "each", "send")
"""Where a study's inputs are made on a Dask cluster (``--inputs``): on each worker, from the
files' paths, or here, then sent."""


def make_executor(jobs: int = 1, scheduler: str | None = None, inputs: str = "send"
                  ) -> Executor:
    """The executor a command's ``--jobs``/``--scheduler`` (and ``--inputs``) ask for (a
    scheduler wins; close a :class:`DaskExecutor` when done, or use it as a context
    manager)."""
    if scheduler:
        return DaskExecutor(scheduler, inputs=inputs)
    return Processes(jobs) if jobs > 1 else Serial()


def blocks(total: int, size: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive blocks of at most ``size`` items covering ``total``:
    a study split by index, so the block size never changes a number."""
    if size < 1:
        raise InexevalError(f"a block needs at least one item, not {size}")
    for start in range(0, total, size):
        yield start, min(start + size, total)


CHUNKS_PER_WORKER = 4
"""Chunks per worker :func:`map_chunked` makes: enough for a worker that ends early to take
another, few enough that each is worth shipping."""


def worker_count(executor: Executor) -> int:
    """How many tasks ``executor`` runs at once (1 unless it says, as the executors here do)."""
    return max(1, int(getattr(executor, "workers", 1)))


def chunks(total: int, parts: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of ``min(parts, total)`` contiguous slices covering ``total`` items in
    order, their sizes differing by at most one (the longer ones first)."""
    if parts < 1:
        raise InexevalError(f"a study needs at least one chunk, not {parts}")
    parts = min(parts, total)
    size, extra = divmod(total, parts) if parts else (0, 0)
    spans, start = [], 0
    for k in range(parts):
        stop = start + size + (1 if k < extra else 0)
        spans.append((start, stop))
        start = stop
    return spans


def _chunk_call(shared: Any, chunk: tuple[Callable[[Any, Any], Any], Sequence[Any]]
                ) -> list[Any]:
    fn, items = chunk
    return [fn(shared, item) for item in items]


def map_chunked(executor: Executor, fn: Callable[[Any, T], R], tasks: Sequence[T],
                shared: Any = None, *, per_worker: int = CHUNKS_PER_WORKER,
                description: str | None = None) -> list[R]:
    """``executor.map(fn, tasks, shared)``, the tasks given out in about ``per_worker`` chunks
    per worker of the executor (contiguous slices, :func:`chunks`; :class:`Serial` runs them
    one by one, as they come): the same results in task order, whatever the chunking."""
    if isinstance(executor, Serial) or len(tasks) <= 1:
        return executor.map(fn, tasks, shared, description=description)
    spans = chunks(len(tasks), per_worker * worker_count(executor))
    done = executor.map(_chunk_call, [(fn, tasks[a:b]) for a, b in spans], shared,
                        description=description)
    return [result for part in done for result in part]
