"""Per-topic scores of the character-based tasks over a mapped run
(:mod:`inexeval.measures.focused_lines`): Focused and Thorough (iP[x], AiP, article and character
precision and recall; spec §5.2, §15.5, §15.6), Relevant in Context (gP[r], gR[r], AgP; §5.3,
§15.8), Best in Context (§5.4, §15.9) and T2I (§15.10), as inex_eval 3.1 computes them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from inexeval import spans
from inexeval.errors import MeasureError, RunError
from inexeval.measures.focused_lines import (
    IN_CONTEXT,
    RunLines,
    map_lines,
    relevant_chars,
    sorted_distinct,
    violation,
)
from inexeval.measures.focused_qrels import FloatArray, IntArray, JudgedArticles, judged_articles
from inexeval.model import TopicAssessments, TopicRun

TASKS = ("focused", "thorough", "relevant-in-context", "best-in-context", "t2i")
NONEXISTENT_SIZE = 18
"""Size the official tool gives a non-existent (``X``/``-1``) passage (its "mean length")."""
RECALL_POINTS = tuple(b / 100 for b in range(101))
REPORTED_IP = (0, 1, 5, 10)
REPORTED_RANKS = (1, 2, 3, 5, 10, 25, 50)
COUNTS = ("num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size")
SCORES = ("art_prec", "art_rec", "art_f1", "char_prec", "char_rec", "char_f1")


# --------------------------------------------------------------------------------------------
# Per-topic scores


@dataclass
class TopicScores:
    """One topic's official values: counts, named values in output order, recall curve."""

    counts: dict[str, int]
    values: dict[str, float]
    curve: FloatArray
    impossible: list[int] = field(default_factory=list)
    ranks: dict[str, FloatArray] = field(default_factory=dict)
    """In-context tasks: ``gP`` and ``gR`` at every article rank."""


def _sequential_sum(values: FloatArray) -> float:
    """Left-to-right double sum, as the official tool adds (numpy's sum is pairwise)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _div(a: float, b: float) -> float:
    """IEEE division as in Java: x/0 is NaN for x = 0, infinite otherwise."""
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    return a / b


@dataclass(frozen=True)
class ScoredTopics:
    """Values of every topic of a table: ``values[t]`` in :func:`measure_names` order (per
    topic), ``curves[t]`` the interpolated curve, ``impossible[t]`` the first recall bucket
    beyond 100 the topic met."""

    values: FloatArray
    curves: FloatArray
    impossible: dict[int, int]

    def topic(self, t: int, task: str) -> TopicScores:
        names = measure_names(task, per_topic=True)
        row = self.values[t].tolist()
        counts = {name: int(v) for name, v in zip(COUNTS, row)}
        values = dict(zip(names[len(COUNTS):], row[len(COUNTS):]))
        found = [self.impossible[t]] if t in self.impossible else []
        return TopicScores(counts, values, self.curves[t], found)


def _segment_cumsum(values: IntArray, lines: RunLines) -> IntArray:
    """Running sums of ``values`` restarting at every topic of ``lines``."""
    total = np.cumsum(values)
    before = np.concatenate(([0], total))[lines.bounds[:-1]]
    return total - np.repeat(before, np.diff(lines.bounds))  # type: ignore[no-any-return]


def focused_scores(judged: JudgedArticles, lines: RunLines, thorough: bool, exact: bool) -> ScoredTopics:
    """Focused (§15.5) or Thorough (§15.6) values of every topic of ``judged`` at once."""
    topics = len(judged.topics)
    size = np.where(lines.missing, NONEXISTENT_SIZE, lines.end - lines.start)
    if thorough:
        unseen, unseen_rel = spans.unseen_covered(
            np.where(lines.missing, 0, lines.start), np.where(lines.missing, 0, lines.end),
            judged.highlighted, lines.doc)
        size = np.where(lines.relevant, unseen, size)
        rel = np.where(lines.relevant, unseen_rel, 0)
    else:
        rel = relevant_chars(judged, lines, lines.relevant & ~lines.missing)
    found = _segment_cumsum(rel, lines)
    seen = _segment_cumsum(size, lines)
    trel = judged.trel[lines.topic]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = found / seen.astype(np.float64)
        recall = found / trel.astype(np.float64)
        if exact:
            bucket = np.where(trel > 0, (100 * found) // np.maximum(trel, 1), 0)
        else:
            bucket = np.floor(100.0 * np.nan_to_num(recall, nan=0.0, posinf=1e9)).astype(np.int64)
    usable = ~np.isnan(precision)
    impossible = usable & (bucket > 100)
    usable &= bucket <= 100
    raw = np.zeros((topics, 101), dtype=np.float64)
    np.maximum.at(raw.reshape(-1), lines.topic[usable] * 101 + bucket[usable], precision[usable])
    curves = np.maximum.accumulate(raw[:, ::-1], axis=1)[:, ::-1]
    articles = sorted_distinct(lines.doc)
    judged_article = articles < len(judged.rsize)
    unjudged_topic = (articles[~judged_article] - len(judged.rsize)) // max(lines.stride, 1)
    ret_docs = (np.bincount(judged.topic[articles[judged_article]], minlength=topics)
                + np.bincount(unjudged_topic, minlength=topics))
    relevant_found = articles[judged_article][judged.rsize[articles[judged_article]] > 0]
    rel_found = np.bincount(judged.topic[relevant_found], minlength=topics)
    rs_n = np.zeros(topics, dtype=np.int64)
    s_n = np.zeros(topics, dtype=np.int64)
    last = lines.bounds[1:] - 1
    rs_n[lines.present] = found[last]
    s_n[lines.present] = seen[last]
    with np.errstate(divide="ignore", invalid="ignore"):
        art_prec = np.where(ret_docs > 0, rel_found / np.maximum(ret_docs, 1), 0.0)
        art_rec = rel_found / judged.nrel.astype(np.float64)
        char_prec = np.where(s_n > 0, rs_n / np.maximum(s_n, 1), 0.0)
        char_rec = rs_n / judged.trel.astype(np.float64)
        columns = [ret_docs, judged.nrel, rel_found, s_n, judged.trel, rs_n,
                   art_prec, art_rec, _f1s(art_prec, art_rec),
                   char_prec, char_rec, _f1s(char_prec, char_rec),
                   *(curves[:, b] for b in REPORTED_IP),
                   np.cumsum(curves, axis=1)[:, -1] / 101]
    first_topics, first = np.unique(lines.topic[impossible], return_index=True)
    return ScoredTopics(np.stack(columns, axis=1).astype(np.float64), curves,
                   dict(zip(first_topics.tolist(), bucket[impossible][first].tolist())))


def _f1s(p: FloatArray, r: FloatArray) -> FloatArray:
    """F1 of each pair of precision and recall, 0 where precision is 0 (IEEE division as Java:
    x/0 is infinite, 0/0 NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, ((2 * p) * r) / (p + r), 0.0)


