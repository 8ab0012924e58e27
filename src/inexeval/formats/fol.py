"""File-Offset-Length (FOL) qrels and runs of INEX 2009-2010 (spec §1.5.4, §1.7.2, §15.2-15.3).

Qrels line: ``topic Q0 article rsize length [bep o1:l1 o2:l2 ...]``; run line:
``topic Q0 article rank score run-id offset length``. Both are read as the official evaluator
(inex_eval 3.1) reads them: lines end at LF, CR or CRLF; fields are split at runs of the six ASCII
whitespace characters. Ids are exact strings (``"012" != "12"``). Files come through
:mod:`inexeval.formats.source` (compressed, standard input, BOM, blank lines skipped).

Where the official tool crashes or silently accepts nonsense, these readers raise
:class:`~inexeval.errors.FormatError` / :class:`~inexeval.errors.RunError` naming file and line:
a line starting with blank space (the official tool reads an empty topic), short qrels lines,
non-integer or huge numbers, qrels passages not ``offset:length``, with a negative length, past
the article's end, given twice or overlapping another of their line, an ``rsize`` that is not the
sum of its line's passage lengths, an article judged twice with different values, run scores
that are not finite numbers (``abc``, ``nan``, ``inf``), run lines
without exactly 8 fields, non-integer or negative run offsets and ranks (also in topics absent
from the qrels, which the official tool skips unread) and run lengths below 1 (§15.12).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import count, pairwise
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError, RunError, shown, warn
from inexeval.formats import source as sources
from inexeval.formats.lines import MAX_DIGITS, PrintedScores, Table, field_bounds, gathered
from inexeval.formats.source import Source, TopicResumed, opened
from inexeval.model import Assessments, Run, TopicAssessments, TopicRun
from inexeval.model.assessments import build_topic
from inexeval.model.run import RunColumns
from inexeval.outputs import atomic_output

_INTEGER = re.compile(r"[+-]?[0-9]+")


def read_fol_qrels(path: str | Path | Source, sampled: bool | None = None) -> Assessments:
    """Read FOL qrels into :class:`~inexeval.model.Assessments` with scale ``fol``.

    Sampled FOL qrels (issue 24, ``assess export`` of a sampled campaign) end every line with
    one more field, the article's sampling stratum (a dim ``stratum``, for the inferred
    measures of :mod:`inexeval.measures.sampled`); an article in the sample but not drawn has
    ``rsize`` -1 and nothing after its length but the stratum. They are told apart (``sampled``
    None) by their lines: every one has six or more fields and ends with a field that is not
    ``offset:length``, and some end with one that is no integer (a stratum as ``1-10`` or
    ``p2``); ``sampled=True`` says so for strata named by integers. A stratum holds no ``:``;
    an article is listed once per topic.

    One record per line, in file order, with dims ``rsize``, ``length`` and ``bep`` (field 6 as
    written, -1 when the line has fewer than 6 fields). ``highlights[file]`` holds the article's
    judged passages ``[o, o+l)`` of all its lines, sorted by start (stable: a later passage with
    the same start goes after), not merged (spec §15.2).
    ``best_entry_points[file]`` is the BEP the official tool uses: field 6 of the article's last
    line with at least 7 fields (a 6-field line sets none; -1 means none).

    An article may be judged on several lines only with the same ``rsize`` and length; a
    negative length, a passage past the article's end, a passage given twice, two passages of
    one line that overlap and a line whose passage lengths do not sum to its ``rsize`` are
    errors (a line without passages keeps its ``rsize``: a relevant article judged as a whole).
    """
    with opened(path) as source:
        name = source.name
        data = b"".join(block for _, block in source.blocks())
    fast = _columns(name, data) if data.isascii() and not sampled else None
    if fast is not None:
        return fast
    lines = [(number, text.rstrip(_BLANKS)) for number, text in
             enumerate(data.decode("utf-8").split("\n")[:-1], 1)]
    return _checked(name, [(number, text) for number, text in lines if text], sampled)


def ends_with_stratum(fields: list[str], named: bool = True) -> bool:
    """Whether a FOL qrels line's fields may end with a sampling stratum: six or more, the last
    printable and not ``offset:length``, and (``named``) not an integer."""
    last = fields[-1] if fields else ""
    return len(fields) >= 6 and ":" not in last and last.isprintable() and (
        not named or _INTEGER.fullmatch(last) is None)


_BLANKS = " \t\n\r\x0b\x0c"
"""The six ASCII blanks, at which fields are split as the official tool splits them (a no-break
space or another Unicode space is part of a field, which is then no number)."""
_FIELD = re.compile(r"[^ \t\n\r\x0b\x0c]+")

_INTEGERS = re.compile(rf"(?:[+-]?[0-9]{{1,{MAX_DIGITS}}} )*")
_PASSAGES = re.compile(rf"(?:\+?[0-9]{{1,{MAX_DIGITS}}}:\+?[0-9]{{1,{MAX_DIGITS}}} )*")


def _columns(name: str, data: bytes) -> Assessments | None:
    """The qrels (ASCII text of LF-ended lines) read column-wise, or None when a line has a
    problem (or a rare form, such as a signed or negative passage field): :func:`_checked`
    then reads it line by line and finds the error."""
    raw = np.frombuffer(data, dtype=np.uint8)
    solid, starts, ends = field_bounds(raw)
    newlines = np.flatnonzero(raw == 10)
    heads = np.concatenate(([0], newlines[:-1] + 1))
    line_of = np.searchsorted(newlines, starts)
    counts = np.bincount(line_of, minlength=len(newlines))
    if len(starts) == 0 or (~solid[heads] & (counts > 0)).any():
        return None
    numbers = np.flatnonzero(counts)
    count = counts[numbers]
    if int(count.min()) < 5:
        return None
    pos = np.arange(len(starts)) - np.repeat(np.cumsum(count) - count, count)
    def column(rows: npt.NDArray[np.bool_], separator: int) -> str:
        return gathered(raw, starts[rows], ends[rows], separator).decode()

    topic_list_all = column(pos == 0, 10).split("\n")[:-1]
    articles = column(pos == 2, 10).split("\n")[:-1]
    chosen = (pos >= 3) & (pos <= 5)
    text = column(chosen, 32)
    spans = column(pos >= 6, 32)
    if _INTEGERS.fullmatch(text) is None or _PASSAGES.fullmatch(spans) is None:
        return None
    values = _parsed(text, int(chosen.sum()))
    passages = _parsed(spans.replace(":", " "), 2 * int((pos >= 6).sum()))
    if values is None or passages is None:
        return None
    written = pos[chosen]
    rsize, length = values[written == 3], values[written == 4]
    bep = np.full(len(count), -1, dtype=np.int64)
    bep[count > 5] = values[written == 5]
    if (rsize < 0).any() or (length < 0).any():
        return None
    topic_code: dict[str, int] = {}
    key_code: dict[tuple[str, str], int] = {}
    topic_of = [topic_code.setdefault(t, len(topic_code)) for t in topic_list_all]
    key_of = [key_code.setdefault(k, len(key_code)) for k in zip(topic_list_all, articles)]
    keys = np.array(key_of, dtype=np.int64)
    first = np.unique(keys, return_index=True)[1][keys]
    if (rsize != rsize[first]).any() or (length != length[first]).any():
        return None
    count = np.maximum(count - 6, 0)
    pairs = passages.reshape(-1, 2)
    starts, ends = pairs[:, 0], pairs[:, 0] + pairs[:, 1]
    owner = np.repeat(np.arange(len(count)), count)
    span_key = keys[owner]
    if (ends > length[owner]).any():
        return None
    with_passages = count > 0
    total = np.concatenate(([0], np.cumsum(pairs[:, 1])))
    line_end = np.cumsum(count)
    if (rsize[with_passages] != (total[line_end] - total[line_end - count])[with_passages]).any():
        return None
    in_line = np.lexsort((starts, owner))
    if ((owner[in_line][1:] == owner[in_line][:-1])
            & (starts[in_line][1:] < ends[in_line][:-1])).any():
        return None
    order = np.lexsort((starts, span_key))  # stable: equal starts keep the file order
    key_sorted, start_sorted, end_sorted = span_key[order], starts[order], ends[order]
    if ((key_sorted[1:] == key_sorted[:-1]) & (start_sorted[1:] == start_sorted[:-1])
            & (end_sorted[1:] == end_sorted[:-1])).any():
        return None
    sorted_spans = np.stack((start_sorted, end_sorted), axis=1)
    bounds = np.searchsorted(key_sorted, np.arange(len(key_code) + 1)).tolist()
    judged = np.flatnonzero(count)
    last = np.full(len(key_code), -1, dtype=np.int64)
    last[keys[judged]] = judged  # the last line with passages sets the best entry point
    firsts = np.unique(keys[judged], return_index=True)
    opening = judged[firsts[1]]
    opening = opening[np.lexsort((opening, np.array(topic_of, dtype=np.int64)[opening]))]
    topic_list = list(topic_code)
    highlights: list[dict[str, npt.NDArray[np.int64]]] = [{} for _ in topic_list]
    entry_points: list[dict[str, int]] = [{} for _ in topic_list]
    bep_list = bep.tolist()
    for row in opening.tolist():
        key, topic, article = key_of[row], topic_of[row], articles[row]
        highlights[topic][article] = sorted_spans[bounds[key]:bounds[key + 1]]
        entry_points[topic][article] = bep_list[int(last[key])]
    topics = np.array(topic_of, dtype=np.int64)
    by_topic = np.argsort(topics, kind="stable")
    limits = np.searchsorted(topics[by_topic], np.arange(len(topic_list) + 1)).tolist()
    files = np.array(articles, dtype=object)
    built = {}
    for code, topic in enumerate(topic_list):
        rows = by_topic[limits[code]:limits[code + 1]]
        built[topic] = TopicAssessments(
            topic=topic, scale="fol", files=files[rows],
            paths=np.full(len(rows), "", dtype=object),
            dims={"rsize": rsize[rows], "length": length[rows], "bep": bep[rows]},
            explicit=np.ones(len(rows), dtype=bool), highlights=highlights[code],
            best_entry_points=entry_points[code], source=name)
    return Assessments(built, "fol", name)


def _parsed(text: str, count: int) -> npt.NDArray[np.int64] | None:
    """Space-separated integers already checked by a pattern (None unless ``count`` of them)."""
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        values = np.fromstring(text, dtype=np.int64, sep=" ")
    return values if len(values) == count else None


def _checked(name: str, lines: list[tuple[int, str]], sampled: bool | None = None
             ) -> Assessments:
    """The qrels read line by line, every check with its message (file and line)."""
    topics: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    passages: dict[str, dict[str, list[tuple[int, int]]]] = {}
    entry_points: dict[str, dict[str, int]] = {}
    judged: dict[tuple[str, str], tuple[int, int, int]] = {}
    if sampled is None:
        split = [_FIELD.findall(line) for _, line in lines]
        sampled = all(ends_with_stratum(f, named=False) for f in split) and any(
            ends_with_stratum(f) for f in split)
    for number, line in lines:
        if line and line[0] in _BLANKS:
            raise FormatError("the line starts with blank space (an empty topic field)",
                              name, number)
        fields = _FIELD.findall(line)
        if sampled and len(fields) < 6:
            raise FormatError(
                f"sampled qrels line has {len(fields)} fields, needs at least 6 "
                "(topic Q0 article rsize length [bep offset:length ...] stratum)", name, number)
        stratum = fields.pop() if sampled else None
        if len(fields) < 5:
            raise FormatError(
                f"qrels line has {len(fields)} fields, needs at least 5 "
                "(topic Q0 article rsize length [bep offset:length ...])", name, number)
        topic, article = fields[0], fields[2]
        rsize = _integer(fields[3], "rsize", name, number)
        length = _integer(fields[4], "article length", name, number)
        unsampled = sampled and rsize == -1 and len(fields) == 5
        if length < 0 or (rsize < 0 and not unsampled):
            hint = " (a sampled FOL qrels whose strata are integers? --assessments-format " \
                   "sampled)" if rsize == -1 and len(fields) == 6 and not sampled else ""
            raise FormatError(f"negative {'article length' if length < 0 else 'rsize'} "
                              f"{min(length, rsize)}{hint}", name, number)
        if len(fields) > 5 and not sampled and ends_with_stratum(fields) and len(fields) == 6:
            raise FormatError(f"best entry point {shown(fields[5])} is not an integer (a "
                              "sampling stratum? then every line ends with one)", name, number)
        bep = _integer(fields[5], "best entry point", name, number) if len(fields) > 5 else -1
        key = (topic, article)
        if key in judged and (sampled or judged[key][:2] != (rsize, length)):
            again = "twice: a sampled qrels lists an article once" if sampled \
                else "again with other values"
            raise FormatError(f"topic {shown(topic)} judges {shown(article)} {again} (first "
                              f"at line {judged[key][2]})", name, number)
        judged.setdefault(key, (rsize, length, number))
        values: dict[str, Any] = {"rsize": rsize, "length": length, "bep": bep}
        if stratum is not None:
            values["stratum"] = stratum
        topics.setdefault(topic, []).append((article, "", values))
        if len(fields) < 7:
            continue
        entry_points.setdefault(topic, {})[article] = bep
        spans = passages.setdefault(topic, {}).setdefault(article, [])
        given = set(spans)
        line_spans = []
        for passage in fields[6:]:
            span = _passage(passage, length, given, name, number)
            line_spans.append(span)
            given.add(span)
        _check_line(line_spans, rsize, fields[6:], name, number)
        spans.extend(line_spans)
    built = {}
    for topic, records in topics.items():
        highlights = {
            article: _sorted_spans(spans) for article, spans in passages.get(topic, {}).items()
        }
        built[topic] = build_topic(
            topic, "fol", records,
            dim_types={"rsize": int, "length": int, "bep": int, "stratum": str},
            highlights=highlights, best_entry_points=entry_points.get(topic, {}), source=name)
    return Assessments(built, "fol", name)


def _integer(value: str, what: str, path: str, line: int) -> int:
    if _INTEGER.fullmatch(value) is None:
        raise FormatError(f"{what} {shown(value)} is not an integer", path, line)
    if len(value.lstrip("+-")) > MAX_DIGITS:
        raise FormatError(f"{what} {shown(value)} is too large", path, line)
    return int(value)


def _passage(text: str, length: int, spans: set[tuple[int, int]], path: str,
             line: int) -> tuple[int, int]:
    """A judged passage ``offset:length`` as ``(start, end)``, checked against the article."""
    parts = text.split(":")
    if len(parts) != 2:
        raise FormatError(f"passage {shown(text)} is not offset:length", path, line)
    start = _integer(parts[0], "passage offset", path, line)
    size = _integer(parts[1], "passage length", path, line)
    if size < 0 or start < 0:
        raise FormatError(f"passage {shown(text)} has a negative "
                          f"{'length' if size < 0 else 'offset'}", path, line)
    if start + size > length:
        raise FormatError(f"passage {shown(text)} ends past the article's end ({length} "
                          "characters)", path, line)
    if (start, start + size) in spans:
        raise FormatError(f"passage {shown(text)} is given twice for this article", path, line)
    return start, start + size


def _check_line(spans: list[tuple[int, int]], rsize: int, fields: list[str], path: str,
                line: int) -> None:
    """A line's passages: disjoint, their lengths summing to the line's ``rsize`` (the
    highlighted characters, spec §15.2)."""
    order = sorted(range(len(spans)), key=lambda k: spans[k])
    for before, after in pairwise(order):
        if spans[after][0] < spans[before][1]:
            raise FormatError(f"passages {shown(fields[before])} and {shown(fields[after])} "
                              "overlap", path, line)
    highlighted = sum(end - start for start, end in spans)
    if highlighted != rsize:
        raise FormatError(f"rsize {rsize} is not the sum of the line's passage lengths "
                          f"({highlighted})", path, line)


def _sorted_spans(spans: list[tuple[int, int]]) -> npt.NDArray[np.int64]:
    array = np.array(spans, dtype=np.int64).reshape(-1, 2)
    return array[np.argsort(array[:, 0], kind="stable")]


_RUN_LINE = "a run line has 8: topic Q0 article rank score run-id offset length"
_TOPIC_LIMIT = 64


class _RunColumns:
    """The columns of a FOL run read so far, block by block."""

    def __init__(self) -> None:
        self.topic_code_of: dict[str, int] = {}
        self.topic_codes: list[npt.NDArray[np.int64]] = []
        self.file_codes_of = _DocumentCodes()
        self.file_codes: list[npt.NDArray[np.int64]] = []
        self.files: list[npt.NDArray[np.object_]] = []
        self.arrays: dict[str, list[npt.NDArray[Any]]] = {
            k: [] for k in ("offsets", "lengths", "ranks", "lines", "missing")}
        self.scores: list[PrintedScores] = []
        self.last_run_id: dict[int, str] = {}
        self.size = 0
        self.given = np.zeros(0, dtype=bool)
        """Topics (by code) given out in a part (:func:`read_fol_run_parts`)."""
        self.split_warned = False

    def add(self, table: Table) -> None:
        n = len(table)
        if n == 0:
            return
        topic_keys = table.keys(0)
        if topic_keys is not None:
            changes = np.flatnonzero(topic_keys[1:] != topic_keys[:-1]) + 1
        else:
            topics = table.padded(0, _TOPIC_LIMIT, "topic id")
            changes = np.flatnonzero(np.any(topics[1:] != topics[:-1], axis=1)) + 1
        heads = np.concatenate(([0], changes))
        tails = np.concatenate((changes - 1, [n - 1]))
        head_codes = [self.topic_code_of.setdefault(table.field(int(r), 0).decode("utf-8"),
                                                    len(self.topic_code_of)) for r in heads]
        for row, code in zip(tails.tolist(), head_codes):
            self.last_run_id[code] = table.field(row, 5).decode("utf-8")
        self.topic_codes.append(np.repeat(np.array(head_codes, dtype=np.int64),
                                    np.diff(np.concatenate((heads, [n])))))
        offset_fields = table.starts[:, 6]
        is_x = ((table.ends[:, 6] - offset_fields) == 1) & (table.raw[offset_fields] == ord("X"))
        offsets = table.integers(6, "offset", skip=is_x)
        missing = is_x | (offsets == -1)
        if (offsets < -1).any():
            raise table.fail(int(np.argmax(offsets < -1)), 6,
                             "is a negative offset (X or -1: no passage)")
        offsets[missing] = -1
        lengths = table.integers(7, "length", skip=missing)
        short = (lengths < 1) & ~missing
        if short.any():
            row = int(np.argmax(short))
            raise RunError(f"{'negative' if lengths[row] < 0 else 'empty'} passage length "
                           f"{int(lengths[row])} (a passage has at least one character)",
                           table.name, int(table.numbers[row]))
        for row in np.flatnonzero(missing).tolist():
            written = table.field(row, 7).decode("utf-8")
            lengths[row] = int(written) if _INTEGER.fullmatch(written) and len(written) < 16 else 0
        ranks = table.ranks()
        scores = table.printed_scores(4)
        files, file_codes = self.documents(table)
        self.files.append(files)
        self.file_codes.append(file_codes)
        for key, values in (("offsets", offsets), ("lengths", lengths), ("ranks", ranks),
                            ("lines", table.numbers), ("missing", missing)):
            self.arrays[key].append(values)
        self.scores.append(scores)
        self.size += n

    def resumed(self) -> bool:
        """Whether the last block has lines of a topic already given out in a part."""
        if not self.topic_codes:
            return False
        codes = self.topic_codes[-1]
        given = self.given
        return bool(given[codes[codes < len(given)]].any())

    def several_topics(self) -> bool:
        """Whether the lines held are of more than one topic."""
        last = self.topic_codes[-1][-1] if self.topic_codes else None
        return any(bool((codes != last).any()) for codes in self.topic_codes)

    def part(self, name: str) -> Run:
        """The topics held but the last one read, as a run; the lines of the last topic are kept
        (the next block may continue it)."""
        joined = self._joined()
        codes = joined[-1]
        keep = codes == codes[-1]
        held = np.flatnonzero(keep)
        if held[-1] - held[0] + 1 != len(held):  # the last topic resumes after others
            raise TopicResumed(name)
        out = ~keep
        arrays, scores, files, file_codes, _ = joined
        part = self._built(name, {k: v[out] for k, v in arrays.items()}, scores[out], files[out],
                           file_codes[out], codes[out])
        given = np.zeros(len(self.topic_code_of), dtype=bool)
        given[:len(self.given)] = self.given
        given[codes[out]] = True
        self.given = given
        for key, values in arrays.items():
            self.arrays[key] = [values[keep]]
        self.scores = [scores[keep]]
        self.files, self.file_codes = [files[keep]], [file_codes[keep]]
        self.topic_codes = [codes[keep]]
        self.size = len(held)
        return part

    def warn_split(self, code: int, name: str, line: int) -> None:
        """The warning about a topic that resumes after lines of others (once per run)."""
        if not self.split_warned:
            self.split_warned = True
            warn(f"topic {shown(self.topic_names()[code])} resumes after lines of other topics; "
                 "its lines are evaluated together (the official tool mis-scores a split topic)",
                 name, line)

    def run(self, name: str) -> Run:
        """Every line held, as a run."""
        if self.size == 0:
            return Run("", "passage", {}, source=name, meta={"run_ids": {}})
        return self._built(name, *self._joined())

    def topic_names(self) -> list[str]:
        return list(self.topic_code_of)

    def _joined(self) -> tuple[dict[str, npt.NDArray[Any]], PrintedScores,
                               npt.NDArray[np.object_], npt.NDArray[np.int64],
                               npt.NDArray[np.int64]]:
        # one column at a time, each block's pieces released as soon as they are joined: the
        # peak is the lines held plus one column, not twice them
        arrays = {k: _joined(self.arrays[k]) for k in list(self.arrays)}
        scores = PrintedScores.joined(self.scores)
        self.scores = []
        return (arrays, scores, _joined(self.files), _joined(self.file_codes),
                _joined(self.topic_codes))

    def _built(self, name: str, arrays: dict[str, npt.NDArray[Any]], scores: PrintedScores,
               files: npt.NDArray[np.object_], file_codes: npt.NDArray[np.int64],
               codes: npt.NDArray[np.int64]) -> Run:
        """The lines given (in file order) grouped by topic into a run, with its joined columns
        (:class:`RunColumns`); a topic that resumes after lines of other topics is grouped, with
        a warning (and the columns left out: they are not the topics' in order)."""
        names = self.topic_names()
        starts = np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))
        heads = codes[starts]
        first_segments = np.unique(heads, return_index=True)[1]
        split = None
        if len(first_segments) == len(heads):
            bounds = np.append(starts, len(codes))
            order_codes = heads.tolist()
        else:
            split = int(starts[np.setdiff1d(np.arange(len(starts)), first_segments).min()])
            self.warn_split(int(codes[split]), name, int(arrays["lines"][split]))
            order_codes = heads[np.sort(first_segments)].tolist()
            order = np.argsort(codes, kind="stable")
            ordered = codes[order]
            low = np.searchsorted(ordered, order_codes, side="left").tolist()
            high = np.searchsorted(ordered, order_codes, side="right").tolist()
            takes = [order[a:b] for a, b in zip(low, high)]

        topic_run = _TopicMaker(names, codes, files, arrays, scores, file_codes)

        run_ids = {names[code]: self.last_run_id[code] for code in order_codes}
        run_name = self.last_run_id[int(codes[-1])]
        if split is None:
            columns = RunColumns(
                [names[code] for code in order_codes], bounds, files, arrays["offsets"],
                arrays["lengths"], arrays["lines"], arrays["missing"], file_codes,
                topic_run,
                packed_names=self.file_codes_of.packed())
            return Run(run_name, "passage", columns, source=name, meta={"run_ids": run_ids},
                       columns=columns)
        per_topic = {names[code]: topic_run.of(code, take)
                     for code, take in zip(order_codes, takes)}
        return Run(run_name, "passage", per_topic, source=name, meta={"run_ids": run_ids})

    def documents(self, table: Table) -> tuple[npt.NDArray[np.object_], npt.NDArray[np.int64]]:
        """The article column as names (one str object per distinct name) and run-wide codes.

        Names of up to 8 bytes (every Wikipedia id) are packed into one integer each and made
        distinct with numpy; longer names go through a dict."""
        key = table.keys(2)
        if key is not None:
            order = np.argsort(key)
            ordered = key[order]
            heads = np.empty(len(key), dtype=bool)
            heads[0] = True
            np.not_equal(ordered[1:], ordered[:-1], out=heads[1:])
            inverse = np.empty(len(key), dtype=np.int64)
            inverse[order] = np.cumsum(heads) - 1
            first = order[heads]
            names = table.joined(2, 10, first).decode("utf-8").split("\n")[:-1]
            packed: npt.NDArray[np.uint64] | None = ordered[heads]
        else:
            local: dict[str, int] = {}  # name -> line of its first occurrence
            seen = np.fromiter(map(local.setdefault, table.texts(2), count()),
                               dtype=np.int64, count=len(table))
            firsts = np.fromiter(local.values(), dtype=np.int64, count=len(local))
            inverse = np.searchsorted(firsts, seen)  # firsts ascend: number names densely
            names = list(local)
            packed = None
        return np.array(names, dtype=object)[inverse], self.file_codes_of(names, packed)[inverse]


