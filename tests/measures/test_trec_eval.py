"""``inexeval trec_eval`` against trec_eval 10.0: its own test suite (``make quicktest``, the
expected outputs in tests/data/trec_eval, line for line), random qrels and runs against
pytrec_eval (trec_eval 9.0's code: every value to the last bit) and, when the built trec_eval is
at hand (``TREC_EVAL``), against its printed output for every measure and option."""

from __future__ import annotations

import gzip
import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inexeval.cli import main
from inexeval.errors import FormatError, MeasureError
from inexeval.formats.trec import read_trec_eval_qrels, read_trec_eval_run
from inexeval.measures.trec_eval import choose, evaluate

SUITE = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

QUICKTEST = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test.gz", "results.comment.test.gz"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                      "results.test"]),
    ("out.test.meas_params", [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test",
        "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test",
                      "results.test"]),
]


@pytest.mark.parametrize(("expected", "argv"), QUICKTEST,
                         ids=[f"{e}:{' '.join(a)}" for e, a in QUICKTEST])
def test_trec_eval_suite(expected: str, argv: list[str],
                         capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(SUITE / a) if (SUITE / a).is_file() else a for a in argv]
    assert main(["trec_eval", *files]) == 0
    assert capsys.readouterr().out == (SUITE / expected).read_text(encoding="utf-8")


def test_the_comment_files_hold_comments() -> None:
    """The comment test is one (the doc ids hold '#', the qrels have comment lines)."""
    with gzip.open(SUITE / "results.comment.test.gz", "rt") as handle:
        assert "#" in handle.readline()
    with_comments = (SUITE / "qrels.test.with-comments").read_text().splitlines()
    assert any(line.startswith("#") for line in with_comments)
    assert len(read_trec_eval_qrels(SUITE / "qrels.test.with-comments")) == len(
        read_trec_eval_qrels(SUITE / "qrels.test"))


def test_names_as_trec_eval_prints_them() -> None:
    names = [label for c in choose(["map", "ndcg_cut.10", "P.5,10,20", "iprec_at_recall..1",
                                    "Rprec_mult.5.0", "utility.2,-1,0,0", "rbp.p=0.8"])
             for label in c.labels]
    assert names == ["map", "iprec_at_recall_0.10", "P_5", "P_10", "P_20", "Rprec_mult_5.00",
                     "utility_2,-1,0,0", "ndcg_cut_10", "rbp_p=0.8"]
    bare = [label for c in choose(["P", "success", "unj"]) for label in c.labels]
    assert bare == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)] + [
        "success_1", "success_5", "success_10", "unj_5", "unj_10", "unj_20"]


@pytest.mark.parametrize(("request_", "problem"), [
    ("AP", "illegal measure 'AP' \\(did you mean 'map'\\?\\)"), ("ndgc_cut", "'ndcg_cut'"),
    ("nonsense", "trec_eval's measures; known: runid"), ("P.", "improper measure"), ("P.0,5", "not positive"),
    ("P.5,5", "given twice"), ("ndcg.1", "malformed pair"), ("utility.1,2", "4 coefficients")])
def test_wrong_measures(request_: str, problem: str) -> None:
    with pytest.raises(MeasureError, match=problem):
        choose([request_])


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_inputs_as_trec_eval_reads_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    qrels = _write(tmp_path / "q", "# judged by hand\n1 0 a 1\n1 0 b 0\n\n1 0 c 2\n")
    run = _write(tmp_path / "r", "# a comment\n1 Q0 b 1 2.0 first extra text\n"
                 "  # indented comment\n1 Q0 a 2 1 last\n")
    assert main(["trec_eval", "-m", "map", "-m", "num_ret", "-m", "runid", str(qrels),
                 str(run)]) == 0
    # b (non-relevant) first, a (relevant) second; R = 2; the run id of the last line (trec_eval
    # 10.0 prints the same, but stops at the blank line of the qrels)
    assert capsys.readouterr().out == ("runid                 \tall\tlast\n"
                                       "num_ret               \tall\t2\n"
                                       "map                   \tall\t0.2500\n")


