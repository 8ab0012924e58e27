"""Agreement: do two measures (or two sets of assessments) rank systems alike, and do two
assessors judge alike?

Measure agreement (:func:`measure_agreement`, :func:`ranking_agreement`) compares the mean scores
of the same runs under two measures: Kendall's tau-b, Spearman's rho and Pearson's r (scipy's),
the least-squares line of measure_b on measure_a, the number of discordant run pairs ("swaps")
and Yilmaz, Aslam and Robertson's (2008, "A new rank correlation coefficient for information
retrieval", SIGIR) tau_AP, which weighs disagreements near the top of the ranking more, with
measure_a's ranking as the truth - the analyses of Piwowarski, Trotman and Lalmas (2008,
"Sound and complete relevance assessment for XML retrieval", Fig. 11) and Piwowarski and
Dupret (2006, EPRUM, §7).

Judgement agreement (:func:`judgement_agreement`) compares two assessments of the same topics:
Cohen's (1960) kappa on relevant / non-relevant articles, character-level precision, recall, F1
and Jaccard of the highlighted text (assessment A as the reference), and per relevance dimension
of the 2002-2004 element scales Cohen's kappa over the elements both judged, with the confusion
matrices.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError
from inexeval.model import Assessments, TopicAssessments

Array = npt.NDArray[np.float64]


class AgreementRow(NamedTuple):
    """How alike two measures rank ``n_runs`` runs (the CSV/JSON columns of ``inexeval agree``):
    ``slope`` and ``intercept`` of the least-squares line measure_b = slope x measure_a +
    intercept; ``swaps`` the run pairs ordered one way by measure_a and the other by
    measure_b (pairs tied under either are no swap). NaN where undefined (e.g. a constant
    measure)."""

    measure_a: str
    measure_b: str
    n_runs: int
    kendall_tau: float
    tau_ap: float
    spearman: float
    pearson: float
    slope: float
    intercept: float
    swaps: int


AGREEMENT_COLUMNS = AgreementRow._fields
"""The CSV/JSON columns of ``inexeval agree`` (measure agreement), in order."""


def tau_ap(truth: Sequence[float] | Array, estimate: Sequence[float] | Array) -> float:
    """Yilmaz, Aslam and Robertson's (2008, eq. 2) AP rank correlation of the ranking by
    ``estimate`` with the ranking by ``truth`` (scores of the same items, higher is better):

        tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1

    where, going down the estimated ranking, C(i) is the number of the i - 1 items above rank i
    that the truth also ranks above the item at rank i. The paper assumes no ties. Ties in the
    estimate are treated as Urbano and Marrero (2017, "The treatment of ties in AP correlation",
    ICTIR) do for accuracy (their tau_AP_a): the expected tau_AP over every order of the tied
    items, computed in closed form. Two items tied in the truth are never an error (the truth
    does not tell them apart), so a ranking compared with itself gives 1 also with ties.
    Undefined (NaN) for fewer than two items."""
    t = np.asarray(truth, dtype=np.float64)
    e = np.asarray(estimate, dtype=np.float64)
    n = len(t)
    if len(e) != n:
        raise ValueError("truth and estimate must score the same items")
    if n < 2:
        return math.nan
    order = np.argsort(-e, kind="stable")
    t, e = t[order], e[order]
    starts = np.flatnonzero(np.concatenate(([True], e[1:] != e[:-1])))
    ends = np.concatenate((starts[1:], [n]))
    total = 0.0
    for s, end in zip(starts.tolist(), ends.tolist()):
        g = end - s
        group = t[s:end]
        # c: items of earlier groups correctly above; a: other members of the group that would
        # be correctly above if the tie put them first.
        c = (t[:s, None] >= group[None, :]).sum(axis=0)
        a = (group[:, None] >= group[None, :]).sum(axis=0) - 1
        r = np.arange(1, g + 1)
        above = s + r - 1
        shown = above > 0
        weights = np.zeros(g)
        weights[shown] = 1.0 / above[shown]
        members_before = np.zeros(g) if g == 1 else (r - 1) / (g - 1)
        total += float(np.sum(c * weights.sum() + a * np.sum(weights * members_before))) / g
    return 2.0 / (n - 1) * total - 1.0


def swaps(a: Sequence[float] | Array, b: Sequence[float] | Array) -> int:
    """Pairs of items ordered strictly one way by ``a`` and strictly the other way by ``b``."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    product = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    return int(np.sum(np.triu(product < 0, k=1)))


