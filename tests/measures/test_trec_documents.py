"""Document-level measures on TREC qrels against pytrec_eval (trec_eval 9.0), on a real TREC
run and qrels: document qrels derived from the INEX 2010 FOL qrels (level 2 for at least 2,000
relevant characters, 1 for fewer, 0 for a judged article without any) and a document run from a
real third-party INEX run (its articles in rank order, scores tied in threes, so that trec_eval's
tie-breaking by document id decides)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from tests.helpers import DATA, needs_shared

from inexeval.cli import main
from inexeval.evaluation import evaluate
from inexeval.formats.detect import load_assessments, load_run

pytestmark = needs_shared

pytrec_eval = pytest.importorskip("pytrec_eval")

QRELS = DATA / "inex2010" / "inex2010.qrels"
RUN = DATA / "ipcs" / "bert_inex_converted_1.run"

OURS_TO_TREC = {"AP": "map", "R-Prec": "Rprec", "bpref": "bpref", "RR": "recip_rank",
                "num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
                "nDCG": "ndcg", "R": "set_recall",
                **{f"P@{k}": f"P_{k}" for k in (5, 10, 30, 100)},
                **{f"R@{k}": f"recall_{k}" for k in (5, 100, 1000)},
                **{f"nDCG@{k}": f"ndcg_cut_{k}" for k in (5, 10, 100)}}


def _write_trec(tmp_path: Path) -> tuple[Path, Path, dict[str, dict[str, int]],
                                         dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if fields:
            rsize = int(fields[3])
            level = 2 if rsize >= 2000 else 1 if rsize > 0 else 0
            qrels.setdefault(fields[0], {})[fields[2]] = max(level, qrels[fields[0]].get(
                fields[2], 0) if fields[0] in qrels else level)
    run: dict[str, dict[str, float]] = {}
    for line in RUN.read_text(encoding="utf-8").splitlines():
        topic, _, article = line.split()[:3]
        if topic in qrels:
            ranked = run.setdefault(topic, {})
            if article not in ranked:
                ranked[article] = float(-(len(ranked) // 3))
    qrels_path, run_path = tmp_path / "doc.qrels", tmp_path / "doc.run"
    qrels_path.write_text("".join(f"{t} 0 {d} {r}\n" for t, docs in qrels.items()
                                  for d, r in docs.items()))
    run_path.write_text("".join(f"{t} Q0 {d} {i + 1} {s} run1\n" for t, docs in run.items()
                                for i, (d, s) in enumerate(docs.items())))
    return qrels_path, run_path, qrels, run


def test_document_measures_equal_trec_eval_per_topic_and_all(tmp_path: Path) -> None:
    qrels_path, run_path, qrels, run = _write_trec(tmp_path)
    assert len(run) >= 20 and any(len(docs) > 30 for docs in run.values())
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(OURS_TO_TREC.values())).evaluate(run)
    ours = evaluate(load_assessments(qrels_path), load_run(run_path), list(OURS_TO_TREC))
    assert sorted(ours.topics()) == sorted(theirs)
    for measure, name in OURS_TO_TREC.items():
        for topic, values in theirs.items():
            assert ours.value("run1", topic, measure) == pytest.approx(values[name], abs=1e-12), \
                (measure, topic)
        aggregated = pytrec_eval.compute_aggregated_measure(
            name, [values[name] for values in theirs.values()])
        assert ours.mean(measure) == pytest.approx(aggregated, abs=1e-12), measure


def test_trec_eval_names_on_the_command_line_and_complete_mode(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path, run_path, qrels, run = _write_trec(tmp_path)
    names = ["map", "P_10", "recall_100", "ndcg_cut_10", "recip_rank", "Rprec", "num_rel"]
    args = ["eval", str(qrels_path), str(run_path), "--digits", "12"]
    assert main([*args, *(f"-m{n}" for n in names)]) == 0
    plain = {line.split("\t")[0]: float(line.split("\t")[2])
             for line in capsys.readouterr().out.splitlines()}
    assert list(plain) == ["num_q", *names]  # trec_eval's names, as typed
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "num_rel"}).evaluate(run)
    assert plain["map"] == pytest.approx(math.fsum(v["map"] for v in theirs.values()) / len(run),
                                        abs=1e-11)
    assert main([*args, "-c", "-m", "map", "-m", "num_rel"]) == 0
    complete = {line.split("\t")[0]: float(line.split("\t")[2])
                for line in capsys.readouterr().out.splitlines()}
    assert complete["num_q"] == len(qrels) > len(run)
    assert complete["num_rel"] == sum(r >= 1 for docs in qrels.values() for r in docs.values())
    assert complete["map"] == pytest.approx(math.fsum(v["map"] for v in theirs.values())
                                           / len(qrels), abs=1e-11)


def test_defaults_on_trec_qrels_are_the_document_measures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path, run_path, _, _ = _write_trec(tmp_path)
    assert main(["eval", str(qrels_path), str(run_path)]) == 0
    captured = capsys.readouterr()
    # the measures said once (the averaging rule, and the runs' coverage, on lines of their own)
    assert captured.err.count("measures for") == 1 and "TREC document qrels" in captured.err
    names = [line.split("\t")[0] for line in captured.out.splitlines()]
    assert names[:5] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "AP"]


def test_text_after_the_run_id_in_eval_as_in_trec_eval(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``eval`` reads trec_eval's test run with text after the run id on some lines (not on
    the first, then on the first too) to the same values as without it."""
    suite = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
    qrels = str(suite / "qrels.test")
    lines = (suite / "results.test").read_text().splitlines()
    args = ["-m", "map", "-m", "P@10", "-m", "nDCG@10", "-m", "bpref", "--format", "json", "-q"]
    assert main(["eval", qrels, str(suite / "results.test"), *args]) == 0
    expected = capsys.readouterr().out.replace(str(suite / "results.test"), "RUN")
    for start in (1, 0):
        text = tmp_path / f"text{start}"
        # (two more fields, one a number, would be a FOL line's offset and length)
        text.write_text("".join(f"{line} extra text\n" if i % 3 == start else f"{line}\n"
                                for i, line in enumerate(lines)))
        assert main(["eval", qrels, str(text), *args]) == 0
        assert capsys.readouterr().out.replace(str(text), "RUN") == expected
