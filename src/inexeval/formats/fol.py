"""File-Offset-Length (FOL) qrels and runs of INEX 2009-2010 (spec §1.5.4, §1.7.2, §15.2-15.3).

Qrels line: ``topic Q0 article rsize length [bep o1:l1 o2:l2 ...]``; run line:
``topic Q0 article rank score run-id offset length``. Both are read as the official evaluator
(inex_eval 3.1) reads them: lines end at LF, CR or CRLF; fields are split at runs of the six ASCII
whitespace characters, and a line starting with whitespace gets an empty first field (so every
later field shifts, as in the official tool). Ids are exact strings (``"012" != "12"``).

Where the official tool crashes or silently accepts nonsense, these readers raise
:class:`~inexeval.errors.FormatError` / :class:`~inexeval.errors.RunError` naming file and line:
short qrels lines, non-integer numbers, qrels passages without or with a negative length, run
lines without exactly 8 fields, non-integer run offsets (also in topics absent from the qrels,
which the official tool skips unread) and negative run lengths (§15.12).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError, RunError, warn
from inexeval.formats.lines import field_counts, read_normalised
from inexeval.model import Assessments, Run, TopicRun
from inexeval.model.assessments import build_topic

NONEXISTENT_OFFSETS = (b"X", b"-1")
"""Run offsets meaning "no passage" (spec §1.7.2): kept with ``missing`` set and offset -1."""

_INTEGER = re.compile(rb"[+-]?[0-9]+")
def _lines(path: str | Path) -> list[bytes]:
    """The file's lines (a final terminator ends the last line, it does not start a new one)."""
    lines = read_normalised(path).split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _fields(line: bytes) -> list[bytes]:
    """Fields as the official tool's ``split("\\\\s+")`` gives them (leading blank = empty field)."""
    fields = line.split()
    if fields and line[:1].isspace():
        fields.insert(0, b"")
    return fields


def _text(value: bytes, path: str | Path, line: int) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"field {value!r} is not UTF-8", path, line) from None


def _integer(value: bytes, what: str, path: str | Path, line: int) -> int:
    if _INTEGER.fullmatch(value) is None:
        raise FormatError(f"{what} {value.decode('utf-8', 'replace')!r} is not an integer", path, line)
    return int(value)


def read_fol_qrels(path: str | Path) -> Assessments:
    """Read FOL qrels into :class:`~inexeval.model.Assessments` with scale ``fol``.

    One record per line, in file order, with dims ``rsize``, ``length`` and ``bep`` (field 6 as
    written, -1 when the line has fewer than 6 fields). ``highlights[file]`` holds the article's
    judged passages ``[o, o+l)`` of all its lines, sorted by start (stable: a later passage with
    the same start goes after), neither merged nor checked against ``rsize`` (spec §15.2).
    ``best_entry_points[file]`` is the BEP the official tool uses: field 6 of the article's last
    line with at least 7 fields (a 6-field line sets none; -1 means none).
    """
    topics: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    passages: dict[str, dict[str, list[tuple[int, int]]]] = {}
    entry_points: dict[str, dict[str, int]] = {}
    for number, line in enumerate(_lines(path), start=1):
        fields = _fields(line)
        if len(fields) < 5:
            raise FormatError(
                f"qrels line has {len(fields)} fields, needs at least 5 "
                "(topic Q0 article rsize length [bep offset:length ...])", path, number)
        topic, article = _text(fields[0], path, number), _text(fields[2], path, number)
        rsize = _integer(fields[3], "rsize", path, number)
        length = _integer(fields[4], "article length", path, number)
        bep = _integer(fields[5], "best entry point", path, number) if len(fields) > 5 else -1
        topics.setdefault(topic, []).append((article, "", {"rsize": rsize, "length": length,
                                                           "bep": bep}))
        if len(fields) < 7:
            continue
        entry_points.setdefault(topic, {})[article] = bep
        spans = passages.setdefault(topic, {}).setdefault(article, [])
        for passage in fields[6:]:
            parts = passage.split(b":")
            if len(parts) < 2:
                raise FormatError(f"passage {passage.decode('utf-8', 'replace')!r} is not "
                                  "offset:length", path, number)
            start = _integer(parts[0], "passage offset", path, number)
            size = _integer(parts[1], "passage length", path, number)
            if size < 0:
                raise FormatError(f"passage {passage.decode('utf-8', 'replace')!r} has a negative "
                                  "length", path, number)
            spans.append((start, start + size))
    source = str(path)
    built = {}
    for topic, records in topics.items():
        highlights = {
            article: _sorted_spans(spans) for article, spans in passages.get(topic, {}).items()
        }
        built[topic] = build_topic(
            topic, "fol", records, dim_types={"rsize": int, "length": int, "bep": int},
            highlights=highlights, best_entry_points=entry_points.get(topic, {}), source=source)
    return Assessments(built, "fol", source)


