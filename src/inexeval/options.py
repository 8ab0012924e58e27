"""Checks of a command's request: conflicting options before anything is read
(:func:`check_eval_options`, :func:`check_unused`), the options that depend on the assessments
once they are read (:func:`check_topics`, :func:`check_topic_file`), and each run against the
assessments (:func:`check_run`). A conflict is an error, never an option silently ignored."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from inexeval.errors import InexevalError
from inexeval.scores import topic_key

IMPLICIT_SCALES = ("inex2002", "inex2003", "inex2005")
"""The assessment scales that get implicit assessments (and so use a topic file)."""


def check_eval_options(args: argparse.Namespace) -> None:
    """Refuse option conflicts and missing inputs, before any input is read."""
    fmt = "table" if args.table else args.format
    if args.table and args.format not in ("trec", "table"):
        raise InexevalError(f"--table and --format {args.format} ask for two layouts: give one")
    if args.q and fmt in ("table", "latex"):
        raise InexevalError(f"-q (per-topic values) has no place in --format {fmt}, which "
                            "prints the means only")
    check_task_options(args)
    optional = [getattr(args, name, None) for name in
                ("collection", "topic_file", "navigation", "ideal_run")]
    inputs = [args.assessments, *(p for p in optional if p is not None)]
    if [*inputs, *args.runs].count("-") > 1:
        raise InexevalError("standard input (-) can be read once: give it for one input only")
    # a missing run is reported with the runs (the others are still evaluated)
    for path in inputs:
        if path != "-" and not Path(path).exists():
            raise InexevalError("no such file or folder", path)


TASK_OPTIONS = {"beta": (0.25, ("relevant-in-context",)), "bep_n": (500, ("best-in-context",)),
                "irr": (300, ("t2i",)), "exact_buckets": (False, ("focused", "thorough"))}
"""The options of the official tasks: default and the tasks that use each."""


def check_task_options(args: argparse.Namespace) -> None:
    """Refuse a task option (``--beta``, ``--bep-n``, ``--irr``, ``--exact-buckets``) given
    with another ``--task``, or with measures (``-m``) and no task. (Without either, the task
    follows the assessments: FOL qrels default to the focused task.)"""
    check_task_values(getattr(args, "task", None), bool(getattr(args, "measure", None)),
                      {name: getattr(args, name, default)
                       for name, (default, _) in TASK_OPTIONS.items()})


def check_task_values(task: str | None, measures: bool, given: dict[str, Any]) -> None:
    """:func:`check_task_options` on the values ``given`` (``measures``: whether measures are
    named)."""
    unknown = sorted(set(given) - set(TASK_OPTIONS))
    if unknown:
        raise InexevalError(f"unknown task option {', '.join(map(repr, unknown))} (known: "
                            f"{', '.join(TASK_OPTIONS)})")
    if task is None and not measures:
        return
    for name, (default, tasks) in TASK_OPTIONS.items():
        if given.get(name, default) != default and task not in tasks:
            where = f"--task {task}" if task else "-m and no --task"
            raise InexevalError(f"--{name.replace('_', '-')} is an option of --task "
                                f"{' and '.join(tasks)}, not used with {where}: leave it out")


def check_given_once(runs: list[str]) -> None:
    """The same run file given twice (also through a link) would be evaluated twice: refuse."""
    seen: dict[tuple[int, int], str] = {}
    for path in runs:
        if runs.count(path) > 1:
            raise InexevalError("the same run file is given twice", path)
        try:
            stat = Path(path).stat()
        except OSError:
            continue
        first = seen.setdefault((stat.st_dev, stat.st_ino), path)
        if first != path:
            raise InexevalError(f"the same run file as {first[:80]} (given twice)", path)


def check_run(run: Any, assessments: Any, num_docs: int | None = None) -> None:
    """Refuse a run that shares no topic with the (selected) assessments, and a number of
    documents smaller than the run and the assessments mention."""
    if not any(topic in assessments for topic in run):
        raise InexevalError(f"no topic of the run is assessed; {_assessed(assessments)}",
                            run.source)
    if num_docs is not None:
        mentioned: set[str] = set()
        for judged in assessments.values():
            mentioned.update(judged.files.tolist())
        for results in run.values():
            mentioned.update(results.files.tolist())
        if len(mentioned) > num_docs:
            raise InexevalError(f"--num-docs {num_docs} is smaller than the {len(mentioned)} "
                                "documents the run and the assessments mention", run.source)


def check_topics(selected: set[str], assessments: Any) -> None:
    """``--topics``: naming no assessed topic is an error (every number would be computed from
    nothing), naming some topics without assessments a warning."""
    from inexeval.errors import warn

    unknown = sorted(selected - set(assessments), key=topic_key)
    if len(unknown) == len(selected):
        raise InexevalError(f"--topics names no assessed topic; {_assessed(assessments)}",
                            assessments.source)
    if unknown:
        warn(f"--topics names topic(s) without assessments: {', '.join(unknown)}",
             assessments.source)


def check_topic_file(topic_file: str | None, assessments: Any) -> None:
    """``--topic-file`` says which CAS topics get no implicit assessments; on assessments without
    implicit assessments (FOL or TREC qrels) it would be silently ignored: an error."""
    if topic_file is not None and assessments.scale not in IMPLICIT_SCALES:
        raise InexevalError("--topic-file decides which CAS topics of INEX 2002-2005 XML "
                            "assessments get no implicit assessments, and FOL or TREC qrels have "
                            "none: leave it out (--topics selects topics)", topic_file)


def check_unused(args: argparse.Namespace, defaults: dict[str, Any], used: set[str],
                 what: str) -> None:
    """Refuse options given (different from ``defaults``) that ``what`` does not use."""
    unused = [f"-{name}" if len(name) == 1 else f"--{name.replace('_', '-')}"
              for name, default in defaults.items()
              if name not in used and getattr(args, name, default) != default]
    if unused:
        raise InexevalError(f"{', '.join(unused)} not used by {what}: leave "
                            f"{'it' if len(unused) == 1 else 'them'} out")


def _assessed(assessments: Any) -> str:
    assessed = sorted(assessments, key=topic_key)
    return (f"assessed topics are {assessed[0]}-{assessed[-1]}" if len(assessed) > 1 else
            f"the assessed topic is {assessed[0]}" if assessed else
            "no topic is assessed (or selected with --topics)")


def check_assessed_elements(assessments: Any, collection: Any) -> None:
    """Warn, per topic, about judged elements that are not in the collection (they can never be
    retrieved; assessments of another collection version): silently ignoring them would hide
    a mismatch."""
    from inexeval.errors import warn

    for topic, judged in assessments.items():
        absent = [(file, path) for file, path in zip(judged.files.tolist(), judged.paths.tolist())
                  if path and collection.span(file, path) is None]
        if absent:
            warn(f"topic {topic}: {len(absent)} judged element(s) are not in the collection "
                 f"(first: {absent[0][0]} {absent[0][1]})", judged.source or assessments.source)
