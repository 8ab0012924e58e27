"""The one input layer: every file inexeval reads is opened, decompressed and decoded here.

:func:`open_source` opens a path, ``-`` (standard input) or a named pipe / process substitution
(``<(zcat run.gz)``) and gives a :class:`Source`:

* gzip, bzip2 and xz data are recognised by their magic bytes (not by the file name) and read
  transparently; damaged or truncated compressed data is a :class:`FormatError`;
* devices other than pipes (``/dev/zero``, a terminal) and folders are refused; a named pipe
  that gets no writer within :data:`WRITER_WAIT` seconds is an error instead of a hang;
* :meth:`Source.head` shows the first bytes without consuming them, so that format detection
  looks at the same stream the reader then reads once;
* text is read in blocks of whole lines (:meth:`Source.blocks`, for the column-wise readers) or
  line by line (:meth:`Source.lines`): line ends LF, CR or CRLF become LF, a UTF-8 byte-order
  mark is dropped, text that is not UTF-8 is an error naming the line, and a line longer than
  :data:`LINE_LIMIT` bytes is an error naming its number (an endless file is never read into
  memory);
* XML readers get the decompressed bytes through :meth:`Source.read`.

Every error names the file (``-`` for standard input) and, for text, the line.
"""

from __future__ import annotations

import bz2
import contextlib
import fcntl
import gzip
import io
import lzma
import os
import stat
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO

from inexeval.errors import FormatError, InexevalError

LINE_LIMIT = 1 << 20
"""Longest line accepted (bytes); a longer one is an error naming the line."""

BLOCK = 4 << 20
"""Bytes read at a time by :meth:`Source.blocks` (whole lines are kept together)."""

PART_LINES = 1 << 16
"""Lines a run reader reads before it gives out the topics read so far as one part of the run
(:func:`inexeval.formats.fol.read_fol_run_parts`,
:func:`inexeval.formats.trec.read_trec_run_parts`)."""


class TopicResumed(Exception):
    """Raised by a reader of run parts when a topic resumes after lines of other topics where
    the parts could not group it: the run must be read whole."""


WRITER_WAIT = 10.0
"""Seconds a named pipe may stay without a writer before reading it is an error."""

BOM = b"\xef\xbb\xbf"

_COMPRESSIONS: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))

_DAMAGED = (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError)


