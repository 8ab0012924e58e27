"""``inexeval eval`` on many runs: streamed one at a time in bounded memory, in the order given,
the same with ``--jobs``, a bad run reported without losing the others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import DATA, PEAK_OF_MAIN, needs_shared

pytestmark = needs_shared

QRELS = DATA / "ipcs" / "INEX_Qrels.txt"
BERT = DATA / "ipcs" / "bert_inex_converted_1.run"

def _eval(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inexeval.cli", "eval", *map(str, args)],
                          capture_output=True, text=True, timeout=300, check=False)


def _eval_command(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inexeval.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=300, check=False)


def _copies(folder: Path, count: int, scale: int = 1) -> list[Path]:
    """``count`` run files, each the bert run and ``scale - 1`` more copies of its lines under
    topic ids the qrels do not have (read, then ignored: they only make the run bigger)."""
    lines = BERT.read_text().splitlines(keepends=True)
    extra = [f"9{k}{line}" for k in range(1, scale) for line in lines]
    text = "".join(lines + extra)
    paths = []
    for i in range(count):
        path = folder / f"copy{i:02d}.run"
        path.write_text(text)
        paths.append(path)
    return paths


def _peak_kib(runs: list[Path]) -> int:
    done = subprocess.run([sys.executable, "-c", PEAK_OF_MAIN, "eval", "--task", "focused", str(QRELS),
                           *map(str, runs)], capture_output=True, text=True, timeout=600,
                          check=False)
    code, peak = done.stderr.splitlines()[-1].split()
    assert code == "0", done.stderr[-500:]
    return int(peak)


def test_memory_is_flat_in_the_number_of_runs(tmp_path: Path) -> None:
    runs = _copies(tmp_path, 30, scale=3)
    three, thirty = _peak_kib(runs[:3]), _peak_kib(runs)
    assert thirty <= three + 50 * 1024, (three, thirty)


def test_results_come_in_the_order_given_and_the_same_with_jobs(tmp_path: Path) -> None:
    runs = _copies(tmp_path, 4)
    for i, run in enumerate(runs):  # distinct run-ids and rankings: swap two lines per run
        lines = run.read_text().splitlines(keepends=True)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        run.write_text("".join(line.replace("TREC2INEX", f"r{i}") for line in lines))
    order = [runs[2], runs[0], runs[3], runs[1]]
    alone = _eval("--task", "focused", "-q", QRELS, *order)
    pooled = _eval("--task", "focused", "-q", "--jobs", "3", QRELS, *order)
    assert alone.returncode == pooled.returncode == 0, alone.stderr + pooled.stderr
    assert pooled.stdout == alone.stdout
    assert pooled.stderr == alone.stderr
    first_seen = list(dict.fromkeys(line.split("\t")[0] for line in alone.stdout.splitlines()))
    assert first_seen == ["r2", "r0", "r3", "r1"]
    for run in order:
        single = _eval("--task", "focused", "-q", QRELS, run)
        name = run.read_text().split(None, 6)[5]
        mine = [line.split("\t", 1)[1] for line in alone.stdout.splitlines()
                if line.startswith(name + "\t")]
        assert mine == single.stdout.splitlines()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bad_run_is_reported_and_the_others_still_evaluated(tmp_path: Path, jobs: str) -> None:
    good = _copies(tmp_path, 2)
    good[1].write_text(good[1].read_text().replace("TREC2INEX", "other"))
    broken = tmp_path / "broken.run"
    broken.write_text("2010001 Q0 123 1 1.0 r X\n")
    missing = tmp_path / "missing.run"
    done = _eval("--task", "focused", "--jobs", jobs, QRELS, good[0], broken, missing, good[1])
    assert done.returncode == 2
    assert [line.split("\t")[0] for line in done.stdout.splitlines()
            if "\tMAiP\t" in line] == ["TREC2INEX", "other"]
    errors = [line for line in done.stderr.splitlines() if line.startswith("inexeval: error:")]
    assert len(errors) == 3, done.stderr
    assert f"{broken}:1:" in errors[0] and str(missing) in errors[1]
    assert "2 of 4 runs" in errors[2]


def test_the_same_run_file_twice_is_an_error(tmp_path: Path) -> None:
    run = _copies(tmp_path, 1)[0]
    link = tmp_path / "link.run"
    link.symlink_to(run)
    for runs in ([run, run], [run, link]):
        done = _eval("--task", "focused", QRELS, *runs)
        assert done.returncode == 2
        assert done.stdout == ""
        assert done.stderr.count("\n") == 1 and "given twice" in done.stderr


def test_runs_with_one_run_id_are_told_apart_by_file(tmp_path: Path) -> None:
    runs = _copies(tmp_path, 2)
    other = tmp_path / "other.run"
    other.write_text(runs[1].read_text().replace("TREC2INEX", "other"))
    given = [runs[0], other, runs[1]]
    expected = ["TREC2INEX (copy00.run)", "other", "TREC2INEX (copy01.run)"]
    done = _eval("--task", "focused", QRELS, *given)
    assert done.returncode == 0, done.stderr
    assert list(dict.fromkeys(line.split("\t")[0] for line in done.stdout.splitlines())) == expected
    csv = _eval("--task", "focused", "--format", "csv", QRELS, *given)
    assert list(dict.fromkeys(line.split(",")[0] for line in csv.stdout.splitlines()[1:])) == expected
    table = _eval("--task", "focused", "--table", QRELS, *given)
    assert [line.rsplit(None, 5)[0] for line in table.stdout.splitlines()[1:]] == expected
    compared = _eval_command("compare", "--task", "focused", "--format", "csv", QRELS, *given)
    assert list(dict.fromkeys(line.split(",")[2] for line in compared.stdout.splitlines()[1:])) \
        == expected[1:]
    assert {line.split(",")[3] for line in compared.stdout.splitlines()[1:]} == {expected[0]}


def test_names_read_ahead_or_not_are_the_same(tmp_path: Path) -> None:
    """A run on standard input or a compressed FOL run cannot be named before it is read: the
    results are printed at the end, named as when every name is read ahead."""
    import gzip

    runs = _copies(tmp_path, 2)
    packed = tmp_path / "copy01.run.gz"
    packed.write_bytes(gzip.compress(runs[1].read_bytes()))
    for fmt in ("trec", "csv"):
        files = _eval("--task", "focused", "-q", "--format", fmt, QRELS, *runs)
        assert files.returncode == 0, files.stderr
        assert "TREC2INEX (copy00.run)" in files.stdout and "TREC2INEX (copy01.run)" in files.stdout
        zipped = _eval("--task", "focused", "-q", "--format", fmt, QRELS, runs[0], packed)
        assert zipped.stdout == files.stdout.replace("copy01.run", "copy01.run.gz")
        piped = subprocess.run([sys.executable, "-m", "inexeval.cli", "eval", "--task", "focused",
                                "-q", "--format", fmt, str(QRELS), str(runs[0]), "-"],
                               input=runs[1].read_text(), capture_output=True, text=True,
                               timeout=300, check=False)
        assert piped.stdout == files.stdout.replace("(copy01.run)", "(-)")


def test_csv_has_one_header_for_all_runs(tmp_path: Path) -> None:
    runs = _copies(tmp_path, 3)
    done = _eval("--task", "focused", "--format", "csv", QRELS, *runs)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("run,topic,measure,value") == 1
    assert done.stdout.startswith("run,topic,measure,value\n")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_error_not_about_a_run_stops_the_command_once(tmp_path: Path, jobs: str) -> None:
    runs = _copies(tmp_path, 3)
    done = _eval("--task", "focused", "-m", "P@10", "--jobs", jobs, QRELS, *runs)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not in the measure set" in done.stderr