def _sorted_spans(spans: list[tuple[int, int]]) -> npt.NDArray[np.int64]:
    array = np.array(spans, dtype=np.int64).reshape(-1, 2)
    return array[np.argsort(array[:, 0], kind="stable")]


def read_fol_run(path: str | Path) -> Run:
    """Read an FOL passage run (kind ``passage``), grouped by topic, file order kept.

    Every line must have exactly 8 fields (:class:`RunError` otherwise). Offsets ``X`` or ``-1``
    are non-existent passages (``missing``, offset -1, length as written or 0). Rank and score
    are kept when numeric (-1 / NaN otherwise) but the official tasks ignore them. The run's name
    is the run-id field of the last line; ``meta["run_ids"]`` maps each topic to the run id of
    its last line (the official header shows that of the last line of an assessed topic).
    A topic whose lines come in several blocks is grouped (with a warning; the official tool
    mis-scores such a topic, spec §15.12).
    """
    data = read_normalised(path)
    counts = field_counts(data)
    bad = np.flatnonzero(counts != 8)
    if len(bad):
        number = int(bad[0])
        shown = data.split(b"\n")[number].decode("utf-8", "replace")
        problem = "too many fields" if counts[number] > 8 else "fields missing"
        raise RunError(f"{problem} (a run line has 8: topic Q0 article rank score run-id offset "
                       f"length): {shown!r}", path, number + 1)
    if len(counts) == 0:
        return Run("", "passage", {}, source=str(path), meta={"run_ids": {}})
    fields = data.split()
    columns = [tuple(fields[c::8]) for c in range(8)]
    topics = columns[0]
    offsets_raw = np.array(columns[6])
    missing = np.isin(offsets_raw, NONEXISTENT_OFFSETS)
    offsets = _integers(np.where(missing, b"0", offsets_raw), "offset", path)
    lengths = _lengths(np.array(columns[7]), missing, path)
    offsets[missing] = -1
    negative = np.flatnonzero((lengths < 0) & ~missing)
    if len(negative):
        number = int(negative[0])
        raise RunError(f"negative passage length {int(lengths[number])}", path, number + 1)
    ranks = _lenient(np.array(columns[3]), np.int64, -1)
    scores = _lenient(np.array(columns[4]), np.float64, np.nan)
    files = np.array(_texts(columns[2], path), dtype=object)
    run_ids = columns[5]
    codes, first = _topic_codes(np.array(columns[0]))
    order = np.argsort(codes, kind="stable")
    blocks = int(np.count_nonzero(codes[1:] != codes[:-1])) + 1
    if blocks != len(first):
        split = _first_split(codes)
        warn(f"topic {topics[split].decode('utf-8', 'replace')} resumes after lines of other "
             "topics; its lines are evaluated together (the official tool mis-scores a split "
             "topic)", path, split + 1)
    bounds = np.searchsorted(codes[order], np.arange(len(first) + 1))
    per_topic: dict[str, TopicRun] = {}
    run_id_of: dict[str, str] = {}
    for code in np.argsort(first, kind="stable"):
        take = order[bounds[code]:bounds[code + 1]]
        topic = _text(topics[take[0]], path, int(take[0]) + 1)
        per_topic[topic] = TopicRun(
            topic=topic, files=files[take], paths=np.full(len(take), "", dtype=object),
            offsets=offsets[take], lengths=lengths[take], ranks=ranks[take], rsv=scores[take],
            lines=take.astype(np.int64) + 1, missing=missing[take])
        run_id_of[topic] = _text(run_ids[int(take[-1])], path, int(take[-1]) + 1)
    return Run(_text(run_ids[-1], path, len(counts)), "passage", per_topic, source=str(path), meta={"run_ids": run_id_of})


def _topic_codes(topics: npt.NDArray[np.bytes_]) -> tuple[npt.NDArray[np.int64], list[int]]:
    """Topic code per line (codes in order of first appearance) and each topic's first line."""
    _, first, inverse = np.unique(topics, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)], np.sort(first).tolist()


