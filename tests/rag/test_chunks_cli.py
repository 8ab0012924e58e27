"""``inexeval eval QUESTIONS.csv RUN...`` and ``inexeval chunks`` on Chroma's questions: values
equal to the official code through the command line, the chunkers, BM25, and every malformed
input one line naming file and line (or question), exit 2."""

from __future__ import annotations

import csv
import io
import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from tests.rag.official import DATA, metadatas, scores

from inexeval.cli import main
from inexeval.formats.chroma import read_chunking, read_questions
from inexeval.rag.chunkers import fixed, parse_chunker, recursive

CSV = DATA / "questions_df.csv"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _values(out: str) -> dict[tuple[str, str, str], float]:
    return {(r["run"], r["topic"], r["measure"]): float(r["value"])
            for r in csv.DictReader(io.StringIO(out))}


def test_eval_fol_and_jsonl_runs_equal_the_official_code(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = read_questions(CSV)
    chunks = parse_chunker("fixed:300:100").chunk(questions.corpora)
    rng = np.random.default_rng(5)
    fol, jsonl, official_rankings = [], [], []
    for q in questions.questions:
        pick = rng.choice(len(chunks), size=6, replace=False)
        near = np.flatnonzero((chunks.docs == q.corpus_id)
                              & (chunks.starts <= q.excerpts[0, 1])
                              & (chunks.ends >= q.excerpts[0, 0]))
        pick[rng.integers(0, 6)] = near[0]
        official_rankings.append(metadatas(chunks.docs[pick], chunks.starts[pick],
                                           chunks.ends[pick]))
        for rank, i in enumerate(pick, 1):
            s, e = int(chunks.starts[i]), int(chunks.ends[i])
            fol.append(f"{q.qid} Q0 {chunks.docs[i]} {rank} {10 - rank} mine {s} {e - s}\n")
            jsonl.append(json.dumps({"qid": q.qid, "doc": chunks.docs[i], "start": s, "end": e,
                                     "score": 10 - rank}) + "\n")
    # the lines in another order: the ranks (FOL) and scores (JSONL) order them
    (tmp_path / "run.fol").write_text("".join(reversed(fol)))
    (tmp_path / "run.jsonl").write_text("".join(reversed(jsonl)))
    official = scores(CSV, metadatas(chunks.docs, chunks.starts, chunks.ends),
                      official_rankings, 5)
    code, out, err = _run(capsys, "eval", str(CSV), str(tmp_path / "run.fol"),
                          str(tmp_path / "run.jsonl"), "-m", "chroma_R@5", "-m", "chroma_P@5",
                          "-m", "chroma_IoU@5", "-q", "--format", "csv")
    assert code == 0, err
    values = _values(out)
    for run in ("mine", "run.jsonl"):
        for name in ("chroma_R@5", "chroma_P@5", "chroma_IoU@5"):
            assert [values[(run, q.qid, name)] for q in questions.questions] == official[name]
            assert values[(run, "all", name)] == np.mean(official[name])


def test_fixed_chunker_by_hand() -> None:
    assert fixed(10, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert fixed(11, 4, 1) == [(0, 4), (3, 7), (6, 10), (9, 11)]
    assert fixed(3, 4, 0) == [(0, 3)]
    assert fixed(8, 4, 0) == [(0, 4), (4, 8)]
    assert fixed(0, 4, 0) == []


def test_recursive_chunker_cuts_at_paragraphs_first() -> None:
    text = "One two. Three four.\n\nFive six seven.\nEight nine ten eleven twelve thirteen."
    chunks = recursive(text, 25, 0)
    assert [text[s:e] for s, e in chunks][:2] == ["One two. Three four.\n\n", "Five six seven.\n"]
    assert chunks[0][0] == 0 and chunks[-1][1] == len(text)
    assert all(b[0] == a[1] for a, b in itertools.pairwise(chunks))


@pytest.mark.parametrize("size,overlap", [(200, 0), (500, 100), (800, 400), (30, 29)])
def test_recursive_chunker_invariants(size: int, overlap: int) -> None:
    text = read_questions(CSV).corpora["chatlogs"]
    chunks = np.array(recursive(text, size, overlap))
    assert chunks[0, 0] == 0 and chunks[-1, 1] == len(text)
    assert (chunks[:, 1] - chunks[:, 0] <= size).all() and (chunks[:, 1] > chunks[:, 0]).all()
    assert (chunks[1:, 0] > chunks[:-1, 0]).all()  # progress
    assert (chunks[1:, 0] <= chunks[:-1, 1]).all()  # no gap
    assert (chunks[:-1, 1] - chunks[1:, 0] <= overlap).all()


def test_chunks_of_files_and_chunkers_agree_with_the_official_code(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "chunks"
    code, out, err = _run(capsys, "chunks", str(CSV), "--chunker", "fixed:400:0",
                          "--chunker", "recursive:800:400", "--write-chunks", str(out_dir),
                          "--format", "csv", "-q")
    assert code == 0, err
    by_chunker = _values(out)
    questions = read_questions(CSV)
    for name in ("fixed:400:0", "recursive:800:400"):
        path = out_dir / f"{name.replace(':', '-')}.tsv"
        chunks = read_chunking(path, questions.corpora)
        assert chunks.starts.tolist() == [s for d in questions.corpora for s, _ in
                                          parse_chunker(name).split(questions.corpora[d])]
        official = scores(CSV, metadatas(chunks.docs, chunks.starts,
                                         chunks.ends))["chroma_P_omega"]
        assert [by_chunker[(name, q.qid, "chroma_P_omega")]
                for q in questions.questions] == official
        code, out, err = _run(capsys, "chunks", str(CSV), str(path), "--format", "csv")
        assert code == 0, err
        assert _values(out)[(path.name, "all", "chroma_P_omega")] == np.mean(official)


def test_chunks_table_with_bm25(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bm25s")
    code, out, err = _run(capsys, "chunks", str(CSV), "--chunker", "fixed:400:0",
                          "--chunker", "recursive:800:400", "--retriever", "bm25")
    assert code == 0, err
    lines = out.splitlines()
    header = lines[0].split("\t")
    assert header[1] == "chroma_P_omega" and "chroma_R@1" in header and "legal_P@10" in header
    assert len(header) == 1 + 1 + 5 * 4
    assert [line.split("\t")[0] for line in lines[1:]] == ["fixed:400:0", "recursive:800:400"]
    recall = [float(v) for v in lines[1].split("\t")[header.index("chroma_R@1"):][:4]]
    assert recall == sorted(recall) and 0.2 < recall[0] < recall[-1] <= 1


def test_bm25_scores_are_bm25s_scores() -> None:
    bm25s = pytest.importorskip("bm25s")
    from inexeval.rag.retrieve import CorpusWords, _scores

    questions = read_questions(CSV)
    chunks = parse_chunker("recursive:300:0").chunk(questions.corpora)
    words = CorpusWords(questions.corpora)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenization.Tokenized(ids=words.of_chunks(chunks),
                                                 vocab=dict(words.vocabulary)),
                    show_progress=False)
    asked = [words.query(q.text) for q in questions.questions[:40]]
    ours = _scores(retriever.scores, asked, words.vocabulary)
    for row, query in zip(ours, asked):
        assert np.allclose(row, retriever.get_scores(query), rtol=1e-5, atol=1e-5)
    # the words of a chunk are bm25s's tokens of its text (the recursive chunks end at spaces)
    texts = [questions.corpora[d][s:e] for d, s, e in zip(chunks.docs, chunks.starts,
                                                          chunks.ends)][:200]
    tokens = bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)
    inverse = {i: w for w, i in words.vocabulary.items()}
    assert [[inverse[i] for i in ids] for ids in words.of_chunks(chunks)[:200]] == tokens


def test_a_retriever_run_per_chunking(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "r.fol"
    run.write_text("0 Q0 state_of_the_union 1 1 r 27346 79\n")
    code, out, err = _run(capsys, "chunks", str(CSV), "--chunker", "fixed:400:0",
                          "--retriever", str(run), "-m", "chroma_R@1", "-m", "legal_P@1",
                          "--format", "csv", "-q")
    assert code == 0, err
    values = _values(out)
    assert values[("fixed:400:0", "0", "chroma_R@1")] == 79 / (79 + 157)
    assert values[("fixed:400:0", "0", "legal_P@1")] == 1.0
    assert values[("fixed:400:0", "1", "chroma_R@1")] == 0.0


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    return folder


def _csv_with(folder: Path, row: list[str]) -> Path:
    path = folder / "questions_df.csv"
    with open(path, "a", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerow(row)
    return path


def _one_error(capsys: pytest.CaptureFixture[str], args: list[str], *expected: str) -> None:
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("inexeval: error: "), err
    for text in expected:
        assert text in err, err


BAD_QUESTIONS = [
    (["q", "[{\"content\": \"My\", \"start_index\": 0, \"end_index\": 2}]", "chatlogs"],
     "question 132: reference 0: its content is not the corpus text"),
    (["q", "not json", "chatlogs"], "question 132: references are not JSON"),
    (["q", "[]", "chatlogs"], "question 132: references must be a non-empty JSON list"),
    (["q", "[{\"content\": \"\", \"start_index\": 5, \"end_index\": 4}]", "chatlogs"],
     "question 132: reference 0: end 4 before start 5"),
    (["q", "[{\"content\": \"\", \"start_index\": 99999999, \"end_index\": 99999999}]",
      "chatlogs"], "beyond the document's"),
    (["q", "[{\"content\": \"x\", \"start_index\": 0, \"end_index\": 1}]", "nowhere"],
     "no corpus file nowhere.*"),
    (["q", "[{\"content\": \"x\", \"start_index\": \"0\", \"end_index\": 1}]", "chatlogs"],
     "must be whole numbers"),
    (["q", "x"], "question 132: 2 fields, expected 3"),
]


@pytest.mark.parametrize("row,expected", BAD_QUESTIONS)
def test_malformed_questions(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             row: list[str], expected: str) -> None:
    path = _csv_with(_copy(tmp_path), row)
    _one_error(capsys, ["chunks", str(path), "--chunker", "fixed:100:0"],
               f"{path}:134: ", expected)


BAD_RUNS = [
    ("0 Q0 chatlogs 1 1 r 0\n", "7 fields, expected 8"),
    ("0 Q0 chatlogs 1 1 r 0 999999\n", "beyond the document's"),
    ("0 Q0 elsewhere 1 1 r 0 5\n", "'elsewhere' is not a corpus of the questions"),
    ("0 Q0 chatlogs one 1 r 0 5\n", "rank 'one' is not a whole number"),
    ("0 Q0 chatlogs 1 1 r -3 5\n", "negative offset"),
    ("0 Q0 chatlogs 1 1 r 3 -5\n", "negative length"),
    ('{"qid": 0, "doc": "chatlogs", "start": 5, "end": 3, "score": 1}\n', "end 3 before start 5"),
    ('{"qid": 0, "doc": "chatlogs", "start": 5, "score": 1}\n', "missing end"),
    ('{"qid": 0, "doc": "chatlogs", "start": 5, "end": 9, "score": "x"}\n', "is not a number"),
    ("[1]\n", "not a JSON object"),
]


@pytest.mark.parametrize("text,expected", BAD_RUNS)
def test_malformed_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                        expected: str) -> None:
    run = tmp_path / "run.txt"
    good = ('{"qid": 0, "doc": "chatlogs", "start": 0, "end": 5, "score": 1}\n'
            if text[0] in "{[" else "0 Q0 chatlogs 1 1 r 0 5\n")
    run.write_text(good + text)
    _one_error(capsys, ["eval", str(CSV), str(run), "-m", "chroma_R@1"], f"{run}:2: ",
               expected)


BAD_CHUNKS = [
    ("chatlogs\t0\n", "2 tab-separated fields, expected 3"),
    ("chatlogs\t5\t3\n", "end 3 before start 5"),
    ("chatlogs\t0\t99999999\n", "beyond the document's"),
    ("other\t0\t3\n", "'other' is not a corpus of the questions"),
    ("chatlogs\tx\t3\n", "start 'x' is not a whole number"),
]


@pytest.mark.parametrize("text,expected", BAD_CHUNKS)
def test_malformed_chunkings(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                             expected: str) -> None:
    chunks = tmp_path / "c.tsv"
    chunks.write_text("chatlogs\t0\t10\n" + text)
    _one_error(capsys, ["chunks", str(CSV), str(chunks)], f"{chunks}:2: ", expected)


@pytest.mark.parametrize("spec", ["fixed:10", "fixed:10:10", "sliding:10:0", "fixed:a:0",
                                  "recursive:0:0"])
def test_malformed_chunkers(capsys: pytest.CaptureFixture[str], spec: str) -> None:
    _one_error(capsys, ["chunks", str(CSV), "--chunker", spec], f"chunker {spec!r}")


def test_p_omega_needs_a_chunking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "r.fol"
    run.write_text("0 Q0 chatlogs 1 1 r 0 5\n")
    _one_error(capsys, ["eval", str(CSV), str(run), "-m", "chroma_P_omega"],
               "chroma_P_omega scores a chunking")
    _one_error(capsys, ["eval", str(CSV), str(run), "-m", "AP"],
               "AP does not apply to a Chroma questions CSV")


def test_compare_two_chunkers_paired_over_the_questions(
        capsys: pytest.CaptureFixture[str]) -> None:
    from scipy import stats

    chunkers = ["--chunker", "fixed:400:0", "--chunker", "recursive:800:400"]
    code, out, err = _run(capsys, "chunks", str(CSV), *chunkers, "-q", "--format", "csv")
    assert code == 0, err
    values = _values(out)
    ids = [q.qid for q in read_questions(CSV).questions]
    a = [values[("fixed:400:0", q, "chroma_P_omega")] for q in ids]
    b = [values[("recursive:800:400", q, "chroma_P_omega")] for q in ids]
    code, out, err = _run(capsys, "chunks", str(CSV), *chunkers, "--compare", "--format", "csv")
    assert code == 0, err
    (row,) = csv.DictReader(io.StringIO(out))
    assert (row["run"], row["baseline"], row["n_topics"]) == ("recursive:800:400", "fixed:400:0",
                                                               "132")
    assert float(row["p_value"]) == pytest.approx(stats.ttest_rel(b, a).pvalue, rel=1e-12)
    assert float(row["delta"]) == pytest.approx(np.mean(b) - np.mean(a), abs=1e-15)
    _one_error(capsys, ["chunks", str(CSV), "--chunker", "fixed:400:0", "--compare"],
               "--compare needs at least two chunkings")


def test_compare_span_runs_pairs_as_every_comparison(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the one topic rule: the questions some run answers (a question a run leaves scoring 0),
    # -c every question; meta's studies pair over the same questions
    from scipy import stats

    questions = read_questions(CSV)
    rng = np.random.default_rng(9)
    paths = []
    for name, among in (("a", questions.questions[:100]), ("b", questions.questions[10:110])):
        lines = []
        for q in among:
            for rank in (1, 2):
                start = max(0, int(q.excerpts[0, 0]) + int(rng.integers(-300, 300)))
                lines.append(f"{q.qid} Q0 {q.corpus_id} {rank} 1 {name} {start} 200\n")
        paths.append(tmp_path / f"{name}.fol")
        paths[-1].write_text("".join(lines))
    code, out, err = _run(capsys, "eval", str(CSV), *map(str, paths), "-c", "-q", "-m",
                          "chroma_R@2", "--format", "csv")
    assert code == 0, err
    values = _values(out)
    a, b = ([values[(run, q.qid, "chroma_R@2")] for q in questions.questions]
            for run in ("a", "b"))
    assert a[-1] == 0.0 and a[105] == 0.0 and b[5] == 0.0  # a question not answered scores 0
    for flag, among in (([], slice(0, 110)), (["-c"], slice(None))):
        code, out, err = _run(capsys, "compare", str(CSV), *map(str, paths), "-m",
                              "chroma_R@2", "--format", "csv", *flag)
        assert code == 0, err
        (row,) = csv.DictReader(io.StringIO(out))
        assert row["n_topics"] == str(len(a[among]))
        assert float(row["p_value"]) == pytest.approx(
            stats.ttest_rel(b[among], a[among]).pvalue, rel=1e-12)
        code, out, err = _run(capsys, "meta", "power", str(CSV), *map(str, paths), "-m",
                              "chroma_R@2", "--format", "csv", "--replicates", "20", *flag)
        assert code == 0, err
        (row,) = csv.DictReader(io.StringIO(out))
        assert row["n_topics"] == str(len(a[among]))
    code, out, err = _run(capsys, "compare", str(CSV), *map(str, paths), "-m", "chroma_R@2")
    assert code == 0 and "(-c)" not in out + err


def test_hixeval_beside_chroma(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On Chroma's excerpts (disjoint), HiXEval's precision and recall (alpha 1: each
    highlighted character counted once) equal Chroma's; LegalBench-RAG's count the characters
    of overlapping chunks twice."""
    questions = read_questions(CSV)
    chunks = parse_chunker("fixed:300:150").chunk(questions.corpora)
    rng = np.random.default_rng(3)
    lines = []
    for q in questions.questions:
        for rank, i in enumerate(rng.integers(0, len(chunks), size=8), 1):
            s, e = int(chunks.starts[i]), int(chunks.ends[i])
            lines.append(f"{q.qid} Q0 {chunks.docs[i]} {rank} 1 r {s} {e - s}\n")
        near = np.flatnonzero((chunks.docs == q.corpus_id)
                              & (chunks.starts < q.excerpts[0, 1])
                              & (chunks.ends > q.excerpts[0, 0]))
        for rank, i in enumerate(near[:2], 9):  # overlapping chunks on an excerpt
            s, e = int(chunks.starts[i]), int(chunks.ends[i])
            lines.append(f"{q.qid} Q0 {chunks.docs[i]} {rank} 1 r {s} {e - s}\n")
    (tmp_path / "r.fol").write_text("".join(lines))
    names = ["chroma_R@10", "HiXEval_R@10", "chroma_P@10", "HiXEval_P@10", "legal_R@10"]
    code, out, err = _run(capsys, "eval", str(CSV), str(tmp_path / "r.fol"), "-q",
                          "--format", "csv", *[w for n in names for w in ("-m", n)])
    assert code == 0, err
    values = _values(out)
    for q in [*(q.qid for q in questions.questions), "all"]:
        assert values[("r", q, "HiXEval_R@10")] == pytest.approx(values[("r", q, "chroma_R@10")],
                                                                  abs=1e-12)
        assert values[("r", q, "HiXEval_P@10")] == pytest.approx(values[("r", q, "chroma_P@10")],
                                                                  abs=1e-12)
    assert values[("r", "all", "legal_R@10")] > values[("r", "all", "chroma_R@10")]


def test_a_question_id_not_in_the_csv_is_told(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "r.fol"
    run.write_text("132 Q0 chatlogs 1 1 x 0 10\n5 Q0 chatlogs 1 1 x 0 10\n")
    code, out, err = _run(capsys, "eval", str(CSV), str(run), "-m", "chroma_R@1")
    assert code == 0
    assert f"{run}: 1 question id not in the questions CSV (ids are its data rows, 0 to 131)" \
        in err
    assert out.splitlines()[0].split() == ["num_q", "all", "1"]


def test_bm25_depth_without_cutoffs(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bm25s")
    found = []
    for measure in ("HiXEval_R", "chroma_R@10"):
        code, out, err = _run(capsys, "chunks", str(CSV), "--chunker", "fixed:400:0", "-m",
                              measure, "--format", "csv")
        assert code == 0, err
        found.append(_values(out)[("fixed:400:0", "all", measure)])
    # HiXEval without a cut-off scores the whole ranking: the 10 chunks BM25 retrieves
    assert found[0] == pytest.approx(found[1], abs=1e-12)


def test_scores_of_chunkers_for_meta(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from inexeval.formats.scores import read_scores

    chunkers = ["--chunker", "fixed:400:0", "--chunker", "recursive:800:400", "--chunker",
                "fixed:200:100"]
    code, out, err = _run(capsys, "chunks", str(CSV), *chunkers, "-q", "--format", "csv")
    assert code == 0, err
    values = _values(out)
    saved = tmp_path / "chunkers.scores"
    code, out, err = _run(capsys, "chunks", str(CSV), *chunkers, "--format", "scores", "-o",
                          str(saved))
    assert code == 0, err
    scores = read_scores(saved)
    runs, topics, matrix = scores.matrix("chroma_P_omega")
    assert list(runs) == ["fixed:400:0", "recursive:800:400", "fixed:200:100"]
    assert len(topics) == 132
    for i, run in enumerate(runs):
        assert list(matrix[i]) == [values[(run, t, "chroma_P_omega")] for t in topics]
    code, out, err = _run(capsys, "meta", "power", "--scores", str(saved), "--format", "csv")
    assert code == 0, err
    assert out.count("chroma_P_omega") >= 3
    _one_error(capsys, ["chunks", str(CSV), *chunkers, "-o", str(tmp_path / "x")],
               "-o goes with --format scores")


def test_blank_lines_of_the_csv_are_skipped_as_pandas_skips_them(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    path = folder / "questions_df.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join([lines[0], "\n", *lines[1:3], "\n\n", *lines[3:], "\n"]),
                    encoding="utf-8")
    questions = read_questions(path)
    original = read_questions(CSV)
    assert [q.qid for q in questions.questions] == [q.qid for q in original.questions]
    assert all((a.excerpts == b.excerpts).all() for a, b in zip(questions.questions,
                                                                original.questions))


def test_plot_of_the_measures_against_k(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("bm25s")
    from inexeval.rag.evaluate import chunk_study, parse
    from inexeval.rag.plots import curves_over_k

    questions = read_questions(CSV)
    measures = parse(["chroma_R", "chroma_P_omega", "legal_P@5"])
    chunkings = {s: parse_chunker(s).chunk(questions.corpora)
                 for s in ("fixed:400:0", "recursive:800:400")}
    results = chunk_study(questions, chunkings, measures)
    (ax,) = curves_over_k(results, measures).axes  # chroma_R only: P_omega has no k, legal one
    for line in ax.get_lines():
        run = str(line.get_label())
        assert list(line.get_xdata()) == [1, 3, 5, 10]
        assert list(line.get_ydata()) == [results.mean(f"chroma_R@{k}", run)
                                          for k in (1, 3, 5, 10)]
    assert {str(line.get_label()) for line in ax.get_lines()} == set(chunkings)
    figure = tmp_path / "k.png"
    code, _, err = _run(capsys, "chunks", str(CSV), "--chunker", "fixed:400:0", "-m",
                          "chroma_R", "--plot", str(figure))
    assert code == 0, err
    assert figure.read_bytes().startswith(b"\x89PNG")
    _one_error(capsys, ["chunks", str(CSV), "--chunker", "fixed:400:0", "--plot",
                        str(tmp_path / "p.svg")], "--plot draws measures against k")


@pytest.mark.parametrize("command,option", [("eval", ["--task", "focused"]),
                                            ("eval", ["--limit", "3"]),
                                            ("compare", ["--order", "score"])])
def test_options_span_runs_do_not_use_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
        option: list[str]) -> None:
    run = tmp_path / "r.fol"
    run.write_text("0 Q0 chatlogs 1 1 r 0 5\n")
    _one_error(capsys, [command, str(CSV), str(run), str(run), *option],
               f"{option[0]} not used by a Chroma questions CSV")


def test_measures_listed_by_source(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "measures", "chroma")
    assert code == 0
    heads = [line.split(":")[0] for line in out.splitlines() if not line.startswith(" ")]
    assert heads == ["chroma_IoU@k", "chroma_P@k", "chroma_P_omega", "chroma_R@k"]
    code, out, _ = _run(capsys, "measures", "legal")
    assert [line.split(":")[0] for line in out.splitlines()
            if not line.startswith(" ")] == ["legal_P@k", "legal_R@k"]
    assert "base_evaluation.py" not in out and "QAResult" in out
    code, out, _ = _run(capsys, "measures", "P")  # a family's own name: that family
    assert code == 0 and out.startswith("P@k: ")


def test_write_chunks_names_and_repeats(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "out"
    spec = "semantic-text-splitter:TextSplitter(300)"
    pytest.importorskip("semantic_text_splitter")
    code, _, err = _run(capsys, "chunks", str(CSV), "--chunker", "recursive:300:50",
                        "--chunker", spec, "--write-chunks", str(folder))
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == [
        "recursive-300-50.tsv", "semantic-text-splitter-TextSplitter-300.tsv"]
    questions = read_questions(CSV)
    written = read_chunking(folder / "semantic-text-splitter-TextSplitter-300.tsv",
                            questions.corpora)
    made = parse_chunker(spec).chunk(questions.corpora)
    assert written.starts.tolist() == made.starts.tolist()
    assert written.ends.tolist() == made.ends.tolist()
    _one_error(capsys, ["chunks", str(CSV), "--chunker", "fixed:9:0", "--chunker",
                        "fixed:9:0"], "chunking 'fixed:9:0' given twice")
