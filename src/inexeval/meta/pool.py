"""How far to trust a pool: smaller pools and sampled judgements (``inexeval meta pool``).

A campaign's qrels judge the units pooled from the submitted runs. This study takes the full
qrels, the runs and how they were pooled (:class:`Pooling`: ``--depth K`` or ``--articles N``,
as ``inexeval pool`` takes them) and asks how the ranking of the runs changes with fewer
judgements (Zobel 1998; Buckley and Voorhees 2004; Yilmaz and Aslam 2006):

* **depth** / **articles**: the runs re-pooled at each level as
  :func:`inexeval.analysis.pooling.pool_runs` pools them (``pool --depth d`` or ``--articles n``;
  :class:`CodedRuns` codes the runs once and gives the same pools); a judged unit of the full
  pool that the smaller pool does not hold becomes unjudged. Units judged
  without being in the full pool (judged from runs not given) stay judged, so a level at or
  beyond the full pool's gives back exactly the full qrels;
* **random**: per topic, a uniform sample without replacement of ``round(rate × judged)`` of the
  judged units (at least one) stays judged (Yilmaz and Aslam 2006);
* **stratified**: per topic, the relevant and the non-relevant judged units sampled separately
  at the rate, at least one relevant unit kept (Buckley and Voorhees 2004's reduced qrels).

A unit a smaller pool does not hold leaves the qrels (unjudged, it scores as non-relevant). A
unit of the pool that a sample did not draw stays in the pool: in TREC qrels and in sampled
qrels (with strata) it stays at level -1, pooled but not judged, as trec_eval's infAP and
``sample_eval.pl`` read it (Yilmaz and Aslam 2006), so that the inferred measures estimate from
the sample; a measure that does not read -1 takes it as unjudged. Other qrels (FOL without
strata, INEX 2002-2005 elements) have no such level: there it leaves the qrels. With
``condensed`` an unjudged unit is removed from the runs first (Sakai 2007's condensed lists).
The unit is the article for FOL and TREC qrels (an FOL qrels file lists the judged non-relevant
articles too, so "judged" is known), and for INEX 2002-2005 element qrels pooled by depth from
element runs, or sampled, the element (as evaluated, implicit assessments included).

For every measure and level the run means on the reduced qrels are compared with those on the
full qrels: Kendall's tau (tau-b), tau_AP (Yilmaz, Aslam and Robertson 2008, the full
qrels as truth) and the RMSE; and the discriminative power of the measure at that level
(:mod:`inexeval.meta.power`). Scores are averaged over every assessed topic (``eval -c``).

Every level (and every iteration of a sampling rate) is an independent task run by an
:mod:`inexeval.executor`, each given out by itself (a level scores every run: seconds, worth
shipping alone; in chunks, two workers ended up to a chunk apart); task ``i``'s randomness is
the ``i``-th child of ``SeedSequence(seed)`` (made where the task runs:
:func:`inexeval.executor.task_seed`), so the output is the same bytes on one process,
``--jobs N`` or a Dask cluster.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError, InexevalWarning
from inexeval.executor import Executor, ReadOnWorkers, Serial, task_seed
from inexeval.model import Assessments, Run
from inexeval.model.assessments import TopicAssessments
from inexeval.model.pool import Pool
from inexeval.model.run import TopicRun, default_order
from inexeval.scores import MEAN_NAME, Scores, find_measure, natural_order

Keys = npt.NDArray[np.str_]
Floats = npt.NDArray[np.float64]

STRATEGIES = ("depth", "articles", "random", "stratified")
"""How a level reduces the qrels: re-pooled to a depth or an article count, or sampled."""

ELEMENT_SCALES = ("inex2002", "inex2003", "inex2005")

_SEPARATOR = "\t"


# ---------------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Scoring:
    """How runs are scored: ``measures`` through :class:`inexeval.evaluation.Evaluator` (with
    its keyword ``options``), or an official ``task`` (with ``task_options``), over every
    assessed topic (``eval -c``)."""

    measures: tuple[str, ...] = ()
    task: str | None = None
    collection: Any = None
    task_options: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    chosen: tuple[str, ...] = ()
    """Under a ``task``, only these of its measures (``-m``, in any spelling; default all)."""

    def scores(self, assessments: Assessments, runs: Sequence[Run]) -> Scores:
        """The runs × every assessed topic × measures, averaging rule ``all``; counts (a
        measure summed over topics, such as ``num_rel``, and the official tasks' counts) are
        left out: they rank no runs. A task's per-topic AiP and AgP are named by their means
        (MAiP, MAgP), as ``compare`` and ``meta power`` name them."""
        from inexeval.evaluation import RunEvaluator, evaluate_runs
        from inexeval.measures.focused import COUNTS

        evaluate_one = RunEvaluator(assessments, list(self.measures), task=self.task,
                                    collection=self.collection,
                                    task_options=self.task_options, **self.options)
        results = evaluate_runs(evaluate_one, runs)
        scores = Scores.from_results(results, rule="all", topics=natural_order(assessments))
        counts = set(COUNTS) if self.task else set()
        kept = [m for m in scores.measures if m not in counts
                and results.aggregates.get(m) != "sum"]
        if self.chosen:
            named = [find_measure(kept, m) for m in self.chosen]
            kept = [m for m in kept if m in named]
        scores = scores.select(measures=kept)
        return replace(scores, measures=tuple(MEAN_NAME.get(m, m) for m in scores.measures))

    def quiet_scores(self, assessments: Assessments, runs: Sequence[Run]) -> Scores:
        """:meth:`scores` without the warnings about the runs (given once, when the runs were
        scored on the full qrels, not again for every level)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InexevalWarning)
            return self.scores(assessments, runs)


