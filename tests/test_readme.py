"""The walk-through end to end: every ``console`` block of "A first hour"
(docs/getting-started.md) is run (as ``python -m inexeval.cli``, in a fresh folder) and the
lines it shows must appear, column for column, in that order in what the command prints
(``...`` stands for lines left out); so are those of "Reproducing a study"
(docs/guides/meta-evaluation.md); the Python examples (README.md, docs/reference/api.md) run;
the API reference (docs/reference/api.md) documents every public name."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import SHARED

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {"A first hour": "docs/getting-started.md",
         "Reproducing a study": "docs/guides/meta-evaluation.md",
         "Python API": "docs/reference/api.md"}
"""Where each section tested here is (it was in the README)."""


def _section(title: str) -> str:
    text = (ROOT / PAGES[title]).read_text(encoding="utf-8")
    start = text.index(f"# {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


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
    assert "pip install . && inexeval demo\npip install '.[test]' && python -m pytest -n 2 --dist loadfile\n" in README


def test_walk_through_prints_what_the_readme_shows(tmp_path: Path) -> None:
    """"A first hour" as a new user types it, in a fresh folder, on the data the package ships
    (no ../shared): every command in turn, each printing what the section shows."""
    sessions = _sessions()
    assert "../shared" not in "".join(command for command, _ in sessions)
    for command, shown in sessions:
        _check_session(command, shown, tmp_path)
    assert (tmp_path / "ipcs" / "LICENSE").exists()


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


@pytest.mark.parametrize("text", [_section("Python API"), README], ids=["api.md", "README.md"])
def test_python_example_runs(text: str) -> None:
    example = _blocks(text, "python")[0]
    in_memory = example.split("\n\n")[0] + "\n" + example.split("\n\n")[1]
    namespace: dict[str, object] = {}
    exec(compile(in_memory, "README.md", "exec"), namespace)  # noqa: S102
    import inexeval

    values = inexeval.calc_aggregate(["AP", "P@1"], namespace["qrels"], namespace["run"])
    assert [round(v, 3) for v in values.values() if v is not None] == [0.833, 1.0]
    assert "{AP: 0.833..." in example
    exec(compile(example, "README.md", "exec"), {})  # noqa: S102


def test_api_reference_documents_every_public_name() -> None:
    """docs/reference/api.md has one mkdocstrings entry (``::: module.NAME``) for each name of
    ``inexeval.__all__``, each the object ``inexeval.NAME`` is, and one for
    ``inexeval.measures``."""
    import importlib

    import inexeval

    page = (ROOT / PAGES["Python API"]).read_text(encoding="utf-8")
    entries = re.findall(r"^::: ([\w.]+)$", page, flags=re.MULTILINE)
    named = {}
    for entry in entries:
        module, _, name = entry.rpartition(".")
        named[name] = getattr(importlib.import_module(module), name)
    assert set(named) == set(inexeval.__all__) | {"measures"}
    for name, obj in named.items():
        assert obj is getattr(inexeval, name), name


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
