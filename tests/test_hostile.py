"""Hostile, malformed and huge inputs (issue 13): each class of defect gets generated variants run
through the real command line (``inexeval.cli.main``, in process so that hypothesis can afford
many examples), which must answer with exit code 2, exactly one line on stderr naming the file
(and the line for line formats), and leave every input byte-identical."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inexeval.cli import main

QRELS = "".join(f"{t} Q0 A{d} 10 100 0 {5 * d}:10\n" for t in (1, 2) for d in range(3))
RUN_LINES = [f"{t} Q0 A{d} {d + 1} {1 - d / 10} r {5 * d} 10" for t in (1, 2) for d in range(3)]
DOC_QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n"
DOC_RUN_LINES = [f"{t} Q0 d{d} {d} {1 / d} r" for t in (1, 2) for d in (1, 2)]

EXAMPLES = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def cli(*argv: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def refused(argv: list[str | Path], file: Path | str, line: int | None = None,
            inputs: list[Path] | None = None) -> str:
    """Run the command; assert exit 2, one short stderr line naming ``file`` (and ``line``),
    nothing on stdout and the inputs untouched. Returns the message."""
    files = [Path(a) for a in argv if isinstance(a, Path)] + (inputs or [])
    before = {p: p.read_bytes() for p in files if p.is_file()}
    code, out, err = cli(*argv)
    lines = err.splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1, err
    assert lines[0].startswith("inexeval: error: "), err
    where = f"{file}:{line}: " if line is not None else f"{file}:"
    assert where in lines[0], (where, lines[0])
    assert len(lines[0]) < 400 and out == ""
    assert {p: p.read_bytes() for p in before} == before
    return lines[0]


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


@pytest.fixture()
def fol(tmp_path: Path) -> tuple[Path, Path]:
    return write(tmp_path, "q.txt", QRELS), write(tmp_path, "r.run", "\n".join(RUN_LINES) + "\n")


# --- FOL runs: values that were accepted although wrong, or crashed -----------------------------

BAD_RUN_FIELDS = {
    3: ["-1", "abc", "1.5", "\u0662", "\uff12", "9" * 30, "+", "1e2"],
    6: ["-5", "x", "1e3", "9" * 30, "--1", "5_0"],
    7: ["0", "-3", "abc", "9" * 30, "1.0"],
}


@EXAMPLES
@given(row=st.integers(0, len(RUN_LINES) - 1),
       column=st.sampled_from(sorted(BAD_RUN_FIELDS)), choice=st.integers(0, 7),
       blanks=st.integers(0, 3))
def test_bad_fol_run_values(tmp_path: Path, row: int, column: int, choice: int,
                            blanks: int) -> None:
    values = BAD_RUN_FIELDS[column]
    value = values[choice % len(values)]
    lines = [line.split() for line in RUN_LINES]
    lines[row][column] = value
    text = "\n" * blanks + "\n".join(" ".join(f for f in fields) for fields in lines) + "\n"
    run = write(tmp_path, "bad.run", text)
    qrels = write(tmp_path, "q.txt", QRELS)
    message = refused(["eval", qrels, run, "--task", "focused"], run, row + 1 + blanks)
    assert len(value) > 80 or repr(value)[1:-1] in message


@EXAMPLES
@given(row=st.integers(1, len(RUN_LINES) - 1),
       change=st.sampled_from(["extra column", "missing column", "indented", "empty topic"]))
def test_bad_fol_run_shapes(tmp_path: Path, row: int, change: str) -> None:
    # (the first line decides the format: another shape there is another format's error)
    lines = list(RUN_LINES)
    lines[row] = {"extra column": lines[row] + " 7", "missing column": lines[row].rsplit(" ", 1)[0],
                  "indented": " " + lines[row], "empty topic": "\t" + lines[row].split(" ", 1)[1]
                  }[change]
    run = write(tmp_path, "bad.run", "\n".join(lines) + "\n")
    refused(["eval", write(tmp_path, "q.txt", QRELS), run, "--task", "focused"], run, row + 1)


@pytest.mark.parametrize("score", ["nan", "inf", "-inf", "NaN", "abc"])
def test_a_score_that_is_no_finite_number_is_refused_in_fol_runs(fol: tuple[Path, Path],
                                                                  score: str) -> None:
    qrels, run = fol
    lines = run.read_text().splitlines()
    lines[4] = lines[4].replace(" 0.9 ", f" {score} ")
    run.write_text("\n".join(lines) + "\n")
    code, out, err = cli("eval", qrels, run, "--task", "focused")
    assert code == 2 and out == ""
    assert err == f"inexeval: error: {run}:5: '{score}' is not a finite number (a score)\n"


# --- FOL qrels ----------------------------------------------------------------------------------

BAD_QRELS = [
    ("1 Q0 A0 10 -100 0 5:10", "negative"),
    ("1 Q0 A0 10 100 0 95:10", "past the article's end"),
    ("1 Q0 A0 10 100 0 5:10 5:10", "twice"),
    ("1 Q0 A0 21 100 0 50:10 70:11", "again with other values"),
    ("1 Q0 A0 10 1000000000000000000000000000000 0 5:10", "too large"),
    ("1 Q0 A0 10 100 0 50:6 52:4", "overlap"),
    ("1 Q0 A0 10 100 0 50:6", "is not the sum of the line's passage lengths (6)"),
    ("1 Q0 A0 10 100 0 50:10:1", "is not offset:length"),
    ("1 Q0 A0 \uff12 100", "not an integer"),
    (" 1 Q0 A0 20 100", "blank space"),
]


@EXAMPLES
@given(row=st.integers(0, 5), bad=st.sampled_from(BAD_QRELS), blanks=st.integers(0, 2))
def test_bad_fol_qrels(tmp_path: Path, row: int, bad: tuple[str, str], blanks: int) -> None:
    lines = QRELS.splitlines()
    lines.insert(row, bad[0])
    qrels = write(tmp_path, "q.txt", "\n" * blanks + "\n".join(lines) + "\n")
    run = write(tmp_path, "r.run", "\n".join(RUN_LINES) + "\n")
    # a second judgement of A0 is the bad one: the original line when inserted before it
    line = 2 if bad[1].startswith("again") and row == 0 else row + 1
    message = refused(["eval", qrels, run, "--task", "focused"], qrels, line + blanks)
    assert bad[1] in message


# --- TREC runs and qrels ------------------------------------------------------------------------

BAD_DOC_FIELDS = {3: ["-1", "x", "2.5", "\u0662", "9" * 40], 4: ["nan", "inf", "-inf", "high"]}


@EXAMPLES
@given(row=st.integers(0, len(DOC_RUN_LINES) - 1), column=st.sampled_from([3, 4]),
       choice=st.integers(0, 4))
def test_bad_trec_run_values(tmp_path: Path, row: int, column: int, choice: int) -> None:
    lines = [line.split() for line in DOC_RUN_LINES]
    values = BAD_DOC_FIELDS[column]
    lines[row][column] = values[choice % len(values)]
    run = write(tmp_path, "run.txt", "\n".join(" ".join(f) for f in lines) + "\n")
    refused(["eval", write(tmp_path, "qrels", DOC_QRELS), run, "-m", "P@10"], run, row + 1)


@EXAMPLES
@given(row=st.integers(0, 2), value=st.sampled_from(["x", "\u0662", "9" * 30, "1.5"]))
def test_bad_trec_qrels(tmp_path: Path, row: int, value: str) -> None:
    lines = [line.split() for line in DOC_QRELS.splitlines()]
    lines[row][3] = value
    qrels = write(tmp_path, "qrels", "\n".join(" ".join(f) for f in lines) + "\n")
    run = write(tmp_path, "run.txt", "\n".join(DOC_RUN_LINES) + "\n")
    refused(["eval", qrels, run, "-m", "P@10"], qrels, row + 1)


# --- Encoding, binary data, endless lines: every line format ------------------------------------

def _line_inputs(tmp_path: Path, kind: str, lines: list[str]) -> tuple[list[str | Path], Path]:
    """The command evaluating a file of ``kind`` made of ``lines`` (others clean)."""
    text = "\n".join(lines) + "\n"
    if kind == "fol run":
        bad = write(tmp_path, "bad.run", text)
        return ["eval", write(tmp_path, "q.txt", QRELS), bad, "--task", "focused"], bad
    if kind == "fol qrels":
        bad = write(tmp_path, "bad.qrels", text)
        return ["eval", bad, write(tmp_path, "r.run", "\n".join(RUN_LINES) + "\n"),
                "--task", "focused"], bad
    if kind == "trec run":
        bad = write(tmp_path, "bad.txt", text)
        return ["eval", write(tmp_path, "qrels", DOC_QRELS), bad, "-m", "P@10"], bad
    bad = write(tmp_path, "bad.qrels", text)
    return ["eval", bad, write(tmp_path, "run.txt", "\n".join(DOC_RUN_LINES) + "\n"),
            "-m", "P@10"], bad


LINE_KINDS = {"fol run": RUN_LINES, "fol qrels": QRELS.splitlines(),
              "trec run": DOC_RUN_LINES, "trec qrels": DOC_QRELS.splitlines()}


@EXAMPLES
@given(kind=st.sampled_from(sorted(LINE_KINDS)), row=st.integers(0, 2),
       damage=st.sampled_from(["latin-1", "control", "nul", "utf-16"]))
def test_text_that_is_not_utf8_or_binary(tmp_path: Path, kind: str, row: int,
                                         damage: str) -> None:
    lines = [line.split() for line in LINE_KINDS[kind]]
    lines[row][2] += {"latin-1": "\xe9", "control": "\x01", "nul": "\x00",
                      "utf-16": "\udcff"}[damage]
    argv, bad = _line_inputs(tmp_path, kind, [])
    text = "\n".join(" ".join(fields) for fields in lines) + "\n"
    bad.write_bytes(text.encode("latin-1" if damage == "latin-1" else "utf-8",
                                "surrogateescape"))
    refused(argv, bad, row + 1)


@pytest.mark.parametrize("kind", sorted(LINE_KINDS))
def test_a_line_longer_than_a_megabyte(tmp_path: Path, kind: str) -> None:
    lines = list(LINE_KINDS[kind])
    fields = lines[1].split()
    fields[2] += "0" * (1 << 21)
    lines.insert(2, " ".join(fields))
    argv, bad = _line_inputs(tmp_path, kind, lines)
    message = refused(argv, bad, 3)
    assert "longer than" in message


@pytest.mark.parametrize("kind", sorted(LINE_KINDS))
def test_an_endless_line_without_line_end(tmp_path: Path, kind: str) -> None:
    argv, bad = _line_inputs(tmp_path, kind, LINE_KINDS[kind])
    with open(bad, "ab") as handle:
        handle.write(b"1" * (3 << 20))
    refused(argv, bad, len(LINE_KINDS[kind]) + 1)


@pytest.mark.parametrize("option", ["run", "qrels", "--topic-file", "--navigation"])
def test_devices_are_refused(tmp_path: Path, option: str) -> None:
    qrels, run = write(tmp_path, "qrels", DOC_QRELS), write(tmp_path, "run.txt",
                                                            "\n".join(DOC_RUN_LINES) + "\n")
    if option == "--topic-file":  # read for INEX XML assessments only
        qrels = write(tmp_path, "a.xml", ASSESSMENT_2003.format(**GOOD))
        run = write(tmp_path, "r.xml", SUBMISSION.format(**GOOD))
    argv: list[str | Path] = ["eval", qrels, run, "-m", "P@10"]
    if option == "run":
        argv[2] = "/dev/zero"
    elif option == "qrels":
        argv[1] = "/dev/zero"
    else:
        argv += [option, "/dev/zero"]
    message = refused(argv, "/dev/zero")
    assert "device" in message


def test_a_named_pipe_without_writer_is_an_error(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from inexeval.formats import source

    monkeypatch.setattr(source, "WRITER_WAIT", 0.2)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    message = refused(["eval", write(tmp_path, "qrels", DOC_QRELS), pipe, "-m", "P@10"], pipe)
    assert "no program writes" in message


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz"])
def test_damaged_compressed_input(tmp_path: Path, kind: str) -> None:
    compress = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind]
    data = compress(("\n".join(RUN_LINES * 200) + "\n").encode())
    run = write(tmp_path, "r.run.z", data[: len(data) // 2])
    message = refused(["eval", write(tmp_path, "q.txt", QRELS), run, "--task", "focused"], run)
    assert kind in message


# --- Inputs people really have: accepted, with the same numbers ---------------------------------

@EXAMPLES
@given(blank_lines=st.lists(st.integers(0, 6), max_size=4),
       trailing=st.sampled_from(["", " ", "\t", "  \t"]), bom=st.booleans(),
       ends=st.sampled_from(["\n", "\r\n", "\r"]),
       packing=st.sampled_from(["", "gzip", "bzip2", "xz"]))
def test_blank_lines_bom_line_ends_and_compression_change_nothing(
        tmp_path: Path, blank_lines: list[int], trailing: str, bom: bool, ends: str,
        packing: str) -> None:
    qrels = write(tmp_path, "q.txt", QRELS)
    clean = write(tmp_path, "clean.run", "\n".join(RUN_LINES) + "\n")
    expected = cli("eval", qrels, clean, "--task", "focused", "-q")
    lines = [line + trailing for line in RUN_LINES]
    for at in sorted(blank_lines, reverse=True):
        lines.insert(at, trailing)
    data = ("\ufeff" if bom else "").encode() + ends.join(lines).encode() + ends.encode()
    if packing:
        data = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[packing](data)
    messy = write(tmp_path, "messy.run", data)
    assert cli("eval", qrels, messy, "--task", "focused", "-q") == expected


def test_standard_input_and_process_substitution(tmp_path: Path) -> None:
    import subprocess
    import sys

    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "r.run", "\n".join(RUN_LINES) + "\n")
    expected = cli("eval", qrels, run, "--task", "focused")[1]
    command = [sys.executable, "-m", "inexeval.cli", "eval", str(qrels)]
    piped = subprocess.run([*command, "-", "--task", "focused"], input=gzip.compress(
        run.read_bytes()), capture_output=True, check=False, timeout=120)
    assert piped.returncode == 0 and piped.stdout.decode() == expected
    shell = subprocess.run(["bash", "-c", f"{' '.join(command)} <(cat {run}) --task focused"],
                           capture_output=True, check=False, timeout=120)
    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.decode() == expected


# --- XML inputs ---------------------------------------------------------------------------------

ASSESSMENT_2003 = """<?xml version="1.0"?>{doctype}
<assessments topic="{topic}">
  <file file="{file}">
    <path path="/article[1]" exhaustivity="{e}" specificity="2"/>
  </file>
