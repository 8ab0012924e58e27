"""Document-level measures on TREC qrels, with trec_eval's definitions and numbers.

The measures trec_eval 9.0 prints by default, named as in ir_measures (trec_eval's own names are
aliases): ``AP`` (``map``), ``R@k`` (``recall_k``), ``nDCG@k`` (``ndcg_cut_k``; gains are the
relevance levels, negative levels gain 0), ``RR`` (``recip_rank``), ``R-Prec`` (``Rprec``),
``bpref``, ``num_ret``, ``num_rel``, ``num_rel_ret`` (summed, not averaged, in ``all``), and
``Judged@k`` (ir_measures' share of the top k that is judged). Precision at k is the family
``P@k`` of :mod:`inexeval.measures.cutoff`, which on TREC qrels counts relevance >= 1.

The ranking is trec_eval's: by score descending, ties by document id descending (the evaluator
orders document runs on TREC qrels so). A document is relevant when its level is at least ``rel``
(trec_eval's ``-l``, default 1); ``bpref`` counts as judged non-relevant the documents of level 0
only (trec_eval ignores negative levels there). References: Buckley and Voorhees (2004),
"Retrieval evaluation with incomplete information" (bpref); Järvelin and Kekäläinen (2002),
"Cumulated gain-based evaluation of IR techniques" (nDCG, trec_eval's log2(rank + 1) discount).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.measures.common import judged_positions
from inexeval.measures.registry import Family, Kernel, Param, TopicContext, Value, register
from inexeval.model import TopicAssessments, TopicRun

UNJUDGED = np.iinfo(np.int64).min
"""Level of a retrieved document that the qrels do not judge."""

REL = Param("rel", int, 1, "minimum relevance level counted as relevant (trec_eval -l)")


@dataclass(frozen=True)
class _Ranking:
    """One topic's ranking seen through its qrels."""

    levels: npt.NDArray[np.int64]
    """Relevance level of each retrieved document in rank order (UNJUDGED if not judged)."""
    judged_levels: npt.NDArray[np.int64]
    """Level of every judged document of the topic."""


def _ranking(ta: TopicAssessments, run: TopicRun, ctx: TopicContext) -> _Ranking:
    def make() -> _Ranking:
        judged = ta.dim("relevance").astype(np.int64)
        pos = judged_positions(ta, run, ctx)
        levels = np.where(pos >= 0, judged[np.maximum(pos, 0)], UNJUDGED)
        return _Ranking(levels, judged)

    return ctx.cached("trec.ranking", make)  # type: ignore[no-any-return]


def _relevant(ranking: _Ranking, rel: int) -> tuple[npt.NDArray[np.bool_], int]:
    """Which retrieved documents are relevant, and how many the topic has (``num_rel``)."""
    return ranking.levels >= rel, int(np.count_nonzero(ranking.judged_levels >= rel))


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def _average_precision(ranking: _Ranking, params: Mapping[str, Any],
                       cutoffs: Sequence[Any]) -> list[Value]:
    relevant, num_rel = _relevant(ranking, params["rel"])
    found = np.cumsum(relevant)
    ranks = np.flatnonzero(relevant)
    total = float(np.sum(found[ranks] / (ranks + 1.0)))
    return [_ratio(total, num_rel)]


