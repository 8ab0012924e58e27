"""trec_eval 10.0's preference measures (``-R prefs``, ``-R qrels_prefs``; ``m_prefs_*.c`` and
``form_prefs_counts.c``), printed by :class:`~inexeval.measures.trec_eval.TrecEvalResults`.

A topic's judgements are judgement groups (JGs: one user's information need), each made of
sub-groups (JSGs) in which a document at a higher level is preferred to one at a lower level.
A JG with one JSG holds every such pair; a JG with several holds the pairs of each and those
that follow from them (the transitive closure; a pair preferred both ways is an error). A
preference A > B is *fulfilled* when A is ranked above B; it is *retrieved* when both are
retrieved, *implied* when one is (fulfilled if it is A), and counts against the run when neither
is. The documents the judgements name are numbered as trec_eval numbers them: the retrieved ones
in rank order (score descending, ties by document id *ascending*, as ``form_prefs_counts.c``
sorts, unlike the ad hoc measures), then the others in ``strcmp`` order.

The measures (Buckley's, trec_eval 9.0 (2008); prefs_avgjg_Rnonrel is akin to bpref (Buckley
and Voorhees 2004)): the numbers of preferences possible and fulfilled; ``prefs_simp``
(fulfilled over possible), ``prefs_pair`` (the share of the preferences on each document pair
the run fulfils, averaged over pairs), ``prefs_avgjg`` (fulfilled over possible within a JG,
averaged over JGs), ``prefs_avgjg_Rnonrel`` (the same with each JG's non-relevant documents
counted as many as its relevant ones); ``_ret``: only preferences between retrieved documents;
``_imp``: not those between two documents the run does not retrieve.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError, MeasureError
from inexeval.formats.trec_prefs import Preference
from inexeval.measures.trec_eval import (
    BY_NAME,
    Chosen,
    Definition,
    Evaluated,
    TrecEvalResults,
    overall_values,
)
from inexeval.measures.trec_eval_more import as_zscores

Counts = npt.NDArray[np.int32]
Ranks = npt.NDArray[np.int64]

_SUM = {"printed": "long", "average": "sum"}
DEFINITIONS: tuple[Definition, ...] = (
    Definition("prefs_num_prefs_poss", **_SUM,  # type: ignore[arg-type]
               description="preferences possible (summed)"),
    Definition("prefs_num_prefs_ful", **_SUM,  # type: ignore[arg-type]
               description="preferences fulfilled, implied ones included (summed)"),
    Definition("prefs_num_prefs_ful_ret", **_SUM,  # type: ignore[arg-type]
               description="preferences fulfilled between retrieved documents (summed)"),
    Definition("prefs_simp", description="preferences fulfilled over possible"),
    Definition("prefs_pair", description="share of each document pair's preferences "
               "fulfilled, averaged over pairs"),
    Definition("prefs_avgjg", description="fulfilled over possible in each judgement group, "
               "averaged over groups"),
    Definition("prefs_avgjg_Rnonrel", description="prefs_avgjg with as many non-relevant "
               "documents as relevant ones in each group"),
    Definition("prefs_simp_ret", description="prefs_simp between retrieved documents"),
    Definition("prefs_pair_ret", description="prefs_pair between retrieved documents"),
    Definition("prefs_avgjg_ret", description="prefs_avgjg between retrieved documents"),
    Definition("prefs_avgjg_Rnonrel_ret", description="prefs_avgjg_Rnonrel between "
               "retrieved documents"),
    Definition("prefs_simp_imp", description="prefs_simp without pairs of two documents not "
               "retrieved"),
    Definition("prefs_pair_imp", description="prefs_pair without pairs of two documents not "
               "retrieved"),
    Definition("prefs_avgjg_imp", description="prefs_avgjg without pairs of two documents not "
               "retrieved"),
)
"""The preference measures, in trec_eval's table order (after the ad hoc ones)."""

