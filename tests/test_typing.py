"""The public API is type-checked: mypy (strict, configured in pyproject.toml) passes on src."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_strict_passes() -> None:
    pytest.importorskip("mypy", reason="needs mypy, a test extra (pip install '.[test]')")
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
