"""Saved per-topic scores: the output of ``inexeval eval -q`` read back into :class:`Scores`, and
the lossless ``scores`` format.

The ``scores`` format (``eval -q --format scores``) keeps everything a study needs, at full
precision: UTF-8 text, tab-separated, a header of ``#`` lines, then one line per run, topic and
measure of the whole matrix::

    #inexeval-scores	1
    #rule	all
    #topics	1	2	3
    #runs	runA	runB
    #measures	MAiP	iP[0.01]
    run	topic	measure	value	answered
    runA	1	MAiP	0.30000000000000004	1

``value`` is Python's ``repr`` of the double (read back exactly; ``nan`` for an undefined
value), ``answered`` 1 if the run answered the topic. ``#topics`` is the topic axis (every
assessed topic under rule ``all``).

The other layouts are those ``eval -q`` prints: ``trec`` (``run measure topic value``
tab-separated, the run column printed for several runs; three columns name the run after the
file), ``csv`` (header ``run,topic,measure,value``) and ``json`` (a list of objects with those
keys). Their ``all`` rows are skipped; the topic axis is every topic of the file, and a run with
no line for a topic scores 0 there (rule ``all``, as ``eval -c``).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from inexeval.errors import FormatError, shown
from inexeval.scores import RULES, Scores, natural_order

if TYPE_CHECKING:
    from inexeval.results import Results

MAGIC = "#inexeval-scores"
VERSION = "1"
COLUMNS = ("run", "topic", "measure", "value", "answered")

Row = tuple[str, str, str, float | None]


def write_scores(scores: Scores, handle: IO[str]) -> None:
    """Write ``scores`` in the lossless ``scores`` format (module docstring)."""
    handle.write(f"{MAGIC}\t{VERSION}\n#rule\t{scores.rule}\n")
    for what, names in (("topics", scores.topics), ("runs", scores.runs),
                        ("measures", scores.measures)):
        handle.write("\t".join((f"#{what}", *names)) + "\n")
    handle.write("\t".join(COLUMNS) + "\n")
    for i, run in enumerate(scores.runs):
        for j, topic in enumerate(scores.topics):
            answered = "1" if scores.answered[i, j] else "0"
            for k, measure in enumerate(scores.measures):
                value = float(scores.values[i, j, k])
                handle.write(f"{run}\t{topic}\t{measure}\t{value!r}\t{answered}\n")


def scores_of_results(results: Results, complete: bool,
                      answered: Mapping[str, Iterable[str]] | None = None) -> Scores:
    """The Scores of ``eval``'s results: rule ``all`` with ``-c`` (every topic evaluated for
    some run), else ``answered``; ``answered``: the topics each run answered (default: those
    it has rows for, every topic under ``-c``)."""
    return Scores.from_results(results, rule="all" if complete else "answered",
                               answered=answered)


def write_results(results: Results, complete: bool, output: str | None,
                  *inputs: str | None,
                  answered: Mapping[str, Iterable[str]] | None = None) -> None:
    """``eval -q --format scores``: the results in the ``scores`` format, to ``output``
    (atomically, never over an input) or the standard output; ``answered``: the topics each
    run answered (under ``-c`` a run has a row for every topic, so the flags come from here)."""
    import sys

    scores = scores_of_results(results, complete, answered)
    if output is None:
        write_scores(scores, sys.stdout)
        return
    from inexeval.outputs import atomic_output, check_output

    with atomic_output(check_output(output, *inputs)) as handle:
        write_scores(scores, handle)


def read_scores(path: str | Path) -> Scores:
    """Scores from a file in any layout of the module docstring, detected from its content.
    FormatError naming the file and line for anything else."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise FormatError(f"not UTF-8 text ({error.reason} at byte {error.start})",
                          path) from None
    stripped = text.lstrip()
    if text.startswith(MAGIC):
        return _read_lossless(text, path)
    if stripped.startswith(("[", "{")):
        return _from_rows(_json_rows(stripped, path), path)
    first = text.split("\n", 1)[0].strip()
    if first.replace(" ", "") == "run,topic,measure,value":
        return _from_rows(_csv_rows(text, path), path)
    return _from_rows(_trec_rows(text, path), path)


def _number(field: str, path: str | Path, line: int) -> float:
    try:
        value = float(field)
    except ValueError:
        raise FormatError(f"{shown(field)} is not a number", path, line) from None
    if math.isinf(value):
        raise FormatError(f"{shown(field)} is not a finite score", path, line)
    return value


