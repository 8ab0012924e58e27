"""Every ``console`` block of README.md and of docs/**/*.md runs as written.

A page's blocks run in order in one bash session, in a fresh folder (``examples/`` of the
repository linked into it), with ``inexeval`` and ``python`` this checkout's and ``../shared`` the
team's shared folder. Each ``$ `` line is a command; the lines under it are what it prints
(stderr and stdout as a terminal shows them, interleaved in program order): they must be what
the command prints, line for line and column for column, where ``...`` stands for any number of
lines left out. A command that fails fails the page.

A block that cannot run here says so on the line before it:

* ``<!-- console: skip (REASON) -->``: never run, for the reason given (a server that runs until
  stopped, a cluster);
* ``<!-- console: run by tests/PATH.py -->``: run by that test, which reads this page (it checks
  more than the output: files written, the official code's numbers).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.helpers import SHARED

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"(?:^<!-- console: (?P<marker>[^\n]*?) -->\n)?^```console\n(?P<body>.*?)^```",
                   flags=re.MULTILINE | re.DOTALL)


@dataclass
class Session:
    command: str
    shown: list[str] = field(default_factory=list)


@dataclass
class Block:
    page: Path
    line: int
    marker: str | None
    sessions: list[Session]


def blocks(page: Path) -> list[Block]:
    """The page's ``console`` blocks, each with its marker and its commands."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in BLOCK.finditer(text):
        sessions: list[Session] = []
        for line in match["body"].splitlines():
            if line.startswith("$ "):
                sessions.append(Session(line[2:]))
            else:
                assert sessions, f"{page}: a console block starts with output, not a $ command"
                sessions[-1].shown.append(line)
        found.append(Block(page, text.count("\n", 0, match.start()) + 1, match["marker"],
                           sessions))
    return found


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_every_page_is_collected() -> None:
    """The pages with console blocks: the README and the guides at least (a collector that
    finds nothing would pass)."""
    with_blocks = {_name(p) for p in PAGES if blocks(p)}
    assert {"README.md", "docs/getting-started.md", "docs/guides/rag.md"} <= with_blocks


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_markers_say_why(page: Path) -> None:
    """A block left out says why; one run elsewhere names a test that reads this page."""
    for block in blocks(page):
        if block.marker is None:
            continue
        skip = re.fullmatch(r"skip \((.{10,})\)", block.marker)
        elsewhere = re.fullmatch(r"run by (tests/\S+\.py)", block.marker)
        assert skip or elsewhere, f"{_name(page)}:{block.line}: marker {block.marker!r}"
        if elsewhere:
            test = ROOT / elsewhere[1]
            assert test.is_file(), f"{_name(page)}:{block.line}: no {elsewhere[1]}"
            assert _name(page) in test.read_text(encoding="utf-8"), \
                f"{elsewhere[1]} does not read {_name(page)}"


def match(shown: list[str], printed: list[str]) -> bool:
    """``printed`` is ``shown``, line for line (columns split on white space), where a ``...``
    line of ``shown`` stands for any number of lines."""
    want = [None if line.strip() == "..." else line.split() for line in shown]
    have = [line.split() for line in printed]
    # positions of ``want`` reachable after each line of ``have``
    reach = {0}
    for i in range(len(want)):
        if want[i] is None and i in reach:
            reach.add(i + 1)
    for line in have:
        step = set()
        for i in reach:
            if i < len(want) and want[i] is None:
                step.add(i)
            elif i < len(want) and want[i] == line:
                step.add(i + 1)
        for i in sorted(step):
            if i < len(want) and want[i] is None:
                step.add(i + 1)
        reach = step
        if not reach:
            return False
    return len(want) in reach


@pytest.mark.parametrize(("shown", "printed", "expected"), [
    (["a  1", "b 2"], ["a 1", "b   2"], True),
    (["a", "b"], ["a", "x", "b"], False),
    (["a", "...", "b"], ["a", "x", "y", "b"], True),
    (["a", "..."], ["a"], True),
    (["...", "b"], ["a"], False),
    (["a"], ["a", "b"], False),
    ([], [], True),
])
def test_match(shown: list[str], printed: list[str], expected: bool) -> None:
    assert match(shown, printed) is expected


@pytest.mark.parametrize("page", [p for p in PAGES if any(b.marker is None for b in blocks(p))],
                         ids=_name)
def test_console_blocks_print_what_the_page_shows(page: Path, tmp_path: Path) -> None:
    runnable = [b for b in blocks(page) if b.marker is None]
    sessions = [s for b in runnable for s in b.sessions]
    if any("../shared" in s.command for s in sessions) and not (SHARED / "data").is_dir():
        pytest.skip(f"needs the real INEX files of ../shared/data ({_name(page)})")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "inexeval").write_text(f'#!/bin/sh\nexec {sys.executable} -m inexeval.cli "$@"\n')
    (bin_dir / "inexeval").chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples")
    out = tmp_path / "out"
    out.mkdir()
    script = "".join(
        f"{{\n{s.command.replace('../shared', str(SHARED))}\n}} >{out}/{i} 2>&1\n"
        f"rc=$?; if [ $rc != 0 ]; then echo \"command {i} exited $rc\"; exit 1; fi\n"
        for i, s in enumerate(sessions))
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}
    done = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    failed = re.search(r"command (\d+) exited", done.stdout)
    if failed:
        i = int(failed[1])
        pytest.fail(f"{_name(page)}: `{sessions[i].command}` failed:\n"
                    + (out / str(i)).read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    for i, session in enumerate(sessions):
        printed = (out / str(i)).read_text(encoding="utf-8").splitlines()
        assert match(session.shown, printed), (
            f"{_name(page)}: `{session.command}` printed\n" + "\n".join(printed))
