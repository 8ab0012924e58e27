"""Many TREC document runs evaluated as trec_eval evaluates them (``inexeval trec_eval``): the
qrels read once (:class:`~inexeval.measures.trec_eval.Judgements`), each run read a group of
whole topics at a time and evaluated part by part, so that memory holds one part of one run
whatever the number and size of the runs (a run whose topics resume after others, or standard
input, is read whole); with ``jobs`` above 1 the runs go to as many worker processes, and the
results still come in the order the runs are given, the same as from one process. Reading
overlaps evaluating: the qrels are read in a thread while the first run's first part is, and
a run's next part is read in a thread while one is evaluated (numpy lets go of the
interpreter's lock in its loops), unless the worker processes already take every processor (a
thread then only competes with them: 10 runs in 2 processes on 2 processors took 0.68 s with
it, 0.60 s without).

This is :mod:`inexeval.experiment`'s streaming and pool for the one case of trec_eval's
evaluation, kept apart so that the command starts without the experiment's imports.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from inexeval.allocator import give_back_freed_memory
from inexeval.formats.source import TopicResumed
from inexeval.formats.trec_columns import (
    read_trec_eval_qrels,
    read_trec_eval_run,
    read_trec_eval_run_parts,
)
from inexeval.measures.trec_eval import Judgements, TrecEvalResults, choose, evaluate, judgements


def evaluate_runs(qrels: str | Path | Judgements, runs: Sequence[str | Path],
                  measures: Iterable[str] = (), *, jobs: int = 1,
                  **options: Any) -> Iterator[TrecEvalResults]:
    """Each run's :class:`~inexeval.measures.trec_eval.TrecEvalResults`, in the order of
    ``runs``, with trec_eval's ``-m`` arguments and the options of
    :func:`~inexeval.measures.trec_eval.evaluate`; ``jobs`` worker processes (forked) when
    there are several runs, all in files."""
    measures = list(measures)
    choose(measures)  # a wrong measure is told before any file is read
    if isinstance(qrels, Judgements):
        judged: Judgements | Later[Judgements] = qrels
    else:
        path = qrels
        judged = Later(lambda: judgements(read_trec_eval_qrels(path)))
    workers = min(jobs, len(runs))
    if workers > 1 and all(_in_file(path) for path in runs):
        import multiprocessing
        import multiprocessing.pool  # imported while the qrels are read, not after

        global _WORK
        _WORK = (_now(judged), measures, options, workers < usable_cpus())
        # the freed heap given back first: a worker's arrays then take fresh pages, rather
        # than copies of this process's free ones (copy-on-write)
        give_back_freed_memory()
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                yield from pool.imap(_evaluate_in_worker, [str(path) for path in runs])
        finally:
            _WORK = None
        return
    for path in runs:
        yield evaluate_run(judged, path, measures, **options)


def evaluate_run(judged: Judgements | Later[Judgements], path: str | Path,
                 measures: Iterable[str] = (), *, read_ahead: bool = True,
                 **options: Any) -> TrecEvalResults:
    """One run evaluated a part at a time, with ``read_ahead`` the next part read in a thread
    while one is evaluated (the whole run if it cannot be: standard input, a pipe, a topic that
    resumes after others)."""
    if _in_file(path):
        every = read_trec_eval_run_parts(path, lines=PART_LINES, block=BLOCK)
        parts = ReadAhead(every) if read_ahead else every
        try:
            return evaluate(_now(judged), parts, measures, **options)
        except TopicResumed:
            pass
        finally:
            parts.close()
    return evaluate(_now(judged), read_trec_eval_run(path), measures, **options)


BLOCK = 1 << 20
PART_LINES = 1 << 15
"""A run is read a MiB at a time and evaluated about 32,768 lines at a time (a quarter of what
the other readers take): a part's arrays stay small enough to be reused from the heap and to
stay in the processor's caches (one run of 200,000 lines: peak 91 to 66 MiB, 19,000 to fewer
page faults, a few per cent less CPU)."""

_T = TypeVar("_T")


class Later(Generic[_T]):
    """A value made in a thread from now on (:meth:`value` waits for it)."""

    def __init__(self, make: Callable[[], _T]) -> None:
        self._result: list[Any] = []
        self._thread = threading.Thread(target=self._make, args=(make,), daemon=True)
        self._thread.start()

    def _make(self, make: Callable[[], _T]) -> None:
        try:
            self._result.append((True, make()))
        except BaseException as error:  # noqa: BLE001 (told to the waiting thread)
            self._result.append((False, error))

    def value(self) -> _T:
        self._thread.join()
        made, value = self._result[0]
        if not made:
            raise value
        result: _T = value
        return result


def _now(value: Judgements | Later[Judgements]) -> Judgements:
    return value.value() if isinstance(value, Later) else value


class ReadAhead(Iterator[_T]):
    """The items of an iterator, each next one made in a thread while this one is used (at most
    one waits); :meth:`close` stops the thread and closes the iterator."""

    def __init__(self, items: Iterator[_T]) -> None:
        self._items = items
        self._box: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._produce, daemon=True)
        self._thread.start()

    def _put(self, entry: tuple[bool, Any]) -> bool:
        while not self._stop.is_set():
            try:
                self._box.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        try:
            for item in self._items:
                if not self._put((True, item)):
                    return
            self._put((False, None))
        except BaseException as error:  # noqa: BLE001 (told to the consumer)
            self._put((False, error))
        finally:
            close = getattr(self._items, "close", None)
            if close is not None:
                close()

    def __next__(self) -> _T:
        if self._done:
            raise StopIteration
        made, item = self._box.get()
        if not made:
            self._done = True
            if item is not None:
                raise item
            raise StopIteration
        value: _T = item
        return value

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def usable_cpus() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_WORK: tuple[Judgements, list[str], dict[str, Any], bool] | None = None
"""The qrels, measures, options and whether to read ahead that the worker processes inherit
when they are forked."""


def _evaluate_in_worker(path: str) -> TrecEvalResults:
    assert _WORK is not None
    judged, measures, options, read_ahead = _WORK
    return evaluate_run(judged, path, measures, read_ahead=read_ahead, **options)


def _in_file(path: str | Path) -> bool:
    return str(path) != "-" and Path(path).is_file()
