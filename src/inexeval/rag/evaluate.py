"""Evaluate rankings of chunks (span runs) and chunkings on Chroma's questions.

The measures are the registry's families of :data:`inexeval.measures.chroma.SCALE`: a kernel is
called once per question with all the cut-offs of its family; each mean is the official code's
(numpy's mean for Chroma, Python's ``sum / len`` for LegalBench-RAG), in the questions' order,
given as the ``all`` row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from inexeval.errors import MeasureError
from inexeval.results import ALL, Results, Row

if TYPE_CHECKING:
    from inexeval.formats.chroma import Questions, Spans
    from inexeval.measures.registry import Measure
    from inexeval.rag.retrieve import Embedder

CUTOFFS = (1, 3, 5, 10)
"""The cut-offs of a retrieval measure named without one (``chunks -m chroma_R``)."""

CHUNKING_MEASURES = ("chroma_P_omega",)
"""The families that score a chunking itself (no ranking)."""


def parse(names: Iterable[str], cutoffs: Sequence[int] = CUTOFFS) -> list[Measure]:
    """The measures named: Chroma's and LegalBench-RAG's (one of their retrieval measures named
    without a cut-off is taken at every one of ``cutoffs``), or measures of FOL passage qrels
    (``HiXEval_R@5``, ``passage2_AP``: the excerpts as highlighted passages, the ranking as a
    passage run)."""
    from inexeval.measures.chroma import SCALE
    from inexeval.measures.registry import parse_measure

    out: list[Measure] = []
    for name in names:
        measure = parse_measure(name, partial=True)
        family = measure.family
        if family.scales is not None and not {SCALE, "fol"} & set(family.scales):
            raise MeasureError(f"{measure} does not apply to a Chroma questions CSV (see "
                               "`inexeval measures chroma` and `inexeval measures legal`; "
                               "measures of FOL passage qrels apply too)")
        if family.scales == (SCALE,) and family.cutoff is not None and measure.cutoff is None:
            out += [measure @ k for k in cutoffs]
        else:
            out.append(measure)
    return list(dict.fromkeys(out))


def needs_ranking(measures: Sequence[Measure]) -> bool:
    return any(m.name not in CHUNKING_MEASURES for m in measures)


def official_mean(family: str, values: Sequence[float]) -> float:
    """The mean as the family's official code takes it."""
    if family.startswith("legal_"):
        return sum(values) / len(values)
    return float(np.mean(np.array(values, dtype=np.float64)))


def by_corpus(chunking: Spans) -> dict[str, Spans]:
    """A chunking's chunks of each document, in the chunking's order."""
    from inexeval.formats.chroma import Spans

    out = {}
    for doc in dict.fromkeys(chunking.docs.tolist()):
        keep = chunking.docs == doc
        out[doc] = Spans(chunking.docs[keep], chunking.starts[keep], chunking.ends[keep])
    return out


def evaluate(questions: Questions, measures: Sequence[Measure], name: str,
             rankings: Mapping[str, Spans] | None = None, chunking: Spans | None = None,
             complete: bool = True) -> Results:
    """Every question's value of every measure, and the means, under run name ``name``.

    ``rankings``: each question's retrieved chunks in rank order (a question with none scores
    0, or is left out unless ``complete``); ``chunking``: the chunks for ``chroma_P_omega``."""
    from inexeval.formats.chroma import EMPTY
    from inexeval.measures.chroma import SCALE
    from inexeval.measures.registry import TopicContext

    if needs_ranking(measures) and rankings is None:
        raise MeasureError(f"{', '.join(str(m) for m in measures if m.name not in CHUNKING_MEASURES)}"
                           " needs a ranking of chunks (a run, or a retriever)")
    if any(m.name in CHUNKING_MEASURES for m in measures) and chunking is None:
        raise MeasureError("chroma_P_omega scores a chunking: evaluate it with `inexeval chunks`")
    general = [m for m in measures if m.family.scales != (SCALE,)]
    found_general = {} if not general else {
        (row.topic, row.measure): row.value
        for row in passage_results(questions, general, name, rankings or {}, complete).rows}
    groups: dict[tuple[str, tuple[tuple[str, Any], ...]], list[Measure]] = {}
    for measure in measures:
        if measure.family.scales == (SCALE,):
            groups.setdefault((measure.name, measure.params), []).append(measure)
    corpora = by_corpus(chunking) if chunking is not None else {}
    kept = [q for q in questions.questions
            if complete or rankings is None or q.qid in rankings]
    values: dict[str, list[float | None]] = {str(m): [] for m in measures}
    rows: list[Row] = []
    for question in kept:
        ctx = TopicContext()
        found = {str(m): found_general.get((question.qid, str(m))) for m in general}
        for members in groups.values():
            family = members[0].family
            if family.name in CHUNKING_MEASURES:
                spans = corpora.get(question.corpus_id, EMPTY)
            else:
                assert rankings is not None
                spans = rankings.get(question.qid, EMPTY)
            results = family.kernel(question, spans, ctx, members[0].settings,
                                    [m.cutoff for m in members])
            found.update(zip((str(m) for m in members), results))
        for measure in measures:
            key = str(measure)
            values[key].append(found[key])
            rows.append(Row(name, question.qid, key, found[key]))
    overall = [Row(name, ALL, "num_q", float(len(kept)))]
    for measure in measures:
        defined = [v for v in values[str(measure)] if v is not None]
        mean = (math.fsum(defined) / len(defined) if measure in general  # as Results.means
                else official_mean(measure.name, defined)) if defined else None
        overall.append(Row(name, ALL, str(measure), mean))
    return Results(rows=rows, aggregates={str(m): "mean" for m in measures}, overall=overall,
                   topics_evaluated={name: [q.qid for q in kept]})


