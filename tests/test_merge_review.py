"""Regressions found by the walk-through of the merged main: runs from pipes and standard input
get the defaults a file gets, a missing run does not change the others' measures, a standard
input run with --jobs, compare on -m MAiP without --task, pool reading standard input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers import DATA, needs_shared

pytestmark = needs_shared

QRELS = DATA / "ipcs" / "INEX_Qrels.txt"
BERT = DATA / "ipcs" / "bert_inex_converted_1.run"


def _cli(*args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inexeval.cli", *map(str, args)],
                          input=stdin.decode() if stdin else None, capture_output=True,
                          text=True, timeout=600, check=False)


def _maip(out: str) -> list[str]:
    return [line.split("\t")[-1] for line in out.splitlines() if "MAiP\tall" in line]


def test_pipes_and_stdin_get_the_defaults_of_a_file(tmp_path: Path) -> None:
    from_file = _cli("eval", QRELS, BERT)
    assert from_file.returncode == 0 and _maip(from_file.stdout) == ["0.1189"]
    from_stdin = _cli("eval", QRELS, "-", stdin=BERT.read_bytes())
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert _maip(from_stdin.stdout) == ["0.1189"]
    command = f"{sys.executable} -m inexeval.cli eval {QRELS} <(cat {BERT})"
    piped = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                           timeout=600, check=False)
    assert piped.returncode == 0 and _maip(piped.stdout) == ["0.1189"], piped.stderr


def test_a_missing_run_changes_no_other_run(tmp_path: Path) -> None:
    done = _cli("eval", QRELS, BERT, tmp_path / "missing.run")
    assert done.returncode == 2 and _maip(done.stdout) == ["0.1189"]
    assert "missing.run: no such file or folder" in done.stderr


def test_stdin_run_with_jobs(tmp_path: Path) -> None:
    done = _cli("eval", QRELS, BERT, "-", "--task", "focused", "-m", "MAiP", "--jobs", "2",
                stdin=BERT.read_bytes())
    assert done.returncode == 0, done.stderr
    assert _maip(done.stdout) == ["0.1189", "0.1189"]


def test_compare_maip_without_task(tmp_path: Path) -> None:
    other = tmp_path / "other.run"
    other.write_text(BERT.read_text().replace("TREC2INEX", "other"))
    done = _cli("compare", QRELS, BERT, other, "-m", "MAiP", "--format", "csv")
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[1].split(",")
    assert row[0] == "MAiP" and float(row[5]) == float(row[6])  # the same run: equal means


def test_pool_reads_standard_input(tmp_path: Path) -> None:
    out = tmp_path / "pool.tsv"
    done = _cli("pool", "-", "--articles", "3", "-o", out, stdin=BERT.read_bytes())
    assert done.returncode == 0, done.stderr
    assert len(out.read_text().splitlines()) == 3 * 60
