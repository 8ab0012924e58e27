"""Runs: per topic, the results in the order the file gives them.

A :class:`TopicRun` keeps parallel arrays in file order: the document (``files``), the canonical
element path (``paths``; empty for passages and whole documents), the passage ``offsets`` and
``lengths`` (-1 where the result is an element or a document; FOL ``X``/``-1`` offsets are kept
as -1 with ``missing`` set), the ``ranks`` and ``rsv`` as given (NaN/-1 where absent) and the
source ``lines``. :meth:`TopicRun.ordered` applies the ordering convention of DESIGN.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Scores = Callable[[], npt.NDArray[np.float64]]
"""Scores read on first use: a reader may give ``TopicRun.rsv`` so (the official tasks never
use scores, and reading them costs as much as reading the rest of a line)."""


class _Rsv:
    """``TopicRun.rsv``: an array, or :data:`Scores` called once, on first use."""

    def __get__(self, run: TopicRun | None, owner: type | None = None) -> npt.NDArray[np.float64]:
        if run is None:
            raise AttributeError("rsv")  # a dataclass field without a default
        value: npt.NDArray[np.float64] | Scores = run.__dict__["rsv"]
        if callable(value):
            value = run.__dict__["rsv"] = value()
        return value

    def __set__(self, run: TopicRun, value: npt.NDArray[np.float64] | Scores) -> None:
        run.__dict__["rsv"] = value


@dataclass(frozen=True, eq=False)
class TopicRun:
    """The results of one run for one topic (see module docstring)."""

    topic: str
    files: npt.NDArray[np.object_]
    paths: npt.NDArray[np.object_]
    offsets: npt.NDArray[np.int64]
    lengths: npt.NDArray[np.int64]
    ranks: npt.NDArray[np.int64]
    rsv: _Rsv = _Rsv()
    """The scores; a reader may give them as :data:`Scores`, read on first use."""
    # _Rsv gives no default (mypy takes any descriptor for one)
    lines: npt.NDArray[np.int64]  # type: ignore[misc]
    missing: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    codes: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """A reader's run-wide number for each document (equal names, equal numbers), or empty:
    lets an evaluation look each distinct name up once. Kept only along with ``files``."""

    def __post_init__(self) -> None:
        if len(self.missing) != len(self.files):
            object.__setattr__(self, "missing", np.zeros(len(self.files), dtype=bool))
        if len(self.codes) and len(self.codes) != len(self.files):
            object.__setattr__(self, "codes", np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.files)

    def take(self, order: npt.NDArray[np.int64] | slice) -> TopicRun:
        """A copy with the results reordered or cut by ``order``."""
        return replace(
            self,
            files=self.files[order],
            paths=self.paths[order],
            offsets=self.offsets[order],
            lengths=self.lengths[order],
            ranks=self.ranks[order],
            rsv=self.rsv[order],
            lines=self.lines[order],
            missing=self.missing[order],
            codes=self.codes[order] if len(self.codes) else self.codes,
        )

    def ordered(self, policy: str = "rank") -> TopicRun:
        """Results in evaluation order.

        ``rank``: by rank if every result has one, else by rsv descending if every result has
        one, else file order (DESIGN.md); ``score``: by rsv descending; ``file``: file order;
        ``trec_eval``: by rsv descending, ties by document id descending (trec_eval 9 ignores
        ranks), or as ``rank`` where a result has no rsv. Other sorting is stable, so ties keep
        file order.
        """
        if policy == "file" or len(self) < 2:
            return self
        if policy == "trec_eval" and not bool(np.any(np.isnan(self.rsv))):
            by_document = np.argsort(self.files.astype(str), kind="stable")[::-1]
            order = by_document[np.argsort(-self.rsv[by_document], kind="stable")]
        elif policy in ("rank", "trec_eval") and bool(np.all(self.ranks >= 0)):
            order = np.argsort(self.ranks, kind="stable")
        elif policy != "file" and not bool(np.any(np.isnan(self.rsv))):
            order = np.argsort(-self.rsv, kind="stable")
        else:
            return self
        if bool(np.all(order[1:] > order[:-1])):
            return self
        return self.take(order)

    def tie_levels(self) -> npt.NDArray[np.int64]:
        """Level number of each result in its current order: results with equal rsv next to
        each other share a level (a weak ordering); without rsv each result is its own level."""
        if len(self) == 0:
            return np.zeros(0, dtype=np.int64)
        if bool(np.any(np.isnan(self.rsv))):
            return np.arange(len(self), dtype=np.int64)
        change = np.concatenate(([True], self.rsv[1:] != self.rsv[:-1]))
        return np.cumsum(change).astype(np.int64) - 1


def make_topic_run(
    topic: str,
    files: list[str],
    *,
    paths: list[str] | None = None,
    offsets: list[int] | None = None,
    lengths: list[int] | None = None,
    ranks: list[int] | None = None,
    rsv: list[float] | None = None,
    lines: list[int] | None = None,
    missing: list[bool] | None = None,
) -> TopicRun:
    """Build a :class:`TopicRun` from lists; absent columns get their "absent" values."""
    n = len(files)
    return TopicRun(
        topic=topic,
        files=np.array(files, dtype=object),
        paths=np.array(paths if paths is not None else [""] * n, dtype=object),
        offsets=np.array(offsets if offsets is not None else [-1] * n, dtype=np.int64),
        lengths=np.array(lengths if lengths is not None else [-1] * n, dtype=np.int64),
        ranks=np.array(ranks if ranks is not None else [-1] * n, dtype=np.int64),
        rsv=np.array(rsv if rsv is not None else [np.nan] * n, dtype=np.float64),
        lines=np.array(lines if lines is not None else list(range(1, n + 1)), dtype=np.int64),
        missing=np.array(missing if missing is not None else [False] * n, dtype=bool),
    )


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.flags.writeable = False
    return array


_NO_NAMES = _read_only(np.zeros(0, dtype=object))
_NO_INTEGERS = _read_only(np.zeros(0, dtype=np.int64))
_NO_SCORES = _read_only(np.zeros(0, dtype=np.float64))
_NO_FLAGS = _read_only(np.zeros(0, dtype=bool))


def empty_topic_run(topic: str) -> TopicRun:
    """A :class:`TopicRun` without results (``make_topic_run(topic, [])``), its empty arrays
    shared and read-only: a run's outline has one per topic."""
    return TopicRun(topic, _NO_NAMES, _NO_NAMES, _NO_INTEGERS, _NO_INTEGERS, _NO_INTEGERS,
                    _NO_SCORES, _NO_INTEGERS, _NO_FLAGS, _NO_INTEGERS)


