"""Implicit assessments (spec §1.6) and resolution of 2005-2008 passages against the collection.

:func:`implicit_assessments` adds, for every judged element, records for its ancestors up to the
article, following the rules of each assessment scale:

* ``inex2002`` (seed 003 §5.1): a parent's relevance is at least that of any assessed child, and
  a parent of a child with coverage E or L has coverage L; applied recursively up to the article,
  only to elements the assessor did not judge (explicit judgements are kept as given). Every
  ancestor of a judged element gets a record: relevance = the maximum over its children
  (explicit or implicit), coverage L when that relevance is above 0, else N (0N). The seed gives
  no coverage rule for a parent whose relevant children are all S (too small); we give it L as
  well (it contains more than the too-small child) - both INEX 2002 quantisations (spec §2.1)
  value (r, S) and (r, L) the same for r = 1, 2 and 3S cannot occur, so the choice changes no
  score. Whether to apply the rules (INEX 2002: not for CAS topics with target elements) is the
  caller's decision.
* ``inex2005`` (X-Rai exporter, ``[C-XRai]``): walking up from each judged element in file order,
  an ancestor not judged inherits its exhaustivity; a judged ancestor is raised to the maximum
  (order ? < 1 < 2, i.e. -1 < 1 < 2 as stored). The official exporter already wrote these
  ancestors into the files, so on real files this changes nothing. An added ancestor's ``size``
  and ``rsize`` come from the collection (its span, and its intersection with the resolved
  ``highlights``) when a collection is given and the highlights of the document are resolved;
  otherwise they are NaN.
* ``inex2003`` (INEX 2003/2004): returned unchanged. The assessment tool of those years enforced
  consistency (a parent at least as exhaustive as its children) while the assessor worked
  (spec §1.5.2, ``[R]``), so the files hold every judged ancestor and no value can be deduced for
  an unjudged one (its specificity is unknown).
* ``fol`` and ``trec`` judge whole documents or passages: returned unchanged.

:func:`resolve_passages` turns the XPointer passages of 2005-2008 files into character spans.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.collection.build import IndexedDocument
from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.collection.paths import ancestors, depth, parent
from inexeval.errors import InexevalError
from inexeval.formats.inex_assessments import XPointer, parse_xpointer
from inexeval.model.assessments import TopicAssessments


def implicit_assessments(
    ta: TopicAssessments, collection: CollectionIndex | None = None
) -> TopicAssessments:
    """``ta`` with the implicit records of its scale added (``explicit`` False), see the module
    docstring; records keep file order, added ones follow in document order of their files."""
    if ta.scale == "inex2002":
        return _implicit_2002(ta)
    if ta.scale == "inex2005":
        return _implicit_2005(ta, collection)
    return ta


def _append(ta: TopicAssessments, added: list[tuple[str, str, dict[str, Any]]],
            dims: dict[str, npt.NDArray[Any]]) -> TopicAssessments:
    if not added:
        return replace(ta, dims=dims)
    names = list(dims)
    return replace(
        ta,
        files=np.concatenate([ta.files, np.array([f for f, _, _ in added], dtype=object)]),
        paths=np.concatenate([ta.paths, np.array([p for _, p, _ in added], dtype=object)]),
        dims={
            name: np.concatenate(
                [dims[name], np.array([v[name] for _, _, v in added], dtype=dims[name].dtype)])
            for name in names
        },
        explicit=np.concatenate([ta.explicit, np.zeros(len(added), dtype=bool)]),
    )


def _implicit_2002(ta: TopicAssessments) -> TopicAssessments:
    relevance = ta.dim("relevance")
    coverage = ta.dim("coverage")
    known: dict[tuple[str, str], tuple[int, int]] = {
        (f, p): (int(r), int(c))
        for f, p, r, c in zip(ta.files.tolist(), ta.paths.tolist(), relevance, coverage)
    }
    missing = sorted(
        {(f, a) for f, p in known for a in ancestors(p) if (f, a) not in known},
        key=lambda fp: (fp[0], -depth(fp[1]), fp[1]),
    )
    children: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for (f, p), values in known.items():
        up = parent(p)
        if up is not None:
            children.setdefault((f, up), []).append(values)
    added: list[tuple[str, str, dict[str, Any]]] = []
    # Deepest first, so that a node's implicit children are complete before the node itself.
    for f, p in missing:
        best = max(r for r, _ in children[(f, p)])
        values = (best, 2 if best > 0 else 0)
        up = parent(p)
        if up is not None:
            children.setdefault((f, up), []).append(values)
        added.append((f, p, {"relevance": values[0], "coverage": values[1]}))
    added.sort(key=lambda r: (r[0], depth(r[1]), r[1]))
    return _append(ta, added, dict(ta.dims))


def _implicit_2005(ta: TopicAssessments, collection: CollectionIndex | None) -> TopicAssessments:
    exhaustivity = ta.dim("exhaustivity").copy()
    position = dict(ta.index)
    inherited: dict[tuple[str, str], int] = {}
    for i, (f, p) in enumerate(zip(ta.files.tolist(), ta.paths.tolist())):
        e = int(exhaustivity[i])
        for a in ancestors(p):
            j = position.get((f, a))
            if j is not None:
                if e <= exhaustivity[j]:
                    break
                exhaustivity[j] = e
            elif (f, a) in inherited:
                if e <= inherited[(f, a)]:
                    break
                inherited[(f, a)] = e
            else:
                inherited[(f, a)] = e
    added: list[tuple[str, str, dict[str, Any]]] = []
    for (f, a), e in sorted(inherited.items(), key=lambda r: (r[0][0], depth(r[0][1]), r[0][1])):
        size, rsize = _sizes(ta, collection, f, a)
        added.append((f, a, {"exhaustivity": e, "size": size, "rsize": rsize}))
    dims = dict(ta.dims)
    dims["exhaustivity"] = exhaustivity
    return _append(ta, added, dims)


def _sizes(ta: TopicAssessments, collection: CollectionIndex | None, file: str,
           path: str) -> tuple[float, float]:
    """Size and highlighted size of an element from the collection, NaN when unknown."""
    span = None if collection is None else collection.span(file, path)
    if span is None:
        return np.nan, np.nan
    start, end = span
    highlights = ta.highlights.get(file)
    if highlights is None:
        return float(end - start), np.nan
    overlap = np.minimum(highlights[:, 1], end) - np.maximum(highlights[:, 0], start)
    return float(end - start), float(np.clip(overlap, 0, None).sum())


def _point(doc: DocumentIndex, pointer: XPointer, is_end: bool, where: str | None) -> int:
    """Character position of an XPointer in a document; an end pointer without an offset is the
    end of its node, a start pointer without one the start (the X-Rai exporter's convention)."""
    i = doc.find(pointer.path)
    if i < 0:
        raise InexevalError(f"XPointer element {pointer.path} is not in document {doc.name}", where)
    if pointer.text_node == 0:
        start, end = int(doc.start[i]), int(doc.end[i])
    else:
        if not isinstance(doc, IndexedDocument):
            raise InexevalError(
                f"the index of {doc.name} has no text-node offsets: rebuild it with inexeval index",
                where)
        node = doc.text_node(i, pointer.text_node)
        if node is None:
            raise InexevalError(
                f"{pointer.path} of {doc.name} has no text node {pointer.text_node}", where)
        start, end = node
    if pointer.offset is None:
        return end if is_end else start
    if start + pointer.offset > end:
        node_name = f"/text()[{pointer.text_node}]" if pointer.text_node else ""
        raise InexevalError(
            f"offset {pointer.offset} is beyond the end of {pointer.path}{node_name} in {doc.name}",
            where)
    return start + pointer.offset


def merge_spans(spans: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Sort ``[start, end)`` rows and merge overlapping or touching ones; empty rows go."""
    spans = spans[spans[:, 1] > spans[:, 0]]
    if len(spans) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    spans = spans[np.lexsort((spans[:, 1], spans[:, 0]))]
    reach = np.maximum.accumulate(spans[:, 1])
    new = np.concatenate(([True], spans[1:, 0] > reach[:-1]))
    starts = spans[new, 0]
    ends = reach[np.concatenate((np.flatnonzero(new)[1:] - 1, [len(spans) - 1]))]
    return np.stack([starts, ends], axis=1).astype(np.int64)


def resolve_passages(ta: TopicAssessments, collection: CollectionIndex,
                     merge: bool = True) -> TopicAssessments:
    """Resolve ``ta.passages`` (start/end XPointers) into ``ta.highlights`` (sorted, merged
    ``[start, end)`` character spans per document, spec §1.5.3: the exporter merged overlapping
    passages too; ``merge=False`` keeps them as given, sorted by start, to check them) and the
    best entry points into character offsets.

    Offsets count Unicode characters of text (tags excluded) as the collection index does;
    the files' own ``size`` attributes may differ (X-Rai counted bytes, or merged whitespace,
    spec §1.3). A pointer to an element or text node that is not in the document, or an offset
    beyond its node, is an :class:`InexevalError`; so is a passage ending before it starts.
    """
    highlights = dict(ta.highlights)
    for file, passages in ta.passages.items():
        doc = _document(collection, file, ta)
        rows = []
        for start_text, end_text in passages:
            start = _point(doc, parse_xpointer(start_text), False, ta.source)
            end = _point(doc, parse_xpointer(end_text), True, ta.source)
            if end < start:
                raise InexevalError(
                    f"passage {start_text} - {end_text} of {file} ends before it starts",
                    ta.source)
            rows.append((start, end))
        spans = np.array(rows, dtype=np.int64).reshape(-1, 2)
        highlights[file] = merge_spans(spans) if merge else spans[np.argsort(spans[:, 0],
                                                                             kind="stable")]
    best = {
        file: (_point(_document(collection, file, ta), parse_xpointer(bep), False, ta.source)
               if isinstance(bep, str) else bep)
        for file, bep in ta.best_entry_points.items()
    }
    return replace(ta, highlights=highlights, best_entry_points=best)


def _document(collection: CollectionIndex, file: str, ta: TopicAssessments) -> DocumentIndex:
    doc = collection.get(file)
    if doc is None:
        raise InexevalError(
            f"document {file} (topic {ta.topic}) is not in the collection index", ta.source)
    return doc
