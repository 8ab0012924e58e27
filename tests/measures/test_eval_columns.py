"""``inexeval eval`` of TREC document runs on TREC qrels, all topics at once
(:mod:`inexeval.evaluation_trec`), against the general per-topic path on random qrels and runs:
the same bytes on stdout and stderr and the same exit code, for every measure it takes, per
topic and mean, with and without -c and --topics, in every output format."""

from __future__ import annotations

import contextlib
import gzip
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inexeval import evaluation_trec, evaluation_trec_eval, trec_eval_runs
from inexeval.cli import main
from inexeval.formats import source as sources

MEASURES = ["AP", "P@1", "P@5", "P@10", "R@5", "R@100", "nDCG@10", "nDCG@3", "nDCG", "RR",
            "RR@3", "R-Prec", "bpref", "Judged@5", "num_ret", "num_rel", "num_rel_ret",
            "AP(rel=2)", "bpref(rel=2)", "R(rel=2)@5", "P(quant=binary)@5", "map", "P_10",
            "P.5,10", "ndcg_cut_10", "recip_rank", "Rprec", "recall_5", "num_rel_ret"]

TREC_EVAL = {"AP", "P@1", "P@5", "P@10", "R@5", "R@100", "nDCG@10", "nDCG@3", "nDCG", "RR",
             "R-Prec", "bpref", "num_ret", "num_rel", "num_rel_ret", "map", "P_10", "P.5,10",
             "ndcg_cut_10", "recip_rank", "Rprec", "recall_5"}
"""The measures of :data:`MEASURES` that eval takes trec_eval's path for (at level 1)."""

TOPICS = ["1", "2", "3", "10", "20", "7a", "topic-100000"]
DOCUMENTS = ["d1", "d10", "d2", "d20", "D1", "d1x", "d", "e99", "doc-3", "zz", "d100", "a",
             "clueweb09-en0000-00-00001", "clueweb09-en0000-00-00010", "doc00000001"]
SCORES = ["1", "0.5", "2", "-1", "0", "-0", "1.5", "3e1", "0.50", "7"]


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _both(argv: list[str]) -> tuple[tuple[int, str, str], tuple[int, str, str], list[bool]]:
    """``inexeval eval`` with the columns path (and whether each run took it) and without
    (trec_eval's path, :mod:`inexeval.evaluation_trec_eval`, off in both); trec_eval's path
    gives the same as both (:func:`_trec_eval_path`)."""
    taken: list[bool] = []
    fast = evaluation_trec.evaluate_file

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        done = fast(*args, **kwargs)
        taken.append(done is not None)
        return done

    study = evaluation_trec_eval.trec_eval_study
    evaluation_trec_eval.trec_eval_study = lambda args, fmt: None
    evaluation_trec.evaluate_file = counted
    try:
        new = _cli(argv)
        usable = evaluation_trec.usable
        evaluation_trec.usable = lambda evaluator: False  # the general path
        try:
            old = _cli(argv)
        finally:
            evaluation_trec.usable = usable
    finally:
        evaluation_trec.evaluate_file = fast
        evaluation_trec_eval.trec_eval_study = study
    assert _trec_eval_path(argv)[0] == old
    return new, old, taken


def _trec_eval_path(argv: list[str]) -> tuple[tuple[int, str, str], list[bool]]:
    """``inexeval eval`` with trec_eval's path, and whether each run took it (its parts as
    small as :data:`~inexeval.formats.source.PART_LINES`)."""
    taken: list[bool] = []
    evaluate = evaluation_trec_eval.TrecEvalStudy._evaluate

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        taken.append(False)
        done = evaluate(*args, **kwargs)
        taken[-1] = True
        return done

    evaluation_trec_eval.TrecEvalStudy._evaluate = counted  # type: ignore[method-assign]
    given = trec_eval_runs.PART_LINES
    trec_eval_runs.PART_LINES = sources.PART_LINES
    try:
        return _cli(argv), taken
    finally:
        evaluation_trec_eval.TrecEvalStudy._evaluate = evaluate  # type: ignore[method-assign]
        trec_eval_runs.PART_LINES = given


@st.composite
def _qrels(draw: st.DrawFn) -> str:
    lines = []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=5, unique=True)):
        documents = draw(st.lists(st.sampled_from(DOCUMENTS), min_size=1, max_size=8,
                                  unique=True))
        for document in documents:
            level = draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3]))
            lines.append(f"{topic} 0 {document} {level}\n")
    return "".join(draw(st.permutations(lines)) if draw(st.booleans()) else lines)


