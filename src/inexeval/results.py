"""Results: one tidy table of (run, topic, measure, value) with the topic means.

Means, ``-c`` completion and topic selection happen here, once, for every measure: the mean of
a measure is over the topics where it is defined (a value of None is undefined and left out, e.g.
a topic with nothing relevant under a strict quantisation); ``num_q`` counts the topics evaluated.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple


class Row(NamedTuple):
    """One value: a run's score on one topic (or ``all``) under one measure."""

    run: str
    topic: str
    measure: str
    value: float | None


class Metric(NamedTuple):
    """One value of one run, as ``iter_calc`` yields it (ir_measures' ``Metric``)."""

    topic: str
    measure: str
    value: float | None

    @property
    def query_id(self) -> str:
        """The topic, under ir_measures' name."""
        return self.topic


ALL = "all"


@dataclass
class Results:
    """Per-topic values of several runs and measures, with their means.

    ``aggregates`` maps a measure name to ``mean``, ``sum``, ``gm`` (the exponential of the
    mean of values that are logarithms: trec_eval's ``gm_map``) or ``none`` (a per-topic value with
    no ``all`` row of its own, e.g. the official ``AiP`` whose mean is given as ``MAiP`` in
    ``overall``); ``overall`` holds rows a measure family computed itself for ``all`` (official
    layouts whose ``all`` is not a plain mean).
    """

    rows: list[Row] = field(default_factory=list)
    aggregates: dict[str, str] = field(default_factory=dict)
    overall: list[Row] = field(default_factory=list)
    topics_evaluated: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    """Each run's file, where it was read from one: a run is looked up by its name or file."""
    _means: dict[tuple[str | None, str], float | None] = field(default_factory=dict, repr=False)
    _means_of: int = field(default=-1, repr=False)

    def runs(self) -> list[str]:
        """Run names in evaluation order (also runs with no assessed topic: ``num_q`` 0)."""
        return list(dict.fromkeys([*self.topics_evaluated,
                                   *(r.run for r in self.rows + self.overall)]))

    def measures(self) -> list[str]:
        return list(dict.fromkeys(r.measure for r in self.rows + self.overall))

    def topics(self, run: str | None = None) -> list[str]:
        return list(dict.fromkeys(r.topic for r in self.rows if run is None or r.run == run))

    def value(self, run: str, topic: str, measure: str) -> float | None:
        """The value of one run, topic (or ``all``) and measure (any spelling of the measure:
        ``inex_eval(quant=strict)`` finds ``inex_eval``); ``run`` its name or file."""
        run = self.run_name(run)
        if topic == ALL:
            return self.mean(measure, run)
        for row in self.rows:
            if row.run == run and row.topic == topic and row.measure == measure:
                return row.value
        name = _canonical(measure)
        if name != measure:
            return self.value(run, topic, name)
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
                if self.aggregates.get(row.measure) == "none":
                    continue
                values = by_measure.setdefault(row.measure, [])
                if row.value is not None:
                    values.append(row.value)
            for measure, values in by_measure.items():
                if self.aggregates.get(measure) == "sum":
                    out.append(Row(run, ALL, measure, math.fsum(values)))
                elif self.aggregates.get(measure) == "gm":  # the values are logarithms
                    out.append(Row(run, ALL, measure, math.exp(math.fsum(values) / len(values))
                                   if values else None))
                else:
                    out.append(Row(run, ALL, measure, math.fsum(values) / len(values) if values else None))
        return out

    def mean(self, measure: str, run: str | None = None) -> float | None:
        """The ``all`` value of a measure, in any spelling (of the first run if ``run`` is
        None; else its name or file)."""
        if self._means_of != len(self.rows) + len(self.overall):
            self._means = {}
            for row in self.means():
                self._means.setdefault((row.run, row.measure), row.value)
                self._means.setdefault((None, row.measure), row.value)
            self._means_of = len(self.rows) + len(self.overall)
        if run is not None:
            run = self.run_name(run)
        if (run, measure) in self._means:
            return self._means[(run, measure)]
        name = _canonical(measure)
        if (run, name) in self._means:
            return self._means[(run, name)]
        raise KeyError(measure if run is None else (run, measure))

    def to_dataframe(self, means: bool = False) -> Any:
        """A pandas DataFrame in long format, columns ``run, topic, measure, value`` (per-topic
        rows; with ``means`` also the ``all`` rows). Needs pandas."""
        import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]

        rows = self.rows + (self.means() if means else [])
        return pd.DataFrame(rows, columns=list(Row._fields))

    def to_dict(self) -> dict[str, dict[str, dict[str, float | None]]]:
        """``{run: {topic: {measure: value}}}``, the ``all`` values under topic ``all``
        (pytrec_eval's ``{topic: {measure: value}}`` per run)."""
        out: dict[str, dict[str, dict[str, float | None]]] = {}
        for row in [*self.rows, *self.means()]:
            out.setdefault(row.run, {}).setdefault(row.topic, {})[row.measure] = row.value
        return out

    def relabelled(self, labels: Mapping[str, str]) -> Results:
        """The same results with measures renamed (``labels``: name to new name; a name not
        in it kept), e.g. printed under trec_eval's names."""
        labels = {k: v for k, v in labels.items() if k != v}
        if not labels:
            return self

        def row(r: Row) -> Row:
            return r._replace(measure=labels[r.measure]) if r.measure in labels else r
        return replace(self, rows=[row(r) for r in self.rows],
                       overall=[row(r) for r in self.overall],
                       aggregates={labels.get(k, k): v for k, v in self.aggregates.items()},
                       _means={}, _means_of=-1)

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def __repr__(self) -> str:
        """What the results hold, not their rows (a notebook shows it whole)."""
        runs, measures = self.runs(), self.measures()

        def listed(names: list[str]) -> str:
            shown = ", ".join(names[:6])
            return shown + (f" ... ({len(names)})" if len(names) > 6 else "")

        return (f"Results({len(runs)} run{'s' * (len(runs) != 1)} × {len(self.topics())} "
                f"topics × {len(measures)} measures; runs: {listed(runs)}; measures: "
                f"{listed(measures)})")

    def _mean_cells(self, digits: int) -> list[list[str]]:
        """The table a paper shows: a header, then a run a row, its means (counts whole)."""
        measures = [m for m in self.measures() if self.aggregates.get(m) != "none"]
        means = {(r.run, r.measure): r.value for r in self.means()}
        cells = [["run", *measures]]
        for run in self.runs():
            row = [run]
            for m in measures:
                value = means.get((run, m))
                row.append("" if value is None or math.isnan(value) else
                           f"{value:.0f}" if self.aggregates.get(m) == "sum" else
                           f"{value:.{digits}f}")
            cells.append(row)
        return cells

    def __str__(self) -> str:
        """The means, runs × measures, as ``eval --table`` prints them on a terminal (what
        ``print(results)`` shows)."""
        return aligned(self._mean_cells(4))

    def to_markdown(self, digits: int = 4) -> str:
        """The means, runs × measures, as a Markdown table (``digits`` decimals)."""
        cells = self._mean_cells(digits)
        lines = ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        lines.insert(1, "|:--|" + "--:|" * (len(cells[0]) - 1))
        return "\n".join(lines) + "\n"

    def _repr_html_(self) -> str:
        """The means, runs × measures, as an HTML table (a notebook shows it)."""
        from html import escape

        cells = self._mean_cells(4)
        head = "".join(f"<th>{escape(c)}</th>" for c in cells[0])
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                       for row in cells[1:])
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def run_name(self, run: str) -> str:
        """The run named ``run`` or read from the file ``run``; a KeyError naming the runs
        (and their files) when it is none of them."""
        runs = self.runs()
        if run in runs:
            return run
        from pathlib import Path

        for name, file in self.files.items():
            if Path(run) == Path(file):
                return name
        files = f" (files {', '.join(self.files.values())})" if self.files else ""
        raise KeyError(f"no run {run!r}: the runs are {', '.join(runs)}{files}")

    def extend(self, rows: Sequence[Row]) -> None:
        self.rows.extend(rows)


