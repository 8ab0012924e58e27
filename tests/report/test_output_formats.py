"""Output fit for a paper and a terminal: eval's csv and json at full precision, tables aligned
on a terminal and tab-separated in a pipe, p-values below the last digit as ``<0.0001``,
Markdown without a heading, and all-pairs tables as ranx's report (superscript letters of the
runs a mean is significantly better than)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from inexeval import demo
from inexeval.comparison import Comparison, ComparisonRow
from inexeval.evaluation import Evaluator
from inexeval.formats.detect import load_assessments, load_run
from inexeval.report.comparison import better_than, render_comparison, render_rows, run_letters
from inexeval.report.text import columns, render_csv, render_json, render_latex

QRELS = str(demo.ASSESSMENTS_2004)
RUNS = [str(path) for path in demo.RUNS]


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "inexeval.cli", *args], capture_output=True,
                          text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _on_terminal(*args: str) -> str:
    """What the command prints when its standard output is a terminal (a pseudo-terminal)."""
    main, secondary = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "inexeval.cli", *args], stdout=secondary,
                          stderr=subprocess.DEVNULL) as process:
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait(timeout=120) == 0
    os.close(main)
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_eval_csv_and_json_hold_the_exact_doubles() -> None:
    results = Evaluator(["P@5", "inex_eval"], load_assessments(QRELS), num_docs=16).evaluate(
        [load_run(path) for path in RUNS])
    expected = {(r.run, r.topic, r.measure): r.value for r in results.rows + results.means()}
    assert any(v is not None and round(v, 4) != v for v in expected.values())  # some need >4
    csv_text = _cli("eval", QRELS, *RUNS, "-m", "P@5", "-m", "inex_eval", "--num-docs", "16",
                    "-q", "--format", "csv")
    rows = [line.split(",") for line in csv_text.splitlines()[1:]]
    assert len(rows) == len(expected)
    for run, topic, measure, value in rows:
        if measure == "num_q":
            assert value == str(int(expected[run, topic, measure] or 0))
        else:
            assert float(value) == expected[run, topic, measure]
    data = json.loads(_cli("eval", QRELS, *RUNS, "-m", "P@5", "-m", "inex_eval",
                           "--num-docs", "16", "-q", "--format", "json"))
    assert {(d["run"], d["topic"], d["measure"]): d["value"] for d in data} == expected
    assert all(isinstance(d["value"], int) for d in data if d["measure"] == "num_q")
    # the library's renderers agree with the command
    assert render_csv(results, 2, True).splitlines()[1:] == csv_text.splitlines()[1:]
    assert json.loads(render_json(results, 2, True)) == data


def test_tables_are_aligned_on_a_terminal_and_tab_separated_in_a_pipe() -> None:
    args = ("eval", QRELS, *RUNS, "-m", "P@5", "-m", "P@10", "--table")
    piped = _cli(*args).splitlines()
    assert piped[0] == "run\tP@5\tP@10"
    assert all(len(line.split("\t")) == 3 and "  " not in line for line in piped)
    shown = _on_terminal(*args).splitlines()
    assert "\t" not in "".join(shown) and [line.split() for line in shown] == [
        line.split("\t") for line in piped]
    assert len({len(line) for line in shown}) == 1  # numbers right-aligned under their header
    assert shown[0].index("P@10") + 4 == len(shown[0])


def test_the_demo_is_aligned_on_a_terminal_and_tab_separated_in_a_pipe() -> None:
    piped = _cli("demo").splitlines()
    shown = _on_terminal("demo").splitlines()
    assert [line.split() for line in shown] == [line.split() for line in piped]
    header = piped.index("cut-off\tstrict\tliberal\texhaust.\tspecific\toverlap")
    table = shown[header:header + 8]
    assert "\t" not in "".join(table) and table[0].split()[0] == "cut-off"
    assert len({len(line) for line in table}) == 1


def test_columns() -> None:
    rows = [["run", "P@5"], ["a", "0.5000"], ["long name", "1.0000"]]
    assert columns(rows, terminal=False) == "run\tP@5\na\t0.5000\nlong name\t1.0000\n"
    assert columns(rows) == "run           P@5\na          0.5000\nlong name  1.0000\n"


def _row(run: str, baseline: str, measure: str, delta: float, p: float,
         test: str = "t") -> ComparisonRow:
    return ComparisonRow(measure, test, run, baseline, 10, 0.5 + delta, 0.5, delta, p, p,
                         -0.1, 0.1, 0.3, 5, 0, 5)


def _all_pairs(rows: list[ComparisonRow], tests: list[str]) -> Comparison:
    runs = ["alpha", "beta", "gamma"]
    means: dict[str, dict[str, float | None]] = {
        "P@5": {"alpha": 0.5, "beta": 0.25, "gamma": 0.125},
        "MAiP": {"alpha": 0.1, "beta": 0.3, "gamma": 0.2}}
    return Comparison(rows=rows, per_topic={}, means=means, topics=[], runs=runs,
                      measures=["P@5", "MAiP"], baseline=None, tests=tests, correction="none",
                      alpha=0.05, permutations=1000, seed=42, header="paired over 10 topics")


def test_all_pairs_table_names_the_runs_each_mean_beats() -> None:
    # P@5: alpha beats beta (p 0.01) and gamma (0.00001); beta vs gamma not significant.
    # MAiP: beta beats alpha (the pair given as alpha - beta < 0) and gamma; gamma beats alpha.
    rows = [_row("alpha", "beta", "P@5", 0.25, 0.01), _row("alpha", "gamma", "P@5", 0.375, 1e-5),
            _row("beta", "gamma", "P@5", 0.125, 0.2),
            _row("alpha", "beta", "MAiP", -0.2, 0.001), _row("alpha", "gamma", "MAiP", -0.1, 0.04),
            _row("beta", "gamma", "MAiP", 0.1, 0.03)]
    comparison = _all_pairs(rows, ["t"])
    assert run_letters(comparison.runs) == {"alpha": "a", "beta": "b", "gamma": "c"}
    assert better_than(comparison, "t") == {("P@5", "alpha"): ["beta", "gamma"],
                                            ("MAiP", "beta"): ["alpha", "gamma"],
                                            ("MAiP", "gamma"): ["alpha"]}
    table = render_comparison(comparison, "table").splitlines()
    assert table[0].startswith("# t test between every pair of runs; paired over 10 topics")
    assert [line.split() for line in table[1:5]] == [
        ["run", "P@5", "MAiP"], ["a", "alpha", "0.5000ᵇᶜ", "0.1000"],
        ["b", "beta", "0.2500", "0.3000ᵃᶜ"], ["c", "gamma", "0.1250", "0.2000ᵃ"]]
    assert "significantly better than" in table[5]
    markdown = render_comparison(comparison, "markdown")
    assert "| a | alpha | 0.5000<sup>bc</sup> | 0.1000 |" in markdown
    assert not any(line.startswith("#") for line in markdown.splitlines())
    latex = render_comparison(comparison, "latex")
    assert r"a & alpha & \textbf{0.5000}$^{bc}$ & 0.1000 \\" in latex
    assert r"b & beta & 0.2500 & \textbf{0.3000}$^{ac}$ \\" in latex
    # the long table: every pair's row, full precision
    long = render_comparison(comparison, "csv").splitlines()
    assert len(long) == 7 and long[2].split(",")[8] == "1e-05"


def test_all_pairs_with_two_tests_gives_one_table_per_test() -> None:
    rows = [_row("alpha", "beta", "P@5", 0.25, 0.01, "t"), _row("alpha", "beta", "P@5", 0.25,
                                                                0.2, "sign")]
    text = render_comparison(_all_pairs(rows, ["t", "sign"]), "table")
    first, second = text.split("\n\n")
    assert "0.5000ᵇ" in first and "(t test," in first
    assert "0.5000ᵇ" not in second and "(sign test," in second


def test_more_runs_than_letters() -> None:
    letters = run_letters([f"run{i}" for i in range(30)])
    assert list(letters.values())[:3] == ["a", "b", "c"] and "q" not in "".join(letters.values())
    assert list(letters.values())[24:27] == ["z", "aa", "ab"]
    assert len(set(letters.values())) == 30


@pytest.mark.parametrize("p, digits, shown", [(1e-5, 4, "<0.0001"), (0.0001, 4, "0.0001"),
                                              (0.00009999, 4, "<0.0001"), (0.004, 2, "<0.01"),
                                              (0.0, 3, "<0.001"), (0.5, 4, "0.5000")])
def test_small_p_values(p: float, digits: int, shown: str) -> None:
    row = _row("alpha", "beta", "P@5", 0.25, p)
    table = render_rows(ComparisonRow._fields, [row], "table", digits).splitlines()
    assert table[1].split()[8:10] == [shown, shown]
    assert render_rows(ComparisonRow._fields, [row], "csv").splitlines()[1].split(",")[8] == repr(p)


def test_markdown_has_no_heading() -> None:
    results = _cli("compare", QRELS, *RUNS, "-m", "P@5", "-m", "P@25", "--format", "markdown",
                   "--baseline", "articles")
    lines = results.splitlines()
    assert not any(line.startswith("#") for line in lines)
    assert lines[0].startswith("t test against the baseline articles") and lines[1] == ""
    assert lines[2].startswith("| run |")
    # the note about an undefined p-value is a paragraph, not a row of the table
    note = next(i for i, line in enumerate(lines) if line.startswith("p undefined"))
    assert lines[note - 1] == ""


def test_eval_latex_caption_says_the_averaging_rule() -> None:
    out = _cli("eval", QRELS, *RUNS, "-m", "P@5", "--format", "latex")
    assert (r"\caption{Mean scores, 3 topics; means each run over the assessed topics it answers "
            r"(trec\_eval's default); best value in bold.}") in out
    out = _cli("eval", QRELS, *RUNS, "-m", "P@5", "--format", "latex", "-c")
    assert r"\caption{Mean scores, 3 topics; means over every assessed topic, a missing" in out
    results = Evaluator(["P@5"], load_assessments(QRELS)).evaluate([load_run(RUNS[0])])
    assert r"\caption{Mean scores over 3 topics.}" in render_latex(results)


def test_the_html_report_of_all_pairs_has_the_letters_and_small_p() -> None:
    from inexeval.report import html

    rows = [_row("alpha", "beta", "P@5", 0.25, 0.01), _row("alpha", "gamma", "P@5", 0.375, 1e-5),
            _row("beta", "gamma", "P@5", 0.125, 0.2)]
    comparison = _all_pairs(rows, ["t"])
    comparison.per_topic = {m: {r: {} for r in comparison.runs} for m in comparison.measures}
    page = html.render(html.from_comparison(comparison, title="t", command="c", version="v"))
    means = page[page.index('<table class="means">'):]
    means = means[:means.index("</table>")]
    assert '<span class="letter">a</span> alpha' in means
    assert "0.5000<sup>bc</sup>" in means and means.count("<sup>") == 1
    assert "a letter after a mean names a run it is significantly better than" in page
    details = page[page.index('<table class="sortable details">'):]
    assert 'data-value="1e-05">&lt;0.0001</td>' in details
    assert 'data-value="0.01">0.0100</td>' in details
