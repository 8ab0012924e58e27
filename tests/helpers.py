"""Shared test helpers: small assessments and runs built directly in the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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
    """The shared folder beside the project (real INEX data, never edited): ``$INEXEVAL_SHARED``,
    else ``../shared`` beside the repository (as on CI). It may not exist (a new user's clone):
    the tests that need it are marked :data:`needs_shared`."""
    import os

    given = os.environ.get("INEXEVAL_SHARED")
    return Path(given) if given else Path(__file__).resolve().parents[2] / "shared"


SHARED = _shared()
DATA = SHARED / "data"
needs_shared = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"needs the real INEX files in {DATA} (../shared/data beside the "
    "repository, or $INEXEVAL_SHARED/data)")
"""Marks a test (or, as ``pytestmark``, a module) that reads the real INEX files: skipped with
a visible reason where they are absent, which fails the run under ``CI=true``."""


PEAK_OF_MAIN = """
import contextlib, os, resource, sys
from inexeval.cli import main
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
    code = main(sys.argv[1:])
try:  # this program's own peak (kB): ru_maxrss keeps that of the process it was forked from
    peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])
except (OSError, IndexError, ValueError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(code, peak, file=sys.stderr)
"""
"""``python -c PEAK_OF_MAIN ARGS``: runs ``inexeval ARGS`` (output discarded) and prints its exit
code and its own peak resident memory in KiB on stderr's last line. The peak is VmHWM, not
``ru_maxrss``, which on Linux keeps across exec the peak of the process that forked the program
(a test process, hundreds of MiB late in the suite), so that a measure would not move."""
