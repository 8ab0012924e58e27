"""Format detection from content and loading through the dispatcher."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from inexeval.errors import FormatError, InexevalError
from inexeval.formats.detect import (
    detect_assessments_format,
    detect_run_format,
    load_assessments,
    load_run,
    peek_run_name,
)

DATA = Path(__file__).parents[1] / "data" / "formats"
from tests.helpers import DATA as SHARED
from tests.helpers import needs_shared


@needs_shared
def test_real_fol_files_are_detected() -> None:
    assert detect_assessments_format(SHARED / "inex2010" / "inex2010.qrels") == "fol"
    assert detect_assessments_format(SHARED / "ipcs" / "INEX_Qrels.txt") == "fol"
    assert detect_run_format(SHARED / "ipcs" / "bert_inex_converted_1.run") == "fol"


def test_xml_and_trec_detection(tmp_path: Path) -> None:
    assert detect_assessments_format(DATA / "assessments-2005.xml") == "inex"
    assert detect_assessments_format(DATA) == "inex"
    assert detect_run_format(DATA / "submission.xml") == "xml"
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n")
    assert detect_assessments_format(qrels) == "trec"
    assert load_assessments(qrels).scale == "trec"
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 1.0 r /article[1]\n")
    assert detect_run_format(run) == "trec"
    assert load_run(run).kind == "element"
    run.write_text("1 Q0 d1 1 1.0 r\n")
    assert load_run(run).kind == "document"
    run.write_text("1 Q0 d1 1 1.0 r X 0\n")
    assert detect_run_format(run) == "fol"
    assert load_run(DATA / "submission.xml").name == "VSM_CO_01"
    assert load_assessments(DATA / "assessments-2004.xml", "inex2003").scale == "inex2003"


def test_detection_failures(tmp_path: Path) -> None:
    with pytest.raises(InexevalError, match="no such"):
        detect_run_format(tmp_path / "absent")
    with pytest.raises(InexevalError, match="no such"):
        load_assessments(tmp_path / "absent", "trec")
    odd = tmp_path / "odd"
    odd.write_text("a b c\n")
    with pytest.raises(FormatError, match="3-column") as caught:
        detect_run_format(odd)
    assert caught.value.line == 1
    with pytest.raises(FormatError, match="3-column"):
        detect_assessments_format(odd)
    odd.write_bytes(b"\n1 Q0 caf\xe9 1 1 r\n")
    with pytest.raises(FormatError, match="not UTF-8") as caught:
        detect_run_format(odd)
    assert caught.value.line == 2
    with pytest.raises(FormatError, match="not an INEX assessment"):
        detect_assessments_format(DATA / "submission.xml")
    with pytest.raises(FormatError, match="is not <inex-submission>"):
        detect_run_format(DATA / "assessments-2003.xml")
    with pytest.raises(InexevalError, match="unknown run format"):
        load_run(DATA / "submission.xml", "csv")
    with pytest.raises(InexevalError, match="unknown assessment format"):
        load_assessments(DATA / "assessments-2003.xml", "csv")


@pytest.mark.parametrize("text", [
    "1 Q0 a 1 2 first 0 10\n1 Q0 b 2 1 last 5 10\n",
    "1 Q0 a 1 2 first 0 10\r\n1 Q0 b 2 1 last 5 10\r\n\r\n  \r\n",
    "\ufeff1 Q0 a 1 2 only 0 10",
    "".join(f"1 Q0 d{i} {i} 1 r{i} 0 10\n" for i in range(1, 5000)),
    "1 Q0 a 1 2 first /article[1]\n1 Q0 b 2 1 last /article[1]/p[1]\n",
    "1 Q0 a 1 2 docs\n",
    ('<?xml version="1.0"?>\n<inex-submission run-id="xml-run" task="Focused"><topic '
    'topic-id="1"><result><file>a</file><path>/article[1]</path></result></topic>'
    "</inex-submission>\n"),
    ('<inex-submission task="Focused"><topic topic-id="1"><result><file>a</file>'
    "<path>/article[1]</path></result></topic></inex-submission>"),
])
def test_a_run_name_read_ahead_is_the_name_the_reader_gives(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text(text, encoding="utf-8", newline="")
    assert peek_run_name(path) == load_run(path).name
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    if detect_run_format(path) == "fol":  # its name is on its last line
        assert peek_run_name(packed) is None
    else:
        assert peek_run_name(packed) == load_run(packed).name


@needs_shared
def test_a_run_name_that_cannot_be_read_ahead_is_none(tmp_path: Path) -> None:
    assert peek_run_name("-") is None
    assert peek_run_name(tmp_path / "missing.run") is None
    assert peek_run_name(tmp_path) is None
    (tmp_path / "bad.run").write_text("1 2 3\n")
    assert peek_run_name(tmp_path / "bad.run") is None
    assert peek_run_name(SHARED / "ipcs" / "bert_inex_converted_1.run") == "TREC2INEX"
