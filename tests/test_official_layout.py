"""`inexeval eval --task T --format official` reproduces the official evaluator's output
character for character (all but the file name in the header) on the reference outputs."""

from __future__ import annotations

import pytest

from inexeval.cli import main
from inexeval.report.official import java_double
from tests.helpers import DATA, needs_shared

IPCS = DATA / "ipcs"
CASES = [
    ("bert_inex_converted_1", "f", "focused", ["-q"]),
    ("bert_inex_converted_1", "t", "thorough", ["-q"]),
    ("bert_inex_converted_1", "f", "focused", ["-c"]),
    ("bert_inex_converted_1", "t", "thorough", ["-c"]),
    ("bert1_incontext", "r", "relevant-in-context", ["-q"]),
    ("bert1_incontext", "i", "t2i", ["-q"]),
    ("bert1_bestincontext", "b", "best-in-context", ["-q"]),
]


@needs_shared
@pytest.mark.parametrize(("run", "letter", "task", "flags"), CASES)
def test_official_layout_identical(run: str, letter: str, task: str, flags: list[str],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    mode = "c" if "-c" in flags else "q"
    expected = (IPCS / "expected" / f"{run}.{letter}.{mode}.txt").read_text().splitlines()
    code = main(["eval", str(IPCS / "INEX_Qrels.txt"), str(IPCS / f"{run}.run"), "--task", task,
                 "--format", "official", *flags])
    assert code == 0
    got = capsys.readouterr().out.splitlines()
    assert got[0].split(" file=")[0] == expected[0].split(" file=")[0]
    assert got[1:] == expected[1:]


@pytest.mark.parametrize(("value", "text"), [
    (0.19, "0.19"), (1.0, "1.0"), (0.0, "0.0"), (5.673758865248227e-4, "5.673758865248227E-4"),
    (1e-4, "1.0E-4"), (0.001, "0.001"), (1.23456789e8, "1.23456789E8"), (float("nan"), "NaN"),
])
def test_java_double(value: float, text: str) -> None:
    assert java_double(value) == text
