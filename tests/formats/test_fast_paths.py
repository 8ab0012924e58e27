"""The fast paths of the line readers and of the character engine (issue 12) give exactly what
the general paths give: fields, integers, document numbering, line numbers across blocks,
interval conflicts."""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inexeval import spans
from inexeval.errors import FormatError, RunError
from inexeval.formats import detect, fol, inex_assessments, lines, source, submission
from inexeval.formats.lines import (
    Table,
    _general_fields,
    eight_digits,
    integer_values,
    plain_decimals,
    short_decimals,
    word_view,
)
from inexeval.measures.focused_qrels import pack_names

# --- fields ----------------------------------------------------------------------------------

field_text = st.text(alphabet="abcXYZ019-+.:/é", min_size=1, max_size=12)
blank = st.sampled_from([" ", "  ", "\t", " \t "])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(field_text, min_size=3, max_size=3), min_size=1, max_size=30),
       st.data())
def test_the_single_spaced_layout_and_the_general_reading_agree(
        rows: list[list[str]], data: st.DataObject) -> None:
    spaced = data.draw(st.booleans())
    text = "".join((" ".join(row) if spaced else data.draw(blank).join(row))
                   + data.draw(st.sampled_from(["", " "]) if not spaced else st.just(""))
                   + "\n" for row in rows)
    block = text.encode()
    table = Table(block, 7, "f", 3, "three fields")
    starts, ends, numbers = _general_fields(np.frombuffer(block, dtype=np.uint8), block, 7, "f",
                                            3, "three fields", FormatError)
    assert numbers.tolist() == table.numbers.tolist() == list(range(7, 7 + len(rows)))
    for column in range(3):
        assert table.starts[:, column].tolist() == starts[column::3].tolist()
        assert table.ends[:, column].tolist() == ends[column::3].tolist()
        assert table.texts(column) == [row[column] for row in rows]


def test_blank_lines_and_wrong_widths_are_found_by_the_general_reading() -> None:
    table = Table(b"a b c\n\nd e f\n", 1, "f", 3, "x")
    assert table.numbers.tolist() == [1, 3]
    with pytest.raises(FormatError, match="fields missing"):
        Table(b"a b c\nd e\n", 1, "f", 3, "x")


# --- integers --------------------------------------------------------------------------------

number_text = st.one_of(
    st.integers(-10**16, 10**16).map(str),
    st.text(alphabet="0123456789+-a ", min_size=1, max_size=10).map(lambda t: t.replace(" ", "")
                                                                     or "0"),
)


def _bounds(fields: list[str]) -> tuple[bytes, np.ndarray, np.ndarray]:
    block = (" ".join(fields) + "\n").encode()
    ends = np.cumsum([len(f) + 1 for f in fields]) - 1
    return block, ends - [len(f) for f in fields], ends


@settings(max_examples=300, deadline=None)
@given(st.lists(number_text, min_size=1, max_size=40))
def test_integer_columns_read_as_python_reads_them(fields: list[str]) -> None:
    block = " ".join(f"{f} x" for f in fields).replace(" x ", " x\n").encode() + b"\n"
    table = Table(block, 1, "f", 2, "two")
    strict = [f.lstrip("+-").isdigit() and f.isascii() and f.count("-") + f.count("+") <= 1
              and f[0] in "+-0123456789" and len(f.lstrip("+-")) <= 15 for f in fields]
    if all(strict):
        assert table.integers(0, "n").tolist() == [int(f) for f in fields]
    else:
        with pytest.raises(FormatError, match=r"not an integer|too large"):
            table.integers(0, "n")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="0123456789:a/", min_size=0, max_size=8), min_size=1,
                max_size=40))
def test_eight_digits_in_a_word(fields: list[str]) -> None:
    block, starts, ends = _bounds(fields)
    values, digits = eight_digits(word_view(block)[ends].astype(np.uint64), ends - starts)
    for field, value, ok in zip(fields, values.tolist(), digits.tolist()):
        assert ok == field.isdigit() or (field == "" and ok)
        if ok:
            assert value == (int(field) if field else 0)
    general = integer_values(np.frombuffer(block, dtype=np.uint8), starts, ends)
    if all(f.isdigit() or f == "" for f in fields):
        assert general is not None and general.tolist() == values.tolist()


# --- scores ----------------------------------------------------------------------------------

printed_score = st.builds(
    lambda sign, whole, point, zeros, digits, exponent: (
        f"{sign}{whole}{point}{zeros}{digits}{exponent}"),
    st.sampled_from(["", "-", "+"]), st.sampled_from(["", "0", "1", "12", "99999999", "123456789"]),
    st.sampled_from(["", ".", ".."]), st.text(alphabet="0", max_size=9),
    st.integers(0, 10**16).map(lambda d: str(d) if d else ""),
    st.sampled_from(["", "e-05", "E+22", "e+23", "e-22", "e-99", "e5", "e-5", "e+0x"])).filter(bool)
