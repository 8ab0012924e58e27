"""Builders for the hand-made collections, assessments and runs of the tests in tests/xcg."""

from __future__ import annotations

from typing import Any

import numpy as np

# importing the modules registers the families under test
import inexeval.measures.hixeval
import inexeval.measures.ng
import inexeval.measures.xcg  # noqa: F401
from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.collection.paths import depth, parent
from inexeval.measures.registry import TopicContext, parse_measure
from inexeval.model.assessments import TopicAssessments, build_topic
from inexeval.model.run import TopicRun, make_topic_run


def document(name: str, elements: dict[str, tuple[int, int]]) -> DocumentIndex:
    """A document index from ``{path: (start, end)}`` (pre-order is derived from the spans)."""
    order = sorted(elements, key=lambda p: (elements[p][0], -elements[p][1], depth(p)))
    position = {p: i for i, p in enumerate(order)}
    return DocumentIndex(
        name=name,
        paths=tuple(order),
        tags=tuple(p.rsplit("/", 1)[1].split("[")[0] for p in order),
        parent=np.array([position.get(parent(p) or "", -1) for p in order], dtype=np.int64),
        depth=np.array([depth(p) for p in order], dtype=np.int64),
        start=np.array([elements[p][0] for p in order], dtype=np.int64),
        end=np.array([elements[p][1] for p in order], dtype=np.int64),
        length=max(e for _, e in elements.values()),
    )


def collection(*documents: DocumentIndex) -> CollectionIndex:
    return CollectionIndex({d.name: d for d in documents})


def assessments(
    scale: str,
    records: list[tuple[str, str, dict[str, Any]]],
    highlights: dict[str, list[tuple[int, int]]] | None = None,
    topic: str = "1",
) -> TopicAssessments:
    return build_topic(
        topic, scale, records,
        highlights={f: np.array(r, dtype=np.int64).reshape(-1, 2)
                    for f, r in (highlights or {}).items()},
    )


def run(items: list[tuple[str, str]], topic: str = "1") -> TopicRun:
    return make_topic_run(topic, [f for f, _ in items], paths=[p for _, p in items])


def passages(items: list[tuple[str, int, int]], topic: str = "1") -> TopicRun:
    return make_topic_run(topic, [f for f, _, _ in items], offsets=[o for _, o, _ in items],
                          lengths=[n for _, _, n in items])


def score(name: str, ta: TopicAssessments, tr: TopicRun, coll: CollectionIndex | None) -> Any:
    """Value of one measure (by its name) on one topic."""
    measure = parse_measure(name)
    ctx = TopicContext(coll, None if coll is None else coll.num_docs)
    return measure.family.kernel(ta, tr, ctx, measure.settings, [measure.cutoff])[0]