def _t2i_score(judged: JudgedArticles, article: int, starts: IntArray, ends: IntArray,
               tolerance: int) -> float:
    """T2I score of one article (§15.10): precision of what a user reads, stopping at the
    ``tolerance``-th irrelevant character; recorded passages first, then the rest in order."""
    segments = list(zip(starts.tolist(), ends.tolist()))
    cursor = 0
    for s, e in list(segments):
        if s > cursor:
            segments.append((cursor, s))
        cursor = e
    length = int(judged.length[article])
    if cursor < length:
        segments.append((cursor, length))
    if tolerance == 0:
        lo, hi = np.searchsorted(judged.doc, [article, article + 1])
        first = next(((s, e) for s, e in segments if e > s), None)
        inside = first is not None and bool(np.any(
            (judged.start[lo:hi] < first[0]) & (first[0] < judged.end[lo:hi])))
        return 1.0 if inside and first is segments[0] else 0.0
    hs, he = judged.union(article)
    read_relevant = read_irrelevant = 0
    for a, b in segments:
        i = int(np.searchsorted(he, a, side="right"))
        position = a
        while position < b:
            if i < len(hs) and hs[i] <= position:
                step = min(int(he[i]), b) - position
                read_relevant += step
                position += step
                i += 1
                continue
            step = min(int(hs[i]) if i < len(hs) else b, b) - position
            if read_irrelevant + step >= tolerance:
                read_irrelevant = tolerance
                return read_relevant / (read_relevant + read_irrelevant)
            read_irrelevant += step
            position += step
    total = read_relevant + read_irrelevant
    return read_relevant / total if total else 0.0