@dataclass(frozen=True)
class Pooling:
    """How the full pool was built, as ``inexeval pool`` takes it: ``depth`` results per run or
    round-robin to ``articles`` articles per topic (exactly one), of ``unit`` (``article`` or
    ``element``), results in ``order``, from the runs at positions ``pooled`` of the study's
    runs (ascending; default all of them: ``pool --runs-per-group M --group REGEX`` pools the
    first M runs of each group, :func:`inexeval.analysis.pooling.select_runs`)."""

    depth: int | None = None
    articles: int | None = None
    unit: str = "article"
    order: str | None = None
    pooled: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if (self.depth is None) == (self.articles is None):
            raise InexevalError("say how the qrels were pooled: --depth K or --articles N")

    @property
    def strategy(self) -> str:
        return "depth" if self.depth is not None else "articles"

    @property
    def full_level(self) -> int:
        return int(self.depth if self.depth is not None else self.articles or 0)

    def pool(self, runs: Sequence[Run], level: int | None = None,
             topics: Sequence[str] | None = None) -> Pool:
        """The pool of ``runs`` at ``level`` (default: the full depth or article count)."""
        from inexeval.analysis.pooling import pool_runs

        level = self.full_level if level is None else level
        if self.depth is not None:
            return pool_runs(runs, depth=level, unit=self.unit, topics=topics, order=self.order)
        return pool_runs(runs, articles=level, unit=self.unit, topics=topics, order=self.order)


@dataclass(frozen=True)
class CodedRuns:
    """Every run's results of each topic as integer codes, coded once, so that a task pools any
    subset of the runs at any level without the strings (and ships a few integer arrays per
    topic, not the runs): ``keys[topic]`` the distinct units sorted (as :func:`unit_keys` makes
    them); ``rounds[topic]`` the results of every run in round-robin order (by rank, then run:
    rank 1 of every run, then rank 2, ...) as four arrays, the code of the unit, the code of its
    article, the run's position and the rank (32-bit: half the bytes to ship; the coding of
    :func:`inexeval.analysis.pooling.pool_runs`, over whole lists); ``count`` the runs.

    The round-robin order of any subset of the runs is this order with the other runs' results
    left out, so :meth:`pooled` finds a pool in one pass over the results, without sorting."""

    pooling: Pooling
    keys: Mapping[str, Keys]
    rounds: Mapping[str, tuple[npt.NDArray[np.int32], npt.NDArray[np.int32],
                               npt.NDArray[np.int32], npt.NDArray[np.int32]]]
    count: int

    @classmethod
    def of(cls, runs: Sequence[Run], topics: Sequence[str], pooling: Pooling) -> CodedRuns:
        keys, rounds = {}, {}
        packed = [getattr(run.topics, "packed_names", None) for run in runs]
        for topic in natural_order(topics):
            ordered = [run.topics[topic].ordered(pooling.order or default_order(run))
                       for run in runs if topic in run.topics]
            named = [packed[r] for r, run in enumerate(runs) if topic in run.topics]
            which = np.array([r for r, run in enumerate(runs) if topic in run.topics],
                             dtype=np.int64)
            sizes = np.array([len(tr) for tr in ordered], dtype=np.int64)
            files = (np.concatenate([tr.files for tr in ordered]) if ordered
                     else np.zeros(0, dtype=object))
            paths = (np.concatenate([tr.paths for tr in ordered]) if ordered
                     else np.zeros(0, dtype=object))
            article_keys, article_codes = _article_codes(ordered, named, files)
            if pooling.unit == "article":
                keys[topic], unit_codes = article_keys, article_codes
            else:
                keys[topic], unit_codes = np.unique(unit_keys(files, paths, pooling.unit),
                                                    return_inverse=True)
            run = np.repeat(which, sizes)
            rank = np.arange(len(run), dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes,
                                                                   sizes) + 1
            order = np.lexsort((run, rank))
            rounds[topic] = (unit_codes.ravel()[order].astype(np.int32),
                             article_codes.ravel()[order].astype(np.int32),
                             run[order].astype(np.int32), rank[order].astype(np.int32))
        return cls(pooling, keys, rounds, len(runs))

    def pooled(self, runs: Sequence[int] | None = None, level: int | None = None
               ) -> dict[str, Keys]:
        """Per topic, the sorted keys of the units the pool of ``runs`` (positions, pooled in
        their order in the study; default the pooling's ``pooled``, or all) holds at ``level``
        (default the full depth or article count), as
        :func:`~inexeval.analysis.pooling.pool_runs` pools them: to a depth,
        the units at a rank up to it; round-robin, the units met in round-robin order until the
        ``level``-th distinct article is met (all of them when the runs hold fewer)."""
        level = self.pooling.full_level if level is None else level
        runs = self.pooling.pooled if runs is None else runs
        chosen = None
        if runs is not None:
            chosen = np.zeros(self.count, dtype=bool)
            chosen[np.asarray(runs, dtype=np.int64)] = True
        pooled = {}
        for topic, keys in self.keys.items():
            unit, article, run, rank = self.rounds[topic]
            if chosen is not None:
                kept = chosen[run]
                unit, article, rank = unit[kept], article[kept], rank[kept]
            if self.pooling.depth is not None:
                inside = unit[rank <= level]
            else:
                inside = unit[: _round_robin_stop(article, level)]
            holds = np.zeros(len(keys), dtype=bool)
            holds[inside] = True
            pooled[topic] = keys[np.flatnonzero(holds)]
        return pooled


