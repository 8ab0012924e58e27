"""Inferred measures on sampled qrels (:mod:`inexeval.formats.sampled`).

``xinfAP`` and ``infNDCG`` are computed as NIST's ``sample_eval.pl`` (the version of 10 Oct 2011)
computes them, its smoothing constants and roundings included; the script prints xinfAP under
the name "infAP" (Yilmaz, Kanoulas and Aslam 2008, "A simple and efficient sampling method for
estimating AP and NDCG", SIGIR). For a topic, every document of the qrels is in the universe
(the pool), those with a level of 0 or more were sampled, its stratum is its category (sampled
FOL qrels, :func:`inexeval.formats.fol.read_fol_qrels`: the articles, level 1 for relevant
characters, 0 for none, -1 for ``rsize`` -1, not sampled); the run
is ranked as trec_eval ranks it (score descending, ties by document id descending) and read to
its first ``max_results`` (1000) documents (a document repeated, as the article of several
passages, counts at its first result).

* ``xinfAP``: the number of relevant documents is estimated per stratum (sampled relevant ×
  documents / sampled); at a relevant retrieved document at rank ``k``, the precision above it
  is estimated per stratum from the documents above, ``(relevant + 0.00001) / (sampled +
  0.00003)`` weighted by the stratum's share of the pooled documents above, and the precision
  at ``k`` is ``1/k + (pooled above / k) × that``; within a stratum those precisions are
  averaged over its sampled relevant documents, and the strata weighted by their estimated
  share of the relevant documents.
* ``infNDCG``: the gain (the level) of each relevant retrieved document discounted by
  ``log2(rank + 1)``, summed per stratum, divided by the stratum's sampled documents retrieved
  and weighted by its share of the pooled documents retrieved, times the pooled documents
  retrieved; over the ideal DCG, made of the estimated number of documents of each level
  (rounded to the nearest integer; grades in the script's order, as strings, highest first)
  and cut at rank ``max_results``.
* ``statAP`` (Aslam, Pavlu and Yilmaz 2006, "A statistical method for system evaluation using
  incomplete judgments", SIGIR; Pavlu and Aslam 2007): each sampled document weighs the inverse
  of its inclusion probability (in a stratum, sampled / documents); the estimated number of
  relevant documents is ``R = sum rel/p``, the precision at a sampled relevant document at rank
  ``k`` is ``(1 + sum of rel/p above it) / k`` and ``statAP = sum precision/p / R`` over the
  sampled relevant documents retrieved. ``statAP_var`` is its estimated variance, the
  stratified delete-one jackknife (Wolter 2007, "Introduction to variance estimation", §4.5;
  sampling without replacement within each stratum); ``statAP ± 1.96 sqrt(statAP_var)`` is
  an approximate 95% confidence interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError
from inexeval.measures.common import judged_positions
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model import TopicAssessments, TopicRun

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

MAX_RESULTS = Param("max_results", int, 1000,
                    "documents of the run read (sample_eval.pl's $maxResultSize)")


@dataclass(frozen=True)
class _Strata:
    """A topic's sampled qrels by stratum (strata in Perl's string order): ``docs``,
    ``sampled`` (level >= 0) and ``relevant`` (level > 0) counts, the estimated number of
    relevant documents and the ideal DCG of ``sample_eval.pl``."""

    names: tuple[str, ...]
    stratum: IntArray
    """Each judged unit's stratum, as an index into ``names``."""
    docs: FloatArray
    sampled: FloatArray
    relevant: FloatArray
    num_rel: float
    ideal_dcg: dict[int, float]
    """The ideal DCG for each ``max_results``."""
    levels: IntArray


def sampled_levels(ta: TopicAssessments) -> IntArray:
    """Each judged unit's level: the ``relevance`` of sampled qrels; of sampled FOL qrels,
    1 for an article with relevant characters, 0 for one without, -1 for one not sampled
    (``rsize`` -1)."""
    if ta.scale == "fol":
        rsize = ta.dim("rsize").astype(np.int64)
        return np.where(rsize < 0, -1, (rsize > 0).astype(np.int64))
    return ta.dim("relevance").astype(np.int64)


def _strata(ta: TopicAssessments, max_results: int) -> _Strata:
    if "stratum" not in ta.dims:
        raise InexevalError(f"topic {ta.topic}: the inferred measures need sampled qrels "
                            "(topic iter docno stratum rel, or FOL qrels with a stratum "
                            "field)", ta.source)
    levels = sampled_levels(ta)
    names_of = ta.dim("stratum").astype(str)
    names, stratum = np.unique(names_of, return_inverse=True)  # Perl's `sort keys`: by string
    k = len(names)
    docs = np.bincount(stratum, minlength=k).astype(np.float64)
    sampled = np.bincount(stratum, weights=levels >= 0, minlength=k).astype(np.float64)
    relevant = np.bincount(stratum, weights=levels > 0, minlength=k).astype(np.float64)
    num_rel = 0.0
    for c in range(k):
        if sampled[c] != 0:
            num_rel += relevant[c] * docs[c] / sampled[c]
    per_grade: dict[str, float] = {}
    for c in range(k):
        in_c = levels[(stratum == c) & (levels > 0)]
        for grade in sorted({str(g) for g in in_c.tolist()}):
            count = float(np.count_nonzero(in_c == int(grade)))
            per_grade[grade] = per_grade.get(grade, 0.0) + count * docs[c] / sampled[c]
    ideal = 0.0
    start = 0
    for grade in sorted(per_grade, reverse=True):
        count = int(per_grade[grade] + 0.5)
        for r in range(start + 1, start + count + 1):
            ideal += int(grade) / (np.log(r + 1) / np.log(2))
            if r >= max_results:
                break
        start += count
    return _Strata(tuple(names.tolist()), stratum.astype(np.int64), docs, sampled, relevant,
                   num_rel, {max_results: ideal}, levels)


