"""Every LaTeX output (eval, compare, compare --all-pairs, agree, agree --judgements) is text
LaTeX typesets as written: run names and file names with ``_ % & # $ { } ~ ^ \\ < > |`` are
escaped, and ``p < 0.05`` is a formula (in text mode ``<`` prints as an inverted exclamation
mark); each is a booktabs table with a caption, led by a comment naming the package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.helpers import DATA, needs_shared

from inexeval.cli import main
from inexeval.report.text import BOOKTABS, latex_escape

QRELS = DATA / "ipcs" / "INEX_Qrels.txt"
BERT = DATA / "ipcs" / "bert_inex_converted_1.run"
NAMES = ["a_b%c&d#e$f", "[g]{h}~i^j\\k", "l<m>n|o"]

_ESCAPES = re.compile(r"\\(?:[_%&#${}]|textless\{\}|textgreater\{\}|textbar\{\}|"
                      r"textasciitilde\{\}|textasciicircum\{\}|textbackslash\{\}|"
                      r"textbf\{|caption\{|centering|toprule|midrule|bottomrule|hline|"
                      r"(?:begin|end)\{(?:table|tabular)\}(?:\{[lr]+\})?)|\\\\$")


def _outside_math(line: str) -> str:
    """The line without its formulas ``$...$``, its escapes and LaTeX's own commands, and with
    the column separators (an unescaped ``&``) as blanks."""
    text = re.sub(r"(?<!\\)\$[^$]*(?<!\\)\$", " ", line)
    text = re.sub(r"(?<!\\)&", " ", text)
    return _ESCAPES.sub(" ", text)


def _checked(latex: str) -> str:
    tables = latex.split("\n\n")
    for table in tables:
        lines = table.splitlines()
        assert lines[0] == BOOKTABS and lines[1] == r"\begin{table}", table
        assert lines[3].startswith(r"\caption{") and len(lines[3]) > len(r"\caption{}"), table
        assert r"\toprule" in lines and r"\midrule" in lines and r"\bottomrule" in lines
        assert r"\hline" not in table and lines[-1] == r"\end{table}"
    for line in latex.splitlines():
        if line == BOOKTABS:
            continue
        rest = _outside_math(line)
        assert not re.search(r"[_%&#$~^\\<>|]", rest.replace("}", "").replace("{", "")), line
        assert not line.startswith("["), line  # a row after \\ must not start with [
    return latex


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("latex names")
    lines = BERT.read_text().splitlines(keepends=True)
    paths = []
    for i, name in enumerate(NAMES):
        path = folder / f"run_{i}%.run"
        path.write_text("".join(line.replace("TREC2INEX", name) for k, line in
                                enumerate(lines) if k % (i + 2)))
        paths.append(path)
    return paths


def _latex(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return _checked(out)


def test_latex_escape_writes_every_special_character_as_text() -> None:
    assert latex_escape("a_b%c&d#e$f") == r"a\_b\%c\&d\#e\$f"
    assert latex_escape("{~^\\}") == (r"\{\textasciitilde{}\textasciicircum{}"
                                      r"\textbackslash{}\}")
    assert latex_escape("p < 0.05 | q > 1") == r"p \textless{} 0.05 \textbar{} q \textgreater{} 1"
    assert latex_escape("[x]") == "{}[x]"


@needs_shared
def test_compare_caption_has_the_condition_as_a_formula(
        runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    out = _latex(capsys, "compare", QRELS, *runs, "--task", "focused", "-m", "iP[0.01]", "-m",
                 "MAiP", "--format", "latex", "--test", "t", "--test", "sign",
                 "--correction", "holm")
    caption = next(line for line in out.splitlines() if line.startswith(r"\caption"))
    assert "$p < 0.05$" in caption and "p < 0.05$" not in caption.replace("$p < 0.05$", "")
    for name in NAMES:
        assert latex_escape(name) in out


@needs_shared
@pytest.mark.parametrize("command", [["compare", "--all-pairs", "--format", "latex"],
                                     ["eval", "--format", "latex"]])
def test_other_latex_outputs_escape_run_names(
        runs: list[Path], capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    out = _latex(capsys, command[0], QRELS, *runs, "-m", "MAiP", "-m", "iP[0.01]",
                 *command[1:])
    for name in NAMES:
        assert latex_escape(name) in out


@needs_shared
def test_measure_agreement_latex(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    out = _latex(capsys, "agree", QRELS, *runs, "-m", "P@10", "-m", "MAiP", "--format",
                 "latex")
    assert r"tau\_AP" in out and r"measure\_a" in out


@needs_shared
def test_judgement_agreement_latex_escapes_file_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "qrels_100%&#1.txt"
    copy.write_text(QRELS.read_text())
    out = _latex(capsys, "agree", "--judgements", QRELS, copy, "--format", "latex")
    assert latex_escape(str(copy)) in out
