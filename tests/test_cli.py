"""The command line end to end on the bundled example data, and its handling of bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inexeval import demo
from inexeval.cli import main
from tests.helpers import DATA, needs_shared


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inexeval.cli", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_demo_prints_seed_000_tables() -> None:
    done = run_cli("demo")
    assert done.returncode == 0, done.stderr
    assert "cut-off\tstrict\tliberal\texhaust.\tspecific\toverlap" in done.stdout
    assert done.stdout.count("\n1500\t") == 3
    assert "inex_eval" in done.stdout


def test_eval_trec_output_with_per_topic_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[0]), "-m", "P@10",
                 "-m", "overlap@10", "-q", "--collection", str(demo.COLLECTION)])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    fields = [line.split("\t") for line in lines]
    assert all(len(f) == 3 for f in fields)
    assert ["num_q", "all", "3"] in fields
    assert {f[1] for f in fields} == {"91", "92", "93", "all"}
    per_topic = [float(f[2]) for f in fields if f[0] == "P@10" and f[1] != "all"]
    mean = next(float(f[2]) for f in fields if f[0] == "P@10" and f[1] == "all")
    assert mean == pytest.approx(sum(per_topic) / len(per_topic), abs=1e-4)


def test_several_runs_get_a_run_column_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(demo.ASSESSMENTS_2004), *map(str, demo.RUNS), "-m", "P@5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert {line.split("\t")[0] for line in lines} == {"overlapping", "focused", "articles"}
    assert main(["eval", str(demo.ASSESSMENTS_2004), *map(str, demo.RUNS), "-m", "P@5",
                 "--table"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["run", "P@5"] and len(table) == 4


@pytest.mark.parametrize("fmt", ["csv", "json", "latex"])
def test_other_formats(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[1]), "-m", "P@5",
                 "--format", fmt]) == 0
    assert "P@5" in capsys.readouterr().out


def test_unknown_measures_reported_together_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[0]), "-m", "Pp@10",
                 "-m", "P(qaunt=strict)@5", "-m", "P(quant=strictt)@5"])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "'Pp'" in err and "'qaunt'" in err and "'strictt'" in err


def test_missing_file_exit_2(tmp_path: Path) -> None:
    done = run_cli("eval", str(tmp_path / "nothing.xml"), str(demo.RUNS[0]))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "nothing.xml" in done.stderr
    assert "Traceback" not in done.stderr


def test_malformed_assessments_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text("<assessments topic='1'>\n<file file='a'>\n<path path='/a[1]' "
                   "exhaustiveness='3' specificity='3'>\n</assessments>\n")
    done = run_cli("eval", str(bad), str(demo.RUNS[0]))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "bad.xml" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_inputs_are_not_modified(tmp_path: Path) -> None:
    before = {p: p.read_bytes() for p in [*demo.ASSESSMENTS_2004.iterdir(), *demo.RUNS]}
    assert run_cli("eval", str(demo.ASSESSMENTS_2004), *map(str, demo.RUNS)).returncode == 0
    assert before == {p: p.read_bytes() for p in before}


def test_measures_lists_every_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    for name in ("  P@k ", "  overlap@k ", "  inex_eval[@x] ", "  iP[x] ", "  gP[k] "):
        assert name in out
    assert main(["measures", "P"]) == 0
    assert "    quant (str, default strict): " in capsys.readouterr().out


def test_simulate_random_runs_degrade_eprum(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "random.txt"
    assert main(["simulate", "random", str(demo.ASSESSMENTS_2004), "--collection",
                 str(demo.COLLECTION), "-o", str(out), "--move", "0", "--move", "0.9"]) == 0
    values = []
    for move in ("0", "0.9"):
        capsys.readouterr()
        assert main(["eval", str(demo.ASSESSMENTS_2004), str(tmp_path / f"random-m{move}.txt"),
                     "--collection", str(demo.COLLECTION), "-m", "EPRUM", "--keep-repeats"]) == 0
        values.append(float(capsys.readouterr().out.splitlines()[-1].split("\t")[2]))
    assert values[0] == 1.0 and values[1] < 0.9


def test_convert_then_task_evaluation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, fol = tmp_path / "q.txt", tmp_path / "r.fol"
    assert main(["convert", "assessments", str(demo.ASSESSMENTS_2005), "--collection",
                 str(demo.COLLECTION), "-o", str(qrels)]) == 0
    assert main(["convert", "run", str(demo.RUNS[1]), "--collection", str(demo.COLLECTION),
                 "-o", str(fol)]) == 0
    capsys.readouterr()
    assert main(["eval", str(qrels), str(fol), "--task", "focused", "-m", "iP@0.01",
                 "-m", "MAiP"]) == 0
    names = {line.split("\t")[0] for line in capsys.readouterr().out.splitlines()}
    assert names == {"num_q", "iP[0.01]", "MAiP"}


def test_simulated_grade_runs_on_demo_ea_beats_ba(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "grades", str(demo.ASSESSMENTS_2005), "--collection",
                 str(demo.COLLECTION), "-o", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["eval", str(demo.ASSESSMENTS_2005), str(tmp_path / "EA.txt"),
                 str(tmp_path / "BA.txt"), "--collection", str(demo.COLLECTION),
                 "-m", "HiXEval_F", "--strict"]) == 0
    means = {line.split("\t")[0]: float(line.split("\t")[3])
             for line in capsys.readouterr().out.splitlines() if "\tHiXEval_F\t" in line}
    assert means["EA"] > means["BA"]


@pytest.mark.parametrize("option", [["--num-docs", "0"], ["--limit", "-1"], ["--digits", "-3"],
                                    ["--num-docs", "x"], ["--num-docs", str(10**30)],
                                    ["--limit", str(2**53 + 1)]])
def test_bad_numeric_options_one_line_exit_2(option: list[str]) -> None:
    done = run_cli("eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[0]), *option)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and option[0] in done.stderr


@needs_shared
def test_task_rejects_measures_outside_its_set(capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = DATA / "ipcs" / "INEX_Qrels.txt", DATA / "ipcs" / "bert_inex_converted_1.run"
    assert main(["eval", str(qrels), str(run), "--task", "focused", "-m", "iP[0.5]"]) == 2
    assert "iP[0.50]" in capsys.readouterr().err


def test_outputs_never_write_into_inputs(tmp_path: Path) -> None:
    folder = tmp_path / "assessments"
    folder.mkdir()
    for source in demo.ASSESSMENTS_2004.iterdir():
        (folder / source.name).write_bytes(source.read_bytes())
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    target = folder / "topic-91.xml"
    assert run_cli("simulate", "ideal", str(folder), "-o", str(target)).returncode == 2
    assert run_cli("index", str(demo.COLLECTION), "-o",
                   str(demo.COLLECTION / "x.idx")).returncode == 2
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert not (demo.COLLECTION / "x.idx").exists()


def test_no_assessed_topic_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[0]), "--topics", "999"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "--topics names no assessed topic; assessed topics are 91-93" in captured.err


def test_overlapping_highlights_warn_or_fail_with_strict(tmp_path: Path) -> None:
    text = (demo.ASSESSMENTS_2005 / "topic-91.xml").read_text()
    first = text.index("<passage ")
    line = text[first:text.index("\n", first)]
    start = line.split('start="')[1].split('"')[0]
    inner = line.replace(start, start[:-1] + "5", 1).replace('size="', 'size="0', 1)
    (tmp_path / "topic-91.xml").write_text(text.replace(line, line + "\n    " + inner, 1))
    common = ["eval", str(tmp_path), str(demo.RUNS[1]), "--collection", str(demo.COLLECTION),
              "-m", "HiXEval_F"]
    lenient = run_cli(*common)
    assert lenient.returncode == 0 and "overlaps" in lenient.stderr
    strict = run_cli(*common, "--strict")
    assert strict.returncode == 2 and "overlaps" in strict.stderr
    assert "Traceback" not in strict.stderr


def test_keep_repeats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run.txt"
    run.write_text("91 Q0 co/2000/r7005 1 2.0 r /article[1]/bdy[1]/sec[1]/p[1]\n"
                   "91 Q0 co/2000/r7005 2 1.0 r /article[1]/bdy[1]/sec[1]/p[1]\n")
    common = ["eval", str(demo.ASSESSMENTS_2004), str(run), "-m", "P(quant=liberal)@2"]
    assert main(common) == 0
    dropped = capsys.readouterr()
    assert main([*common, "--keep-repeats"]) == 0
    kept = capsys.readouterr()
    assert "duplicated" in dropped.err and "duplicated" not in kept.err
    value = {out.splitlines()[-1] for out in (dropped.out, kept.out)}
    assert value == {"P(quant=liberal)@2\tall\t0.5000", "P(quant=liberal)@2\tall\t1.0000"}


@needs_shared
def test_task_measure_filter_keeps_per_topic_lines(capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = DATA / "ipcs" / "INEX_Qrels.txt", DATA / "ipcs" / "bert_inex_converted_1.run"
    assert main(["eval", str(qrels), str(run), "--task", "focused", "-m", "MAiP", "-q"]) == 0
    names = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert set(names) == {"AiP", "num_q", "MAiP"} and names.count("AiP") == 60


def test_fol_writer_writes_plain_scores(tmp_path: Path) -> None:
    out = tmp_path / "run.fol"
    assert main(["convert", "run", str(demo.RUNS[0]), "--collection", str(demo.COLLECTION),
                 "-o", str(out)]) == 0
    scores = [line.split()[4] for line in out.read_text().splitlines()]
    assert all(float(score) == float(score) for score in scores)


def test_topics_selection_warns_only_about_unknown_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[1]), "--topics", "92,999",
                 "-m", "P@5"]) == 0
    captured = capsys.readouterr()
    assert "999" in captured.err and "91" not in captured.err
    assert captured.out.splitlines()[0] == "num_q\tall\t1"


def test_measures_command_names_unknown_measure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures", "Pp"]) == 2
    assert "did you mean 'P'" in capsys.readouterr().err
    assert main(["measures", "P@10"]) == 0
    assert capsys.readouterr().out.startswith("P@k: ")


def test_latex_escapes_special_characters() -> None:
    from inexeval.report.text import render_latex
    from inexeval.results import Results, Row

    results = Results(rows=[Row("a_b&c%d#e$f{g}h\\i~j^k", "1", "P@5", 0.5)])
    text = render_latex(results)
    assert r"a\_b\&c\%d\#e\$f\{g\}h\textbackslash{}i\textasciitilde{}j\textasciicircum{}k" in text


def test_run_format_inex_is_an_alias(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[1]), "--run-format", "inex",
                 "-m", "P@5"]) == 0
    assert "P@5\tall" in capsys.readouterr().out


def test_simulate_random_respects_limit(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.txt"
    assert main(["simulate", "random", str(demo.ASSESSMENTS_2004), "--collection",
                 str(demo.COLLECTION), "-o", str(out), "--limit", "2"]) == 0
    per_topic: dict[str, int] = {}
    for line in out.read_text().splitlines():
        per_topic[line.split()[0]] = per_topic.get(line.split()[0], 0) + 1
    assert set(per_topic.values()) == {2}
    # it says what it wrote as every -o does (on stderr: stdout stays for results)
    said = f"inexeval: wrote {out} (6 results of 3 topics, {out.stat().st_size:,} bytes)\n"
    assert capsys.readouterr() == ("", said)


@needs_shared
def test_passage_limit_and_task_option_refused() -> None:
    qrels, run = DATA / "ipcs" / "INEX_Qrels.txt", DATA / "ipcs" / "bert_inex_converted_1.run"
    full = run_cli("eval", str(qrels), str(run), "-m", "char_prec")
    cut = run_cli("eval", str(qrels), str(run), "-m", "char_prec", "--limit", "5")
    assert full.returncode == cut.returncode == 0
    assert full.stdout != cut.stdout and "cut to the first 5" in cut.stderr
    task = run_cli("eval", str(qrels), str(run), "--task", "focused", "--limit", "5")
    assert task.returncode == 2 and task.stdout == ""
    assert task.stderr.count("\n") == 1 and "--limit not used by --task" in task.stderr
    default = run_cli("eval", str(qrels), str(run), "--limit", "5")  # the focused task's measures
    assert default.returncode == 2 and default.stdout == ""
    assert default.stderr.count("\n") == 1 and "not used by the default measures" in default.stderr


def test_compare_t_on_constant_differences_notes_undefined_p_without_scipy_warning() -> None:
    # on the demo's P@25 the run overlapping beats articles by exactly 0.08 on each of the three
    # topics: the t statistic is undefined (scipy warned "Precision loss occurred in moment
    # calculation ..." through our warning line and gave p = 0)
    for fmt in ("table", "csv"):
        done = run_cli("compare", str(demo.ASSESSMENTS_2004), *map(str, demo.RUNS), "-m", "P@25",
                       "-m", "P@5", "--baseline", "articles", "--test", "t", "--format", fmt)
        assert done.returncode == 0, done.stderr
        assert "Precision loss" not in done.stderr and "warning" not in done.stderr
        if fmt == "table":
            assert "# p undefined (no mark) for overlapping on P@25 (t test); " in done.stdout
            assert "data are essentially constant" in done.stdout
            assert next(line for line in done.stdout.splitlines()
                        if line.startswith("overlapping")).split()[1:] == ["0.0800", "0.1333"]
        else:
            rows = {(r[0], r[2]): r for r in (line.split(",")
                                               for line in done.stdout.splitlines()[1:])}
            assert rows["P@25", "overlapping"][8:10] == ["NaN", "NaN"]  # p_value, p_adjusted
            assert rows["P@25", "overlapping"][12] == "NaN"  # effect size
            assert float(rows["P@25", "focused"][8]) == pytest.approx(0.0315040030418138)


def test_compare_markdown_ends_the_table_before_the_legend() -> None:
    # a line right under a Markdown table is read as one more row of it
    done = run_cli("compare", str(demo.ASSESSMENTS_2004), *map(str, demo.RUNS), "-m", "P@5",
                   "--format", "markdown")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    legend = next(i for i, line in enumerate(lines) if line.startswith("▲"))
    assert lines[legend - 1] == "" and lines[legend - 2].startswith("| ")


@pytest.mark.parametrize(("argv", "expected"), [
    (["--bogus"], "inexeval: error: unrecognized arguments: --bogus\n"),
    (["eval"], "inexeval: error: eval: the following arguments are required: ASSESSMENTS, RUN\n"),
    (["meta", "pool"], ("inexeval: error: meta pool: the following arguments are required: "
                        "ASSESSMENTS, RUN\n")),
])
def test_usage_errors_name_the_program_once(argv: list[str], expected: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # one line, "inexeval: error:" then the subcommand (if any): never "inexeval: error: inexeval:"
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    assert capsys.readouterr().err == expected
