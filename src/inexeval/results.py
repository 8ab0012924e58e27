"""Results: one tidy table of (run, topic, measure, value) with the topic means.

Means, ``-c`` completion and topic selection happen here, once, for every measure: the mean of
a measure is over the topics where it is defined (a value of None is undefined and left out, e.g.
a topic with nothing relevant under a strict quantisation); ``num_q`` counts the topics evaluated.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple


class Row(NamedTuple):
    """One value: a run's score on one topic (or ``all``) under one measure."""

    run: str
    topic: str
    measure: str
    value: float | None


ALL = "all"


@dataclass
class Results:
    """Per-topic values of several runs and measures, with their means.

    ``aggregates`` maps a measure name to ``mean`` or ``sum``; ``overall`` holds rows a measure
    family computed itself for ``all`` (official layouts whose ``all`` is not a plain mean).
    """

    rows: list[Row] = field(default_factory=list)
    aggregates: dict[str, str] = field(default_factory=dict)
    overall: list[Row] = field(default_factory=list)
    topics_evaluated: dict[str, list[str]] = field(default_factory=dict)

    def runs(self) -> list[str]:
        return list(dict.fromkeys(r.run for r in self.rows + self.overall))

    def measures(self) -> list[str]:
        return list(dict.fromkeys(r.measure for r in self.rows + self.overall))

    def topics(self, run: str | None = None) -> list[str]:
        return list(dict.fromkeys(r.topic for r in self.rows if run is None or r.run == run))

    def value(self, run: str, topic: str, measure: str) -> float | None:
        for row in self.rows if topic != ALL else self.means():
            if row.run == run and row.topic == topic and row.measure == measure:
                return row.value
        raise KeyError((run, topic, measure))

    def means(self) -> list[Row]:
        """The ``all`` rows: ``num_q`` then one row per measure, per run."""
        out: list[Row] = []
        for run in self.runs():
            evaluated = self.topics_evaluated.get(run, self.topics(run))
            out.append(Row(run, ALL, "num_q", float(len(evaluated))))
            given = [r for r in self.overall if r.run == run]
            given_names = {r.measure for r in given}
            out.extend(r for r in given if r.measure != "num_q")
            by_measure: dict[str, list[float]] = {}
            for row in self.rows:
                if row.run != run or row.measure in given_names:
                    continue
                values = by_measure.setdefault(row.measure, [])
                if row.value is not None:
                    values.append(row.value)
            for measure, values in by_measure.items():
                if self.aggregates.get(measure) == "sum":
                    out.append(Row(run, ALL, measure, math.fsum(values)))
                else:
                    out.append(Row(run, ALL, measure, math.fsum(values) / len(values) if values else None))
        return out

    def mean(self, measure: str, run: str | None = None) -> float | None:
        for row in self.means():
            if row.measure == measure and (run is None or row.run == run):
                return row.value
        raise KeyError(measure)

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def extend(self, rows: Sequence[Row]) -> None:
        self.rows.extend(rows)