TABLE = (BY_NAME["runid"], BY_NAME["num_q"], *DEFINITIONS)
NICKNAMES: dict[str, tuple[str, ...]] = {
    "all_prefs": tuple(d.name for d in TABLE),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"),
}
"""trec_eval's sets of preference measures (``prefs`` is its official set of them)."""


def choose(requests: Iterable[str]) -> list[Chosen]:
    """The preference measures of ``-m`` arguments (names or ``all_prefs``, ``prefs``), in
    trec_eval's order; none given is ``prefs``."""
    known = {d.name for d in TABLE}
    marked: set[str] = set()
    for request in list(requests) or ["prefs"]:
        name, dot, _ = request.partition(".")
        names = NICKNAMES.get(name, (name,))
        if any(n not in known for n in names):
            also = " (an ad hoc measure: it needs -R qrels)" if name in BY_NAME else ""
            raise MeasureError(f"{request!r} is not a preference measure{also}; known: "
                               f"{', '.join(known)}; sets: {', '.join(NICKNAMES)}")
        if dot:
            raise MeasureError(f"{request!r}: {name} takes no parameters")
        marked.update(names)
    return [Chosen(d, (), (), (d.name,)) for d in TABLE if d.name in marked]


# --- one topic's judgement groups, counted against a ranking ---------------------------------

@dataclass
class _Group:
    """One judgement group: its preferences as a count matrix over the documents' numbers
    (``pairs[a, b]``: how often a > b), the equivalence classes of a group with one sub-group
    (``classes``: level and numbers, in level order then rank) or the closed preference array
    of one with several (``array``, ``levels`` by number, -1 where the group does not judge)."""

    pairs: Counts
    classes: list[tuple[float, Ranks]] | None
    array: npt.NDArray[np.bool_] | None
    levels: list[float] | None
    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    not_occurring: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0


@dataclass
class _Topic:
    groups: list[_Group]
    judged: int
    judged_ret: int
    counts: Counts
    """The groups' ``pairs`` added (trec_eval's counts array)."""


def _topic(topic: str, prefs: Sequence[Preference], ranking: Sequence[str], source: str
           ) -> _Topic:
    judged = {p.document for p in prefs}
    retrieved = [d for d in ranking if d in judged]
    rest = sorted(judged - set(retrieved), key=lambda d: d.encode("utf-8"))
    number = {d: i for i, d in enumerate([*retrieved, *rest])}
    njr, nj = len(retrieved), len(judged)
    lines = sorted(((p.jg, p.jsg, p.level, number[p.document], p.document) for p in prefs),
                   key=lambda x: (x[0].encode("utf-8"), x[1].encode("utf-8"), -x[2], x[3]))
    groups = []
    start = 0
    for end in range(1, len(lines) + 1):
        if end == len(lines) or lines[end][0] != lines[start][0]:
            groups.append(_group(topic, lines[start:end], njr, nj, source))
            start = end
    counts = np.zeros((nj, nj), dtype=np.int32)
    for g in groups:
        counts += g.pairs
    return _Topic(groups, nj, njr, counts)


def _group(topic: str, lines: list[tuple[str, str, float, int, str]], njr: int, nj: int,
           source: str) -> _Group:
    if len({line[1] for line in lines}) > 1:
        return _array_group(topic, lines, njr, nj, source)
    classes: list[tuple[float, Ranks]] = []
    start = 0
    for end in range(1, len(lines) + 1):
        if end == len(lines) or lines[end][2] != lines[start][2]:
            classes.append((lines[start][2],
                            np.array([line[3] for line in lines[start:end]], dtype=np.int64)))
            start = end
    cells = []
    for i, (_, higher) in enumerate(classes):
        for _, lower in classes[i + 1:]:
            same = np.intersect1d(higher, lower)
            if len(same):
                document = next(line[4] for line in lines if line[3] == same[0])
                raise FormatError(f"topic {topic!r}: document {document!r} has two levels in "
                                  f"sub-group {lines[0][1]!r} of group {lines[0][0]!r}", source)
            cells.append((higher[:, None] * nj + lower[None, :]).ravel())
    pairs = np.bincount(np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64),
                        minlength=nj * nj).reshape(nj, nj).astype(np.int32)
    group = _Group(pairs, classes, None, None)

    for level, ranks in classes:
        ret = int(np.count_nonzero(ranks < njr))
        if level > 0.0:
            group.num_rel_ret += ret
            group.num_rel += len(ranks)
        else:
            group.num_nonrel_ret += ret
            group.num_nonrel += len(ranks)
    return _counted(group, njr)


