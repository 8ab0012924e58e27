"""``inexeval measures``: every family on one line under the kind of assessments it applies to,
with its source; ``inexeval measures NAME`` with examples that parse (and, for P, iP and gP,
evaluate on real assessments); no internal tags."""

from __future__ import annotations

import re

import pytest
from tests.helpers import DATA, needs_shared

from inexeval import demo
from inexeval.cli import main
from inexeval.errors import MeasureError
from inexeval.evaluation import Evaluator, with_implicit
from inexeval.formats.detect import load_assessments, load_run
from inexeval.measures.registry import (
    ABOUT,
    ANY_ASSESSMENTS,
    about,
    families,
    group,
    parse_measure,
    parse_measures,
    syntax,
)


def _listing(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["measures", *args]) == 0
    return capsys.readouterr().out


def test_every_family_has_one_line_under_its_assessments(
        capsys: pytest.CaptureFixture[str]) -> None:
    out = _listing(capsys)
    headings = {line[:-1]: i for i, line in enumerate(out.splitlines()) if line.endswith(":")}
    lines = out.splitlines()
    for family in families():
        mine = [i for i, line in enumerate(lines) if line.split()[:1] == [syntax(family)]]
        assert len(mine) == 1, family.name
        above = max(i for i in headings.values() if i < mine[0])
        assert lines[above] == group(family) + ":"
        entry = about(family)
        assert entry.summary in lines[mine[0]] and entry.source in lines[mine[0]]
    assert next(iter(headings)) == ANY_ASSESSMENTS
    assert list(headings)[-4:] == ["TREC document qrels", "BioASQ task B golden JSON (snippets)",
                                   "Chroma questions CSV",
                                   "Quantisations (quant=NAME), by assessments"]


def test_the_papers_are_cited(capsys: pytest.CaptureFixture[str]) -> None:
    lines = {line.split()[0]: line for line in _listing(capsys).splitlines()
             if line.startswith("  ")}
    cited = {"gP[k]": "Kamps et al. 2007", "gR[k]": "Kamps et al. 2007",
             "MAgP": "Kamps et al. 2007", "MAiP": "Kamps et al. 2007",
             "iP[x]": "Kamps et al. 2007", "PRUM[@x]": "Piwowarski, Gallinari and Dupret 2007",
             "T2I[@x]": "de Vries, Kazai and Lalmas 2004",
             "nDCG[@k]": "Järvelin and Kekäläinen 2002",
             "P@k": "Hiemstra and Mihajlović 2005", "inex_eval[@x]": "Gövert and Kazai 2002"}
    for name, source in cited.items():
        assert source in lines[name], name
    # every family has a summary and a source (its ABOUT entry, or its description's citation)
    assert set(ABOUT) <= {f.name for f in families()}
    assert all(about(f).source and about(f).summary for f in families())


def test_no_internal_tags(capsys: pytest.CaptureFixture[str]) -> None:
    tags = ("[R]", "[D]", "[U]", "@int", "@float", "inex2002", "inex2003", "inex2005", " fol ",
            " trec ", "spec §", "seed 00", "INEX 2002: INEX 2002", "module inexeval")
    out = _listing(capsys)
    for family in families():
        out += _listing(capsys, family.name)
    for tag in tags:
        assert tag not in out, tag


def test_every_example_parses_to_its_family() -> None:
    for family in families():
        for example in about(family).examples:
            assert parse_measure(example).family is family, example
        assert str(parse_measure(syntax(family, example=True))).startswith(family.name)


@pytest.mark.parametrize("name, first", [("P", "P@k: precision at rank k"),
                                         ("iP", "iP[x]: interpolated precision"),
                                         ("gP", "gP[k]: generalised precision"),
                                         ("P@10", "P@k: precision at rank k"),
                                         ("map", "AP[@k]: average precision")])
def test_one_family_with_parameters_and_examples(
        capsys: pytest.CaptureFixture[str], name: str, first: str) -> None:
    out = _listing(capsys, name)
    lines = out.splitlines()
    assert lines[0].startswith(first)
    examples = lines[-1].removeprefix("  examples: ").split("  ")
    assert examples == list(about(parse_measure(name, partial=True).family).examples)
    assert parse_measures(examples)
    family = parse_measure(name, partial=True).family
    for param in family.params:
        assert re.search(rf"^    {param.name} \({param.kind.__name__}, default ", out,
                         re.MULTILINE)


@needs_shared
def test_examples_of_p_ip_and_gp_evaluate() -> None:
    qrels = load_assessments(DATA / "ipcs" / "INEX_Qrels.txt")
    runs = {task: load_run(DATA / "ipcs" / name) for task, name in (
        ("focused", "bert_inex_converted_1.run"), ("thorough", "bert_inex_converted_1.run"),
        ("relevant-in-context", "bert1_incontext.run"),
        ("best-in-context", "bert1_bestincontext.run"))}
    for example in (*ABOUT["iP"].examples, *ABOUT["gP"].examples):
        run = runs[parse_measure(example).settings["task"]]
        results = Evaluator([example], qrels).evaluate([run])
        assert 0 < (results.mean(example, run.name) or 0.0) <= 1, example
    from inexeval.collection.build import build_index

    collection = build_index(demo.COLLECTION)
    element_qrels = with_implicit(load_assessments(demo.ASSESSMENTS_2004), collection=collection)
    element_run = load_run(demo.RUNS[0])
    results = Evaluator(list(ABOUT["P"].examples), element_qrels,
                        collection=collection).evaluate([element_run])
    assert [round(results.mean(m, element_run.name) or 0.0, 4) for m in ABOUT["P"].examples]


def test_a_missing_cut_off_names_a_valid_example() -> None:
    with pytest.raises(MeasureError) as error:
        parse_measures(["iP", "gP", "P", "ep"])
    text = str(error.value)
    for example in ("iP[0.01]", "gP[10]", "P@10", "ep@0.5"):
        assert f"e.g. {example}" in text
        parse_measure(example)
