"""TREC-like runs and TREC document qrels (spec §1.7.2).

* Element runs (INEX 2009+ style, 7 columns): ``topic Q0 file rank rsv run-id xpath`` -> a
  :class:`~inexeval.model.run.Run` of kind ``element`` (paths canonicalised, spec §1.2).
* Document runs (6 columns, trec_eval's format): ``topic Q0 doc rank rsv run-id`` -> kind
  ``document``; as trec_eval reads them, text after the run id is ignored (a line of more
  columns whose seventh is not an element's path, and not a FOL line's offset and length).
* Document qrels: ``topic iter doc rel`` -> :class:`~inexeval.model.assessments.Assessments` of
  scale ``trec`` with the integer grade in the ``relevance`` dimension.

FOL passage runs (8 columns) and qrels have their own module (:mod:`inexeval.formats.fol`).
Files come through :mod:`inexeval.formats.source` (compressed, standard input, BOM, CRLF, blank
lines skipped); every problem is a :class:`~inexeval.errors.FormatError` with the line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import numpy as np
import numpy.typing as npt

from inexeval.collection.paths import canonical_path
from inexeval.errors import FormatError, InexevalError
from inexeval.formats import source as sources
from inexeval.formats.lines import Table
from inexeval.formats.runbuild import RunBuilder
from inexeval.formats.source import Source, TopicResumed, opened
from inexeval.formats.trec_columns import (
    RUN_LINE,
    FieldBounds,
    TrecColumns,
    interned,
    read_qrels_columns,
    read_trec_eval_qrels,
    read_trec_eval_run,
    run_width,
)
from inexeval.model.assessments import Assessments, TopicAssessments
from inexeval.model.run import Run, TopicRun
from inexeval.outputs import atomic_output

RUN_KINDS = {6: "document", 7: "element"}


__all__ = ["RUN_KINDS", "TrecColumns", "interned", "read_trec_eval_qrels", "read_trec_eval_run",
           "read_trec_qrels", "read_trec_run", "read_trec_run_parts", "write_trec_run"]
"""(trec_eval's own reading, whole files as columns, is :mod:`inexeval.formats.trec_columns`;
its names stay importable from here.)"""



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
    text_after = False
    held = _TrecColumns()
    given: set[str] = set()
    name = run_id = ""
    with opened(path) as source:
        name = source.name
        builder = RunBuilder(name, keep_repeats)
        head = source.head()
        for first, block in source.blocks():
            if not columns:
                columns, text_after = run_width(block, first, name, head)
            if not columns:
                continue
            if text_after:
                block = _without_text_after(block, first)
            try:
                table = Table(block, first, name, columns, RUN_LINE)
            except FormatError:
                if columns != 6 or text_after:
                    raise
                # a later line with text after the run id: such lines cut from here on
                text_after = True
                block = _without_text_after(block, first)
                table = Table(block, first, name, columns, RUN_LINE)
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


def _without_text_after(block: bytes, first: int) -> bytes:
    """A document run's block with whatever follows the sixth field of a line cut off (lines
    of fewer fields kept whole, for the reader to tell; every line end stays, so that lines
    keep their numbers)."""
    raw = np.frombuffer(block, dtype=np.uint8)
    fields = FieldBounds.of(raw, first, 6)
    if fields is None or fields.counts is None or not (fields.counts > 6).any():
        return block
    line_ends = np.flatnonzero(raw == 10)
    cut = line_ends.copy()  # a line without fields keeps what it has (blanks)
    rows = fields.numbers - first
    cut[rows] = np.where(fields.counts >= 6, fields.end(5), line_ends[rows])
    line_of = np.cumsum(raw == 10) - (raw == 10)
    kept = (np.arange(len(raw)) < cut[line_of]) | (raw == 10)
    trimmed: bytes = raw[kept].tobytes()
    return trimmed


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
    """Read TREC document qrels ``topic iter doc rel`` (duplicated (topic, doc) is an error):
    read as columns (:func:`inexeval.formats.trec_columns.read_qrels_columns`), topics in the
    order they first appear, each topic's judgements in file order."""
    columns = read_qrels_columns(path)
    distinct, codes = interned(columns.topics)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(distinct) + 1))
    first = np.full(len(distinct), len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    documents = np.array([d.decode("utf-8") for d in columns.documents.tolist()], dtype=object)
    levels = columns.values.astype(np.int64)
    topics: dict[str, TopicAssessments] = {}
    for code in np.argsort(first, kind="stable").tolist():
        rows = order[bounds[code]:bounds[code + 1]]
        topic = distinct[code].decode("utf-8")
        topics[topic] = TopicAssessments(
            topic=topic, scale="trec", files=documents[rows],
            paths=np.full(len(rows), "", dtype=object), dims={"relevance": levels[rows]},
            explicit=np.ones(len(rows), dtype=bool), source=columns.source)
    return Assessments(topics=topics, scale="trec", source=columns.source)


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