def _array_group(topic: str, lines: list[tuple[str, str, float, int, str]], njr: int, nj: int,
                 source: str) -> _Group:
    levels = [-1.0] * nj
    array = np.zeros((nj, nj), dtype=bool)
    for i, (jg, jsg, level, rank, document) in enumerate(lines):
        if (levels[rank] > 0.0 and level == 0.0) or (levels[rank] == 0.0 and level > 0.0):
            raise FormatError(f"topic {topic!r}: document {document!r} is judged both "
                              f"non-relevant (0) and relevant in group {jg!r}", source)
        levels[rank] = level
        j = i + 1
        while j < len(lines) and lines[j][1] == jsg and lines[j][2] == level:
            j += 1
        while j < len(lines) and lines[j][1] == jsg:
            array[rank, lines[j][3]] = True
            j += 1
    np.fill_diagonal(array, True)
    for k in range(nj):  # the transitive closure (trec_eval squares the array to a fixpoint)
        array |= array[:, k:k + 1] & array[k:k + 1, :]
    np.fill_diagonal(array, False)
    both = np.argwhere(array & array.T)
    if len(both):
        names = {line[3]: line[4] for line in lines}
        a, b = (names.get(int(x), str(int(x))) for x in both[0])
        raise FormatError(f"topic {topic!r}: group {lines[0][0]!r} prefers {a!r} to {b!r} "
                          "and the reverse (trec_eval aborts)", source)
    group = _Group(array.astype(np.int32), None, array, levels)
    ret, rest = np.array(levels[:njr]), np.array(levels[njr:])
    group.num_rel_ret = int(np.count_nonzero(ret > 0.0))
    group.num_nonrel_ret = int(np.count_nonzero(ret == 0.0))
    group.num_rel = group.num_rel_ret + int(np.count_nonzero(rest > 0.0))
    group.num_nonrel = group.num_nonrel_ret + int(np.count_nonzero(rest == 0.0))
    return _counted(group, njr)


def _counted(group: _Group, njr: int) -> _Group:
    """The preferences fulfilled and possible by area of the count matrix (the diagram of
    ``form_prefs_counts.c``): both retrieved, one, neither."""
    p = group.pairs
    top = p[:njr, :njr]
    group.ful_ret = int(np.triu(top, 1).sum())
    group.poss_ret = int(np.tril(top, -1).sum()) + group.ful_ret
    group.ful_imp = int(p[:njr, njr:].sum())
    group.poss_imp = int(p[njr:, :njr].sum()) + group.ful_imp
    group.not_occurring = int(p[njr:, njr:].sum())
    return group


# --- the measures ----------------------------------------------------------------------------

def _divide(a: float, b: float) -> float:
    """C's ``a / b`` on doubles (0/0 is NaN, a/0 infinite)."""
    if b:
        return a / b
    return math.nan if a == 0 else math.copysign(math.inf, a)


def _mean_over_groups(t: _Topic, ratio: Any) -> float:
    """trec_eval's average over judgement groups: the groups' ratios added in order, the mean
    only if the sum is positive (else 0)."""
    total = 0.0
    for g in t.groups:
        total += ratio(g)
    return total / len(t.groups) if total > 0.0 else 0.0


