"""A FOL run read and evaluated a group of topics at a time (issue 13: memory bounded by a part,
not by the run) gives exactly what the whole run gives: the same topics, lines and run ids, the
same values and warnings, for every task and for ``-m``; a topic that resumes after its part was
given out is read whole instead."""

from __future__ import annotations

import contextlib
import io
import random
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.helpers import DATA, needs_shared

from inexeval.cli import main
from inexeval.evaluation import Evaluator
from inexeval.formats import source
from inexeval.formats.fol import read_fol_qrels, read_fol_run, read_fol_run_parts
from inexeval.formats.source import TopicResumed
from inexeval.measures.focused import evaluate_task
from inexeval.model.run import Run, RunParts

TOPICS = ["2010001", "2010002", "2010003", "2010004", "2010005"]
QRELS = "".join(f"{topic} Q0 {article} 70 400 {10 + t} {10 + t}:30 {200 + article % 50}:40\n"
                for t, topic in enumerate(TOPICS[:4]) for article in (11, 12, 13, 14))


def _lines(segments: list[tuple[int, int]], seed: int, per_article: int = 12) -> str:
    """A FOL run of ``(topic, number of lines)`` segments, in that order (a topic given in two
    segments resumes after others); passages never overlap within a topic."""
    rng = random.Random(seed)
    out = []
    for topic, k in _numbered(segments):
        article = 11 + k // per_article  # an article's passages together, in order
        offset = "X" if rng.random() < 0.05 else str(300 + 3 * (k % per_article))
        out.append(f"{TOPICS[topic]} Q0 {article} {k + 1} {rng.uniform(-1, 1):.6g} "
                   f"run-{topic}-{rng.randrange(2)} {offset} {1 + rng.randrange(2)}\n")
    return "".join(out)


def _numbered(segments: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """``(topic, k)`` for each line of the segments: the line is the topic's ``k``-th
    (from 0), counted across the topic's segments."""
    used: dict[int, int] = {}
    for topic, count in segments:
        for _ in range(count):
            k = used.get(topic, 0)
            used[topic] = k + 1
            yield topic, k


@contextlib.contextmanager
def _small(block: int, part: int):  # type: ignore[no-untyped-def]
    """Blocks of ``block`` bytes and parts of ``part`` lines, as a huge run would have."""
    saved = source.BLOCK, source.PART_LINES
    source.BLOCK, source.PART_LINES = block, part
    try:
        yield
    finally:
        source.BLOCK, source.PART_LINES = saved


def _resumed(segments: list[tuple[int, int]]) -> bool:
    order = [topic for topic, count in segments if count]
    return len(set(order)) < len([t for i, t in enumerate(order) if i == 0 or order[i - 1] != t])


def _read_both(path: Path, read_whole: Callable[[Path], Run],
               read_parts: Callable[[Path], Iterator[Run]], sizes: tuple[int, int],
               segments: list[tuple[int, int]]) -> tuple[Run, list[Run]] | None:
    """The run at ``path`` read whole and in parts (blocks and parts of ``sizes``), which must
    warn alike; None for an empty file, or where the parts refuse a resumed topic (and only
    then: a run of ``segments`` with a topic that resumes)."""
    if not path.stat().st_size:
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        whole = read_whole(path)
    whole_warnings = [str(w.message) for w in caught]
    with _small(*sizes), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            parts = list(read_parts(path))
        except TopicResumed:
            assert _resumed(segments)  # only a resumed topic is read whole
            return None
    assert [str(w.message) for w in caught] == whole_warnings
    return whole, parts


segments_strategy = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 60)), min_size=1,
                             max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segments_strategy, st.integers(0, 10**6), st.sampled_from([(300, 5), (700, 20),
                                                                   (4 << 20, 1 << 16)]))
def test_the_parts_hold_the_whole_runs_topics(tmp_path: Path, segments: list[tuple[int, int]],
                                              seed: int, sizes: tuple[int, int]) -> None:
    path = tmp_path / "r.run"
    path.write_text(_lines(segments, seed))
    read = _read_both(path, read_fol_run, read_fol_run_parts, sizes, segments)
    if read is None:
        return
    whole, parts = read
    assert [topic for part in parts for topic in part] == list(whole)
    assert parts[-1].name == whole.name
    for part in parts:
        for topic, results in part.items():
            expected = whole[topic]
            for column in ("files", "offsets", "lengths", "ranks", "lines", "missing"):
                assert getattr(results, column).tolist() == getattr(expected, column).tolist()
            assert np.array_equal(results.rsv, expected.rsv, equal_nan=True)
            assert part.meta["run_ids"][topic] == whole.meta["run_ids"][topic]