class Source:
    """An opened input (see the module documentation); use as a context manager."""

    def __init__(self, path: str | Path) -> None:
        self.name = str(path)
        self.compression = ""
        raw, owned = _open_raw(path)
        self._owned = raw if owned else None
        start = _read_at_least(raw, 6, self.name)
        self._stream: IO[bytes] = _Prefixed(start, raw)  # type: ignore[assignment]
        for magic, kind in _COMPRESSIONS:
            if start.startswith(magic):
                self.compression = kind
                self._stream = _decompressed(kind, self._stream)
        self._pending = b""

    def __enter__(self) -> Source:  # noqa: PYI034 (Source is final)
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._owned is not None:
            with contextlib.suppress(OSError):
                self._owned.close()
            self._owned = None

    def _read(self, size: int) -> bytes:
        try:
            return self._stream.read(size)
        except _DAMAGED as error:
            what = f"damaged {self.compression} data" if self.compression else "cannot read"
            reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
            raise FormatError(f"{what}: {reason[:80]}", self.name) from None

    def head(self, size: int = 1 << 16) -> bytes:
        """The first ``size`` bytes (fewer at the end of the data), not consumed."""
        while len(self._pending) < size:
            more = self._read(size - len(self._pending))
            if not more:
                break
            self._pending += more
        return self._pending[:size]

    def read(self, size: int = -1) -> bytes:
        """Decompressed bytes, as a binary file's ``read`` (for the XML parser)."""
        if self._pending:
            if size < 0 or size >= len(self._pending):
                # what the format detection looked at, and the rest of the block after it
                taken, self._pending = self._pending, b""
                if size < 0:
                    return taken + b"".join(iter(lambda: self._read(BLOCK), b""))
                return taken + (self._read(size - len(taken)) if size > len(taken) else b"")
            taken, self._pending = self._pending[:size], self._pending[size:]
            return taken
        if size < 0:
            return b"".join(iter(lambda: self._read(BLOCK), b""))
        return self._read(size)

    def blocks(self, size: int | None = None, utf8: bool = True) -> Iterator[tuple[int, bytes]]:
        """``(number of the block's first line, whole lines)``: each block ends with LF, every
        line end is LF, the BOM is dropped and the text is checked to be UTF-8 (unless ``utf8``
        is False, for a format of another encoding). Blocks are about ``size`` bytes
        (:data:`BLOCK` by default)."""
        size = size or BLOCK
        carry = b""
        uncounted = 0
        first = 1
        at_start = True
        while True:
            chunk = self.read(size)
            data = carry + chunk
            if at_start and data:
                if len(data) < len(BOM) and chunk:
                    carry = data
                    continue
                data = data.removeprefix(BOM)
                at_start = False
            if not data:
                return
            first += uncounted
            uncounted = 0
            if chunk:
                # a final CR stays back: it may be the first half of a CRLF
                end = len(data) - 1 if data.endswith(b"\r") else len(data)
                line_feed = data.rfind(b"\n", 0, end)
                cut = max(line_feed, data.rfind(b"\r", line_feed + 1, end)) + 1
            else:
                cut = len(data)
            block, carry = data[:cut], data[cut:]
            if len(carry) > LINE_LIMIT:
                raise FormatError(f"line longer than {LINE_LIMIT} bytes",
                                  self.name, first + _count_lines(_normalised(block)))
            if block:
                block = _normalised(block)
                if not block.endswith(b"\n"):
                    block += b"\n"
                lines = _check_block(block, first, self.name, utf8)
                yield first, block
                uncounted = lines  # counted only if more lines follow
            if not chunk and not carry:
                return

    def lines(self, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
        """``(line number, text)`` of every non-blank line, trailing blanks removed; text of
        another ASCII-compatible ``encoding`` (the TREC Genomics gold standard is Latin-1) is not
        checked to be UTF-8."""
        for first, block in self.blocks(utf8=encoding == "utf-8"):
            for number, text in enumerate(block.decode(encoding).split("\n")[:-1], first):
                text = text.rstrip()
                if text:
                    yield number, text


def fields_of(path: str | Path, width: int, layout: str, comments: bool = True
              ) -> Iterator[tuple[str, int, list[str]]]:
    """``(file name, line number, fields)`` of each line of a small text file read as
    trec_eval reads its side files (z-scores, preferences, judgement groups): fields split on
    white space, blank lines skipped and, with ``comments``, lines starting ``#``; a line of
    another number of fields than ``width`` is an error naming the ``layout``."""
    with opened(path) as source:
        for number, text in source.lines():
            if comments and text.startswith("#"):
                continue
            fields = text.split()
            if len(fields) != width:
                raise FormatError(f"expected {width} fields ({layout}), found {len(fields)}",
                                  source.name, number)
            yield source.name, number, fields


def open_source(path: str | Path | Source) -> Source:
    """A :class:`Source` for ``path`` (``-`` is standard input); a Source is returned as is,
    still owned by whoever opened it."""
    if isinstance(path, Source):
        return path
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"a file name is a str or a path, not {type(path).__name__}")
    return Source(path)


@contextlib.contextmanager
def opened(path: str | Path | Source) -> Iterator[Source]:
    """:func:`open_source` as a context manager that closes only what it opened."""
    source = open_source(path)
    try:
        yield source
    finally:
        if source is not path:
            source.close()


def first_fields(source: Source, comments: bool = False) -> tuple[int, list[str]]:
    """The number and the fields of the first non-blank line, from :meth:`Source.head`;
    ``comments``: the first that is no ``#`` comment line either (trec_eval's)."""
    size = 1 << 16
    while True:
        head = source.head(size)
        complete = len(head) < size
        text = _normalised(head.removeprefix(BOM))
        number = 1
        for line in text.split(b"\n")[:None if complete else -1]:
            if line.strip() and not (comments and line.lstrip().startswith(b"#")):
                try:
                    return number, line.decode("utf-8").split()
                except UnicodeDecodeError as error:
                    raise FormatError(f"text is not UTF-8 ({error.reason} at byte {error.start} "
                                      "of the line)", source.name, number) from None
            number += 1
        if complete:
            raise FormatError("the file is empty", source.name)
        if size > LINE_LIMIT:
            raise FormatError(f"line longer than {LINE_LIMIT} bytes", source.name, number)
        size *= 4


def is_xml(source: Source) -> bool:
    """Whether the data starts (after a BOM and blanks) like an XML document."""
    head = source.head(512).lstrip(BOM + b" \t\r\n")
    return head.startswith((b"<", b"\xff\xfe", b"\xfe\xff"))


