"""Resources and outputs (issue 13): a 200 MB run evaluates in bounded memory, and a command
killed while it writes leaves either no output (or the previous one) or a complete one."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from inexeval import demo
from tests.helpers import PEAK_OF_MAIN

QRELS = "".join(f"{2009000 + t} Q0 {1500000 + d} 50 100000 0 {d * 10}:50\n"
                for t in range(0, 400, 7) for d in range(20))


def _big_run(path: Path, size: int) -> int:
    """A FOL run of at least ``size`` bytes, topic after topic; returns its number of lines."""
    block = b"".join(b"TTTTTTT Q0 %d %d %.8e run-x %d %d\n" % (
        1500000 + r * 7 % 5000, r + 1, -r / 3e5, r * 37 % 90000, 100 + r % 900)
        for r in range(10000))
    written = topics = 0
    with open(path, "wb") as out:
        while written < size:
            out.write(block.replace(b"TTTTTTT", b"%07d" % (2009000 + topics)))
            written += len(block)
            topics += 1
    return topics * 10000


def _peak(argv: list[str]) -> int:
    """Peak resident memory (KiB) of ``inexeval ARGV`` in a fresh process, which must succeed."""
    done = subprocess.run([sys.executable, "-c", PEAK_OF_MAIN, *argv], capture_output=True,
                          text=True, timeout=600, check=False)
    code, peak_kib = (int(v) for v in done.stderr.split()[-2:])
    assert code == 0, done.stderr
    return peak_kib


@pytest.mark.slow
@pytest.mark.parametrize("measures", [["--task", "focused"], ["-m", "MAiP", "-m", "art_prec"]])
def test_a_200_mb_run_evaluates_in_the_memory_of_a_small_one(tmp_path: Path,
                                                              measures: list[str]) -> None:
    """A FOL run is read and scored a group of topics at a time: the peak does not grow with
    the run (a 200 MB run under 256 MiB, within 50 MiB of a 20 MB run's; it was 2.5 GiB when
    issue 13 was written, 560 MiB with the whole run read at once)."""
    run = tmp_path / "big.run"
    lines = _big_run(run, 200 << 20)
    small = tmp_path / "small.run"
    _big_run(small, 20 << 20)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    small_peak = _peak(["eval", str(qrels), str(small), *measures, "-c"])
    peak_kib = _peak(["eval", str(qrels), str(run), *measures, "-c"])
    out = subprocess.run([sys.executable, "-m", "inexeval.cli", "eval", str(qrels), str(run),
                          *measures, "-c"], capture_output=True, text=True, timeout=600,
                         check=True).stdout
    assert f"num_ret\tall\t{lines}" not in out  # only assessed topics count
    assert "num_q\tall\t58" in out
    assert peak_kib < 256 << 10, f"peak RSS {peak_kib / 1024:.0f} MiB"
    assert peak_kib < small_peak + (50 << 10), (peak_kib // 1024, small_peak // 1024)


def _big_document_run(path: Path, topics: int) -> None:
    """A TREC document run of 1,000 results for each of ``topics`` topics (1000, 1001, ...)."""
    ranked = "".join(f"TTTT Q0 doc{r} {r + 1} {1000 - r * 0.5} big\n" for r in range(1000))
    with open(path, "w") as out:
        out.writelines(ranked.replace("TTTT", str(1000 + t)) for t in range(topics))


@pytest.mark.slow
def test_a_large_trec_document_run_evaluates_in_the_memory_of_a_small_one(tmp_path: Path) -> None:
    """TREC runs are read a group of topics at a time too: 4 million lines (120 MB) under
    256 MiB and within 50 MiB of a million lines (the whole run read at once took 1.3 GB)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{1000 + t} 0 doc{d * 13} {d % 2}\n" for t in range(0, 4000, 10)
                             for d in range(50)))
    run, small = tmp_path / "big.run", tmp_path / "small.run"
    _big_document_run(run, 4000)
    _big_document_run(small, 1000)
    measures = ["-m", "AP", "-m", "P@10", "-m", "nDCG@10"]
    small_peak = _peak(["eval", str(qrels), str(small), *measures, "-c"])
    peak_kib = _peak(["eval", str(qrels), str(run), *measures, "-c"])
    assert peak_kib < 256 << 10, f"peak RSS {peak_kib / 1024:.0f} MiB"
    assert peak_kib < small_peak + (50 << 10), (peak_kib // 1024, small_peak // 1024)


KILLER = """
import contextlib, os, signal, sys
import inexeval.formats.fol as fol, inexeval.formats.trec as trec, inexeval.outputs as outputs

point, limit = sys.argv[1], int(sys.argv[2])
original, replace = outputs.atomic_output, os.replace


def die(*_):
    os.kill(os.getpid(), signal.SIGKILL)


class Killing:
    def __init__(self, handle):
        self.handle, self.written = handle, 0

    def write(self, text):
        self.written += len(text)
        if point == "write" and self.written >= limit:
            self.handle.write(text[: len(text) // 2])
            self.handle.flush()
            die()
        return self.handle.write(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self.handle, name)


@contextlib.contextmanager
def killing(path, mode="w"):
    with original(path, mode) as handle:
        yield Killing(handle)


fol.atomic_output = trec.atomic_output = killing
if point == "before rename":
    os.replace = die
elif point == "after rename":
    os.replace = lambda a, b: (replace(a, b), die())
from inexeval.cli import main
sys.exit(main(sys.argv[3:]))
"""

COMMANDS = {
    "convert": ["convert", "run", str(demo.RUNS[0]), "--collection", str(demo.COLLECTION)],
    "simulate": ["simulate", "ideal", str(demo.ASSESSMENTS_2004), "--collection",
                 str(demo.COLLECTION)],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("previous", [False, True])
def test_a_killed_command_leaves_no_partial_output(tmp_path: Path, command: str,
                                                   previous: bool) -> None:
    out = tmp_path / "out.txt"
    argv = [*COMMANDS[command], "-o", str(out)]
    complete = subprocess.run([sys.executable, "-m", "inexeval.cli", *argv], capture_output=True,
                              check=False, timeout=120)
    assert complete.returncode == 0, complete.stderr
    expected = out.read_bytes()
    assert len(expected) > 1000
    points = [("write", 1), ("write", len(expected) // 3), ("write", len(expected) - 1),
              ("before rename", 0), ("after rename", 0)]
    for point, limit in points:
        if previous:
            out.write_bytes(b"the previous output\n")
        else:
            out.unlink(missing_ok=True)
        killed = subprocess.run([sys.executable, "-c", KILLER, point, str(limit), *argv],
                                capture_output=True, check=False, timeout=120)
        assert killed.returncode == -signal.SIGKILL, (point, killed.stderr)
        if point == "after rename":
            assert out.read_bytes() == expected
        elif previous:
            assert out.read_bytes() == b"the previous output\n", point
        else:
            assert not out.exists(), point
