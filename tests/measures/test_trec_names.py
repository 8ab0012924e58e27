"""``inexeval eval`` on TREC qrels with trec_eval's names: printed as typed (``-m map`` prints
``map``, ``-m P.5,10`` prints ``P_5`` and ``P_10``), inexeval's own names as before, and
``--format trec_eval`` printing what ``inexeval trec_eval`` prints for the same measures."""

from __future__ import annotations

from pathlib import Path

import pytest

from inexeval.cli import main

SUITE = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
QRELS = str(SUITE / "qrels.test")
RUN = str(SUITE / "results.test")


def _names(out: str) -> list[str]:
    return [line.split("\t")[0] for line in out.splitlines()]


def _values(out: str) -> dict[str, str]:
    return {line.split("\t")[0].strip(): line.split("\t")[-1] for line in out.splitlines()}


def test_trec_eval_names_print_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", QRELS, RUN, "-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10",
                 "-m", "recip_rank", "-m", "Rprec", "-m", "recall_100"]) == 0
    out = capsys.readouterr().out
    assert _names(out) == ["num_q", "map", "P_5", "P_10", "ndcg_cut_10", "recip_rank", "Rprec",
                           "recall_100"]
    # the values trec_eval prints for them (its own test suite's expected output)
    expected = _values((SUITE / "out.test").read_text(encoding="utf-8"))
    got = _values(out)
    for name in ("map", "P_5", "P_10", "recip_rank", "Rprec"):
        assert got[name] == expected[name], name
    expected_all = _values((SUITE / "out.test.a").read_text(encoding="utf-8"))
    assert got["ndcg_cut_10"] == expected_all["ndcg_cut_10"]
    assert got["recall_100"] == expected_all["recall_100"]


def test_inexeval_names_print_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", QRELS, RUN, "-m", "AP", "-m", "P@10", "-m", "nDCG@10"]
                ) == 0
    assert _names(capsys.readouterr().out) == ["num_q", "AP", "P@10", "nDCG@10"]


def test_a_bare_family_is_trec_eval_s_cutoffs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", QRELS, RUN, "-m", "P"]) == 0
    cutoffs = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    out = capsys.readouterr().out
    assert _names(out) == ["num_q", *(f"P_{k}" for k in cutoffs)]
    expected = _values((SUITE / "out.test").read_text(encoding="utf-8"))
    assert all(_values(out)[f"P_{k}"] == expected[f"P_{k}"] for k in cutoffs)


def test_the_first_name_typed_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", QRELS, RUN, "-m", "AP", "-m", "map"]) == 0
    assert _names(capsys.readouterr().out) == ["num_q", "AP"]
    assert main(["eval", QRELS, RUN, "-m", "map", "-m", "AP"]) == 0
    assert _names(capsys.readouterr().out) == ["num_q", "map"]


def test_every_trec_eval_measure_is_computed_by_eval(
        capsys: pytest.CaptureFixture[str]) -> None:
    """gm_map, infAP, set_F ... (once told to go to inexeval trec_eval) under trec_eval's
    names, with trec_eval's values (its own test suite's expected output)."""
    assert main(["eval", QRELS, RUN, "-m", "gm_map", "-m", "infAP", "-m", "set_F",
                 "-m", "map_cut.10", "-m", "success.5", "-m", "Rprec_mult.0.2"]) == 0
    got = _values(capsys.readouterr().out)
    expected = _values((SUITE / "out.test.a").read_text(encoding="utf-8"))
    for name in ("gm_map", "infAP", "set_F", "map_cut_10", "success_5", "Rprec_mult_0.20"):
        assert got[name] == expected[name], name