def _canonical(measure: str) -> str:
    from inexeval.measures.registry import canonical_name

    return canonical_name(measure)


def aligned(rows: list[list[str]], left: int = 1) -> str:
    """Rows of cells as aligned plain text: the first ``left`` columns left-aligned, the others
    right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i < left else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    return "\n".join(lines) + "\n"


def together(collected: Sequence[tuple[str, Results]]) -> Results:
    """The results of every run in one table, runs sharing a run-id named ``run-id (file)``
    (:func:`inexeval.model.run.distinct_names`)."""
    names = [results.runs()[0] if results.runs() else "" for _, results in collected]
    if len(collected) > 1:  # (one run: the model not imported, start-up time)
        from inexeval.model.run import distinct_names

        names = distinct_names(names, [path for path, _ in collected])
    merged = Results()
    for (path, results), name in zip(collected, names):
        results = named(results, name)
        merged.rows.extend(results.rows)
        merged.overall.extend(results.overall)
        merged.aggregates.update(results.aggregates)
        merged.topics_evaluated.update(results.topics_evaluated)
        if path:
            merged.files[name] = str(path)
    return merged


def named(results: Results, name: str) -> Results:
    """The results of one run under ``name``."""
    if results.runs() == [name]:
        return results
    return replace(
        results,
        rows=[row._replace(run=name) for row in results.rows],
        overall=[row._replace(run=name) for row in results.overall],
        topics_evaluated={name: next(iter(results.topics_evaluated.values()), [])},
    )
