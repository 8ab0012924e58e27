"""The official INEX evaluator's output layout (inex_eval 3.1, spec §15.13), for users who diff
inexeval's output against the Java tool's.

One ``<eval run-id="RUNID" file="F">`` block per run: per-topic lines (with ``-q``), then the
``all`` lines; each line is the label (followed by two tabs when shorter than 8 characters, else
one), the topic, a tab and the value. Counts are integers; other values are printed as Java
prints a double: the shortest decimal that reads back to the same double, with at least one digit
after the point, and in scientific form (``5.673758865248227E-4``) below 10^-3 or from 10^7.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal

from inexeval.model import Run
from inexeval.report.text import COUNT_MEASURES
from inexeval.results import Results, Row


def java_double(value: float) -> str:
    """``Double.toString`` of a double (shortest round-trip digits)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        text = format(value, "f") if "e" in repr(value) else repr(value)
        return text if "." in text else text + ".0"
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    shown = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) - 1 + int(exponent)
    return f"{'-' if sign else ''}{shown[0]}.{shown[1:] or '0'}E{power}"


def _label(measure: str) -> str:
    return measure + ("\t\t" if len(measure) < 8 else "\t")


def _value(row: Row) -> str:
    if row.value is None:
        return "NaN"
    if row.measure in COUNT_MEASURES and float(row.value).is_integer():
        return str(int(row.value))
    return java_double(float(row.value))


def run_id(run: Run, topics: Sequence[str]) -> str:
    """The run id the official tool prints: that of the last line of a topic it evaluated."""
    ids: Mapping[str, str] = run.meta.get("run_ids", {})
    evaluated = [t for t in run if t in set(topics) and t in ids]
    return ids[evaluated[-1]] if evaluated else run.name


def render_official(results: Results, runs: Sequence[Run], files: Sequence[str],
                    topics: Sequence[str], per_topic: bool = False) -> str:
    """The official layout of task results, one block per run (in the order of ``runs``)."""
    means = results.means()
    blocks = []
    for run, file in zip(runs, files):
        lines = [f'<eval run-id="{run_id(run, topics)}" file="{file}">']
        rows = [r for r in results.rows if r.run == run.name] if per_topic else []
        rows += [r for r in means if r.run == run.name]
        lines += [f"{_label(r.measure)}{r.topic}\t{_value(r)}" for r in rows]
        lines.append("</eval>")
        blocks.append("\n".join(lines) + "\n")
    return "".join(blocks)
