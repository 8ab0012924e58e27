"""Scores: the one matrix every analysis starts from, runs × topics × measures.

``values[r, t, m]`` is run r's score on topic t under measure m. A topic the run did not answer
holds the score of an empty run (0) and is marked in ``answered``; a measure undefined for a topic
(nothing relevant under a strict quantisation) is NaN and left out of every mean.

The averaging rule says which topics a run's mean is over (:data:`RULES`):

* ``answered`` (trec_eval's default, ``eval``): the assessed topics the run answers;
* ``any`` (every command that compares runs): the topics assessed and answered by at least one
  of the runs, a missing one scoring 0;
* ``all`` (``-c``): every assessed topic, a missing one scoring 0.

The topic axis is the rule's topics in natural order (numbers by value, then names).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError

if TYPE_CHECKING:
    from inexeval.results import Results

RULES: dict[str, str] = {
    "answered": "each run over the assessed topics it answers (trec_eval's default)",
    "any": "over the topics assessed and answered by at least one run, a missing one scoring 0",
    "all": "over every assessed topic, a missing one scoring 0 (-c)",
}

Matrix = npt.NDArray[np.float64]

MEAN_NAME: dict[str, str] = {"AiP": "MAiP", "AgP": "MAgP"}
"""The focused task's per-topic measures (``eval -q`` rows) and the means they are compared
under (``compare``, the studies): one measure by two names."""


def measure_key(name: str) -> str:
    """The one name of a measure however it is spelt: its mean name (``AiP`` is ``MAiP``),
    trec_eval's names made the registry's (``map`` is ``AP``, ``P_10`` and ``P.10`` are
    ``P@10``), aliases and default parameters resolved (:func:`canonical_name`)."""
    from inexeval.errors import MeasureError
    from inexeval.measures.registry import canonical_name
    from inexeval.measures.trec_names import trec_eval_requests

    text = name.strip()
    text = MEAN_NAME.get(text, text)
    try:
        requested = trec_eval_requests([text]).measures
    except MeasureError:
        requested = [text]
    if len(requested) == 1:
        text = requested[0]
    return MEAN_NAME.get(canonical_name(text), canonical_name(text))


def find_measure(measures: Sequence[str], name: str) -> str | None:
    """The name among ``measures`` of the measure ``name`` spells (:func:`measure_key`: mean
    and per-topic names, aliases, trec_eval's names), or None."""
    if name in measures:
        return name
    key = measure_key(name)
    return next((m for m in measures if measure_key(m) == key), None)


def topic_key(topic: str) -> tuple[int, int, str]:
    """The natural order of topic ids: ASCII numbers by value, then every other id by name
    (``str.isdigit`` alone would take ``²`` for a number)."""
    return (0, int(topic), topic) if topic.isascii() and topic.isdigit() else (1, 0, topic)


def natural_order(topics: Iterable[str]) -> list[str]:
    """Distinct topic ids in natural order (:func:`topic_key`)."""
    return sorted(set(topics), key=topic_key)


def describe_rule(rule: str, n_topics: int) -> str:
    """One line for headers, reports and captions: the number of topics and the rule."""
    if rule not in RULES:
        raise InexevalError(f"unknown averaging rule {rule!r} (one of {', '.join(RULES)})")
    return f"{n_topics} topic{'s' if n_topics != 1 else ''}; means {RULES[rule]}"


def geometric_measures(measures: Iterable[str]) -> list[str]:
    """The measures among ``measures`` whose per-topic values are logarithms and whose mean is
    the exponential of their mean (trec_eval's ``gm_map``, ``gm_bpref``)."""
    from inexeval.measures.registry import aggregate_of

    return [m for m in measures if aggregate_of(m) == "gm"]


@dataclass(frozen=True, eq=False)
class Scores:
    """Per-topic scores of several runs under several measures, with the averaging rule.

    Build one with :meth:`from_rows` or :meth:`from_results`; read one saved by ``inexeval eval
    -q --format scores`` with :func:`inexeval.read_scores` (save one with
    :func:`inexeval.save_scores`). :meth:`matrix` gives one measure as
    ``(runs, topics, array)``, the array runs × topics.
    """

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[str, ...]
    values: Matrix
    answered: npt.NDArray[np.bool_]
    rule: str = "any"

    def __post_init__(self) -> None:
        shape = (len(self.runs), len(self.topics), len(self.measures))
        if self.values.shape != shape:
            raise ValueError(f"values have shape {self.values.shape}, not {shape}")
        if self.answered.shape != shape[:2]:
            raise ValueError(f"answered has shape {self.answered.shape}, not {shape[:2]}")
        if self.rule not in RULES:
            raise InexevalError(f"unknown averaging rule {self.rule!r} "
                                f"(one of {', '.join(RULES)})")
        for what, names in (("run", self.runs), ("topic", self.topics),
                            ("measure", self.measures)):
            if len(set(names)) != len(names):
                raise InexevalError(f"a {what} is named twice in the scores")
        self.values.setflags(write=False)
        self.answered.setflags(write=False)

    # construction ------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, str, float | None]], *,
                  rule: str = "any", topics: Sequence[str] | None = None,
                  runs: Sequence[str] | None = None,
                  answered: Mapping[str, Iterable[str]] | None = None) -> Scores:
        """Scores from ``(run, topic, measure, value)`` rows (``all`` rows are skipped; a value
        of None or NaN is undefined).

        ``topics``: the topic axis (default: every topic of the rows, in natural order; under
        rule ``all`` pass every assessed topic). ``runs``: their order (default: first seen).
        ``answered``: ``{run: topics it answers}`` (default: the topics it has rows for); a
        topic it does not answer scores 0.
        """
        table: dict[tuple[str, str, str], float] = {}
        seen_runs: dict[str, None] = dict.fromkeys(runs or ())
        seen_measures: dict[str, None] = {}
        seen_topics: dict[str, None] = {}
        has: dict[str, set[str]] = {}
        for run, topic, measure, value in rows:
            if topic == "all":
                continue
            seen_runs.setdefault(run)
            seen_measures.setdefault(measure)
            seen_topics.setdefault(topic)
            has.setdefault(run, set()).add(topic)
            table[(run, topic, measure)] = math.nan if value is None else float(value)
        run_names = tuple(seen_runs)
        topic_names = tuple(topics) if topics is not None else tuple(natural_order(seen_topics))
        measure_names = tuple(seen_measures)
        given = ({r: set(answered.get(r, ())) for r in run_names} if answered is not None
                 else has)
        values = np.zeros((len(run_names), len(topic_names), len(measure_names)))
        mask = np.zeros((len(run_names), len(topic_names)), dtype=bool)
        topic_index = {t: i for i, t in enumerate(topic_names)}
        for i, run in enumerate(run_names):
            for topic in given.get(run, ()):
                if topic in topic_index:
                    mask[i, topic_index[topic]] = True
        run_index = {r: i for i, r in enumerate(run_names)}
        measure_index = {m: i for i, m in enumerate(measure_names)}
        for (run, topic, measure), value in table.items():
            j = topic_index.get(topic)
            if j is not None:
                values[run_index[run], j, measure_index[measure]] = value
        return cls(run_names, topic_names, measure_names, values, mask, rule)

    @classmethod
    def from_results(cls, results: Results, *, rule: str = "any",
                     topics: Sequence[str] | None = None,
                     answered: Mapping[str, Iterable[str]] | None = None) -> Scores:
        """Scores from evaluated :class:`~inexeval.results.Results` (their per-topic rows).

        Under rule ``answered`` or ``any`` the topic axis is the topics evaluated for at least
        one run; under ``all`` pass ``topics`` (every assessed topic) or evaluate with
        ``complete``.
        """
        if topics is None:
            topics = natural_order(t for run in results.runs()
                                   for t in results.topics_evaluated.get(run, ()))
        return cls.from_rows(((r.run, r.topic, r.measure, r.value) for r in results.rows),
                             rule=rule, topics=topics, runs=results.runs(), answered=answered)

    # access --------------------------------------------------------------------------------
    def _measure(self, measure: str) -> int:
        try:
            return self.measures.index(measure)
        except ValueError:
            raise KeyError(f"no measure {measure!r} in the scores (they have "
                           f"{', '.join(self.measures)})") from None

    def _run(self, run: str) -> int:
        try:
            return self.runs.index(run)
        except ValueError:
            raise KeyError(f"no run {run!r} in the scores (they have "
                           f"{', '.join(self.runs)})") from None

    def included(self) -> npt.NDArray[np.bool_]:
        """runs × topics: whether a topic counts in the run's mean under the rule (every topic
        of the axis, or under ``answered`` those the run answers)."""
        if self.rule == "answered":
            return self.answered.copy()
        return np.ones(self.answered.shape, dtype=bool)

    def matrix(self, measure: str) -> tuple[list[str], list[str], Matrix]:
        """``(runs, topics, array)`` of one measure, the array runs × topics: a topic a run
        does not answer scores 0, an undefined value is NaN."""
        return list(self.runs), list(self.topics), self.values[:, :, self._measure(measure)]

    def means(self) -> Matrix:
        """runs × measures: each run's mean under the rule, over the topics where the measure
        is defined (NaN if it is defined on none); for ``gm_map`` and ``gm_bpref``, whose
        per-topic values are logarithms, the exponential of that mean (trec_eval's value)."""
        weight = self.included()[:, :, None] & ~np.isnan(self.values)
        counts = weight.sum(axis=1)
        sums = np.where(weight, self.values, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        geometric = [self.measures.index(m) for m in geometric_measures(self.measures)]
        means[:, geometric] = np.exp(means[:, geometric])
        return means

    def mean(self, measure: str, run: str) -> float:
        """One run's mean of one measure under the rule."""
        return float(self.means()[self._run(run), self._measure(measure)])

    def select(self, *, runs: Sequence[str] | None = None, topics: Sequence[str] | None = None,
               measures: Sequence[str] | None = None, rule: str | None = None) -> Scores:
        """A subset (in the order given), or the same scores under another rule."""
        ri = [self._run(r) for r in runs] if runs is not None else list(range(len(self.runs)))
        mi = ([self._measure(m) for m in measures] if measures is not None
              else list(range(len(self.measures))))
        if topics is not None:
            where = {t: i for i, t in enumerate(self.topics)}
            missing = [t for t in topics if t not in where]
            if missing:
                raise KeyError(f"no topic {missing[0]!r} in the scores")
            ti = [where[t] for t in topics]
        else:
            ti = list(range(len(self.topics)))
        values = self.values[np.ix_(ri, ti, mi)].copy()
        answered = self.answered[np.ix_(ri, ti)].copy()
        return Scores(tuple(self.runs[i] for i in ri), tuple(self.topics[i] for i in ti),
                      tuple(self.measures[i] for i in mi), values, answered,
                      rule if rule is not None else self.rule)

    def rows(self) -> list[tuple[str, str, str, float | None]]:
        """``(run, topic, measure, value)`` for every cell included under the rule (None for
        an undefined value), runs, then topics, then measures."""
        included = self.included()
        out: list[tuple[str, str, str, float | None]] = []
        for i, run in enumerate(self.runs):
            for j, topic in enumerate(self.topics):
                if not included[i, j]:
                    continue
                for k, measure in enumerate(self.measures):
                    value = float(self.values[i, j, k])
                    out.append((run, topic, measure, None if math.isnan(value) else value))
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame in long format: ``run, topic, measure, value`` and ``answered``
        (the cells included under the rule). Needs pandas."""
        import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]

        included = self.included()
        records = [(run, topic, measure, float(self.values[i, j, k]),
                    bool(self.answered[i, j]))
                   for i, run in enumerate(self.runs)
                   for j, topic in enumerate(self.topics) if included[i, j]
                   for k, measure in enumerate(self.measures)]
        return pd.DataFrame(records, columns=["run", "topic", "measure", "value", "answered"])

    def describe(self) -> str:
        """The header line: topic count and averaging rule."""
        return describe_rule(self.rule, len(self.topics))

    def __repr__(self) -> str:
        return (f"Scores({len(self.runs)} runs × {len(self.topics)} topics × "
                f"{len(self.measures)} measures, rule={self.rule!r})")