def _coded(names: npt.NDArray[np.object_]) -> tuple[Keys, npt.NDArray[np.int64]]:
    """``np.unique(names.astype(str), return_inverse=True)``, a third faster: the names are
    numbered in a dict as met (a topic's runs repeat each a few dozen times), and only the
    distinct ones are converted and sorted."""
    seen: dict[str, int] = {}
    met = np.fromiter((seen.setdefault(name, len(seen)) for name in names.tolist()),
                      dtype=np.int64, count=len(names))
    distinct = np.array(list(seen), dtype=str)
    order = np.argsort(distinct, kind="stable")
    code = np.empty(len(order), dtype=np.int64)
    code[order] = np.arange(len(order), dtype=np.int64)
    return distinct[order], code[met]


def _article_codes(ordered: Sequence[TopicRun],
                   packed: Sequence[npt.NDArray[np.uint64] | None],
                   files: npt.NDArray[np.object_]) -> tuple[Keys, npt.NDArray[np.int64]]:
    """:func:`_coded` of ``files``, the documents of the topic runs ``ordered`` one after the
    other, faster when every topic run has its reader's codes (equal codes, equal names): with
    the names of the codes packed by the reader (``packed[i]`` for ``ordered[i]``, one
    integer a name: :attr:`inexeval.model.run.RunColumns.packed_names`), the documents are
    told apart as integers and only the distinct names are sorted; without, each run's
    distinct documents are coded once (a run names a document a few times in a topic)."""
    if not ordered or any(len(tr.codes) != len(tr) for tr in ordered):
        return _coded(files)
    codes = np.concatenate([tr.codes for tr in ordered])
    if all(p is not None for p in packed):
        names = np.concatenate([p[tr.codes] for p, tr in zip(packed, ordered)
                                if p is not None])
    else:
        width = 1 + int(codes.max(initial=0))
        names = np.repeat(np.arange(len(ordered), dtype=np.int64) * width,
                          [len(tr) for tr in ordered]) + codes
    _, first, inverse = np.unique(names, return_index=True, return_inverse=True)
    keys, coded = _coded(files[first])
    return keys, coded[inverse.ravel()]


def _round_robin_stop(article: npt.NDArray[np.int32], target: int) -> int:
    """How many results, in round-robin order, the pool takes: up to the one that brings the
    ``target``-th distinct article (all when there are fewer)."""
    if len(article) == 0:
        return 0
    first = np.full(int(article.max()) + 1, len(article), dtype=np.int64)
    np.minimum.at(first, article, np.arange(len(article), dtype=np.int64))
    new = np.zeros(len(article), dtype=bool)
    new[first[first < len(article)]] = True
    met = np.cumsum(new)
    if met[-1] < target:
        return len(article)
    return int(np.searchsorted(met, target)) + 1


def check_pooled(pooling: Pooling, runs: int) -> None:
    """The pooled positions are some of the ``runs`` positions, ascending."""
    pooled = pooling.pooled
    if pooled is not None and (not pooled or list(pooled) != sorted(set(pooled))
                               or pooled[0] < 0 or pooled[-1] >= runs):
        raise ValueError(f"pooled runs {pooled} are not ascending positions of {runs} runs")


def assessed_only(runs: Sequence[Run], assessments: Assessments) -> list[Run]:
    """The runs without their topics that have no qrels (never scored: less to ship)."""
    return [replace(run, topics={t: tr for t, tr in run.topics.items() if t in assessments},
                    columns=None) for run in runs]


class ShippedRuns:
    """Runs a task scores, given to it as they are in this process (one process, forked
    ``--jobs``) and pickled (for a Dask worker) packed: each run's columns joined over its topics
    (a dozen arrays per run instead of a dozen per topic and run: pickling thousands of small
    arrays cost more than their bytes), each cut back into topics when first used after
    unpickling. The runs come back equal, array for array."""

    def __init__(self, runs: Sequence[Run]) -> None:
        self.runs: Sequence[Run] = runs if isinstance(runs, _PackedRuns) else tuple(runs)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        runs = self.runs
        return _unpacked_runs, (runs._packed if isinstance(runs, _PackedRuns) else
                                tuple(_packed(run) for run in runs),)

    def __reduce_stored__(self, later: Any) -> tuple[Any, tuple[Any, ...]]:
        """Kept in a machine's store (:mod:`inexeval.executor_store`): each run packed, then
        written and let go of before the next is packed (not all of them at once)."""
        from inexeval.executor_store import Streamed

        runs = self.runs
        if isinstance(runs, _PackedRuns):
            return self.__reduce__()
        return _unpacked_runs, (Streamed(_packed(run) for run in runs),)

    def __len__(self) -> int:
        return len(self.runs)


_COLUMNS = ("files", "paths", "offsets", "lengths", "ranks", "lines", "missing")


_NAMES = ("files", "paths")
"""The columns of strings: shipped as one text each, names separated by newlines (a name read
from a line holds none; pickling a million small strings one by one cost more than the rest);
a run whose reader numbered its documents (``codes``, one name each) ships each document's name
once, a column of empty names (the paths of a passage run) as its size."""


def _as_text(names: npt.NDArray[np.object_]) -> Any:
    text = "\n".join(names.tolist())
    return text if text.count("\n") == len(names) - 1 else names


def _from_text(text: Any, size: int) -> npt.NDArray[np.object_]:
    if not isinstance(text, str):
        return np.asarray(text)
    if len(text) == size - 1:  # only separators: every name empty
        return np.full(size, "", dtype=object)
    names = np.empty(size, dtype=object)
    names[:] = text.split("\n") if size else []
    return names


def _named_documents(files: npt.NDArray[np.object_], codes: npt.NDArray[np.int64]
                     ) -> tuple[Any, int]:
    """The name of each document code as text (:func:`_as_text`; a code no result has, of a
    topic left out, an empty name) and the number of codes."""
    count = int(codes.max()) + 1 if len(codes) else 0
    line_of = np.full(count, -1, dtype=np.int64)
    line_of[codes] = np.arange(len(codes), dtype=np.int64)
    names = np.full(count, "", dtype=object)
    names[line_of >= 0] = files[line_of[line_of >= 0]]
    return _as_text(names), count