@dataclass(frozen=True)
class _Walk:
    """The run read down its ranks as ``sample_eval.pl`` reads it."""

    strata: _Strata
    rank: IntArray
    """1-based ranks of the relevant retrieved documents."""
    stratum: IntArray
    """Their strata."""
    level: IntArray
    """Their levels."""
    precision: FloatArray
    """The estimated precision at each of them."""
    pooled: float
    """Pooled documents retrieved (``$num_depth100`` at the end)."""
    docs: FloatArray
    sampled: FloatArray
    """Pooled and sampled documents retrieved, per stratum."""


def _positions(ta: TopicAssessments, run: TopicRun, ctx: TopicContext, max_results: int
               ) -> IntArray:
    """Each ranked document's position in the qrels (-1 if not there), a document counted
    once, at its first result (a passage run names an article once per passage), down to
    ``max_results`` documents."""
    pos = judged_positions(ta, run, ctx)
    files = run.files.astype(str)
    if len(files) > 1:
        _, first = np.unique(files, return_index=True)
        if len(first) < len(files):
            pos = pos[np.sort(first)]
    return pos[:max_results]


def _walk(ta: TopicAssessments, run: TopicRun, ctx: TopicContext, max_results: int) -> _Walk:
    def make() -> _Walk:
        strata = ctx.shared_cached(("sampled strata", id(ta), max_results),
                                   lambda: _strata(ta, max_results))
        pos = _positions(ta, run, ctx, max_results)
        k = len(strata.names)
        pooled = pos >= 0
        stratum = np.where(pooled, strata.stratum[np.maximum(pos, 0)], -1)
        level = np.where(pooled, strata.levels[np.maximum(pos, 0)], -1)
        n = len(pos)
        # counts of the documents above each rank, per stratum (exclusive prefix sums)
        one_hot = np.zeros((n + 1, k))
        rows = np.flatnonzero(pooled)
        one_hot[rows + 1, stratum[rows]] = 1.0
        docs_above = np.cumsum(one_hot, axis=0)
        sampled_hot = one_hot.copy()
        sampled_hot[rows + 1, stratum[rows]] = (level[rows] >= 0).astype(np.float64)
        sampled_above = np.cumsum(sampled_hot, axis=0)
        relevant_hot = one_hot.copy()
        relevant_hot[rows + 1, stratum[rows]] = (level[rows] > 0).astype(np.float64)
        relevant_above = np.cumsum(relevant_hot, axis=0)
        hits = np.flatnonzero(level > 0)
        ranks = hits + 1
        depth = docs_above[hits].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(depth[:, None] != 0, docs_above[hits] / depth[:, None], 0.0)
            ratio = (relevant_above[hits] + 0.00001) / (sampled_above[hits] + 0.00003)
        above = np.where(share != 0, share * ratio, 0.0).sum(axis=1)
        precision = 1.0 / ranks + (depth / ranks) * above
        return _Walk(strata, ranks.astype(np.int64), stratum[hits], level[hits], precision,
                     float(docs_above[n].sum()), docs_above[n], sampled_above[n])

    return ctx.cached(("sampled walk", id(ta), max_results), make)  # type: ignore[no-any-return]


def _xinfap(walk: _Walk) -> float:
    s = walk.strata
    sap = np.bincount(walk.stratum, weights=walk.precision, minlength=len(s.names))
    ap = 0.0
    for c in range(len(s.names)):
        if s.sampled[c] != 0 and s.num_rel != 0:
            share = s.relevant[c] * s.docs[c] / s.sampled[c] / s.num_rel
            ap += share * (sap[c] / s.relevant[c] if s.relevant[c] != 0 else 0.0)
    return ap


def _infndcg(walk: _Walk, max_results: int) -> float:
    s = walk.strata
    gain = np.bincount(walk.stratum, weights=walk.level / (np.log(walk.rank + 1.0) / np.log(2)),
                       minlength=len(s.names))
    dcg = 0.0
    for c in range(len(s.names)):
        if walk.pooled != 0 and walk.sampled[c] != 0:
            dcg += walk.docs[c] / walk.pooled * gain[c] / walk.sampled[c]
    ideal = s.ideal_dcg[max_results]
    return walk.pooled * dcg / ideal if ideal != 0 else 0.0