class RunColumns(Mapping[str, TopicRun]):
    """A run's columns as its reader joined them, in file order, and its topics: topic
    ``names[k]`` is rows ``bounds[k]:bounds[k + 1]`` (never empty), its :class:`TopicRun` made
    by ``make`` from their slice on first use (an evaluation of the whole run takes the columns
    as they are: making every topic's arrays and joining them again costs as much as scoring
    them)."""

    def __init__(self, names: Sequence[str], bounds: npt.NDArray[np.int64],
                 files: npt.NDArray[np.object_], offsets: npt.NDArray[np.int64],
                 lengths: npt.NDArray[np.int64], lines: npt.NDArray[np.int64],
                 missing: npt.NDArray[np.bool_], codes: npt.NDArray[np.int64],
                 make: Callable[[slice], TopicRun],
                 packed_names: npt.NDArray[np.uint64] | None = None) -> None:
        self.bounds, self.files, self.offsets, self.lengths = bounds, files, offsets, lengths
        self.lines, self.missing, self.codes = lines, missing, codes
        self.packed_names = packed_names
        """The UTF-8 bytes of the document name of each code (``codes`` index it) as one
        big-endian number, if the reader packed every name so (1 to 8 bytes); else None."""
        self._position = {name: k for k, name in enumerate(names)}
        self._make = make
        self._made: dict[str, TopicRun] = {}

    def __getitem__(self, topic: str) -> TopicRun:
        made = self._made.get(topic)
        if made is None:
            k = self._position[topic]
            made = self._made[topic] = self._make(slice(int(self.bounds[k]),
                                                        int(self.bounds[k + 1])))
        return made

    def __contains__(self, topic: object) -> bool:
        return topic in self._position

    def __iter__(self) -> Iterator[str]:
        return iter(self._position)

    def __len__(self) -> int:
        return len(self._position)

    def sizes(self) -> dict[str, int]:
        """The number of results of each topic, in file order."""
        return dict(zip(self._position, np.diff(self.bounds).tolist()))