def test_a_topic_resuming_after_its_part_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "r.run"
    path.write_text(_lines([(0, 40), (1, 40), (2, 40), (0, 5)], 1))
    with _small(300, 5), pytest.raises(TopicResumed):
        list(read_fol_run_parts(path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(read_fol_run(path)["2010001"]) == 45
    assert "resumes after lines of other topics" in str(caught[0].message)


@pytest.mark.parametrize("task", ["focused", "thorough", "relevant-in-context",
                                  "best-in-context", "t2i"])
@pytest.mark.parametrize("complete", [False, True])
def test_a_run_in_parts_scores_as_the_whole_run(tmp_path: Path, task: str,
                                                complete: bool) -> None:
    (tmp_path / "q.txt").write_text(QRELS)
    qrels = read_fol_qrels(tmp_path / "q.txt")
    path = tmp_path / "r.run"
    path.write_text(_lines([(0, 30), (4, 10), (1, 40), (3, 25)], 7,  # topic 2010005 unjudged
                           1 if task == "best-in-context" else 12))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        whole = evaluate_task(qrels, [read_fol_run(path)], task, complete=complete)
        expected_warnings = [str(w.message) for w in caught]
        del caught[:]
        with _small(300, 5):
            assert len(list(read_fol_run_parts(path))) > 3
            parts = RunParts(read_fol_run_parts(path), str(path))
            streamed = evaluate_task(qrels, [parts], task, complete=complete)
        assert sorted(str(w.message) for w in caught) == sorted(expected_warnings)
        assert any("not in the qrels" in message for message in expected_warnings)
    assert streamed.rows == whole.rows and len(whole.rows) > 0
    assert [(r.topic, r.measure) for r in streamed.overall] == [
        (r.topic, r.measure) for r in whole.overall]
    assert np.allclose([r.value for r in streamed.overall], [r.value for r in whole.overall],
                       rtol=0, atol=0, equal_nan=True)
    assert streamed.topics_evaluated == whole.topics_evaluated
    measures = ["MAiP", "iP[0.01]", "art_prec", "char_rec", "gP@5"]
    evaluator = Evaluator(measures, qrels, complete=complete)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = evaluator.evaluate(read_fol_run(path))
        with _small(300, 5):
            got = evaluator.evaluate(RunParts(read_fol_run_parts(path), str(path)))
    assert got.rows == expected.rows and got.overall == expected.overall
    assert got.topics_evaluated == expected.topics_evaluated


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@needs_shared
@pytest.mark.parametrize(("name", "options"), [
    ("bert_inex_converted_1", ["--task", "focused", "-q", "--format", "official"]),
    ("bert1_incontext", ["--task", "relevant-in-context", "-q", "-c"]),
    ("bert1_bestincontext", ["--task", "best-in-context", "--format", "official"]),
    ("bert_inex_converted_1", ["-m", "MAiP", "-m", "art_f1", "-q", "-c"]),
    ("bert_inex_converted_1", ["--task", "thorough", "--topics", "2009003,2009010"])])
def test_eval_in_parts_prints_what_the_whole_run_prints(tmp_path: Path, name: str,
                                                        options: list[str]) -> None:
    """A real run in parts of 200 lines prints what it prints read whole; so does a run with a
    topic that resumes (read whole after all: the error or warning is the same)."""
    qrels = DATA / "ipcs" / "INEX_Qrels.txt"
    run = DATA / "ipcs" / f"{name}.run"
    resumed = tmp_path / "resumed.run"
    lines = run.read_text().splitlines(keepends=True)
    a, b, c = len(lines) // 6 + 1, len(lines) // 3, len(lines) // 2
    resumed.write_text("".join(lines[:a] + lines[b:c] + lines[a:b] + lines[c:]))
    for path in (run, resumed):
        whole = _cli("eval", str(qrels), str(path), *options)
        with _small(20000, 200):
            assert len(list(read_fol_run_parts(run))) > 5
            assert _cli("eval", str(qrels), str(path), *options) == whole
        if path == run:
            assert whole[0] == 0 and whole[1]
        else:
            assert "resumes after lines of other topics" in whole[2] or whole[0] == 2


# --- TREC runs (element and document runs) ---------------------------------------------------

def _trec_lines(segments: list[tuple[int, int]], seed: int, element: bool) -> str:
    """A TREC run of ``(topic, number of lines)`` segments, with repeated results now and then
    (dropped with a warning) and paths for an element run."""
    rng = random.Random(seed)
    out = []
    for topic, k in _numbered(segments):
        document = k if rng.random() > 0.1 else max(k - 1, 0)  # a repeat now and then
        path = f" /article[1]/sec[{1 + document % 3}]" if element else ""
        out.append(f"{TOPICS[topic]} Q0 d{document // 3} {k + 1} {rng.uniform(-1, 1):.6g} "
                   f"trec-run{path}\n")
    return "".join(out)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segments_strategy, st.integers(0, 10**6), st.booleans(),
       st.sampled_from([(300, 5), (700, 20)]))
def test_the_parts_of_a_trec_run_hold_the_whole_runs_topics(
        tmp_path: Path, segments: list[tuple[int, int]], seed: int, element: bool,
        sizes: tuple[int, int]) -> None:
    from inexeval.formats.trec import read_trec_run, read_trec_run_parts

    path = tmp_path / "r.run"
    path.write_text(_trec_lines(segments, seed, element))
    read = _read_both(path, read_trec_run, read_trec_run_parts, sizes, segments)
    if read is None:
        return
    whole, parts = read
    assert [topic for part in parts for topic in part] == list(whole)
    assert {part.name for part in parts} == {whole.name}
    assert {part.kind for part in parts} == {whole.kind}
    for part in parts:
        for topic, results in part.items():
            for column in ("files", "paths", "ranks", "rsv", "lines"):
                assert getattr(results, column).tolist() == getattr(whole[topic], column).tolist()


def test_a_trec_document_run_in_parts_prints_what_the_whole_run_prints(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{topic} 0 d{d} {d % 2}\n" for topic in TOPICS[:4]
                             for d in range(0, 30, 2)))
    run = tmp_path / "doc.run"
    run.write_text(_trec_lines([(0, 90), (4, 20), (1, 60), (3, 70), (2, 5)], 3, element=False))
    for options in (["-q"], ["-q", "-c", "-m", "AP", "-m", "bpref", "-m", "nDCG@10"]):
        whole = _cli("eval", str(qrels), str(run), *options)
        with _small(300, 5):
            assert len(list(read_trec_run_parts_of(run))) == 5  # one per topic
            assert _cli("eval", str(qrels), str(run), *options) == whole
        assert whole[0] == 0 and "duplicated result(s) ignored" in whole[2]


def read_trec_run_parts_of(path: Path) -> list[object]:
    from inexeval.formats.trec import read_trec_run_parts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(read_trec_run_parts(path))