def passage_results(questions: Questions, measures: Sequence[Measure], name: str,
                    rankings: Mapping[str, Spans], complete: bool) -> Results:
    """Measures of FOL passage qrels on the questions (each question a topic, its excerpts the
    highlighted passages of its corpus) and the rankings (a passage run, ranked as given)."""
    from inexeval.evaluation import Evaluator
    from inexeval.formats.genomics import passage_topic
    from inexeval.model.assessments import Assessments
    from inexeval.model.run import Run, make_topic_run

    assessments = Assessments({q.qid: passage_topic(q.qid, {q.corpus_id: [
        (int(s), int(e)) for s, e in q.excerpts.tolist()]}, questions.source)
        for q in questions.questions}, "fol", questions.source)
    run = Run(name, "passage", {qid: make_topic_run(
        qid, r.docs.tolist(), offsets=r.starts.tolist(), lengths=(r.ends - r.starts).tolist(),
        ranks=list(range(1, len(r) + 1))) for qid, r in rankings.items() if len(r)})
    return Evaluator(measures, assessments, complete=complete).evaluate(run)


ALL_MEASURES = ("chroma_P_omega", "chroma_R", "chroma_P", "chroma_IoU", "legal_R", "legal_P")
"""What ``chunks`` computes when asked for retrieval with no ``-m``."""


def evaluate_runs(questions: Questions, runs: Sequence[Any], measures: Sequence[Measure],
                  complete: bool = False, rule: str | None = None) -> Results:
    """Span runs (:class:`inexeval.formats.chroma.SpanRun`) on the questions: each question the
    run answers (every question if ``complete``, one with no span scoring 0). ``rule`` (in
    place of ``complete``) is the comparison's: ``any``, the questions some run answers, each
    run on all of them; ``all``, every question (as ``complete``)."""
    from dataclasses import replace

    from inexeval.errors import warn
    from inexeval.model.run import distinct_names
    from inexeval.results import together

    known = set(questions.ids())
    for run in runs:
        stray = [qid for qid in run.rankings if qid not in known]
        if stray:
            warn(f"{len(stray)} question id{'s' if len(stray) > 1 else ''} not in the questions "
                 f"CSV (ids are its data rows, 0 to {len(known) - 1}), e.g. "
                 f"{stray[0]!r}: left out", run.source)
    if rule is not None:
        complete = True
        if rule == "any":
            answered = {qid for run in runs for qid in run.rankings}
            questions = replace(questions, questions=tuple(
                q for q in questions.questions if q.qid in answered))
    names = distinct_names([run.name for run in runs], [run.source for run in runs])
    return together([(run.source, evaluate(questions, measures, name, rankings=run.rankings,
                                           complete=complete))
                     for run, name in zip(runs, names)])


def chunk_study(questions: Questions, chunkings: Mapping[str, Spans],
                measures: Sequence[Measure],
                rankings: Sequence[Mapping[str, Spans]] | None = None,
                embedder: Embedder | None = None) -> Results:
    """Each chunking (by name) on the questions: ``chroma_P_omega`` of its chunks and the
    retrieval measures of its ranking (``rankings``, one per chunking in order; by default
    BM25's, :func:`inexeval.rag.retrieve.bm25`, or with ``embedder`` the embeddings' cosine
    similarity, :func:`inexeval.rag.retrieve.dense`, when a retrieval measure is asked)."""
    if rankings is None and needs_ranking(measures):
        from inexeval.rag.retrieve import CorpusWords, bm25, dense

        depth = max((int(m.cutoff) for m in measures if m.cutoff is not None),
                    default=max(CUTOFFS))
        if embedder is not None:
            rankings = [dense(questions, chunks, depth, embedder)
                        for chunks in chunkings.values()]
        else:
            words = CorpusWords(questions.corpora)
            rankings = [bm25(questions, chunks, depth, words) for chunks in chunkings.values()]
    from inexeval.results import together

    return together([(name, evaluate(questions, measures, name, chunking=chunks,
                                     rankings=None if rankings is None else rankings[i]))
                     for i, (name, chunks) in enumerate(chunkings.items())])
