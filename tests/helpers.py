"""Shared test helpers: small assessments and runs built directly in the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run


def assessments(scale: str, topics: dict[str, list[tuple[str, str, dict[str, Any]]]]) -> Assessments:
    return Assessments({t: build_topic(t, scale, records) for t, records in topics.items()}, scale)


def element_run(name: str, topics: dict[str, list[tuple[str, str]]], kind: str = "element") -> Run:
    return Run(name, kind, {
        t: make_topic_run(t, [f for f, _ in items], paths=[p for _, p in items],
                          ranks=list(range(1, len(items) + 1)))
        for t, items in topics.items()
    })



def _shared() -> Path:
    """The team's shared folder (real INEX data): ``$INEXEVAL_SHARED``, else ``../shared`` beside
    the repository (as on CI), else /work/shared."""
    import os

    for candidate in (os.environ.get("INEXEVAL_SHARED"),
                      Path(__file__).resolve().parents[2] / "shared", "/work/shared"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return Path("/work/shared")


SHARED = _shared()
DATA = SHARED / "data"
