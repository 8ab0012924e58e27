"""``inexeval pool --unit span``: the depth-K pool of span runs, hand-worked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inexeval.cli import main


def test_span_pool_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a.fol"
    # question 7: a's [10, 20) and [15, 30) overlap; its rank 3 and 4 are beyond the depth
    a.write_text("7 Q0 d1 2 5 a 15 15\n7 Q0 d1 1 9 a 10 10\n7 Q0 d1 3 1 a 30 10\n"
                 "7 Q0 d2 4 0 a 0 5\n8 Q0 d1 1 3 a 100 50\n")
    b = tmp_path / "b.jsonl"
    b.write_text("".join(json.dumps(r) + "\n" for r in [
        {"qid": "7", "doc": "d1", "start": 30, "end": 45, "score": 2},   # rank 2
        {"qid": "7", "doc": "d1", "start": 60, "end": 70, "score": 5},   # rank 1
        {"qid": "9", "doc": "d3", "start": 0, "end": 1, "score": 1},
    ]))
    assert main(["pool", str(a), str(b), "--depth", "2", "--unit", "span"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert rows == [
        # a's ranks 1 and 2 overlap, b's rank 2 touches them: one span, from two runs
        ["7", "d1", "10", "45", "1", "2"],
        ["7", "d1", "60", "70", "1", "1"],
        ["8", "d1", "100", "150", "1", "1"],
        ["9", "d3", "0", "1", "1", "1"],
    ]


def test_span_pool_needs_a_depth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "a.fol"
    run.write_text("7 Q0 d1 1 5 a 15 15\n")
    assert main(["pool", str(run), "--unit", "span", "--articles", "3"]) == 2
    assert "--unit span pools to --depth K" in capsys.readouterr().err
