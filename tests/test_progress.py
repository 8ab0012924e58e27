"""Progress bars are drawn at every update while the work goes: tqdm's adaptive skipping,
learnt on fast first items, must not leave the bar still through slow later ones."""

from __future__ import annotations

import io
import re
import sys
import time
from typing import Self

import pytest

from inexeval import progress

pytest.importorskip("tqdm")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def drawn(text: str) -> list[int]:
    """The counts the bar showed, in order."""
    return [int(n) for n in re.findall(r"(\d+)/\d+", text)]


def test_every_item_drawn_after_fast_first_ones(monkeypatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    fast, slow = 200, 4
    for i in progress.progress(range(fast + slow), "work", fast + slow):
        if i >= fast:
            time.sleep(0.15)
    shown = drawn(terminal.getvalue())
    for n in range(fast + 1, fast + slow + 1):
        assert n in shown, (n, shown[-10:])


def test_callback_draws_every_update(monkeypatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    update = progress.progress_callback("blocks")
    assert update is not None
    for done in range(1, 6):
        update(done, 5)
    assert [n for n in drawn(terminal.getvalue()) if n] == [1, 2, 3, 4, 5]


def test_no_bar_off_a_terminal(monkeypatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert list(progress.progress(range(3), "work", 3)) == [0, 1, 2]
    assert progress.progress_callback("work") is None


def test_compare_advances_a_bar_per_measure_and_test(monkeypatch) -> None:
    """The tests of a comparison (the randomised one takes seconds) move a bar of their own,
    one step per measure and test, after the runs' bar."""
    from inexeval.analysis.compare import compare_scores
    from inexeval.scores import Scores

    steps: list[tuple[str, int]] = []

    class Bar:
        def __init__(self, description: str) -> None:
            self.description = description

        def update(self, k: int) -> None:
            steps.append((self.description, k))

        def __enter__(self) -> Self:
            return self

        def __exit__(self, *args: object) -> None:
            return None

    monkeypatch.setattr(progress, "_tqdm", lambda total, description: Bar(description))
    scores = Scores.from_rows([(r, str(t), m, (t * 7 + len(r) * 3 + len(m)) % 10 / 10)
                               for r in ("a", "bb", "ccc") for t in range(8)
                               for m in ("AP", "P@10")])
    compare_scores(scores, tests=["t", "randomised"], permutations=200)
    assert steps == [("tests", 1)] * 4