def test_ties_by_document_id_descending(tmp_path: Path) -> None:
    qrels = _write(tmp_path / "q", "1 0 a 1\n")
    run = _write(tmp_path / "r", "1 Q0 a 1 1.0 x\n1 Q0 b 2 1.0 x\n")
    results = evaluate(read_trec_eval_qrels(qrels), read_trec_eval_run(run), ["recip_rank"])
    assert results.measures[0].values[0, 0] == 0.5  # b before a on equal scores


def test_repeated_document_is_an_error_or_kept(tmp_path: Path) -> None:
    qrels = _write(tmp_path / "q", "1 0 a 1\n")
    run = _write(tmp_path / "r", "1 Q0 a 1 2.0 x\n1 Q0 b 2 1.5 x\n1 Q0 a 3 1.0 x\n")
    with pytest.raises(FormatError, match=r"retrieves 'a' twice \(first at line 1") as error:
        evaluate(read_trec_eval_qrels(qrels), read_trec_eval_run(run), ["P.2"])
    assert error.value.line == 3
    kept = evaluate(read_trec_eval_qrels(qrels), read_trec_eval_run(run), ["P.2"],
                    keep_repeats=True)
    assert kept.measures[0].values[0, 0] == 0.5


@pytest.mark.parametrize(("qrels", "run", "problem", "line"), [
    ("1 0 a 1 extra\n", "1 Q0 a 1 1 x\n", "5 columns: expected 4", 1),
    ("1 0 a one\n", "1 Q0 a 1 1 x\n", "relevance level 'one' is not an integer", 1),
    ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 1 x\n", "judges 'a' twice", 2),
    ("1 0 a 1\n1 0 b 1000000000000\n", "1 Q0 a 1 1 x\n", "level 1000000000000 is above 1000",
     2),
    ("1 0 a 1\n", "1 Q0 a 1 1\n", "5 columns: expected at least 6", 1),
    ("1 0 a 1\n", "1 Q0 a 1 1 x\n1 Q0 b 2 nan x\n", "score 'nan' is not a finite number", 2),
    ("1 0 a 1\n", "1 Q0 a 1 1e999 x\n", "score '1e999' is not a finite number", 1),
    ("1 0 a 1\n", "1 Q0 a 1 1 x\n1 Q0 " + "d" * 1001 + " 2 1 x\n",
     "document id longer than 1000 bytes", 2),
])
def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], qrels: str, run: str,
                   problem: str, line: int) -> None:
    q, r = _write(tmp_path / "q", qrels), _write(tmp_path / "r", run)
    assert main(["trec_eval", str(q), str(r)]) == 2
    err = capsys.readouterr().err
    assert problem in err and f":{line}:" in err and "Traceback" not in err
    assert err.count("\n") == 1


# --- random qrels and runs -------------------------------------------------------------------

@st.composite
def _collections(draw: st.DrawFn) -> tuple[list[tuple[str, str, int]],
                                           list[tuple[str, str, float]]]:
    topics = draw(st.lists(st.sampled_from(["1", "2", "10", "7a"]), min_size=1, max_size=4,
                           unique=True))
    documents = [f"d{i}" for i in range(draw(st.integers(1, 25)))]
    qrels, run = [], []
    for topic in topics:
        judged = draw(st.lists(st.sampled_from(documents), max_size=len(documents),
                               unique=True))
        levels = [draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3])) for _ in judged]
        if levels and max(levels) < 0:  # trec_eval fails (exit 4) on a topic judged only so
            levels[0] = 0
        qrels += list(zip([topic] * len(judged), judged, levels))
        retrieved = draw(st.lists(st.sampled_from(documents), max_size=len(documents),
                                  unique=True))
        scores = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 3.25])  # many ties
        run += [(topic, d, draw(scores)) for d in retrieved]
    if not qrels:
        qrels = [(topics[0], documents[0], 1)]
    return qrels, run


