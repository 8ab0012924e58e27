"""The element index on a small collection in the IEEE layout: paths, offsets, entities."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from inexeval.collection import paths as P
from inexeval.collection.build import (
    IndexedDocument,
    build_index,
    index_document,
    load_collection,
    load_index,
    save_index,
)
from inexeval.commands import index as index_command
from inexeval.errors import FormatError, InexevalError

COLLECTION = Path(__file__).parents[1] / "data" / "ieee_sample"

# Worked by hand from tests/data/ieee_sample/co/2000/r7108.xml: "IEEE Computer" (13),
# "Caf&eacute; &amp; XML" (10: each entity one character), "Intro" (5), "First para." (11),
# "Second " (7) + "para" (4) + "graph." (6), "Two" (3), "Third." (6), "Appendix text." (14).
EXPECTED = {
    "/article[1]": (0, 79, 1),
    "/article[1]/fm[1]": (0, 23, 2),
    "/article[1]/fm[1]/ti[1]": (0, 13, 3),
    "/article[1]/fm[1]/atl[1]": (13, 23, 3),
    "/article[1]/bdy[1]": (23, 65, 2),
    "/article[1]/bdy[1]/sec[1]": (23, 56, 3),
    "/article[1]/bdy[1]/sec[1]/st[1]": (23, 28, 4),
    "/article[1]/bdy[1]/sec[1]/p[1]": (28, 39, 4),
    "/article[1]/bdy[1]/sec[1]/p[2]": (39, 56, 4),
    "/article[1]/bdy[1]/sec[1]/p[2]/it[1]": (46, 50, 5),
    "/article[1]/bdy[1]/sec[2]": (56, 65, 3),
    "/article[1]/bdy[1]/sec[2]/st[1]": (56, 59, 4),
    "/article[1]/bdy[1]/sec[2]/p[1]": (59, 65, 4),
    "/article[1]/bm[1]": (65, 79, 2),
    "/article[1]/bm[1]/app[1]": (65, 79, 3),
    "/article[1]/bm[1]/app[1]/p[1]": (65, 79, 4),
}


def check_r7108(doc: IndexedDocument) -> None:
    assert list(doc.paths) == list(EXPECTED)
    for i, (path, (start, end, depth)) in enumerate(EXPECTED.items()):
        assert (int(doc.start[i]), int(doc.end[i]), int(doc.depth[i])) == (start, end, depth)
        assert doc.tags[i] == path.rsplit("/", 1)[1].split("[")[0]
        up = P.parent(path)
        assert int(doc.parent[i]) == (-1 if up is None else doc.find(up))
    assert doc.length == 79
    p2 = doc.find("/article[1]/bdy[1]/sec[1]/p[2]")
    assert doc.text_node(p2, 1) == (39, 46)
    assert doc.text_node(p2, 2) == (50, 56)
    assert doc.text_node(p2, 3) is None
    atl = doc.find("/article[1]/fm[1]/atl[1]")
    assert doc.text_node(atl, 1) == (13, 23)  # entities do not split a text node


def test_index_document_offsets_entities_and_positions() -> None:
    check_r7108(index_document("co/2000/r7108", COLLECTION / "co" / "2000" / "r7108.xml"))


def test_text_nodes_are_split_by_comments_and_elements() -> None:
    doc = index_document("x", b"<a>ab<!--c-->cd<?pi x?>&amp;e<b>f</b>g</a>")
    assert doc.length == 8
    assert [doc.text_node(0, k) for k in (1, 2, 3, 4, 5)] == [(0, 2), (2, 4), (4, 6), (7, 8), None]
    assert doc.span("/a[1]/b[1]") == (6, 7)


def test_build_save_load_and_step_containment(tmp_path: Path) -> None:
    index = build_index(COLLECTION)
    assert sorted(index) == ["co/2000/r7108", "tc/2001/t0111"]
    t0111 = index["tc/2001/t0111"]
    sec1, sec10 = t0111.find("/article[1]/bdy[1]/sec[1]"), t0111.find("/article[1]/bdy[1]/sec[10]")
    assert t0111.span("/article[1]/bdy[1]/sec[10]") == (18, 21)  # "s1".."s9" then "s10"
    # T-OV-2: sec[1] is a string prefix of sec[10] but not its ancestor
    assert not t0111.is_ancestor_or_self(sec1, sec10)
    assert not P.is_ancestor_or_self("/article[1]/bdy[1]/sec[1]", "/article[1]/bdy[1]/sec[10]")
    assert t0111.is_ancestor_or_self(t0111.find("/article[1]/bdy[1]"), sec10)
    saved = tmp_path / "collection.npz"
    save_index(index, saved)
    loaded = load_index(saved)
    assert sorted(loaded) == sorted(index)
    assert loaded.num_docs == 2
    doc = loaded["co/2000/r7108"]
    assert isinstance(doc, IndexedDocument)
    check_r7108(doc)
    assert np.array_equal(loaded["tc/2001/t0111"].end, t0111.end)
    assert load_collection(saved).span("co/2000/r7108", "/article[1]/bm[1]") == (65, 79)
    assert load_collection(COLLECTION).num_docs == 2


def test_saved_index_is_plain_arrays(tmp_path: Path) -> None:
    saved = tmp_path / "ix.npz"
    save_index(build_index(COLLECTION), saved)
    with np.load(saved, allow_pickle=False) as arrays:
        assert all(arrays[k].dtype != object for k in arrays.files)
    bogus = tmp_path / "bogus.npz"
    np.savez(bogus, format=np.frombuffer(b"other", dtype=np.uint8))
    with pytest.raises(FormatError, match="not an inexeval index"):
        load_index(bogus)
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(FormatError, match="not an inexeval index"):
        load_index(tmp_path / "junk.npz")
    with pytest.raises(InexevalError, match="no such"):
        load_collection(tmp_path / "absent")


def test_bad_documents(tmp_path: Path) -> None:
    (tmp_path / "bad.xml").write_text("<article>\n<p>x</article>")
    with pytest.raises(FormatError) as caught:
        build_index(tmp_path)
    assert caught.value.line == 2
    with pytest.raises(FormatError, match="entity"):
        index_document("x", b'<!DOCTYPE a [<!ENTITY e "boom">]><a>&e;</a>')


def test_deep_documents() -> None:
    depth = 250
    doc = index_document("deep", b"<a>" * depth + b"x" + b"</a>" * depth)
    assert len(doc) == depth
    assert int(doc.depth[-1]) == depth
    assert doc.span(doc.paths[-1]) == (0, 1)
    with pytest.raises(FormatError, match="depth"):  # libxml2's limit without huge_tree
        index_document("deeper", b"<a>" * 300 + b"</a>" * 300)


def test_index_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    index_command.add_arguments(parser)
    args = parser.parse_args([str(COLLECTION), "-o", str(tmp_path / "ix.npz"), "--quiet"])
    assert index_command.run(args) == 0
    assert "2 documents, 38 elements" in capsys.readouterr().out
    assert load_index(tmp_path / "ix.npz").num_docs == 2
    args = parser.parse_args([str(COLLECTION), "-o", str(tmp_path / "jobs.npz"), "--quiet",
                              "--jobs", "2"])
    assert index_command.run(args) == 0
    with np.load(tmp_path / "ix.npz") as one, np.load(tmp_path / "jobs.npz") as two:
        assert one.files == two.files
        assert all(np.array_equal(one[key], two[key]) for key in one.files)