def _read_lossless(text: str, path: str | Path) -> Scores:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    head: dict[str, list[str]] = {}
    for number, line in enumerate(lines[:5], 1):
        fields = line.split("\t")
        key = fields[0].lstrip("#") if number > 1 else "version"
        expected = ("version", "rule", "topics", "runs", "measures")[number - 1]
        if not line.startswith("#") or key != expected:
            raise FormatError(f"the header's line {number} should be #{expected}", path, number)
        head[key] = fields[1:]
    if head["version"] != [VERSION]:
        raise FormatError(f"scores format version {shown(' '.join(head['version']))} is not "
                          f"{VERSION}", path, 1)
    if len(head["rule"]) != 1 or head["rule"][0] not in RULES:
        raise FormatError(f"unknown averaging rule (one of {', '.join(RULES)})", path, 2)
    if len(lines) < 6 or tuple(lines[5].split("\t")) != COLUMNS:
        raise FormatError(f"line 6 should be the column names {' '.join(COLUMNS)}", path, 6)
    runs, topics, measures = head["runs"], head["topics"], head["measures"]
    for what, names, number in (("run", runs, 4), ("topic", topics, 3),
                                ("measure", measures, 5)):
        if len(set(names)) != len(names):
            raise FormatError(f"a {what} is named twice", path, number)
    where = [{name: i for i, name in enumerate(names)} for names in (runs, topics, measures)]
    shape = (len(runs), len(topics), len(measures))
    values = np.zeros(shape)
    seen = np.zeros(shape, dtype=bool)
    answered = np.zeros(shape[:2], dtype=np.int8) - 1
    for number, line in enumerate(lines[6:], 7):
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            raise FormatError(f"{len(fields)} tab-separated fields, not {len(COLUMNS)}", path,
                              number)
        at = []
        for what, field, index in zip(("run", "topic", "measure"), fields, where):
            if field not in index:
                raise FormatError(f"{what} {shown(field)} is not in the header", path, number)
            at.append(index[field])
        i, j, k = at
        if seen[i, j, k]:
            raise FormatError(f"a second value for {fields[0]}, topic {fields[1]}, "
                              f"{fields[2]}", path, number)
        seen[i, j, k] = True
        values[i, j, k] = _number(fields[3], path, number)
        if fields[4] not in ("0", "1"):
            raise FormatError(f"answered is {shown(fields[4])}, not 0 or 1", path, number)
        flag = int(fields[4])
        if answered[i, j] not in (-1, flag):
            raise FormatError(f"answered differs between the measures of {fields[0]}, topic "
                              f"{fields[1]}", path, number)
        answered[i, j] = flag
    if not seen.all():
        i, j, k = (int(a[0]) for a in (~seen).nonzero())
        raise FormatError(f"no value for {runs[i]}, topic {topics[j]}, {measures[k]}", path)
    return Scores(tuple(runs), tuple(topics), tuple(measures), values, answered == 1,
                  head["rule"][0])


def _trec_rows(text: str, path: str | Path) -> list[tuple[int, Row]]:
    rows = []
    default_run = Path(path).name
    for number, line in enumerate(text.split("\n"), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) == 4:
            run, measure, topic, value = fields
        elif len(fields) == 3:
            run, (measure, topic, value) = default_run, fields
        else:
            raise FormatError(f"{len(fields)} fields, not 'run measure topic value' (eval -q "
                              "output, or csv, json, scores)", path, number)
        rows.append((number, (run, topic, measure, _value(value, path, number))))
    return rows


def _value(field: str, path: str | Path, number: int) -> float | None:
    return None if field in ("None", "nan", "NaN", "") else _number(field, path, number)


def _csv_rows(text: str, path: str | Path) -> list[tuple[int, Row]]:
    rows = []
    reader = csv.reader(io.StringIO(text))
    next(reader)
    for fields in reader:
        number = reader.line_num
        if not fields:
            continue
        if len(fields) != 4:
            raise FormatError(f"{len(fields)} fields, not run,topic,measure,value", path, number)
        run, topic, measure, value = fields
        rows.append((number, (run, topic, measure, _value(value, path, number))))
    return rows


def _json_rows(text: str, path: str | Path) -> list[tuple[int, Row]]:
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise FormatError(f"not JSON: {error.msg}", path, error.lineno) from None
    if not isinstance(data, list):
        raise FormatError("not a list of {run, topic, measure, value} objects (eval -q "
                          "--format json)", path)
    rows = []
    for index, item in enumerate(data):
        if not (isinstance(item, dict) and {"run", "topic", "measure", "value"} <= set(item)):
            raise FormatError(f"item {index} is not an object with run, topic, measure and "
                              "value", path)
        value = item["value"]
        if value is not None and not (isinstance(value, (int, float))
                                      and not isinstance(value, bool)):
            raise FormatError(f"item {index}: value {shown(str(value))} is not a number", path)
        rows.append((index + 1, (str(item["run"]), str(item["topic"]), str(item["measure"]),
                                 None if value is None else float(value))))
    return rows


def _from_rows(rows: list[tuple[int, Row]], path: str | Path) -> Scores:
    seen: set[tuple[str, str, str]] = set()
    kept = []
    for number, row in rows:
        if row[1] == "all":
            continue
        key = row[:3]
        if key in seen:
            raise FormatError(f"a second value for {row[0]}, topic {row[1]}, {row[2]}", path,
                              number)
        seen.add(key)
        kept.append(row)
    if not kept:
        raise FormatError("no per-topic score (save them with eval -q)", path)
    topics = natural_order(row[1] for row in kept)
    return Scores.from_rows(kept, rule="all", topics=topics)


def save_scores(scores: Scores, path: str | Path) -> None:
    """Save ``scores`` in the lossless ``scores`` format, atomically."""
    from inexeval.outputs import atomic_output

    with atomic_output(path) as handle:
        write_scores(scores, handle)
