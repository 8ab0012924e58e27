"""Document-level measures on TREC qrels: every measure ``inexeval trec_eval`` computes, computed
by its code (:mod:`inexeval.measures.trec_eval`: one implementation of each measure), named as
in ir_measures where ir_measures has the measure and as in trec_eval otherwise, trec_eval's
names being aliases.

Each topic's ranking (trec_eval's: by score descending, ties by document id descending, as the
evaluator orders document runs on TREC qrels) is made the one-row
:class:`~inexeval.measures.trec_eval.Lists` of trec_eval (each document's level, -1 when the
qrels do not list it, -2 when they list it below 0) and the trec_eval kernel of the measure
gives its value. ``rel`` is trec_eval's ``-l`` (the lowest level counted as relevant,
default 1) on every measure. A topic without results (``-c``) is scored as trec_eval scores
it: as a list of one document outside the pool, its ``num_ret`` (and the few values trec_eval
resets by name) 0.

One family may stand for two trec_eval measures, without and with a cut-off: ``AP`` is ``map``
and ``AP@k`` ``map_cut.k``; ``nDCG`` ``ndcg`` and ``nDCG@k`` ``ndcg_cut.k``; ``R`` is
``set_recall`` and ``R@k`` ``recall.k``; ``RR@k`` is ``recip_rank`` of the top k (ir_measures'
``RR@k``). ``gm_map`` and ``gm_bpref`` hold trec_eval's per-topic values (the logarithm of
the topic's AP or bpref, at least log(0.00001)) and their ``all`` is the exponential of the
mean. ``Judged@k`` (ir_measures': the share of the top min(k, results) that the qrels judge)
has no trec_eval counterpart (``unj@k`` is trec_eval's share of k that is not judged).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from inexeval.measures.common import judged_positions
from inexeval.measures.registry import Family, Kernel, Param, TopicContext, Value, register

if TYPE_CHECKING:
    from inexeval.model import TopicAssessments, TopicRun

REL = Param("rel", int, 1, "minimum relevance level counted as relevant (trec_eval -l)")

GAINS = Param("gains", str, "", "trec_eval's gains, level=gain,... (default: gain = level)")


@dataclass(frozen=True)
class Spec:
    """How a family is computed by trec_eval's code: the trec_eval measure of a value without a
    cut-off (``plain``) and with one (``cut``; a cut-off of recip_rank cuts the list), and how
    the family's parameters are written as trec_eval's ``-m`` parameters (``text``)."""

    plain: str | None
    cut: str | None = None
    text: Callable[[Mapping[str, Any]], str | None] = lambda params: None


def _gain_text(params: Mapping[str, Any]) -> str | None:
    return params["gains"] or None


def _rbp_text(params: Mapping[str, Any]) -> str | None:
    items = [f"p={params['p']!r}"] if params["p"] != 0.9 else []
    items += [params["gains"]] if params["gains"] else []
    return ",".join(items) or None


def _utility_text(params: Mapping[str, Any]) -> str | None:
    coefficients = (params["a"], params["b"], params["c"], params["d"])
    return None if coefficients == (1.0, -1.0, 0.0, 0.0) else ",".join(map(repr, coefficients))


SPECS: dict[str, Spec] = {}
"""Each family of this module by name: the trec_eval measures that compute it."""


def trec_lists(ta: TopicAssessments, run: TopicRun, ctx: TopicContext, rel: int) -> Any:
    """The topic's ranking as trec_eval's one-row :class:`~inexeval.measures.trec_eval.Lists`
    at relevance level ``rel`` (made once per run, topic and level)."""
    from inexeval.measures.trec_eval import NONPOOL, UNJUDGED, Lists

    def judged() -> tuple[Any, Any, Any]:
        levels = ta.dim("relevance").astype(np.int64)
        counts = np.bincount(levels[levels >= 0], minlength=1).astype(np.int64)
        positive = np.sort(levels[levels > 0])[::-1]
        ideal = np.zeros(max(len(positive), 1), dtype=np.int64)
        ideal[:len(positive)] = positive
        return levels, counts, ideal

    def make() -> Any:
        levels, counts, ideal = ctx.shared_cached(("trec_eval judged", id(ta)), judged)
        bogus = len(run) == 0
        if bogus:
            row = np.array([NONPOOL], dtype=np.int64)
        else:
            pos = judged_positions(ta, run, ctx)
            row = np.where(pos >= 0, levels[np.maximum(pos, 0)], NONPOOL)
            row = np.where((pos >= 0) & (row < 0), UNJUDGED, row)
        return Lists([run.topic], row[None, :], np.array([len(row)]), counts[None, :],
                     ideal[None, :], np.array([bogus]), rel, ctx.num_docs or 0)

    return ctx.cached(("trec_eval lists", rel), make)


def _cut(ls: Any, k: int) -> Any:
    """The lists cut at rank k."""
    from inexeval.measures.trec_eval import Lists

    return Lists(ls.topics, ls.levels[:, :k], np.minimum(ls.num_ret, k), ls.counts, ls.ideal,
                 ls.bogus, ls.relevance_level, ls.num_docs)


def trec_kernel(spec: Spec) -> Kernel:
    """The kernel of a family that trec_eval's measures ``spec`` compute."""
    def kernel(ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
               params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
        from inexeval.measures.trec_eval import chosen_measure, measure_values

        ls = trec_lists(ta, run, ctx, params.get("rel", 1))
        found: dict[Any, float] = {}
        if None in cutoffs and spec.plain is not None:
            found[None] = float(measure_values(ls, chosen_measure(spec.plain, spec.text(params)))
                                [0, 0])
        cut = [c for c in cutoffs if c is not None]
        if cut and spec.cut == "recip_rank":
            for k in cut:
                found[k] = float(measure_values(_cut(ls, k), chosen_measure("recip_rank"))[0, 0])
        elif cut and spec.cut is not None:
            chosen = chosen_measure(spec.cut, ",".join(map(repr, cut)))
            row = measure_values(ls, chosen)[0].tolist()
            for value in cut:  # trec_eval sorts its parameters
                found[value] = row[chosen.values.index(float(value))]
        return [found[c] for c in cutoffs]

    return kernel


def family(name: str, description: str, spec: Spec, *, aliases: tuple[str, ...] = (),
           params: tuple[Param, ...] = (), cutoff: type | None = None,
           cutoff_required: bool = False, cutoff_range: tuple[float, float] | None = None,
           aggregate: str = "mean", source: str = "trec_eval 10.0") -> Family:
    """Register a family computed by trec_eval's code (``rel`` added to its parameters)."""
    SPECS[name] = spec
    return register(Family(name, f"{description} ({source})", trec_kernel(spec), (REL, *params),
                           cutoff=cutoff, cutoff_required=cutoff_required, aliases=aliases,
                           aggregate=aggregate, scales=("trec",), cutoff_range=cutoff_range,
                           scores_empty=True))


def _judged(ta: TopicAssessments, run: TopicRun, ctx: TopicContext, params: Mapping[str, Any],
            cutoffs: Sequence[Any]) -> list[Value]:
    from inexeval.measures.trec_eval import NONPOOL

    if not len(run):
        return [0.0 for _ in cutoffs]
    judged = trec_lists(ta, run, ctx, 1).levels[0] != NONPOOL
    return [float(np.count_nonzero(judged[:k])) / min(k, len(judged)) for k in cutoffs]


family("AP", "average precision: precision at each relevant document retrieved, summed and "
       "divided by the number of relevant documents (at k: of the top k, trec_eval's map_cut)",
       Spec("map", "map_cut"), aliases=("map", "map_cut"), cutoff=int,
       source="Buckley and Voorhees 2005; trec_eval 10.0")
family("gm_map", "geometric mean of average precision (a topic's value: the logarithm of its "
       "AP, at least log(0.00001))", Spec("gm_map"), aggregate="gm")
family("R-Prec", "precision at rank R, R = the number of relevant documents", Spec("Rprec"),
       aliases=("Rprec",))
family("bpref", "binary preference: for each relevant document retrieved, 1 minus the share "
       "of judged non-relevant documents ranked above it", Spec("bpref"), aliases=("Bpref",),
       source="Buckley and Voorhees 2004; trec_eval 10.0")
family("gm_bpref", "geometric mean of bpref (a topic's value: the logarithm of its bpref, at "
       "least log(0.00001))", Spec("gm_bpref"), aggregate="gm")
family("RR", "reciprocal rank of the first relevant document (0 if none; at k: within the top "
       "k)", Spec("recip_rank", "recip_rank"), aliases=("recip_rank",), cutoff=int)
family("IPrec", "interpolated precision at recall level x", Spec(None, "iprec_at_recall"),
       aliases=("iprec_at_recall",), cutoff=float, cutoff_required=True, cutoff_range=(0, 1))
family("R", "recall at cut-off k (without: of the whole list)", Spec("set_recall", "recall"),
       aliases=("recall",), cutoff=int)
family("infAP", "inferred average precision", Spec("infAP"),
       source="Yilmaz and Aslam 2006; trec_eval 10.0")
family("Rprec_mult", "precision at rank x * R, R = the number of relevant documents",
       Spec(None, "Rprec_mult"), cutoff=float, cutoff_required=True,
       cutoff_range=(0, float("inf")))
family("utility", "a * relevant retrieved + b * non-relevant retrieved + c * relevant not "
       "retrieved + d * non-relevant not retrieved",
       Spec("utility", text=_utility_text),
       params=tuple(Param(k, float, v, f"coefficient {k}")
                    for k, v in (("a", 1.0), ("b", -1.0), ("c", 0.0), ("d", 0.0))))
family("11pt_avg", "mean interpolated precision at recall levels (default the 11 levels 0, "
       "0.1 ... 1)", Spec("11pt_avg", text=lambda params: params["levels"] or None),
       params=(Param("levels", str, "", "recall levels, x,y,... (default 0,0.1,...,1)"),))
family("binG", "binary G: 1 / log2(2 + non-relevant documents above) summed over the relevant "
       "documents, over R", Spec("binG"), source="Buckley 2008; trec_eval 10.0")
family("G", "normalised gain G", Spec("G", text=_gain_text), params=(GAINS,),
       source="Buckley 2008; trec_eval 10.0")
family("dcg", "discounted cumulated gain of the whole list, discount log2(rank + 1)",
       Spec("dcg", text=_gain_text), params=(GAINS,))
family("ideal_dcg", "discounted cumulated gain of the ideal list", Spec("ideal_dcg",
       text=_gain_text), params=(GAINS,))
family("nDCG", "normalised discounted cumulated gain, gains = relevance levels, discount "
       "log2(rank + 1); at k: of the top k (trec_eval's ndcg_cut), without: of the whole list "
       "(trec_eval's ndcg, whose gains= may be given)",
       Spec("ndcg", "ndcg_cut", _gain_text), aliases=("ndcg", "ndcg_cut"), params=(GAINS,),
       cutoff=int, source="Järvelin and Kekäläinen 2002; trec_eval 10.0")
family("ndcg_rel", "nDCG averaged over the relevant documents", Spec("ndcg_rel",
       text=_gain_text), params=(GAINS,))
family("Rndcg", "nDCG averaged at the ranks where the ideal gain changes", Spec("Rndcg",
       text=_gain_text), params=(GAINS,))
family("relative_P", "precision at k over min(k, R)", Spec(None, "relative_P"), cutoff=int,
       cutoff_required=True)
family("Success", "1 if a relevant document is in the top k", Spec(None, "success"),
       aliases=("success",), cutoff=int, cutoff_required=True)
family("SetP", "precision of the whole list", Spec("set_P"), aliases=("set_P",))
family("SetRelP", "relevant retrieved over min(retrieved, R)", Spec("set_relative_P"),
       aliases=("set_relative_P",))
family("SetR", "recall of the whole list", Spec("set_recall"), aliases=("set_recall",))
family("SetAP", "SetP times SetR", Spec("set_map"), aliases=("set_map",))
family("SetF", "F measure of the whole list", Spec(
       "set_F", text=lambda params: None if params["beta"] == 1.0 else repr(params["beta"])),
       aliases=("set_F",), params=(Param("beta", float, 1.0, "weight of recall"),))
family("yaap", "yet another average precision: log((1 + S) / (1 + R - S)), S the sum of "
       "precisions at the relevant documents", Spec("yaap"),
       source="Robertson 2012; trec_eval 10.0")
family("RBP", "rank-biased precision", Spec("rbp", text=_rbp_text), aliases=("rbp",),
       params=(Param("p", float, 0.9, "persistence"), GAINS),
       source="Moffat and Zobel 2008; trec_eval 10.0")
family("rbp_resid", "rank-biased precision's residual", Spec("rbp_resid", text=_rbp_text),
       params=(Param("p", float, 0.9, "persistence"), GAINS),
       source="Moffat and Zobel 2008; trec_eval 10.0")
family("unj", "share of the top k that the qrels do not judge", Spec(None, "unj"), cutoff=int,
       cutoff_required=True)
family("num_ret", "number of documents retrieved (summed in all)", Spec("num_ret"),
       aliases=("NumRet",), aggregate="sum")
family("num_rel", "number of relevant documents in the qrels (summed in all)",
       Spec("num_rel"), aliases=("NumRel",), aggregate="sum")
family("num_rel_ret", "number of relevant documents retrieved (summed in all)",
       Spec("num_rel_ret"), aliases=("NumRelRet",), aggregate="sum")
family("num_nonrel_judged_ret", "number of judged non-relevant documents retrieved (summed in "
       "all)", Spec("num_nonrel_judged_ret"), aggregate="sum")
register(Family("Judged", "share of the top k results that the qrels judge; the denominator is "
                "min(k, results) (ir_measures' Judged)", _judged, (REL,), cutoff=int,
                cutoff_required=True, scales=("trec",)))
