"""Checks of ``inexeval eval``'s request: conflicting options before anything is read
(:func:`check_eval_options`), and each run against the assessments once both are read
(:func:`check_run`). A conflict is an error, never an option silently ignored."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from inexeval.errors import InexevalError

MAX_DIGITS = 17
"""Decimals that still mean something in a double (``--digits``)."""


def check_eval_options(args: argparse.Namespace) -> None:
    """Refuse option conflicts and missing inputs, before any input is read."""
    fmt = "table" if args.table else args.format
    if args.table and args.format not in ("trec", "table"):
        raise InexevalError(f"--table and --format {args.format} ask for two layouts: give one")
    if args.q and fmt in ("table", "latex"):
        raise InexevalError(f"-q (per-topic values) has no place in --format {fmt}, which "
                            "prints the means only")
    if not 0 <= args.digits <= MAX_DIGITS:
        raise InexevalError(f"--digits {args.digits} is outside 0-{MAX_DIGITS}")
    if args.topics is not None and not [t for t in args.topics.split(",") if t.strip()]:
        raise InexevalError("--topics names no topic (give comma-separated topic ids)")
    optional = [getattr(args, name, None) for name in
                ("collection", "topic_file", "navigation", "ideal_run")]
    inputs = [args.assessments, *(p for p in optional if p is not None)]
    if [*inputs, *args.runs].count("-") > 1:
        raise InexevalError("standard input (-) can be read once: give it for one input only")
    # a missing run is reported with the runs (the others are still evaluated)
    for path in inputs:
        if path != "-" and not Path(path).exists():
            raise InexevalError("no such file or folder", path)


def check_run(run: Any, assessments: Any, num_docs: int | None = None) -> None:
    """Refuse a run that shares no topic with the (selected) assessments, and a number of
    documents smaller than the run and the assessments mention."""
    if not any(topic in assessments for topic in run):
        assessed = sorted(assessments, key=_natural)
        span = (f"assessed topics are {assessed[0]}-{assessed[-1]}" if len(assessed) > 1 else
                f"the assessed topic is {assessed[0]}" if assessed else
                "no topic is assessed (or selected with --topics)")
        raise InexevalError(f"no topic of the run is assessed; {span}", run.source)
    if num_docs is not None:
        mentioned: set[str] = set()
        for judged in assessments.values():
            mentioned.update(judged.files.tolist())
        for results in run.values():
            mentioned.update(results.files.tolist())
        if len(mentioned) > num_docs:
            raise InexevalError(f"--num-docs {num_docs} is smaller than the {len(mentioned)} "
                                "documents the run and the assessments mention", run.source)


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


def _natural(topic: str) -> tuple[int, int, str]:
    return (0, int(topic), topic) if topic.isdigit() else (1, 0, topic)