class _DocumentCodes:
    """Run-wide codes of document names, given block by block (distinct names of a block).

    The first block's names are numbered in order; the dict of names is made only when a second
    block comes (most runs are one block, and hashing every name costs as much as reading it)."""

    def __init__(self) -> None:
        self.first: list[str] | None = None
        self.code_of: dict[str, int] = {}
        self._packed: list[npt.NDArray[np.uint64]] | None = []

    def __call__(self, names: list[str],
                 packed: npt.NDArray[np.uint64] | None) -> npt.NDArray[np.int64]:
        """The codes of a block's distinct ``names``, given with their packed bytes
        (:meth:`inexeval.formats.lines.Table.keys`) when every name has at most 8 bytes."""
        if self.first is None:
            self.first = names
            codes = np.arange(len(names), dtype=np.int64)
        else:
            if not self.code_of:
                self.code_of = dict(zip(self.first, range(len(self.first))))
            code_of = self.code_of
            known = len(code_of)
            codes = np.array([code_of.setdefault(name, len(code_of)) for name in names],
                             dtype=np.int64)
            if packed is not None:
                packed = packed[codes >= known]  # new codes come in the order of the names
        if packed is None:
            self._packed = None
        elif self._packed is not None:
            self._packed.append(packed)
        return codes

    def packed(self) -> npt.NDArray[np.uint64] | None:
        """The packed bytes of the name of each code (codes index it), if every name has at
        most 8 bytes; else None."""
        if self._packed is None:
            return None
        if len(self._packed) > 1:
            self._packed = [np.concatenate(self._packed)]
        return self._packed[0]


