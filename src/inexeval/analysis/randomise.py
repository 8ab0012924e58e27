"""Ideal runs and their randomisation by random walks in the document trees (seed 004 §7).

Seed 004 builds, from each topic's ideal run, runs of decreasing quality: for each element of
the list a direction (up or down) is chosen with equal probability, and the element is moved one
step in that direction (to its parent, or to one of its children chosen uniformly) as long as a
coin with probability ``m`` of "moving on" says so - a geometric number of steps, none with
probability ``1 - m``. A walk that reaches the root going up, or a leaf going down, stops there.
Every element is walked independently; two walks may end on the same element, and both results
are kept (EPRUM rewards a unit once, seed 004 §3.2).
"""

from __future__ import annotations

import numpy as np

from inexeval.errors import InexevalError
from inexeval.measures.common import quantised
from inexeval.measures.eprum import ideal_set
from inexeval.measures.registry import TopicContext
from inexeval.model import Assessments, Run
from inexeval.model.run import make_topic_run


def ideal_run(assessments: Assessments, quant: str = "strict", selection: str = "irb",
              name: str = "ideal") -> Run:
    """Per topic, the ideal units of :func:`inexeval.measures.eprum.ideal_set` by decreasing
    idealism: the sorted-ideal list, ideal for EPRUM's hierarchical user (seed 004 §7)."""
    topics = {}
    for topic, ta in assessments.items():
        units = ideal_set(ta, quantised(ta, TopicContext(), quant), selection, quant).units
        n = len(units)
        topics[topic] = make_topic_run(
            topic, [u.file for u in units], paths=[u.path for u in units],
            ranks=list(range(1, n + 1)), rsv=[float(n - i) for i in range(n)])
    return Run(name, "element", topics, meta={"quant": quant, "ideal": selection})


def random_walk_run(run: Run, collection: object, move: float, seed: int = 0,
                    name: str | None = None) -> Run:
    """``run`` with every element moved by seed 004's random walk with move probability
    ``move`` in [0, 1) over the trees of ``collection`` (a
    :class:`~inexeval.collection.index.CollectionIndex`); ranks and rsv are kept. The same
    ``seed`` gives the same run. InexevalError for a result that is not an element of the
    collection."""
    if not 0.0 <= move < 1.0:
        raise InexevalError(f"move probability {move!r} is not in [0, 1)")
    rng = np.random.default_rng(seed)
    children: dict[str, list[list[int]]] = {}
    topics = {}
    for topic, topic_run in run.items():
        new_paths = []
        for file, path, line in zip(topic_run.files.tolist(), topic_run.paths.tolist(),
                                    topic_run.lines.tolist()):
            doc = collection.get(file)  # type: ignore[attr-defined]
            at = -1 if doc is None else doc.find(path)
            if at < 0:
                raise InexevalError(f"topic {topic}: {file} {path or '(document)'} is not an "
                                    "element of the collection", run.source, line)
            if file not in children:
                kids: list[list[int]] = [[] for _ in range(len(doc))]
                for i, p in enumerate(doc.parent.tolist()):
                    if p >= 0:
                        kids[p].append(i)
                children[file] = kids
            up = bool(rng.random() < 0.5)
            while rng.random() < move:
                nxt = int(doc.parent[at]) if up else (
                    int(rng.choice(children[file][at])) if children[file][at] else -1)
                if nxt < 0:
                    break
                at = nxt
            new_paths.append(doc.paths[at])
        topics[topic] = make_topic_run(
            topic, topic_run.files.tolist(), paths=new_paths, ranks=topic_run.ranks.tolist(),
            rsv=topic_run.rsv.tolist(), lines=topic_run.lines.tolist())
    return Run(name or f"{run.name}-m{move:g}", run.kind, topics, run.source,
               {**run.meta, "move": move, "seed": seed})
