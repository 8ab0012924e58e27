"""Runs: INEX XML submissions, TREC-like element runs and TREC document runs and qrels."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pytest

from inexeval.errors import FormatError, InexevalError, InexevalWarning
from inexeval.formats.submission import read_submission
from inexeval.formats.trec import read_trec_qrels, read_trec_run, write_trec_run

DATA = Path(__file__).parents[1] / "data" / "formats"


def test_xml_submission() -> None:
    run = read_submission(DATA / "submission.xml")
    assert (run.name, run.kind) == ("VSM_CO_01", "element")
    assert run.meta["task"] == "CO.Thorough"
    assert list(run) == ["45", "46"]
    t45 = run["45"]
    assert t45.paths.tolist() == ["/article[1]/bdy[1]/sec[1]", "/article[1]/bdy[1]/sec[1]/p[2]",
                                  "/article[1]"]
    assert t45.ranks.tolist() == [1, 2, 3]
    assert t45.rsv.tolist() == [0.67, 0.5, 0.5]
    assert t45.lines.tolist() == [6, 7, 8]
    t46 = run["46"]
    assert t46.ranks.tolist() == [-1]
    assert math.isnan(t46.rsv[0])


def submission(tmp_path: Path, results: str) -> Path:
    file = tmp_path / "run.xml"
    file.write_text(f'<inex-submission run-id="r">\n<topic topic-id="1">\n{results}\n</topic>\n'
                    "</inex-submission>\n")
    return file


def test_xml_submission_passages_and_duplicates(tmp_path: Path) -> None:
    file = submission(tmp_path, "<result><file>d</file><offset>10</offset><length>5</length></result>\n"
                                "<result><file>d</file><offset>10</offset><length>5</length></result>")
    with pytest.warns(InexevalWarning, match="1 duplicated result"):
        run = read_submission(file)
    assert run.kind == "passage"
    assert (run["1"].offsets.tolist(), run["1"].lengths.tolist()) == ([10], [5])


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ("<result><file>d</file><offset>-1</offset><length>5</length></result>", "negative"),
        ("<result><file>d</file><offset>1</offset><length>-5</length></result>", "negative"),
        ("<result><file>d</file><path>//p</path></result>", "not an absolute path"),
        ("<result><file>d</file><path>/a[1]/b[x]</path></result>", "unsupported step"),
        ("<result><path>/a[1]</path></result>", "no <file>"),
        ("<result><file>d</file></result>", "neither"),
        ("<result><file>d</file><path>/a[1]</path><rank>one</rank></result>", "not a number"),
        ("<result><file>d</file><path>/a[1]</path><rsv>nan</rsv></result>", "finite"),
        (("<result><file>d</file><path>/a[1]</path></result>\n"
         "<result><file>d</file><offset>1</offset><length>5</length></result>"), "passage result in"),
        ("<result><file>d</file><path>/a[1]</path>", "malformed"),
    ],
)
def test_bad_submissions(tmp_path: Path, results: str, message: str) -> None:
    with pytest.raises(FormatError, match=message) as caught:
        read_submission(submission(tmp_path, results))
    assert caught.value.line is not None


def test_submission_root_and_missing(tmp_path: Path) -> None:
    file = tmp_path / "x.xml"
    file.write_text("<run/>")
    with pytest.raises(FormatError, match="root element"):
        read_submission(file)
    with pytest.raises(InexevalError, match="no such file"):
        read_submission(tmp_path / "absent.xml")


def test_trec_element_run(tmp_path: Path) -> None:
    file = tmp_path / "run.txt"
    file.write_bytes(b"\xef\xbb\xbf1 Q0 co/2000/r7108 1 2.5 myrun /article[1]/bdy/sec[1]\r\n"
                     b"\r\n"
                     b"1 Q0 co/2000/r7108 2 2.0 myrun /article[1]\r\n"
                     b"2 Q0 tc/2001/t0111 1 1 myrun /article[1]/bdy[1]/sec[10]\r\n")
    run = read_trec_run(file)
    assert (run.name, run.kind, list(run)) == ("myrun", "element", ["1", "2"])
    assert run["1"].paths.tolist() == ["/article[1]/bdy[1]/sec[1]", "/article[1]"]
    assert run["1"].lines.tolist() == [1, 3]
    assert run["2"].rsv.tolist() == [1.0]


def test_trec_document_run_and_roundtrip(tmp_path: Path) -> None:
    file = tmp_path / "run.txt"
    file.write_text("7 Q0 d2 2 0.5 r\n7 Q0 d1 1 0.9 r\n7 Q0 d1 3 0.1 r\n")
    with pytest.warns(InexevalWarning, match=r"run.txt:3: 1 duplicated"):
        run = read_trec_run(file)
    assert run.kind == "document"
    assert run["7"].files.tolist() == ["d2", "d1"]
    out = io.StringIO()
    write_trec_run(run, out)
    assert out.getvalue() == "7 Q0 d1 1 0.9 r\n7 Q0 d2 2 0.5 r\n"
    again = tmp_path / "again.txt"
    write_trec_run(read_submission(DATA / "submission.xml"), again)
    back = read_trec_run(again)
    assert back["46"].rsv.tolist() == [1.0]
    assert back["45"].paths.tolist()[1] == "/article[1]/bdy[1]/sec[1]/p[2]"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1 Q0 d 1 1.0 r /a[1]\n1 Q0 d 2 1.0 r\n", 2, "6 fields where"),
        ("1 Q0 d 1 1.0 r /a[1] 5\n", 1, "8 columns"),
        ("1 Q0 d x 1.0 r /a[1]\n", 1, "rank"),
        ("1 Q0 d 1 high r /a[1]\n", 1, "score"),
        ("1 Q0 d 1 1 r\n1 Q0 e 2 inf r\n", 2, "finite"),
        ("1 Q0 d 1 1.0 r //p\n", 1, "not an absolute path"),
        ("1 Q0 d 1 1.0 r /a[1]\n\n1 Q0 caf\xe9 2 1.0 r /a[1]\n", 3, "not UTF-8"),
    ],
)
def test_bad_trec_runs(tmp_path: Path, text: str, line: int, message: str) -> None:
    file = tmp_path / "run.txt"
    file.write_bytes(text.encode("latin-1"))
    with pytest.raises(FormatError, match=message) as caught:
        read_trec_run(file)
    assert (caught.value.file, caught.value.line) == (str(file), line)


def test_empty_and_missing_runs(tmp_path: Path) -> None:
    file = tmp_path / "run.txt"
    file.write_text("\n\n")
    with pytest.raises(FormatError, match="no result"):
        read_trec_run(file)
    with pytest.raises(InexevalError, match="no such file"):
        read_trec_run(tmp_path / "absent")


def test_trec_qrels(tmp_path: Path) -> None:
    file = tmp_path / "qrels"
    file.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n")
    qrels = read_trec_qrels(file)
    assert qrels.scale == "trec"
    assert qrels["1"].files.tolist() == ["d1", "d2"]
    assert qrels["1"].paths.tolist() == ["", ""]
    assert np.array_equal(qrels["2"].dims["relevance"], [2])
    file.write_text("1 0 d1 1\n1 0 d1 0\n")
    with pytest.raises(FormatError, match="twice") as caught:
        read_trec_qrels(file)
    assert caught.value.line == 2
    file.write_text("1 0 d1\n")
    with pytest.raises(FormatError, match="3 columns"):
        read_trec_qrels(file)
    file.write_text("1 0 d1 yes\n")
    with pytest.raises(FormatError, match="not an integer"):
        read_trec_qrels(file)


@pytest.mark.parametrize("block", [None, 40])
def test_text_after_the_run_id_is_ignored_as_trec_eval_ignores_it(tmp_path: Path,
                                                                   block: int | None) -> None:
    """A document run's line may go on after the run id (trec_eval reads six fields): from the
    first line, or only on later lines (a later block); the lines keep their numbers."""
    from inexeval.formats import source
    from inexeval.formats.detect import detect_run_format, detect_run_kind

    lines = ["7 Q0 d2 1 0.9 r", "7 Q0 d1 2 0.5 r", "8 Q0 d3 1 0.4 r", "8 Q0 d4 2 0.3 r"]
    plain = tmp_path / "plain"
    plain.write_text("".join(f"{line}\n" for line in lines))
    default = source.BLOCK
    try:
        source.BLOCK = block or default
        expected = read_trec_run(plain)
        for after in (["", "", " 0 x", "\t0"], [" extra", " more text", "", " a[1]"],
                      [" x"] * 4, [" x y"] * 4, ["", " /a[1]", "", ""]):
            text = tmp_path / "text"
            text.write_text("".join(f"{line}{tail}\n" for line, tail in zip(lines, after)))
            assert detect_run_format(text) == "trec"
            assert detect_run_kind(text) == "document"
            run = read_trec_run(text)
            assert run.kind == "document"
            for topic in ("7", "8"):
                assert run[topic].files.tolist() == expected[topic].files.tolist()
                assert run[topic].rsv.tolist() == expected[topic].rsv.tolist()
                assert run[topic].lines.tolist() == expected[topic].lines.tolist()
        # a seventh field that is a path on another line: an element run whose first path
        # is wrong; an offset (X, a number): a FOL line cut short
        for first_line in ("7 Q0 d2 1 0.9 r extra\n7 Q0 d1 2 0.5 r /a[1]\n",
                           "7 Q0 d2 1 0.9 r X\n", "7 Q0 d2 1 0.9 r 10\n"):
            text.write_text(first_line)
            assert detect_run_kind(text) == "element"
            with pytest.raises(FormatError, match="path") as caught:
                read_trec_run(text)
            assert caught.value.line == 1
        bad = tmp_path / "bad"
        bad.write_text("7 Q0 d2 1 0.9 r extra\n\n7 Q0 d1 2 high r more\n")
        with pytest.raises(FormatError, match="score") as caught:
            read_trec_run(bad)
        assert caught.value.line == 3
        bad.write_text("7 Q0 d2 1 0.9 r extra\n7 Q0 d1 2 0.5\n")
        with pytest.raises(FormatError, match="fields missing") as caught:
            read_trec_run(bad)
        assert caught.value.line == 2
    finally:
        source.BLOCK = default
