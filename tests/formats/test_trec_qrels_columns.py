"""``inexeval eval``'s TREC qrels reader, now column-wise (issue 23), against the line-by-line
reader it replaced (kept here as the reference): the same judgements in the same order, and on
bad input the same message on the same line, at block sizes of 300 bytes and 4 MB."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inexeval.errors import FormatError, shown
from inexeval.formats import source
from inexeval.formats.lines import MAX_DIGITS
from inexeval.formats.trec import read_trec_qrels

_INTEGER = re.compile(r"[+-]?[0-9]+")


def _line_reader(text: str, name: str) -> dict[str, list[tuple[str, int]]] | str:
    """The reader before issue 23's: judgements by topic, or the error it gave (``#`` comment
    lines skipped since issue 33, as trec_eval skips them)."""
    records: dict[str, list[tuple[str, int]]] = {}
    seen: dict[tuple[str, str], int] = {}
    for line, raw in enumerate(text.split("\n"), 1):
        fields = raw.split()
        if not fields or fields[0].startswith("#"):  # a comment line, as trec_eval's (issue 33)
            continue
        if len(fields) != 4:
            return f"{name}:{line}: {len(fields)} columns: expected 4 (topic iter doc rel)"
        topic, _, document, grade = fields
        if not grade.lstrip("+-").isascii() or _INTEGER.fullmatch(grade) is None:
            return f"{name}:{line}: relevance {shown(grade)} is not an integer"
        if len(grade.lstrip("+-")) > MAX_DIGITS:
            return f"{name}:{line}: relevance {shown(grade)} is too large"
        if (topic, document) in seen:
            return (f"{name}:{line}: topic {shown(topic)} judges {shown(document)} twice (first "
                    f"at line {seen[(topic, document)]})")
        seen[(topic, document)] = line
        records.setdefault(topic, []).append((document, int(grade)))
    return records or f"{name}: the qrels have no judgement line"


_LEVEL = st.one_of(st.integers(-3, 5).map(str), st.sampled_from(
    ["+2", "x", "1.5", "9" * 16, "-" + "1" * 15, "0" * 20]))
_ID = st.text(alphabet="abdX019-_.#", min_size=1, max_size=10)


@st.composite
def _qrels(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(["judgement"] * 8 + ["blank", "short", "long"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
            continue
        fields = [draw(st.sampled_from(["1", "2", "301", "#c"])), "0", draw(_ID),
                  draw(_LEVEL)]
        if kind == "short":
            fields = fields[:3]
        elif kind == "long":
            fields.append("extra")
        lines.append(draw(st.sampled_from(["", " "])).join([""]) + draw(
            st.sampled_from([" ", "  ", "\t"])).join(fields))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_qrels())
def test_the_column_reader_reads_as_the_line_reader(tmp_path: Path, text: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "qrels"
    path.write_text(text)
    expected = _line_reader(text, str(path))
    for size in (300, 4 << 20):
        monkeypatch.setattr(source, "BLOCK", size)
        if isinstance(expected, str):
            with pytest.raises(FormatError) as error:
                read_trec_qrels(path)
            assert str(error.value) == expected
            continue
        got: Any = read_trec_qrels(path)
        assert list(got) == list(expected)
        for topic, judged in expected.items():
            assert got[topic].files.tolist() == [d for d, _ in judged]
            assert got[topic].dims["relevance"].tolist() == [v for _, v in judged]
            assert got[topic].paths.tolist() == [""] * len(judged)
