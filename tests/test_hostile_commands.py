"""Hostile inputs across every line format and every command (issue 13, second pass): the classes
that ``scripts/audit_inputs.py`` found open after the first pass, each with generated variants run
through the real command line (in process, as in tests/test_hostile.py): bad numbers and awkward
but real files in every line format (the TREC Genomics gold standard, navigation files, pool
files and element runs included), empty inputs, outputs that are folders, options a command would
silently ignore, files that are no assessment store, element runs converted to passages, and the
Python API's checks."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inexeval import demo
from tests.test_hostile import (
    DOC_QRELS,
    DOC_RUN_LINES,
    EXAMPLES,
    QRELS,
    RUN_LINES,
    cli,
    refused,
    write,
)

COLLECTION = str(demo.COLLECTION)
A2004 = str(demo.ASSESSMENTS_2004)
XML_RUN = str(demo.RUNS[0])

GOLD_LINES = [f"20{t}\t{1000 + d}\t{10 * d}\t{5 + d}\tASPECT {d}|B" for t in (0, 1)
              for d in range(3)]
GOLD_RUN = "".join(f"20{t} Q0 {1000 + d} {d + 1} {1 - d / 10} g {10 * d} 5\n" for t in (0, 1)
                   for d in range(3))
ELEMENT_RUN_LINES = [f"91 Q0 co/2000/r7005 {k} {10 - k} r /article[1]/bdy[1]/sec[{k}]"
                     for k in range(1, 4)]
NAVIGATION_LINES = [("co/2000/r7005 /article[1]/bdy[1]/sec[4]/ss1[1]/p[2] co/2000/r7005 "
                     "/article[1]/bdy[1]/sec[4] 0.5"),
                    "co/2000/r7004 /article[1]/bdy[1]/sec[4]/p[2] co/2000/r7004 - 0.25",
                    "tc/2000/r7105 /article[1]/bdy[1]/sec[1]/p[1] tc/2000/r7105 /article[1] 1"]
POOL_LINES = [f"91\tco/2000/r700{d}\t/article[1]\t{d + 1}\t1" for d in range(3)]


def _format(tmp_path: Path, name: str) -> tuple[list[str], Callable[[Path], list[str | Path]],
                                                dict[int, str], str]:
    """Clean lines of a line format, the command reading a file of it, its numeric columns
    (column -> what) and its field separator."""
    if name == "fol run":
        qrels = write(tmp_path, "q.txt", QRELS)
        return RUN_LINES, lambda f: ["eval", qrels, f, "--task", "focused"], {
            3: "rank", 6: "offset", 7: "length"}, " "
    if name == "fol qrels":
        run = write(tmp_path, "r.run", "\n".join(RUN_LINES) + "\n")
        return QRELS.splitlines(), lambda f: ["eval", f, run, "--task", "focused"], {
            3: "rsize", 4: "length", 5: "bep"}, " "
    if name == "trec run":
        qrels = write(tmp_path, "qrels", DOC_QRELS)
        return DOC_RUN_LINES, lambda f: ["eval", qrels, f, "-m", "P@10"], {3: "rank"}, " "
    if name == "trec qrels":
        run = write(tmp_path, "run.txt", "\n".join(DOC_RUN_LINES) + "\n")
        return DOC_QRELS.splitlines(), lambda f: ["eval", f, run, "-m", "P@10"], {
            3: "relevance"}, " "
    if name == "sampled qrels":
        run = write(tmp_path, "run.txt", "\n".join(DOC_RUN_LINES) + "\n")
        lines = ["1 0 d1 s1 1", "1 0 d2 s2 -1", "2 0 d1 s1 2"]
        return lines, lambda f: ["eval", f, run, "-m", "xinfAP"], {4: "rel"}, " "
    if name == "element run":
        return ELEMENT_RUN_LINES, lambda f: ["eval", A2004, f, "-m", "P@10"], {3: "rank"}, " "
    if name == "genomics":
        run = write(tmp_path, "g.fol", GOLD_RUN)
        return GOLD_LINES, lambda f: ["eval", f, run, "-m", "passage2_AP"], {
            2: "offset", 3: "length"}, "\t"
    if name == "navigation":
        return NAVIGATION_LINES, lambda f: ["eval", A2004, XML_RUN, "-m", "EPRUM(nav=custom)",
                                            "--navigation", f, "--collection", COLLECTION], {
            4: "probability"}, " "
    assert name == "pool"
    return POOL_LINES, lambda f: ["pool", "--stats", f], {3: "min_rank", 4: "runs"}, "\t"


LINE_FORMATS = ["fol run", "fol qrels", "trec run", "trec qrels", "element run", "genomics",
                "navigation", "pool", "sampled qrels"]
BAD_NUMBERS = st.one_of(
    st.sampled_from(["\u0662", "\uff12", "\u00b2", "1_0", "1e3", "0x10", "", "+-1", "NaN"]),
    st.integers(10**15, 10**40).map(str),
    st.integers(81, 3000).map(lambda n: "7" * n),
    st.text(alphabet="abc\u00e9\u4e00", min_size=1, max_size=300))


@EXAMPLES
@given(name=st.sampled_from(LINE_FORMATS), row=st.integers(0, 2), pick=st.integers(0, 2),
       value=BAD_NUMBERS)
def test_bad_numbers_in_every_line_format(tmp_path: Path, name: str, row: int, pick: int,
                                          value: str) -> None:
    lines, command, columns, separator = _format(tmp_path, name)
    column = sorted(columns)[pick % len(columns)]
    fields = lines[row].split(separator)
    if name == "fol qrels" and column == 5:  # a qrels line without passages has no bep
        fields = fields[:5] + [value]
    else:
        fields[column] = value
    if value == "" and separator == " ":
        fields[column] = "\u00a0"  # an empty field is a missing column: a no-break space
    bad = lines[:row] + [separator.join(fields)] + lines[row + 1:]
    path = write(tmp_path, "bad.txt", "\n".join(bad) + "\n")
    refused(command(path), path, row + 1)


def _decorated(data: bytes, bom: bool, ends: str, blanks: list[int], trailing: str,
               packing: str) -> bytes:
    lines = data.decode("latin-1").splitlines()
    lines = [line + trailing for line in lines]
    for at in sorted(blanks, reverse=True):
        lines.insert(min(at, len(lines)), trailing)
    text = ends.join(lines) + ends
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode("latin-1")
    compress = {"": bytes, "gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}
    return compress[packing](raw)


@EXAMPLES
@given(name=st.sampled_from(LINE_FORMATS), bom=st.booleans(),
       ends=st.sampled_from(["\n", "\r\n", "\r"]), blanks=st.lists(st.integers(0, 6), max_size=3),
       trailing=st.sampled_from(["", " ", "\t", " \t "]),
       packing=st.sampled_from(["", "gzip", "bzip2", "xz"]), stdin=st.booleans())
def test_real_files_give_the_same_output_in_every_line_format(
        tmp_path: Path, name: str, bom: bool, ends: str, blanks: list[int], trailing: str,
        packing: str, stdin: bool) -> None:
    lines, command, _, _ = _format(tmp_path, name)
    if name == "genomics":  # Latin-1, as the real gold standard
        lines = [line.replace("ASPECT", "CAF\u00c9") for line in lines]
    clean = write(tmp_path, "clean.txt", ("\n".join(lines) + "\n").encode("latin-1"))
    expected = cli(*command(clean))
    assert expected[0] == 0, expected
    data = _decorated(clean.read_bytes(), bom, ends, blanks, trailing, packing)
    messy = write(tmp_path, "messy.txt", data)
    if not stdin:
        assert cli(*command(messy))[:2] == expected[:2]
        return
    piped = io.TextIOWrapper(io.BytesIO(data))
    with mock.patch.object(sys, "stdin", piped):
        argv = ["-" if a == messy else a for a in command(messy)]
        assert cli(*argv)[:2] == expected[:2]


# --- Empty inputs are errors, never an empty answer -----------------------------------------------

def _empty_inputs(tmp_path: Path) -> dict[str, tuple[list[str | Path], Path]]:
    empty = write(tmp_path, "empty.txt", "")
    blank = write(tmp_path, "blank.txt", "\n  \n# only a comment\n")
    topics = tmp_path / "topics"
    topics.mkdir()
    write(topics, "notes.txt", "not a topic file")
    store = str(tmp_path / "new.db")
    return {
        "navigation": (["eval", A2004, XML_RUN, "-m", "EPRUM(nav=custom)", "--navigation",
                        empty, "--collection", COLLECTION], empty),
        "navigation, comments only": (["eval", A2004, XML_RUN, "-m", "EPRUM(nav=custom)",
                                       "--navigation", blank, "--collection", COLLECTION], blank),
        "pool statistics": (["pool", "--stats", empty], empty),
        "pool of a campaign": (["assess", "init", store, "--collection", COLLECTION, "--topics",
                                str(demo.TOPICS), "--pool", empty], empty),
        "topic folder for eval": (["eval", A2004, XML_RUN, "-m", "P@10", "--topic-file", topics],
                                  topics),
        "topic folder for pool": ([
            "pool", XML_RUN, "--depth", "5", "--topic-file", topics], topics),
        "run": (["eval", A2004, empty, "-m", "P@10"], empty),
        "qrels": (["eval", empty, XML_RUN, "-m", "P@10"], empty),
        "genomics": (["eval", blank, XML_RUN, "-m", "P@10"], blank),
    }


@pytest.mark.parametrize("case", ["navigation", "navigation, comments only", "pool statistics",
                                  "pool of a campaign", "topic folder for eval",
                                  "topic folder for pool", "run", "qrels", "genomics"])
def test_empty_inputs_are_errors(tmp_path: Path, case: str) -> None:
    argv, named = _empty_inputs(tmp_path)[case]
    refused(argv, named)
    assert not (tmp_path / "new.db").exists()


@pytest.mark.parametrize("content", [b"", b"not a database\n", b"SQLite format 2\x00" + bytes(90),
                                     gzip.compress(b"SQLite format 3\x00", mtime=0)])
@pytest.mark.parametrize("action", ["export", "stats"])
def test_a_file_that_is_no_store_is_left_as_it_was(tmp_path: Path, content: bytes,
                                                   action: str) -> None:
    store = write(tmp_path, "campaign.db", content)
    argv: list[str | Path] = ["assess", action, store]
    if action == "export":
        argv += ["-o", tmp_path / "out.fol"]
    mask = os.umask(0o022)
    try:
        message = refused(argv, store)
        # the command gives the process's mask back (export left it at 0177: Chromium, started
        # later by the same test process, could not make its folders and crashed)
        assert os.umask(0o022) == 0o022
    finally:
        os.umask(mask)
    assert "not an inexeval assessment store" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.db"]


# --- Outputs ------------------------------------------------------------------------------------

FILE_OUTPUTS: dict[str, list[str]] = {
    "convert": ["convert", "run", XML_RUN, "--collection", COLLECTION, "-o"],
    "index": ["index", COLLECTION, "-o"],
    "simulate": ["simulate", "ideal", A2004, "--collection", COLLECTION, "-o"],
    "pool": ["pool", XML_RUN, "--depth", "3", "-o"],
    "compare": ["compare", A2004, *map(str, demo.RUNS[:2]), "-m", "P@10", "-o"],
    "agree": ["agree", A2004, *map(str, demo.RUNS), "-m", "P@5", "-m", "P@10", "-o"],
    "report": ["report", A2004, *map(str, demo.RUNS[:2]), "-m", "P@10", "-o"],
}


@pytest.mark.parametrize("command", sorted(FILE_OUTPUTS))
def test_a_file_output_that_is_a_folder_is_refused_first(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    message = refused([*FILE_OUTPUTS[command], folder], folder)
    assert "a folder, not a file" in message
    assert list(folder.iterdir()) == []


# --- Options a command would silently ignore ----------------------------------------------------

def _conflicts(tmp_path: Path) -> dict[str, tuple[list[str | Path], str]]:
    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "r.run", "\n".join(RUN_LINES) + "\n")
    other = write(tmp_path, "o.run", "\n".join(RUN_LINES[::-1]).replace(" r ", " o ") + "\n")
    doc_qrels = write(tmp_path, "qrels", DOC_QRELS)
    doc_run = write(tmp_path, "run.txt", "\n".join(DOC_RUN_LINES) + "\n")
    link = tmp_path / "link.run"
    link.symlink_to(run)
    topics = str(demo.TOPICS)
    out, png, html = (tmp_path / name for name in ("out", "out.png", "out.html"))
    return {
        "compare --digits": (["compare", qrels, run, other, "--task", "focused", "--digits",
                              "18"], "--digits"),
        "agree --digits": (["agree", qrels, run, other, "-m", "MAiP", "-m", "iP[0.01]",
                            "--digits", "40"], "--digits"),
        "report --digits": (["report", qrels, run, other, "--task", "focused", "-o",
                             html, "--digits", "99"], "--digits"),
        "pool --topics": (["pool", run, "--depth", "3", "--topics", " , "], "--topics"),
        "plot --topics": (["plot", qrels, run, other, "--task", "focused", "-o", png,
                           "--topics", ""], "--topics"),
        "eval --topics unassessed": (["eval", qrels, run, "--task", "focused", "--topics",
                                      "7,8"], "--topics names no assessed topic"),
        "plot twice": (["plot", qrels, run, link, "--task", "focused", "-o", png], "twice"),
        "pool twice": (["pool", run, run, "--depth", "3"], "twice"),
        "report twice": (["report", qrels, run, link, "--task", "focused", "-o", html],
                         "twice"),
        "agree --judgements -m": (["agree", "--judgements", qrels, qrels, "-m", "MAiP"],
                                  "--measure"),
        "agree --judgements --topics": (["agree", "--judgements", qrels, qrels, "--topics",
                                         "1"], "--topics"),
        "simulate ideal --move": (["simulate", "ideal", A2004, "--collection", COLLECTION, "-o",
                                   out, "--move", "0.5"], "--move"),
        "simulate grades --quant": (["simulate", "grades", str(demo.ASSESSMENTS_2005), "-o",
                                     out, "--quant", "strict"], "--quant"),
        "topic file with FOL qrels": (["eval", qrels, run, "-m", "MAiP", "--topic-file",
                                       topics], "--topic-file"),
        "topic file with TREC qrels": (["eval", doc_qrels, doc_run, "-m", "P@10",
                                        "--topic-file", topics], "--topic-file"),
        "topic file in compare": (["compare", qrels, run, other, "--task", "focused",
                                   "--topic-file", topics], "--topic-file"),
        "beta with focused": (["eval", qrels, run, "--task", "focused", "--beta", "2"],
                              "--beta"),
        "exact buckets without a task": (["eval", qrels, run, "-m", "MAiP",
                                          "--exact-buckets"], "--exact-buckets"),
        "irr in compare": (["compare", qrels, run, other, "--task", "focused", "--irr", "5"],
                           "--irr"),
    }


@pytest.mark.parametrize("case", [
    "compare --digits", "agree --digits", "report --digits", "pool --topics", "plot --topics",
    "eval --topics unassessed", "plot twice", "pool twice", "report twice",
    "agree --judgements -m", "agree --judgements --topics", "simulate ideal --move",
    "simulate grades --quant", "topic file with FOL qrels", "topic file with TREC qrels",
    "topic file in compare", "beta with focused", "exact buckets without a task",
    "irr in compare"])
def test_options_a_command_would_ignore_are_errors(tmp_path: Path, case: str) -> None:
    argv, words = _conflicts(tmp_path)[case]
    inputs = [a for a in argv if isinstance(a, Path) and a.is_file()]
    before = {p: p.read_bytes() for p in inputs}
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("inexeval: error: ") and words in err, err
    assert {p: p.read_bytes() for p in inputs} == before
    assert not list(tmp_path.glob("out*"))


def test_the_topic_file_still_serves_xml_assessments(tmp_path: Path) -> None:
    code, _, err = cli("eval", A2004, XML_RUN, "-m", "P@10", "--topic-file", str(demo.TOPICS))
    assert code == 0 and err.startswith("inexeval: ") and "topics; means each run" in err
    assert len(err.splitlines()) == 1


# --- convert run: an element without text has no passage -----------------------------------------

@EXAMPLES
@given(texts=st.lists(st.sampled_from(["", "some words", " "]), min_size=2, max_size=6))
def test_convert_leaves_out_elements_without_text(tmp_path: Path, texts: list[str]) -> None:
    folder = tmp_path / "collection"
    folder.mkdir(exist_ok=True)
    body = "".join(f"<p>{text}</p>" for text in texts)
    (folder / "a.xml").write_text(f"<article><bdy>{body}</bdy></article>")
    run = write(tmp_path, "run.txt", "".join(
        f"1 Q0 a {k + 1} {10 - k} r /article[1]/bdy[1]/p[{k + 1}]\n" for k in range(len(texts))))
    out = tmp_path / "run.fol"
    out.unlink(missing_ok=True)
    code, _, err = cli("convert", "run", run, "--collection", folder, "-o", out)
    empty = [k for k, text in enumerate(texts) if not text]
    assert code == 0, err
    kept = [line.split() for line in out.read_text().splitlines()]
    assert [int(fields[3]) for fields in kept] == [k + 1 for k in range(len(texts))
                                                    if k not in empty]
    assert all(int(fields[7]) >= 1 for fields in kept)
    if empty:
        assert (f"{run}:{empty[0] + 1}: {len(empty)} result(s) without text left out" in err)
    else:
        assert err == ""
    if kept:  # what convert writes, the FOL reader reads
        qrels = write(tmp_path, "q.txt", "1 Q0 a 5 100 0 0:5\n")
        assert cli("eval", qrels, out, "--task", "focused")[0] == 0


# --- The Python API -----------------------------------------------------------------------------

def test_the_api_checks_every_argument(tmp_path: Path) -> None:
    import inexeval
    from inexeval.errors import InexevalError

    qrels_path = write(tmp_path, "q.txt", QRELS)
    run_path = write(tmp_path, "r.run", "\n".join(RUN_LINES) + "\n")
    qrels, run = inexeval.load_assessments(qrels_path), inexeval.load_run(run_path)
    for measures_first in (inexeval.calc_aggregate("MAiP", qrels, run),
                           inexeval.calc_aggregate("MAiP", str(qrels_path), str(run_path)),
                           inexeval.calc_aggregate(qrels, run, "MAiP")):
        assert [str(m) for m in measures_first] == ["MAiP"]
    missing = str(tmp_path / "absent")
    for call in (lambda: inexeval.evaluate(qrels, run, "MAiP", collection=missing),
                 lambda: inexeval.evaluate(missing, run_path, "MAiP"),
                 lambda: inexeval.calc_aggregate(["MAiP"], missing, run_path),
                 lambda: inexeval.compare(qrels_path, [run_path, missing], "MAiP")):
        with pytest.raises(InexevalError, match="absent"):
            call()
    wrong_types = {"num_docs": "10", "limit": 1.5, "complete": "yes", "keep_repeats": 1,
                   "collection": 3, "topics": [1]}
    for name, value in wrong_types.items():
        with pytest.raises(TypeError):
            inexeval.evaluate(qrels, run, "MAiP", **{name: value})
    for name, value in {"num_docs": -3, "limit": -1, "order": "nope"}.items():
        with pytest.raises(InexevalError, match=name if name != "order" else "nope"):
            inexeval.evaluate(qrels, run, "MAiP", **{name: value})
    with pytest.raises(InexevalError, match="no measure"):
        inexeval.evaluate(qrels, run, [])
    for call in (lambda: inexeval.evaluate(qrels, 3.5, "MAiP"),
                 lambda: inexeval.evaluate(None, run, "MAiP"),
                 lambda: inexeval.compare(qrels_path, str(run_path), "MAiP"),
                 lambda: inexeval.evaluate({"1": ["d1"]}, run, "P@1")):
        with pytest.raises(TypeError):
            call()
    one = inexeval.evaluate(qrels, run, "MAiP", topics="1")
    assert {row.topic for row in one.rows} == {"1"}


@pytest.mark.parametrize(("qrels", "run", "words"), [
    ({"1": {"d": "x"}}, {"1": {"d": 1.0}}, "relevance 'x'"),
    ({"1": {"d": 10**30}}, {"1": {"d": 1.0}}, "relevance '1000000000000000000000000000000' is too"),
    ({"1": {"d": 1.5}}, {"1": {"d": 1.0}}, "relevance '1.5'"),
    ({"1": {"d": 1}}, {"1": {"d": "high"}}, "score 'high'"),
    ({"1": {"d": 1}}, {"1": {"d": float("nan")}}, "score 'nan'"),
])
def test_api_values_of_dicts_are_checked(qrels: object, run: object, words: str) -> None:
    import inexeval
    from inexeval.errors import InexevalError

    with pytest.raises(InexevalError, match=f"query '1', document 'd': {words}"):
        inexeval.evaluate(qrels, run, "P@1")


@pytest.mark.parametrize("kind", ["fol", "trec", "inex2003"])
def test_default_measures_are_announced_with_results_not_with_an_error(tmp_path: Path,
                                                                       kind: str) -> None:
    if kind == "fol":
        qrels: str | Path = write(tmp_path, "q.txt", QRELS)
        good = write(tmp_path, "good.run", "\n".join(RUN_LINES) + "\n")
    elif kind == "trec":
        qrels = write(tmp_path, "qrels", DOC_QRELS)
        good = write(tmp_path, "good.run", "\n".join(DOC_RUN_LINES) + "\n")
    else:
        qrels, good = A2004, Path(XML_RUN)
    bad = write(tmp_path, "bad.run", "1 Q0 d1\n")
    refused(["eval", qrels, bad], bad, 1)
    code, out, err = cli("eval", qrels, bad, good)
    lines = err.splitlines()
    assert code == 2 and out
    assert lines[0].startswith(f"inexeval: error: {bad}:1: ")
    assert lines[1].startswith("inexeval: measures for ")


PATH_COLUMNS = {"element run": 6, "navigation": 1, "pool": 2}


@EXAMPLES
@given(name=st.sampled_from(sorted(PATH_COLUMNS)), row=st.integers(0, 2),
       path=st.one_of(st.text(alphabet="ab/[]\u0662", min_size=81, max_size=3000),
                      st.integers(16, 6000).map(lambda n: f"/article[{'9' * n}]"),
                      st.sampled_from(["/article[0]", "article[1]", "//p", "/a[\u0662]"])))
def test_bad_element_paths_are_quoted_short(tmp_path: Path, name: str, row: int,
                                           path: str) -> None:
    lines, command, _, separator = _format(tmp_path, name)
    fields = lines[row].split(separator)
    fields[PATH_COLUMNS[name]] = path
    bad = lines[:row] + [separator.join(fields)] + lines[row + 1:]
    file = write(tmp_path, "bad.txt", "\n".join(bad) + "\n")
    # the quoted path is cut: what is left beyond the file's own name is short
    assert len(refused(command(file), file, row + 1)) - len(str(file)) < 250


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    folder = tmp_path_factory.mktemp("campaign")
    pool = folder / "pool.tsv"
    assert cli("pool", *map(str, demo.RUNS), "--depth", "3", "-o", pool)[0] == 0
    store = folder / "store.db"
    assert cli("assess", "init", store, "--collection", COLLECTION, "--topics",
               str(demo.TOPICS), "--pool", pool)[0] == 0
    return store.read_bytes()


@pytest.mark.parametrize("table", ["users", "topics", "judgements", "schema_version"])
@pytest.mark.parametrize("action", ["export", "stats"])
def test_a_damaged_store_is_one_error(tmp_path: Path, campaign: bytes, table: str,
                                      action: str) -> None:
    """A store damaged after its header (here a byte of a table's schema that is not UTF-8,
    as a random bit flip makes it) is one error line, not a traceback."""
    at = campaign.index(f"CREATE TABLE {table}".encode()) + 3
    store = write(tmp_path, "store.db", campaign[:at] + b"\xff" + campaign[at + 1:])
    argv: list[str | Path] = ["assess", action, store]
    if action == "export":
        argv += ["-o", tmp_path / "out.json", "--format", "json"]
    message = refused(argv, store)
    assert "the store is damaged" in message


def _seeded_commands() -> list[list[str]]:
    """Every command and subcommand of the command line that takes ``--seed``."""
    import argparse

    from inexeval.cli import parser

    found: list[list[str]] = []

    def walk(command: argparse.ArgumentParser, words: list[str]) -> None:
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*words, name])
            elif "--seed" in action.option_strings:
                found.append(words)

    walk(parser(), [])
    return found


def test_every_seed_is_a_whole_number_numpy_takes() -> None:
    # a negative seed was numpy's traceback (SeedSequence takes none) in meta pool, meta
    # pooling, compare, pool --strategy and simulate
    commands = _seeded_commands()
    assert {"compare", "simulate"} <= {c[0] for c in commands} and ["meta", "pool"] in commands
    for command in commands:
        for seed, problem in (("-1", "is negative"), ("2" * 30, "too large")):
            code, out, err = cli(*command, "--seed", seed)
            assert code == 2 and not out, (command, err)
            assert err.count("\n") == 1 and "--seed" in err and problem in err, (command, err)