@st.composite
def _run(draw: st.DrawFn, run_id: str) -> str:
    lines = []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=5, unique=True)):
        documents = draw(st.lists(st.sampled_from(DOCUMENTS), min_size=1, max_size=10,
                                  unique=draw(st.integers(0, 9)) != 0))
        for rank, document in enumerate(documents):
            score = draw(st.sampled_from(SCORES))
            lines.append(f"{topic} Q0 {document} {rank + 1} {score} {run_id}\n")
    if draw(st.integers(0, 4)) == 0:
        lines = draw(st.permutations(lines))  # topics resume after others
    return "".join(lines)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(qrels=_qrels(), runs=st.lists(st.sampled_from(["r1", "r2"]), min_size=1, max_size=2)
       .flatmap(lambda ids: st.tuples(*(_run(run_id) for run_id in ids))),
       measures=st.lists(st.sampled_from(MEASURES), max_size=4, unique=True),
       complete=st.booleans(), per_topic=st.booleans(),
       topics=st.none() | st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3,
                                   unique=True),
       fmt=st.sampled_from(["trec", "json", "csv", "table", "trec_eval", "scores"]),
       part_lines=st.sampled_from([2, 5, sources.PART_LINES]))
def test_all_topics_at_once_prints_what_the_general_path_prints(
        tmp_path: Path, qrels: str, runs: tuple[str, ...], measures: list[str],
        complete: bool, per_topic: bool, topics: list[str] | None, fmt: str,
        part_lines: int) -> None:
    """(``part_lines``: runs read in groups of whole topics of at least that many lines, so
    that small runs come in several parts, a topic may resume in a later one.)"""
    folder = tmp_path / str(abs(hash((qrels, runs))))
    folder.mkdir(exist_ok=True)
    (folder / "qrels").write_text(qrels)
    paths = []
    for i, text in enumerate(runs):
        (folder / f"run{i}").write_text(text)
        paths.append(str(folder / f"run{i}"))
    argv = ["eval", *[a for m in measures for a in ("-m", m)], "--format", fmt,
            *(["-c"] if complete else []), *(["-q"] if per_topic else []),
            *(["--topics", ",".join(topics)] if topics else []), str(folder / "qrels"), *paths]
    given = sources.PART_LINES
    sources.PART_LINES = part_lines
    try:
        new, old, taken = _both(argv)
        tried = _trec_eval_path(argv)[1]
    finally:
        sources.PART_LINES = given
    assert new == old
    if old[0] == 0 and measures and not topics and all(m in TREC_EVAL for m in measures):
        assert tried, "trec_eval's path was not tried"
    if "duplicate" not in old[2] and "repeated" not in old[2] and old[0] == 0 and all(
            m.split("(")[0].split("@")[0] in ("AP", "P", "R", "nDCG", "RR", "R-Prec", "bpref",
                                               "Judged", "num_ret", "num_rel", "num_rel_ret",
                                               "map", "P_10", "P.5,10", "ndcg_cut_10",
                                               "recip_rank", "Rprec", "recall_5")
            for m in measures):
        assert taken, "the columns path was not tried"


