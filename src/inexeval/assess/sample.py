"""Sampled campaigns (issue 24, ``assess init --sample``): assessors judge a stratified sample
and the export carries each unit's stratum, for ``xinfAP``, ``infNDCG`` and ``statAP``.

``assess init --sample SAMPLE.tsv`` reads the sampled pool ``inexeval pool --sample ... -o
SAMPLE.tsv`` writes (:func:`inexeval.formats.sampled.read_sampled_pool`): the drawn articles are
the campaign's pool (in the sample's order), and every article of the strata, drawn or not, is
kept with its stratum and inclusion probability. Units are articles (a sample of elements is
refused: a stratum belongs to what is judged, the article).

``assess export`` of a sampled campaign writes every article of the sample, topic by topic in
the sample's order:

* ``--format sampled``: NIST's sampled qrels ``topic 0 docno stratum rel``
  (:mod:`inexeval.formats.sampled`), ``rel`` 1 for a relevant article, 0 for a non-relevant
  one, -1 for one not drawn;
* ``--format fol``: FOL qrels with the stratum as one more, last field: a judged article's FOL
  line (:func:`inexeval.assess.export.fol_lines`) then the stratum; an article not drawn
  ``topic Q0 file -1 0 stratum`` (``rsize`` -1: not sampled).

A drawn article not judged (done) yet is written as not drawn (-1), a smaller sample of its
stratum (the estimators read the counts from the qrels); a note says how many.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from inexeval.analysis.pooling import SampledPool
from inexeval.assess.export import fol_lines
from inexeval.assess.model import Judgement
from inexeval.collection.index import CollectionIndex
from inexeval.errors import FormatError, InexevalError
from inexeval.formats.sampled import sampled_qrels_lines
from inexeval.model.assessments import Assessments, build_topic
from inexeval.model.pool import Pool, TopicPool
from inexeval.model.pool import topic_order as _topic_order

SAMPLE_FORMATS = ("sampled", "fol")
"""The export formats of a sampled campaign."""

SampleRow = tuple[str, str, str, str, float, bool]


def sampled_campaign(sample: SampledPool) -> tuple[Pool, list[SampleRow]]:
    """The pool of a sampled campaign (the drawn articles of each topic in the sample's order)
    and its sample rows ``(topic, file, path, stratum, probability, drawn)``."""
    pools: dict[str, TopicPool] = {}
    rows: list[SampleRow] = []
    for topic, tp in sample.pool.items():
        element = next((i for i, p in enumerate(tp.paths.tolist()) if p), None)
        if element is not None:
            raise FormatError("assess init --sample takes a sample of articles (pool --sample "
                              "--unit article)", sample.pool.source,
                              int(tp.lines[element]) or None)
        drawn = sample.drawn[topic]
        kept = [i for i, d in enumerate(drawn) if d]
        if not kept:
            continue
        pools[topic] = TopicPool(topic, tp.files[kept], tp.paths[kept], tp.min_ranks[kept],
                                 tp.runs[kept], tp.lines[kept])
        rows.extend((topic, str(f), "", sample.strata[topic][i],
                     sample.probabilities[topic][i], drawn[i])
                    for i, f in enumerate(tp.files.tolist()))
    if not pools:
        raise InexevalError("the sample draws no unit to judge", sample.pool.source)
    return Pool(pools, source=sample.pool.source), rows


def _sample_levels(samples: dict[str, list[tuple[str, str, str, float, bool]]],
                   judged: dict[tuple[str, str], Judgement]
                   ) -> Iterator[tuple[str, str, str, Judgement | None]]:
    """``(topic, file, stratum, judgement or None)`` of every sampled article, topics in
    numeric order, articles in sample order (None: not drawn, or drawn and not done)."""
    for topic in sorted(samples, key=_topic_order):
        for file, _, stratum, _, drawn in samples[topic]:
            j = judged.get((topic, file)) if drawn else None
            yield topic, file, stratum, j if j is not None and j.status == "done" else None


def nist_lines(samples: dict[str, list[tuple[str, str, str, float, bool]]],
               judged: dict[tuple[str, str], Judgement]) -> Iterable[str]:
    """NIST's sampled qrels of the sample (see the module docstring)."""
    records: dict[str, list[tuple[str, str, dict[str, object]]]] = {}
    for topic, file, stratum, j in _sample_levels(samples, judged):
        level = -1 if j is None else int(j.relevant)
        records.setdefault(topic, []).append((file, "", {"relevance": level,
                                                         "stratum": stratum}))
    topics = {t: build_topic(t, "trec", rows, dim_types={"relevance": int, "stratum": str})
              for t, rows in records.items()}
    return sampled_qrels_lines(Assessments(topics=topics, scale="trec"))


def fol_sample_lines(samples: dict[str, list[tuple[str, str, str, float, bool]]],
                     judged: dict[tuple[str, str], Judgement],
                     collection: CollectionIndex) -> Iterable[str]:
    """FOL qrels of the sample with the stratum as the last field (see the module
    docstring)."""
    for topic, file, stratum, j in _sample_levels(samples, judged):
        if j is None:
            yield f"{topic} Q0 {file} -1 0 {stratum}\n"
        else:
            (line,) = fol_lines([j], collection)
            yield f"{line.rstrip()} {stratum}\n"


def unjudged_drawn(samples: dict[str, list[tuple[str, str, str, float, bool]]],
                   judged: dict[tuple[str, str], Judgement]) -> int:
    """How many drawn articles have no done judgement (exported as not drawn)."""
    return sum(1 for topic, rows in samples.items() for file, _, _, _, drawn in rows
               if drawn and (judged.get((topic, file)) is None
                             or judged[(topic, file)].status != "done"))


def write_sample(lines: Iterable[str], target: str | Path, *inputs: str | Path | None) -> int:
    """Write the lines atomically to ``target`` (never over one of ``inputs``); returns how
    many."""
    from inexeval.outputs import atomic_output, check_output

    written = list(lines)
    with atomic_output(check_output(target, *inputs)) as out:
        out.writelines(written)
    return len(written)
