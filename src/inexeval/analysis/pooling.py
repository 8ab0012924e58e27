"""Pooling: from submitted runs to the units each topic's assessor judges.

Two procedures of the INEX campaigns:

* **depth** ``K``: the union of every run's top ``K`` results per topic (INEX 2002: ``K = 100``
  from at most 3 runs per group; Kazai et al. 2004, §3);
* **round-robin to N articles**: rank 1 of every run in the given order, then rank 2, ..., each
  result adding its article, until the topic's pool holds ``N`` distinct articles (INEX
  2006-2010 article pools); the pool stops at exactly ``N`` articles, possibly inside a round.

A unit is an article (an element or passage result counts as its document) or an element
(element runs only). A run's rank of a result is its 1-based position in the run's evaluation
order (:meth:`~inexeval.model.run.TopicRun.ordered`); a unit's ``min_rank`` is the best rank at
which any pooled run returned it and ``runs`` the number of runs that returned it within the
depth, or, for round-robin, at a rank no deeper than the round in which the pool was complete.

Everything here is pure: runs in, :class:`~inexeval.model.pool.Pool` or statistics out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from inexeval.analysis.sampling import (
    Stratum,
    ap_prior,
    covered_ranks,
    statap_sample,
    stratified_sample,
)
from inexeval.analysis.strategies import (
    ADAPTIVE,
    Candidates,
    StrategyOptions,
    candidates,
    judging_order,
)
from inexeval.errors import InexevalError
from inexeval.model.assessments import Assessments
from inexeval.model.pool import Pool, TopicPool, topic_order
from inexeval.model.run import Run, TopicRun, default_order, make_topic_run

IntArray = npt.NDArray[np.int64]
_SEPARATOR = "\t"


def select_runs(names: Sequence[str], group: str, runs_per_group: int) -> list[int]:
    """Positions of the runs kept when at most ``runs_per_group`` runs of each group are pooled,
    the first ones in the given order (INEX 2002: 3 runs per group). A run's group is the first
    match group of the regular expression ``group`` searched in its name (the whole match when
    the expression has no group); a name without a match is an error."""
    try:
        pattern = re.compile(group)
    except re.error as error:
        raise InexevalError(f"--group {group!r} is not a regular expression: {error}") from None
    kept: list[int] = []
    counts: dict[str, int] = {}
    for i, name in enumerate(names):
        match = pattern.search(name)
        if match is None:
            raise InexevalError(f"run name {name!r} does not match --group {group!r}")
        key = match.group(1) if pattern.groups else match.group(0)
        counts[key] = counts.get(key, 0) + 1
        if counts[key] <= runs_per_group:
            kept.append(i)
    return kept


def pool_topic(units: Sequence[IntArray], articles: Sequence[IntArray], *,
               depth: int | None = None, target_articles: int | None = None
               ) -> tuple[IntArray, IntArray, IntArray]:
    """Pool one topic. ``units[r]`` and ``articles[r]`` hold run ``r``'s results in rank order as
    integer codes of the unit and of its article (the same arrays when pooling articles).
    Exactly one of ``depth`` and ``target_articles`` is given.

    Returns the pooled unit codes (ascending), their ``min_rank`` and ``runs``."""
    lengths = np.array([len(u) for u in units], dtype=np.int64)
    unit = np.concatenate(units) if len(units) else np.zeros(0, dtype=np.int64)
    article = np.concatenate(articles) if len(articles) else np.zeros(0, dtype=np.int64)
    run = np.repeat(np.arange(len(units), dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    rank = np.arange(len(unit), dtype=np.int64) - np.repeat(starts, lengths) + 1
    if depth is not None:
        inside = rank <= depth
        pooled = np.unique(unit[inside])
    elif target_articles is not None:
        order = np.lexsort((run, rank))
        inside, pooled = _round_robin(unit[order], article[order], rank[order], target_articles)
        inside = inside[np.argsort(order)]
    else:
        raise ValueError("pool_topic needs depth or target_articles")
    counted = inside & np.isin(unit, pooled)
    position = np.searchsorted(pooled, unit[counted])
    min_rank = np.full(len(pooled), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(min_rank, position, rank[counted])
    pairs = np.unique(position * max(len(units), 1) + run[counted])
    runs = np.bincount(pairs // max(len(units), 1), minlength=len(pooled)).astype(np.int64)
    return pooled, min_rank, runs


def _round_robin(unit: IntArray, article: IntArray, rank: IntArray, target: int
                 ) -> tuple[npt.NDArray[np.bool_], IntArray]:
    """Results in round-robin order: which count (rank no deeper than the final round) and the
    pooled units (those met before the ``target``-th distinct article was complete)."""
    if len(unit) == 0:
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=np.int64)
    _, first = np.unique(article, return_index=True)
    first.sort()
    stop = int(first[target - 1]) if len(first) >= target else len(unit) - 1
    final_round = int(rank[stop])
    return rank <= final_round, np.unique(unit[: stop + 1])


@dataclass(frozen=True)
class CodedPool:
    """One topic's results of every run as integer codes: ``keys`` are the distinct units
    (``file`` or ``file TAB path``) sorted, with their ``files`` and ``paths``;
    ``units[r]``/``articles[r]`` are run ``r``'s codes of the unit and of its article, in rank
    order."""

    keys: npt.NDArray[np.str_]
    files: npt.NDArray[np.object_]
    paths: npt.NDArray[np.object_]
    units: list[IntArray]
    articles: list[IntArray]


def code_pool(topic_runs: Sequence[TopicRun], unit: str, limit: int) -> CodedPool:
    """Code the first ``limit`` results of each run."""
    files = [tr.files[:limit] for tr in topic_runs]
    bounds = list(pairwise(np.cumsum([0, *(len(f) for f in files)])))
    all_files = np.concatenate(files).astype(str)
    all_paths = np.concatenate([tr.paths[:limit] for tr in topic_runs]).astype(str)
    file_keys, first, article_codes = np.unique(all_files, return_index=True,
                                                return_inverse=True)
    if unit == "article":
        keys, codes = file_keys, article_codes
        paths = np.full(len(keys), "", dtype=object)
    else:
        keys, first, codes = np.unique(np.char.add(np.char.add(all_files, _SEPARATOR), all_paths),
                                       return_index=True, return_inverse=True)
        paths = all_paths[first].astype(object)
    return CodedPool(keys, all_files[first].astype(object), paths,
                  [codes[a:b].astype(np.int64) for a, b in bounds],
                  [article_codes[a:b].astype(np.int64) for a, b in bounds])


def runs_of_topic(runs: Sequence[Run], topic: str, order: str | None) -> list[TopicRun]:
    """Each run's results of ``topic`` in ``order`` (None: :func:`default_order`)."""
    empty = make_topic_run(topic, [])
    return [r.topics[topic].ordered(order or default_order(r)) if topic in r.topics else empty
            for r in runs]