def _recall(ranking: _Ranking, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    relevant, num_rel = _relevant(ranking, params["rel"])
    n = len(relevant)
    return [_ratio(float(np.count_nonzero(relevant[:n if k is None else k])), num_rel)
            for k in cutoffs]


def _r_precision(ranking: _Ranking, params: Mapping[str, Any],
                 cutoffs: Sequence[Any]) -> list[Value]:
    relevant, num_rel = _relevant(ranking, params["rel"])
    return [_ratio(float(np.count_nonzero(relevant[:num_rel])), num_rel)]


def _reciprocal_rank(ranking: _Ranking, params: Mapping[str, Any],
                     cutoffs: Sequence[Any]) -> list[Value]:
    relevant, _ = _relevant(ranking, params["rel"])
    hits = np.flatnonzero(relevant)
    return [1.0 / (int(hits[0]) + 1) if len(hits) and (k is None or hits[0] < k) else 0.0
            for k in cutoffs]


def _ndcg(ranking: _Ranking, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    gains = np.maximum(np.where(ranking.levels == UNJUDGED, 0, ranking.levels), 0)
    ideal = np.sort(np.maximum(ranking.judged_levels, 0))[::-1]
    out: list[Value] = []
    for k in cutoffs:
        top, best = gains[:k], ideal[:k]
        dcg = float(np.sum(top / np.log2(np.arange(len(top)) + 2.0)))
        idcg = float(np.sum(best / np.log2(np.arange(len(best)) + 2.0)))
        out.append(_ratio(dcg, idcg))
    return out


def _bpref(ranking: _Ranking, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    rel = params["rel"]
    relevant, num_rel = _relevant(ranking, rel)
    judged_levels = ranking.judged_levels
    num_nonrel = int(np.count_nonzero((judged_levels >= 0) & (judged_levels < rel)))
    nonrel = (ranking.levels >= 0) & (ranking.levels < rel)
    above = np.cumsum(nonrel)[relevant]
    penalty = np.where(above > 0, np.minimum(above, num_rel) / max(min(num_nonrel, num_rel), 1),
                       0.0)
    return [_ratio(float(np.sum(1.0 - penalty)), num_rel)]


def _judged(ranking: _Ranking, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    judged = ranking.levels != UNJUDGED
    return [_ratio(float(np.count_nonzero(judged[:k])), min(k, len(judged))) for k in cutoffs]


def _num_ret(ranking: _Ranking, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    return [float(len(ranking.levels))]


def _num_rel(ranking: _Ranking, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    return [float(_relevant(ranking, params["rel"])[1])]


def _num_rel_ret(ranking: _Ranking, params: Mapping[str, Any],
                 cutoffs: Sequence[Any]) -> list[Value]:
    return [float(np.count_nonzero(_relevant(ranking, params["rel"])[0]))]


def _kernel(compute: Any) -> Kernel:
    def kernel(ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
               params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
        return compute(_ranking(ta, run, ctx), params, cutoffs)  # type: ignore[no-any-return]
    return kernel


def _document(name: str, description: str, compute: Any, *, aliases: tuple[str, ...] = (),
              params: tuple[Param, ...] = (REL,), cutoff: bool = False,
              cutoff_required: bool = False, aggregate: str = "mean",
              source: str = "trec_eval 9.0") -> Family:
    return register(Family(name, f"{description} ({source})", _kernel(compute), params,
                           cutoff=int if cutoff else None, cutoff_required=cutoff_required,
                           aliases=aliases, aggregate=aggregate, scales=("trec",)))


_document("AP", "average precision: precision at each relevant document retrieved, summed and "
          "divided by the number of relevant documents", _average_precision, aliases=("map",))
_document("R", "recall at cut-off k (without: of the whole list)", _recall,
          aliases=("recall",), cutoff=True)
_document("nDCG", "normalised discounted cumulated gain at k, gains = relevance levels, "
          "discount log2(rank + 1) (without cut-off: trec_eval's ndcg)", _ndcg,
          aliases=("ndcg_cut", "ndcg"), params=(), cutoff=True)
_document("RR", "reciprocal rank of the first relevant document (0 if none; at k: within the "
          "top k)", _reciprocal_rank, aliases=("recip_rank",), cutoff=True)
_document("R-Prec", "precision at rank R, R = the number of relevant documents", _r_precision,
          aliases=("Rprec",))
_document("bpref", "binary preference: for each relevant document retrieved, 1 minus the share "
          "of judged non-relevant documents ranked above it", _bpref,
          source="Buckley and Voorhees 2004; trec_eval 9.0")
_document("Judged", "share of the top k results that the qrels judge; the denominator is "
          "min(k, results)", _judged, params=(), cutoff=True, cutoff_required=True,
          source="ir_measures' Judged")
_document("num_ret", "number of documents retrieved (summed in all)", _num_ret, params=(),
          aggregate="sum")
_document("num_rel", "number of relevant documents in the qrels (summed in all)", _num_rel,
          aggregate="sum")
_document("num_rel_ret", "number of relevant documents retrieved (summed in all)", _num_rel_ret,
          aggregate="sum")
