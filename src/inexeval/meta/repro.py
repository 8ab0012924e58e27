"""Reproducibility of runs (Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer and Soboroff 2020, "How
to measure the reproducibility of system-oriented IR experiments", SIGIR), as the repro_eval
package (0.5) computes its measures, for element and passage runs too.

Original and reproduced runs are paired by position. Per pair:

* per topic, the ranked lists (first ``depth`` results, default 1000) compared as repro_eval
  compares them: Kendall's tau Union (KTU: the union of both lists sorted, each list
  written as the union positions of its results, rank by rank, and scipy's Kendall tau of
  the two position sequences, rounded to 14 decimals) and rank-biased overlap (RBO as
  repro_eval's ``_rbo``, after Clarke et al.: Σ_{i<depth} p^i · |overlap of the top i+1| /
  (i+1), divided by Σ_{i<depth} p^i; p = 0.95). A result is its document and, for element and
  passage runs, its element path and character span (``offset``, ``length``): passages are
  compared by their spans. Lists of different lengths are compared on the shorter length for
  KTU (repro_eval's scipy call refuses them; our choice). A topic only one of the runs
  answers has KTU undefined and RBO 0. The lists are in evaluation order (``--order``;
  repro_eval breaks score ties by document id descending, as ``--order trec_eval`` does).
* per measure, over the assessed topics (a missing one scoring 0): RMSE of the per-topic
  scores, nRMSE = RMSE / √(mean over topics of max(x, 1 − x)²) of the original x, and the
  paired and unpaired two-sided t-test p-values (scipy's ``ttest_rel``, ``ttest_ind``; 1 when
  the scores are identical, as repro_eval does when every p-value is undefined).

Effects, per measure, with the first pair as the baseline and each further pair as an advanced
run: the effect ratio ER = mean(adv_r − base_r) / mean(adv_o − base_o), and ΔRI = RI_o − RI_r,
RI = (mean adv − mean base) / mean base.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from inexeval.errors import InexevalError
from inexeval.model import Run
from inexeval.model.run import TopicRun
from inexeval.scores import Matrix, Scores, natural_order

Item = tuple[str, str, int, int]


def ranked_items(topic_run: TopicRun | None, order: str = "rank",
                 depth: int = 1000) -> list[Item]:
    """The first ``depth`` results of a topic in evaluation order, each ``(document, path,
    offset, length)``, a repeated result kept once (its first place)."""
    if topic_run is None:
        return []
    ordered = topic_run.ordered(order)
    items = list(dict.fromkeys(zip(ordered.files.astype(str).tolist(),
                                   ordered.paths.astype(str).tolist(),
                                   ordered.offsets.tolist(), ordered.lengths.tolist())))
    return items[:depth]


def ktu(original: Sequence[Item], reproduced: Sequence[Item]) -> float:
    """Kendall's tau Union of two ranked lists as repro_eval computes it (module docstring)."""
    from scipy import stats

    size = min(len(original), len(reproduced))
    if size < 2:
        return math.nan
    first, second = list(original[:size]), list(reproduced[:size])
    union = {item: i for i, item in enumerate(sorted(set(first) | set(second)))}
    tau = stats.kendalltau([union[d] for d in first], [union[d] for d in second]).statistic
    return float(round(float(tau), 14))


def rbo_lists(original: Sequence[Item], reproduced: Sequence[Item], persistence: float = 0.95,
              depth: int = 1000) -> float:
    """repro_eval's RBO of a reproduced list against the original (module docstring)."""
    where = {item: i for i, item in enumerate(original[:depth])}
    found = np.full(depth, 0, dtype=np.int64)
    for j, item in enumerate(reproduced[:depth]):
        i = where.get(item)
        if i is not None:
            found[max(i, j)] += 1
    overlap = np.cumsum(found)
    weights = persistence ** np.arange(depth)
    return float(np.sum(weights * overlap / np.arange(1, depth + 1)) / np.sum(weights))


def _p_values(x: Matrix, y: Matrix) -> tuple[float, float]:
    import warnings

    from scipy import stats

    if np.array_equal(x, y):
        return 1.0, 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant differences: NaN, as repro_eval gives
        return (float(stats.ttest_rel(x, y).pvalue), float(stats.ttest_ind(x, y).pvalue))


def repro_study(scores: Scores, original: Sequence[Run], reproduced: Sequence[Run], *,
                order: str = "rank", persistence: float = 0.95, depth: int = 1000
                ) -> dict[str, list[dict[str, Any]]]:
    """The tables ``per_topic``, ``runs`` and ``effects`` of ``meta repro`` (module
    docstring); ``scores`` hold every original and reproduced run (by name)."""
    from inexeval.meta import topics_by_runs

    if len(original) != len(reproduced) or not original:
        raise InexevalError("give one reproduced run per original run")
    per_topic: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    effects: list[dict[str, Any]] = []
    for a, b in zip(original, reproduced):
        for topic in natural_order([*a, *b]):
            first = ranked_items(a.get(topic), order, depth)
            second = ranked_items(b.get(topic), order, depth)
            per_topic.append({"measure": None, "original": a.name, "reproduced": b.name,
                              "topic": topic, "ktu": ktu(first, second),
                              "rbo": rbo_lists(first, second, persistence, depth)})
    column = {name: i for i, name in enumerate(scores.runs)}
    for measure in scores.measures:
        x = topics_by_runs(scores, measure)
        for a, b in zip(original, reproduced):
            o, r = x[:, column[a.name]], x[:, column[b.name]]
            rmse = math.sqrt(float(np.mean((o - r) ** 2)))
            worst = math.sqrt(float(np.mean(np.maximum(o, 1 - o) ** 2)))
            paired, unpaired = _p_values(o, r)
            runs.append({"measure": measure, "original": a.name, "reproduced": b.name,
                         "rmse": rmse, "nrmse": rmse / worst if worst else math.nan,
                         "p_paired": paired, "p_unpaired": unpaired})
        base_o, base_r = x[:, column[original[0].name]], x[:, column[reproduced[0].name]]
        for a, b in zip(original[1:], reproduced[1:]):
            adv_o, adv_r = x[:, column[a.name]], x[:, column[b.name]]
            effects.append({"measure": measure, "er": _ratio(float(np.mean(adv_r - base_r)),
                                                             float(np.mean(adv_o - base_o))),
                            "delta_ri": _relative(adv_o, base_o) - _relative(adv_r, base_r),
                            "baseline": original[0].name, "advanced": a.name})
    return {"per_topic": per_topic, "runs": runs, "effects": effects}


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else math.nan


def _relative(advanced: Matrix, baseline: Matrix) -> float:
    return _ratio(float(np.mean(advanced)) - float(np.mean(baseline)), float(np.mean(baseline)))