score_text = st.one_of(printed_score, st.floats().map(repr), st.floats().map(lambda v: f"{v:.7g}"),
                       st.text(alphabet="0123456789.eE+-naif_x", min_size=1, max_size=18))


def _python_float(field: str) -> float | None:
    try:
        return None if "_" in field or "x" in field.lower() else float(field)
    except ValueError:
        return None


@settings(max_examples=500, deadline=None)
@given(st.lists(score_text, min_size=1, max_size=40))
def test_short_decimals_are_the_doubles_python_reads(fields: list[str]) -> None:
    block, starts, ends = _bounds(fields)
    values, read = short_decimals(np.frombuffer(block, dtype=np.uint8), word_view(block), starts,
                                  ends)
    for field, value, ok in zip(fields, values.tolist(), read.tolist()):
        if ok:
            assert np.float64(value).tobytes() == np.float64(float(field)).tobytes(), field
    table = Table(" ".join(f"{f} x" for f in fields).replace(" x ", " x\n").encode() + b"\n", 1,
                  "f", 2, "two")
    scores, unread = table.floats(0)
    for field, value, missing in zip(fields, scores.tolist(), unread.tolist()):
        want = _python_float(field)
        assert missing == (want is None)
        assert np.float64(value).tobytes() == np.float64(math.nan if want is None
                                                          else want).tobytes(), field


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(score_text, st.text(alphabet="0123456789.+-", min_size=1,
                                              max_size=18)), min_size=1, max_size=40))
def test_plain_decimals_are_the_doubles_python_reads(fields: list[str]) -> None:
    block, starts, ends = _bounds(fields)
    values, read = plain_decimals(np.frombuffer(block, dtype=np.uint8), word_view(block), starts,
                                  ends)
    for field, value, ok in zip(fields, values.tolist(), read.tolist()):
        if ok:
            assert np.float64(value).tobytes() == np.float64(float(field)).tobytes(), field
        plain = field.lstrip("+-")
        if (len(field) - len(plain) <= 1 and len(plain) <= 16 and plain.count(".") <= 1
                and 1 <= len(plain.replace(".", "")) <= 15 and plain.replace(".", "").isdigit()):
            assert ok, field  # the form it reads is read


def test_plain_decimals_read_the_commonest_scores() -> None:
    fields = ["-0.37", "12.345678", "7", ".5", "5.", "-0", "+3.25", "123456789012.345",
              "0.00000000000001", "1.5e-05", "1..2", "-", "12.34.5", "1234567890123456"]
    block, starts, ends = _bounds(fields)
    values, read = plain_decimals(np.frombuffer(block, dtype=np.uint8), word_view(block), starts,
                                  ends)
    assert read.tolist() == [True] * 9 + [False] * 5
    assert values[:9].tolist() == [float(f) for f in fields[:9]]
    assert math.copysign(1, values[5]) == -1


def test_printed_scores_take_the_short_path() -> None:
    fields = ["-1.8119572e-05", "12.345", "7", "-0.0001015662", ".5", "5.", "-0", "1e+22"]
    block, starts, ends = _bounds(fields)
    values, read = short_decimals(np.frombuffer(block, dtype=np.uint8), word_view(block), starts,
                                  ends)
    assert read.all()
    assert values.tolist() == [float(f) for f in fields]
    assert math.copysign(1, values[6]) == -1


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(score_text, st.text(alphabet="0123456789.eE+-", min_size=1,
                                              max_size=20)), min_size=1, max_size=40),
       st.integers(1, 9))
def test_printed_scores_read_later_are_the_floats_read_now(fields: list[str], indent: int
                                                           ) -> None:
    """Scores kept as printed and read on first use (also cut and joined as a reader does) are
    the floats read at once; a field surely finite is finite; a field that is no finite
    number (``abc``, ``nan``, ``inf``) is an error naming its line."""
    text = "".join(f"{'x' * indent} {f}\n" for f in fields).encode()
    table = Table(text, 1, "f", 2, "two")
    floats, not_numbers = table.floats(1)
    wrong = not_numbers | ~np.isfinite(floats)
    if wrong.any():
        with pytest.raises(FormatError, match="is not a finite number") as error:
            table.printed_scores(1)
        assert error.value.line == int(np.argmax(wrong)) + 1
        return
    expected = floats
    printed = table.printed_scores(1)
    assert printed().tobytes() == expected.tobytes()
    half = len(fields) // 2
    rejoined = lines.PrintedScores.joined([printed[half:], printed[:half]])
    assert rejoined().tobytes() == np.concatenate((expected[half:], expected[:half])).tobytes()
    starts, ends = table.starts[:, 1], table.ends[:, 1]
    first = table.raw[starts]
    words = word_view(text)
    sure = lines.surely_finite(words[ends - 8].astype(np.uint64), words[ends].astype(np.uint64),
                               ends - starts, (first == 43) | (first == 45))
    for field, surely in zip(fields, sure.tolist()):
        if surely:
            assert math.isfinite(float(field)), field


