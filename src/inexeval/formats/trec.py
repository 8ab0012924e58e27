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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from inexeval.collection.paths import canonical_path
from inexeval.errors import FormatError, InexevalError, shown
from inexeval.formats import source as sources
from inexeval.formats.lines import (
    MAX_DIGITS,
    Table,
    decimal_values,
    field_bounds,
    integer_values,
    word_view,
)
from inexeval.formats.runbuild import RunBuilder
from inexeval.formats.source import Source, TopicResumed, opened
from inexeval.model.assessments import Assessments, TopicAssessments, build_topic
from inexeval.model.run import Run, TopicRun
from inexeval.outputs import atomic_output

RUN_KINDS = {6: "document", 7: "element"}
MAX_LEVEL = 1000
"""Highest relevance level of :func:`read_trec_eval_qrels` (trec_eval counts every level from 0
up to the highest, topic by topic)."""
MAX_ID = 1000
"""Longest topic or document id of trec_eval's reading (ids are held as fixed-width columns)."""
_INTEGER = re.compile(r"[+-]?[0-9]+")


_RUN_LINE = "topic Q0 file rank rsv run-id xpath, or 6 without the xpath for a document run"


def read_trec_run(path: str | Path | Source, keep_repeats: bool = False) -> Run:
    """Read a TREC-like element run (7 columns) or a TREC document run (6 columns); a repeated
    result is dropped with a warning unless ``keep_repeats``.

    The file is read in blocks, column-wise (:class:`inexeval.formats.lines.Table`); every line
    must have as many fields as the first; a rank must be a non-negative integer and a score a
    finite number. The run is named by its first line's run-id; topics are in the order they
    first appear, each topic's results in file order (a topic that resumes after lines of
    others is grouped)."""
    return next(_parts(path, keep_repeats, whole=True))


def read_trec_run_parts(path: str | Path | Source, keep_repeats: bool = False) -> Iterator[Run]:
    """The run of :func:`read_trec_run`, given out a group of whole topics at a time (as
    :func:`inexeval.formats.fol.read_fol_run_parts` does): each part is a :class:`Run` of the
    topics that ended in the blocks read so far, named by the run's first run-id; the warning
    about dropped duplicates comes once, with the last part. A topic that resumes after lines of
    other topics raises :class:`~inexeval.formats.source.TopicResumed` when the parts might not
    group it (read the file whole then)."""
    return _parts(path, keep_repeats, whole=False)


class _TrecColumns:
    """The columns of the lines of a TREC run held (not given out in a part yet)."""

    def __init__(self) -> None:
        self.topics: list[str] = []
        self.files: list[str] = []
        self.paths: list[str] = []
        self.numbers: list[npt.NDArray[np.int64]] = []
        self.ranks: list[npt.NDArray[np.int64]] = []
        self.rsv: list[npt.NDArray[np.float64]] = []

    def build(self, name: str, run_id: str, kind: str, builder: RunBuilder, upto: int) -> Run:
        """The first ``upto`` lines held as a run; the rest are kept."""
        lines, ranks = np.concatenate(self.numbers), np.concatenate(self.ranks)
        rsv = np.concatenate(self.rsv)
        run = _build_run(name, run_id, kind, builder, self.topics[:upto], self.files[:upto],
                         self.paths[:upto], ranks[:upto], rsv[:upto], lines[:upto])
        del self.topics[:upto], self.files[:upto], self.paths[:upto]
        self.numbers, self.ranks, self.rsv = [lines[upto:]], [ranks[upto:]], [rsv[upto:]]
        return run


def _parts(path: str | Path | Source, keep_repeats: bool, whole: bool) -> Iterator[Run]:
    """The run in parts of whole topics (one part if ``whole``)."""
    columns = 0
    held = _TrecColumns()
    given: set[str] = set()
    name = run_id = ""
    with opened(path) as source:
        name = source.name
        builder = RunBuilder(name, keep_repeats)
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
            topics = table.texts(0)
            if given and not given.isdisjoint(topics):
                raise TopicResumed(name)
            changed = bool(held.topics) and topics[0] != held.topics[-1] or (
                topics[0] != topics[-1])
            held.topics += topics
            held.files += table.texts(2)
            if columns == 7:
                held.paths += table.texts(6)
            held.numbers.append(table.numbers)
            held.ranks.append(ranks)
            held.rsv.append(rsv)
            if whole or not changed or len(held.topics) < sources.PART_LINES:
                continue
            last = held.topics[-1]
            cut = len(held.topics) - 1
            while cut and held.topics[cut - 1] == last:
                cut -= 1
            if last in held.topics[:cut]:  # the last topic resumes after others
                raise TopicResumed(name)
            given.update(held.topics[:cut])
            yield held.build(name, run_id, RUN_KINDS[columns], builder, cut)
    if not held.topics and not given:
        raise FormatError("the run has no result line", name)
    run = held.build(name, run_id, RUN_KINDS[columns], builder, len(held.topics))
    builder.warn_duplicates()
    yield run


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


