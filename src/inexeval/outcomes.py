"""What evaluating one run gives (:class:`RunOutcome`) and the coverage warning, apart from
:mod:`inexeval.experiment` so that ``eval`` on trec_eval's path imports no experiment."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from inexeval.errors import warn

if TYPE_CHECKING:
    from inexeval.results import Results


@dataclass
class RunOutcome:
    """One run evaluated: its results (and the official layout's text), the assessed topics it
    answers, the warnings it raised, or the error (about the run) that stopped it."""

    source: str
    results: Results | None = None
    official: str = ""
    answered: list[str] = field(default_factory=list)
    warnings: list[Warning | str] = field(default_factory=list)
    error: str | None = None


def warn_coverage(assessed: set[str], answered: Iterable[str], source: str | None) -> None:
    """One warning when the runs answer (``answered``) fewer than half the ``assessed`` topics
    (of the assessments read from ``source``)."""
    covered = len(set(answered) & assessed)
    if assessed and covered * 2 < len(assessed):
        warn(f"the runs answer {covered} of the {len(assessed)} assessed topics: means over "
             "every assessed topic (-c) count the others as 0; --topics restricts the "
             "topics evaluated", source)