def _narrow(values: Any) -> Any:
    """64-bit integers as 32-bit ones when they fit (half the bytes to ship)."""
    if (values is None or values.dtype != np.int64 or not len(values)
            or values.min() < -(2**31) or values.max() >= 2**31):
        return values
    return values.astype(np.int32)


def _widened(values: Any) -> Any:
    return values.astype(np.int64) if values is not None and values.dtype == np.int32 else values


def _packed(run: Run) -> tuple[Any, ...]:
    from inexeval.formats.lines import PrintedScores

    parts = list(run.topics.values())
    sizes = np.array([len(tr) for tr in parts], dtype=np.int64)
    columns: dict[str, Any] = {
        name: (np.concatenate([getattr(tr, name) for tr in parts]) if parts else None)
        for name in _COLUMNS}
    coded = np.array([len(tr.codes) > 0 for tr in parts], dtype=bool)
    codes = np.concatenate([tr.codes for tr in parts]) if parts else None
    if codes is not None and coded.all():
        columns["files"] = _named_documents(columns["files"], codes)
    for name in _NAMES:
        if columns[name] is not None and not isinstance(columns[name], tuple):
            columns[name] = _as_text(columns[name])
    for name in ("offsets", "lengths", "ranks", "lines"):
        columns[name] = _narrow(columns[name])
    given = [tr.__dict__["rsv"] for tr in parts]
    rsv: Any = (PrintedScores.joined(given) if given and all(isinstance(g, PrintedScores)
                                                             for g in given)
                else np.concatenate([tr.rsv for tr in parts]) if parts else None)
    codes = _narrow(codes)
    return (run.name, run.kind, run.source, dict(run.meta), [tr.topic for tr in parts], sizes,
            columns, rsv, coded, codes)


def _unpacked_runs(packed: tuple[tuple[Any, ...], ...]) -> ShippedRuns:
    return ShippedRuns(_PackedRuns(packed))


def _unpacked_run(packed: tuple[Any, ...]) -> Run:
    """The run :func:`_packed` packed (its ``columns`` left as they are: it may be unpacked
    again)."""
    name, kind, source, meta, topics, sizes, given, rsv, coded, codes = packed
    columns = dict(given)
    bounds = np.concatenate(([0], np.cumsum(sizes))).tolist()
    codes = _widened(codes)
    if isinstance(columns["files"], tuple):
        text, count = columns["files"]
        columns["files"] = _from_text(text, count)[codes]
    for column in _NAMES:
        if columns[column] is not None and not isinstance(columns[column], np.ndarray):
            columns[column] = _from_text(columns[column], bounds[-1])
    for column in ("offsets", "lengths", "ranks", "lines"):
        columns[column] = _widened(columns[column])
    code_bounds = np.concatenate(([0], np.cumsum(np.where(coded, sizes, 0)))).tolist()
    parts = {}
    for k, topic in enumerate(topics):
        rows = slice(bounds[k], bounds[k + 1])
        parts[topic] = TopicRun(topic, columns["files"][rows], columns["paths"][rows],
                                columns["offsets"][rows], columns["lengths"][rows],
                                columns["ranks"][rows], rsv[rows], columns["lines"][rows],
                                columns["missing"][rows],
                                codes[code_bounds[k]:code_bounds[k + 1]])
    return Run(name, kind, parts, source, meta)


class _PackedRuns(Sequence[Run]):
    """Runs as :func:`_packed` packs them, each unpacked when first asked for, and kept: a
    worker given the inputs (or loading them from its machine's store,
    :mod:`inexeval.executor_store`) unpacks the runs its tasks score, no other."""

    def __init__(self, packed: tuple[tuple[Any, ...], ...]) -> None:
        self._packed = packed
        self._runs: list[Run | None] = [None] * len(packed)

    def __len__(self) -> int:
        return len(self._runs)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self._runs)))]
        run = self._runs[i]
        if run is None:
            run = self._runs[i] = _unpacked_run(self._packed[i])
        return run

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _PackedRuns, (self._packed,)

    def names(self) -> list[str]:
        """The runs' names, none unpacked."""
        return [packed[0] for packed in self._packed]


def run_names(runs: Sequence[Run]) -> list[str]:
    """The names of ``runs`` (packed ones not unpacked for it)."""
    return runs.names() if isinstance(runs, _PackedRuns) else [run.name for run in runs]


def pool_unit(assessments: Assessments, runs: Sequence[Run], depth: int | None) -> str:
    """The unit a study pools and judges: the element for INEX 2002-2005 element qrels pooled
    by depth from element runs only, else the article (the document of TREC qrels)."""
    if (assessments.scale in ELEMENT_SCALES and depth is not None
            and all(r.kind == "element" for r in runs)):
        return "element"
    return "article"


# ------------------------------------------------------------------------- judged units


def unit_keys(files: Any, paths: Any, unit: str) -> Keys:
    """The key of each unit: its file for an article, ``file TAB path`` for an element."""
    names = np.asarray(files, dtype=object).astype(str)
    if unit == "article":
        return names
    return np.char.add(np.char.add(names, _SEPARATOR),
                       np.asarray(paths, dtype=object).astype(str))


def relevant_records(assessed: TopicAssessments) -> npt.NDArray[np.bool_]:
    """Which judgement records say relevant: FOL ``rsize > 0``; TREC and INEX 2002 relevance
    above 0; INEX 2003/2004 exhaustivity above 0; INEX 2005 exhaustivity not 0 (``?``, too
    small, is highlighted text)."""
    dimension = {"fol": "rsize", "trec": "relevance", "inex2002": "relevance",
                 "inex2003": "exhaustivity", "inex2005": "exhaustivity"}[assessed.scale]
    values = np.asarray(assessed.dim(dimension)).astype(np.int64)
    return values != 0 if assessed.scale == "inex2005" else values > 0


