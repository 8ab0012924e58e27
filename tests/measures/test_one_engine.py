"""One document engine (issue 33): ``inexeval eval --format trec_eval`` and the API compute every
measure ``inexeval trec_eval`` computes (itself trec_eval's bytes: test_trec_eval.py), through
its code. Checked on trec_eval's own test suite (every configuration; ``-Z``, z-scores, through
``eval --format trec_eval`` only, the API having no z-scores) and on random qrels and runs (the
robustness cases test_trec_eval.py draws, each trec_eval option ``eval`` has).

``relstring`` (text, not a number) is the one trec_eval measure left to ``inexeval trec_eval``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.measures.test_trec_eval import QUICKTEST, SUITE, _collections, _files

import inexeval
from inexeval.cli import main
from inexeval.formats.trec import read_trec_eval_qrels, read_trec_eval_run
from inexeval.measures import trec_eval
from inexeval.measures.trec_names import trec_eval_requests

CONFIGURATIONS = [(expected, [a for a in argv if not a.startswith("-mrelstring")])
                  for expected, argv in QUICKTEST
                  if "-Z" not in argv]


def _eval_argv(argv: list[str]) -> list[str]:
    """trec_eval's arguments as ``eval``'s (``-M100``: ``--limit 100``; ``-l2``: ``-l 2``)."""
    out: list[str] = []
    for a in argv:
        if a.startswith("-M"):
            out += ["--limit", a[2:]]
        elif a.startswith(("-l", "-m")) and len(a) > 2:
            out += [a[:2], a[2:]]
        else:
            out.append(str(SUITE / a) if (SUITE / a).is_file() else a)
    return out


def _numbers(text: str) -> list[str]:
    """The lines of trec_eval's output but relstring's."""
    return [line for line in text.splitlines() if not line.startswith("relstring")]


@pytest.mark.parametrize(("expected", "argv"), CONFIGURATIONS,
                         ids=[" ".join(a) for _, a in CONFIGURATIONS])
def test_eval_prints_what_trec_eval_prints(expected: str, argv: list[str],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--format", "trec_eval", *_eval_argv(argv)]) == 0
    ours = _numbers(capsys.readouterr().out)
    theirs = _numbers((SUITE / expected).read_text(encoding="utf-8"))
    assert len(theirs) > 20
    assert ours == theirs


ZSCORES = [(expected, [a for a in argv if not a.startswith("-mrelstring")])
           for expected, argv in QUICKTEST if "-Z" in argv]


@pytest.mark.parametrize(("expected", "argv"), ZSCORES, ids=[" ".join(a) for _, a in ZSCORES])
def test_eval_prints_trec_eval_s_zscores(expected: str, argv: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    # trec_eval's -Z passed through eval's trec_eval layout: each topic's value made a z-score
    # under its printed name, the all line their mean (sum, geometric mean), names Z + name
    assert main(["eval", "--format", "trec_eval", *_eval_argv(argv)]) == 0
    ours = _numbers(capsys.readouterr().out)
    theirs = _numbers((SUITE / expected).read_text(encoding="utf-8"))
    assert len(theirs) > 300 and theirs[0].startswith("Z")
    assert ours == theirs
    assert main(["eval", *_eval_argv(argv)]) == 2  # no other layout prints z-scores
    assert "-Z (z-scores) goes with --format trec_eval" in capsys.readouterr().err


@pytest.mark.parametrize("measures", [
    ["P.5", "P.10"], ["all_trec", "P.5,7"], ["P.5", "map", "P.10,20"], ["P", "P.5"],
    ["ndcg_cut.5", "ndcg_cut", "map"], ["official", "recall.3"]])
def test_a_measure_asked_twice_keeps_the_parameters_of_its_first(
        measures: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # as trec_eval 10.0 prints them: -m P.5 -m P.10 is P_5 alone, all_trec with -m P.5,7 has
    # P_5 and P_7 (eval printed every parameter set given)
    files = [str(SUITE / "qrels.test"), str(SUITE / "results.test")]
    asked = [a for m in measures for a in ("-m", m)]
    assert main(["trec_eval", *asked, *files]) == 0
    theirs = capsys.readouterr().out
    assert main(["eval", "--format", "trec_eval", *asked, *files]) == 0
    assert capsys.readouterr().out == theirs
    names = {line.split()[0] for line in theirs.splitlines()}
    if measures[:2] == ["P.5", "P.10"]:
        assert names == {"P_5"}
    if measures[0] == "all_trec":
        assert {"P_5", "P_7"} <= names and "P_10" not in names


def test_z_scores_of_qrels_on_the_standard_input_and_z_refused_on_other_inputs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from tests.rag.bioasq_cases import random_case, write_case

    z = ["-Z", str(SUITE / "zscores_file")]
    assert main(["eval", "--format", "trec_eval", "-m", "map", *z, str(SUITE / "qrels.test"),
                 str(SUITE / "results.test")]) == 0
    from_file = capsys.readouterr().out
    assert from_file.startswith("Zmap")
    # qrels given as '-': -Z does not read the standard input to tell their format
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(
        (SUITE / "qrels.test").read_bytes())))
    assert main(["eval", "--format", "trec_eval", "-m", "map", *z, "-",
                 str(SUITE / "results.test")]) == 0
    assert capsys.readouterr().out == from_file
    # BioASQ's JSON took its own way before -Z was looked at (exit 0, -Z ignored)
    gold, system = write_case(tmp_path, "case", random_case(3))
    assert main(["eval", "--format", "trec_eval", *z, str(gold), str(system)]) == 2
    assert "-Z (z-scores) goes with --format trec_eval" in capsys.readouterr().err


def _api_values(qrels: Path, run: Path, requests: list[str], level: int, complete: bool,
                limit: int | None) -> dict[tuple[str, str], float]:
    asked = trec_eval_requests(requests, level)
    options: dict[str, Any] = {"complete": complete}
    if limit is not None:
        options["limit"] = limit
    results = inexeval.evaluate(str(qrels), str(run), asked.measures, **options)
    values = {(asked.labels[r.measure], r.topic): r.value for r in results.rows}
    values.update({(asked.labels.get(r.measure, r.measure), r.topic): r.value
                   for r in results.means() if r.measure != "num_q"})
    return values  # type: ignore[return-value]


def _trec_eval_values(qrels: Path, run: Path, requests: list[str], level: int,
                      complete: bool, limit: int | None) -> dict[tuple[str, str], float]:
    got = trec_eval.evaluate(read_trec_eval_qrels(qrels), read_trec_eval_run(run), requests,
                             complete=complete, relevance_level=level, max_docs=limit)
    values: dict[tuple[str, str], float] = {}
    for m in got.measures:
        d = m.chosen.definition
        if m.strings is not None or d.name in ("runid", "num_q"):
            continue
        for j, label in enumerate(m.chosen.labels):
            if d.per_topic:
                values.update({(label, t): float(m.values[i, j])
                               for i, t in enumerate(got.topics)})
            values[(label, "all")] = m.overall[j]
    return values


def _same(ours: dict[tuple[str, str], float], theirs: dict[tuple[str, str], float]) -> None:
    assert set(theirs) <= set(ours)
    for key, value in theirs.items():
        if math.isnan(value):  # (Rndcg of a topic without relevant places: C's 0.0 / 0)
            assert math.isnan(ours[key]), key
        elif key[1] == "all":  # inexeval adds with math.fsum, trec_eval left to right
            assert math.isclose(ours[key], value, rel_tol=1e-12, abs_tol=1e-12), key
        else:  # the same code: the same bits
            assert ours[key] == value, key


@pytest.mark.parametrize(("expected", "argv"), CONFIGURATIONS,
                         ids=[" ".join(a) for _, a in CONFIGURATIONS])
def test_the_api_gives_trec_eval_s_values(expected: str, argv: list[str]) -> None:
    requests = [a[2:] if a.startswith("-m") and len(a) > 2 else argv[i + 1]
                for i, a in enumerate(argv) if a.startswith("-m")] or ["official"]
    level = next((int(a[2:]) for a in argv if a.startswith("-l")), 1)
    limit = next((int(a[2:]) for a in argv if a.startswith("-M")), None)
    complete = "-c" in argv
    qrels, run = (SUITE / a for a in argv[-2:])
    ours = _api_values(qrels, run, requests, level, complete, limit)
    theirs = _trec_eval_values(qrels, run, requests, level, complete, limit)
    assert len(theirs) > 25
    _same(ours, theirs)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=_collections(), level=st.sampled_from([0, 1, 2]), complete=st.booleans(),
       limit=st.sampled_from([None, 1, 3]), requests=st.sampled_from([
           ["all_trec"], ["ndcg.1=2.5,2=1", "G.1=3", "rbp.p=0.5", "Rndcg.2=0.5"],
           ["utility.2,-1,0.5,0.1", "set_F.0.5", "Rprec_mult.0.3,1.5", "11pt_avg..2,.4",
            "iprec_at_recall..05,.33,.5,1", "yaap", "ndcg_rel.0=1,3=0.5",
            "rbp_resid.p=0.7"]]))
def test_random_collections(tmp_path: Path, data: Any, level: int, complete: bool,
                            limit: int | None, requests: list[str]) -> None:
    qrels, run = data
    judged = {t for t, _, _ in qrels}
    if not ({t for t, _, _ in run} & judged):
        return  # trec_eval: no topic to evaluate
    q, r = _files(tmp_path, qrels, run)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _api_values(q, r, requests, level, complete, limit)
    theirs = _trec_eval_values(q, r, requests, level, complete, limit)
    if complete and level != 1:
        # m_num_rel.c's all with -c counts every level > 0 of the qrels whatever -l; inexeval
        # sums the topics' num_rel (README: where eval differs)
        theirs.pop(("num_rel", "all"), None)
    _same(ours, theirs)


def test_studies_use_trec_eval_s_per_topic_values(tmp_path: Path) -> None:
    """compare, meta power (the scores it reads) and report (the comparison it draws) on infAP,
    gm_map and P(rel=2)@10: each topic's value is ``inexeval trec_eval -q``'s (gm_map's the
    logarithm trec_eval averages, of map's value)."""
    from inexeval.experiment import Experiment

    lines = (SUITE / "results.test").read_text(encoding="utf-8").splitlines()
    other = tmp_path / "other"
    other.write_text("".join(f"{t} Q0 {d} {r} {-float(s)!r} other\n"
                             for t, _, d, r, s, _ in (line.split() for line in lines)),
                     encoding="utf-8")
    qrels = SUITE / "qrels.rel_level"
    measures = ["infAP", "gm_map", "P(rel=2)@10"]
    study = Experiment(str(qrels), [str(SUITE / "results.test"), str(other)], measures=measures)
    compared = study.compare()
    scores = study.evaluate("all").scores
    assert compared.measures == measures
    for path, run in ((SUITE / "results.test", "STANDARD"), (other, "other")):
        got = trec_eval.evaluate(read_trec_eval_qrels(qrels), read_trec_eval_run(path),
                                 ["infAP", "map", "P.10"])
        got2 = trec_eval.evaluate(read_trec_eval_qrels(qrels), read_trec_eval_run(path),
                                  ["P.10"], relevance_level=2)
        by_name = {m.chosen.definition.name: m.values[:, 0] for m in got.measures}
        expected = {"infAP": by_name["infAP"],
                    "gm_map": [math.log(max(v, 0.00001)) for v in by_name["map"]],
                    "P(rel=2)@10": got2.measures[0].values[:, 0]}
        assert not np.array_equal(by_name["P"], expected["P(rel=2)@10"])
        for measure, values in expected.items():
            for topic, value in zip(got.topics, values):
                assert compared.per_topic[measure][run][topic] == value, (measure, topic)
                _, topics, matrix = scores.matrix(measure)
                assert matrix[scores.runs.index(run), topics.index(topic)] == value


def test_ir_measures_objects_in_every_verb() -> None:
    """ir_measures' objects in calc_aggregate, iter_calc, evaluate, Evaluator and Experiment,
    each with ir_measures' own value (its pytrec_eval provider: trec_eval's code)."""
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import (
        AP,
        RR,
        Bpref,
        IPrec,
        Judged,
        NumRelRet,
        P,
        R,
        Rprec,
        SetF,
        SetP,
        Success,
        infAP,
        nDCG,
    )

    from inexeval.experiment import Experiment

    qrels, run = str(SUITE / "qrels.rel_level"), str(SUITE / "results.test")
    asked = [AP @ 10, P(rel=2) @ 10, SetP, IPrec @ 0.5, infAP, Judged @ 10, NumRelRet, Bpref,
             Success @ 5, SetF, nDCG @ 10, RR, Rprec(rel=2), R @ 100, AP]
    theirs = ir_measures.calc_aggregate(asked, ir_measures.read_trec_qrels(qrels),
                                        ir_measures.read_trec_run(run))
    ours = inexeval.calc_aggregate(asked, qrels, run)
    assert set(ours) == set(asked)  # keyed by the objects given
    for m in asked:
        assert math.isclose(ours[m], theirs[m], rel_tol=1e-12), m
    assert ours[P(rel=2) @ 10] != inexeval.calc_aggregate([P @ 10], qrels, run)[P @ 10]
    per_topic = {(m.topic, m.measure): m.value for m in inexeval.iter_calc([AP @ 10], qrels, run)}
    assert per_topic == {(m.query_id, "AP@10"): m.value for m in ir_measures.iter_calc(
        [AP @ 10], ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run))}
    means = inexeval.evaluate(qrels, run, [SetP, infAP])
    assert means.mean("SetP") == ours[SetP] and means.mean("infAP") == ours[infAP]
    evaluator = inexeval.Evaluator([IPrec @ 0.5], inexeval.load_assessments(qrels))
    assert evaluator.evaluate(inexeval.load_run(run)).mean("IPrec@0.50") == ours[IPrec @ 0.5]
    study = Experiment(qrels, [run], measures=[AP @ 10, Judged @ 10])
    assert study.evaluate()["STANDARD"]["AP@10"] == ours[AP @ 10]
    # ir_measures' evaluator(measures, qrels).calc_aggregate(run) / .iter_calc(run): the
    # qrels and the run given as paths (or DataFrames, dicts), the answer keyed as above
    bound = inexeval.Evaluator([AP @ 10, SetP, "P@5"], qrels)
    aggregate = bound.calc_aggregate(run)
    assert aggregate[AP @ 10] == ours[AP @ 10] and aggregate[SetP] == ours[SetP]
    assert [str(m) for m in aggregate] == ["AP@10", "SetP", "P@5"]
    assert {(m.topic, m.measure): m.value for m in bound.iter_calc(run)
            if m.measure == "AP@10"} == per_topic
    shown = repr(bound)
    assert shown.startswith("Evaluator(AP@10, SetP, P@5; ") and "trec" in shown


