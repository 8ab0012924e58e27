"""Pehcevski's five-point relevance scale from INEX 2005 specificity, and its statistics.

Seed 001 §4.1 maps the specificity ``s = rsize / size`` of each judged element to a grade, with
the literal decimal bounds 0.33 and 0.66 (spec §2.2; not 1/3 and 2/3)::

    NR  s = 0 (nothing highlighted)
    NA  s = 1.00 and the parent element also has s = 1.00 (the root is never NA)
    EA  0.66 < s <= 1.00 (and not NA)
    PA  0.33 <= s <= 0.66
    BA  0.00 < s < 0.33

Comparisons are made on the integers ``100 * rsize`` against ``33 * size`` and ``66 * size``,
so they are exact. :func:`grade_statistics` gives, per topic and grade, the columns of seed 001
Table 4 (number of elements, mean size, mean proportion of relevant text) and Table 5 (share of
each exhaustivity value, E2, E1 and E? = too small); :func:`summarise` the Mean, Minimum,
Maximum, Median and StDev rows over topics.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from inexeval.collection.paths import parent
from inexeval.errors import InexevalError
from inexeval.model.assessments import TopicAssessments

GRADES = ("EA", "PA", "BA", "NA", "NR")
EXHAUSTIVITY = (("E2", 2), ("E1", 1), ("E?", -1))
STATISTICS = ("Mean", "Minimum", "Maximum", "Median", "StDev")
COLUMNS = ("Total", "av_size", "av_prel", "E2", "E1", "E?")


def _sizes(ta: TopicAssessments) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    if ta.scale != "inex2005" or "size" not in ta.dims:
        raise InexevalError(
            f"topic {ta.topic}: the five-point scale needs INEX 2005-2008 assessments with size "
            f"and rsize, not {ta.scale}", ta.source,
        )
    size = np.nan_to_num(ta.dims["size"])
    rsize = np.nan_to_num(ta.dims["rsize"]) if "rsize" in ta.dims else np.zeros(len(ta))
    return size, rsize


def five_point_grades(ta: TopicAssessments) -> npt.NDArray[np.str_]:
    """The grade (EA, PA, BA, NA or NR) of every judged element of ``ta`` (seed 001 §4.1)."""
    size, rsize = _sizes(ta)
    hundred = 100 * rsize
    full = (rsize > 0) & (rsize == size)
    up = [parent(p) for p in ta.paths.tolist()]
    positions = ta.lookup(ta.files.tolist(), [u if u is not None else "\0root" for u in up])
    parent_full = (positions >= 0) & full[np.maximum(positions, 0)]
    grades = np.full(len(ta), "NR", dtype="<U2")
    grades[(rsize > 0) & (hundred < 33 * size)] = "BA"
    grades[(hundred >= 33 * size) & (hundred <= 66 * size) & (rsize > 0)] = "PA"
    grades[(hundred > 66 * size) & (rsize > 0)] = "EA"
    grades[full & parent_full] = "NA"
    return grades


@dataclass(frozen=True)
class GradeStatistics:
    """One grade of one topic: its number of elements, their mean size in characters and mean
    proportion of relevant text (None without elements), and the share of each exhaustivity
    value among them (keys E2, E1, E?)."""

    count: int
    mean_size: float | None
    mean_proportion: float | None
    exhaustivity: Mapping[str, float | None]

    def column(self, name: str) -> float | None:
        """The value under a column of seed 001 Tables 4 and 5 (see :data:`COLUMNS`)."""
        if name == "Total":
            return float(self.count)
        if name == "av_size":
            return self.mean_size
        if name == "av_prel":
            return self.mean_proportion
        return self.exhaustivity[name]


def grade_statistics(ta: TopicAssessments) -> dict[str, GradeStatistics]:
    """Per grade, the statistics of one topic's judged elements (seed 001 Tables 4 and 5)."""
    size, rsize = _sizes(ta)
    grades = five_point_grades(ta)
    exhaustivity = np.nan_to_num(ta.dims.get("exhaustivity", np.zeros(len(ta))), nan=0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        proportion = np.where(size > 0, rsize / size, 0.0)
    out: dict[str, GradeStatistics] = {}
    for grade in GRADES:
        mine = grades == grade
        n = int(mine.sum())
        out[grade] = GradeStatistics(
            count=n,
            mean_size=float(size[mine].mean()) if n else None,
            mean_proportion=float(proportion[mine].mean()) if n else None,
            exhaustivity={label: float((exhaustivity[mine] == value).mean()) if n else None
                          for label, value in EXHAUSTIVITY},
        )
    return out


def summarise(
    per_topic: Mapping[str, Mapping[str, GradeStatistics]],
) -> dict[str, dict[str, dict[str, float | None]]]:
    """``summary[grade][statistic][column]`` over topics, the rows of seed 001 Table 4.

    Totals are taken over every topic (a topic without elements of a grade counts 0); means of
    size, proportion and exhaustivity shares over the topics that have elements of the grade.
    StDev is the sample standard deviation (n - 1) [D]; None where fewer values exist.
    """
    summary: dict[str, dict[str, dict[str, float | None]]] = {}
    for grade in GRADES:
        rows: dict[str, dict[str, float | None]] = {s: {} for s in STATISTICS}
        for column in COLUMNS:
            found = [stats[grade].column(column) for stats in per_topic.values()]
            values = np.array([v for v in found if v is not None], dtype=np.float64)
            n = len(values)
            rows["Mean"][column] = float(values.mean()) if n else None
            rows["Minimum"][column] = float(values.min()) if n else None
            rows["Maximum"][column] = float(values.max()) if n else None
            rows["Median"][column] = float(np.median(values)) if n else None
            rows["StDev"][column] = float(values.std(ddof=1)) if n > 1 else None
        summary[grade] = rows
    return summary