def _in_context_topic(judged: JudgedArticles, lines: RunLines, task: str, beta: float, bep_n: int,
                      irr: int) -> TopicScores:
    """Relevant in Context (§15.8), Best in Context (§15.9) or T2I (§15.10) values of a topic."""
    n = len(lines.doc)
    nrel, trel = int(judged.nrel[0]), int(judged.trel[0])
    head = np.ones(n, dtype=bool)
    head[1:] = lines.doc[1:] != lines.doc[:-1]
    heads = np.flatnonzero(head)
    k = len(heads)
    size = np.where(lines.missing, NONEXISTENT_SIZE, lines.end - lines.start)
    rel = relevant_chars(judged, lines, lines.relevant & ~lines.missing)
    block_relevant = lines.relevant[heads] if k else np.zeros(0, dtype=bool)
    score = np.zeros(k, dtype=np.float64)
    if task == "relevant-in-context" and k:
        found = np.add.reduceat(rel, heads)
        returned = np.add.reduceat(size, heads)
        beta2 = beta * beta
        for j in np.flatnonzero(found > 0).tolist():
            p = found[j] / returned[j]
            r = found[j] / judged.rsize[lines.article[heads[j]]]
            score[j] = ((1 + beta2) * p) * r / ((beta2 * p) + r)
    elif task == "best-in-context":
        for j, i in enumerate(heads.tolist()):
            a = int(lines.article[i])
            if lines.relevant[i] and judged.bep[a] > -1:
                distance = abs(int(judged.bep[a]) - int(lines.start[i]))
                score[j] = (bep_n - distance) / bep_n if distance <= bep_n else 0.0
    elif task == "t2i":
        bounds = np.append(heads, n)
        for j in range(k):
            a = int(lines.article[heads[j]])
            if a < 0:
                continue
            block = slice(int(bounds[j]), int(bounds[j + 1]))
            live = ~lines.missing[block]
            starts, ends = lines.start[block][live], lines.end[block][live]
            order = np.argsort(starts, kind="stable")
            score[j] = _t2i_score(judged, a, starts[order], ends[order], irr)
    gp = np.cumsum(score) / np.arange(1, k + 1) if k else np.zeros(0)
    rel_at = np.cumsum(block_relevant)
    with np.errstate(divide="ignore", invalid="ignore"):
        gr = rel_at / np.float64(nrel)
    if k:
        agp = _div(_sequential_sum(gp[block_relevant]), nrel)
    else:
        agp = 0.0 if nrel > 0 else math.nan
    values: dict[str, float] = {}
    for c in REPORTED_RANKS:
        at = min(c, k) - 1
        values[f"gP[{c}]"] = float(gp[at]) if k else 0.0
        values[f"gR[{c}]"] = float(gr[at]) if k else 0.0
    values["AgP"] = agp
    raw = np.zeros(11, dtype=np.float64)
    bucket = np.floor(10.0 * np.nan_to_num(gr, nan=0.0)).astype(np.int64)
    keep = bucket <= 10
    np.maximum.at(raw, bucket[keep], gp[keep])
    curve = np.maximum.accumulate(raw[::-1])[::-1]
    best = task == "best-in-context"
    counts = {"num_ret": k, "num_rel": nrel, "num_rel_ret": int(block_relevant.sum()),
              "ret_size": 0 if best else int(size.sum()), "rel_size": trel,
              "rel_ret_size": 0 if best else int(rel.sum())}
    return TopicScores(counts, values, curve, ranks={"gP": gp, "gR": gr})


@dataclass(frozen=True)
class TaskSettings:
    """Parameters of the official tasks (defaults of inex_eval 3.1, spec §15.1)."""

    task: str = "focused"
    beta: float = 0.25
    bep_n: int = 500
    irr: int = 300
    exact_buckets: bool = False

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise MeasureError(f"unknown task {self.task!r} (one of {', '.join(TASKS)})")
        if self.bep_n <= 0:
            raise MeasureError(f"bep_n must be positive, not {self.bep_n}")
        if self.irr < 0:
            raise MeasureError(f"irr must be at least 0, not {self.irr}")


def topic_scores(assessed: TopicAssessments, run: TopicRun, settings: TaskSettings,
                 source: str | None = None) -> TopicScores:
    """The official values of one topic under a task; raises :class:`RunError` on rule breaks."""
    judged = judged_articles(assessed)
    lines = map_lines(judged, [(0, run)])
    broken = violation(lines, assessed.topic, settings.task)
    if broken is not None:
        line, reason = broken
        raise RunError(reason if source else f"{reason} (run line {line})", source, line)
    if settings.task in IN_CONTEXT:
        return _in_context_topic(judged, lines, settings.task, settings.beta, settings.bep_n,
                                 settings.irr)
    scored = focused_scores(judged, lines, settings.task == "thorough", settings.exact_buckets)
    return scored.topic(0, settings.task)


def measure_names(task: str, per_topic: bool) -> list[str]:
    """Names in the order the official tool prints them (spec §15.13).

    Per topic: the six counts, then ``art_*``/``char_*``, ``iP[0.00..0.10]`` and ``AiP``
    (focused, thorough) or ``gP[c]``/``gR[c]`` alternating and ``AgP`` (in-context tasks).
    ``all``: ``num_q``, the counts, then the means with ``MAiP``/``MAgP`` and ``ircl_prn.x``.
    """
    counts = list(COUNTS)
    if task in IN_CONTEXT:
        ranks = [f"g{w}[{c}]" for c in REPORTED_RANKS for w in "PR"]
        if per_topic:
            return counts + ranks + ["AgP"]
        return ["num_q"] + counts + ["MAgP"] + ranks + [f"ircl_prn.{b / 10:.2f}" for b in
                                                          range(11)]
    ips = [f"iP[{RECALL_POINTS[b]:.2f}]" for b in REPORTED_IP]
    if per_topic:
        return counts + list(SCORES) + ips + ["AiP"]
    return (["num_q"] + counts + list(SCORES) + ips + ["MAiP"]
            + [f"ircl_prn.{x:.2f}" for x in RECALL_POINTS])