def ranking_agreement(a: Sequence[float] | Array, b: Sequence[float] | Array,
                      measure_a: str = "a", measure_b: str = "b") -> AgreementRow:
    """The :class:`AgreementRow` of two score lists over the same runs (measure_a's ranking is
    the truth of tau_AP; the line regresses b on a)."""
    import warnings

    from scipy import stats

    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if len(x) != len(y):
        raise ValueError("the two measures must score the same runs")
    if len(x) < 2:
        raise InexevalError(f"{measure_a} and {measure_b}: agreement needs at least two runs "
                            f"with a mean under both, not {len(x)}")
    constant = bool(np.ptp(x) == 0 or np.ptp(y) == 0)
    with warnings.catch_warnings():
        # a constant measure has no correlation: NaN, said in the documentation, not warned
        warnings.simplefilter("ignore")
        kendall = float(stats.kendalltau(x, y).statistic)
        spearman = float(stats.spearmanr(x, y).statistic)
        pearson = math.nan if constant or len(x) < 2 else float(stats.pearsonr(x, y).statistic)
    if np.ptp(x) == 0:
        slope = intercept = math.nan
    else:
        fit = stats.linregress(x, y)
        slope, intercept = float(fit.slope), float(fit.intercept)
    return AgreementRow(measure_a, measure_b, len(x), kendall, tau_ap(x, y), spearman, pearson,
                        slope, intercept, swaps(x, y))


def measure_agreement(means: Mapping[str, Mapping[str, float | None]],
                      measures: Sequence[str] | None = None,
                      labels: Mapping[str, str] | None = None) -> list[AgreementRow]:
    """One :class:`AgreementRow` per pair of measures (in the order given, the first of the pair
    as measure_a), over the runs with a mean under both. ``means[measure][run]`` is a run's
    mean score (:attr:`inexeval.analysis.compare.Comparison.means` has this shape); ``labels``
    renames measures in the rows (e.g. to name the assessments they were computed with)."""
    names = list(measures if measures is not None else means)
    if len(names) < 2:
        raise InexevalError("measure agreement needs at least two measures")
    shown = dict(labels or {})
    rows = []
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            runs = [r for r in means[first] if means[first][r] is not None
                    and means[second].get(r) is not None]
            rows.append(ranking_agreement([float(means[first][r] or 0.0) for r in runs],
                                          [float(means[second][r] or 0.0) for r in runs],
                                          shown.get(first, first), shown.get(second, second)))
    return rows


# Judgement agreement --------------------------------------------------------------------------

DIMENSIONS = {"inex2002": ("relevance", "coverage"), "inex2003": ("exhaustivity", "specificity"),
              "inex2005": ("exhaustivity",), "trec": ("relevance",)}
"""The graded dimensions compared element by element, per scale."""


def cohen_kappa(confusion: npt.NDArray[np.int64]) -> float:
    """Cohen's (1960) kappa of a square confusion matrix (rows: assessor A's category, columns:
    B's): (p_o - p_e) / (1 - p_e). NaN when undefined (no unit, or both assessors put every
    unit in one and the same category: p_e = 1)."""
    table = np.asarray(confusion, dtype=np.float64)
    total = table.sum()
    if total == 0:
        return math.nan
    observed = np.trace(table) / total
    expected = float(np.sum(table.sum(axis=1) * table.sum(axis=0))) / total ** 2
    if expected >= 1.0:
        return math.nan
    return float((observed - expected) / (1.0 - expected))


