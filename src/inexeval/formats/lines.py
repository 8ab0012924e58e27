"""Column-wise reading of whitespace-separated text (FOL and TREC-like runs): a block of whole
lines from :meth:`inexeval.formats.source.Source.blocks` is cut into fields with numpy, and
numeric columns are parsed and checked at once, without a Python object per field.

Fields are split at runs of the six ASCII whitespace characters, as the official tool splits
them; blank lines are skipped; a line that starts with blank space would have an empty first
field (the official tool's reading) and is an error. Numbers are strict: an integer is an
optional sign and at most :data:`MAX_DIGITS` ASCII digits; every problem is a
:class:`~inexeval.errors.FormatError` naming the file and the line, quoting at most
:data:`~inexeval.errors.SHOWN` characters of the field.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError, InexevalError, shown

MAX_DIGITS = 15
"""Digits of the largest integer accepted (10^15: far beyond any rank, offset or length)."""

_INTEGER = re.compile(rb"[+-]?[0-9]+")


def topic_id(value: str, file: str | Path, line: int | None) -> str:
    """A topic id as given (outer blanks removed): empty or with blanks inside is an error."""
    stripped = value.strip()
    if not stripped or len(stripped.split()) > 1:
        raise FormatError(f"topic id {shown(value)} is {'empty' if not stripped else 'not one word'}",
                          file, line)
    return stripped


def field_bounds(raw: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.bool_],
                                                     npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Where the blank-separated fields of ``raw`` (text bytes with no control character other
    than blanks and line ends, as :class:`~inexeval.formats.source.Source` checks) start and
    end, and which bytes are not blank."""
    solid = raw > 32
    edges = np.flatnonzero(solid[1:] != solid[:-1]) + 1
    if len(raw) and solid[0]:
        edges = np.concatenate(([0], edges))
    return solid, edges[0::2], edges[1::2]