def _texts(values: tuple[bytes, ...], path: str | Path) -> list[str]:
    """A column of byte fields as text (one decode for the whole column)."""
    try:
        return b"\n".join(values).decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return [_text(v, path, i + 1) for i, v in enumerate(values)]


def _first_split(codes: npt.NDArray[np.int64]) -> int:
    change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    starts = np.concatenate(([0], change))
    seen = np.unique(codes[starts], return_index=True)[1]
    repeated = np.setdiff1d(np.arange(len(starts)), seen)
    return int(starts[repeated.min()])


def _integers(values: npt.NDArray[Any], what: str, path: str | Path) -> npt.NDArray[np.int64]:
    """Strict integer parsing of a bytes column (numpy alone would accept ``1_0``)."""
    try:
        parsed = values.astype(np.int64)
        if b"_" not in b" ".join(values.tolist()):
            return parsed
    except (ValueError, OverflowError):
        pass
    for i, value in enumerate(values.tolist()):
        if _INTEGER.fullmatch(value) is None:
            raise FormatError(f"{what} {value.decode('utf-8', 'replace')!r} is not an integer",
                              path, i + 1)
    return np.array([int(v) for v in values.tolist()], dtype=np.int64)


def _lengths(values: npt.NDArray[Any], missing: npt.NDArray[np.bool_],
             path: str | Path) -> npt.NDArray[np.int64]:
    """Lengths; on a non-existent passage the length is not read (0 unless an integer)."""
    readable = ~missing
    if missing.any():
        readable[missing] = [_INTEGER.fullmatch(v) is not None for v in values[missing].tolist()]
    return _integers(np.where(readable, values, b"0"), "length", path)


def _lenient(values: npt.NDArray[Any], kind: type, absent: Any) -> npt.NDArray[Any]:
    """A rank or score column: parsed where numeric, ``absent`` elsewhere (never an error)."""
    try:
        return values.astype(kind)
    except (ValueError, OverflowError):
        out = []
        for value in values.tolist():
            try:
                out.append(kind(float(value)) if kind is np.int64 else kind(value))
            except (ValueError, OverflowError):
                out.append(absent)
        return np.array(out, dtype=kind)


def write_fol_run(run: Run, out: str | Path | TextIO, run_id: str | None = None) -> None:
    """Write a passage run as FOL lines, topics in the run's order, results in file order.

    Rank is the position in the topic (1-based) unless the run has ranks; the score is the run's
    rsv, or decreasing from the number of results; non-existent passages are written as ``X``.
    """
    name = run_id if run_id is not None else (run.name or "inexeval")

    def lines() -> Iterable[str]:
        for topic, results in run.items():
            n = len(results)
            for i in range(n):
                rank = int(results.ranks[i]) if results.ranks[i] >= 0 else i + 1
                score = float(results.rsv[i]) if not np.isnan(results.rsv[i]) else float(n - i)
                offset = "X" if results.missing[i] else str(int(results.offsets[i]))
                yield (f"{topic} Q0 {results.files[i]} {rank} {score!r} {name} {offset} "
                       f"{max(int(results.lengths[i]), 0)}\n")

    _write(out, lines())


def write_fol_qrels(assessments: Assessments, out: str | Path | TextIO) -> None:
    """Write FOL qrels: one line per record; the BEP and all judged passages of an article go on
    its first line (which reads back to the same highlights, BEP, ``Trel`` and ``NRel``)."""
    def lines() -> Iterable[str]:
        for topic, judged in assessments.items():
            rsize, length = judged.dim("rsize"), judged.dim("length")
            written: set[str] = set()
            for i, article in enumerate(judged.files.tolist()):
                text = f"{topic} Q0 {article} {int(rsize[i])} {int(length[i])}"
                spans = judged.highlights.get(article)
                if article not in written and spans is not None and len(spans):
                    bep = int(judged.best_entry_points.get(article, -1))
                    text += f" {bep} " + " ".join(f"{s}:{e - s}" for s, e in spans.tolist())
                written.add(article)
                yield text + "\n"

    _write(out, lines())


def _write(out: str | Path | TextIO, lines: Iterable[str]) -> None:
    if isinstance(out, (str, Path)):
        with open(out, "w", encoding="utf-8", newline="\n") as stream:
            stream.writelines(lines)
    else:
        out.writelines(lines)