def _build_run(name: str, run_id: str, kind: str, builder: RunBuilder, topic_tokens: list[str],
               file_tokens: list[str], path_tokens: list[str], ranks: npt.NDArray[np.int64],
               rsv: npt.NDArray[np.float64], lines: npt.NDArray[np.int64]) -> Run:
    """The lines given as a run of their topics (the builder counts the duplicates dropped; it
    warns about them, once for the whole run)."""
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
    n = len(file_codes)
    keys = (topic_codes * len(file_values) + file_codes) * len(path_values) + path_codes
    order = np.arange(n)
    if not builder.keep_repeats:
        _, first = np.unique(keys, return_index=True)
        if len(first) < n:
            keep = np.zeros(n, dtype=bool)
            keep[first] = True
            builder.duplicates += int(n - len(first))
            if builder.first_duplicate is None:
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
    return Run(name=run_id, kind=kind, topics=topic_runs, source=name)


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


# --- trec_eval's own reading: whole files as columns -------------------------------------------

@dataclass(frozen=True)
class TrecColumns:
    """The lines of a TREC qrels or document run file as trec_eval reads them, as columns (one
    row per line, file order): topic and document ids as byte strings (``S`` arrays, which sort
    as C's ``strcmp``), ``values`` the relevance levels (qrels, int64) or the scores (runs,
    float64), ``lines`` the line numbers; ``run_id`` the run id of a run's last line (the one
    trec_eval prints)."""

    topics: npt.NDArray[np.bytes_]
    documents: npt.NDArray[np.bytes_]
    values: npt.NDArray[Any]
    lines: npt.NDArray[np.int64]
    run_id: str
    source: str

    def __len__(self) -> int:
        return len(self.lines)


def read_trec_eval_qrels(path: str | Path | Source) -> TrecColumns:
    """TREC qrels ``topic iter doc rel`` read as trec_eval 10.0 reads them (``get_qrels.c``):
    exactly four fields a line, ``#`` comment lines and blank lines skipped, the level an integer
    (negative: in the pool but not judged) and at most :data:`MAX_LEVEL`. A document judged
    twice for a topic is an error, as in trec_eval."""
    columns = _trec_eval_columns(path, 4, 4, "topic iter doc rel", 3, "relevance level")
    if not len(columns):
        raise FormatError("the qrels have no judgement line", columns.source)
    high = columns.values > MAX_LEVEL
    if high.any():
        row = int(np.argmax(high))
        raise FormatError(f"relevance level {int(columns.values[row])} is above {MAX_LEVEL} "
                          "(trec_eval keeps a count for every level up to the highest)",
                          columns.source, int(columns.lines[row]))
    _refuse_repeats(columns, "judges", "twice")
    return columns


def read_trec_eval_run(path: str | Path | Source) -> TrecColumns:
    """A TREC document run ``topic Q0 doc rank score run-id`` read as trec_eval 10.0 reads it
    (``get_trec_results.c``): at least six fields a line (text after the run id is ignored),
    ``#`` comment lines and blank lines skipped; the rank is not read (trec_eval orders by
    score). Scores must be finite numbers (trec_eval's ``atof`` reads any text, ``abc`` as 0)."""
    columns = _trec_eval_columns(path, 6, None, "topic Q0 doc rank score run-id", 4, "score")
    if not len(columns):
        raise FormatError("the run has no result line", columns.source)
    return columns


def _refuse_repeats(columns: TrecColumns, verb: str, what: str) -> None:
    """A (topic, document) pair on two lines is an error naming the second line."""
    _, topics = interned(columns.topics)
    documents, codes = interned(columns.documents)
    keys = topics * len(documents) + codes
    order = np.argsort(keys, kind="stable")
    same = keys[order][1:] == keys[order][:-1]
    if same.any():
        pairs = np.flatnonzero(same)
        at = int(np.argmin(order[pairs + 1]))
        row, first = int(order[pairs[at] + 1]), int(order[pairs[at]])
        topic = columns.topics[row].decode("utf-8")
        document = columns.documents[row].decode("utf-8")
        raise FormatError(f"topic {shown(topic)} {verb} {shown(document)} {what} (first at line "
                          f"{int(columns.lines[first])})", columns.source,
                          int(columns.lines[row]))