@dataclass(frozen=True)
class Judged:
    """One topic's judged units (sorted keys) and whether each is relevant (any of its
    records)."""

    keys: Keys
    relevant: npt.NDArray[np.bool_]


def unjudged_records(assessed: TopicAssessments) -> npt.NDArray[np.bool_]:
    """Which records are of a unit pooled but not judged: level -1 of TREC or sampled qrels,
    ``rsize`` -1 of sampled FOL qrels."""
    if assessed.scale == "trec":
        return np.asarray(assessed.dim("relevance")).astype(np.int64) < 0
    if assessed.scale == "fol":
        return np.asarray(assessed.dim("rsize")).astype(np.int64) < 0
    return np.zeros(len(assessed), dtype=bool)


def _keeps_unjudged(assessed: TopicAssessments) -> bool:
    """Whether the qrels hold a unit as pooled but not judged (:func:`unjudged_records`)."""
    return assessed.scale == "trec" or (assessed.scale == "fol" and "stratum" in assessed.dims)


def judged_units(assessments: Assessments, unit: str) -> dict[str, Judged]:
    """Per topic, the judged units of ``unit`` (not those pooled but not judged) and their
    relevance."""
    judged = {}
    for topic, assessed in assessments.items():
        judging = ~unjudged_records(assessed)
        keys, inverse = np.unique(unit_keys(assessed.files[judging], assessed.paths[judging],
                                            unit), return_inverse=True)
        relevant = np.zeros(len(keys), dtype=bool)
        np.logical_or.at(relevant, inverse.ravel(), relevant_records(assessed)[judging])
        judged[topic] = Judged(keys, relevant)
    return judged


def left_out_units(full: Mapping[str, Keys], smaller: Mapping[str, Keys]) -> dict[str, Keys]:
    """Per topic, the units of the full pool that the smaller pool does not hold."""
    empty = np.zeros(0, dtype=str)
    return {topic: np.setdiff1d(keys, smaller.get(topic, empty), assume_unique=True)
            for topic, keys in full.items()}


def without_units(assessments: Assessments, removed: Mapping[str, Keys], unit: str, *,
                  pooled: bool = False) -> Assessments:
    """The qrels with the ``removed`` units unjudged: their records dropped (a topic keeps its
    place even when nothing of it stays judged), or, ``pooled`` (a sample's units not drawn),
    kept at level -1 where the qrels have one (see the module docstring). Records dropped from
    FOL qrels by article, the reduced qrels' prepared arrays are the full qrels' without the
    removed rows."""
    from inexeval.measures.focused_qrels import note_reduced

    articles = assessments.scale == "fol" and unit == "article" and not pooled
    topics = {}
    for topic, assessed in assessments.items():
        gone = removed.get(topic)
        if gone is None or not len(gone):
            topics[topic] = assessed
            continue
        hit = np.isin(unit_keys(assessed.files, assessed.paths, unit), gone)
        if pooled and _keeps_unjudged(assessed):
            topics[topic] = _unjudged(assessed, hit)
            continue
        topics[topic] = _restricted(assessed, ~hit)
        if articles:
            note_reduced(topics[topic], assessed, {topic: gone})
    reduced = replace(assessments, topics=topics)
    if articles:  # the task's prepared arrays: the full qrels' without the removed rows
        note_reduced(reduced, assessments, removed)
    return reduced


def _unjudged(assessed: TopicAssessments, hit: npt.NDArray[np.bool_]) -> TopicAssessments:
    """The records where ``hit`` at level -1 (``rsize`` -1 for FOL, without the passages of
    its documents that no judged record keeps)."""
    dimension = "relevance" if assessed.scale == "trec" else "rsize"
    dims = dict(assessed.dims)
    dims[dimension] = np.where(hit, -1, np.asarray(assessed.dims[dimension]))
    marked = replace(assessed, dims=dims)
    if assessed.scale == "trec":
        return marked
    still = frozenset(assessed.files[~hit & ~unjudged_records(assessed)].tolist())
    return replace(marked, highlights={d: v for d, v in assessed.highlights.items() if d in still},
                   passages={d: v for d, v in assessed.passages.items() if d in still})


def _restricted(assessed: TopicAssessments, keep: npt.NDArray[np.bool_]) -> TopicAssessments:
    """The records where ``keep``, and the per-document data of the documents still judged."""
    kept = assessed.with_units(keep)
    documents = kept.documents
    return replace(kept,
                   highlights={d: v for d, v in assessed.highlights.items() if d in documents},
                   best_entry_points={d: v for d, v in assessed.best_entry_points.items()
                                      if d in documents},
                   passages={d: v for d, v in assessed.passages.items() if d in documents},
                   aspects={d: v for d, v in assessed.aspects.items() if d in documents})


def condensed_runs(runs: Sequence[Run], assessments: Assessments, unit: str) -> list[Run]:
    """The runs without their unjudged results (Sakai 2007's condensed lists); a topic without
    qrels is left as it is (it is not evaluated)."""
    judged = {topic: j.keys for topic, j in judged_units(assessments, unit).items()}
    condensed = []
    for run in runs:
        topics = {}
        for topic, topic_run in run.topics.items():
            keys = judged.get(topic)
            if keys is None:
                topics[topic] = topic_run
                continue
            keep = np.isin(unit_keys(topic_run.files, topic_run.paths, unit), keys)
            topics[topic] = topic_run if keep.all() else topic_run.take(np.flatnonzero(keep))
        condensed.append(replace(run, topics=topics, columns=None))
    return condensed


