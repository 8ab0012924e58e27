"""The suite's own rules (tests/conftest.py): under ``CI=true`` a skip for a missing module,
server or real file fails the run; the PostgreSQL probe asks the server ``$INEXEVAL_POSTGRES``
names; no file of the project names a path of a particular machine, and no test imports
``benchmarks/``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _pytest(folder: Path, test: str, **environment: str) -> subprocess.CompletedProcess[str]:
    """``pytest`` on one test file beside a copy of the suite's conftest.py."""
    shutil.copy(ROOT / "tests" / "conftest.py", folder / "conftest.py")
    (folder / "test_one.py").write_text(test)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "INEXEVAL_POSTGRES")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           str(folder)], capture_output=True, text=True, timeout=120,
                          check=False, env={**env, **environment}, cwd=folder)


@pytest.mark.parametrize("test", [
    "import pytest\ndef test_a():\n    pytest.importorskip('no_module_named_like_this')\n",
    ("import pytest\n@pytest.mark.skipif(True, reason='needs the real INEX files')\n"
     "def test_a():\n    pass\n"),
])
def test_under_ci_a_skip_for_something_missing_fails_the_run(tmp_path: Path, test: str) -> None:
    assert _pytest(tmp_path, test).returncode == 0
    done = _pytest(tmp_path, test, CI="true")
    assert done.returncode == 1 and "failing the run" in done.stdout


def test_a_skip_for_another_reason_passes_under_ci(tmp_path: Path) -> None:
    test = "import pytest\n@pytest.mark.skipif(True, reason='Windows only')\ndef test_a():\n  pass\n"
    assert _pytest(tmp_path, test, CI="true").returncode == 0


def test_the_postgres_probe_asks_the_server_of_inexeval_postgres(tmp_path: Path) -> None:
    test = "def test_a(postgres_url):\n    pass\n"
    done = _pytest(tmp_path, test, INEXEVAL_POSTGRES="postgresql://someone@127.0.0.1:9/elsewhere")
    assert done.returncode == 0 and "needs PostgreSQL on 127.0.0.1:9" in done.stdout


def _project_files() -> list[Path]:
    return [path for folder in ("src", "tests", "benchmarks", "scripts", ".ci", "docs")
            for path in sorted((ROOT / folder).rglob("*"))
            if path.is_file() and path.suffix in (".py", "", ".toml", ".md", ".sh")
            and "__pycache__" not in path.parts] + [ROOT / "README.md", ROOT / "pyproject.toml",
                                                ROOT / "mkdocs.yml"]


def test_no_file_names_a_path_of_a_particular_machine() -> None:
    machine = re.compile(r"(?<![\w.])/(work|home|root|Users)/\w")
    found = [f"{path.relative_to(ROOT)}:{number}" for path in _project_files()
             for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
             if machine.search(line)]
    assert found == []


def test_no_test_imports_a_benchmark() -> None:
    found = [str(path.relative_to(ROOT)) for path in (ROOT / "tests").rglob("*.py")
             if re.search(r"^\s*(from|import) benchmarks\b", path.read_text(), re.MULTILINE)]
    assert found == []
