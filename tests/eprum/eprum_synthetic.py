"""Small synthetic collections built directly as DocumentIndex objects."""

from __future__ import annotations

import numpy as np

from inexeval.collection.index import CollectionIndex, DocumentIndex


def document(name: str, tree: dict[str, object]) -> DocumentIndex:
    """A document from a nested ``{"tag": int text length | {children...}}`` tree whose single
    root is the article; children with the same tag are numbered in order."""
    paths: list[str] = []
    tags: list[str] = []
    parent: list[int] = []
    depth: list[int] = []
    start: list[int] = []
    end: list[int] = []

    def visit(tag: str, node: object, path: str, up: int, level: int, at: int) -> int:
        me = len(paths)
        paths.append(path)
        tags.append(tag)
        parent.append(up)
        depth.append(level)
        start.append(at)
        end.append(at)
        if isinstance(node, int):
            at += node
        else:
            assert isinstance(node, dict)
            counts: dict[str, int] = {}
            for key, child in node.items():
                child_tag = key.split("#")[0]
                counts[child_tag] = counts.get(child_tag, 0) + 1
                at = visit(child_tag, child, f"{path}/{child_tag}[{counts[child_tag]}]", me,
                           level + 1, at)
        end[me] = at
        return at

    ((root, body),) = tree.items()
    total = visit(root, body, f"/{root}[1]", -1, 1, 0)
    return DocumentIndex(name, tuple(paths), tuple(tags), np.array(parent, dtype=np.int64),
                         np.array(depth, dtype=np.int64), np.array(start, dtype=np.int64),
                         np.array(end, dtype=np.int64), total)


# article 100 = sec[1] 60 (p[1] 20, p[2] 40) + sec[2] 40
SMALL = {"article": {"sec#1": {"p#1": 20, "p#2": 40}, "sec#2": 40}}


def small_collection() -> CollectionIndex:
    return CollectionIndex({"d1": document("d1", SMALL), "d2": document("d2", SMALL)})


def random_collection(n_docs: int, seed: int) -> CollectionIndex:
    """Articles of 2-4 sections of 1-4 paragraphs (some with 1-2 sub-paragraph list items)."""
    rng = np.random.default_rng(seed)
    docs = {}
    for d in range(n_docs):
        body: dict[str, object] = {}
        for s in range(int(rng.integers(2, 5))):
            sec: dict[str, object] = {"st#0": int(rng.integers(10, 40))}
            for p in range(int(rng.integers(1, 5))):
                if rng.random() < 0.3:
                    sec[f"p#{p}"] = {f"it#{i}": int(rng.integers(20, 200))
                                     for i in range(int(rng.integers(1, 3)))}
                else:
                    sec[f"p#{p}"] = int(rng.integers(50, 600))
            body[f"sec#{s}"] = sec
        name = f"doc{d}"
        docs[name] = document(name, {"article": body})
    return CollectionIndex(docs)
