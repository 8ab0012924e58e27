"""Many TREC document runs evaluated as trec_eval evaluates them (``inexeval trec_eval``): the
qrels read once (:class:`~inexeval.measures.trec_eval.Judgements`), each run read a group of
whole topics at a time and evaluated part by part, so that memory holds one part of one run
whatever the number and size of the runs (a run whose topics resume after others, or standard
input, is read whole); with ``jobs`` above 1 the runs go to as many worker processes, and the
results still come in the order the runs are given, the same as from one process.

This is :mod:`inexeval.experiment`'s streaming and pool for the one case of trec_eval's
evaluation, kept apart so that the command starts without the experiment's imports.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

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
    judged = qrels if isinstance(qrels, Judgements) else judgements(read_trec_eval_qrels(qrels))
    workers = min(jobs, len(runs))
    if workers > 1 and all(_in_file(path) for path in runs):
        import multiprocessing

        global _WORK
        _WORK = (judged, measures, options)
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                yield from pool.imap(_evaluate_in_worker, [str(path) for path in runs])
        finally:
            _WORK = None
        return
    for path in runs:
        yield evaluate_run(judged, path, measures, **options)


def evaluate_run(judged: Judgements, path: str | Path, measures: Iterable[str] = (),
                 **options: Any) -> TrecEvalResults:
    """One run evaluated a part at a time (whole if it cannot be: standard input, a pipe, a
    topic that resumes after others)."""
    if _in_file(path):
        try:
            return evaluate(judged, read_trec_eval_run_parts(path), measures, **options)
        except TopicResumed:
            pass
    return evaluate(judged, read_trec_eval_run(path), measures, **options)


def usable_cpus() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_WORK: tuple[Judgements, list[str], dict[str, Any]] | None = None
"""The qrels, measures and options the worker processes inherit when they are forked."""


def _evaluate_in_worker(path: str) -> TrecEvalResults:
    assert _WORK is not None
    judged, measures, options = _WORK
    return evaluate_run(judged, path, measures, **options)


def _in_file(path: str | Path) -> bool:
    return str(path) != "-" and Path(path).is_file()