def _files(tmp_path: Path, qrels: list[tuple[str, str, int]],
           run: list[tuple[str, str, float]]) -> tuple[Path, Path]:
    q = _write(tmp_path / "qrels", "".join(f"{t} 0 {d} {v}\n" for t, d, v in qrels))
    r = _write(tmp_path / "run", "".join(f"{t} Q0 {d} {i} {s!r} run\n"
                                         for i, (t, d, s) in enumerate(run)) or "")
    return q, r


PYTREC = ["map", "gm_map", "Rprec", "bpref", "gm_bpref", "recip_rank", "P", "recall",
          "infAP", "Rprec_mult", "utility", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
          "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall",
          "set_map", "set_F", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]
"""Measures pytrec_eval computes with trec_eval 9.0's code unchanged in 10.0 (iprec_at_recall
and 11pt_avg round R * level differently in 10.0: they are checked against the binary)."""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=_collections(), level=st.sampled_from([1, 2]))
def test_against_pytrec_eval(tmp_path: Path, data: tuple[list[tuple[str, str, int]],
                                                         list[tuple[str, str, float]]],
                             level: int) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = data
    if not run:
        return
    q, r = _files(tmp_path, qrels, run)
    ours = evaluate(read_trec_eval_qrels(q), read_trec_eval_run(r), PYTREC,
                    relevance_level=level) if _answered(qrels, run) else None
    qrel_dict: dict[str, dict[str, int]] = {}
    for t, d, v in qrels:
        qrel_dict.setdefault(t, {})[d] = v
    run_dict: dict[str, dict[str, float]] = {}
    for t, d, s in run:
        run_dict.setdefault(t, {})[d] = s
    evaluator = pytrec_eval.RelevanceEvaluator(qrel_dict, set(PYTREC), relevance_level=level)
    theirs = evaluator.evaluate(run_dict)
    if ours is None:
        assert not theirs
        return
    assert sorted(theirs) == sorted(ours.topics)
    for m in ours.measures:
        for j, label in enumerate(m.chosen.labels):
            for t, topic in enumerate(ours.topics):
                if m.chosen.definition.per_topic:
                    expected = theirs[topic][label]
                else:  # pytrec_eval gives gm_map's log per topic
                    expected = math.exp(theirs[topic][label])
                    got = math.exp(float(m.values[t, j]))
                    assert got == expected, (label, topic)
                    continue
                assert float(m.values[t, j]) == expected, (label, topic)


def _answered(qrels: list[tuple[str, str, int]], run: list[tuple[str, str, float]]) -> bool:
    return bool({t for t, _, _ in qrels} & {t for t, _, _ in run})


# an optional reference (trec_eval's own test files, with their expected outputs, are the
# fixtures every run checks): its absence is no missing component for CI
TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")


@pytest.mark.skipif(TREC_EVAL is None, reason="optional reference absent: the trec_eval binary "
                    "(TREC_EVAL=path, or on the PATH)")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=_collections(), options=st.sampled_from(
    [[], ["-c"], ["-l2"], ["-M3"], ["-J"], ["-c", "-J"], ["-N", "50"],
     ["-c", "-mrelstring.5", "-miprec_at_recall..05,.33,.5,1", "-m11pt_avg..2,.4"],
     ["-l0", "-c", "-M1"], ["-mndcg.1=2.5,2=1", "-mG.1=3", "-mrbp.p=0.5", "-mRndcg.2=0.5",
                            "-mndcg_rel.0=1,3=0.5", "-mrbp_resid.p=0.7", "-c"],
     ["-mutility.2,-1,0.5,0.1", "-N", "30", "-c", "-mset_F.0.5", "-mRprec_mult.0.3,1.5"]]))