</assessments>
"""
SUBMISSION = """<?xml version="1.0"?>{doctype}
<inex-submission run-id="r"><topic topic-id="{topic}"><result><file>{file}</file>
<path>/article[1]</path><rank>{rank}</rank></result></topic></inex-submission>
"""
XML_DEFECTS = {
    "empty topic": {"topic": ""}, "spaced topic": {"topic": "20 1"},
    "blank topic": {"topic": "  "},
    "entity in topic": {"topic": "20&x;1", "doctype": '\n<!DOCTYPE a SYSTEM "a.dtd">'},
    "entity in file": {"file": "a&x;b", "doctype": '\n<!DOCTYPE a SYSTEM "a.dtd">'},
}
GOOD = {"topic": "201", "file": "ab", "e": "2", "rank": "1", "doctype": ""}


@pytest.mark.parametrize("defect", [*XML_DEFECTS, "fullwidth digit", "arabic digit", "huge"])
@pytest.mark.parametrize("which", ["assessments", "run"])
def test_bad_xml_identifiers_and_numbers(tmp_path: Path, defect: str, which: str) -> None:
    values = dict(GOOD)
    numeric = {"fullwidth digit": "\uff12", "arabic digit": "\u0662", "huge": "9" * 30}
    if defect in numeric:
        values["e" if which == "assessments" else "rank"] = numeric[defect]
    else:
        values.update(XML_DEFECTS[defect])
    good_assessments = write(tmp_path, "good.xml", ASSESSMENT_2003.format(**GOOD))
    good_run = write(tmp_path, "good-run.xml", SUBMISSION.format(**GOOD))
    if which == "assessments":
        bad = write(tmp_path, "bad.xml", ASSESSMENT_2003.format(**values))
        argv: list[str | Path] = ["eval", bad, good_run, "-m", "P@10"]
    else:
        bad = write(tmp_path, "bad-run.xml", SUBMISSION.format(**values))
        argv = ["eval", good_assessments, bad, "-m", "P@10"]
    refused(argv, bad)


@pytest.mark.parametrize("topic", ["", "20 1", "20&x;1"])
def test_bad_topic_ids_in_topic_files(tmp_path: Path, topic: str) -> None:
    topics = write(tmp_path, "topics.xml", '<?xml version="1.0"?>\n<!DOCTYPE t SYSTEM "t.dtd">\n'
                   f'<inex_topic topic_id="{topic}" query_type="CAS"><title>//sec</title>'
                   "</inex_topic>\n")
    assessments = write(tmp_path, "a.xml", ASSESSMENT_2003.format(**GOOD))
    run = write(tmp_path, "r.xml", SUBMISSION.format(**GOOD))
    refused(["eval", assessments, run, "-m", "P@10", "--topic-file", topics], topics)


def test_collection_documents_keep_their_external_entities(tmp_path: Path) -> None:
    from inexeval.collection.build import build_index

    folder = tmp_path / "collection"
    folder.mkdir()
    (folder / "a.xml").write_text('<!DOCTYPE article SYSTEM "xmlarticle.dtd">\n'
                                  "<article><p>caf&eacute; au lait</p></article>\n")
    assert len(build_index(folder)) == 1


# --- Option conflicts and runs that share nothing with the assessments --------------------------

@pytest.mark.parametrize(("options", "words"), [
    (["--table", "--format", "json"], "--table and --format json"),
    (["--table", "-q"], "-q"), (["--format", "latex", "-q"], "-q"),
    (["--digits", "18"], "--digits"), (["--topics", ""], "--topics"),
    (["--topics", " , "], "--topics"), (["--num-docs", "1"], "--num-docs"),
])
def test_conflicting_options(tmp_path: Path, options: list[str], words: str) -> None:
    qrels, run = write(tmp_path, "qrels", DOC_QRELS), write(tmp_path, "run.txt",
                                                            "\n".join(DOC_RUN_LINES) + "\n")
    code, out, err = cli("eval", qrels, run, "-m", "P@10", *options)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and words in err


@EXAMPLES
@given(offset=st.integers(2, 10**6))
def test_a_run_without_an_assessed_topic(tmp_path: Path, offset: int) -> None:
    qrels = write(tmp_path, "q.txt", QRELS)
    lines = [f"{int(line.split()[0]) + offset} {line.split(' ', 1)[1]}" for line in RUN_LINES]
    run = write(tmp_path, "other.run", "\n".join(lines) + "\n")
    message = refused(["eval", qrels, run, "--task", "focused"], run)
    assert message.endswith("no topic of the run is assessed; assessed topics are 1-2")


# --- Outputs ------------------------------------------------------------------------------------

def _conversion(tmp_path: Path) -> tuple[list[str | Path], Path, Path]:
    from inexeval import demo

    out = tmp_path / "out.fol"
    return (["convert", "run", Path(demo.RUNS[0]), "--collection", Path(demo.COLLECTION), "-o",
             out], out, Path(demo.RUNS[0]))


@pytest.mark.parametrize("link", ["hard", "symbolic"])
def test_output_that_is_an_input_through_a_link(tmp_path: Path, link: str) -> None:
    argv, _, run = _conversion(tmp_path)
    copy = write(tmp_path, "run.xml", run.read_bytes())
    alias = tmp_path / "alias.fol"
    (os.link if link == "hard" else os.symlink)(copy, alias)
    argv[2], argv[-1] = copy, alias
    refused(argv, alias, inputs=[copy])


def _full_device(tmp_path: Path) -> str:
    """A device like /dev/full (made in tmp_path where allowed, so that a regression cannot
    replace the system's)."""
    try:
        os.mknod(tmp_path / "full", 0o666 | 0o020000, os.makedev(1, 7))
        return str(tmp_path / "full")
    except OSError:
        return "/dev/full"


@pytest.mark.parametrize("target", ["", "full", "missing/out.fol", "folder"])
def test_unwritable_outputs_name_the_file(tmp_path: Path, target: str) -> None:
    argv, _, _ = _conversion(tmp_path)
    (tmp_path / "folder").mkdir()
    named = {"": "", "full": _full_device(tmp_path)}.get(target, str(tmp_path / target))
    argv[-1] = named
    code, _, err = cli(*argv)
    assert code == 2 and len(err.splitlines()) == 1
    assert (named or "-o") in err
    if target == "full":
        assert "No space left" in err and not Path(named).is_file()


def test_simulate_refuses_a_missing_parent_folder(tmp_path: Path) -> None:
    from inexeval import demo

    target = tmp_path / "absent" / "deeper" / "ideal.txt"
    code, _, err = cli("simulate", "ideal", demo.ASSESSMENTS_2004, "-o", target)
    assert code == 2 and "absent/deeper does not exist" in err and not target.parent.exists()


# --- The Python API -----------------------------------------------------------------------------

def test_api_validates_its_arguments(fol: tuple[Path, Path]) -> None:
    import inexeval
    from inexeval.errors import InexevalError

    qrels, run = inexeval.load_assessments(fol[0]), inexeval.load_run(fol[1])
    one = inexeval.evaluate(qrels, run, "P@10")
    assert {row.measure for row in one.rows} == {"P@10"}
    assert inexeval.evaluate(str(fol[0]), str(fol[1]), "P@10").rows == one.rows
    # an Evaluator reads its qrels from a path as the verbs do (ir_measures' evaluator)
    assert inexeval.Evaluator(["P@10"], str(fol[0])).evaluate(run).rows == one.rows
    for call in (lambda: inexeval.evaluate(qrels, run, 10),
                 lambda: inexeval.evaluate(qrels, run, ["P@10", None]),
                 lambda: inexeval.Evaluator(["P@10"], 7),
                 lambda: inexeval.Evaluator(["P@10"], qrels).evaluate(str(fol[1])),
                 lambda: inexeval.load_run(7), lambda: inexeval.load_assessments(None)):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(InexevalError, match="no such file") as missing:
        inexeval.load_run(fol[1].parent / "absent.run")
    assert missing.value.file == str(fol[1].parent / "absent.run")


def test_judged_elements_missing_from_the_collection_are_reported(tmp_path: Path) -> None:
    from inexeval import demo

    text = (Path(demo.ASSESSMENTS_2004) / "topic-91.xml").read_text()
    moved = write(tmp_path, "t91.xml", text.replace("path='/article[1]/bdy[1]'",
                                                    "path='/article[1]/bdy[7]'", 1))
    code, _, err = cli("eval", moved, demo.RUNS[0], "--collection", demo.COLLECTION, "-m", "P@10",
                       "--topics", "91")
    assert code == 0
    assert (f"inexeval: warning: {moved}: topic 91: 1 judged element(s) are not in the "
            "collection (first: ") in err


def test_error_lines_stay_short(tmp_path: Path) -> None:
    navigation = write(tmp_path, "nav.txt", "a /a[1] b /b[1] 0.5 " + "x" * (1 << 19) + "\n")
    qrels, run = write(tmp_path, "qrels", DOC_QRELS), write(tmp_path, "run.txt",
                                                            "\n".join(DOC_RUN_LINES) + "\n")
    code, _, err = cli("eval", qrels, run, "-m", "P@10", "--navigation", navigation)
    assert code == 2 and len(err.splitlines()) == 1 and len(err) < 1200
    assert f"{navigation}:1: " in err