def _pair_share(t: _Topic, areas: int) -> float:
    """prefs_pair: each document pair with a preference scores the share of its preferences
    the run fulfils (a pair of two documents not retrieved scores 0); ``areas`` 1: pairs of
    retrieved documents, 2: also with one retrieved, 3: all."""
    c, njr = t.counts, t.judged_ret
    upper = np.triu(np.ones_like(c, dtype=bool), 1)
    either = (c + c.T) > 0
    terms = []
    with np.errstate(divide="ignore", invalid="ignore"):
        share = c / (c + c.T)
    both = (either & upper)[:njr, :njr]
    terms.append(share[:njr, :njr][both])
    pairs = int(np.count_nonzero(both))
    if areas >= 2:
        one = either[:njr, njr:]
        terms.append(share[:njr, njr:][one])
        pairs += int(np.count_nonzero(one))
    if areas >= 3:
        pairs += int(np.count_nonzero((either & upper)[njr:, njr:]))
    total = 0.0
    for value in np.concatenate(terms).tolist():
        total += value
    return total / pairs if pairs else 0.0


def _recounted(g: _Group, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """Fulfilled and possible preferences of a group with its non-relevant documents cut to
    as many as its relevant ones (``m_prefs_avgjg_Rnonrel.c``'s and ``..._ret.c``'s
    ``recalculate``, their quirks kept: in a group of classes, pairs within the last class are
    counted too)."""
    if g.classes is not None:
        keep = g.num_rel_ret if retrieved_only else g.num_rel
        last = g.classes[-1][1][:keep]

        def counts(a: Ranks, b: Ranks) -> tuple[int, int]:
            if retrieved_only:
                a, b = a[a < njr], b[b < njr]
            fulfilled = a[:, None] < b[None, :]
            if not retrieved_only:
                fulfilled &= a[:, None] < njr
            return int(fulfilled.sum()), int(fulfilled.size - fulfilled.sum())

        ful = poss = 0
        n = len(g.classes)
        for i in range(n):
            for j in range(i + 1, n - 1):
                f, p = counts(g.classes[i][1], g.classes[j][1])
                ful, poss = ful + f, poss + p
        for i in range(n):
            f, p = counts(g.classes[i][1], last)
            ful, poss = ful + f, poss + p
        return ful, poss + ful
    assert g.array is not None and g.levels is not None
    levels = np.array(g.levels)
    nj = len(levels)
    seen = 0
    first = nj if not retrieved_only else njr
    for i in range(nj if not retrieved_only else njr):
        if levels[i] == 0.0:
            seen += 1
            if seen == g.num_rel + 1:
                first = i
                break
    kept = ~((np.arange(nj) >= first) & (levels == 0.0))
    a = g.array & kept[:, None] & kept[None, :]
    top = a[:njr, :njr]
    ful = int(np.triu(top, 1).sum())
    poss = int(np.tril(top, -1).sum())
    if not retrieved_only:
        ful += int(a[:njr, njr:].sum())
        poss += int(a[njr:, :].sum())
    return ful, poss + ful


def _rnonrel(t: _Topic, retrieved_only: bool) -> float:
    def ratio(g: _Group) -> float:
        r, n = (g.num_rel_ret, g.num_nonrel_ret) if retrieved_only else (g.num_rel,
                                                                         g.num_nonrel)
        if r >= n:
            if retrieved_only:
                ful, poss = g.ful_ret, g.poss_ret
            else:
                ful = g.ful_ret + g.ful_imp
                poss = g.poss_ret + g.poss_imp + g.not_occurring
            ful += g.num_rel_ret * (r - n)
            poss += g.num_rel * (r - n)
        else:
            ful, poss = _recounted(g, t.judged_ret, retrieved_only)
        return _divide(ful, poss)
    return _mean_over_groups(t, ratio)


def _sums(t: _Topic, what: str) -> tuple[int, int]:
    ful = sum(g.ful_ret + (g.ful_imp if what != "ret" else 0) for g in t.groups)
    poss = sum(g.poss_ret + (g.poss_imp if what != "ret" else 0)
               + (g.not_occurring if what == "all" else 0) for g in t.groups)
    return ful, poss


def _simple(t: _Topic, what: str) -> float:
    ful, poss = _sums(t, what)
    return ful / poss if poss else 0.0


def _avgjg(t: _Topic, what: str) -> float:
    def ratio(g: _Group) -> float:
        ful = g.ful_ret + (g.ful_imp if what != "ret" else 0)
        poss = (g.poss_ret + (g.poss_imp if what != "ret" else 0)
                + (g.not_occurring if what == "all" else 0))
        return ful / poss if poss else 0.0
    return _mean_over_groups(t, ratio)


KERNELS: dict[str, Any] = {
    "runid": lambda t: 0.0, "num_q": lambda t: 0.0,
    "prefs_num_prefs_poss": lambda t: float(_sums(t, "all")[1]),
    "prefs_num_prefs_ful": lambda t: float(_sums(t, "imp")[0]),
    "prefs_num_prefs_ful_ret": lambda t: float(_sums(t, "ret")[0]),
    "prefs_simp": lambda t: _simple(t, "all"),
    "prefs_pair": lambda t: _pair_share(t, 3),
    "prefs_avgjg": lambda t: _avgjg(t, "all"),
    "prefs_avgjg_Rnonrel": lambda t: _rnonrel(t, False),
    "prefs_simp_ret": lambda t: _simple(t, "ret"),
    "prefs_pair_ret": lambda t: _pair_share(t, 1),
    "prefs_avgjg_ret": lambda t: _avgjg(t, "ret"),
    "prefs_avgjg_Rnonrel_ret": lambda t: _rnonrel(t, True),
    "prefs_simp_imp": lambda t: _simple(t, "imp"),
    "prefs_pair_imp": lambda t: _pair_share(t, 2),
    "prefs_avgjg_imp": lambda t: _avgjg(t, "imp"),
}


def evaluate(prefs: Mapping[str, Sequence[Preference]], run: Any, measures: Iterable[str] = (),
             *, complete: bool = False, max_docs: int | None = None,
             zscores: Mapping[str, Mapping[str, tuple[float, float]]] | None = None
             ) -> TrecEvalResults:
    """A run (:class:`~inexeval.formats.trec.TrecColumns`) on preference judgements
    (:func:`~inexeval.formats.trec_prefs.read_prefs`) as trec_eval 10.0 evaluates it with
    ``-R prefs`` or ``-R qrels_prefs``: ``complete`` (-c), ``max_docs`` (-M), ``zscores``
    (-Z). A document retrieved twice for a topic is an error, as in trec_eval."""
    chosen = choose(measures)
    rows: dict[str, list[int]] = {}
    for i, topic in enumerate(run.topics.tolist()):
        rows.setdefault(topic.decode("utf-8"), []).append(i)
    topics = [t for t in prefs if complete or t in rows]
    if not topics:
        raise FormatError("no topic has both results and judgements", run.source)
    scored = []
    for topic in topics:
        mine = rows.get(topic, [])
        documents = [run.documents[i].decode("utf-8") for i in mine]
        order = sorted(range(len(mine)), key=lambda k: (-float(run.values[mine[k]]),
                                                        documents[k].encode("utf-8")))
        ranking = [documents[k] for k in order][:max_docs]
        if len(set(ranking)) < len(ranking):
            twice = next(d for i, d in enumerate(ranking) if d in ranking[:i])
            raise FormatError(f"topic {topic!r} retrieves {twice!r} twice (trec_eval stops "
                              "there)", run.source)

        scored.append(_topic(topic, prefs[topic], ranking, run.source))
    summary = SimpleNamespace(topics=topics, complete=complete, qrels_positive=0)
    evaluated = []
    for c in chosen:
        values = np.array([[KERNELS[c.definition.name](t)] for t in scored], dtype=np.float64)
        if zscores is not None:
            values = as_zscores(topics, c.labels, values, zscores)
        evaluated.append(Evaluated(c, values, overall_values(summary, c.definition,  # type: ignore[arg-type]
                                                       values)))
    return TrecEvalResults(topics, run.run_id, evaluated, zscores is not None)