def default_order(run: Run, trec_qrels: bool = True) -> str:
    """The order of a run's results when none is asked for (``eval``, ``pool``, ``meta pool``
    and the API alike): trec_eval's (score descending, ties by document id descending) for a
    document run (a TREC run) on TREC qrels (``trec_qrels``; a pool has no qrels and orders it
    as they would), else by rank (:meth:`TopicRun.ordered`)."""
    return "trec_eval" if run.kind == "document" and trec_qrels else "rank"


@dataclass(frozen=True, eq=False)
class Run(Mapping[str, TopicRun]):
    """A run: its name, the kind of its results and one :class:`TopicRun` per topic, in the order
    topics first appear in the file."""

    name: str
    kind: str
    topics: Mapping[str, TopicRun]
    source: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    columns: RunColumns | None = None
    """The reader's joined columns, if it gave them (then also ``topics``); see :meth:`joined`."""

    def joined(self) -> RunColumns | None:
        """``columns`` while they are the run's ``topics`` (a copy of the run with other topics,
        such as some of them, keeps ``columns`` that no longer hold)."""
        return self.columns if self.columns is not None and self.topics is self.columns else None

    def __getitem__(self, topic: str) -> TopicRun:
        return self.topics[topic]

    def __iter__(self) -> Iterator[str]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)


class RunParts:
    """A run given in parts, each a :class:`Run` of whole topics in file order (as
    :func:`inexeval.formats.fol.read_fol_run_parts` reads them), to be iterated once. What the
    whole run says of itself is known once every part has been read: ``name`` (the last part's),
    ``source``, ``kind``, the number of results of each topic (``sizes``, in file order) and
    :meth:`outline`."""

    def __init__(self, parts: Iterable[Run], source: str | None = None) -> None:
        self._parts = iter(parts)
        self.name = ""
        self.kind = "passage"
        self.source = source
        self.sizes: dict[str, int] = {}
        self.run_ids: dict[str, str] = {}

    def __iter__(self) -> Iterator[Run]:
        for part in self._parts:
            self.name, self.kind, self.source = part.name, part.kind, part.source
            self.sizes.update(topic_sizes(part))
            self.run_ids.update(part.meta.get("run_ids", {}))
            yield part

    def outline(self) -> Run:
        """The run read, its results left out: name, kind, source, its topics in file order
        (each without results) and ``meta["run_ids"]``."""
        return Run(self.name, self.kind, {topic: empty_topic_run(topic) for topic in self.sizes},
                   self.source, {"run_ids": dict(self.run_ids)})


def topic_sizes(run: Run) -> dict[str, int]:
    """The number of results of each topic of the run, in its order (a reader's topics are not
    made for it)."""
    columns = run.joined()
    if columns is not None:
        return columns.sizes()
    return {topic: len(results) for topic, results in run.items()}


def distinct_names(names: Sequence[str], files: Sequence[str | None]) -> list[str]:
    """Names that tell runs apart: a run keeps its run-id unless another run has it too; runs
    sharing a run-id are all named ``run-id (file)``, the file by the fewest trailing path
    parts that tell their files apart (``TREC2INEX (a/bert.run)``, ``TREC2INEX (b/bert.run)``).
    Runs of one file (or without one) are told apart by their position among them as well."""
    out = list(names)
    for name in dict.fromkeys(names):
        sharing = [i for i, n in enumerate(names) if n == name]
        if len(sharing) < 2:
            continue
        labels = file_labels([str(files[i] or "") for i in sharing])
        for k, i in enumerate(sharing, 1):
            label = labels[k - 1]
            repeated = labels.count(label) > 1
            out[i] = f"{name} ({label}{', ' if label and repeated else ''}{k if repeated else ''})"
    return out


def file_labels(paths: Sequence[str]) -> list[str]:
    """Each path by the fewest trailing parts that tell the different paths apart (so that a
    table stays narrow): ``a/x.run``, ``b/x.run``, ``y.run``."""
    parts = [Path(path).parts for path in paths]
    longest = max((len(p) for p in parts), default=0)
    depth = next((d for d in range(1, longest + 1)
                  if len({p[-d:] for p in parts}) == len(set(parts))), None)
    return [str(Path(*p[-depth:])) if depth and p else path for path, p in zip(paths, parts)]