def sampled_units(judged: Judged, rate: float, strategy: str, rng: np.random.Generator
                  ) -> Keys:
    """The units a sample at ``rate`` leaves unjudged (``random`` or ``stratified``; see the
    module docstring). Sizes round half up."""
    def draw(where: npt.NDArray[np.int64], least: int) -> npt.NDArray[np.int64]:
        count = min(len(where), max(least, math.floor(rate * len(where) + 0.5)))
        return rng.choice(where, size=count, replace=False) if count else where[:0]

    every = np.arange(len(judged.keys), dtype=np.int64)
    if strategy == "random":
        kept = draw(every, 1)
    elif strategy == "stratified":
        kept = np.concatenate([draw(every[judged.relevant], 1),
                               draw(every[~judged.relevant], 0)])
    else:
        raise InexevalError(f"unknown sampling {strategy!r} (random or stratified)")
    keep = np.zeros(len(every), dtype=bool)
    keep[kept] = True
    return judged.keys[~keep]


# ------------------------------------------------------------------------- agreement


def kendall_tau(truth: Floats, estimate: Floats) -> float:
    """Kendall's tau-b of two score vectors (:func:`inexeval.meta.agree.kendall`, as ``meta
    agree`` computes it: scipy's ``kendalltau`` to the last bit or two, without importing
    scipy.stats, a second of CPU), over the runs defined in both; NaN when fewer than two or
    when one is constant."""
    from inexeval.meta.agree import kendall

    both = ~(np.isnan(truth) | np.isnan(estimate))
    if both.sum() < 2:
        return math.nan
    return float(kendall(truth[both], estimate[both])[0])


def tau_ap(truth: Floats, estimate: Floats) -> float:
    """tau_AP (Yilmaz, Aslam and Robertson 2008, eq. 3) of the ranking by ``estimate`` against
    the ranking by ``truth``: ``2 / (N - 1) · Σ_{i=2..N} C(i) / (i - 1) - 1``, runs in the
    estimated order, ``C(i)`` the runs above rank ``i`` that the truth ranks above it; a pair
    tied in the truth counts as correctly ordered (either order is right, as ``agree``'s
    tau_AP), and ties in the estimate are averaged over their orders (Urbano and Marrero 2017's
    tau_AP_a, :func:`inexeval.meta.agree.tau_ap_a`). Runs undefined in either are left out;
    NaN for fewer than two runs or when either ranks nothing (every score equal), as Kendall's
    tau-b."""
    from inexeval.meta.agree import tau_ap_a

    both = ~(np.isnan(truth) | np.isnan(estimate))
    truth, estimate = truth[both], estimate[both]
    if len(truth) < 2 or np.all(truth == truth[0]) or np.all(estimate == estimate[0]):
        return math.nan
    return float(tau_ap_a(truth, estimate, truth_ties_correct=True))


def rmse(truth: Floats, estimate: Floats) -> float:
    """Root mean square error of the estimate, over the runs defined in both."""
    both = ~(np.isnan(truth) | np.isnan(estimate))
    if not both.any():
        return math.nan
    return float(np.sqrt(np.mean((estimate[both] - truth[both]) ** 2)))


# ------------------------------------------------------------------------- the study


@dataclass(frozen=True)
class Power:
    """The discriminative power computed at every level
    (:func:`inexeval.meta.power.discriminative_power`): the paired bootstrap or the randomised
    Tukey HSD (``method``), ``replicates`` replicates (default ``meta power``'s,
    :data:`inexeval.meta.power.REPLICATES`), significance level ``alpha``, ``seed`` the
    replicates' (the same at every level)."""

    method: str = "bootstrap"
    replicates: int | None = None
    alpha: float = 0.05
    seed: int = 42

    def of(self, scores: Scores, measure: str) -> float:
        """The share of run pairs whose ASL is below alpha, over the topics where the measure
        is defined for every run (a sampled qrels may leave a topic nothing relevant); NaN with
        fewer than two such topics."""
        from inexeval.meta.power import discriminative_power

        _, topics, values = scores.matrix(measure)
        defined = [topics[j] for j in np.flatnonzero(~np.isnan(values).any(axis=0))]
        if len(defined) < 2 or len(scores.runs) < 2:
            return math.nan
        if len(defined) < len(topics):
            scores = scores.select(topics=defined)
        return discriminative_power(scores, measure, method=self.method,
                                    replicates=self.replicates, alpha=self.alpha,
                                    seed=self.seed, executor=Serial()).discriminative_power


@dataclass(frozen=True)
class LevelRow:
    """One measure at one level of one iteration (the keys of ``meta pool --format json``)."""

    measure: str
    strategy: str
    level: float
    iteration: int
    judged: int
    kendall_tau: float
    tau_ap: float
    rmse: float
    discriminative_power: float | None


LEVEL_COLUMNS = ("measure", "strategy", "level", "iteration", "judged", "kendall_tau", "tau_ap",
                 "rmse", "discriminative_power")


