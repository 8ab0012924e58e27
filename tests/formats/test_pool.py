"""The pool TSV reader and writers (formats/pool.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from inexeval.errors import FormatError, InexevalError
from inexeval.formats.pool import inex_pool_xml, read_pool, write_pool
from inexeval.model.pool import PoolUnit, topic_order


def _write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "pool.tsv"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def test_read_keeps_units_and_orders_topics_numerically(tmp_path: Path) -> None:
    path = _write(tmp_path, "\ufeff100\tb\t\t3\t1\r\n"
                  "9\ta\t/article/bdy[1]/sec\t2\t4\n\n"
                  "9\ta\t\t1\t2\n"
                  "x1\tc\t\t1\t1\n")
    pool = read_pool(path)
    assert list(pool) == ["9", "100", "x1"]
    assert list(pool["9"]) == [PoolUnit("a", "/article[1]/bdy[1]/sec[1]", 2, 4),
                               PoolUnit("a", "", 1, 2)]
    assert list(pool["9"].lines) == [2, 4]
    assert pool["9"].articles == ["a"]
    assert pool.unit == "element"
    assert read_pool(_write(tmp_path, "1\ta\t\t1\t1\n")).unit == "article"


def test_write_reads_back(tmp_path: Path) -> None:
    path = _write(tmp_path, "2\tb\t\t3\t1\n10\ta\t/article[1]\t1\t2\n")
    out = io.StringIO()
    write_pool(read_pool(path), out)
    assert out.getvalue() == "2\tb\t\t3\t1\n10\ta\t/article[1]\t1\t2\n"


@pytest.mark.parametrize(("text", "line", "message"), [
    ("1\ta\t\t1\n", 1, "4 tab-separated fields"),
    ("1\ta\t\t1\t1\n1 a  1 1\n", 2, "1 tab-separated fields"),
    ("1\ta\t\t1\t1\n\n1\ta\t\t2\t1\n", 3, "lists a twice"),
    ("1\ta\t\t0\t1\n", 1, "min_rank '0' is not a positive integer"),
    ("1\ta\t\t1\tx\n", 1, "runs 'x' is not a positive integer"),
    ("1\ta\t\t-1\t1\n", 1, "min_rank '-1'"),
    ("\ta\t\t1\t1\n", 1, "empty topic"),
    ("1\t\t\t1\t1\n", 1, "empty file"),
    ("1\ta\tbdy[1]\t1\t1\n", 1, "not an absolute path"),
    (b"1\ta\t\t1\t1\n1\t\xff\t\t1\t1\n", 2, "not UTF-8"),
])
def test_bad_lines_name_file_and_line(tmp_path: Path, text: str | bytes, line: int,
                                      message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(FormatError, match=message) as caught:
        read_pool(path)
    assert (caught.value.file, caught.value.line) == (str(path), line)


def test_inex_xml_groups_paths_by_file(tmp_path: Path) -> None:
    pool = read_pool(_write(tmp_path, "5\ta\t/article[1]/p[1]\t1\t1\n5\ta\t/article[1]/p[2]\t2\t1\n"
                                      "5\tb\t/article[1]\t3\t1\n"))
    root = etree.fromstring(inex_pool_xml(pool["5"]))
    assert root.tag == "pool" and root.get("topic") == "5"
    assert [(f.get("name"), [p.text for p in f]) for f in root] == [
        ("a", ["/article[1]/p[1]", "/article[1]/p[2]"]), ("b", ["/article[1]"])]


def test_topic_order() -> None:
    assert sorted(["10", "9", "b", "a", "100"], key=topic_order) == ["9", "10", "100", "a", "b"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200))
def test_any_bytes_read_or_fail_with_file_and_reason(tmp_path: Path, data: bytes) -> None:
    path = _write(tmp_path, data)
    try:
        pool = read_pool(path)
    except InexevalError as error:
        assert error.file == str(path) and error.reason
    else:
        assert all(len(tp) for tp in pool.values())


_ids = st.text(alphabet="abcz019_-/.", min_size=1, max_size=6)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.tuples(_ids, _ids, st.sampled_from(["", "/article[1]", "/a[1]/b[2]"])),
                       st.tuples(st.integers(1, 10**6), st.integers(1, 200)), min_size=1,
                       max_size=20))
def test_write_then_read_is_the_same_pool(tmp_path: Path,
                                          units: dict[tuple[str, str, str], tuple[int, int]]
                                          ) -> None:
    lines = "".join(f"{t}\t{f}\t{p}\t{r}\t{n}\n" for (t, f, p), (r, n) in units.items())
    first = read_pool(_write(tmp_path, lines))
    out = io.StringIO()
    write_pool(first, out)
    again = read_pool(_write(tmp_path, out.getvalue()))
    assert {t: list(tp) for t, tp in again.items()} == {t: list(tp) for t, tp in first.items()}
    assert sum(len(tp) for tp in again.values()) == len(units)