def _normalised(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


def _count_lines(block: bytes) -> int:
    return block.count(b"\n")


_NOT_CONTROL = bytes(b for b in range(256) if not (b < 9 or 13 < b < 32))
"""Every byte but the control characters (the six blanks are not control characters here)."""


def _check_block(block: bytes, first: int, name: str, utf8: bool = True) -> int:
    """UTF-8, no control character but the six blanks, and line length of a block of
    LF-terminated lines; its number of lines."""
    import numpy as np

    raw = np.frombuffer(block, dtype=np.uint8)
    # most text has no byte below 32 but LF: counted with numpy, faster than a translation
    lines = int(np.count_nonzero(raw == 10))
    only_line_feeds = np.count_nonzero(raw < 32) == lines
    if not only_line_feeds and block.translate(None, _NOT_CONTROL):
        control = (raw < 9) | ((raw > 13) & (raw < 32))
        at = int(np.argmax(control))
        raise FormatError(f"control character 0x{int(raw[at]):02x}: binary data, not text",
                          name, first + block.count(b"\n", 0, at))
    if utf8 and not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError as error:
            raise FormatError(f"text is not UTF-8 ({error.reason})", name,
                              first + block.count(b"\n", 0, error.start)) from None
    # a line longer than LINE_LIMIT: from each line start, the last line end within reach
    # (one backward search per LINE_LIMIT bytes, not a look at every line)
    start = 0
    while len(block) - start > LINE_LIMIT + 1:
        end = block.rfind(b"\n", start, start + LINE_LIMIT + 1)
        if end < 0:
            raise FormatError(f"line longer than {LINE_LIMIT} bytes", name,
                              first + block.count(b"\n", 0, start))
        start = end + 1
    return lines


class _Prefixed(io.RawIOBase):
    """Bytes already read, then the rest of a binary stream."""

    def __init__(self, prefix: bytes, stream: IO[bytes]) -> None:
        self._prefix = prefix
        self._stream = stream

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        """The prefix, then the stream (no intermediate buffer: blocks are megabytes)."""
        if size is None or size < 0:
            taken, self._prefix = self._prefix, b""
            return taken + self._stream.read()
        taken, self._prefix = self._prefix[:size], self._prefix[size:]
        return taken + self._stream.read(size - len(taken)) if len(taken) < size else taken

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._prefix:
            size = min(len(buffer), len(self._prefix))
            buffer[:size] = self._prefix[:size]
            self._prefix = self._prefix[size:]
            return size
        data = self._stream.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _decompressed(kind: str, stream: IO[bytes]) -> IO[bytes]:
    """The decompressing reader of ``kind`` over ``stream`` (closed with it)."""
    if kind == "gzip":
        return gzip.GzipFile(fileobj=stream)  # type: ignore[return-value]
    if kind == "bzip2":
        return bz2.BZ2File(stream)
    return lzma.LZMAFile(stream)


def _open_raw(path: str | Path) -> tuple[IO[bytes], bool]:
    """The raw binary stream of ``path`` and whether closing it is ours."""
    name = str(path)
    if name == "-":
        stdin = sys.stdin
        if stdin is None:
            raise InexevalError("there is no standard input to read", "-")
        if stdin.isatty():
            raise InexevalError("standard input is a terminal: pipe the file in or name it", "-")
        return stdin.buffer, False
    if name == "":
        raise InexevalError("the file name is empty", "''")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InexevalError("no such file", path) from None
    except OSError as error:
        raise InexevalError(f"cannot read: {error.strerror or error}", path) from None
    if stat.S_ISDIR(mode):
        raise InexevalError("a folder, not a file", path)
    try:
        if stat.S_ISFIFO(mode):
            return _open_pipe(path), True
        if not stat.S_ISREG(mode):
            raise InexevalError("a device, not a file: only files and pipes are read", path)
        return open(path, "rb", buffering=0), True
    except OSError as error:
        raise InexevalError(f"cannot read: {error.strerror or error}", path) from None


def _open_pipe(path: str | Path) -> IO[bytes]:
    """A named pipe, opened without blocking on a missing writer: waits up to
    :data:`WRITER_WAIT` seconds for one (a read returns EOF while there is none)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    deadline = time.monotonic() + WRITER_WAIT
    prefix = b""
    while True:
        try:
            prefix = os.read(fd, 1 << 16)
        except BlockingIOError:
            break  # a writer is connected, it has not written yet
        if prefix:
            break
        if time.monotonic() > deadline:
            os.close(fd)
            raise InexevalError(f"no program writes into this named pipe (waited "
                                f"{WRITER_WAIT:g} s)", path)
        time.sleep(0.02)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return io.BufferedReader(_Prefixed(prefix, io.FileIO(fd, "rb")))


def _read_at_least(stream: IO[bytes], size: int, name: str) -> bytes:
    data = b""
    try:
        while len(data) < size:
            more = stream.read(size - len(data))
            if not more:
                break
            data += more
    except OSError as error:
        raise InexevalError(f"cannot read: {error.strerror or error}", name) from None
    return data