def read_fol_run(path: str | Path | Source) -> Run:
    """Read an FOL passage run (kind ``passage``), grouped by topic, file order kept.

    The file is read in blocks, column-wise (:class:`inexeval.formats.lines.Table`). Every line
    must have exactly 8 fields (:class:`RunError` otherwise). Offsets ``X`` or ``-1`` are
    non-existent passages (``missing``, offset -1, length as written when an integer, else 0);
    any other negative offset, a length below 1, a negative or non-integer rank, a score that
    is not a finite number (``nan``, ``inf``) are errors; scores are kept as printed and read on
    first use of ``rsv`` (:class:`inexeval.formats.lines.PrintedScores`). The
    run's name is the run-id field of the last line; ``meta["run_ids"]`` maps each topic to the run id of its last line (the official
    header shows that of the last line of an assessed topic). A topic whose lines come in
    several blocks is grouped (with a warning; the official tool mis-scores such a topic,
    spec §15.12).
    """
    columns = _RunColumns()
    with opened(path) as source:
        name = source.name
        for first, block in source.blocks():
            columns.add(Table(block, first, name, 8, _RUN_LINE, RunError))
    return columns.run(name)


def read_fol_run_parts(path: str | Path | Source) -> Iterator[Run]:
    """The run of :func:`read_fol_run`, given out a group of whole topics at a time: each part is
    a :class:`Run` of the topics that ended in the blocks read so far (the last topic read is kept
    back until a line of another topic follows it), so that a run of any length is evaluated in
    memory bounded by a block (a few MB) plus its largest topic. The parts hold the topics in
    file order; the last part's name is the run's name (its last line's run-id), and its
    ``meta["run_ids"]`` are those of its own topics. At least one part is given (an empty run
    for a file without lines).

    A topic that resumes after lines of other topics is grouped as :func:`read_fol_run` groups
    it when it is given out in one part with the lines it resumes after; when it might not be
    (it is the last topic read, or its earlier lines were given out already),
    :class:`TopicResumed` is raised: read the file whole then."""
    columns = _RunColumns()
    with opened(path) as source:
        name = source.name
        given_out = False
        for first, block in source.blocks():
            columns.add(Table(block, first, name, 8, _RUN_LINE, RunError))
            if columns.resumed():
                raise TopicResumed(name)
            if columns.size >= sources.PART_LINES and columns.several_topics():
                given_out = True
                yield columns.part(name)
    if columns.size or not given_out:
        yield columns.run(name)


