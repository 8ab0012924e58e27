"""The shortcuts of the character tasks' scoring (issue 12) give what the plain definitions give:
the judged row of each run line (most names judged by one topic, some by several), and the
relevant characters of a line, each judged passage of its article counted on its own (spec
§15.4) whether the article has few passages or many."""

from __future__ import annotations

import warnings
from dataclasses import replace
from itertools import groupby, pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inexeval.errors import RunError
from inexeval.formats.fol import read_fol_qrels, read_fol_run
from inexeval.measures import focused, focused_lines, focused_qrels
from inexeval.model import Run
from inexeval.model.run import topic_sizes

passage = st.tuples(st.integers(0, 120), st.integers(1, 40))
judgement = st.tuples(st.sampled_from(["1", "2", "3"]), st.sampled_from(["a", "b", "c", "d"]),
                      st.lists(passage, max_size=12))
result = st.tuples(st.sampled_from(["1", "2", "3", "4"]),
                   st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(0, 150),
                   st.integers(1, 60), st.booleans())


def _write_qrels(path: Path, judged: list[tuple[str, str, list[tuple[int, int]]]]
                 ) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """FOL qrels of the drawn judgements (a passage overlapping one kept before for its
    article dropped: a line's passages are disjoint); the passages of each (topic, article)."""
    given_spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for topic, name, passages in judged:
        spans = given_spans.setdefault((topic, name), [])
        for start, size in passages:
            if all(start + size <= s or s + n <= start for s, n in spans):
                spans.append((start, size))
    path.write_text("".join(
        f"{t} Q0 {n} {sum(size for _, size in spans)} 200"
        + (" 0 " + " ".join(f"{s}:{size}" for s, size in spans) if spans else "") + "\n"
        for (t, n), spans in given_spans.items()))
    return given_spans


def _write_run(path: Path, returned: list[tuple[str, str, int, int, bool]]) -> None:
    """A FOL run of the drawn results, in the order given (``X`` for a result gone)."""
    path.write_text("".join(f"{t} Q0 {n} {i + 1} 1.0 r {'X' if gone else s} {size}\n"
                            for i, (t, n, s, size, gone) in enumerate(returned)))


@settings(max_examples=150, deadline=None)
@given(st.lists(judgement, min_size=1, max_size=10), st.lists(result, min_size=1, max_size=30))
def test_lines_find_their_rows_and_relevant_characters(
        tmp_path_factory: pytest.TempPathFactory,
        judged: list[tuple[str, str, list[tuple[int, int]]]],
        returned: list[tuple[str, str, int, int, bool]]) -> None:
    folder = tmp_path_factory.mktemp("s")
    given_spans = _write_qrels(folder / "q.txt", judged)
    ordered = sorted(returned, key=lambda r: r[0])
    _write_run(folder / "r.run", ordered)
    qrels, run = read_fol_qrels(folder / "q.txt"), read_fol_run(folder / "r.run")
    judged_rows = focused_qrels.judged_articles(qrels)
    lines = focused_lines.map_lines(judged_rows, [(t, run.topics[topic]) for t, topic
                                             in enumerate(judged_rows.topics)
                                             if topic in run.topics])
    names = list(judged_rows.names)
    width = len(names)
    row_of = {(judged_rows.topics[key // width], names[key % width]): row
              for key, row in zip(judged_rows.keys.tolist(), judged_rows.rows.tolist())}
    kept = [r for r in ordered if r[0] in judged_rows.topics]
    assert lines.article.tolist() == [row_of.get((t, n), -1) for t, n, *_ in kept]
    selected = lines.relevant & ~lines.missing
    relevant = focused_lines.relevant_chars(judged_rows, lines, selected)
    for i, (t, n, s, size, _) in enumerate(kept):
        spans = [(a, a + b) for a, b in given_spans.get((t, n), [])]
        want = sum(max(0, min(s + size, e) - max(s, a)) for a, e in spans) if selected[i] else 0
        assert relevant[i] == want


def test_an_article_with_many_passages_is_searched(tmp_path: Path) -> None:
    spans = " ".join(f"{10 * k}:5" for k in range(20))
    (tmp_path / "q.txt").write_text(f"1 Q0 a 100 300 0 {spans}\n")
    (tmp_path / "r.run").write_text("1 Q0 a 1 1.0 r 3 40\n1 Q0 a 2 1.0 r 52 100\n")
    qrels, run = read_fol_qrels(tmp_path / "q.txt"), read_fol_run(tmp_path / "r.run")
    judged = focused_qrels.judged_articles(qrels)
    lines = focused_lines.map_lines(judged, [(0, run.topics["1"])])
    want = [sum(max(0, min(e, 10 * k + 5) - max(s, 10 * k)) for k in range(20))
            for s, e in ((3, 43), (52, 152))]
    assert focused_lines.relevant_chars(judged, lines, lines.relevant).tolist() == want


@settings(max_examples=150, deadline=None)
@given(st.lists(judgement, min_size=1, max_size=10), st.lists(result, min_size=1, max_size=30),
       st.sampled_from(["focused", "thorough"]))
def test_a_run_read_whole_scores_as_its_topics_joined(
        tmp_path_factory: pytest.TempPathFactory,
        judged: list[tuple[str, str, list[tuple[int, int]]]],
        returned: list[tuple[str, str, int, int, bool]], task: str) -> None:
    """The reader's joined columns (topics in file order, unjudged topics and split topics
    included) give the values and warnings of the topics' own arrays joined in official order."""
    folder = tmp_path_factory.mktemp("w")
    _write_qrels(folder / "q.txt", judged)
    _write_run(folder / "r.run", returned)
    qrels = read_fol_qrels(folder / "q.txt")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        run = read_fol_run(folder / "r.run")
    settings_ = focused.TaskSettings(task, 0.25, 500, 300, False)

    def scored(of: Run) -> tuple[list[float], list[float], list[str]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                values = focused._run_scores(qrels, of, settings_)
            except RunError as error:
                return [], [], [str(error)]
        return (values.values.ravel().tolist(), values.curves.ravel().tolist(),
                [str(w.message) for w in caught])

    segments = [topic for topic, _ in groupby(t for t, *_ in returned)]
    whole = run.joined()
    assert (whole is None) == (len(segments) != len(set(segments)))
    if whole is not None:
        for topic, (a, b) in zip(run, pairwise(whole.bounds.tolist())):
            assert run[topic].files.tolist() == whole.files[a:b].tolist()
            assert run[topic].lines.tolist() == whole.lines[a:b].tolist()
    assert topic_sizes(run) == {topic: len(results) for topic, results in run.items()}
    assert all(run[topic] is run[topic] for topic in run)  # a topic is made once
    assert replace(run, topics=dict(list(run.items())[1:])).joined() is None
    general = replace(run, columns=None)
    assert general.joined() is None
    assert repr(scored(run)) == repr(scored(general))