def test_ir_measures_without_counterpart_are_named() -> None:
    pytest.importorskip("ir_measures")
    from ir_measures import ERR, ERR_IA, alpha_nDCG, nDCG

    from inexeval.errors import MeasureError

    qrels, run = str(SUITE / "qrels.test"), str(SUITE / "results.test")
    for measure, said in ((alpha_nDCG @ 10, "alpha_nDCG@10"), (ERR_IA @ 20, "ERR_IA@20"),
                          (ERR @ 10, "expected reciprocal rank"),
                          (nDCG(dcg="exp-log2") @ 10, "nDCG(dcg='exp-log2')@10")):
        with pytest.raises(MeasureError, match=said.replace("(", r"\(").replace(")", r"\)")):
            inexeval.calc_aggregate([measure], qrels, run)


@pytest.mark.parametrize("command", [
    ["eval"], ["eval", "-m", "map", "-m", "P.10", "-m", "infAP", "--format", "trec_eval"],
    ["trec_eval"], ["trec_eval", "-m", "all_trec"]])
def test_start_up_imports_only_what_the_command_uses(command: list[str]) -> None:
    """eval and trec_eval on TREC qrels import neither the element measures (nor lxml and the
    collection code they bring), nor pandas, scipy or matplotlib."""
    import subprocess
    import sys

    probe = ("import sys\nfrom inexeval.cli import main\n"
             f"assert main({[command[0], str(SUITE / 'qrels.test'), str(SUITE / 'results.test'), *command[1:]]!r}) == 0\n"
             "print(sorted(m for m in sys.modules if m.startswith(('lxml', 'scipy', 'pandas', "
             "'matplotlib', 'inexeval.collection.build', 'inexeval.measures.ng', "
             "'inexeval.measures.focused', 'inexeval.measures.xcg', 'inexeval.measures.eprum'))))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_document_names_are_the_registry_s() -> None:
    """DOCUMENT_NAMES (parsed without loading the other families) are exactly the names of
    the families registered by measures.trec, and P."""
    from inexeval.measures.registry import DOCUMENT_NAMES, REGISTRY, families
    from inexeval.measures.trec import SPECS

    families()
    documents = {n for n, f in REGISTRY.items() if f.name in SPECS or f.name in ("P", "Judged")}
    assert DOCUMENT_NAMES == documents


@pytest.mark.parametrize("complete", [False, True])
def test_eval_adds_the_all_value_as_trec_eval_does(tmp_path: Path, complete: bool,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """P_200 of 3, 5, 4 and 5 relevant documents (topics 1, 10a, 11, 2b): 0.015, 0.025, 0.02,
    0.025, whose mean 0.02125 is 0.021249999999999998 added in trec_eval's order (0.0212,
    trec_eval 10.0's output, here as the built binary prints it) and exactly 0.02125 by fsum
    (0.0213, what eval --format trec_eval printed)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    sizes = [("1", 3), ("10a", 5), ("11", 4), ("2b", 5)]
    qrels.write_text("".join(f"{t} 0 d{i} 1\n" for t, n in sizes for i in range(n))
                     + "".join(f"{t} 0 n0 0\n" for t, _ in sizes), encoding="utf-8")
    run.write_text("".join(f"{t} Q0 d{i} {i + 1} {10 - i} r\n" for t, n in sizes
                           for i in range(n)), encoding="utf-8")
    options = ["-c"] if complete else []
    for command in (["trec_eval"], ["eval", "--format", "trec_eval"]):
        capsys.readouterr()
        assert main([*command, *options, "-m", "P.200", "-m", "gm_map", str(qrels),
                     str(run)]) == 0
        assert capsys.readouterr().out == ("gm_map                \tall\t1.0000\n"
                                           "P_200                 \tall\t0.0212\n")


@pytest.mark.parametrize(("options", "expected"), [
    (["-m", "runid"], "runid                 \tall\tr\n"),
    (["-q", "-m", "num_q"], "num_q                 \tall\t2\n"),
    (["-q", "-m", "num_q", "-m", "runid", "-M", "1"],
     "runid                 \tall\tr\nnum_q                 \tall\t2\n"),
])
def test_eval_prints_runid_or_num_q_asked_alone(tmp_path: Path, options: list[str],
                                                 expected: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """-m runid or -m num_q alone: trec_eval 10.0 prints those lines alone (``expected``, as
    the built binary prints them); eval --format trec_eval printed its own default measures
    (num_ret … Judged@10, every topic's with -q) under them."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n2 0 d3 0\n", encoding="utf-8")
    run.write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n2 Q0 d3 1 1 r\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["trec_eval", *options, str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == expected
    argv = ["--limit" if a == "-M" else a for a in options]
    assert main(["eval", "--format", "trec_eval", *argv, str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize(("qrels_text", "expected"), [
    ("1 0 d1 0\n1 0 d2 0\n2 0 d1 1\n2 0 d2 0\n",
     ("Rndcg                 \t1\t  -nan\nRndcg                 \t2\t0.0000\n"
      "Rndcg                 \tall\t  -nan\n")),
    ("1 0 d1 0\n1 0 d2 0\n",
     "Rndcg                 \t1\t  -nan\nRndcg                 \tall\t  -nan\n"),
])
def test_eval_s_all_value_of_a_nan_is_trec_eval_s(tmp_path: Path, qrels_text: str,
                                                  expected: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Rndcg at -l 0 of a topic judged only 0 is -nan, and trec_eval's all value, the topics'
    values added, is -nan too (``expected``, as the built trec_eval 10.0 prints it); eval
    --format trec_eval printed ``   nan`` (a NaN of fsum's sign) or the mean of the others."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(qrels_text, encoding="utf-8")
    run.write_text("1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n2 Q0 d2 1 2 r\n2 Q0 d1 2 1 r\n",
                   encoding="utf-8")
    for command in (["trec_eval"], ["eval", "--format", "trec_eval"]):
        capsys.readouterr()
        assert main([*command, "-q", "-l", "0", "-m", "Rndcg", str(qrels), str(run)]) == 0
        assert capsys.readouterr().out == expected


@pytest.mark.parametrize("measure", ["ndcg.2", "ndcg.1,3", "G.2"])
def test_eval_refuses_what_trec_eval_refuses(tmp_path: Path, measure: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """trec_eval 10.0 stops on ndcg.2 ("malformed pair parameters in '2'", exit 2), as
    inexeval trec_eval does; eval read ndcg.2 as the registry reads it, nDCG@2 (ndcg.1,3 as
    nDCG@1 and nDCG@3), printed under trec_eval's name."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n", encoding="utf-8")
    run.write_text("1 Q0 d2 1 2 r\n1 Q0 d1 2 1 r\n", encoding="utf-8")
    for command in (["trec_eval"], ["eval", "--format", "trec_eval"]):
        capsys.readouterr()
        assert main([*command, "-m", measure, str(qrels), str(run)]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        expected = f"inexeval: error: {measure}: malformed pair parameters (give name=value,...)"
        assert err.splitlines() == [expected]


def test_eval_reads_only_the_first_parameters_as_trec_eval_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """-m G.1=2 -m G.0.5: trec_eval 10.0 reads the parameters of the first -m giving any, and
    never the second's (the output here the built binary's); eval read G.0.5 alone and
    stopped ('cannot read measure name'), and -m ndcg.1=3 -m ndcg.2 printed nDCG@2 as
    ndcg.2 too."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n", encoding="utf-8")
    run.write_text("1 Q0 d2 1 2 r\n1 Q0 d1 2 1 r\n", encoding="utf-8")
    argv = ["-m", "G.1=2", "-m", "G.0.5", "-m", "ndcg.1=3", "-m", "ndcg.2", str(qrels), str(run)]
    for command in (["trec_eval"], ["eval", "--format", "trec_eval"]):
        capsys.readouterr()
        assert main([*command, *argv]) == 0
        assert capsys.readouterr().out == ("G_1=2                 \tall\t0.6309\n"
                                           "ndcg_1=3              \tall\t0.6309\n")
