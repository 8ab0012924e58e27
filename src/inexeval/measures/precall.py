"""inex_eval: Raghavan's PRECALL with Cooper's expected search length (seed 003 eqs. 4-7;
seed 000 eqs. 1-2; spec §3.2), the official measure of INEX 2002-2004."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import warn
from inexeval.measures.common import QUANT, gains, quantised
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model import TopicAssessments, TopicRun

RECALL_POINTS = np.arange(1, 101, dtype=np.float64) / 100.0
"""The 100 recall points x = 0.01 ... 1.00 averaged by ``inex_eval`` (x = 0 is 0/0)."""

_EPSILON = 1e-9


def estimated_components(ta: TopicAssessments, num_docs: int) -> float:
    """Seed 003 eq. 7: M = documents in the collection x components assessed / documents
    assessed (every component of an assessed document is taken as assessed, explicitly or
    implicitly, and components as spread evenly over documents)."""
    return num_docs * len(ta) / max(len(ta.documents), 1)


def precall(
    relevance: npt.NDArray[np.float64],
    levels: npt.NDArray[np.int64],
    total_relevant: float,
    recall: npt.NDArray[np.float64],
    components: float | None,
) -> npt.NDArray[np.float64]:
    """PRECALL at each recall point (seed 003 eqs. 4-6).

    ``relevance``: expected relevance (quantised value) of each result in rank order;
    ``levels``: level number of each result (non-decreasing; equal numbers form a weak-ordering
    level); ``total_relevant``: n, the expected number of relevant components of the topic;
    ``components``: M, the number of retrievable components, for the virtual final level holding
    everything not retrieved; None leaves recall the run does not reach at precision 0.

    For NR = x n, l is the first level whose cumulative expected relevance reaches NR;
    esl = j + s i / (r + 1) with j the non-relevant components before l, s the relevant ones
    still needed from l, r and i the relevant and non-relevant components of l;
    PRECALL = NR / (NR + esl).
    """
    n_levels = int(levels[-1]) + 1 if len(levels) else 0
    rel = np.bincount(levels, weights=relevance, minlength=n_levels).astype(np.float64)
    size = np.bincount(levels, minlength=n_levels).astype(np.float64)
    nonrel = size - rel
    if components is not None:
        virtual_rel = max(total_relevant - float(rel.sum()), 0.0)
        virtual_nonrel = max(components - float(size.sum()) - virtual_rel, 0.0)
        rel = np.append(rel, virtual_rel)
        nonrel = np.append(nonrel, virtual_nonrel)
    cum_rel = np.cumsum(rel)
    cum_nonrel = np.cumsum(nonrel)
    needed = recall * total_relevant
    level = np.searchsorted(cum_rel, needed - _EPSILON * max(total_relevant, 1.0), side="left")
    out = np.zeros(len(recall), dtype=np.float64)
    reached = level < len(rel)
    lv = level[reached]
    before_rel = np.where(lv > 0, cum_rel[lv - 1], 0.0)
    before_nonrel = np.where(lv > 0, cum_nonrel[lv - 1], 0.0)
    nr = needed[reached]
    esl = before_nonrel + (nr - before_rel) * nonrel[lv] / (rel[lv] + 1.0)
    out[reached] = nr / (nr + esl)
    return out


def _inex_eval(
    ta: TopicAssessments, run: TopicRun, ctx: TopicContext, params: Mapping[str, Any],
    cutoffs: Sequence[Any],
) -> list[Value]:
    quant = params["quant"]
    # fsum: n is correctly rounded whatever the order of the assessment records.
    total = ctx.shared_cached(("n", id(ta), quant),
                              lambda: math.fsum(quantised(ta, ctx, quant).tolist()))
    if total <= _EPSILON:
        return [None] * len(cutoffs)
    relevance = gains(ta, run, ctx, quant)
    levels = run.tie_levels() if params["ties"] == "score" else np.arange(len(run), dtype=np.int64)
    components = None
    if ctx.num_docs is not None:
        components = estimated_components(ta, ctx.num_docs)
    elif relevance.sum() < total - _EPSILON and not ctx.shared.get("warned no num_docs"):
        ctx.shared["warned no num_docs"] = True
        warn("no --num-docs or --collection: inex_eval gives precision 0 at recall a run does "
             "not reach (no virtual final rank)")
    points = np.unique(np.concatenate([RECALL_POINTS, [c for c in cutoffs if c is not None]]))
    values = dict(zip(points.tolist(), precall(relevance, levels, total, points, components).tolist()))
    mean = float(np.mean([values[x] for x in RECALL_POINTS.tolist()]))
    return [mean if c is None else values[float(c)] for c in cutoffs]


INEX_EVAL = register(Family(
    name="inex_eval",
    description="PRECALL with expected search length at recall x (inex_eval@x), or its mean "
    "over x = 0.01..1.00 (Gövert and Kazai 2002, eqs. 4-7)",
    kernel=_inex_eval,
    params=(
        QUANT,
        Param("ties", str, "none", "none: each result its own level; score: results with equal "
              "rsv form one level (a weak ordering)", choices=("none", "score")),
    ),
    cutoff=float,
    cutoff_range=(1e-9, 1.0),
))
