"""Relevance assessments, one :class:`TopicAssessments` per topic.

Each topic holds its judged units as parallel arrays in file order of the assessment file: the
document (``files``), the canonical element path (``paths``; empty for a judgement of a whole
document given without a path, as in FOL or TREC qrels) and one array per assessment dimension in
``dims``. The dimensions present depend on the ``scale``:

=========== ==========================================================================
scale       dims
=========== ==========================================================================
inex2002    ``relevance`` (0-3), ``coverage`` (0=N, 1=S, 2=L, 3=E)
inex2003    ``exhaustivity`` (0-3), ``specificity`` (0-3) (also INEX 2004)
inex2005    ``exhaustivity`` (1, 2, or -1 for "?" too small), ``size``, ``rsize``
fol         ``rsize`` (declared relevant characters), ``length`` (document length), ``bep``
trec        ``relevance`` (integer grade of a TREC document qrels line)
=========== ==========================================================================

``highlights`` maps a document to its highlighted character spans, an ``(n, 2)`` int64 array of
``[start, end)`` rows sorted by start (FOL qrels, or 2005 passages resolved against the
collection). ``passages`` keeps the 2005-2008 highlighted passages as given (``(start, end)``
XPointers per document) until they are resolved against the collection into ``highlights``.
``explicit`` is False for records added by implicit assessment (spec §1.6). ``aspects`` keeps,
for the TREC Genomics 2007 gold standard, each document's gold passages in file order as
``(start, end, aspects)`` (the aspect measures of :mod:`inexeval.measures.genomics`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError

SCALES = ("inex2002", "inex2003", "inex2005", "fol", "trec")

COVERAGE_CODES = {"N": 0, "S": 1, "L": 2, "E": 3}


@dataclass(frozen=True, eq=False)
class TopicAssessments:
    """The judged units of one topic (see the module docstring for the layout)."""

    topic: str
    scale: str
    files: npt.NDArray[np.object_]
    paths: npt.NDArray[np.object_]
    dims: Mapping[str, npt.NDArray[Any]]
    explicit: npt.NDArray[np.bool_]
    highlights: Mapping[str, npt.NDArray[np.int64]] = field(default_factory=dict)
    best_entry_points: Mapping[str, Any] = field(default_factory=dict)
    passages: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    source: str | None = None
    aspects: Mapping[str, tuple[tuple[int, int, tuple[str, ...]], ...]] = field(
        default_factory=dict)

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise InexevalError(f"unknown assessment scale {self.scale!r}", self.source)
        n = len(self.files)
        if len(self.paths) != n or len(self.explicit) != n:
            raise ValueError("files, paths and explicit must have the same length")
        for name, values in self.dims.items():
            if len(values) != n:
                raise ValueError(f"dimension {name!r} has {len(values)} values for {n} units")

    def __len__(self) -> int:
        return len(self.files)

    @cached_property
    def index(self) -> dict[tuple[str, str], int]:
        """``(file, path) -> position`` of every judged unit."""
        return {(f, p): i for i, (f, p) in enumerate(zip(self.files.tolist(), self.paths.tolist()))}

    def lookup(self, files: Any, paths: Any) -> npt.NDArray[np.int64]:
        """Positions of the given units in this topic's arrays, -1 where not judged."""
        index = self.index
        return np.fromiter(
            (index.get((f, p), -1) for f, p in zip(files, paths)), dtype=np.int64, count=len(files)
        )

    @cached_property
    def documents(self) -> frozenset[str]:
        """Documents with at least one judged unit (the assessed documents)."""
        return frozenset(self.files.tolist())

    def dim(self, name: str) -> npt.NDArray[Any]:
        try:
            return self.dims[name]
        except KeyError:
            raise InexevalError(
                f"topic {self.topic}: {self.scale} assessments have no {name!r} dimension",
                self.source,
            ) from None

    def with_units(self, keep: npt.NDArray[np.bool_]) -> TopicAssessments:
        """A copy restricted to the units where ``keep`` is True (the pool studies' smaller
        qrels, :mod:`inexeval.meta.pool`)."""
        return replace(
            self,
            files=self.files[keep],
            paths=self.paths[keep],
            dims={k: v[keep] for k, v in self.dims.items()},
            explicit=self.explicit[keep],
        )


@dataclass(frozen=True, eq=False)
class Assessments(Mapping[str, TopicAssessments]):
    """Assessments of a set of topics, keyed by topic id (a string, compared exactly)."""

    topics: Mapping[str, TopicAssessments]
    scale: str
    source: str | None = None

    def __getitem__(self, topic: str) -> TopicAssessments:
        return self.topics[topic]

    def __iter__(self) -> Iterator[str]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)

    def select(self, topics: set[str]) -> Assessments:
        return replace(self, topics={t: a for t, a in self.topics.items() if t in topics})


def build_topic(
    topic: str,
    scale: str,
    records: list[tuple[str, str, dict[str, Any]]],
    *,
    dim_types: Mapping[str, type] | None = None,
    explicit: list[bool] | None = None,
    highlights: Mapping[str, npt.NDArray[np.int64]] | None = None,
    best_entry_points: Mapping[str, Any] | None = None,
    source: str | None = None,
) -> TopicAssessments:
    """Make a :class:`TopicAssessments` from ``(file, path, {dimension: value})`` records."""
    names: list[str] = []
    for _, _, values in records:
        for name in values:
            if name not in names:
                names.append(name)
    types = dict(dim_types or {})
    dims: dict[str, npt.NDArray[Any]] = {}
    for name in names:
        column = [values.get(name) for _, _, values in records]
        kind = types.get(name, float)
        if kind is float:
            dims[name] = np.array([np.nan if v is None else v for v in column], dtype=np.float64)
        elif kind is int:
            dims[name] = np.array([-1 if v is None else v for v in column], dtype=np.int64)
        else:
            dims[name] = np.array(column, dtype=object)
    return TopicAssessments(
        topic=topic,
        scale=scale,
        files=np.array([r[0] for r in records], dtype=object),
        paths=np.array([r[1] for r in records], dtype=object),
        dims=dims,
        explicit=np.array(explicit if explicit is not None else [True] * len(records), dtype=bool),
        highlights=dict(highlights or {}),
        best_entry_points=dict(best_entry_points or {}),
        source=source,
    )
