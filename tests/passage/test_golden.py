"""Golden tests: every value printed by the official evaluator (inex_eval 3.1) on real runs."""

from __future__ import annotations

import math

import pytest
from tests.helpers import DATA, needs_shared

from inexeval.formats.fol import read_fol_qrels, read_fol_run
from inexeval.measures.focused import evaluate_task
from inexeval.model import Assessments

from .conftest import same

pytestmark = needs_shared

IPCS = DATA / "ipcs"
TASKS = {"f": "focused", "t": "thorough", "r": "relevant-in-context", "i": "t2i",
         "b": "best-in-context"}
CASES = [("bert_inex_converted_1", "f", "q"), ("bert_inex_converted_1", "f", "c"),
         ("bert_inex_converted_1", "t", "q"), ("bert_inex_converted_1", "t", "c"),
         ("bert1_incontext", "r", "q"), ("bert1_incontext", "i", "q"),
         ("bert1_bestincontext", "b", "q")]


def _expected(name: str) -> tuple[str, list[tuple[str, str, float]]]:
    rows = []
    header = ""
    for line in (IPCS / "expected" / name).read_text().splitlines():
        if line.startswith("<eval"):
            header = line
        if line.startswith("<") or not line.strip():
            continue
        label, topic, value = [part for part in line.split("\t") if part]
        rows.append((label, topic, float(value)))
    return header, rows


@pytest.fixture(scope="module")
def qrels() -> Assessments:
    return read_fol_qrels(IPCS / "INEX_Qrels.txt")


@pytest.mark.parametrize(("run", "task", "mode"), CASES)
def test_official_output(qrels: Assessments, run: str, task: str, mode: str) -> None:
    header, expected = _expected(f"{run}.{task}.{mode}.txt")
    passages = read_fol_run(IPCS / f"{run}.run")
    assert f'run-id="{passages.name}"' in header
    results = evaluate_task(qrels, [passages], TASKS[task], complete=mode == "c",
                            per_topic=mode == "q")
    got = [(r.measure, r.topic, r.value) for r in results.rows + results.means()]
    assert len(got) == len(expected)
    for (name, topic, value), (e_name, e_topic, e_value) in zip(got, expected):
        assert (name, topic) == (e_name, e_topic)
        assert value is not None and same(value, e_value), (name, topic, value, e_value)


def test_complete_mode_halves_maip_on_the_sample(qrels: Assessments) -> None:
    """The issue's figures: MAiP 0.1189 without -c, 0.0594 with -c."""
    run = read_fol_run(IPCS / "bert_inex_converted_1.run")
    plain = evaluate_task(qrels, [run], "focused", per_topic=False).mean("MAiP")
    complete = evaluate_task(qrels, [run], "focused", complete=True, per_topic=False).mean("MAiP")
    assert plain is not None and complete is not None
    assert round(plain, 4) == 0.1189 and round(complete, 4) == 0.0594
    assert not math.isnan(plain)
