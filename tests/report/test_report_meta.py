"""``inexeval report --meta``: the Measures section holds the numbers of ``inexeval meta power``
on the same inputs and rule (discriminative power, difference required, the ASL curves), and
``Experiment.report(meta=True)`` the same page."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from tests.helpers import DATA, needs_shared

from inexeval.cli import main
from inexeval.experiment import Experiment

pytestmark = needs_shared

IPCS = DATA / "ipcs"
QRELS = str(IPCS / "INEX_Qrels.txt")
RUNS = [str(IPCS / "bert_inex_converted_1.run"), str(IPCS / "bert1_incontext.run"),
        str(IPCS / "bert1_bestincontext.run")]


def section(page: str) -> str:
    found = re.search(r'<section id="measures">.*?</section>', page, re.DOTALL)
    assert found, "no Measures section"
    return found.group(0)


def summary_values(measures: str) -> dict[str, list[float]]:
    table = re.search(r'<table class="sortable meta">.*?</table>', measures, re.DOTALL)
    assert table
    out = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table.group(0).split("<tbody>")[1], re.DOTALL):
        name = unescape(re.search(r'<td class="text">(.*?)</td>', row).group(1))
        out[name] = [float(v) for v in re.findall(r'data-value="([^"]+)"', row)]
    return out


def curves(measures: str) -> dict[str, list[float]]:
    return {unescape(run): [float(v) for v in y.split()] for run, y in re.findall(
        r'<polyline class="series"[^>]*data-run="([^"]*)"[^>]*data-y="([^"]*)"', measures)}


@pytest.mark.parametrize("rule", [["-c"], []])
def test_measures_section_equals_meta_power(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            rule: list[str]) -> None:
    """Same topics (the rule), same B: with -c and B given, and by default (any, meta power's
    default B, which the comparison's 10,000 permutations used to override)."""
    out = tmp_path / "report.html"
    given = ["--permutations", "500"] if rule else []
    assert main(["report", QRELS, *RUNS, "--task", "focused", *rule, "--meta", *given,
                 "--seed", "7", "--alpha", "0.1", "-o", str(out)]) == 0
    capsys.readouterr()
    measures = section(out.read_text())
    if rule:
        assert main(["meta", "power", QRELS, *RUNS, "--task", "focused", "-c",
                     "--replicates", "500", "--seed", "7", "--alpha", "0.1",
                     "--format", "json"]) == 0
        expected = json.loads(capsys.readouterr().out)
    else:  # the report's rule (any): meta power on the scores saved by eval, its default B
        saved = tmp_path / "any.scores"
        assert main(["eval", "-q", QRELS, *RUNS, "--task", "focused", "--format", "scores",
                     "-o", str(saved)]) == 0
        capsys.readouterr()
        assert main(["meta", "power", "--scores", str(saved), "--seed", "7", "--alpha", "0.1",
                     "--format", "json"]) == 0
        expected = json.loads(capsys.readouterr().out)
        assert expected["study"]["topics"] == 60
    shown = summary_values(measures)
    summary = {s["measure"]: s for s in expected["summary"]}
    assert set(shown) <= set(summary) and len(shown) == 5
    for measure, values in shown.items():
        s = summary[measure]
        assert values == [s["pairs"], s["significant"], s["discriminative_power"],
                          s["difference_required"]]
    drawn = curves(measures)
    assert set(drawn) == set(shown)
    for measure, asl in drawn.items():
        assert asl == sorted(p["asl"] for p in expected["pairs"] if p["measure"] == measure)
    replicates = 500 if rule else 1000
    assert f"B = {replicates} resamples, seed 7" in measures and "ASL &lt; 0.1" in measures
    assert {s["replicates"] for s in expected["summary"]} == {replicates}


def test_report_meta_api_and_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = Experiment(QRELS, RUNS, task="focused", complete=True)
    page = study.report(meta=True, permutations=300)
    assert summary_values(section(page))
    assert '<section id="measures">' not in study.report(permutations=300)
    code = main(["compare", QRELS, *RUNS, "--task", "focused", "--meta"])
    err = capsys.readouterr().err
    assert code == 2 and "--meta" in err and len(err.strip().splitlines()) == 1