class TopicAgreement(NamedTuple):
    """Agreement of two assessments on one topic (or ``all``, pooled over the topics).

    Articles: the union of the articles either assessment judged, an article missing from one
    counting as non-relevant there; ``both``/``only_a``/``only_b``/``neither`` relevant is the
    2 x 2 confusion matrix and ``kappa`` its Cohen's kappa. Characters: highlighted characters
    of A, of B and of both (``chars_a``, ``chars_b``, ``chars_both``) and, with A as the
    reference, ``precision = both / B``, ``recall = both / A``, their ``f1`` and ``jaccard =
    both / (A + B - both)`` (NaN when there is no highlighting). ``dimensions``: per graded
    dimension of the element scales, ``(elements judged by both, kappa, confusion matrix)``
    with the categories in :attr:`categories`."""

    topic: str
    articles: int
    both: int
    only_a: int
    only_b: int
    neither: int
    kappa: float
    chars_a: int
    chars_b: int
    chars_both: int
    precision: float
    recall: float
    f1: float
    jaccard: float
    dimensions: dict[str, tuple[int, float, list[list[int]]]]
    categories: dict[str, list[Any]]


JUDGEMENT_COLUMNS = ("topic", "articles", "both", "only_a", "only_b", "neither", "kappa",
                     "chars_a", "chars_b", "chars_both", "precision", "recall", "f1", "jaccard")
"""The CSV columns of ``inexeval agree --judgements`` before the per-dimension ones
(``DIM_elements``, ``DIM_kappa`` per graded dimension)."""


def relevant_articles(ta: TopicAssessments) -> set[str]:
    """Articles with something relevant: highlighted text, a non-zero relevant size (FOL), or an
    element judged relevant on the scale's first dimension."""
    found = {f for f, spans in ta.highlights.items() if len(spans)}
    found |= set(ta.passages)
    for name in ("rsize", *DIMENSIONS.get(ta.scale, ())[:1]):
        if name in ta.dims:
            values = np.asarray(ta.dims[name], dtype=np.float64)
            found |= set(ta.files[(values != 0) & ~np.isnan(values)].tolist())
            break
    return found


def _highlighted(ta: TopicAssessments | None) -> dict[str, npt.NDArray[np.int64]]:
    return {} if ta is None else {f: s for f, s in ta.highlights.items() if len(s)}


def _character_overlap(a: TopicAssessments | None, b: TopicAssessments | None) -> tuple[int, int, int]:
    from inexeval.spans import covered_lengths, document_codes, merge

    ha, hb = _highlighted(a), _highlighted(b)
    files_a = [f for f, s in ha.items() for _ in range(len(s))]
    files_b = [f for f, s in hb.items() for _ in range(len(s))]
    codes_a, codes_b = document_codes(files_a, files_b)
    spans_a = np.concatenate([*ha.values()]) if ha else np.zeros((0, 2), np.int64)
    spans_b = np.concatenate([*hb.values()]) if hb else np.zeros((0, 2), np.int64)
    da, sa, ea = merge(spans_a[:, 0], spans_a[:, 1], codes_a)
    db, sb, eb = merge(spans_b[:, 0], spans_b[:, 1], codes_b)
    both = int(covered_lengths(sa, ea, sb, eb, da, db).sum())
    return int(np.sum(ea - sa)), int(np.sum(eb - sb)), both


