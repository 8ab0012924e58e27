"""Accumulating the results of a run while a reader streams its file.

Shared by the run readers: results are kept per topic in file order; a duplicated result (same
file and path, or same passage) within a topic is dropped, the first one kept as INEX 2002 did
(spec §1.8), and one warning per run file says how many were dropped and where the first was.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from inexeval.errors import warn
from inexeval.model.run import Run, TopicRun, make_topic_run


class _Columns:
    __slots__ = ("files", "lengths", "lines", "offsets", "paths", "ranks", "rsv", "seen")

    def __init__(self) -> None:
        self.files: list[str] = []
        self.paths: list[str] = []
        self.offsets: list[int] = []
        self.lengths: list[int] = []
        self.ranks: list[int] = []
        self.rsv: list[float] = []
        self.lines: list[int] = []
        self.seen: set[tuple[str, str, int, int]] = set()


class RunBuilder:
    """Collects results topic by topic; :meth:`build` makes the :class:`Run`."""

    def __init__(self, source: str | Path, keep_repeats: bool = False) -> None:
        self.source = str(source)
        self.keep_repeats = keep_repeats
        self.topics: dict[str, _Columns] = {}
        self.duplicates = 0
        self.first_duplicate: int | None = None

    def add(self, topic: str, file: str, line: int, *, path: str = "", offset: int = -1,
            length: int = -1, rank: int = -1, rsv: float = math.nan) -> None:
        columns = self.topics.get(topic)
        if columns is None:
            columns = self.topics[topic] = _Columns()
        key = (file, path, offset, length)
        if key in columns.seen and not self.keep_repeats:
            self.duplicates += 1
            if self.first_duplicate is None:
                self.first_duplicate = line
            return
        columns.seen.add(key)
        columns.files.append(file)
        columns.paths.append(path)
        columns.offsets.append(offset)
        columns.lengths.append(length)
        columns.ranks.append(rank)
        columns.rsv.append(rsv)
        columns.lines.append(line)

    def build(self, name: str, kind: str, meta: dict[str, Any] | None = None) -> Run:
        topics: dict[str, TopicRun] = {
            topic: make_topic_run(topic, c.files, paths=c.paths, offsets=c.offsets,
                                  lengths=c.lengths, ranks=c.ranks, rsv=c.rsv, lines=c.lines)
            for topic, c in self.topics.items()
        }
        return self.finish(name, kind, topics, meta)

    def finish(self, name: str, kind: str, topics: dict[str, TopicRun],
               meta: dict[str, Any] | None = None) -> Run:
        """The run of ``topics``, with the warning about dropped duplicates."""
        self.warn_duplicates()
        return Run(name=name, kind=kind, topics=topics, source=self.source, meta=meta or {})

    def warn_duplicates(self) -> None:
        """The warning about dropped duplicates (of the whole run: once, when it is read)."""
        if self.duplicates:
            warn(f"{self.duplicates} duplicated result(s) ignored, the first occurrence kept",
                 self.source, self.first_duplicate)