@dataclass(frozen=True)
class StudyInputs:
    """A study's inputs: the full qrels, the runs, how they are scored and how the qrels were
    pooled (None for a sampling study). :meth:`read` gives them; a reader of files (the
    command line's, :mod:`inexeval.commands.meta.pool`) gives them read from their paths, on
    whichever process makes a study's shared inputs (:class:`inexeval.executor.ReadOnWorkers`:
    with ``--inputs shared``, each Dask worker)."""

    assessments: Assessments
    runs: Sequence[Run]
    scoring: Scoring
    pooling: Pooling | None = None
    note: str = ""
    """What reading them says (:attr:`inexeval.experiment.Experiment.note`)."""
    said: Sequence[Warning] = ()
    """The warnings reading them gave where they were read (a worker), to say again."""

    def read(self) -> StudyInputs:
        return self

    @property
    def plan(self) -> Plan:
        """The study's :class:`Plan` (the runs scored on the full qrels), made once (or, for
        inputs loaded from a machine's store before their plan was made, the plan the worker
        that stored them makes next: waited for outside ``cached_property``, whose lock in
        Python 3.11 is one for every instance)."""
        made = self.__dict__.get("plan")
        if made is None:
            later = self.__dict__.get("_plan_later")
            made = self.__dict__["plan"] = later() if later is not None else planned(self)
        return made

    @cached_property
    def assessed_runs(self) -> Sequence[Run]:
        """The runs without their topics that have no qrels (never scored: less to ship)."""
        return assessed_only(self.runs, self.assessments)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # what the tasks need: the plan made here, with every run, and the runs of the
        # assessed topics only, packed (:class:`ShippedRuns`: a dozen arrays per run)
        return self.__reduce_stored__(None)

    def __reduce_stored__(self, later: Callable[[], Plan] | None
                          ) -> tuple[Any, tuple[Any, ...]]:
        """How a machine's store keeps the inputs (:mod:`inexeval.executor_store`): as they
        are shipped, with their plan (made here first if need be, as shipping makes it) or,
        if it is made after, what gives it where they are loaded (``later``)."""
        plan = self.__dict__.get("plan")
        return _shipped_inputs, (self.assessments, ShippedRuns(self.assessed_runs),
                                 self.scoring, self.pooling, self.note,
                                 plan if plan is not None else
                                 later if later is not None else self.plan)


def _shipped_inputs(assessments: Assessments, runs: ShippedRuns, scoring: Scoring,
                    pooling: Pooling | None, note: str,
                    plan: Plan | Callable[[], Plan]) -> StudyInputs:
    """The inputs as shipped (or stored): the runs of the assessed topics, and the plan, or
    what gives it (:meth:`StudyInputs.__reduce_stored__`)."""
    inputs = StudyInputs(assessments, runs.runs, scoring, pooling, note)
    inputs.__dict__.update({"assessed_runs": runs.runs,
                            "plan" if isinstance(plan, Plan) else "_plan_later": plan})
    return inputs


class InputReader(Protocol):
    """What gives a study its :class:`StudyInputs` (read from files, or as they are)."""

    def read(self) -> StudyInputs: ...


@dataclass(frozen=True)
class Plan:
    """What the command needs of the inputs to plan a study, made with the study's shared
    inputs (on a worker with ``--inputs shared``): the runs' names, the assessed topics, the
    unit of the full pool (empty without one), the note of reading them, and every run's means
    on the full qrels (runs x ``measures``) with the warnings scoring them gave (said again by
    the command)."""

    names: list[str]
    topics: int
    unit: str
    note: str
    measures: tuple[str, ...]
    full_means: Floats
    warnings: list[Warning]


def planned(inputs: StudyInputs) -> Plan:
    """The :class:`Plan` of ``inputs`` (the runs scored on the full qrels, their warnings
    kept)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        full = inputs.scoring.scores(inputs.assessments, inputs.runs)
    return Plan([run.name for run in inputs.runs], len(inputs.assessments),
                inputs.pooling.unit if inputs.pooling is not None else "", inputs.note,
                tuple(full.measures), full.means(),
                [*inputs.said, *(w.message for w in caught if isinstance(w.message, Warning))])


def say_again(plan: Plan) -> None:
    """The warnings of scoring the runs on the full qrels, in this process."""
    for message in plan.warnings:
        warnings.warn(message, stacklevel=2)


@dataclass(frozen=True)
class _PoolWork:
    """What every task of a pool study needs: made once per process that runs its tasks
    (:func:`_pool_work`)."""

    inputs: StudyInputs
    coded: CodedRuns | None
    unit: str
    full_units: Mapping[str, Keys]
    judged: Mapping[str, Judged]
    condensed: bool
    power: Power | None

    @property
    def runs(self) -> Sequence[Run]:
        return self.inputs.assessed_runs

    @property
    def assessments(self) -> Assessments:
        return self.inputs.assessments

    def __after_stored__(self) -> Plan:
        """What a machine's store keeps once these are stored: the plan, made then."""
        return self.inputs.plan

    @property
    def scoring(self) -> Scoring:
        return self.inputs.scoring


def _pool_work(source: tuple[InputReader, bool, bool, Power | None]) -> _PoolWork:
    """A pool study's shared inputs: the inputs read, the runs coded (re-pooled levels), the
    full pool's units and the judged units."""
    reader, sampled, condensed, power = source
    inputs = reader.read()
    pooling = None if sampled else inputs.pooling
    if pooling is not None:
        check_pooled(pooling, len(inputs.runs))
    unit = (pooling.unit if pooling is not None else
            "element" if inputs.assessments.scale in ELEMENT_SCALES else "article")
    coded = (CodedRuns.of(inputs.runs, list(inputs.assessments), pooling)
             if pooling is not None else None)
    return _PoolWork(inputs, coded, unit, coded.pooled() if coded is not None else {},
                     judged_units(inputs.assessments, unit), condensed, power)


@dataclass(frozen=True)
class _LevelScores:
    """What a level's task gives back: the judged units left, and the runs' means (runs x
    ``measures``) and each measure's discriminative power on the reduced qrels."""

    judged: int
    measures: list[str]
    means: Floats
    power: list[float | None]


