"""Implicit assessments (spec §1.6) and 2005 passage resolution, worked by hand on the sample."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from inexeval.collection.build import build_index
from inexeval.collection.implicit import implicit_assessments, merge_spans, resolve_passages
from inexeval.collection.index import CollectionIndex
from inexeval.errors import InexevalError
from inexeval.formats.inex_assessments import read_inex_assessments
from inexeval.model.assessments import build_topic

DATA = Path(__file__).parents[1] / "data"


@pytest.fixture(scope="module")
def collection() -> CollectionIndex:
    return build_index(DATA / "ieee_sample")


def rows(ta: object) -> dict[tuple[str, str], tuple[object, ...]]:
    out = {}
    for i, (f, p) in enumerate(zip(ta.files.tolist(), ta.paths.tolist())):  # type: ignore[attr-defined]
        out[(f, p)] = tuple(ta.dims[n][i].item() for n in sorted(ta.dims)) + (  # type: ignore[attr-defined]
            bool(ta.explicit[i]),)  # type: ignore[attr-defined]
    return out


def test_inex2002_parents_inherit_relevance_and_coverage_l() -> None:
    ta = read_inex_assessments(DATA / "formats" / "assessments-2002.xml")["45"]
    implicit = implicit_assessments(ta)
    got = rows(implicit)  # (coverage, relevance, explicit); L = 2, N = 0, S = 1, E = 3
    r = "co/2000/r7108"
    assert got[(r, "/article[1]/bdy[1]/sec[1]/p[2]")] == (3, 2, True)
    assert got[(r, "/article[1]/bdy[1]/sec[1]")] == (2, 2, False)  # parent of 2E: 2L
    assert got[(r, "/article[1]/bdy[1]/sec[2]")] == (2, 1, False)  # parent of 1S only: 1L
    assert got[(r, "/article[1]/bdy[1]")] == (2, 2, False)
    assert got[(r, "/article[1]/fm[1]")] == (0, 0, False)  # parent of 0N: 0N
    assert got[(r, "/article[1]")] == (2, 2, False)
    t = "tc/2001/t0111"
    assert got[(t, "/article[1]/bdy[1]")] == (2, 3, False)  # parent of 3E: 3L
    assert got[(t, "/article[1]")] == (2, 3, False)
    assert len(implicit) == 4 + 5 + 2
    assert implicit.explicit[:4].all() and not implicit.explicit[4:].any()


def test_inex2002_explicit_parents_are_kept() -> None:
    ta = build_topic("1", "inex2002", [
        ("d", "/a[1]/b[1]", {"relevance": 3, "coverage": 3}),
        ("d", "/a[1]", {"relevance": 1, "coverage": 2}),
    ], dim_types={"relevance": int, "coverage": int})
    assert len(implicit_assessments(ta)) == 2
    assert implicit_assessments(ta).dims["relevance"].tolist() == [3, 1]


def test_inex2003_is_unchanged() -> None:
    ta = read_inex_assessments(DATA / "formats" / "assessments-2003.xml")["91"]
    assert implicit_assessments(ta) is ta


def test_inex2005_passages_and_implicit_ancestors(collection: CollectionIndex) -> None:
    ta = read_inex_assessments(DATA / "formats" / "assessments-2005.xml")["203"]
    resolved = resolve_passages(ta, collection)
    # p[2] = "Second " [39,46) + it "para" + "graph." [50,56): text()[1].0 .. text()[2].6;
    # sec[2]/p[1] = "Third." [59,65) as a whole element.
    assert resolved.highlights["co/2000/r7108"].tolist() == [[39, 56], [59, 65]]
    assert resolved.best_entry_points == {"co/2000/r7108": 39}
    # the file's sizes agree with the collection's character counts
    for i, path in enumerate(resolved.paths):
        start, end = collection["co/2000/r7108"].span(path)  # type: ignore[misc]
        assert resolved.dims["size"][i] == end - start
    implicit = implicit_assessments(resolved, collection)
    got = rows(implicit)  # (exhaustivity, rsize, size, explicit)
    r = "co/2000/r7108"
    assert got[(r, "/article[1]/bdy[1]/sec[2]")] == (-1, 6.0, 9.0, False)
    assert got[(r, "/article[1]/bdy[1]")] == (2, 23.0, 42.0, False)
    assert got[(r, "/article[1]")] == (2, 23.0, 79.0, False)
    assert len(implicit) == 6


def test_inex2005_without_collection_leaves_sizes_unknown() -> None:
    ta = read_inex_assessments(DATA / "formats" / "assessments-2005.xml")["203"]
    implicit = implicit_assessments(ta)
    added = ~implicit.explicit
    assert added.sum() == 3
    assert np.isnan(implicit.dims["size"][added]).all()
    assert np.isnan(implicit.dims["rsize"][added]).all()


def test_inex2005_judged_ancestors_are_raised() -> None:
    ta = build_topic("1", "inex2005", [
        ("d", "/a[1]", {"exhaustivity": -1, "size": 10.0, "rsize": 5.0}),
        ("d", "/a[1]/b[1]/c[1]", {"exhaustivity": 2, "size": 2.0, "rsize": 2.0}),
        ("d", "/a[1]/x[1]", {"exhaustivity": 1, "size": 2.0, "rsize": 2.0}),
    ], dim_types={"exhaustivity": int, "size": float, "rsize": float})
    implicit = implicit_assessments(ta)
    assert implicit.dims["exhaustivity"].tolist() == [2, 2, 1, 2]
    assert implicit.paths.tolist()[3] == "/a[1]/b[1]"
    assert implicit.explicit.tolist() == [True, True, True, False]


def test_bad_passages(collection: CollectionIndex) -> None:
    def passage(start: str, end: str, file: str = "co/2000/r7108") -> object:
        ta = build_topic("1", "inex2005", [], dim_types={})
        from dataclasses import replace

        return resolve_passages(replace(ta, passages={file: ((start, end),)}), collection)

    p2 = "/article[1]/bdy[1]/sec[1]/p[2]"
    with pytest.raises(InexevalError, match="no text node 3"):
        passage(f"{p2}/text()[3].0", f"{p2}/text()[3].1")
    with pytest.raises(InexevalError, match="beyond the end"):
        passage(f"{p2}/text()[1].8", f"{p2}/text()[2].1")
    with pytest.raises(InexevalError, match="ends before it starts"):
        passage(f"{p2}/text()[2].1", f"{p2}/text()[1].1")
    with pytest.raises(InexevalError, match="not in document"):
        passage("/article[1]/bdy[1]/sec[3]", p2)
    with pytest.raises(InexevalError, match="not in the collection"):
        passage(p2, p2, "co/2000/zzz")


def test_merge_spans() -> None:
    spans = np.array([[5, 9], [0, 3], [3, 4], [8, 12], [20, 20], [15, 18]], dtype=np.int64)
    assert merge_spans(spans).tolist() == [[0, 4], [5, 12], [15, 18]]
    assert merge_spans(np.zeros((0, 2), dtype=np.int64)).shape == (0, 2)
