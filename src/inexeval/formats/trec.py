"""TREC-like runs and TREC document qrels (spec §1.7.2).

* Element runs (INEX 2009+ style, 7 columns): ``topic Q0 file rank rsv run-id xpath`` -> a
  :class:`~inexeval.model.run.Run` of kind ``element`` (paths canonicalised, spec §1.2).
* Document runs (6 columns, trec_eval's format): ``topic Q0 doc rank rsv run-id`` -> kind
  ``document``.
* Document qrels: ``topic iter doc rel`` -> :class:`~inexeval.model.assessments.Assessments` of
  scale ``trec`` with the integer grade in the ``relevance`` dimension.

FOL passage runs (8 columns) and qrels have their own module (:mod:`inexeval.formats.fol`).
Files are read line by line as UTF-8 (a byte-order mark is skipped, CRLF is fine, blank lines
are skipped); every problem is a :class:`~inexeval.errors.FormatError` with the line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from inexeval.collection.paths import canonical_path
from inexeval.errors import FormatError, InexevalError
from inexeval.formats.lines import field_counts, read_normalised
from inexeval.formats.runbuild import RunBuilder
from inexeval.model.assessments import Assessments, TopicAssessments, build_topic
from inexeval.model.run import Run, TopicRun

RUN_KINDS = {6: "document", 7: "element"}


def read_lines(path: str | Path) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of every non-blank line of a UTF-8 text file."""
    path = Path(path)
    if not path.is_file():
        raise InexevalError("no such file", path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise FormatError(f"text is not UTF-8 ({error.reason} at byte {error.start})",
                                  path, number) from None
            if number == 1:
                text = text.removeprefix("\ufeff")
            fields = text.split()
            if fields:
                yield number, fields


def _int(value: str, name: str, path: Path, line: int) -> int:
    try:
        return int(value)
    except ValueError:
        raise FormatError(f"{name} {value!r} is not an integer", path, line) from None


def _float(value: str, name: str, path: Path, line: int) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise FormatError(f"{name} {value!r} is not a finite number", path, line)
    return number


def read_trec_run(path: str | Path, keep_repeats: bool = False) -> Run:
    """Read a TREC-like element run (7 columns) or a TREC document run (6 columns); a repeated
    result is dropped with a warning unless ``keep_repeats``.

    A well-formed file (every line with the same 6 or 7 fields) is read column-wise at once;
    anything else is read line by line, which finds and names the first bad line."""
    path = Path(path)
    if not path.is_file():
        raise InexevalError("no such file", path)
    data = read_normalised(path)
    counts = field_counts(data)
    if len(counts) and int(counts[0]) in RUN_KINDS and bool(np.all(counts == counts[0])):
        fast = _read_columns(path, data, int(counts[0]), keep_repeats)
        if fast is not None:
            return fast
    return _read_lines(path, keep_repeats)


def _read_columns(path: Path, data: bytes, columns: int, keep_repeats: bool) -> Run | None:
    """The run read column-wise, or None where a value needs the line-by-line reader's message."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    tokens = data.split()
    try:
        ranks = np.array(tokens[3::columns]).astype(np.int64)
        rsv = np.array(tokens[4::columns]).astype(np.float64)
    except (ValueError, OverflowError):
        return None
    if not bool(np.all(np.isfinite(rsv))):
        return None
    # Each column as codes into its distinct values, so that only distinct values are decoded.
    topic_values, topic_codes = _distinct(tokens[0::columns], lambda t: t.decode("utf-8"))
    file_values, file_codes = _distinct(tokens[2::columns], lambda f: f.decode("utf-8"))
    if columns == 7:
        try:
            path_values, path_codes = _distinct(tokens[6::columns],
                                                lambda p: canonical_path(p.decode("utf-8")))
        except InexevalError:
            return None
        # two spellings of one path are one path
        path_values, merged = np.unique(path_values.astype(str), return_inverse=True)
        path_values, path_codes = path_values.astype(object), merged[path_codes]
    else:
        path_values = np.array([""], dtype=object)
        path_codes = np.zeros(len(file_codes), dtype=np.int64)
    builder = RunBuilder(path, keep_repeats)
    n = len(file_codes)
    keys = (topic_codes * len(file_values) + file_codes) * len(path_values) + path_codes
    order = np.arange(n)
    if not keep_repeats:
        _, first = np.unique(keys, return_index=True)
        if len(first) < n:
            keep = np.zeros(n, dtype=bool)
            keep[first] = True
            builder.duplicates = int(n - len(first))
            builder.first_duplicate = int(np.flatnonzero(~keep)[0]) + 1
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
            lines=take.astype(np.int64) + 1)
    return builder.finish(tokens[5].decode("utf-8"), RUN_KINDS[columns], topic_runs)


def _distinct(tokens: list[bytes], convert: Callable[[bytes], str]
              ) -> tuple[npt.NDArray[np.object_], npt.NDArray[np.int64]]:
    """The distinct values of a column in order of first appearance, converted, and each token's
    code into them (a dict beats sorting the byte strings here)."""
    index: dict[bytes, int] = {}
    codes = np.array([index.setdefault(t, len(index)) for t in tokens], dtype=np.int64)
    return np.array([convert(v) for v in index], dtype=object), codes


def _read_lines(path: Path, keep_repeats: bool = False) -> Run:
    builder = RunBuilder(path, keep_repeats)
    columns = 0
    name = ""
    for line, fields in read_lines(path):
        if columns == 0:
            if len(fields) not in RUN_KINDS:
                raise FormatError(
                    f"{len(fields)} columns: expected 6 (document run) or 7 (element run: "
                    "topic Q0 file rank rsv run-id xpath)", path, line)
            columns = len(fields)
            name = fields[5]
        elif len(fields) != columns:
            raise FormatError(f"{len(fields)} columns where earlier lines have {columns}",
                              path, line)
        element_path = ""
        if columns == 7:
            try:
                element_path = canonical_path(fields[6])
            except InexevalError as error:
                raise FormatError(error.reason, path, line) from None
        builder.add(fields[0], fields[2], line, path=element_path,
                    rank=_int(fields[3], "rank", path, line),
                    rsv=_float(fields[4], "score", path, line))
    if columns == 0:
        raise FormatError("the run has no result line", path)
    return builder.build(name, RUN_KINDS[columns])


def read_trec_qrels(path: str | Path) -> Assessments:
    """Read TREC document qrels ``topic iter doc rel`` (duplicated (topic, doc) is an error)."""
    path = Path(path)
    records: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    seen: dict[tuple[str, str], int] = {}
    for line, fields in read_lines(path):
        if len(fields) != 4:
            raise FormatError(f"{len(fields)} columns: expected 4 (topic iter doc rel)",
                              path, line)
        topic, _, document, grade = fields
        relevance = _int(grade, "relevance", path, line)
        if (topic, document) in seen:
            raise FormatError(f"topic {topic} judges {document} twice (first at line "
                              f"{seen[(topic, document)]})", path, line)
        seen[(topic, document)] = line
        records.setdefault(topic, []).append((document, "", {"relevance": relevance}))
    if not records:
        raise FormatError("the qrels have no judgement line", path)
    topics: dict[str, TopicAssessments] = {
        topic: build_topic(topic, "trec", rows, dim_types={"relevance": int}, source=str(path))
        for topic, rows in records.items()
    }
    return Assessments(topics=topics, scale="trec", source=str(path))


def write_trec_run(run: Run, out: str | Path | IO[str]) -> None:
    """Write a run in TREC-like columns: 6 for documents, 7 (with the path) for elements, 8
    (offset, length) for passages. Results go in evaluation order (``Run.ordered``) with ranks
    1, 2, …; a missing rsv is written as ``n - rank + 1`` so that scores agree with ranks."""
    if isinstance(out, (str, Path)):
        with open(out, "w", encoding="utf-8", newline="\n") as handle:
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
