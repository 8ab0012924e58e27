"""TREC-like runs and TREC document qrels (spec §1.7.2).

* Element runs (INEX 2009+ style, 7 columns): ``topic Q0 file rank rsv run-id xpath`` -> a
  :class:`~inexeval.model.run.Run` of kind ``element`` (paths canonicalised, spec §1.2).
* Document runs (6 columns, trec_eval's format): ``topic Q0 doc rank rsv run-id`` -> kind
  ``document``.
* Document qrels: ``topic iter doc rel`` -> :class:`~inexeval.model.assessments.Assessments` of
  scale ``trec`` with the integer grade in the ``relevance`` dimension.

FOL passage runs (8 columns) and qrels have their own module (:mod:`inexeval.formats.fol`).
Files come through :mod:`inexeval.formats.source` (compressed, standard input, BOM, CRLF, blank
lines skipped); every problem is a :class:`~inexeval.errors.FormatError` with the line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from inexeval.collection.paths import canonical_path
from inexeval.errors import FormatError, InexevalError, shown
from inexeval.formats.lines import MAX_DIGITS, Table
from inexeval.formats.runbuild import RunBuilder
from inexeval.formats.source import Source, opened
from inexeval.model.assessments import Assessments, TopicAssessments, build_topic
from inexeval.model.run import Run, TopicRun
from inexeval.outputs import atomic_output

RUN_KINDS = {6: "document", 7: "element"}
_INTEGER = re.compile(r"[+-]?[0-9]+")


_RUN_LINE = "topic Q0 file rank rsv run-id xpath, or 6 without the xpath for a document run"


def read_trec_run(path: str | Path | Source, keep_repeats: bool = False) -> Run:
    """Read a TREC-like element run (7 columns) or a TREC document run (6 columns); a repeated
    result is dropped with a warning unless ``keep_repeats``.

    The file is read in blocks, column-wise (:class:`inexeval.formats.lines.Table`); every line
    must have as many fields as the first; a rank must be a non-negative integer and a score a
    finite number."""
    columns = 0
    topic_tokens: list[str] = []
    file_tokens: list[str] = []
    path_tokens: list[str] = []
    numbers, rank_blocks, rsv_blocks = [], [], []
    name = run_id = ""
    with opened(path) as source:
        name = source.name
        for first, block in source.blocks():
            columns = columns or _width(block, first, name)
            if not columns:
                continue
            table = Table(block, first, name, columns, _RUN_LINE)
            if not len(table):
                continue
            run_id = run_id or table.field(0, 5).decode("utf-8")
            ranks, rsv, unread = table.ranks_and_scores()
            if unread.any():
                raise table.fail(int(np.argmax(unread)), 4, "is not a finite number (score)")
            topic_tokens += table.texts(0)
            file_tokens += table.texts(2)
            if columns == 7:
                path_tokens += table.texts(6)
            numbers.append(table.numbers)
            rank_blocks.append(ranks)
            rsv_blocks.append(rsv)
    if not topic_tokens:
        raise FormatError("the run has no result line", name)
    lines = np.concatenate(numbers)
    return _build_run(name, run_id, RUN_KINDS[columns], keep_repeats, topic_tokens, file_tokens,
                      path_tokens, np.concatenate(rank_blocks), np.concatenate(rsv_blocks), lines)


def _width(block: bytes, first: int, name: str) -> int:
    """Fields of the block's first non-blank line (0 if it has none): 6 or 7."""
    for number, line in enumerate(block.split(b"\n"), first):
        fields = line.split()
        if fields:
            if len(fields) not in RUN_KINDS:
                raise FormatError(f"{len(fields)} columns: expected 6 (document run) or 7 "
                                  "(element run: topic Q0 file rank rsv run-id xpath)",
                                  name, number)
            return len(fields)
    return 0