class Table:
    """The fields of a block's non-blank lines, each of which must have ``width`` fields
    (``error`` otherwise, e.g. :class:`~inexeval.errors.RunError` for a run).

    ``starts[row, column]``/``ends[row, column]`` bound each field in the block; a column
    (``starts[:, k]``) is a contiguous array, made when first asked for."""

    def __init__(self, block: bytes, first: int, name: str, width: int, expected: str,
                 error: type[InexevalError] = FormatError) -> None:
        self.block = block
        self.name = name
        self.width = width
        raw = np.frombuffer(block, dtype=np.uint8)
        self.raw = raw
        simple = _single_spaced(raw, width)
        if simple is not None:
            starts, ends = simple
            self.numbers = np.arange(first, first + ends.shape[1], dtype=np.int64)
        else:
            flat_starts, flat_ends, self.numbers = _general_fields(
                raw, block, first, name, width, expected, error)
            starts, ends = _by_column(flat_starts, width), _by_column(flat_ends, width)
        self.starts = _Columns(starts)
        self.ends = _Columns(ends)
        self._words: npt.NDArray[np.uint64] | None = None

    def __len__(self) -> int:
        return len(self.numbers)

    def words(self, ends: npt.NDArray[np.intp]) -> npt.NDArray[np.uint64]:
        """The 8 bytes before each of ``ends`` as a big-endian integer (zero bytes before the
        block's start): with :data:`BYTE_MASKS`, a field of up to 8 bytes as one number."""
        return self._word_view()[ends].astype(np.uint64)

    def keys(self, column: int) -> npt.NDArray[np.uint64] | None:
        """Each field of the column as one number, equal fields equal numbers (the bytes, as a
        big-endian integer), if every field has at most 8 bytes; else None."""
        starts, ends = self.starts[:, column], self.ends[:, column]
        widths = ends - starts
        if int(widths.max(initial=0)) > 8:
            return None
        keys: npt.NDArray[np.uint64] = self.words(ends) & BYTE_MASKS[widths]
        return keys

    def field(self, row: int, column: int) -> bytes:
        return self.block[int(self.starts[row, column]):int(self.ends[row, column])]

    def fail(self, row: int, column: int, problem: str) -> FormatError:
        """The error for field ``column`` of line ``row``: ``problem`` follows the field."""
        return FormatError(f"{shown(self.field(row, column))} {problem}", self.name,
                           int(self.numbers[row]))

    def padded(self, column: int, limit: int, what: str) -> npt.NDArray[np.uint8]:
        """The column as a matrix of bytes, one row per line, zero-padded (fields of at most
        ``limit`` bytes)."""
        too_long = (self.ends[:, column] - self.starts[:, column]) > limit
        if too_long.any():
            raise self.fail(int(np.argmax(too_long)), column,
                            f"is too long for a {what} (at most {limit} characters)")
        return self.padded_rows(column)

    def integers(self, column: int, what: str,
                 skip: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.int64]:
        """The column as integers (rows in ``skip`` are not read and give 0)."""
        starts, ends = self.starts[:, column], self.ends[:, column]
        if skip is not None:
            starts = np.where(skip, ends, starts)
        widths = ends - starts
        if int(widths.max(initial=0)) <= 8:
            values, digits = eight_digits(self.words(ends), widths)
            if bool(digits.all()):
                return values
        read = integer_values(self.raw, starts, ends)
        if read is not None:
            return read
        values = np.zeros(len(self), dtype=np.int64)
        rows = np.ones(len(self), dtype=bool) if skip is None else ~skip
        for row in np.flatnonzero(rows).tolist():
            field = self.field(row, column)
            if not _INTEGER.fullmatch(field):
                raise self.fail(row, column, f"is not an integer ({what})")
            if len(field.lstrip(b"+-")) > MAX_DIGITS:
                raise self.fail(row, column,
                                f"is too large for a {what} (more than {MAX_DIGITS} digits)")
            values[row] = int(field)
        return values

    def ranks_and_scores(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64],
                                        npt.NDArray[np.bool_]]:
        """Fields 4 and 5 of a run line (``topic Q0 doc rank score ...``): the ranks
        (:meth:`ranks`), the scores and the rows whose score is not a finite number."""
        scores, unread = self.floats(4)
        return self.ranks(), scores, unread | ~np.isfinite(scores)

    def ranks(self) -> npt.NDArray[np.int64]:
        """Field 4 of a run line: non-negative integers (an error otherwise)."""
        ranks = self.integers(3, "rank")
        if (ranks < 0).any():
            raise self.fail(int(np.argmax(ranks < 0)), 3, "is a negative rank")
        return ranks

    def floats(self, column: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """The column as floats, exactly as ``float()`` reads them, and which rows are not
        numbers (NaN there; underscores and hexadecimal are not numbers here)."""
        return decimal_values(self.raw, self._word_view(), self.starts[:, column],
                              self.ends[:, column])

    def printed_scores(self, column: int) -> PrintedScores:
        """The column as :class:`PrintedScores` (read on first use): a field of a common
        printed form is finite for sure (:func:`surely_finite`), any other is read now, and one
        that is no finite number (``abc``, ``nan``, ``inf``) is an error naming file and
        line."""
        starts, ends = self.starts[:, column], self.ends[:, column]
        words = self._word_view()
        records = np.empty((len(self), 2), dtype=np.uint64)
        records[:, 0] = words[np.maximum(ends - 8, 0)]
        records[:, 1] = words[ends]
        widths = ends - starts
        first = self.raw[np.minimum(starts, len(self.raw) - 1)]
        signed = (first == 43) | (first == 45)
        unsure = np.flatnonzero(~surely_finite(records[:, 0], records[:, 1], widths, signed))
        if len(unsure) == 0:
            return PrintedScores(records, widths.astype(np.uint8))
        values, not_numbers = decimal_values(self.raw, words, starts[unsure], ends[unsure])
        wrong = not_numbers | ~np.isfinite(values)
        if wrong.any():
            raise self.fail(int(unsure[np.argmax(wrong)]), column,
                            "is not a finite number (a score)")
        long = unsure[widths[unsure] > PrintedScores.WIDEST]
        if len(long):  # the value itself is kept, in place of the printed bytes
            kept = values[widths[unsure] > PrintedScores.WIDEST]
            records[long, 1] = kept.view(np.uint64)
        widths = np.minimum(widths, PrintedScores.LONG)
        return PrintedScores(records, widths.astype(np.uint8))

    def little_words(self) -> npt.NDArray[np.uint64]:
        """:func:`little_word_view` of the block, sharing the copy :meth:`words` reads."""
        return self._word_view().view("<u8")

    def _word_view(self) -> npt.NDArray[np.uint64]:
        if self._words is None:
            self._words = word_view(self.block)
        return self._words

    def padded_rows(self, column: int,
                    rows: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.uint8]:
        """The column as a zero-padded byte matrix, only ``rows`` filled (default all)."""
        starts = self.starts[:, column]
        ends = self.ends[:, column] if rows is None else np.where(rows, self.ends[:, column],
                                                                   starts)
        widest = int((ends - starts).max(initial=0))
        index = starts[:, None] + np.arange(widest)
        matrix = self.raw[np.minimum(index, len(self.raw) - 1)]
        matrix[index >= ends[:, None]] = 0
        return np.asarray(matrix, dtype=np.uint8)

    def joined(self, column: int, separator: int,
               rows: npt.NDArray[np.bool_] | npt.NDArray[np.intp] | None = None) -> bytes:
        """The column's fields (of ``rows``, a mask or row numbers; default all), each followed
        by ``separator`` (one gather, no object per field)."""
        starts, ends = self.starts[:, column], self.ends[:, column]
        if rows is not None:
            starts, ends = starts[rows], ends[rows]
        return gathered(self.raw, starts, ends, separator)

    def texts(self, column: int) -> list[str]:
        """The column as strings (the block is UTF-8 already)."""
        return self.joined(column, 10).decode("utf-8").split("\n")[:-1]


def gathered(raw: npt.NDArray[np.uint8], starts: npt.NDArray[np.intp],
             ends: npt.NDArray[np.intp], separator: int) -> bytes:
    """The fields ``raw[starts:ends]``, each followed by ``separator``, in one gather (no
    object per field)."""
    sizes = ends - starts + 1
    places = np.cumsum(sizes) - sizes
    index = np.arange(int(sizes.sum())) - np.repeat(places - starts, sizes)
    out = raw[index]
    out[places + sizes - 1] = separator
    return bytes(out.tobytes())


_POWERS = 10 ** np.arange(MAX_DIGITS + 1, dtype=np.int64)


def word_view(block: bytes) -> npt.NDArray[np.uint64]:
    """``view[i]``: the 8 bytes of ``block`` before position ``i`` as a big-endian integer
    (zero bytes before the start); one array over the block, no copy per field."""
    return np.ndarray((len(block) + 1,), dtype=">u8", buffer=bytes(8) + block, strides=(1,))


def little_word_view(block: bytes) -> npt.NDArray[np.uint64]:
    """:func:`word_view` read as little-endian integers: ``view[i]``'s lowest byte is the first
    of the 8 bytes before position ``i`` (the bytes in memory order, as an ``S`` array holds
    them)."""
    return word_view(block).view("<u8")


BYTE_MASKS = np.array([(1 << (8 * w)) - 1 for w in range(9)], dtype=np.uint64)
"""``BYTE_MASKS[w]``: the last ``w`` bytes of a 64-bit word."""
_ZEROS = np.uint64(0x3030303030303030)
_HIGH = np.uint64(0xF0F0F0F0F0F0F0F0)
_SIX = np.uint64(0x0606060606060606)


def eight_digits(words: npt.NDArray[np.uint64], widths: npt.NDArray[np.intp]) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Fields of 0 to 8 ASCII digits (the last ``widths`` bytes of ``words``, see
    :meth:`Table.words`) as integers, and which fields are only digits (an empty field is 0).

    Eight digits at a time in a 64-bit word ("SIMD within a register"): the field is padded on
    the left with ``0`` characters, each byte checked to be a digit, then pairs, quadruples and
    octets of digits combined with three multiplications."""
    mask = BYTE_MASKS[widths]
    x = (words & mask) | (_ZEROS & ~mask)
    digits = ((x & _HIGH) == _ZEROS) & (((x + _SIX) & _HIGH) == _ZEROS)
    d = x - _ZEROS
    d = ((d >> np.uint64(8)) * np.uint64(10) + d) & np.uint64(0x00FF00FF00FF00FF)
    d = ((d >> np.uint64(16)) * np.uint64(100) + d) & np.uint64(0x0000FFFF0000FFFF)
    d = ((d >> np.uint64(32)) * np.uint64(10000) + d) & np.uint64(0xFFFFFFFF)
    return d.astype(np.int64), digits


_POINTS = np.uint64(0x2E2E2E2E2E2E2E2E)
_LOW_SEVEN = np.uint64(0x7F7F7F7F7F7F7F7F)
HIGH_BITS = np.uint64(0x8080808080808080)
"""The high bit of every byte of a word (set in a byte of UTF-8 text only outside ASCII)."""
_PLACES = np.uint64(0x0001020304050607)
"""Times the lowest bit of byte ``k`` of a word (counted from the right): ``k`` in the top
byte."""
_TENS = np.array([float(10 ** k) for k in range(23)], dtype=np.float64)
"""The powers of ten that a double holds exactly."""


def _points(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """The high bit of each byte of ``words`` that is ``.`` (exact: no carry between bytes)."""
    other = words ^ _POINTS
    found: npt.NDArray[np.uint64] = ~(((other & _LOW_SEVEN) + _LOW_SEVEN) | other) & HIGH_BITS
    return found


def _place(found: npt.NDArray[np.uint64]) -> npt.NDArray[np.intp]:
    """The byte (counted from the right) of the one high bit of each nonzero word."""
    place = ((found >> np.uint64(7)) * _PLACES) >> np.uint64(56)
    return place.astype(np.intp)


def short_decimals(raw: npt.NDArray[np.uint8], words: npt.NDArray[np.uint64],
                   starts: npt.NDArray[np.intp], ends: npt.NDArray[np.intp]) -> tuple[
                       npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The decimals written in ``raw[starts:ends]`` (``words`` is :func:`word_view` of
    ``raw``) in the forms programs print scores: an optional sign, at most 8 digits, an optional
    point and more digits (at most 15 digits in all, at least one), then optionally ``e`` or ``E``,
    a sign and two digits (``-1.807495e-05``, ``12.345``, ``7``); and which fields are in such a
    form (0 elsewhere: the caller reads those another way).

    The same double as ``float()``: the digits make an integer below 2^53 and the power of ten
    is at most 10^22, both exact in a double, so one multiplication or division rounds the
    exact value correctly (Clinger's fast path, as every correctly rounded strtod takes it)."""
    n = len(starts)
    if n == 0 or len(raw) == 0:
        return np.zeros(n, dtype=np.float64), np.zeros(n, dtype=bool)
    last = len(raw) - 1
    first = raw[np.minimum(starts, last)]
    negative = first == 45
    body = starts + (negative | (first == 43))
    mark, sign = raw[np.maximum(ends - 4, 0)], raw[np.maximum(ends - 3, 0)]
    tens, units = raw[np.maximum(ends - 2, 0)] - np.uint8(48), raw[ends - 1] - np.uint8(48)
    scaled = (((ends - body) >= 5) & ((mark | np.uint8(32)) == 101)
              & ((sign == 45) | (sign == 43)) & (tens <= 9) & (units <= 9))
    exponent = np.where(scaled, tens.astype(np.int64) * 10 + units, 0)
    exponent[sign == 45] *= -1
    mantissa_end = np.where(scaled, ends - 4, ends)
    # the point among the mantissa's last 16 bytes: a high bit in each byte that is "."
    length = mantissa_end - body
    tail = words[mantissa_end].astype(np.uint64)
    head = words[np.maximum(mantissa_end - 8, 0)].astype(np.uint64)
    in_tail = _points(tail) & BYTE_MASKS[np.minimum(length, 8)]
    in_head = _points(head) & BYTE_MASKS[np.clip(length - 8, 0, 8)]
    single = (((in_tail & (in_tail - np.uint64(1))) == 0)
              & ((in_head & (in_head - np.uint64(1))) == 0) & ((in_tail == 0) | (in_head == 0)))
    point = np.where(in_tail != 0, mantissa_end - 1 - _place(in_tail),
                     np.where(in_head != 0, mantissa_end - 9 - _place(in_head), mantissa_end))
    point = np.where(single, point, mantissa_end)
    whole = point - body
    fraction = np.maximum(mantissa_end - point - 1, 0)
    read = single & (whole <= 8) & (whole + fraction >= 1) & (whole + fraction <= 15)
    whole = np.clip(whole, 0, 8)
    fraction = np.where(read, fraction, 0)
    whole_value, whole_digits = eight_digits(words[point].astype(np.uint64), whole)
    low, low_digits = eight_digits(tail, np.minimum(fraction, 8))
    high, high_digits = eight_digits(head, np.clip(fraction - 8, 0, 8))
    read &= whole_digits & low_digits & high_digits
    power = exponent - fraction
    read &= np.abs(power) <= 22
    digits = (whole_value * _POWERS[fraction] + high * _POWERS[8] + low).astype(np.float64)
    power = np.where(read, power, 0)
    values = np.where(power >= 0, digits * _TENS[np.maximum(power, 0)],
                      digits / _TENS[np.maximum(-power, 0)])
    values[negative] *= -1
    values[~read] = 0
    return values, read


def plain_decimals(raw: npt.NDArray[np.uint8], words: npt.NDArray[np.uint64],
                   starts: npt.NDArray[np.intp], ends: npt.NDArray[np.intp]) -> tuple[
                       npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The decimals without exponent written in ``raw[starts:ends]`` (``words`` is
    :func:`word_view` of ``raw``): an optional sign, then at most 16 bytes of digits with at
    most one point (``-0.3721``, ``12.345678``, ``7``, ``.5``), at most 15 digits; and which
    fields are in such a form (0 elsewhere: :func:`short_decimals` reads the others).

    The fewest operations for the commonest scores: the bytes after the sign are two words, the
    point is found and taken out of its word by shifts, each word's digits are read by
    :func:`eight_digits`; the integer they make (below 10^15, exact in a double) divided by the
    power of ten of the fraction (exact too) is the correctly rounded value ``float()`` gives."""
    n = len(starts)
    if n == 0 or len(raw) == 0:
        return np.zeros(n, dtype=np.float64), np.zeros(n, dtype=bool)
    first = raw[np.minimum(starts, len(raw) - 1)]
    negative = first == 45
    body = ends - starts - (negative | (first == 43))
    low_size = np.clip(body, 0, 8)
    low = words[ends].astype(np.uint64) & BYTE_MASKS[low_size]
    low, low_count, low_after, low_point = _without_point(low, low_size)
    value, read = eight_digits(low, low_count)
    count = low_count
    if int(body.max()) > 8:
        high_size = np.clip(body - 8, 0, 8)
        high = words[np.maximum(ends - 8, 0)].astype(np.uint64) & BYTE_MASKS[high_size]
        high, high_count, high_after, high_point = _without_point(high, high_size)
        high_value, high_digits = eight_digits(high, high_count)
        read &= high_digits & (body <= 16) & (high_point >= 0) & ((low_point + high_point) <= 1)
        low_after += np.maximum(high_point, 0) * (high_after + 8)
        count = low_count + high_count
        value = high_value * _POWERS[low_count] + value
    read &= (count >= 1) & (count <= 15) & (low_point >= 0)
    values = value.astype(np.float64) / _TENS[low_after]
    values *= 1.0 - 2.0 * negative
    values[~read] = 0
    return values, read


def _without_point(word: npt.NDArray[np.uint64], size: npt.NDArray[np.intp]) -> tuple[
        npt.NDArray[np.uint64], npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """A word of ``size`` bytes without its point (the bytes before it moved one place right),
    the bytes left, those after the point (0 without one) and the number of points: 0, 1, or
    -1 for more than one (the field is then no number of this form)."""
    found = _points(word)
    has = (found != 0).astype(np.intp)
    after = np.minimum(_place(found), 7)  # (more than one point: no number of this form)
    shift = (8 * after).astype(np.uint64)
    kept = (word >> (shift + (8 * has).astype(np.uint64))) << shift | (word & BYTE_MASKS[after])
    has[(found & (found - np.uint64(1))) != 0] = -1
    return kept, size - (has != 0), after, has


def decimal_values(raw: npt.NDArray[np.uint8], words: npt.NDArray[np.uint64],
                   starts: npt.NDArray[np.intp], ends: npt.NDArray[np.intp]) -> tuple[
                       npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The decimals written in ``raw[starts:ends]`` (``words`` is :func:`word_view` of
    ``raw``), exactly as ``float()`` reads them, and which fields are not numbers (NaN there;
    underscores and hexadecimal are not numbers here)."""
    values, read = plain_decimals(raw, words, starts, ends)
    unread = np.zeros(len(starts), dtype=bool)
    if bool(read.all()):
        return values, unread
    others = np.flatnonzero(~read)
    values[others], read[others] = short_decimals(raw, words, starts[others], ends[others])
    if bool(read.all()):
        return values, unread
    rest = ~read
    text = gathered(raw, starts[rest], ends[rest], ord(" "))
    if b"_" not in text and b"x" not in text and b"X" not in text:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                others = np.fromstring(text, dtype=np.float64, sep=" ")
            if len(others) == int(rest.sum()):
                values[rest] = others
                return values, unread
        except ValueError:
            pass
    parsed = [_float(v) for v in text.split()]
    unread[rest] = [v is None for v in parsed]
    values[rest] = [math.nan if v is None else v for v in parsed]
    return values, unread


_DIGIT_GAP = np.uint64(0x7676767676767676)


def _non_digits(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """The high bit of each byte of ``words`` that is not an ASCII digit (exact: no carry
    between bytes)."""
    other = words ^ _ZEROS
    found: npt.NDArray[np.uint64] = (((other & _LOW_SEVEN) + _DIGIT_GAP) | other) & HIGH_BITS
    return found


_EXPONENT = np.uint64(0xFFFF0000)
_EXPONENT_MARKS = (np.uint64(0x652B0000), np.uint64(0x652D0000))  # "e+", "e-"
_LOWER = np.uint64(0x20000000)


def surely_finite(head: npt.NDArray[np.uint64], tail: npt.NDArray[np.uint64],
                  widths: npt.NDArray[np.intp], signed: npt.NDArray[np.bool_]
                  ) -> npt.NDArray[np.bool_]:
    """Which fields (their last 16 bytes as two big-endian words ``head`` and ``tail``, their
    ``widths``, whether they start with a sign) are for sure finite numbers as ``float()``
    reads them: at most 16 bytes, an optional sign, digits with at most one point (at least one
    digit), then optionally ``e`` or ``E``, a sign and two digits (below 10^16 times 10^99).
    False says nothing: the field is to be read."""
    body = widths - signed  # the bytes after the sign, counted from the end
    tail_others = _non_digits(tail)
    marks = (tail | _LOWER) & _EXPONENT
    scaled = ((body >= 5) & ((marks == _EXPONENT_MARKS[0]) | (marks == _EXPONENT_MARKS[1]))
              & ((tail_others & np.uint64(0x8080)) == 0))
    exponent = scaled * 4
    in_tail = BYTE_MASKS[np.minimum(body, 8)] & ~BYTE_MASKS[exponent]
    in_head = BYTE_MASKS[np.clip(body - 8, 0, 8)]
    tail_points, head_points = _points(tail) & in_tail, _points(head) & in_head
    # at most one point in all, and at least one digit
    points = np.bitwise_count(tail_points) + np.bitwise_count(head_points)
    sure: npt.NDArray[np.bool_] = ((widths <= 16) & ((tail_others & in_tail) == tail_points)
            & ((_non_digits(head) & in_head) == head_points)
            & (points <= 1) & (body - exponent - points >= 1))
    return sure


class PrintedScores:
    """Scores as printed, read as floats on first use (:data:`inexeval.model.run.Scores`): the
    last 16 bytes of each field (two words read big-endian, the field at their end) and its
    width; a wider field's value is read at once and kept in the second word (width :attr:`LONG`).
    Rows are cut with ``[]`` and blocks joined with :meth:`joined`, like arrays."""

    WIDEST = 16
    LONG = 255

    def __init__(self, records: npt.NDArray[np.uint64], widths: npt.NDArray[np.uint8]) -> None:
        self.records = records
        self.widths = widths

    def __len__(self) -> int:
        return len(self.widths)

    def __getitem__(self, rows: Any) -> PrintedScores:
        return PrintedScores(self.records[rows], self.widths[rows])

    @staticmethod
    def joined(parts: list[PrintedScores]) -> PrintedScores:
        if len(parts) == 1:
            return parts[0]
        return PrintedScores(np.concatenate([p.records for p in parts]),
                             np.concatenate([p.widths for p in parts]))

    def __call__(self) -> npt.NDArray[np.float64]:
        """The scores, NaN where not a finite number (the reader warned of them)."""
        n = len(self)
        text = self.records.astype(">u8").tobytes() + b" "  # a byte after the last field
        raw = np.frombuffer(text, dtype=np.uint8)
        long = self.widths > self.WIDEST
        ends = np.arange(1, n + 1, dtype=np.intp) * 16
        starts = ends - self.widths
        values = np.empty(n, dtype=np.float64)
        short = ~long
        read, unread = decimal_values(raw, word_view(text), starts[short], ends[short])
        read[unread | ~np.isfinite(read)] = math.nan
        values[short] = read
        values[long] = self.records[long, 1].view(np.float64)
        return values


def integer_values(raw: npt.NDArray[np.uint8], starts: npt.NDArray[np.intp],
                   ends: npt.NDArray[np.intp]) -> npt.NDArray[np.int64] | None:
    """The integers written in ``raw[starts:ends]`` (an optional sign, then 1 to
    :data:`MAX_DIGITS` ASCII digits; an empty field, ``starts == ends``, gives 0), read at once
    as a matrix of digits (one row per digit place, so that every operation runs along the
    fields); None if any field is not such an integer (the caller finds which)."""
    n = len(starts)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    empty = starts == ends
    first = raw[np.minimum(starts, len(raw) - 1)]
    signed = ((first == 45) | (first == 43)) & ~empty
    widths = ends - starts - signed
    if not bool(((widths >= 1) | empty).all()):
        return None
    widest = int(widths.max())
    if widest > MAX_DIGITS:
        return None
    values = np.zeros(n, dtype=np.int64)
    for place in range(1, widest + 1):
        # the digit ``place`` characters before the end (0 where the field is shorter)
        digit = raw[np.maximum(ends - place, 0)] - np.uint8(48)
        inside = widths >= place
        if not bool(((digit <= 9) | ~inside).all()):
            return None
        values += np.where(inside, digit, np.uint8(0)) * _POWERS[place - 1]
    negative = signed & (first == 45)
    values[negative] = -values[negative]
    return values


class _Columns:
    """``table.starts`` or ``table.ends``: ``[:, k]`` is column ``k`` (contiguous), ``[row, k]``
    one bound; held column by column (``by_column[k]``), so that a column is no copy."""

    def __init__(self, by_column: npt.NDArray[np.intp]) -> None:
        self.by_column = by_column

    def __getitem__(self, key: tuple[int | slice, int]) -> Any:
        row, column = key
        if isinstance(row, slice) and row != slice(None):
            raise TypeError("a column is read whole")
        return self.by_column[column, row]


def _by_column(flat: npt.NDArray[np.intp], width: int) -> npt.NDArray[np.intp]:
    """Bounds given row after row, as a matrix of one contiguous row per column."""
    return np.ascontiguousarray(flat.reshape(-1, width).T)


def _single_spaced(raw: npt.NDArray[np.uint8],
                   width: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] | None:
    """Field bounds (by column, as :func:`_by_column`) of the common layout, found with one
    search for blanks: every line holds ``width`` fields separated by one blank, no blank line,
    no leading or trailing blank; None otherwise (the general reading then finds the fields, or
    the error)."""
    blanks = np.flatnonzero(raw <= 32)
    if len(blanks) == 0 or len(blanks) % width or raw[0] <= 32:
        return None
    ends = _by_column(blanks, width)
    if not bool((raw[ends[-1]] == 10).all()) or np.count_nonzero(raw == 10) != ends.shape[1]:
        return None
    starts = np.empty_like(ends)
    np.add(ends[:-1], 1, out=starts[1:])
    starts[0, 0] = 0
    np.add(ends[-1, :-1], 1, out=starts[0, 1:])
    if bool((starts == ends).any()):  # two blanks in a row: an empty field
        return None
    return starts, ends


def _general_fields(raw: npt.NDArray[np.uint8], block: bytes, first: int, name: str, width: int,
                    expected: str, error: type[InexevalError]) -> tuple[
                        npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """Field bounds (flat, row after row) and line numbers of any block, or ``error`` naming
    the first line that has not ``width`` fields or starts with blank space."""
    solid, starts, ends = field_bounds(raw)
    newlines = np.flatnonzero(raw == 10)
    heads = np.concatenate(([0], newlines[:-1] + 1))
    counts = np.diff(np.searchsorted(starts, newlines), prepend=0)
    indented = solid[heads]
    indented = ~indented & (raw[heads] != 10) & (counts > 0)
    bad = np.flatnonzero(((counts != width) & (counts > 0)) | indented)
    if len(bad):
        line = int(bad[0])
        text = block[heads[line]:newlines[line]]
        if indented[line]:
            problem = "the line starts with blank space (an empty first field)"
        else:
            problem = ("too many fields" if counts[line] > width else "fields missing") + (
                f": {int(counts[line])} fields where {width} are expected")
        raise error(f"{problem} ({expected}): {shown(text.strip())}", name, first + line)
    kept = np.flatnonzero(counts)
    return starts, ends, (kept + first).astype(np.int64)


def _float(value: bytes) -> float | None:
    try:
        return None if b"_" in value or b"x" in value.lower() else float(value)
    except ValueError:
        return None
