"""The bridge between elements and passages: element runs and INEX 2005-2008 highlighting
assessments turned into FOL passages with the collection index, so that element runs of any year
can be scored with the character-based measures of 2007-2010 (spec §5.2-5.5, §15).

An element ``/article[1]/bdy[1]/sec[2]`` becomes the passage ``[start, end)`` of its text in the
collection index (tags excluded, an entity is one character: the FOL convention, spec §1.3).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from inexeval.errors import InexevalError, warn
from inexeval.model import Assessments, Run, TopicRun
from inexeval.model.assessments import build_topic

if TYPE_CHECKING:
    from inexeval.collection.index import CollectionIndex


def element_run_to_passages(run: Run, collection: CollectionIndex) -> Run:
    """The element run as a passage run: each result is its element's text span. An element
    that is not in the collection becomes a non-existent passage (FOL ``X``, scored
    non-relevant), with a warning; a whole-document result becomes the whole document. An
    element without text has no passage (FOL passages have at least one character): it is left
    out, with a warning counting such results (the others keep their ranks)."""
    if run.kind == "passage":
        return run
    topics: dict[str, TopicRun] = {}
    absent: list[tuple[str, int]] = []
    empty: list[tuple[str, int]] = []
    for topic, results in run.items():
        offsets = np.full(len(results), -1, dtype=np.int64)
        lengths = np.zeros(len(results), dtype=np.int64)
        missing = np.zeros(len(results), dtype=bool)
        kept = np.ones(len(results), dtype=bool)
        for i, (file, path) in enumerate(zip(results.files.tolist(), results.paths.tolist())):
            doc = collection.get(file)
            span = (0, doc.length) if doc is not None and not path else (
                doc.span(path) if doc is not None else None)
            if span is None:
                missing[i] = True
                absent.append((f"{file} {path}", int(results.lines[i])))
            elif span[1] == span[0]:
                kept[i] = False
                empty.append((f"{file} {path}".rstrip(), int(results.lines[i])))
            else:
                offsets[i], lengths[i] = span[0], span[1] - span[0]
        passages = replace(results, paths=np.full(len(results), "", dtype=object),
                           offsets=offsets, lengths=lengths, missing=missing)
        topics[topic] = passages if kept.all() else passages.take(np.flatnonzero(kept))
    if absent:
        warn(f"{len(absent)} result(s) not in the collection became non-existent passages "
             f"(first: {absent[0][0]})", run.source, absent[0][1])
    if empty:
        warn(f"{len(empty)} result(s) without text left out: a passage has at least one "
             f"character (first: {empty[0][0]})", run.source, empty[0][1])
    return replace(run, kind="passage", topics=topics)


def passages_for(run: Run, assessments: Assessments, collection: CollectionIndex | None) -> Run:
    """The run as FOL (passage) qrels are scored: an element run is turned into passages
    through the collection (:func:`element_run_to_passages`, what ``inexeval convert run``
    writes), as INEX 2009-2010 converted element submissions to FOL before evaluating them (spec
    §5.2: "elements converted to passages"). Without the collection an element has no character
    span, so that is an error naming the run. Other runs and other assessments: the run as it
    is."""
    if run.kind != "element" or assessments.scale != "fol":
        return run
    if collection is None:
        raise InexevalError("an element run on FOL (passage) qrels needs the collection "
                            "(--collection DIR|INDEX) to turn its elements into character "
                            "spans", run.source)
    return element_run_to_passages(run, collection)


def highlights_to_fol(assessments: Assessments, collection: CollectionIndex) -> Assessments:
    """INEX 2005-2008 highlighting assessments as FOL qrels: per topic and judged document, the
    highlighted passages (resolved against the collection and merged), ``rsize`` their total
    length, ``length`` the document's text length and ``bep`` the best entry point's offset
    (-1 when none). Documents without highlighted text are left out, as in the 2005 files."""
    if assessments.scale != "inex2005":
        raise InexevalError(f"only INEX 2005-2008 highlighting assessments convert to FOL "
                            f"qrels, not {assessments.scale}", assessments.source)
    topics = {}
    for topic, ta in assessments.items():
        from inexeval.collection.implicit import resolve_passages

        resolved = resolve_passages(ta, collection)
        records = []
        highlights = {}
        entry_points = {}
        for file in dict.fromkeys(resolved.files.tolist()):
            spans = resolved.highlights.get(file)
            if spans is None or not len(spans):
                continue
            doc = collection.get(file)
            if doc is None:
                raise InexevalError(f"document {file} (topic {topic}) is not in the collection",
                                    assessments.source)
            bep = resolved.best_entry_points.get(file, -1)
            bep = int(bep) if isinstance(bep, (int, np.integer)) else -1
            records.append((file, "", {"rsize": int((spans[:, 1] - spans[:, 0]).sum()),
                                       "length": doc.length, "bep": bep}))
            highlights[file] = spans
            entry_points[file] = bep
        topics[topic] = build_topic(topic, "fol", records, highlights=highlights,
                                    dim_types={"rsize": int, "length": int, "bep": int},
                                    best_entry_points=entry_points, source=assessments.source)
    return Assessments(topics, "fol", assessments.source)