def test_against_trec_eval_binary(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  data: tuple[list[tuple[str, str, int]],
                                              list[tuple[str, str, float]]],
                                  options: list[str]) -> None:
    qrels, run = data
    if not run or not ({t for t, _, _ in qrels} & {t for t, _, _ in run}):
        return
    if "-c" not in options and {t for t, _, _ in qrels} - {t for t, _, _ in run}:
        return  # trec_eval 10.0 stops (exit 4) on a judged topic without results
    q, r = _files(tmp_path, qrels, run)
    argv = ["-q", "-m", "all_trec", *options, str(q), str(r)]
    expected = subprocess.run([str(TREC_EVAL), *argv], capture_output=True, text=True,
                              check=True).stdout
    capsys.readouterr()
    assert main(["trec_eval", *argv]) == 0
    assert capsys.readouterr().out == expected


def test_reader_reads_every_block_alike(tmp_path: Path) -> None:
    """The column reader gives the same columns whatever the block size."""
    from inexeval.formats import source

    whole = read_trec_eval_run(SUITE / "results.test")
    small = source.BLOCK
    try:
        source.BLOCK = 300
        blocks = read_trec_eval_run(SUITE / "results.test")
    finally:
        source.BLOCK = small
    assert np.array_equal(whole.topics, blocks.topics)
    assert np.array_equal(whole.documents, blocks.documents)
    assert np.array_equal(whole.values, blocks.values)
    assert np.array_equal(whole.lines, blocks.lines)
    assert whole.run_id == blocks.run_id == "STANDARD"


def test_eval_reads_the_dotted_syntax() -> None:
    """``inexeval eval -m P.5,10 -m ndcg_cut.10`` as trec_eval's -m reads them."""
    from inexeval.measures.registry import parse_measures

    assert [str(m) for m in parse_measures(["P.5,10,20", "ndcg_cut.10", "recall.100", "map"])
            ] == ["P@5", "P@10", "P@20", "nDCG@10", "R@100", "AP"]
    with pytest.raises(MeasureError):
        parse_measures(["bpref.5"])  # bpref takes no cut-off


def test_several_runs_in_turn(capsys: pytest.CaptureFixture[str]) -> None:
    """Several runs are printed in turn, as many trec_eval calls would print them, each
    block opening with its runid line (printed once, also with -m runid)."""
    for argv, expected in (([], "out.test"), (["-q", "-m", "all_trec"], "out.test.aq")):
        one = (SUITE / expected).read_text(encoding="utf-8")
        runid = next(line for line in one.splitlines(keepends=True)
                     if line.startswith("runid"))
        block = runid + one.replace(runid, "")
        assert main(["trec_eval", *argv, str(SUITE / "qrels.test"),
                     str(SUITE / "results.test"), str(SUITE / "results.test")]) == 0
        assert capsys.readouterr().out == block + block
    assert main(["trec_eval", "-m", "map", str(SUITE / "qrels.test"),
                 str(SUITE / "results.test"), str(SUITE / "results.test")]) == 0
    block = "runid                 \tall\tSTANDARD\nmap                   \tall\t0.1785\n"
    assert capsys.readouterr().out == block + block


_FIELD = st.text(alphabet="abcXYZ019-_.#:/", min_size=1, max_size=12).filter(
    lambda text: not text.startswith("#"))
_SCORE = st.one_of(st.integers(-10**6, 10**6).map(str),
                   st.floats(-1e6, 1e6, allow_nan=False).map(repr),
                   st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: f"{v:.4e}"),
                   st.floats(0, 10, allow_nan=False).map(lambda v: f"{v:.2f}"))
_BLANK = st.sampled_from([" ", "  ", "\t", " \t "])


