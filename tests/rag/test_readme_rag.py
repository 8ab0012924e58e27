"""The section "Evaluating chunkers and retrievers for RAG" (docs/guides/rag.md; it was the
README's) runs as written: its
``console`` blocks run in one shell, in a fresh folder, with ``inexeval`` and ``python`` this
checkout's, and each command prints exactly the lines shown (column for column)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TITLE = "## Evaluating chunkers and retrievers for RAG\n"


def _sessions() -> list[tuple[str, list[str]]]:
    readme = (ROOT / "docs/guides/rag.md").read_text(encoding="utf-8")
    start = readme.index(TITLE)
    section = readme[start:readme.index("\n## ", start + 1)]
    sessions: list[tuple[str, list[str]]] = []
    for marker, block in re.findall(r"(<!-- console: skip [^\n]*-->\n)?```console\n(.*?)```",
                                    section, flags=re.DOTALL):
        if marker:  # never run (a model it needs)
            continue
        for line in block.splitlines():
            if line.startswith("$ "):
                sessions.append((line[2:], []))
            else:
                sessions[-1][1].append(line)
    return sessions


def test_the_rag_section_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("bm25s")
    sessions = _sessions()
    assert len(sessions) >= 4
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "inexeval").write_text(f'#!/bin/sh\nexec {sys.executable} -m inexeval.cli "$@"\n')
    (bin_dir / "inexeval").chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    work = tmp_path / "work"
    work.mkdir()
    script = "set -e\n" + "".join(f"echo '@@@ {i}'\n{command}\n"
                                  for i, (command, _) in enumerate(sessions))
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    printed = re.split(r"^@@@ \d+\n", done.stdout, flags=re.MULTILINE)[1:]
    assert len(printed) == len(sessions)
    for (command, shown), out in zip(sessions, printed):
        assert [line.split() for line in out.splitlines()] == [line.split() for line in shown], \
            command
    assert (work / "chunks" / "fixed-400-0.tsv").is_file()
