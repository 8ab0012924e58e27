"""Adaptive pooling in a live campaign (issue 24, ``assess init --strategy``).

A campaign made from runs with a pooling strategy (:mod:`inexeval.analysis.strategies`) stores,
per topic, each run's distinct articles in rank order down to the pool's depth (the depth-K pool
that the strategy orders) and the strategy with its parameters. The pool table holds that
depth pool in ``depth`` order, the static start ``inexeval pool --strategy NAME`` writes without
``--qrels``; what an assessor judges is what the service serves.

Serving (:meth:`inexeval.assess.store.Store.serve`, one transaction with the topic's row locked):
an assessor is given the article the strategy picks after every judgement of the topic so far,
whoever made it (:func:`inexeval.analysis.strategies.next_unit`: the strategy replayed on the
judgements, an article served to another assessor and not done yet counting as not relevant
meanwhile), and keeps it until it is done; then the next. The ``--budget`` caps the articles
served per topic. An article's judgement is that of the assessor it was served to (when another
assessor judged it too: relevant if any of them found it relevant, for the strategy only).
The bandits' random ties use the ``i``-th child of ``SeedSequence(seed)`` for the ``i``-th of
the runs' topics in topic order, as ``inexeval pool`` does, so that one assessor answering in
the order served follows ``pool --strategy NAME --qrels`` on the same answers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from inexeval.analysis.pooling import TopicCandidates, topic_candidates
from inexeval.analysis.strategies import (
    STRATEGIES,
    Candidates,
    StrategyOptions,
    depth_order,
    next_unit,
)
from inexeval.assess.model import Judgement
from inexeval.assess.store import Store
from inexeval.errors import InexevalError, warn
from inexeval.formats.topics import read_topics
from inexeval.model.pool import Pool, TopicPool, topic_order
from inexeval.model.run import Run

Chooser = Callable[[str, list[tuple[str, str, bool]], list[Judgement]], str | None]


@dataclass(frozen=True)
class Plan:
    """An adaptive campaign's strategy: its name, judgement ``budget`` per topic (None: the
    whole depth pool), the pool ``depth`` and the strategy's parameters."""

    strategy: str
    depth: int
    budget: int | None
    options: StrategyOptions

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise InexevalError(f"unknown pooling strategy {self.strategy!r} (known: "
                                f"{', '.join(STRATEGIES)})")
        if self.depth < 1 or (self.budget is not None and self.budget < 1):
            raise InexevalError("the pool depth and the budget must be at least 1")

    def to_json(self) -> str:
        return json.dumps({"strategy": self.strategy, "depth": self.depth,
                           "budget": self.budget, "options": asdict(self.options)},
                          sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Plan:
        data = json.loads(text)
        return cls(data["strategy"], int(data["depth"]), data["budget"],
                   StrategyOptions(**data["options"]))


def candidates_json(tc: TopicCandidates, spawn: int) -> str:
    """A topic's runs as the store keeps them: the pool's articles by code, each run's codes,
    ranks and scores (null for none), and the topic's seed index ``spawn``."""
    c = tc.candidates
    return json.dumps({
        "files": [str(f) for f in tc.files.tolist()],
        "lists": [x.tolist() for x in c.lists],
        "ranks": [x.tolist() for x in c.ranks],
        "scores": [[v if math.isfinite(v) else None for v in x.tolist()] for x in c.scores],
        "spawn": spawn}, separators=(",", ":"))


def read_candidates(text: str) -> tuple[Candidates, list[str], int]:
    """:func:`candidates_json` read back: the strategies' view, the files by code, the seed
    index."""
    data = json.loads(text)
    files = [str(f) for f in data["files"]]
    c = Candidates(
        len(files), [np.array(x, dtype=np.int64) for x in data["lists"]],
        [np.array(x, dtype=np.int64) for x in data["ranks"]],
        [np.array([np.nan if v is None else v for v in x], dtype=np.float64)
         for x in data["scores"]])
    return c, files, int(data["spawn"])


def chooser(plan: Plan) -> Chooser:
    """The ``choose`` of :meth:`~inexeval.assess.store.Store.serve` for ``plan``: the article
    the strategy picks next (see the module docstring), None past the budget or when every
    article of the depth pool is judged or being judged."""

    def choose(stored: str, given: list[tuple[str, str, bool]], done: list[Judgement]
               ) -> str | None:
        if plan.budget is not None and len(given) >= plan.budget:
            return None
        c, files, spawn = read_candidates(stored)
        code = {f: i for i, f in enumerate(files)}
        served_to = {f: who for f, who, _ in given}
        own: dict[int, bool] = {}
        others: dict[int, bool] = {}
        for j in done:
            unit = code.get(j.file)
            if unit is None:
                continue
            if served_to.get(j.file) == j.assessor:
                own[unit] = j.relevant
            else:
                others[unit] = others.get(unit, False) or j.relevant
        answers = {**others, **own}
        pending = {code[f] for f, _, is_done in given if not is_done and f in code}
        seed = np.random.SeedSequence(plan.options.seed, spawn_key=(spawn,))
        unit = next_unit(plan.strategy, c, answers, pending, plan.options, seed)
        return None if unit is None else files[unit]

    return choose


def adaptive_pool(runs: Sequence[Run], topic_file: str | Path, plan: Plan, order: str | None = None
                  ) -> tuple[Pool, dict[str, str]]:
    """The static start of an adaptive campaign (each topic's depth pool of articles in
    ``depth`` order) and each topic's runs as :func:`candidates_json`, for the topics of
    ``topic_file`` that the runs answer (the others are warned about and left out)."""
    wanted = read_topics(topic_file)
    answered = sorted({t for r in runs for t in r}, key=topic_order)
    left_out = [t for t in answered if t not in wanted]
    if left_out:
        warn(f"not in the topic file, not pooled: topic(s) {', '.join(left_out[:10])}"
             + (" ..." if len(left_out) > 10 else ""), topic_file)
    pools: dict[str, TopicPool] = {}
    stored: dict[str, str] = {}
    for spawn, topic in enumerate(answered):
        if topic not in wanted:
            continue
        tc = topic_candidates(runs, topic, plan.depth, "article", order)
        if tc.candidates.size == 0:
            continue
        start = depth_order(tc.candidates)
        pools[topic] = TopicPool(topic, tc.files[start], tc.paths[start], tc.min_ranks[start],
                                 tc.runs[start], np.zeros(len(start), dtype=np.int64))
        stored[topic] = candidates_json(tc, spawn)
    if not pools:
        raise InexevalError("the runs answer none of the topics of the topic file", topic_file)
    return Pool(pools), stored


def serve(store: Store, topic: str, assessor: str) -> str | None:
    """The article ``assessor`` judges next for ``topic`` (:meth:`Store.serve` with the
    campaign's strategy); None in a campaign that is not adaptive, or when nothing is left."""
    stored = store.setting("strategy")
    if stored is None:
        store.access(topic, assessor)
        return None
    return store.serve(topic, assessor, chooser(Plan.from_json(stored)))
