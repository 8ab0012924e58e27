"""Element runs on FOL (passage) qrels, and precision at k on FOL qrels, on the real INEX 2010
qrels.

INEX 2009-2010 scored element submissions as the passages of their elements (spec §5.2):
with the collection an element run gets exactly the numbers of the FOL run ``inexeval convert
run`` makes of it; without a collection it cannot be scored, which is one error line. On FOL
qrels a result counts for P@k when it holds highlighted text, not because its article is
relevant somewhere else."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import DATA, needs_shared

from inexeval.cli import main
from inexeval.evaluation import evaluate
from inexeval.formats.detect import load_assessments, load_run

pytestmark = needs_shared

QRELS = DATA / "inex2010" / "inex2010.qrels"
TOPIC = "2010017"
ARTICLES = 5


@pytest.fixture(scope="module")
def qrels():  # type: ignore[no-untyped-def]
    return load_assessments(QRELS).select({TOPIC})


@pytest.fixture(scope="module")
def layout(qrels, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """A collection of the topic's first relevant articles at their real lengths, each cut into
    ``<sec>`` elements at the highlighted passages' boundaries, and the same run of all these
    elements in document order as an element run (TREC-like), an INEX XML submission and a FOL
    run."""
    folder = tmp_path_factory.mktemp("fol-elements")
    (folder / "coll").mkdir()
    judged = qrels[TOPIC]
    lengths = dict(zip(judged.files.tolist(), judged.dim("length").tolist()))
    relevant = [f for f, r in zip(judged.files.tolist(), judged.dim("rsize").tolist()) if r > 0]
    trec, fol, xml = [], [], []
    rank = 0
    for article in relevant[:ARTICLES]:
        spans = judged.highlights[article]
        cuts = sorted({0, int(lengths[article]), *spans.ravel().tolist()})
        body = "".join(f"<sec>{'x' * (b - a)}</sec>" for a, b in pairwise(cuts))
        (folder / "coll" / f"{article}.xml").write_text(f"<article><bdy>{body}</bdy></article>")
        for k, (a, b) in enumerate(pairwise(cuts), 1):
            rank += 1
            path = f"/article[1]/bdy[1]/sec[{k}]"
            trec.append(f"{TOPIC} Q0 {article} {rank} {100 - rank} elements {path}\n")
            fol.append(f"{TOPIC} Q0 {article} {rank} {100 - rank} elements {a} {b - a}\n")
            xml.append(f"<result><file>{article}</file><path>{path}</path>"
                       f"<rank>{rank}</rank></result>")
    (folder / "el.run").write_text("".join(trec))
    (folder / "el.fol").write_text("".join(fol))
    (folder / "el.xml").write_text(
        f'<inex-submission participant-id="1" run-id="elements" task="Focused">'
        f'<topic topic-id="{TOPIC}">{"".join(xml)}</topic></inex-submission>')
    return {"folder": folder, "lines": fol}


def _eval(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main(["eval", str(QRELS), "--topics", TOPIC, *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("run", ["el.run", "el.xml"])
@pytest.mark.parametrize("how", [["--task", "focused", "-q"],
                                 ["-m", "MAiP", "-m", "iP[0.01]", "-m", "P@5", "-q"]])
def test_an_element_run_scores_as_its_passages_with_the_collection(
        layout, capsys: pytest.CaptureFixture[str], run: str, how: list[str]) -> None:  # type: ignore[no-untyped-def]
    folder = layout["folder"]
    code, elements, err = _eval(capsys, folder / run, "--collection", folder / "coll", *how)
    assert code == 0, err
    _, passages, _ = _eval(capsys, folder / "el.fol", *how)
    assert elements == passages
    values = {line.split("\t")[0]: float(line.split("\t")[2])
              for line in elements.splitlines() if line.split("\t")[1] == "all"}
    assert values["MAiP"] > 0 and values["iP[0.01]"] > 0


def test_character_counts_of_the_element_run_are_the_highlighted_text(
        layout, qrels, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    folder = layout["folder"]
    code, out, err = _eval(capsys, folder / "el.run", "--collection", folder / "coll",
                           "--task", "focused", "-q")
    assert code == 0, err
    judged = qrels[TOPIC]
    relevant = retrieved = 0
    for line in layout["lines"]:
        article, start, length = line.split()[2], int(line.split()[6]), int(line.split()[7])
        retrieved += length
        relevant += sum(max(0, min(b, start + length) - max(a, start))
                        for a, b in judged.highlights[article].tolist())
    values = {line.split("\t")[0]: line.split("\t")[2] for line in out.splitlines()}
    assert int(values["ret_size"]) == retrieved and int(values["rel_ret_size"]) == relevant
    assert relevant > 0


@pytest.mark.parametrize("run", ["el.run", "el.xml"])
@pytest.mark.parametrize("how", [["--task", "focused"], ["-m", "P@10"], []])
def test_without_a_collection_an_element_run_is_one_error_line(
        layout, capsys: pytest.CaptureFixture[str], run: str, how: list[str]) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _eval(capsys, layout["folder"] / run, *how)
    assert code == 2 and out == ""
    errors = [line for line in err.splitlines() if line.startswith("inexeval: error:")]
    assert len(errors) == 1 and "needs the collection" in errors[0], err
    assert "Traceback" not in err


def test_compare_scores_element_runs_as_passages(
        layout, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    folder = layout["folder"]
    code = main(["compare", str(QRELS), str(folder / "el.xml"), str(folder / "el.fol"),
                 "--topics", TOPIC, "--collection", str(folder / "coll"), "--task", "focused",
                 "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = [line.split(",") for line in out.splitlines()[1:]]
    assert rows and all(float(r[5]) == float(r[6]) > 0 for r in rows if r[0] == "MAiP")


def _highlighted_precision(qrels, run, k: int) -> float:  # type: ignore[no-untyped-def]
    """Mean over the run's assessed topics of the share of its first k passages (by rank) that
    hold highlighted text, computed passage by passage."""
    shares = []
    for topic, results in run.items():
        if topic not in qrels:
            continue
        order = np.argsort(results.ranks, kind="stable")[:k]
        hits = 0
        for i in order.tolist():
            spans = qrels[topic].highlights.get(results.files[i], np.zeros((0, 2), np.int64))
            start, end = int(results.offsets[i]), int(results.offsets[i] + results.lengths[i])
            hits += bool(not results.missing[i] and
                         np.any((spans[:, 0] < end) & (spans[:, 1] > start)))
        shares.append(hits / k)
    return float(np.mean(shares))


def test_precision_at_k_on_fol_qrels_counts_passages_with_highlighted_text() -> None:
    qrels = load_assessments(DATA / "ipcs" / "INEX_Qrels.txt")
    run = load_run(DATA / "ipcs" / "bert_inex_converted_1.run")
    results = evaluate(qrels, run, ["P@5", "P@10", "art_prec"])
    for k in (5, 10):
        assert results.mean(f"P@{k}") == pytest.approx(_highlighted_precision(qrels, run, k))
    # the article-level count is higher: passages of relevant articles without highlighted text
    articles = np.mean([
        np.mean([f in set(qrels[t].files[qrels[t].dim("rsize") > 0].tolist())
                 for f in run[t].files[np.argsort(run[t].ranks, kind="stable")[:10]]])
        for t in run if t in qrels])
    assert results.mean("P@10") < articles


def test_a_passage_without_highlighted_text_is_not_relevant_but_its_article_is(
        qrels, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    judged = qrels[TOPIC]
    article = next(f for f, r in zip(judged.files.tolist(), judged.dim("rsize").tolist()) if r > 0)
    first = int(judged.highlights[article][:, 0].min())
    assert first > 0  # the article starts with text that is not highlighted
    run = tmp_path / "r.fol"
    run.write_text(f"{TOPIC} Q0 {article} 1 2 r 0 {first}\n"
                   f"{TOPIC} Q0 {article} 2 1 r {first} 1\n")
    code, out, err = _eval(capsys, run, "-m", "P@1", "-m", "P@2", "-q")
    assert code == 0, err
    values = {line.split("\t")[0]: float(line.split("\t")[2]) for line in out.splitlines()
              if line.split("\t")[1] == TOPIC}
    assert values == {"P@1": 0.0, "P@2": 0.5}
    documents = tmp_path / "d.run"
    documents.write_text(f"{TOPIC} Q0 {article} 1 2 r\n")
    code, out, err = _eval(capsys, documents, "-m", "P@1", "-q")
    assert code == 0, err
    assert f"P@1\t{TOPIC}\t1.0000" in out


def test_a_document_run_under_a_task_is_its_whole_articles(
        layout, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    """A 6-column document run scored by a task: with the collection each article is its whole
    text (as the FOL run of whole articles); without, one error line (no negative sizes)."""
    folder = layout["folder"]
    articles = list(dict.fromkeys(line.split()[2] for line in layout["lines"]))
    (folder / "docs.run").write_text("".join(f"{TOPIC} Q0 {a} {r} {9 - r} docs\n"
                                             for r, a in enumerate(articles, 1)))
    lengths = {a: len((folder / "coll" / f"{a}.xml").read_text())
               - len("<article><bdy></bdy></article>")
               - 11 * (folder / "coll" / f"{a}.xml").read_text().count("<sec>") for a in articles}
    (folder / "docs.fol").write_text("".join(f"{TOPIC} Q0 {a} {r} {9 - r} docs 0 {lengths[a]}\n"
                                             for r, a in enumerate(articles, 1)))
    code, documents, err = _eval(capsys, folder / "docs.run", "--collection", folder / "coll",
                                 "--task", "focused", "-q")
    assert code == 0, err
    _, whole, _ = _eval(capsys, folder / "docs.fol", "--task", "focused", "-q")
    assert documents == whole
    code, out, err = _eval(capsys, folder / "docs.run", "--task", "focused")
    assert code == 2 and out == ""
    assert err.strip().splitlines()[-1].startswith(f"inexeval: error: {folder / 'docs.run'}")
    assert "needs the collection" in err