def _joined(parts: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """The blocks' arrays as one (the array itself for a run of one block); ``parts`` is
    emptied, so that the pieces are freed."""
    joined = parts[0] if len(parts) == 1 else np.concatenate(parts)
    parts.clear()
    return joined


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
                if "stratum" in judged.dims:
                    text += f" {judged.dim('stratum')[i]}"
                yield text + "\n"

    _write(out, lines())


def _write(out: str | Path | TextIO, lines: Iterable[str]) -> None:
    if isinstance(out, (str, Path)):
        with atomic_output(out) as stream:
            stream.writelines(lines)
    else:
        out.writelines(lines)


@dataclass(frozen=True)
class _TopicMaker:
    """A topic's :class:`TopicRun` cut from a run's joined columns (an object, not a closure,
    so that a run pickles and travels to worker processes as it is)."""

    names: list[str]
    codes: npt.NDArray[np.int64]
    files: npt.NDArray[np.object_]
    arrays: dict[str, npt.NDArray[Any]]
    scores: PrintedScores
    file_codes: npt.NDArray[np.int64]

    def __call__(self, take: slice) -> TopicRun:
        return self.of(int(self.codes[take.start]), take)

    def of(self, code: int, take: Any) -> TopicRun:
        topic_files = self.files[take]
        arrays = self.arrays
        return TopicRun(
            topic=self.names[code], files=topic_files,
            paths=np.full(len(topic_files), "", dtype=object),
            offsets=arrays["offsets"][take], lengths=arrays["lengths"][take],
            ranks=arrays["ranks"][take], rsv=self.scores[take], lines=arrays["lines"][take],
            missing=arrays["missing"][take], codes=self.file_codes[take])