def interned(values: npt.NDArray[np.bytes_]) -> tuple[npt.NDArray[np.bytes_],
                                                      npt.NDArray[np.int64]]:
    """The distinct byte strings of ``values`` in C's ``strcmp`` order, and each value's code
    into them: the strings compared as big-endian 8-byte words (``np.lexsort`` over the words,
    not a sort of Python-compared strings); a column of long runs of one value (a topic column)
    is interned a run at a time."""
    n, width = len(values), values.dtype.itemsize
    if n > 64:
        starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
        if len(starts) < n // 8:
            distinct, codes = interned(values[starts])
            return distinct, np.repeat(codes, np.diff(np.append(starts, n)))
    k = -(-width // 8)
    padded = np.zeros((n, 8 * k), dtype=np.uint8)
    padded[:, :width] = values.view(np.uint8).reshape(n, width)
    words = padded.view(">u8").astype(np.uint64)
    order = np.lexsort(words.T[::-1]) if k > 1 else np.argsort(words[:, 0], kind="stable")
    ordered = words[order]
    new = np.concatenate(([n > 0], (ordered[1:] != ordered[:-1]).any(axis=1)))
    codes = np.empty(n, dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return values[order[new]], codes


def _trec_eval_columns(path: str | Path | Source, least: int, most: int | None, layout: str,
                       value_field: int, what: str) -> TrecColumns:
    topics: list[npt.NDArray[np.bytes_]] = []
    documents: list[npt.NDArray[np.bytes_]] = []
    values: list[npt.NDArray[Any]] = []
    numbers: list[npt.NDArray[np.int64]] = []
    run_id = ""
    with opened(path) as source:
        name = source.name
        for first, block in source.blocks():
            raw = np.frombuffer(block, dtype=np.uint8)
            _, starts, ends = field_bounds(raw)
            if not len(starts):
                continue
            line_ends = np.flatnonzero(raw == 10)
            line_of = np.searchsorted(line_ends, starts)
            heads = np.flatnonzero(np.concatenate(([True], line_of[1:] != line_of[:-1])))
            counts = np.diff(np.append(heads, len(starts)))
            kept = raw[starts[heads]] != ord("#")
            wrong = kept & ((counts < least) | (counts > (most or counts.max())))
            if wrong.any():
                at = int(np.argmax(wrong))
                expected = f"{least}" if most == least else f"at least {least}"
                raise FormatError(f"{int(counts[at])} columns: expected {expected} ({layout})",
                                  name, first + int(line_of[heads[at]]))
            heads = heads[kept]
            lines = first + line_of[heads].astype(np.int64)
            values.append(_numbers(raw, starts[heads + value_field],
                                   ends[heads + value_field], value_field == 4, what, name,
                                   lines))
            for field, kind in ((0, "topic id"), (2, "document id")):
                long_ids = ends[heads + field] - starts[heads + field] > MAX_ID
                if long_ids.any():
                    raise FormatError(f"{kind} longer than {MAX_ID} bytes", name,
                                      int(lines[int(np.argmax(long_ids))]))
            topics.append(_strings(raw, starts[heads], ends[heads]))
            documents.append(_strings(raw, starts[heads + 2], ends[heads + 2]))
            numbers.append(lines)
            if least == 6 and len(heads):
                last = int(heads[-1]) + 5
                run_id = block[int(starts[last]):int(ends[last])].decode("utf-8")
    empty = np.zeros(0, dtype="S1")
    return TrecColumns(np.concatenate(topics) if topics else empty,
                       np.concatenate(documents) if documents else empty,
                       np.concatenate(values) if values else np.zeros(0),
                       np.concatenate(numbers) if numbers else np.zeros(0, dtype=np.int64),
                       run_id, name)


def _strings(raw: npt.NDArray[np.uint8], starts: npt.NDArray[np.intp],
             ends: npt.NDArray[np.intp]) -> npt.NDArray[np.bytes_]:
    """The fields ``raw[starts:ends]`` as one ``S`` array (zero-padded to the widest)."""
    widths = ends - starts
    width = max(int(widths.max(initial=0)), 1)
    at = starts[:, None] + np.arange(width)
    inside = np.arange(width) < widths[:, None]
    matrix = np.where(inside, raw[np.minimum(at, len(raw) - 1)], 0).astype(np.uint8)
    return np.ascontiguousarray(matrix).view(f"S{width}").ravel()


def _numbers(raw: npt.NDArray[np.uint8], starts: npt.NDArray[np.intp],
             ends: npt.NDArray[np.intp], real: bool, what: str, name: str,
             lines: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
    """The fields as finite floats (``real``, as ``float()`` reads them) or integers; the first
    bad one is an error."""
    if real:
        numbers, unread = decimal_values(raw, word_view(raw.tobytes()), starts, ends)
        bad = unread | ~np.isfinite(numbers)
    else:
        read = integer_values(raw, starts, ends)
        if read is not None:
            return read
        bad = np.array([_INTEGER.fullmatch(raw[a:b].tobytes().decode("utf-8", "replace"))
                        is None for a, b in zip(starts.tolist(), ends.tolist())])
        if not bad.any():  # integers wider than MAX_DIGITS
            bad = np.ones(len(starts), dtype=bool)
    if not bad.any():
        return numbers
    row = int(np.argmax(bad))
    text = raw[starts[row]:ends[row]].tobytes()
    kind = "a finite number" if real else "an integer"
    raise FormatError(f"{what} {shown(text)} is not {kind}", name, int(lines[row]))
