"""Pools: per topic, the units (articles or elements) that assessors judge.

A pool is what ``inexeval pool`` writes and ``inexeval assess init`` reads: for each topic, the
pooled units with the best rank at which any pooled run returned them (``min_ranks``) and the
number of runs that returned them within the pool's depth (``runs``). An article is a unit with
an empty path; an element has its canonical path (``/article[1]/bdy[1]/sec[2]``). Arrays are
parallel and in the order of the pool file (``inexeval pool`` writes them sorted by file, then
path); ``lines`` are the source lines (0 for pools computed in memory).

Pooling procedures: top-K results per run (INEX 2002, Kazai et al. 2004, §3) and round-robin
over the runs until a topic holds N articles (INEX 2006-2010).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt


class PoolUnit(NamedTuple):
    """One pooled unit: its document, element path (empty for an article), best rank and the
    number of runs that returned it within the pool's depth."""

    file: str
    path: str
    min_rank: int
    runs: int


@dataclass(frozen=True, eq=False)
class TopicPool:
    """The pooled units of one topic (see the module docstring)."""

    topic: str
    files: npt.NDArray[np.object_]
    paths: npt.NDArray[np.object_]
    min_ranks: npt.NDArray[np.int64]
    runs: npt.NDArray[np.int64]
    lines: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.files)

    def __iter__(self) -> Iterator[PoolUnit]:
        for file, path, rank, runs in zip(self.files, self.paths, self.min_ranks, self.runs):
            yield PoolUnit(str(file), str(path), int(rank), int(runs))

    @property
    def articles(self) -> list[str]:
        """The distinct documents of the pool, in pool order (first appearance)."""
        return list(dict.fromkeys(str(f) for f in self.files))


@dataclass(frozen=True, eq=False)
class Pool(Mapping[str, TopicPool]):
    """A pool: one :class:`TopicPool` per topic, topics in numeric order where ids are numbers
    (:func:`topic_order`). ``unit`` is ``"article"`` when every unit is a whole article, else
    ``"element"``."""

    topics: Mapping[str, TopicPool]
    source: str | None = None

    def __getitem__(self, topic: str) -> TopicPool:
        return self.topics[topic]

    def __iter__(self) -> Iterator[str]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)

    @property
    def unit(self) -> str:
        whole = all(not path for tp in self.topics.values() for path in tp.paths)
        return "article" if whole else "element"


def topic_order(topic: str) -> tuple[int, int, str]:
    """Sort key of topic ids: numbers in numeric order first, then the others by string."""
    from inexeval.scores import topic_key

    return topic_key(topic)


def make_topic_pool(topic: str, units: list[tuple[str, str, int, int]],
                    lines: list[int] | None = None) -> TopicPool:
    """A :class:`TopicPool` from ``(file, path, min_rank, runs)`` tuples, in the given order."""
    return TopicPool(
        topic=topic,
        files=np.array([u[0] for u in units], dtype=object),
        paths=np.array([u[1] for u in units], dtype=object),
        min_ranks=np.array([u[2] for u in units], dtype=np.int64),
        runs=np.array([u[3] for u in units], dtype=np.int64),
        lines=np.array(lines if lines is not None else [0] * len(units), dtype=np.int64),
    )