def _element_confusions(a: TopicAssessments | None, b: TopicAssessments | None,
                        scale: str) -> dict[str, npt.NDArray[np.int64]]:
    """Per dimension, the joint counts of the explicitly judged elements both assessed, keyed
    by category pairs (a dict of ``(value_a, value_b) -> count``) as a 2-column array."""
    out: dict[str, npt.NDArray[np.int64]] = {}
    if a is None or b is None:
        return {name: np.zeros((0, 2), np.int64) for name in DIMENSIONS.get(scale, ())}
    explicit_a = {(f, p): i for i, (f, p, e) in enumerate(zip(a.files.tolist(), a.paths.tolist(),
                                                              a.explicit.tolist())) if e}
    pairs = [(explicit_a[(f, p)], j) for j, (f, p, e) in
             enumerate(zip(b.files.tolist(), b.paths.tolist(), b.explicit.tolist()))
             if e and (f, p) in explicit_a]
    ia = np.array([i for i, _ in pairs], dtype=np.int64)
    ib = np.array([j for _, j in pairs], dtype=np.int64)
    for name in DIMENSIONS.get(scale, ()):
        if name in a.dims and name in b.dims:
            out[name] = np.column_stack([np.asarray(a.dims[name])[ia],
                                         np.asarray(b.dims[name])[ib]]).astype(np.int64)
    return out


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else math.nan


def _topic_row(topic: str, articles: tuple[int, int, int, int], chars: tuple[int, int, int],
               pairs: Mapping[str, npt.NDArray[np.int64]],
               categories: Mapping[str, list[Any]]) -> TopicAgreement:
    """The agreement from the article counts ``(both, only_a, only_b, neither)``, the character
    counts ``(a, b, both)`` and per dimension the ``(value_a, value_b)`` rows of the elements."""
    both, only_a, only_b, neither = articles
    chars_a, chars_b, chars_both = chars
    dimensions = {}
    for name, values in pairs.items():
        index = {c: k for k, c in enumerate(categories[name])}
        matrix = np.zeros((len(index), len(index)), dtype=np.int64)
        for x, y in values.tolist():
            matrix[index[x], index[y]] += 1
        dimensions[name] = (len(values), cohen_kappa(matrix), matrix.tolist())
    return TopicAgreement(
        topic, sum(articles), both, only_a, only_b, neither,
        cohen_kappa(np.array([[both, only_a], [only_b, neither]])), chars_a, chars_b, chars_both,
        _ratio(chars_both, chars_b), _ratio(chars_both, chars_a),
        _ratio(2 * chars_both, chars_a + chars_b), _ratio(chars_both, chars_a + chars_b - chars_both),
        dimensions, dict(categories))


def judgement_agreement(a: Assessments, b: Assessments) -> list[TopicAgreement]:
    """Per topic assessed in both (natural order), then ``all`` (the confusion matrices and
    character counts summed over those topics, the kappas and ratios of the sums), the
    agreement of assessments ``b`` with assessments ``a``. Both must be on the same scale."""
    from inexeval.scores import natural_order

    if a.scale != b.scale:
        raise InexevalError(f"the two assessments are on different scales ({a.scale} and "
                            f"{b.scale})", b.source)
    topics = natural_order([t for t in a if t in b])
    if not topics:
        raise InexevalError("the two assessments have no topic in common", b.source)
    pairs = {t: _element_confusions(a[t], b[t], a.scale) for t in topics}
    categories = {name: sorted({int(v) for p in pairs.values() if name in p
                                for v in p[name].reshape(-1).tolist()})
                  for name in DIMENSIONS.get(a.scale, ())}
    rows = []
    for t in topics:
        relevant_a, relevant_b = relevant_articles(a[t]), relevant_articles(b[t])
        judged = set(a[t].documents) | set(b[t].documents) | relevant_a | relevant_b
        both = len(relevant_a & relevant_b)
        only_a, only_b = len(relevant_a - relevant_b), len(relevant_b - relevant_a)
        rows.append(_topic_row(t, (both, only_a, only_b, len(judged) - both - only_a - only_b),
                               _character_overlap(a[t], b[t]), pairs[t], categories))
    pooled = {name: np.concatenate([p[name] for p in pairs.values() if name in p])
              for name in categories}
    articles = (sum(r.both for r in rows), sum(r.only_a for r in rows),
                sum(r.only_b for r in rows), sum(r.neither for r in rows))
    chars = (sum(r.chars_a for r in rows), sum(r.chars_b for r in rows),
             sum(r.chars_both for r in rows))
    rows.append(_topic_row("all", articles, chars, pooled, categories))
    return rows