@st.composite
def _run_text(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 40))):
        kind = draw(st.sampled_from(["result", "result", "result", "comment", "blank"]))
        if kind == "comment":
            lines.append(draw(st.sampled_from(["", "  "])) + "#" + draw(_FIELD))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
        else:
            fields = [draw(st.sampled_from(["1", "2", "301", "7a"])), "Q0", draw(_FIELD),
                      str(draw(st.integers(0, 999))), draw(_SCORE), draw(_FIELD)]
            fields += draw(st.lists(_FIELD, max_size=2))  # text after the run id
            line = draw(st.sampled_from(["", " "]))
            for field in fields:
                line += field + draw(_BLANK)
            lines.append(line.rstrip(" \t") + draw(st.sampled_from(["", " "])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_run_text())
def test_column_reader_against_a_line_reader(tmp_path: Path, text: str) -> None:
    """The columns are the fields a line-by-line reading of the file gives (comment and blank
    lines skipped, extra fields ignored), at block sizes of 300 bytes and 4 MB."""
    from inexeval.formats import source

    rows = [(number, line.split()) for number, line in enumerate(text.split("\n"), 1)
            if line.split() and not line.split()[0].startswith("#")]
    path = _write(tmp_path / "run", text)
    default = source.BLOCK
    for size in (300, 4 << 20):
        source.BLOCK = size
        try:
            if not rows:
                with pytest.raises(FormatError, match="no result line"):
                    read_trec_eval_run(path)
                continue
            columns = read_trec_eval_run(path)
        finally:
            source.BLOCK = default
        assert columns.topics.tolist() == [f[0].encode() for _, f in rows]
        assert columns.documents.tolist() == [f[2].encode() for _, f in rows]
        assert columns.values.tolist() == [float(f[4]) for _, f in rows]
        assert columns.lines.tolist() == [n for n, _ in rows]
        assert columns.run_id == rows[-1][1][5]


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.text(alphabet="ab#0Z", min_size=1, max_size=19), min_size=1,
                       max_size=30),
       repeats=st.lists(st.integers(1, 30), min_size=30, max_size=30))
def test_interned_is_strcmp_order(values: list[str], repeats: list[int]) -> None:
    """Interning gives np.unique's strings and codes (C's strcmp order: a prefix first), for
    ids of more than one 8-byte word and for columns of long runs (interned run by run)."""
    from inexeval.formats.trec import interned

    column = np.array([v.encode() for v, k in zip(values, repeats) for _ in range(k)])
    distinct, codes = interned(column)
    expected, inverse = np.unique(column, return_inverse=True)
    assert distinct.tolist() == expected.tolist()
    assert codes.tolist() == inverse.ravel().tolist()


def test_one_long_list_does_not_widen_every_row(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A topic of 30,000 results among short lists: the topics are made matrices in groups of
    like lengths, with the values of one matrix for all (and the binary's, when at hand)."""
    from inexeval.measures import trec_eval

    rng = np.random.default_rng(5)
    qrels = _write(tmp_path / "q", "".join(
        f"{t} 0 d{j} {rng.choice([-1, 0, 1, 2])}\n"
        for t in range(60) for j in rng.choice(3000, 50, replace=False)))
    run = _write(tmp_path / "r", "".join(
        f"{t} Q0 d{j} 1 {rng.integers(0, 50) / 10} r\n" for t in range(58)
        for j in rng.choice(40000, 30000 if t == 3 else int(rng.integers(1, 40)),
                            replace=False)))
    q, r = read_trec_eval_qrels(qrels), read_trec_eval_run(run)
    measures = ["all_trec", "relstring.5"]
    assert len(trec_eval.lists(q, r, complete=True, flat=True).groups()) > 1
    grouped = evaluate(q, r, measures, complete=True).render(per_topic=True)
    monkeypatch.setattr(trec_eval._Ranked, "groups", lambda self: [self.chosen])
    assert evaluate(q, r, measures, complete=True).render(per_topic=True) == grouped
    if TREC_EVAL is not None:
        assert subprocess.run([str(TREC_EVAL), "-q", "-c", "-m", "all_trec", "-m", "relstring.5",
                               str(qrels), str(run)], capture_output=True, text=True,
                              check=True).stdout == grouped