def _build_run(name: str, run_id: str, kind: str, keep_repeats: bool, topic_tokens: list[str],
               file_tokens: list[str], path_tokens: list[str], ranks: npt.NDArray[np.int64],
               rsv: npt.NDArray[np.float64], lines: npt.NDArray[np.int64]) -> Run:
    # Each column as codes into its distinct values, so that only distinct values are converted.
    topic_values, topic_codes = _distinct(topic_tokens, str)
    file_values, file_codes = _distinct(file_tokens, str)
    if path_tokens:
        path_values, path_codes = _distinct(path_tokens, _canonical)
        where = _first_bad_path(path_values)
        if where is not None:
            row = int(np.argmax(path_codes == where[0]))
            raise FormatError(where[1], name, int(lines[row]))
        # two spellings of one path are one path
        path_values, merged = np.unique(path_values.astype(str), return_inverse=True)
        path_values, path_codes = path_values.astype(object), merged[path_codes]
    else:
        path_values = np.array([""], dtype=object)
        path_codes = np.zeros(len(file_codes), dtype=np.int64)
    builder = RunBuilder(name, keep_repeats)
    n = len(file_codes)
    keys = (topic_codes * len(file_values) + file_codes) * len(path_values) + path_codes
    order = np.arange(n)
    if not keep_repeats:
        _, first = np.unique(keys, return_index=True)
        if len(first) < n:
            keep = np.zeros(n, dtype=bool)
            keep[first] = True
            builder.duplicates = int(n - len(first))
            builder.first_duplicate = int(lines[np.flatnonzero(~keep)[0]])
            order = np.flatnonzero(keep)
    # topic codes follow first appearance; results of a topic stay in file order
    codes = topic_codes[order]
    grouped = order[np.argsort(codes, kind="stable")]
    bounds = np.searchsorted(np.sort(codes, kind="stable"), np.arange(len(topic_values) + 1))
    topic_runs = {}
    for code in range(len(topic_values)):
        take = grouped[bounds[code]:bounds[code + 1]]
        topic = str(topic_values[code])
        topic_runs[topic] = TopicRun(
            topic=topic, files=file_values[file_codes[take]], paths=path_values[path_codes[take]],
            offsets=np.full(len(take), -1, dtype=np.int64),
            lengths=np.full(len(take), -1, dtype=np.int64), ranks=ranks[take], rsv=rsv[take],
            lines=lines[take])
    return builder.finish(run_id, kind, topic_runs)


class _BadPath(str):
    """A path that :func:`canonical_path` refused, carrying the reason."""

    reason = ""


def _canonical(text: str) -> str:
    try:
        return canonical_path(text)
    except InexevalError as error:
        bad = _BadPath(text)
        bad.reason = error.reason
        return bad


def _first_bad_path(values: npt.NDArray[np.object_]) -> tuple[int, str] | None:
    for code, value in enumerate(values.tolist()):
        if isinstance(value, _BadPath):
            return code, value.reason
    return None


def _distinct(tokens: list[str], convert: Callable[[str], str]
              ) -> tuple[npt.NDArray[np.object_], npt.NDArray[np.int64]]:
    """The distinct values of a column in order of first appearance, converted, and each token's
    code into them (a dict beats sorting the strings here)."""
    index: dict[str, int] = {}
    codes = np.array([index.setdefault(t, len(index)) for t in tokens], dtype=np.int64)
    return np.array([convert(v) for v in index], dtype=object), codes


def read_trec_qrels(path: str | Path | Source) -> Assessments:
    """Read TREC document qrels ``topic iter doc rel`` (duplicated (topic, doc) is an error)."""
    records: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    seen: dict[tuple[str, str], int] = {}
    with opened(path) as source:
        name = source.name
        for line, text in source.lines():
            fields = text.split()
            if len(fields) != 4:
                raise FormatError(f"{len(fields)} columns: expected 4 (topic iter doc rel)",
                                  name, line)
            topic, _, document, grade = fields
            relevance = _int(grade, "relevance", name, line)
            if (topic, document) in seen:
                raise FormatError(f"topic {shown(topic)} judges {shown(document)} twice (first "
                                  f"at line {seen[(topic, document)]})", name, line)
            seen[(topic, document)] = line
            records.setdefault(topic, []).append((document, "", {"relevance": relevance}))
    if not records:
        raise FormatError("the qrels have no judgement line", name)
    topics: dict[str, TopicAssessments] = {
        topic: build_topic(topic, "trec", rows, dim_types={"relevance": int}, source=name)
        for topic, rows in records.items()
    }
    return Assessments(topics=topics, scale="trec", source=name)


def _int(value: str, what: str, path: str, line: int) -> int:
    if not value.lstrip("+-").isascii() or _INTEGER.fullmatch(value) is None:
        raise FormatError(f"{what} {shown(value)} is not an integer", path, line)
    if len(value.lstrip("+-")) > MAX_DIGITS:
        raise FormatError(f"{what} {shown(value)} is too large", path, line)
    return int(value)


def write_trec_run(run: Run, out: str | Path | IO[str]) -> None:
    """Write a run in TREC-like columns: 6 for documents, 7 (with the path) for elements, 8
    (offset, length) for passages. Results go in evaluation order (``Run.ordered``) with ranks
    1, 2, …; a missing rsv is written as ``n - rank + 1`` so that scores agree with ranks."""
    if isinstance(out, (str, Path)):
        with atomic_output(out) as handle:
            write_trec_run(run, handle)
        return
    for topic in run:
        results = run[topic].ordered()
        n = len(results)
        rsv = np.where(np.isnan(results.rsv), n - np.arange(n, dtype=np.float64), results.rsv)
        for i in range(n):
            columns = [topic, "Q0", str(results.files[i]), str(i + 1), repr(float(rsv[i])),
                       run.name or "run"]
            if run.kind == "element":
                columns.append(str(results.paths[i]))
            elif run.kind == "passage":
                columns += [str(int(results.offsets[i])), str(int(results.lengths[i]))]
            out.write(" ".join(columns) + "\n")