def _statap_terms(ta: TopicAssessments, run: TopicRun, ctx: TopicContext, max_results: int
                  ) -> tuple[_Strata, FloatArray, FloatArray, FloatArray]:
    """statAP's parts for each judged unit of the topic: its inverse inclusion probability,
    whether it is a sampled relevant unit, and its precision term (0 unless it is also
    retrieved)."""
    s: _Strata = ctx.shared_cached(("sampled strata", id(ta), max_results),
                                   lambda: _strata(ta, max_results))
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = np.where(s.sampled > 0, s.docs / s.sampled, 0.0)[s.stratum]
    relevant = (s.levels > 0).astype(np.float64)
    weight = relevant * inverse
    pos = _positions(ta, run, ctx, max_results)
    retrieved = np.where(pos >= 0, weight[np.maximum(pos, 0)], 0.0)
    above = np.cumsum(retrieved) - retrieved
    ranks = np.arange(1, len(pos) + 1, dtype=np.float64)
    hits = retrieved > 0
    precision = np.zeros(len(s.levels))
    precision[pos[hits]] = (1.0 + above[hits]) / ranks[hits]
    return s, inverse, relevant, precision


def _statap(ta: TopicAssessments, run: TopicRun, ctx: TopicContext, max_results: int) -> float:
    _, inverse, relevant, precision = _statap_terms(ta, run, ctx, max_results)
    estimated_relevant = float(np.sum(relevant * inverse))
    if estimated_relevant == 0:
        return 0.0
    return float(np.sum(precision * inverse) / estimated_relevant)


def _statap_of(inverse: FloatArray, relevant: FloatArray, pos: IntArray) -> float:
    """statAP from each judged unit's inverse inclusion probability and relevance (0 for a unit
    not sampled) and the run's positions into them."""
    weight = relevant * inverse
    estimated_relevant = float(weight.sum())
    if estimated_relevant == 0:
        return 0.0
    retrieved = np.where(pos >= 0, weight[np.maximum(pos, 0)], 0.0)
    above = np.cumsum(retrieved) - retrieved
    hits = np.flatnonzero(retrieved > 0)
    precision = (1.0 + above[hits]) / (hits + 1.0)
    return float(np.sum(precision * retrieved[hits]) / estimated_relevant)


def _statap_variance(ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
                     max_results: int) -> float:
    """The stratified delete-one jackknife variance of statAP (Wolter 2007, "Introduction to
    variance estimation", §4.5): each sampled unit of a stratum left out in turn (the stratum's
    inclusion probability recomputed without it), ``sum over strata (1 - n/N) (n - 1)/n sum
    (statAP without it - their mean)^2``; a stratum with one sampled unit adds nothing."""
    s: _Strata = ctx.shared_cached(("sampled strata", id(ta), max_results),
                                   lambda: _strata(ta, max_results))
    pos = _positions(ta, run, ctx, max_results)
    sampled = s.levels >= 0
    relevant = (s.levels > 0).astype(np.float64)
    variance = 0.0
    for h in range(len(s.names)):
        members = np.flatnonzero(sampled & (s.stratum == h))
        n, total = len(members), s.docs[h]
        if n < 2:
            continue
        inverse = np.where(s.sampled > 0, s.docs / np.maximum(s.sampled, 1), 0.0)[s.stratum]
        inverse[s.stratum == h] = total / (n - 1)
        replicates = np.empty(n)
        for i, unit in enumerate(members.tolist()):
            kept = relevant.copy()
            kept[unit] = 0.0
            replicates[i] = _statap_of(inverse, kept, pos)
        spread = float(np.sum((replicates - replicates.mean()) ** 2))
        variance += (1.0 - n / total) * (n - 1) / n * spread
    return variance


def _kernel(which: str) -> Any:
    def kernel(ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
               params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
        max_results = int(params["max_results"])
        if max_results < 1:
            raise InexevalError(f"max_results={max_results} is not at least 1")
        if which == "statAP":
            return [_statap(ta, run, ctx, max_results)]
        if which == "statAP_var":
            return [_statap_variance(ta, run, ctx, max_results)]
        walk = _walk(ta, run, ctx, max_results)
        return [_xinfap(walk) if which == "xinfAP" else _infndcg(walk, max_results)]
    return kernel


def _register(name: str, description: str, source: str) -> Family:
    return register(Family(name, f"{description} ({source})", _kernel(name), (MAX_RESULTS,),
                           scales=("trec", "fol")))


_register("xinfAP", "inferred average precision of stratified samples: the estimator "
          "sample_eval.pl prints as infAP", "Yilmaz, Kanoulas and Aslam 2008; sample_eval.pl 2011")
_register("infNDCG", "inferred nDCG of stratified samples", "Yilmaz, Kanoulas and Aslam 2008; "
          "sample_eval.pl 2011")
_register("statAP", "average precision estimated from a sample with known inclusion "
          "probabilities (Horvitz-Thompson)", "Aslam, Pavlu and Yilmaz 2006")
_register("statAP_var", "estimated variance of statAP under stratified sampling (the "
          "stratified delete-one jackknife); the variance of the mean over T topics is the "
          "mean / T", "Wolter 2007, §4.5")