def test_common_printed_scores_are_surely_finite() -> None:
    fields = ["-1.8119572e-05", "12.345", "7", "-0.0001015662", ".5", "5.", "-0", "1E+99",
              "+1234567890.12345"]
    table = Table("".join(f"x {f}\n" for f in fields).encode(), 1, "f", 2, "two")
    printed = table.printed_scores(1)
    assert printed().tolist() == [float(f) for f in fields]
    for odd in ["1e999", ".", "1.2.3", "-", "e+05", "1e+5x", "nan", "1_0", "12345678901234567"]:
        table = Table(f"x {odd}\n".encode(), 1, "f", 2, "two")
        starts, ends = table.starts[:, 1], table.ends[:, 1]
        words = table._word_view()
        assert not lines.surely_finite(words[np.maximum(ends - 8, 0)].astype(np.uint64),
                                       words[ends].astype(np.uint64), ends - starts,
                                       np.zeros(1, dtype=bool)).any(), odd


def test_a_run_reads_its_scores_on_first_use(tmp_path: Path) -> None:
    path = tmp_path / "r.fol"
    path.write_text("1 Q0 a 1 0.5 r 0 10\n1 Q0 b 2 1e99 r 0 10\n2 Q0 a 1 "
                    "0.12345678901234567890123 r 0 10\n")
    run = fol.read_fol_run(path)
    assert callable(run["1"].__dict__["rsv"])
    assert run["1"].rsv.tolist() == [0.5, 1e99]
    assert run["2"].rsv.tolist() == [0.12345678901234567890123]
    assert run["1"].__dict__["rsv"] is run["1"].rsv


def test_a_run_pickles_with_plain_pickle(tmp_path: Path) -> None:
    # worker processes and Dask receive runs as they are (plain pickle, no cloudpickle)
    import pickle

    path = tmp_path / "r.fol"
    path.write_text("1 Q0 a 1 0.5 r 0 10\n1 Q0 b 2 0.25 r 3 7\n2 Q0 a 1 0.75 r 5 10\n")
    run = fol.read_fol_run(path)
    again = pickle.loads(pickle.dumps(run))
    for topic in ("1", "2"):
        assert again[topic].files.tolist() == run[topic].files.tolist()
        assert again[topic].offsets.tolist() == run[topic].offsets.tolist()
        assert again[topic].rsv.tolist() == run[topic].rsv.tolist()
    assert again["1"].lengths.tolist() == [10, 7]


# --- FOL runs: documents numbered by the reader ----------------------------------------------

name = st.one_of(st.integers(1, 10**12).map(str),
                 st.text(alphabet="ab/9é", min_size=1, max_size=14))


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["1", "2", "30"]), name), min_size=1,
                    max_size=60),
       block=st.sampled_from([1 << 22, 64, 200]))