def test_the_columns_path_is_taken_and_gives_the_general_paths_bytes(tmp_path: Path) -> None:
    """A worked case: ties (d2/d10 at one score, ordered by id descending: d2 first), a -1
    judgement, an unjudged document, a topic without assessments (warned), a judged topic
    without results (-c), values worked out by hand."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d10 1\n1 0 d2 0\n1 0 d3 -1\n1 0 d4 2\n2 0 x 1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 d10 1 5 r\n1 Q0 d2 2 5 r\n1 Q0 d4 3 1 r\n1 Q0 u 4 0.5 r\n"
                   "9 Q0 d1 1 3 r\n")
    new, old, taken = _both(["eval", "-m", "AP", "-m", "P@2", "-m", "RR", "-m", "bpref",
                             "-q", "-c", str(qrels), str(run)])
    assert new == old
    code, out, err = new
    assert taken == [True]
    assert code == 0
    # topic 1 ranked d2 (0), d10 (1), d4 (2), u: AP = (1/2 + 2/3) / 2, P@2 = 1/2, RR = 1/2,
    # bpref: d10 has 1 non-relevant above (min(1, 2) / min(1, 2) = 1: 0), d4 also 0 -> 0
    assert "AP\t1\t0.5833\n" in out
    assert "P@2\t1\t0.5000\n" in out
    assert "RR\t1\t0.5000\n" in out
    assert "bpref\t1\t0.0000\n" in out
    assert "AP\t2\t0.0000\n" in out  # judged, no results (-c)
    assert "AP\tall\t0.2917\n" in out
    assert "1 topic(s) in the run have no assessments and are ignored: 9" in err


_LINES = "1 Q0 d10 1 5 r\n1 Q0 d2 2 5 r\n1 Q0 d4 3 1 r\n2 Q0 x 1 2.5 r\n2 Q0 d2 2 1e0 r\n"
_VARIANTS = {  # content, and whether the columns path takes it (None: not asked)
    "plain": (_LINES.encode(), True),
    "crlf": (_LINES.replace("\n", "\r\n").encode(), True),
    "tabs and blanks": (_LINES.replace(" Q0 ", "\tQ0  ").replace("\n2 ", "\n\n  2 ").encode(),
                        True),
    "no final newline": (_LINES.rstrip("\n").encode(), True),
    "bom": (b"\xef\xbb\xbf" + _LINES.encode(), True),
    "repeat": ((_LINES + "2 Q0 x 3 0 r\n").encode(), False),
    "9 columns": (_LINES.replace("5 r\n", "5 r a b c\n", 1).encode(), None),
    "7 columns": (_LINES.replace(" r\n", " r /a[1]\n").encode(), None),
    "negative rank": (_LINES.replace(" 3 1 r", " -3 1 r").encode(), False),
    "nan score": (_LINES.replace(" 2.5 r", " nan r").encode(), False),
    "inf score": (_LINES.replace(" 2.5 r", " -inf r").encode(), None),
    "signed rank": (_LINES.replace(" 3 1 r", " +3 1 r").encode(), None),
    "rank of 12 digits": (_LINES.replace(" 3 1 r", " 123456789012 1 r").encode(), None),
    "rank with a point": (_LINES.replace(" 3 1 r", " 3.0 1 r").encode(), None),
    "rank in words": (_LINES.replace(" 3 1 r", " three 1 r").encode(), None),
    "comment": (b"# a comment line\n" + _LINES.encode(), None),
    "latin-1 id": (_LINES.replace("d4", "d\xe9").encode("latin-1"), False),
    "utf-8 id": (_LINES.replace("d4", "d\xe9").encode(), False),
    "topic resumed": ((_LINES + "1 Q0 d7 9 0 r\n").encode(), True),
    "no assessed topic": (b"9 Q0 d1 1 1 r\n", False),
}


@pytest.mark.parametrize("variant", sorted(_VARIANTS))
@pytest.mark.parametrize("options", [["-q"], ["-q", "-c"], ["--jobs", "2", "-q"]])
def test_files_of_every_shape_print_what_the_general_path_prints(
        tmp_path: Path, variant: str, options: list[str]) -> None:
    """Line ends, blanks, a byte-order mark, compressed files, and the files that go the
    general way (a repeat, an element run, lines the reader refuses, ids outside ASCII): the
    same bytes, exit code and messages as the general path, the columns path taken where
    expected."""
    content, expected = _VARIANTS[variant]
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d10 1\n1 0 d2 0\n1 0 d3 -1\n1 0 d4 2\n2 0 x 1\n3 0 y 1\n")
    run = tmp_path / "run"
    run.write_bytes(content)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(content))
    for path in (run, packed):
        copy = path.with_name(f"copy-{path.name}")  # several runs: in worker processes
        copy.write_bytes(path.read_bytes())
        argv = ["eval", *options, "-m", "AP", "-m", "P@2", "-m", "nDCG@2", str(qrels),
                str(path), *([str(copy)] if "--jobs" in options else [])]
        new, old, taken = _both(argv)
        assert new == old, variant
        if "--jobs" not in options and expected is not None:  # (workers' calls not counted)
            assert taken == [expected], (variant, taken)


SUITE = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
_ASKED = [  # trec_eval's names and the registry's, one relevance level each
    ["map", "P.5,10", "ndcg_cut.10", "recip_rank", "bpref", "infAP", "gm_map", "num_q"],
    ["set_F.0.5", "iprec_at_recall..1,.5", "Rprec_mult.0.5", "utility.2,-1,0,0", "rbp.p=0.8",
     "ndcg.1=3,2=9", "11pt_avg", "yaap", "num_rel", "num_ret", "Rndcg", "gm_bpref"],
    ["AP", "AP@10", "nDCG@10", "P_10", "R@100", "SetF(beta=0.5)", "Success@5", "relative_P@5",
     "unj@10", "binG", "G"],
    ["P(rel=2)@10", "AP(rel=2)"], ["-l", "2", "map", "P.10", "ndcg"]]


@pytest.mark.parametrize("asked", _ASKED, ids=[" ".join(a[:2]) for a in _ASKED])
@pytest.mark.parametrize("fmt", ["trec", "csv", "json", "latex", "table", "trec_eval",
                                 "scores"])
def test_trec_eval_s_path_prints_what_the_general_path_prints(
        tmp_path: Path, asked: list[str], fmt: str) -> None:
    """trec_eval's reader and kernels (:mod:`inexeval.evaluation_trec_eval`) taken for every
    run, several runs (two sharing a run id), with and without -q and -c, in worker processes
    (--jobs 2), written with -o: the bytes of the general path, in every layout."""
    other = tmp_path / "other"
    other.write_text("".join(f"{t} Q0 {d} {r} {-float(s)!r} other\n" for t, _, d, r, s, _ in (
        line.split() for line in (SUITE / "results.test").read_text().splitlines())))
    twin = tmp_path / "twin"
    twin.write_bytes((SUITE / "results.test").read_bytes())
    level = asked[:2] if asked[0] == "-l" else []
    measures = [a for m in asked[len(level):] for a in ("-m", m)]
    runs = [str(SUITE / "results.test"), str(other), str(twin)]
    for options in ([], ["-q"], ["-q", "-c"], ["-q", "--jobs", "2"]):
        if options and fmt in ("latex", "table"):
            continue  # (they print the means only)
        fast, general = tmp_path / f"fast.{fmt}", tmp_path / f"general.{fmt}"
        argv = ["eval", "--format", fmt, *options, *level, *measures,
                str(SUITE / "qrels.test"), *runs]
        done, taken = _trec_eval_path([*argv, "-o", str(fast)])
        assert done[0] == 0, done
        assert taken == ([] if "--jobs" in options else [True, True, True])  # (workers' calls
        # are not counted)
        study, usable = evaluation_trec_eval.trec_eval_study, evaluation_trec.usable
        evaluation_trec_eval.trec_eval_study = lambda args, fmt: None
        evaluation_trec.usable = lambda evaluator: False
        try:
            assert _cli([*argv, "-o", str(general)])[2] == done[2].replace(str(fast),
                                                                            str(general))
        finally:
            evaluation_trec_eval.trec_eval_study, evaluation_trec.usable = study, usable
        assert fast.read_bytes() == general.read_bytes(), options
        assert len(fast.read_bytes()) > 100
        _both(argv)  # and on standard output (the three paths)


_QRELS_THE_GENERAL_WAY = {
    "ids outside ASCII": "1 0 d1 1\n1 0 dé 1\n2 0 x 1\n",
    "an id with a control byte": "1 0 d1 1\n1 0 d\x7f2 1\n2 0 x 1\n",
    "a line with three columns": "1 0 d1 1\n1 0 d2\n2 0 x 1\n",
    "an empty file": "",
    "a level that is no number": "1 0 d1 1\n1 0 d2 high\n",
}


@pytest.mark.parametrize("variant", sorted(_QRELS_THE_GENERAL_WAY))
@pytest.mark.parametrize("options", [[], ["-c", "-q"], ["--jobs", "2"], ["--format", "json"],
                                     ["-o", "{folder}/absent/out"], ["-o", "{folder}/a"]])
def test_qrels_read_while_the_run_is_send_the_study_the_general_way(
        tmp_path: Path, variant: str, options: list[str]) -> None:
    """trec_eval's path reads the qrels in a thread while the first run's first part is read:
    qrels it does not take (ids eval compares as text, lines trec_eval's reader refuses) send
    every run the general way when the first run needs them, with the general path's bytes,
    messages (its note, the coverage warning, an error naming file and line) and exit code."""
    qrels = tmp_path / "qrels"
    qrels.write_text(_QRELS_THE_GENERAL_WAY[variant], encoding="utf-8")
    runs = []
    for name in ("a", "b"):
        run = tmp_path / name
        run.write_text("1 Q0 d1 1 3 r\n1 Q0 dé 2 2 r\n1 Q0 d\x7f2 3 1 r\n2 Q0 x 1 1 r\n"
                       "9 Q0 z 1 1 r\n", encoding="utf-8")
        runs.append(str(run))
    # (-o: an output that cannot be written is told after the qrels' problems, as the general
    # path tells them)
    argv = ["eval", *[o.format(folder=tmp_path) for o in options], "-m", "AP", "-m", "P@2",
            str(qrels), *runs]
    done, taken = _trec_eval_path(argv)
    study = evaluation_trec_eval.trec_eval_study
    evaluation_trec_eval.trec_eval_study = lambda args, fmt: None
    try:
        general = _cli(argv)
    finally:
        evaluation_trec_eval.trec_eval_study = study
    assert done == general
    assert not any(taken)
    if "-o" in options:
        assert done[0] == 2 and len(done[2].splitlines()) == 1, done
    elif variant in ("ids outside ASCII", "an id with a control byte"):
        assert done[0] == 0 and "AP" in done[1], done
    else:
        assert done[0] == 2 and str(qrels) in done[2], done
