"""Issue 32, item 6: ``pool`` and ``meta pool`` order a TREC (document) run as ``eval`` does,
trec_eval's order (score descending, ties by document id descending), unless ``--order`` says
otherwise; element runs keep their ranks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inexeval.cli import main
from inexeval.formats.pool import read_pool

DOCS = ["a", "b", "c", "d", "e", "f", "g"]


def _trec_run(folder: Path, name: str, scores: list[float]) -> Path:
    """Topic 1: DOCS in file and rank order with these scores."""
    path = folder / f"{name}.run"
    path.write_text("".join(f"1 Q0 {doc} {rank} {score} {name}\n"
                            for rank, (doc, score) in enumerate(zip(DOCS, scores), 1)))
    return path


@pytest.fixture
def tied(tmp_path: Path) -> list[Path]:
    """Seven documents, all tied in one run (trec_eval: g f e d c b a), two ties in the other
    (trec_eval: a, c before b, e before d, f, g)."""
    return [_trec_run(tmp_path, "flat", [1.0] * 7),
            _trec_run(tmp_path, "pairs", [9.0, 5.0, 5.0, 3.0, 3.0, 2.0, 1.0])]


def _pooled(path: Path) -> set[str]:
    return {str(f) for tp in read_pool(path).values() for f in tp.files.tolist()}


def test_pool_orders_tied_trec_runs_as_eval(tied: list[Path], tmp_path: Path) -> None:
    pools = {}
    for order in ([], ["--order", "trec_eval"], ["--order", "rank"]):
        out = tmp_path / f"pool{len(pools)}.tsv"
        assert main(["pool", *map(str, tied), "--depth", "5", *order, "-o", str(out)]) == 0
        pools[tuple(order)] = _pooled(out)
    # by hand: flat's first five by trec_eval are g f e d c, pairs' a c b e d
    assert pools[()] == pools[("--order", "trec_eval")] == {"a", "b", "c", "d", "e", "f", "g"}
    assert pools[("--order", "rank")] == {"a", "b", "c", "d", "e"}


def test_depth_pool_of_one_tied_run(tied: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "flat.tsv"
    assert main(["pool", str(tied[0]), "--depth", "2", "-o", str(out)]) == 0
    assert _pooled(out) == {"g", "f"}


def test_meta_pool_orders_as_pool(tied: list[Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """meta pool re-pools as pool --depth does: its depth-2 level judges the pool --depth 2
    makes (g, f of flat; a, c of pairs), so the level keeps 4 of the qrels' 7 units by
    default and with --order trec_eval, but 2 by rank (a, b of both)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"1 0 {doc} {int(doc in 'bcg')}\n" for doc in DOCS))
    found = {}
    for order in ([], ["--order", "trec_eval"], ["--order", "rank"]):
        assert main(["meta", "pool", str(qrels), *map(str, tied), "-m", "P@5", "--depth", "7",
                     "--depths", "2", "--power", "none", "--format", "json", *order]) == 0
        levels = json.loads(capsys.readouterr().out)["levels"]
        found[tuple(order)] = levels[0]["judged"]
    assert found[()] == found[("--order", "trec_eval")] == 4
    assert found[("--order", "rank")] == 2
