"""trec_eval's z-score file (``-Z``, ``get_zscores.c``): lines ``topic measure mean sd``, the
measure as trec_eval prints it (``map``, ``P_10``, ``iprec_at_recall_0.00``), from a reference
set of runs (trec_eval's ``test/make_zscore_file.py`` writes one).

Read as trec_eval reads it, but strictly: a line with another number of fields, a mean or sd
that is not a finite number, or a topic and measure given twice is an error naming the line
(trec_eval reads numbers with ``atof``, so ``abc`` is 0); blank lines are skipped.
"""

from __future__ import annotations

import math
from pathlib import Path

from inexeval.errors import FormatError, shown
from inexeval.formats.source import fields_of

ZScores = dict[str, dict[str, tuple[float, float]]]
"""``{topic: {measure: (mean, sd)}}``."""


def read_zscores(path: str | Path) -> ZScores:
    """The means and standard deviations of a z-score file, by topic and measure."""
    out: ZScores = {}
    for name, number, fields in fields_of(path, 4, "topic measure mean sd", comments=False):
        topic, measure, mean, sd = fields
        pair = (_number(mean, "mean", name, number), _number(sd, "sd", name, number))
        known = out.setdefault(topic, {})
        if measure in known:
            raise FormatError(f"topic {shown(topic)} measure {shown(measure)} given twice",
                              name, number)
        known[measure] = pair
    if not out:
        raise FormatError("the z-score file has no line", path)
    return out


def _number(text: str, what: str, path: str | Path, number: int) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise FormatError(f"the {what} {shown(text)} is not a finite number", path, number)
    return value
