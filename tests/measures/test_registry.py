"""The measure-name grammar and the error report for bad names."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers import assessments

from inexeval.cli import main
from inexeval.errors import MeasureError
from inexeval.evaluation import Evaluator
from inexeval.measures.registry import parse_measure, parse_measures


def test_canonical_names_drop_defaults() -> None:
    assert str(parse_measure("P(quant=strict)@10")) == "P@10"
    assert str(parse_measure("P(quant='liberal')@5")) == "P(quant=liberal)@5"
    assert str(parse_measure("inex_eval(quant=generalised)")) == "inex_eval(quant=generalised)"
    assert str(parse_measure("inex_eval@0.5")) == "inex_eval@0.50"
    assert parse_measure("P@10") == parse_measure("P(quant=strict)@10")


def test_every_problem_is_reported_together_with_nearest_names() -> None:
    with pytest.raises(MeasureError) as error:
        parse_measures(["Pp@10", "P(qant=strict)@5", "overlap", "inex_eval(ties=scores)",
                        "P@x", "inex_eval@2"])
    text = str(error.value)
    for expected in ("unknown measure 'Pp'", "did you mean 'P@10'", "no parameter 'qant'",
                     "did you mean 'quant'", "overlap needs a cut-off", "'scores' is not one of",
                     "cut-off 'x' is not an integer", "cut-off '2' is out of range"):
        assert expected in text


def test_unknown_quantisation_is_reported_before_evaluation() -> None:
    qrels = assessments("inex2003", {"1": [("A", "/a[1]", {"exhaustivity": 3,
                                                           "specificity": 3})]})
    with pytest.raises(MeasureError) as error:
        Evaluator(["P(quant=strcit)@5", "overlap@5"], qrels)
    assert "did you mean 'strict'" in str(error.value)
    with pytest.raises(MeasureError) as error:
        Evaluator(["P(quant=strict2005)@5", "inex_eval(quant=gen2005)"], qrels)
    assert "strict2005" in str(error.value) and "gen2005" in str(error.value)
    assert "inex2005" in str(error.value)


def test_printed_names_parse_back() -> None:
    for name in ["gP(task=best-in-context)[5]", "nxCG(irb=strict-path)@3",
                 "xCG(alpha=0.1234567)@10", "gP(beta=12345678)[1]", "MAep(interpolated=true)",
                 "P(quant=liberal,binarise=True)@5", "EPRUM(nav=classical)@0.5"]:
        measure = parse_measure(name)
        assert parse_measure(str(measure)) == measure


def test_beta_must_be_positive_and_finite() -> None:
    with pytest.raises(MeasureError, match="beta"):
        parse_measures(["gP(beta=nan)[5]", "gP(beta=-1)[5]"])


@pytest.mark.parametrize("name", ["P(quant=strict,quant=generalised)@10",
                                  "P(quant=strict,quant=strict)@10",
                                  "gP(beta=1,task=focused,beta=2)[5]"])
def test_a_parameter_given_twice_is_refused(name: str) -> None:
    with pytest.raises(MeasureError, match="gives (quant|beta) twice"):
        parse_measure(name)


def test_a_parameter_given_twice_exits_2_on_one_line(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.run"
    qrels.write_text("1 Q0 A 5 100 0 0:5\n")
    run.write_text("1 Q0 A 1 1 r 0 5\n")
    code = main(["eval", "-m", "P(quant=strict,quant=generalised)@10", str(qrels), str(run)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "gives quant twice" in err