def _level_task(work: _PoolWork, task: tuple[str, float, int, int, int] | None
                ) -> Plan | _LevelScores:
    """One level (or one iteration of a sampling rate): the reduced qrels and the runs scored
    on them; task None, the study's :class:`Plan` (the runs on the full qrels: a task like the
    others, run while they run, as the levels do not need it, and given out last: on a
    cluster the first worker of each machine makes it once the inputs are stored, and it is
    ready by the time it comes, :mod:`inexeval.executor_store`). A task is its strategy, level
    and iteration, the study's seed and its index (its randomness: :func:`task_seed`)."""
    if task is None:
        return work.inputs.plan
    strategy, level, _, seed, index = task
    if strategy in ("depth", "articles"):
        assert work.coded is not None
        removed = left_out_units(work.full_units, work.coded.pooled(level=int(level)))
    else:
        rng = np.random.default_rng(task_seed(seed, index))
        removed = {topic: sampled_units(work.judged[topic], level, strategy, rng)
                   for topic in natural_order(work.judged)}
    sampled = strategy not in ("depth", "articles")
    reduced = without_units(work.assessments, removed, work.unit, pooled=sampled)
    runs = (condensed_runs(work.runs, reduced, work.unit) if work.condensed
            else list(work.runs))
    scores = work.scoring.quiet_scores(reduced, runs)
    judged = sum(int(np.count_nonzero(~np.isin(j.keys, removed[t]))) if t in removed
                 else len(j.keys) for t, j in work.judged.items())
    return _LevelScores(judged, list(scores.measures), scores.means(),
                        [work.power.of(scores, measure) if work.power is not None else None
                         for measure in scores.measures])


def _level_rows(task: tuple[str, float, int, int, int], level: _LevelScores,
                plan: Plan) -> list[LevelRow]:
    """The agreement of each measure at one level with the full qrels."""
    strategy, value, iteration, _, _ = task
    rows = []
    for m, measure in enumerate(plan.measures):
        k = level.measures.index(measure)
        truth, estimate = plan.full_means[:, m], level.means[:, k]
        rows.append(LevelRow(measure, strategy, value, iteration, level.judged,
                             kendall_tau(truth, estimate), tau_ap(truth, estimate),
                             rmse(truth, estimate), level.power[k]))
    return rows


def pool_study(assessments: Assessments, runs: Sequence[Run], scoring: Scoring, *,
               pooling: Pooling | None = None, levels: Sequence[int] = (),
               sample: str | None = None, rates: Sequence[float] = (), iterations: int = 1,
               condensed: bool = False, seed: int = 42, power: Power | None = None,
               executor: Executor | None = None) -> list[LevelRow]:
    """The agreement of smaller pools (``pooling`` and its ``levels``: depths or article
    counts) or sampled judgements (``sample`` ``random``/``stratified`` at ``rates``,
    ``iterations`` each) with the full qrels; rows by measure, then level, then iteration."""
    if not runs:
        raise InexevalError("a pool study needs runs")
    return read_pool_study(StudyInputs(assessments, runs, scoring, pooling), levels=levels,
                           sample=sample, rates=rates, iterations=iterations,
                           condensed=condensed, seed=seed, power=power, executor=executor)[0]


def read_pool_study(reader: InputReader, *, levels: Sequence[int] = (),
                    sample: str | None = None, rates: Sequence[float] = (),
                    iterations: int = 1, condensed: bool = False, seed: int = 42,
                    power: Power | None = None, executor: Executor | None = None,
                    pooled_by: str | None = None,
                    say: Callable[[Plan], None] | None = None) -> tuple[list[LevelRow], Plan]:
    """:func:`pool_study` of the inputs ``reader`` reads (on each process that runs the tasks,
    once; ``pooled_by``, ``depth`` or ``articles``, says here how they were pooled when the
    reader is not :class:`StudyInputs`; ``say`` is given the plan first), and the study's
    :class:`Plan`."""
    if isinstance(reader, StudyInputs):
        pooled_by = reader.pooling.strategy if reader.pooling is not None else None
    if sample is None and (pooled_by is None or not levels):
        raise InexevalError("give the levels (--depths or --article-counts, with how the qrels "
                            "were pooled) or a sample (--sample random|stratified --rates)")
    if sample is not None:
        if sample not in ("random", "stratified"):
            raise InexevalError(f"unknown --sample {sample!r} (random or stratified)")
        if not rates or not all(0 < r <= 1 for r in rates):
            raise InexevalError("--rates are sampling rates in (0, 1]")
        if iterations < 1:
            raise InexevalError("--iterations must be at least 1")
    if pooled_by is not None and any(level < 1 for level in levels):
        raise InexevalError("a pool depth or article count is at least 1")
    executor = executor or Serial()
    work = ReadOnWorkers(_pool_work, (reader, sample is not None, condensed, power))
    tasks: list[tuple[str, float, int]] = (
        [(sample, float(rate), i) for rate in rates for i in range(1, iterations + 1)]
        if sample is not None else
        [(pooled_by, level, 1) for level in levels] if pooled_by is not None else [])
    # each task's seed made where it runs: numpy.random is not imported here (7 ms of a
    # command that only gives the tasks to a cluster)
    seeded = [(*task, seed, i) for i, task in enumerate(tasks)]
    try:
        done = executor.map(_level_task, [*seeded, None], work, description="levels")
    finally:
        work.forget()
    plan = done[-1]
    assert isinstance(plan, Plan)
    if say is not None:
        say(plan)
    say_again(plan)
    rows = [row for task, level in zip(seeded, done[:-1]) if isinstance(level, _LevelScores)
            for row in _level_rows(task, level, plan)]
    order = {m: i for i, m in enumerate(plan.measures)}
    return sorted(rows, key=lambda r: order[r.measure]), plan


def row_values(row: Any, columns: Sequence[str]) -> list[Any]:
    """A row's values in ``columns`` order (None for an undefined number)."""
    values = [getattr(row, c) for c in columns]
    return [None if isinstance(v, float) and math.isnan(v) else v for v in values]
