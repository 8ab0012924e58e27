"""The README's walk-through end to end: every ``console`` block of "A first hour" is run (as
``python -m inexeval.cli``, with ``../shared`` the team's shared folder) and the lines it shows
must appear, column for column, in that order in what the command prints (``...`` stands for
lines left out); the Python example runs; the API reference is the docstrings' text."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import SHARED, needs_shared

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end >= 0 else len(README)]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def _sessions(title: str = "A first hour") -> list[tuple[str, list[str]]]:
    sessions: list[tuple[str, list[str]]] = []
    for block in _blocks(_section(title), "console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                sessions.append((line[2:], []))
            else:
                sessions[-1][1].append(line)
    return sessions


def test_quick_start_keeps_its_two_commands() -> None:
    assert "pip install . && inexeval demo\npip install '.[test]' && python -m pytest\n" in README


@needs_shared
@pytest.mark.parametrize("command, shown", _sessions(), ids=lambda v: v if isinstance(v, str) else "")
def test_walk_through_prints_what_the_readme_shows(command: str, shown: list[str]) -> None:
    _check_session(command, shown, ROOT)


def test_reproducing_a_study_prints_what_the_readme_shows(tmp_path: Path) -> None:
    """"Reproducing a study" as a new user types it, in a fresh folder, on the data the package
    ships (no ../shared): every command in turn, each printing what the section shows."""
    sessions = _sessions("Reproducing a study")
    assert [c.split()[:3] for c, _ in sessions][:2] == [["inexeval", "demo", "--data"],
                                                       ["inexeval", "eval", "-q"]]
    for command, shown in sessions:
        _check_session(command, shown, tmp_path)
    assert (tmp_path / "scores.tsv").exists() and (tmp_path / "ipcs" / "LICENSE").exists()


def _check_session(command: str, shown: list[str], cwd: Path) -> None:
    """Run one ``$ inexeval ...`` line in ``cwd``: it succeeds and prints the lines shown, in
    order (``...``: lines left out)."""
    words = shlex.split(command.replace("../shared", str(SHARED)))
    assert words[0] == "inexeval"
    done = subprocess.run([sys.executable, "-m", "inexeval.cli", *words[1:]], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    printed = [line.split() for line in (done.stderr + done.stdout).splitlines()]
    position = 0
    for line in shown:
        if line.strip() == "...":
            continue
        expected = line.split()
        assert expected in printed[position:], f"{command}: {line!r} not printed (in order)"
        position = printed.index(expected, position) + 1
    if shown and shown[-1].strip() != "...":
        assert position == len(printed), f"{command}: prints more than the README shows"


def test_python_example_runs() -> None:
    example = _blocks(_section("Python API"), "python")[0]
    in_memory = example.split("\n\n")[0] + "\n" + example.split("\n\n")[1]
    namespace: dict[str, object] = {}
    exec(compile(in_memory, "README.md", "exec"), namespace)  # noqa: S102
    import inexeval

    values = inexeval.calc_aggregate(["AP", "P@1"], namespace["qrels"], namespace["run"])
    assert [round(v, 3) for v in values.values() if v is not None] == [0.833, 1.0]
    assert "{AP: 0.833..." in example


def test_api_reference_is_the_docstrings() -> None:
    spec = importlib.util.spec_from_file_location("api_reference",
                                                  ROOT / "scripts" / "api_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    start = README.index("<!-- api-reference:start -->\n") + len("<!-- api-reference:start -->\n")
    assert README[start:README.index("<!-- api-reference:end -->")] == module.reference()


def test_the_api_section_runs_as_a_notebook_would() -> None:
    """Every Python block of the README's API section run as written, in one namespace, each
    expression shown as a notebook shows it: an inexeval object's repr under 500 characters
    (what it holds, not its rows)."""
    import ast

    namespace: dict[str, object] = {}
    for block in _blocks(_section("Python API"), "python"):
        for statement in ast.parse(block).body:
            if isinstance(statement, ast.Expr):
                value = eval(compile(ast.Expression(statement.value), "README.md", "eval"),
                             namespace)
                if type(value).__module__.startswith("inexeval"):  # not plain dicts
                    assert len(repr(value)) < 500, ast.unparse(statement)
            else:
                exec(compile(ast.Module([statement], []), "README.md", "exec"), namespace)  # noqa: S102
