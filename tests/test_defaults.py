"""A newcomer's first commands: default measure sets by assessment kind (announced once on
stderr), the headline table of a task, suggestions for mistyped measure names, plain words in
the help, the demo's legend and pasteable command, and the index help."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from inexeval import demo
from inexeval.cli import main
from inexeval.errors import MeasureError
from inexeval.measures.registry import parse_measure, parse_measures
from tests.helpers import DATA, needs_shared

IPCS = DATA / "ipcs"


def _names(out: str) -> list[str]:
    return [line.split("\t")[0] for line in out.splitlines()]


@needs_shared
def test_fol_qrels_default_to_the_focused_task_headline(capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = str(IPCS / "INEX_Qrels.txt"), str(IPCS / "bert_inex_converted_1.run")
    assert main(["eval", qrels, run]) == 0
    default = capsys.readouterr()
    assert _names(default.out) == ["num_q", "iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]", "MAiP"]
    assert default.err.splitlines() == [
        ("inexeval: measures for FOL qrels: the focused task's iP[0.00], iP[0.01], iP[0.05], "
         "iP[0.10], MAiP (choose with -m or --task)"),
        ("inexeval: 60 topics; means each run over the assessed topics it answers (trec_eval's "
         "default)")]
    assert main(["eval", qrels, run, "--task", "focused"]) == 0
    official = dict(line.split("\t")[0::2] for line in capsys.readouterr().out.splitlines())
    assert all(official[name] == value for name, value in
               (line.split("\t")[0::2] for line in default.out.splitlines()))


def test_element_assessments_default_to_inex_eval_and_precision(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[0])]) == 0
    captured = capsys.readouterr()
    assert _names(captured.out) == ["num_q", "inex_eval", "inex_eval(quant=generalised)", "P@5",
                                    "P@10", "P@25"]
    assert captured.err.count("inexeval: measures for INEX 2003/2004 assessments") == 1
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[0]), "--collection",
                 str(demo.COLLECTION)]) == 0
    assert _names(capsys.readouterr().out)[-1] == "inex_eval_ng"


def test_named_measures_are_not_announced(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[0]), "-m", "P@5"]) == 0
    # only the averaging rule is said
    assert capsys.readouterr().err == ("inexeval: 3 topics; means each run over the assessed "
                                       "topics it answers (trec_eval's default)\n")


@needs_shared
def test_task_table_shows_the_headline_in_100_columns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(IPCS / name) for name in ("bert_inex_converted_1.run", "bert1_incontext.run",
                                          "bert1_bestincontext.run")]
    copies = []
    for i, source in enumerate(runs[:2]):
        copies.append(tmp_path / f"same-run-id-{i}.run")
        copies[-1].write_bytes(Path(source).read_bytes())
    assert main(["eval", str(IPCS / "INEX_Qrels.txt"), *runs, *map(str, copies), "--task",
                 "focused", "--table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.rsplit(None, 5)[0] for line in lines[1:]] == [
        "TREC2INEX (bert_inex_converted_1.run)", "bert1ctx (bert1_incontext.run)", "bert1bic",
        "TREC2INEX (same-run-id-0.run)", "bert1ctx (same-run-id-1.run)"]
    assert lines[0].split() == ["run", "iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]", "MAiP"]
    assert len(lines) == 6 and max(map(len, lines)) <= 100
    assert main(["eval", str(IPCS / "INEX_Qrels.txt"), runs[0], "--task", "focused", "--table",
                 "-m", "MAiP", "-m", "char_prec"]) == 0
    assert sorted(capsys.readouterr().out.splitlines()[0].split()) == ["MAiP", "char_prec", "run"]


@pytest.mark.parametrize("typed, suggested", [
    ("MAP", "'AP'"), ("NDCG@10", "'nDCG@10'"), ("xcg@5", "'xCG@5'"), ("maip", "'MAiP'"),
    ("NDCG_CUT_10", "'nDCG@10'"), ("gr@10", "'GR@10' or 'gR@10'"),
])
def test_suggestions_ignore_case_and_know_aliases(typed: str, suggested: str) -> None:
    with pytest.raises(MeasureError, match=f"did you mean {suggested}"):
        parse_measures([typed])


@pytest.mark.parametrize("trec_eval, ours", [
    ("map", "AP"), ("P_10", "P@10"), ("recall_100", "R@100"), ("ndcg_cut_10", "nDCG@10"),
    ("recip_rank", "RR"), ("Rprec", "R-Prec"), ("iP[0.01]", "iP[0.01]"), ("ndcg@10", "nDCG@10"),
])
def test_trec_eval_names_are_accepted(trec_eval: str, ours: str) -> None:
    assert str(parse_measure(trec_eval)) == ours


def test_help_names_papers_not_our_documents() -> None:
    for command in ("eval", "index", "convert", "grades", "simulate", "demo", "measures"):
        done = subprocess.run([sys.executable, "-m", "inexeval.cli", command, "--help"],
                              capture_output=True, text=True, timeout=120, check=True)
        assert "seed 00" not in done.stdout and "§" not in done.stdout, command
    listing = subprocess.run([sys.executable, "-m", "inexeval.cli", "measures"],
                             capture_output=True, text=True, timeout=120, check=True).stdout
    assert "seed 00" not in listing and "spec §" not in listing
    assert "Hiemstra and Mihajlović 2005" in listing and "Piwowarski and Dupret 2006" in listing


def test_index_help_says_what_is_written() -> None:
    done = subprocess.run([sys.executable, "-m", "inexeval.cli", "index", "--help"],
                          capture_output=True, text=True, timeout=120, check=True)
    assert "no suffix is" in " ".join(done.stdout.split())


def test_index_writes_the_name_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(demo.COLLECTION), "-o", str(tmp_path / "coll"), "--quiet"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["coll"]


def test_demo_explains_columns_and_its_try_line_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "inexeval.cli", "demo"], capture_output=True,
                          text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    legend = lines[lines.index("Columns:") + 1:lines.index("")]
    header = next(line for line in lines if line.startswith("cut-off\t")).split("\t")
    assert [entry.split(":")[0].strip() for entry in legend][:len(header)] == header
    try_line = lines[-1]
    assert try_line.startswith("Try: inexeval eval ")
    words = shlex.split(try_line.removeprefix("Try: "))
    pasted = subprocess.run([sys.executable, "-m", "inexeval.cli", *words[1:]],
                            capture_output=True, text=True, timeout=120, check=False)
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout.splitlines()[-1].startswith("P(quant=generalised)@10\tall\t")
