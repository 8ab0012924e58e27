"""INEX 2002-2008 XML assessments: the three scales, folders, and every bad input."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inexeval.errors import FormatError, InexevalError
from inexeval.formats.inex_assessments import XPointer, parse_xpointer, read_inex_assessments
from inexeval.model.assessments import Assessments

DATA = Path(__file__).parents[1] / "data" / "formats"


def records(assessments: Assessments) -> dict[str, set[tuple[object, ...]]]:
    """Order-free view: per topic, the set of (file, path, dims...) rows."""
    out = {}
    for topic, ta in assessments.items():
        names = sorted(ta.dims)
        out[topic] = {
            (f, p, *(float(ta.dims[n][i]) for n in names))
            for i, (f, p) in enumerate(zip(ta.files.tolist(), ta.paths.tolist()))
        }
    return out


def test_inex2002() -> None:
    assessments = read_inex_assessments(DATA / "assessments-2002.xml")
    assert assessments.scale == "inex2002"
    ta = assessments["45"]
    assert ta.files.tolist() == ["co/2000/r7108"] * 3 + ["tc/2001/t0111"]
    assert ta.paths[3] == "/article[1]/bdy[1]/sec[10]"
    assert ta.dims["relevance"].tolist() == [2, 1, 0, 3]
    assert ta.dims["coverage"].tolist() == [3, 1, 0, 3]  # E S N E
    assert ta.explicit.all()


def test_inex2003_double_quotes_exhaustiveness() -> None:
    ta = read_inex_assessments(DATA / "assessments-2003.xml")["91"]
    assert ta.scale == "inex2003"
    assert ta.dims["exhaustivity"].tolist() == [2, 3, 0]
    assert ta.dims["specificity"].tolist() == [1, 3, 0]


def test_inex2004_single_quotes_exhaustivity_element_records() -> None:
    ta = read_inex_assessments(DATA / "assessments-2004.xml")["130"]
    assert ta.paths.tolist() == ["/article[1]/bdy[1]/sec[2]", "/article[1]/bdy[1]"]
    assert ta.dims["exhaustivity"].tolist() == [1, 1]
    assert ta.dims["specificity"].tolist() == [2, 1]


def test_inex2005_highlighting() -> None:
    ta = read_inex_assessments(DATA / "assessments-2005.xml")["203"]
    assert ta.scale == "inex2005"
    assert ta.dims["exhaustivity"].tolist() == [2, 2, -1]
    assert ta.dims["size"].tolist() == [17, 33, 6]
    assert ta.dims["rsize"].tolist() == [17, 17, 6]
    assert ta.passages["co/2000/r7108"] == (
        ("/article[1]/bdy[1]/sec[1]/p[2]/text()[1].0", "/article[1]/bdy[1]/sec[1]/p[2]/text()[2].6"),
        ("/article[1]/bdy[1]/sec[2]/p[1]", "/article[1]/bdy[1]/sec[2]/p[1]"),
    )
    assert ta.best_entry_points == {"co/2000/r7108": "/article[1]/bdy[1]/sec[1]/p[2]/text()[1].0"}


def test_folder_of_per_topic_files(tmp_path: Path) -> None:
    for name in ("assessments-2003.xml", "assessments-2004.xml"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        (tmp_path / "sub" / name).write_bytes((DATA / name).read_bytes())
    assessments = read_inex_assessments(tmp_path)
    assert sorted(assessments) == ["130", "91"]
    (tmp_path / "again.xml").write_bytes((DATA / "assessments-2003.xml").read_bytes())
    with pytest.raises(FormatError, match="topic 91 is assessed in"):
        read_inex_assessments(tmp_path)


def test_forced_scale_must_match() -> None:
    with pytest.raises(FormatError, match="inex2003 record in inex2002"):
        read_inex_assessments(DATA / "assessments-2003.xml", scale="inex2002")
    with pytest.raises(InexevalError, match="unknown"):
        read_inex_assessments(DATA / "assessments-2003.xml", scale="inex1999")


def test_parse_xpointer() -> None:
    assert parse_xpointer("/article[1]/bdy[1]/p[3]/text()[2].15") == XPointer(
        "/article[1]/bdy[1]/p[3]", 2, 15)
    assert parse_xpointer("/article/bdy") == XPointer("/article[1]/bdy[1]", 0, None)
    assert parse_xpointer("/a[1]/p[2]/text()") == XPointer("/a[1]/p[2]", 1, None)
    for bad in ("a/b", "/a[1]/text()[0].1", "/a[1]/p[last()]", ""):
        with pytest.raises(InexevalError):
            parse_xpointer(bad)


def write(tmp_path: Path, body: str, topic: str = "7") -> Path:
    file = tmp_path / "a.xml"
    file.write_text(f'<assessments topic="{topic}">\n<file file="d1">\n{body}\n</file>\n</assessments>\n')
    return file


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('<path path="/a[1]" relevance="3" coverage="S"/>', "invalid INEX 2002"),
        ('<path path="/a[1]" relevance="0" coverage="E"/>', "invalid INEX 2002"),
        ('<path path="/a[1]" relevance="2" coverage="N"/>', "invalid INEX 2002"),
        ('<path path="/a[1]" relevance="4" coverage="E"/>', "invalid INEX 2002"),
        ('<path path="/a[1]" exhaustiveness="0" specificity="2"/>', "invalid INEX 2003"),
        ('<path path="/a[1]" exhaustivity="2" specificity="0"/>', "invalid INEX 2003"),
        ('<path path="/a[1]" exhaustivity="x" specificity="1"/>', "not an integer"),
        ('<element path="/a[1]" exhaustivity="1" size="10" rsize="11"/>', "0 < rsize <= size"),
        ('<element path="/a[1]" exhaustivity="1" size="10" rsize="0"/>', "0 < rsize <= size"),
        ('<element path="/a[1]" exhaustivity="1" size="10" rsize="-3"/>', "0 < rsize <= size"),
        ('<element path="/a[1]" exhaustivity="3" size="10" rsize="3"/>', "exhaustivity"),
        ('<element path="/a[1]" exhaustivity="1" size="10"/>', "no 'rsize'"),
        ('<element path="/a[1]" exhaustivity="1"/>', "cannot tell the assessment scale"),
        ('<path path="a[1]/b" relevance="1" coverage="S"/>', "not an absolute path"),
        ('<path path="//p" relevance="1" coverage="S"/>', "not an absolute path"),
        ('<path path="/a[1]/p[last()]" relevance="1" coverage="S"/>', "unsupported step"),
        ('<path path="/a[0]" relevance="1" coverage="S"/>', "position below 1"),
        ('<path relevance="1" coverage="S"/>', "no 'path'"),
        ('<passage start="/a[1]/text()[1].0" end="//b" size="3"/>', "not an absolute path"),
        ('<passage start="/a[1]" end="/a[1]" size="-3"/>', "negative passage size"),
    ],
)
def test_bad_records_name_file_and_line(tmp_path: Path, body: str, message: str) -> None:
    file = write(tmp_path, body)
    with pytest.raises(FormatError, match=message) as caught:
        read_inex_assessments(file)
    assert caught.value.file == str(file)
    assert caught.value.line == 3


def test_duplicated_paths_are_refused(tmp_path: Path) -> None:
    file = write(tmp_path, '<path path="/a[1]/b[1]" relevance="1" coverage="S"/>\n'
                           '<path path="/a/b" relevance="2" coverage="E"/>')
    with pytest.raises(FormatError, match=r"duplicated .* \(first at line 3\)") as caught:
        read_inex_assessments(file)
    assert caught.value.line == 4


def test_malformed_and_misplaced(tmp_path: Path) -> None:
    file = tmp_path / "a.xml"
    file.write_text('<assessments topic="1">\n<file file="d">\n<path path="/a[1]"\n</assessments>')
    with pytest.raises(FormatError, match="malformed XML"):
        read_inex_assessments(file)
    file.write_text('<assessments topic="1"><path path="/a[1]" relevance="1" coverage="S"/></assessments>')
    with pytest.raises(FormatError, match="outside"):
        read_inex_assessments(file)
    file.write_text('<assessments><file file="d"/></assessments>')
    with pytest.raises(FormatError, match="no topic"):
        read_inex_assessments(file)
    file.write_text('<assessments topic="1"><file><path path="/a[1]" relevance="1" coverage="S"/></file></assessments>')
    with pytest.raises(FormatError, match="no file or name"):
        read_inex_assessments(file)
    with pytest.raises(InexevalError, match="no such"):
        read_inex_assessments(tmp_path / "absent.xml")


def test_non_utf8_without_declaration(tmp_path: Path) -> None:
    file = tmp_path / "a.xml"
    file.write_bytes(b'<assessments topic="1">\n<file file="caf\xe9"/></assessments>')
    with pytest.raises(FormatError) as caught:
        read_inex_assessments(file)
    assert caught.value.line == 2


def test_streaming_a_large_file_frees_consumed_elements(tmp_path: Path) -> None:
    file = tmp_path / "big.xml"
    with open(file, "w") as out:
        out.write('<assessments topic="1">')
        for d in range(2000):
            out.write(f'<file file="d{d}">')
            out.writelines(f'<path path="/article[1]/p[{p}]" exhaustivity="3" specificity="{p % 3 + 1}"/>' for p in range(1, 11))
            out.write("</file>")
        out.write("</assessments>")
    ta = read_inex_assessments(file)["1"]
    assert len(ta) == 20_000
    assert ta.dims["specificity"].sum() == 2000 * sum(p % 3 + 1 for p in range(1, 11))


RECORD = st.tuples(
    st.sampled_from(["d1", "d2", "co/2000/r7108"]),
    st.lists(st.integers(1, 3), min_size=0, max_size=3),
    st.sampled_from([(0, 0)] + [(e, s) for e in (1, 2, 3) for s in (1, 2, 3)]),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(RECORD, min_size=1, max_size=25, unique_by=lambda r: (r[0], tuple(r[1]))),
       st.randoms(use_true_random=False))
def test_shuffling_records_changes_nothing(tmp_path_factory: pytest.TempPathFactory,
                                           rows: list[tuple[str, list[int], tuple[int, int]]],
                                           random: object) -> None:
    folder = tmp_path_factory.mktemp("shuffle")

    def write_order(order: list[tuple[str, list[int], tuple[int, int]]], name: str) -> Path:
        file = folder / name
        lines = ['<assessments topic="5">']
        for doc, steps, (e, s) in order:
            path = "/article[1]" + "".join(f"/sec[{k}]" for k in steps)
            lines.append(f'<file file="{doc}"><path path="{path}" exhaustiveness="{e}" '
                         f'specificity="{s}"/></file>')
        lines.append("</assessments>")
        file.write_text("\n".join(lines))
        return file

    shuffled = list(rows)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    first = read_inex_assessments(write_order(rows, "a.xml"))
    second = read_inex_assessments(write_order(shuffled, "b.xml"))
    assert records(first) == records(second)
    assert len(first["5"]) == len(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(np.sort(first["5"].dims["exhaustivity"]),
                              np.sort(second["5"].dims["exhaustivity"]))