def test_relstring_is_told_to_go_to_trec_eval(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", QRELS, RUN, "-m", "relstring"]) == 2
    err = capsys.readouterr().err
    assert "inexeval trec_eval" in err and len(err.strip().splitlines()) == 1


def test_defaults_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", QRELS, RUN]) == 0
    assert _names(capsys.readouterr().out)[:6] == ["num_q", "num_ret", "num_rel", "num_rel_ret",
                                                  "AP", "R-Prec"]


def test_scores_keep_the_canonical_names(tmp_path: Path) -> None:
    """The lossless matrix for ``meta --scores`` keeps the registry's names."""
    out = tmp_path / "scores.tsv"
    assert main(["eval", QRELS, RUN, "-q", "-m", "map", "--format", "scores", "-o", str(out)]
                ) == 0
    text = out.read_text(encoding="utf-8")
    assert "AP" in text and "\tmap" not in text


MEASURES = ["-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "num_ret", "-m", "Rprec",
            "-m", "bpref", "-m", "recip_rank", "-m", "num_rel", "-m", "num_rel_ret",
            "-m", "recall.100"]


@pytest.mark.parametrize("options", [[], ["-q"], ["-q", "-c"], ["-c"]])
def test_format_trec_eval_is_trec_eval_s_output(tmp_path: Path, options: list[str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The same bytes as ``inexeval trec_eval -m num_q ...`` (whose output is trec_eval's, see
    test_trec_eval.py), here on a run without one of the qrels' topics."""
    lines = (SUITE / "results.trunc").read_text(encoding="utf-8").splitlines()
    run = tmp_path / "run"
    run.write_text("".join(" ".join(line.split()[:6]) + "\n" for line in lines),
                   encoding="utf-8")
    order = list(reversed(MEASURES[1::2]))  # trec_eval prints in its own order
    assert main(["eval", QRELS, str(run), "--format", "trec_eval", *options, "-m", "num_q",
                 *(a for m in order for a in ("-m", m))]) == 0
    ours = capsys.readouterr().out
    assert main(["trec_eval", QRELS, str(run), "-m", "num_q", *MEASURES, *options]) == 0
    theirs = capsys.readouterr().out
    assert ours == theirs and "ndcg_cut_10           \tall\t" in ours


def test_format_trec_eval_prints_runs_in_turn(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    copy.write_bytes(Path(RUN).read_bytes())
    assert main(["eval", QRELS, RUN, str(copy), "--format", "trec_eval", "-m", "map", "-m",
                 "P@10"]) == 0
    out = capsys.readouterr().out
    one = "map                   \tall\t0.1785\nP@10                  \tall\t0.3000\n"
    # each block opens with its run's name (trec_eval's runid line), the two told apart
    assert out == (f"runid                 \tall\tSTANDARD (results.test)\n{one}"
                   f"runid                 \tall\tSTANDARD (copy)\n{one}")


def test_other_assessments_keep_inexeval_s_names(capsys: pytest.CaptureFixture[str]) -> None:
    """trec_eval's names are printed as typed on TREC qrels only (P@k on INEX assessments is
    another measure, under its own name)."""
    from inexeval import demo

    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[1]), "-m", "P_5"]) == 0
    assert _names(capsys.readouterr().out) == ["num_q", "P@5"]


def test_l_is_every_document_measure_s_rel_and_goes_with_trec_qrels(
        capsys: pytest.CaptureFixture[str]) -> None:
    from inexeval import demo

    rel_level = str(SUITE / "qrels.rel_level")
    assert main(["eval", rel_level, RUN, "-l", "2", "-m", "map", "-m", "P@10",
                 "-m", "AP(rel=1)"]) == 0
    got = _values(capsys.readouterr().out)
    expected = _values((SUITE / "out.test.aql").read_text(encoding="utf-8"))
    assert got["map"] == expected["map"] and got["P@10"] == expected["P_10"]
    assert got["AP(rel=1)"] != got["map"]  # its own rel kept
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[1]), "-l", "2"]) == 2
    assert "-l (the lowest relevant level) goes with TREC qrels" in capsys.readouterr().err
    assert main(["eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[1]), "--format",
                 "trec_eval"]) == 0