def _check_unit(runs: Sequence[Run], unit: str) -> None:
    if unit not in ("article", "element"):
        raise InexevalError(f"unknown pool unit {unit!r} (known: article, element)")
    if unit == "element":
        for r in runs:
            if r.kind != "element":
                raise InexevalError(f"--unit element pools element runs only; run {r.name!r} "
                                    f"has {r.kind} results", r.source)


def pool_runs(runs: Sequence[Run], *, depth: int | None = None, articles: int | None = None,
              unit: str = "article", topics: Sequence[str] | None = None,
              order: str | None = None) -> Pool:
    """Pool ``runs`` (in the given order) to ``depth`` results per run or round-robin to
    ``articles`` articles per topic (exactly one of the two), pooling ``unit`` (``article`` or
    ``element``) over ``topics`` (default: every topic of any run). Units are sorted by file,
    then path; topics in numeric order where ids are numbers."""
    if (depth is None) == (articles is None):
        raise InexevalError("give one of --depth and --articles")
    if (depth if depth is not None else articles or 0) < 1:
        raise InexevalError("the pool depth or article count must be at least 1")
    _check_unit(runs, unit)
    wanted = topics if topics is not None else list(dict.fromkeys(t for r in runs for t in r))
    pools: dict[str, TopicPool] = {}
    for topic in sorted(set(wanted), key=topic_order):
        topic_runs = runs_of_topic(runs, topic, order)
        longest = max((len(tr) for tr in topic_runs), default=0)
        # Only ranks up to the depth, or up to the round in which the pool is complete, matter:
        # code a prefix of every run (first guess: twice the rounds that N articles need when
        # every result is a new one), longer until the pool is complete or the runs end.
        limit = depth if depth is not None else 2 * -(-(articles or 1) // max(len(runs), 1))
        while True:
            coded = code_pool(topic_runs, unit, limit)
            pooled, min_rank, counts = pool_topic(coded.units, coded.articles, depth=depth,
                                                  target_articles=articles)
            complete = len(set(coded.files[pooled])) == articles
            if depth is not None or complete or limit >= longest:
                break
            limit *= 2
        if len(pooled):
            pools[topic] = TopicPool(topic, coded.files[pooled], coded.paths[pooled], min_rank,
                                     counts, np.zeros(len(pooled), dtype=np.int64))
    return Pool(pools)


@dataclass(frozen=True)
class TopicStatistics:
    """Pool statistics of one topic: ``units`` pooled, distinct ``articles``, ``unique`` units
    (returned by exactly one run) and, when the runs are known, ``contributions[run name]``:
    the units only that run returned (Kazai et al. 2004, §3, report pool sizes this way)."""

    topic: str
    units: int
    articles: int
    unique: int
    contributions: Mapping[str, int]


def pool_statistics(pool: Pool, runs: Sequence[Run] = (), order: str | None = None
                    ) -> list[TopicStatistics]:
    """Per topic statistics of ``pool``. With the pooled ``runs`` (the ones given to
    :func:`pool_runs`, with the same ``order``), each unit that one run alone returned is
    credited to the run that holds it at the unit's ``min_rank``; a unit no run or several runs
    hold there means the runs are not the pool's, an error."""
    names = [r.name for r in runs]
    if len(set(names)) < len(names):
        names = [str(r.source or r.name) for r in runs]
    stats = []
    for topic, tp in pool.items():
        single = tp.runs == 1
        contributions = {name: 0 for name in names}
        if runs:
            owners = _owners(tp, runs_of_topic(runs, topic, order), pool, single)
            for owner in owners:
                contributions[names[owner]] += 1
        stats.append(TopicStatistics(topic, len(tp), len(tp.articles), int(single.sum()),
                                     contributions))
    return stats


def _owners(tp: TopicPool, topic_runs: Sequence[TopicRun], pool: Pool,
            single: npt.NDArray[np.bool_]) -> IntArray:
    """For each unit of ``tp`` that one run alone returned, the position of that run."""
    unit = pool.unit
    coded = code_pool(topic_runs, unit, int(tp.min_ranks.max()))
    wanted = (tp.files[single] if unit == "article"
              else tp.files[single] + _SEPARATOR + tp.paths[single]).astype(str)
    ranks = tp.min_ranks[single]
    code = np.searchsorted(coded.keys, wanted)
    code = np.minimum(code, max(len(coded.keys) - 1, 0))
    owners = np.full(len(wanted), -1, dtype=np.int64)
    holders = np.zeros(len(wanted), dtype=np.int64)
    for r, units in enumerate(coded.units):
        position = np.minimum(ranks, len(units)) - 1
        holds = (ranks <= len(units)) & (len(coded.keys) > 0)
        if len(units):
            holds &= (units[np.maximum(position, 0)] == code) & (coded.keys[code] == wanted)
        owners[holds] = r
        holders += holds
    bad = np.flatnonzero(holders != 1)
    if len(bad):
        i = int(bad[0])
        shown = str(wanted[i]).replace(_SEPARATOR, " ")
        how = "no run" if holders[i] == 0 else f"{int(holders[i])} runs"
        line = int(tp.lines[np.flatnonzero(single)[i]]) or None
        raise InexevalError(f"topic {tp.topic}: {how} of those given return {shown} at rank "
                            f"{int(ranks[i])}, yet the pool says one run did: give the pooled "
                            "runs with the options they were pooled with", pool.source, line)
    return owners


def unit_relevance(assessments: Assessments | None, topic: str, files: npt.NDArray[np.object_],
                   paths: npt.NDArray[np.object_], unit: str) -> npt.NDArray[np.bool_] | None:
    """Whether each unit is relevant by the topic's qrels (an unjudged unit is not): a TREC
    document of level 1 or more, an article or element a FOL qrels line gives relevant
    characters (``rsize`` > 0); an article is relevant when any of its judged units is. None
    without assessments."""
    if assessments is None:
        return None
    relevant = np.zeros(len(files), dtype=bool)
    ta = assessments.get(topic)
    if ta is None or not len(ta):
        return relevant
    if ta.scale == "trec":
        level = ta.dim("relevance").astype(np.int64) >= 1
    elif ta.scale == "fol":
        level = ta.dim("rsize").astype(np.float64) > 0
    else:
        raise InexevalError(f"pooling strategies simulate on TREC or FOL qrels, not {ta.scale} "
                            "assessments", ta.source)
    if unit == "article":
        good = set(ta.files[level].tolist())
        return np.fromiter((f in good for f in files.tolist()), dtype=bool, count=len(files))
    good_pairs = set(zip(ta.files[level].tolist(), ta.paths[level].tolist()))
    return np.fromiter(((f, p) in good_pairs for f, p in zip(files.tolist(), paths.tolist())),
                       dtype=bool, count=len(files))


@dataclass(frozen=True)
class TopicCandidates:
    """One topic's depth-k pool ready for the strategies: the strategies' view
    (:class:`~inexeval.analysis.strategies.Candidates`), each unit's ``files``, ``paths``,
    ``min_ranks`` and ``runs`` (the depth pool's columns), all indexed by the unit's code."""

    candidates: Candidates
    files: npt.NDArray[np.object_]
    paths: npt.NDArray[np.object_]
    min_ranks: IntArray
    runs: IntArray


def topic_candidates(runs: Sequence[Run], topic: str, depth: int, unit: str = "article",
                     order: str | None = None) -> TopicCandidates:
    """The depth-``depth`` pool of ``topic`` with each run's distinct units in rank order."""
    topic_runs = runs_of_topic(runs, topic, order)
    coded = code_pool(topic_runs, unit, depth)
    pooled, min_rank, counts = pool_topic(coded.units, coded.articles, depth=depth)
    c = pool_candidates(topic_runs, coded, depth)
    return TopicCandidates(c, coded.files[pooled], coded.paths[pooled], min_rank, counts)


def pool_candidates(topic_runs: Sequence[TopicRun], coded: CodedPool, depth: int) -> Candidates:
    """The strategies' view of a topic's depth pool, with the runs' own scores (which ``take``
    fuses min-max normalised): the one construction of ``pool --strategy`` and of the pooling
    study (``meta pooling``)."""
    scores = [np.asarray(tr.rsv[:depth], dtype=np.float64) for tr in topic_runs]
    return candidates(coded.units, len(coded.keys), depth, scores)


def strategy_pool(runs: Sequence[Run], strategy: str, *, depth: int = 100,
                  budget: int | None = None, unit: str = "article",
                  topics: Sequence[str] | None = None, order: str | None = None,
                  options: StrategyOptions | None = None,
                  assessments: Assessments | None = None) -> Pool:
    """Pool ``runs`` with a strategy (:mod:`inexeval.analysis.strategies`): per topic, the
    first ``budget`` units (all without one) of the depth-``depth`` pool in the order the
    strategy judges them, the pool file keeping that order. The adaptive strategies are
    simulated on ``assessments``; without them they give the whole depth pool in ``depth``
    order, the start an assessor's judgements then reorder."""
    options = options or StrategyOptions()
    _check_unit(runs, unit)
    if depth < 1 or (budget is not None and budget < 1):
        raise InexevalError("the pool depth and the budget must be at least 1")
    if strategy in ADAPTIVE and assessments is None and budget is not None:
        raise InexevalError(f"--budget with the adaptive {strategy} strategy needs --qrels to "
                            "simulate it (without, the pool is the whole depth pool)")
    wanted = topics if topics is not None else list(dict.fromkeys(t for r in runs for t in r))
    seeds = np.random.SeedSequence(options.seed).spawn(len(set(wanted)))
    pools: dict[str, TopicPool] = {}
    for i, topic in enumerate(sorted(set(wanted), key=topic_order)):
        tc = topic_candidates(runs, topic, depth, unit, order)
        relevant = unit_relevance(assessments, topic, tc.files, tc.paths, unit)
        how = "depth" if strategy in ADAPTIVE and relevant is None else strategy
        chosen = judging_order(how, tc.candidates, relevant, options, budget,
                               np.random.default_rng(seeds[i]))
        if len(chosen):
            pools[topic] = TopicPool(topic, tc.files[chosen], tc.paths[chosen],
                                     tc.min_ranks[chosen], tc.runs[chosen],
                                     np.zeros(len(chosen), dtype=np.int64))
    return Pool(pools)


@dataclass(frozen=True)
class SampledPool:
    """A stratified sample of a pool: ``pool`` holds, per topic, every unit some stratum covers,
    in the fused ranking's order; ``strata``, ``probabilities`` and ``drawn`` give each unit's
    stratum name, inclusion probability and whether it was drawn (to be judged)."""

    pool: Pool
    strata: dict[str, list[str]]
    probabilities: dict[str, list[float]]
    drawn: dict[str, list[bool]]


def sampled_pool(runs: Sequence[Run], strata: tuple[Stratum, ...] = (), *,
                 method: str = "stratified", budget: int | None = None, depth: int = 100,
                 unit: str = "article", topics: Sequence[str] | None = None,
                 order: str | None = None, options: StrategyOptions | None = None
                 ) -> SampledPool:
    """Sample each topic's depth-``depth`` pool (:mod:`inexeval.analysis.sampling`), topic
    ``i`` (in topic order) with the ``i``-th child of ``SeedSequence(options.seed)``:
    ``stratified``, the pool ranked by ``options.fusion`` (``take``'s order) and cut into
    ``strata``; ``statap``, about ``budget`` units drawn by the AP prior."""
    options = options or StrategyOptions()
    _check_unit(runs, unit)
    if method not in ("stratified", "statap"):
        raise InexevalError(f"unknown sampling {method!r} (known: stratified, statap)")
    if method == "statap" and (budget is None or budget < 1):
        raise InexevalError("--sample statap needs --budget N (units drawn per topic)")
    if method == "stratified" and not strata:
        raise InexevalError("--sample stratified needs --strata")
    wanted = topics if topics is not None else list(dict.fromkeys(t for r in runs for t in r))
    chosen = sorted(set(wanted), key=topic_order)
    seeds = np.random.SeedSequence(options.seed).spawn(len(chosen))
    pools: dict[str, TopicPool] = {}
    names: dict[str, list[str]] = {}
    probabilities: dict[str, list[float]] = {}
    drawn: dict[str, list[bool]] = {}
    for i, topic in enumerate(chosen):
        tc = topic_candidates(runs, topic, depth, unit, order)
        rng = np.random.default_rng(seeds[i])
        if method == "statap":
            c = tc.candidates
            weight = ap_prior(list(c.lists), list(c.ranks), c.size, depth)
            kept, stratum_names, sample = statap_sample(weight, budget or 1, rng)
        else:
            ranking = judging_order("take", tc.candidates, None, options)
            sample = stratified_sample(len(ranking), strata, rng)
            kept = ranking[covered_ranks(len(ranking), strata)]
            stratum_names = [s.name for s in strata]
        if not len(kept):
            continue
        pools[topic] = TopicPool(topic, tc.files[kept], tc.paths[kept], tc.min_ranks[kept],
                                 tc.runs[kept], np.zeros(len(kept), dtype=np.int64))
        names[topic] = [stratum_names[s] for s in sample.stratum.tolist()]
        probabilities[topic] = sample.probability.tolist()
        drawn[topic] = sample.drawn.tolist()
    return SampledPool(Pool(pools), names, probabilities, drawn)
