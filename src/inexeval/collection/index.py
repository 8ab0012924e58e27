"""The element index of a collection: per document, its elements in document order.

For every document the index keeps, in pre-order, each element's canonical path
(``/article[1]/bdy[1]/sec[2]``), tag, parent position (-1 for the root), depth (root = 1) and its
text span ``[start, end)`` in characters of text content (tags excluded, an entity is one
character), plus the document's text length. Nesting is span containment plus depth; the
builder and the saved form live in :mod:`inexeval.collection.build`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True, eq=False)
class DocumentIndex:
    """The elements of one document in document order (pre-order)."""

    name: str
    paths: Sequence[str]
    tags: tuple[str, ...]
    parent: npt.NDArray[np.int64]
    depth: npt.NDArray[np.int64]
    start: npt.NDArray[np.int64]
    end: npt.NDArray[np.int64]
    length: int

    def __len__(self) -> int:
        return len(self.paths)

    @cached_property
    def positions(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.paths)}

    def find(self, path: str) -> int:
        """Position of a canonical path in this document, -1 if absent."""
        return self.positions.get(path, -1)

    def span(self, path: str) -> tuple[int, int] | None:
        i = self.find(path)
        return None if i < 0 else (int(self.start[i]), int(self.end[i]))

    @cached_property
    def subtree_end(self) -> npt.NDArray[np.int64]:
        """For each element, one past the position of its last descendant in pre-order."""
        n = len(self.paths)
        out = np.arange(1, n + 1, dtype=np.int64)
        for i in range(n - 1, 0, -1):
            p = int(self.parent[i])
            if p >= 0 and out[i] > out[p]:
                out[p] = out[i]
        return out

    def is_ancestor_or_self(self, a: int, b: int) -> bool:
        """True when element ``a`` is ``b`` or one of its ancestors (positions in this document)."""
        return a <= b < int(self.subtree_end[a])


@dataclass(frozen=True, eq=False)
class CollectionIndex(Mapping[str, DocumentIndex]):
    """The element index of a whole collection, keyed by document name (``co/2000/r7108``,
    ``12345``: the file's path below the collection folder without ``.xml``)."""

    documents: Mapping[str, DocumentIndex]
    source: str | None = None
    meta: Mapping[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> DocumentIndex:
        return self.documents[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    @property
    def num_docs(self) -> int:
        return len(self.documents)

    def span(self, file: str, path: str) -> tuple[int, int] | None:
        """Text span of an element, None when the document or the path is not in the index."""
        doc = self.documents.get(file)
        return None if doc is None else doc.span(path)