def test_document_codes_follow_names_across_blocks(
        rows: list[tuple[str, str]], block: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("codes") / "run.fol"
    path.write_text("".join(f"{t} Q0 {n} {i + 1} 1.5 r {i * 10} 5\n"
                            for i, (t, n) in enumerate(sorted(rows, key=lambda r: r[0]))))
    saved = source.BLOCK
    source.BLOCK = block
    try:
        with source.opened(path) as opened:
            run = fol.read_fol_run(opened)
    finally:
        source.BLOCK = saved
    names = np.concatenate([r.files for r in run.topics.values()]).tolist()
    codes = np.concatenate([r.codes for r in run.topics.values()]).tolist()
    assert names == [n for _, n in sorted(rows, key=lambda r: r[0])]
    for (a, ca), (b, cb) in itertools.combinations(zip(names, codes), 2):
        assert (a == b) == (ca == cb)
    # the names of the codes, packed as the focused measures pack them (carried, not redone)
    whole = run.joined()
    assert whole is not None
    packed, fits = pack_names(names)
    if fits.all():
        assert whole.packed_names is not None
        assert whole.packed_names[codes].tolist() == packed.tolist()
    else:
        assert whole.packed_names is None


def test_short_names_are_unpacked_whole(tmp_path: Path) -> None:
    names = ["12345678", "7", "abcdefgh", "x/y", "12345678", "é", "7", "a\u00a0b", "00000001"]
    path = tmp_path / "run.fol"
    path.write_text("".join(f"1 Q0 {n} {i + 1} 1.5 r {i * 10} 5\n" for i, n in enumerate(names)))
    run = fol.read_fol_run(path)
    assert run.topics["1"].files.tolist() == names
    ascii_only = [n for n in names if n.isascii()]
    path.write_text("".join(f"1 Q0 {n} {i + 1} 1.5 r {i * 10} 5\n"
                            for i, n in enumerate(ascii_only)))
    assert fol.read_fol_run(path).topics["1"].files.tolist() == ascii_only


def test_a_bad_line_in_a_later_block_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    lines = [f"2010001 Q0 {100 + i} {i + 1} 1.0 r 0 10\n" for i in range(400)]
    lines[357] = "2010001 Q0 457 358 1.0 r 0 -3\n"
    path = tmp_path / "run.fol"
    path.write_text("".join(lines))
    monkeypatch.setattr(source, "BLOCK", 1000)
    with pytest.raises(RunError) as caught, source.opened(path) as opened:
        fol.read_fol_run(opened)
    assert caught.value.line == 358


# --- conflicts -------------------------------------------------------------------------------

interval = st.tuples(st.integers(0, 3), st.integers(0, 40), st.integers(0, 12))


@settings(max_examples=300, deadline=None)
@given(st.lists(interval, max_size=25))
def test_conflicts_against_every_pair(items: list[tuple[int, int, int]]) -> None:
    docs = [d for d, _, _ in items]
    starts = [s for _, s, _ in items]
    ends = [s + n for _, s, n in items]
    want = any(d1 == d2 and s1 < e2 and s2 < e1
               for (d1, s1, e1), (d2, s2, e2) in itertools.combinations(zip(docs, starts, ends), 2))
    assert spans.conflicts(starts, ends, docs) == want


# --- what evaluating FOL files loads ---------------------------------------------------------

def test_formats_named_in_detect_are_the_readers_own() -> None:
    assert set(inex_assessments.DIM_TYPES) <= set(detect.ASSESSMENT_FORMATS)
    assert detect.SUBMISSION_ROOT == submission.ROOT


def test_evaluating_fol_files_does_not_load_the_xml_machinery(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.fol"
    qrels.write_text("2010001 Q0 100 10 50 0 0:10\n")
    run.write_text("2010001 Q0 100 1 1.0 r 0 10\n")
    probe = ("import sys\nfrom inexeval.cli import main\n"
             f"assert main(['eval', '--task', 'focused', {str(qrels)!r}, {str(run)!r}]) == 0\n"
             "print(sorted(m for m in sys.modules if m.startswith(('lxml', 'scipy', "
             "'importlib.metadata'))))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b" ", b"\n", b"\t", b"\r", b"\x0b", b"\x0c", b"\x00",
                                 b"\x08", b"\x0e", b"\x1f", b"\x7f", b"\xc3\xa9"]),
                max_size=40))
def test_a_block_is_refused_exactly_for_a_control_character(pieces: list[bytes]) -> None:
    """The count of bytes below 32 that lets most blocks pass at once refuses what the byte
    translation refuses, at the same line."""
    block = b"".join(pieces) + b"\n"
    control = [at for at, byte in enumerate(block) if byte < 9 or 13 < byte < 32]
    try:
        source._check_block(block, 3, "f")
    except FormatError as error:
        assert control
        assert error.line == 3 + block.count(b"\n", 0, control[0])
        assert f"0x{block[control[0]]:02x}" in str(error)
    else:
        assert not control


_SURELY_FINITE = re.compile(r"[+-]?(?=[0-9.]*[0-9])[0-9]*\.?[0-9]*(?:[eE][+-][0-9]{2})?")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet="0123456789.eE+-x é", min_size=1, max_size=20), min_size=1,
                max_size=20))
def test_surely_finite_is_exactly_its_printed_forms(fields: list[str]) -> None:
    """The word operations of ``surely_finite`` accept exactly the forms its docstring names
    (as a pattern): up to 16 bytes, a sign, digits with at most one point, an exponent."""
    fields = [f.replace(" ", "") or "0" for f in fields]
    text = "".join(f"x {f}\n" for f in fields).encode()
    table = Table(text, 1, "f", 2, "two")
    starts, ends = table.starts[:, 1], table.ends[:, 1]
    words = table._word_view()
    first = table.raw[starts]
    sure = lines.surely_finite(words[np.maximum(ends - 8, 0)].astype(np.uint64),
                               words[ends].astype(np.uint64), ends - starts,
                               (first == 43) | (first == 45))
    assert sure.tolist() == [len(f.encode()) <= 16 and _SURELY_FINITE.fullmatch(f) is not None
                             for f in fields]
