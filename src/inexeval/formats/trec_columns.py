"""TREC qrels and document runs read as trec_eval 10.0 reads them, as columns (the readers of
``inexeval trec_eval`` and of TREC document qrels and runs in ``inexeval eval``).

A file is read in blocks of whole lines (:meth:`inexeval.formats.source.Source.blocks`), each cut
into fields on a byte mask of blanks, without a Python object per line or field: the topic and
document ids become ``S`` arrays (zero-padded bytes, which sort as C's ``strcmp``) built from
big-endian 8-byte words of the block, the numbers are read in place
(:mod:`inexeval.formats.lines`). A run can be given out a group of whole topics at a time
(:func:`read_trec_eval_run_parts`), so that its evaluation holds one part, not the run.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError, shown
from inexeval.formats.lines import (
    MAX_DIGITS,
    decimal_values,
    eight_digits,
    field_bounds,
    integer_values,
    word_view,
)
from inexeval.formats.source import PART_LINES, Source, TopicResumed, opened

RUN_LINE = "topic Q0 file rank rsv run-id xpath, or 6 without the xpath for a document run"
"""What a line of a TREC run holds (the readers' errors say it)."""

_NUMBER = re.compile(rb"[-+0-9.eE]+")
_PATH_SEVENTH = re.compile(rb"^[ \t]*(?:[^ \t\n]+[ \t]+){6}/", re.MULTILINE)


def text_after_run_id(fields: Sequence[bytes], head: bytes) -> bool:
    """Whether a TREC run whose first line has ``fields`` and whose text starts with ``head`` is
    a document run with text after the run id (which trec_eval ignores): the line has more than
    six fields, the seventh neither an element's path (``/...``) nor a FOL run's offset (``X``
    or a number), and no line of ``head`` has a path there (then the run is an element run
    whose first path is wrong, and is told so)."""
    if len(fields) < 7:
        return False
    seventh = fields[6]
    if seventh.startswith(b"/") or seventh == b"X" or _NUMBER.fullmatch(seventh):
        return False
    return _PATH_SEVENTH.search(head) is None


def looks_like_fol(fields: Sequence[bytes]) -> bool:
    """Whether a run line of these fields is a FOL passage line: 8 fields, the offset or the
    length a number (the offset may be ``X``, no passage; a wrong number is the FOL reader's to
    tell)."""
    return len(fields) == 8 and any(_NUMBER.fullmatch(f) or f == b"X" for f in fields[6:])


MAX_LEVEL = 1000
"""Highest relevance level of :func:`read_trec_eval_qrels` (trec_eval counts every level from 0
up to the highest, topic by topic)."""
MAX_ID = 1000
"""Longest topic or document id of trec_eval's reading (ids are held as fixed-width columns)."""


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
    with opened(path) as source:
        blocks = [_columns(block, first, source.name, _QRELS)
                  for first, block in source.blocks()]
        columns = _joined([b for b in blocks if b is not None], "", source.name)
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
    parts = list(read_trec_eval_run_parts(path, lines=None))
    return parts[0]


def read_trec_eval_run_parts(path: str | Path | Source, lines: int | None = PART_LINES,
                             block: int | None = None
                             ) -> Generator[TrecColumns, None, None]:
    """The run of :func:`read_trec_eval_run` a group of whole topics at a time: after a block in
    which at least ``lines`` lines are held, the lines before the last topic's are given out
    (None: the whole run at once), the file read ``block`` bytes at a time (None:
    :data:`~inexeval.formats.source.BLOCK`). Each part's ``run_id`` is that of its last line. A
    topic whose lines resume after a part that held it raises
    :class:`~inexeval.formats.source.TopicResumed` (read the run whole then)."""
    held: list[TrecColumns] = []
    count = 0
    given: set[bytes] = set()
    with opened(path) as source:
        name = source.name
        for first, data in source.blocks(block):
            columns = _columns(data, first, name, _RUN)
            if columns is None:
                continue
            held.append(columns)
            count += len(columns)
            if lines is None or count < lines:
                continue
            topics = columns.topics
            new = np.flatnonzero(changes(topics))
            if not len(new):  # the block holds one topic: it may go on in the next
                continue
            cut = int(new[-1]) + 1
            part = _joined([*held[:-1], _rows(columns, slice(0, cut))], "", name)
            held, count = [_rows(columns, slice(cut, None))], len(topics) - cut
            yield _given(part, given)
        if not held and not given:
            raise FormatError("the run has no result line", name)
        if held:
            yield _given(_joined(held, "", name), given)


def _given(part: TrecColumns, given: set[bytes]) -> TrecColumns:
    """``part``, after a check that none of its topics was in an earlier part."""
    starts = np.flatnonzero(np.concatenate(([True], changes(part.topics))))
    topics = set(part.topics[starts].tolist())
    if not given.isdisjoint(topics):
        raise TopicResumed(part.source)
    given.update(topics)
    return part


def _rows(columns: TrecColumns, rows: slice) -> TrecColumns:
    return TrecColumns(columns.topics[rows], columns.documents[rows], columns.values[rows],
                       columns.lines[rows], columns.run_id, columns.source)


def _joined(parts: list[TrecColumns], run_id: str, name: str) -> TrecColumns:
    """The parts as one; its run id that of the last part that has lines."""
    parts = [p for p in parts if len(p)]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        empty = np.zeros(0, dtype="S1")
        return TrecColumns(empty, empty, np.zeros(0), np.zeros(0, dtype=np.int64), run_id, name)
    return TrecColumns(np.concatenate([p.topics for p in parts]),
                       np.concatenate([p.documents for p in parts]),
                       np.concatenate([p.values for p in parts]),
                       np.concatenate([p.lines for p in parts]), parts[-1].run_id, name)


def _refuse_repeats(columns: TrecColumns, verb: str, what: str) -> None:
    """A (topic, document) pair on two lines is an error naming the second line."""
    _, topics = interned(columns.topics)
    low, high = byte_ranges(columns.documents)
    radix = (high.astype(np.int64) - low + 1).tolist()
    size = 1
    for r in radix:
        size *= r
    if size * (int(topics.max(initial=0)) + 1) < 1 << 62:
        keys = topics * size + mixed_radix(columns.documents, low, radix)
    else:
        documents, codes = interned(columns.documents)
        keys = topics * len(documents) + codes
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.argsort(keys, kind="stable")
    same = keys[order][1:] == keys[order][:-1]
    pairs = np.flatnonzero(same)
    at = int(np.argmin(order[pairs + 1]))
    row, first = int(order[pairs[at] + 1]), int(order[pairs[at]])
    topic = columns.topics[row].decode("utf-8")
    document = columns.documents[row].decode("utf-8")
    raise FormatError(f"topic {shown(topic)} {verb} {shown(document)} {what} (first at line "
                      f"{int(columns.lines[first])})", columns.source, int(columns.lines[row]))


def interned(values: npt.NDArray[np.bytes_]) -> tuple[npt.NDArray[np.bytes_],
                                                      npt.NDArray[np.int64]]:
    """The distinct byte strings of ``values`` in C's ``strcmp`` order, and each value's code
    into them: the strings compared as big-endian 8-byte words (``np.lexsort`` over the words,
    not a sort of Python-compared strings); a column of long runs of one value (a topic column)
    is interned a run at a time."""
    n, width = len(values), values.dtype.itemsize
    if n > 64:
        starts = np.flatnonzero(np.concatenate(([True], changes(values))))
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


# --- document ids as integers -----------------------------------------------------------------

def byte_ranges(ids: npt.NDArray[np.bytes_]) -> tuple[npt.NDArray[np.uint8],
                                                       npt.NDArray[np.uint8]]:
    """The least and the greatest byte at each place of the ids (0 past an id's end): halves of
    the rows compared until few are left (whole rows at a time, not a reduction down each
    column)."""
    low = high = ids.view(np.uint8).reshape(len(ids), ids.dtype.itemsize)
    while len(low) > 64:
        half = len(low) // 2
        odd = low[2 * half:], high[2 * half:]
        low = np.concatenate([np.minimum(low[:half], low[half:2 * half]), odd[0]])
        high = np.concatenate([np.maximum(high[:half], high[half:2 * half]), odd[1]])
    return low.min(axis=0), high.max(axis=0)


def mixed_radix(ids: npt.NDArray[np.bytes_], low: npt.NDArray[np.uint8],
                radix: list[int]) -> npt.NDArray[np.int64]:
    """The ids as numbers in ``strcmp`` order: their bytes read as the digits of a mixed radix,
    the byte at each place counted from ``low`` there, with ``radix`` values (a place of one
    value left out). With the ranges of :func:`byte_ranges`, ids of many bytes but a common
    shape (``doc001234``, ``clueweb09-en0000-00-00001``) make small whole numbers."""
    width = ids.dtype.itemsize
    matrix = ids.view(np.uint8).reshape(len(ids), width)
    keys = np.zeros(len(ids), dtype=np.int64)
    for place, r in enumerate(radix):
        if r == 1:
            continue
        keys *= r
        if place < width:
            keys += matrix[:, place]
            keys -= int(low[place])
    return keys


def ranges_union(low: npt.NDArray[np.uint8], high: npt.NDArray[np.uint8],
                 other_low: npt.NDArray[np.uint8], other_high: npt.NDArray[np.uint8]) -> tuple[
                     npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """The byte ranges that hold both (places past the shorter ids' end hold 0)."""
    width = max(len(low), len(other_low))

    def padded(values: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        return np.concatenate([values, np.zeros(width - len(values), dtype=np.uint8)])

    return (np.minimum(padded(low), padded(other_low)),
            np.maximum(padded(high), padded(other_high)))


# --- one block of lines ------------------------------------------------------------------------

@dataclass(frozen=True)
class _Layout:
    least: int
    most: int | None
    layout: str
    value_field: int
    what: str
    trec_eval: bool = True
    """trec_eval's reading: ids of at most :data:`MAX_ID` bytes; else (``inexeval eval``'s
    qrels) of a block's problems the one on the earliest line told, as a line-by-line reader
    tells it. Both skip ``#`` comment lines (a line whose first field starts with ``#``), as
    trec_eval does: eval reads what ``inexeval trec_eval`` reads."""


_QRELS = _Layout(4, 4, "topic iter doc rel", 3, "relevance level")
_RUN = _Layout(6, None, "topic Q0 doc rank score run-id", 4, "score")
_EVAL_QRELS = _Layout(4, 4, "topic iter doc rel", 3, "relevance", trec_eval=False)


def read_qrels_columns(path: str | Path | Source) -> TrecColumns:
    """TREC qrels ``topic iter doc rel`` as ``inexeval eval`` reads them
    (:func:`inexeval.formats.trec.read_trec_qrels`): four fields a line, blank lines and
    ``#`` comment lines skipped (as trec_eval skips them), the level an integer of at most
    :data:`~inexeval.formats.lines.MAX_DIGITS` digits, a document judged twice for a topic an
    error; problems told as a line-by-line reading tells them (the earliest line's; a repeat
    before a later block's problem)."""
    held: list[TrecColumns] = []
    with opened(path) as source:
        for first, block in source.blocks():
            try:
                columns = _columns(block, first, source.name, _EVAL_QRELS)
            except FormatError as error:
                # a repeat on an earlier line is told first
                if error.line is not None and error.line > first:
                    ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
                    before = _columns(block[:int(ends[error.line - first - 1]) + 1], first,
                                      source.name, _EVAL_QRELS)
                    held += [before] if before is not None else []
                if held:
                    _refuse_repeats(_joined(held, "", source.name), "judges", "twice")
                raise
            if columns is not None:
                held.append(columns)
        columns = _joined(held, "", source.name)
    if not len(columns):
        raise FormatError("the qrels have no judgement line", columns.source)
    _refuse_repeats(columns, "judges", "twice")
    return columns


def _columns(block: bytes, first: int, name: str, layout: _Layout) -> TrecColumns | None:
    """The columns of a block's lines (None if it has no line of fields)."""
    raw = np.frombuffer(block, dtype=np.uint8)
    least, most = layout.least, layout.most
    fields = FieldBounds.of(raw, first, least)
    if fields is None:
        return None
    numbers, counts = fields.numbers, fields.counts
    comments = raw[fields.start(0)] == ord("#")
    kept = ~comments if comments.any() else None
    if counts is not None:
        wrong = (counts < least) | (counts > most) if most is not None else counts < least
        if kept is not None:
            wrong &= kept
        if wrong.any():
            at = int(np.argmax(wrong))
            if not layout.trec_eval and at:  # a bad level on an earlier line is told first
                earlier = np.arange(len(numbers)) < at
                before = fields.rows(earlier if kept is None else earlier & kept)
                field = layout.value_field
                _numbers(raw, word_view(block), before.start(field), before.end(field), False,
                         layout.what, name, before.numbers, trec_eval=False)
            expected = f"{least}" if most == least else f"at least {least}"
            raise FormatError(f"{int(counts[at])} columns: expected {expected} "
                              f"({layout.layout})", name, int(numbers[at]))
    if kept is not None:
        fields = fields.rows(kept)
        numbers = fields.numbers
        if not len(numbers):
            return None
    words = word_view(block)
    little = words.view("<u8")  # the same bytes, no second copy of the block
    field = layout.value_field
    values = _numbers(raw, words, fields.start(field), fields.end(field), field == 4,
                      layout.what, name, numbers, layout.trec_eval)
    ids = []
    for at, kind in ((0, "topic id"), (2, "document id")):
        starts, ends = fields.start(at), fields.end(at)
        long_ids = ends - starts > MAX_ID
        if layout.trec_eval and long_ids.any():
            raise FormatError(f"{kind} longer than {MAX_ID} bytes", name,
                              int(numbers[int(np.argmax(long_ids))]))
        ids.append(padded_strings(little, starts, ends))
    run_id = ""
    if least == 6:
        run_id = block[int(fields.start(5)[-1]):int(fields.end(5)[-1])].decode("utf-8")
    return TrecColumns(ids[0], ids[1], values, numbers, run_id, name)


class FieldBounds:
    """The first ``least`` fields of each line of a block of whole lines (LF-ended):
    :meth:`start` and :meth:`end` of field k of every line (any place in the block where a
    line has fewer fields), the lines' ``numbers`` and their ``counts`` of fields (None:
    ``least`` each). Bounds are held field by field (``ends[k]`` one contiguous row), so that
    a field's bounds are read without striding over the others'."""

    def __init__(self, starts: npt.NDArray[np.intp] | None, ends: npt.NDArray[np.intp],
                 numbers: npt.NDArray[np.int64], counts: npt.NDArray[np.intp] | None) -> None:
        self.starts = starts
        self.ends = ends
        self.numbers = numbers
        self.counts = counts

    @classmethod
    def of(cls, raw: npt.NDArray[np.uint8], first: int, least: int) -> FieldBounds | None:
        """The fields of ``raw`` (None if it has none).

        The common layout, one blank between fields and none at a line's start or end, is
        found with one search for blanks (and, with ``least`` fields a line, a reshape: the
        ends of a line's fields are a row, a field's the column); any other is cut on the
        edges of the non-blank bytes, each field placed on its line by a search among the
        line ends."""
        blank = raw <= 32
        if len(raw) > 1 and raw[0] > 32 and not (blank[1:] & blank[:-1]).any():
            bounds = np.flatnonzero(blank)
            lines = len(bounds) // least
            if (len(bounds) == lines * least and np.count_nonzero(raw == 10) == lines
                    and bool((raw[bounds[least - 1::least]] == 10).all())):
                return cls(None, np.ascontiguousarray(bounds.reshape(lines, least).T),
                           np.arange(first, first + lines, dtype=np.int64), None)
            field_starts = np.empty_like(bounds)
            field_starts[0] = 0
            field_starts[1:] = bounds[:-1] + 1
            field_ends = bounds
            line_ends = raw[bounds] == 10
            line_of = np.cumsum(line_ends) - line_ends
        else:
            _, field_starts, field_ends = field_bounds(raw)
            if not len(field_starts):
                return None
            line_of = np.searchsorted(np.flatnonzero(raw == 10), field_starts)
        heads = np.flatnonzero(np.concatenate(([True], line_of[1:] != line_of[:-1])))
        counts = np.diff(np.append(heads, len(field_starts)))
        take = np.minimum(heads + np.arange(least)[:, None], len(field_starts) - 1)
        return cls(field_starts[take], field_ends[take], first + line_of[heads].astype(np.int64),
                   counts)

    def start(self, k: int) -> npt.NDArray[np.intp]:
        if self.starts is not None:
            given: npt.NDArray[np.intp] = self.starts[k]
            return given
        if k:
            starts: npt.NDArray[np.intp] = self.ends[k - 1] + 1
            return starts
        starts = np.empty(self.ends.shape[1], dtype=np.intp)
        starts[0] = 0
        starts[1:] = self.ends[-1, :-1] + 1
        return starts

    def end(self, k: int) -> npt.NDArray[np.intp]:
        ends: npt.NDArray[np.intp] = self.ends[k]
        return ends

    def rows(self, kept: npt.NDArray[np.bool_]) -> FieldBounds:
        """The fields of the ``kept`` lines only."""
        counts = None if self.counts is None else self.counts[kept]
        starts = np.stack([self.start(k) for k in range(len(self.ends))])
        return FieldBounds(starts[:, kept], self.ends[:, kept], self.numbers[kept], counts)


def padded_strings(words: npt.NDArray[np.uint64], starts: npt.NDArray[np.intp],
                   ends: npt.NDArray[np.intp]) -> npt.NDArray[np.bytes_]:
    """The fields ``[starts, ends)`` of a block as one ``S`` array, zero-padded to a multiple of
    8 bytes (``words`` is :func:`~inexeval.formats.lines.little_word_view` of the block): each
    8-byte piece of a field is the word that ends where the piece ends, its bytes before the
    piece shifted out (memory order is little-endian order here, so no byte is swapped; a
    shift of 64 bits or more gives 0 in numpy)."""
    widths = ends - starts
    pieces = max(-(-int(widths.max(initial=1)) // 8), 1)
    matrix = np.empty((len(starts), pieces), dtype="<u8")
    for piece in range(pieces):
        begin = starts + 8 * piece
        end = np.minimum(begin + 8, ends)
        shift = (64 - 8 * np.clip(end - begin, 0, 8)).astype(np.uint64)
        np.right_shift(words[end], shift, out=matrix[:, piece])
    return matrix.view(f"S{8 * pieces}").ravel()


def changes(values: npt.NDArray[np.bytes_]) -> npt.NDArray[np.bool_]:
    """``values[1:] != values[:-1]``, compared as 8-byte words where the width allows."""
    size = values.dtype.itemsize
    if size % 8 or not values.flags.c_contiguous:
        different: npt.NDArray[np.bool_] = values[1:] != values[:-1]
        return different
    words = values.view(np.uint64).reshape(len(values), size // 8)
    unequal: npt.NDArray[np.bool_] = words[1:] != words[:-1]
    return unequal[:, 0] if size == 8 else np.any(unequal, axis=1)


def _numbers(raw: npt.NDArray[np.uint8], words: npt.NDArray[np.uint64],
             starts: npt.NDArray[np.intp], ends: npt.NDArray[np.intp], real: bool, what: str,
             name: str, lines: npt.NDArray[np.int64], trec_eval: bool = True
             ) -> npt.NDArray[Any]:
    """The fields as finite floats (``real``, as ``float()`` reads them) or integers; the first
    bad one is an error (not ``trec_eval``: an integer of more than
    :data:`~inexeval.formats.lines.MAX_DIGITS` digits is "too large", as
    :func:`inexeval.formats.trec.read_trec_qrels` has always said)."""
    if real:
        numbers, unread = decimal_values(raw, words, starts, ends)
        bad = unread | ~np.isfinite(numbers)
    else:
        widths = ends - starts
        if int(widths.max(initial=0)) <= 8:
            levels, digits = eight_digits(words[ends].astype(np.uint64), widths)
            if bool(digits.all()):
                return levels
        read = integer_values(raw, starts, ends)
        if read is not None:
            return read
        texts = [raw[a:b].tobytes() for a, b in zip(starts.tolist(), ends.tolist())]
        bad = np.array([_integer(text) is None or (not trec_eval and len(
            text.lstrip(b"+-")) > MAX_DIGITS) for text in texts])
        if not bad.any():  # integers wider than MAX_DIGITS
            bad = np.ones(len(starts), dtype=bool)
    if not bad.any():
        return numbers
    row = int(np.argmax(bad))
    text = raw[starts[row]:ends[row]].tobytes()
    kind = "a finite number" if real else "an integer"
    if not trec_eval and _integer(text) is not None:
        raise FormatError(f"{what} {shown(text)} is too large", name, int(lines[row]))
    raise FormatError(f"{what} {shown(text)} is not {kind}", name, int(lines[row]))


def _integer(text: bytes) -> int | None:
    import re

    return 0 if re.fullmatch(rb"[+-]?[0-9]+", text) else None


def run_width(block: bytes, first: int, name: str, head: bytes) -> tuple[int, bool]:
    """The fields read of each line, from the block's first non-blank line (0 if it has none):
    6 (a document run) or 7 (an element run); and whether that line has text after the run id
    (:func:`~inexeval.formats.trec_columns.text_after_run_id`, ``head`` the file's first
    bytes), which is ignored as trec_eval ignores it."""
    at, number = 0, first
    while at < len(block):  # line by line, not split whole: the block is megabytes
        end = block.find(b"\n", at)
        end = len(block) if end < 0 else end
        fields = block[at:end].split()
        if fields:
            if len(fields) == 6:
                return 6, False
            if text_after_run_id(fields, head):
                return 6, True
            if len(fields) != 7:
                raise FormatError(f"{len(fields)} columns: expected 6 (document run) or 7 "
                                  "(element run: topic Q0 file rank rsv run-id xpath)",
                                  name, number)
            return 7, False
        at, number = end + 1, number + 1
    return 0, False
