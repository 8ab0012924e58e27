"""The experiment layer: one :class:`inexeval.Experiment` behind the API and every command, the
averaging rule said and the same everywhere, ir_measures' objects, look-ups by run name or file,
options that would be ignored refused, and an import graph without cycles."""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path

import pytest

import inexeval
from inexeval.cli import main
from inexeval.demo import ASSESSMENTS_2004, COLLECTION, RUNS
from inexeval.errors import InexevalError, MeasureError
from inexeval.evaluation import Evaluator
from inexeval.experiment import Experiment
from tests.helpers import DATA

IPCS = DATA / "ipcs"
QRELS = IPCS / "INEX_Qrels.txt"
BERT = IPCS / "bert_inex_converted_1.run"
IN_CONTEXT = IPCS / "bert1_incontext.run"
needs_ipcs = pytest.mark.skipif(not QRELS.exists(), reason="needs the shared INEX data (ipcs)")
SRC = Path(__file__).resolve().parents[1] / "src" / "inexeval"


def cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def trec_means(out: str) -> dict[tuple[str, str], float]:
    """``{(run, measure): value}`` of the ``all`` lines of trec output with a run column."""
    return {(run, measure): float(value) for run, measure, topic, value in
            (line.split("\t") for line in out.splitlines()) if topic == "all"}


# the averaging rule --------------------------------------------------------------------------
@needs_ipcs
def test_eval_and_compare_say_their_rule_and_agree_under_the_same_rule(
        capsys: pytest.CaptureFixture[str]) -> None:
    # the case: eval gave MAiP 0.1189, compare 0.0594, and nothing said why
    code, out, err = cli(capsys, "eval", QRELS, BERT)
    assert code == 0 and "MAiP\tall\t0.1189" in out
    assert err.splitlines()[-1] == ("inexeval: 60 topics; means each run over the assessed "
                                    "topics it answers (trec_eval's default)")
    code, out, err = cli(capsys, "eval", "-c", QRELS, BERT)
    assert "MAiP\tall\t0.0594" in out
    assert err.splitlines()[-1] == ("inexeval: 120 topics; means over every assessed topic, a "
                                    "missing one scoring 0 (-c)")
    for extra, topics, mean in (([], 60, 0.1189), (["-c"], 120, 0.0594)):
        code, out, err = cli(capsys, "compare", QRELS, BERT, IN_CONTEXT, "--task", "focused",
                             "--format", "json", *extra)
        assert code == 0, err
        rows = json.loads(out)
        assert {r["n_topics"] for r in rows} == {topics}
        maip = next(r for r in rows if r["measure"] == "MAiP")
        assert round(maip["baseline_mean"], 4) == mean
        code, out, _ = cli(capsys, "compare", QRELS, BERT, IN_CONTEXT, "--task", "focused",
                           *extra)
        rule = "over the topics assessed and answered by at least one run" if not extra \
            else "over every assessed topic"
        assert f"paired over {topics} topics; means {rule}" in out.splitlines()[0]


@needs_ipcs
def test_every_command_reports_the_same_means_under_the_same_rule(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fewer = tmp_path / "fewer.run"  # the in-context run without its last 20 topics
    topics = sorted({line.split()[0] for line in IN_CONTEXT.read_text().splitlines()})
    kept = set(topics[:-20])
    fewer.write_text("".join(line for line in IN_CONTEXT.read_text().splitlines(keepends=True)
                             if line.split()[0] in kept).replace("bert1ctx", "fewer"))
    runs = [BERT, fewer]
    for rule, flag in (("any", []), ("all", ["-c"])):
        study = Experiment(str(QRELS), [str(r) for r in runs], task="focused", rule=rule)
        scores = study.evaluate().scores
        api = {(run, m): scores.mean(m, run) for run in scores.runs
               for m in ("iP[0.01]", "MAiP")}
        code, out, err = cli(capsys, "compare", QRELS, *runs, "--task", "focused",
                             "--format", "json", *flag)
        assert code == 0, err
        for row in json.loads(out):
            if row["measure"] in ("iP[0.01]", "MAiP"):
                assert row["mean"] == pytest.approx(api[(row["run"], row["measure"])], abs=1e-12)
                assert row["baseline_mean"] == pytest.approx(
                    api[(row["baseline"], row["measure"])], abs=1e-12)
        comparison = inexeval.compare(str(QRELS), [str(r) for r in runs], ["MAiP"],
                                      task="focused", rule=rule)
        assert comparison.means["MAiP"]["fewer"] == pytest.approx(api[("fewer", "MAiP")],
                                                                  abs=1e-12)
    # eval -c (rule all) and eval (rule answered) equal the experiment's scores
    for rule, flag in (("answered", []), ("all", ["-c"])):
        scores = Experiment(str(QRELS), [str(r) for r in runs], task="focused",
                            rule=rule).evaluate().scores
        code, out, _ = cli(capsys, "eval", QRELS, *runs, "--task", "focused", "--digits", "17",
                           *flag)
        printed = trec_means(out)
        for run in scores.runs:
            assert printed[(run, "MAiP")] == pytest.approx(scores.mean("MAiP", run), abs=1e-12)
    # the answered rule: the fewer run's mean is over its own topics only
    answered = Experiment(str(QRELS), [str(r) for r in runs], task="focused").evaluate()
    everyone = Experiment(str(QRELS), [str(r) for r in runs], task="focused",
                          rule="any").evaluate()
    assert len(answered.scores.topics) == len(everyone.scores.topics) == 60
    assert answered["fewer"]["MAiP"] != everyone["fewer"]["MAiP"]


@needs_ipcs
def test_one_warning_when_the_runs_answer_fewer_than_half_the_topics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    few = tmp_path / "few.run"
    lines = BERT.read_text().splitlines(keepends=True)
    topics = list(dict.fromkeys(line.split()[0] for line in lines))[:10]
    few.write_text("".join(line for line in lines if line.split()[0] in topics))
    code, _, err = cli(capsys, "compare", QRELS, few, IN_CONTEXT, "--task", "focused", "-c")
    assert code == 0
    code, _, err = cli(capsys, "eval", QRELS, few, "--task", "focused")
    warned = [line for line in err.splitlines() if "assessed topics" in line and "warning" in line]
    assert warned == [(f"inexeval: warning: {QRELS}: the runs answer 10 of the 120 assessed "
                       "topics: means over every assessed topic (-c) count the others as 0; "
                       "--topics restricts the topics evaluated")]


# the API -------------------------------------------------------------------------------------
def test_to_dict_of_the_api_equals_the_clis_values(capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(r) for r in RUNS]
    measures = ["P@5", "inex_eval", "overlap@10"]
    for flag, complete in (([], False), (["-c"], True)):
        evaluation = Experiment(str(ASSESSMENTS_2004), runs, measures=measures,
                                complete=complete).evaluate()
        code, out, err = cli(capsys, "eval", ASSESSMENTS_2004, *runs, *(f"-m{m}" for m in
                                                                        measures),
                             "-q", "--format", "json", "--digits", "17", *flag)
        assert code == 0, err
        printed: dict[str, dict[str, dict[str, float | None]]] = {}
        for row in json.loads(out):
            printed.setdefault(row["run"], {}).setdefault(row["topic"], {})[row["measure"]] = \
                row["value"]
        ours = evaluation.to_dict()
        assert ours.keys() == printed.keys()
        for run in ours:
            assert ours[run].keys() == printed[run].keys()
            for topic in ours[run]:
                assert ours[run][topic] == pytest.approx(printed[run][topic], abs=1e-15)


def test_results_by_run_name_or_file_and_short_reprs() -> None:
    runs = [str(r) for r in RUNS]
    study = Experiment(str(ASSESSMENTS_2004), runs, measures=["P@5"])
    assert repr(study) == "Experiment(3 assessed topics, 3 runs, measures=['P@5'])"
    evaluation = study.evaluate()
    assert repr(evaluation) == "Evaluation(3 runs × 3 topics × 1 measures, rule='answered')"
    name = evaluation.scores.runs[1]
    assert evaluation[name] == evaluation[runs[1]] == evaluation[str(Path(runs[1]))]
    assert evaluation[name]["P@5"] == pytest.approx(evaluation.results.mean("P@5", name))
    with pytest.raises(KeyError, match=re.escape(f"no run 'nope': the runs are "
                                                 f"{', '.join(evaluation.scores.runs)}")):
        evaluation["nope"]


def test_an_experiment_s_results_find_a_run_by_its_file() -> None:
    """Results.mean(measure, FILE), as inexeval.evaluate's results and Evaluation do, on the
    results of Experiment.evaluate under every rule (their Results were rebuilt without the
    files)."""
    runs = [str(r) for r in RUNS]
    for rule in ("answered", "any", "all"):
        evaluation = Experiment(str(ASSESSMENTS_2004), runs, measures=["P@5"]).evaluate(rule)
        name = evaluation.scores.runs[2]
        assert evaluation.results.mean("P@5", runs[2]) == evaluation.results.mean("P@5", name)
        with pytest.raises(KeyError, match="files"):
            evaluation.results.mean("P@5", "nope")


def test_an_agreement_reads_well_in_a_notebook() -> None:
    """Experiment.agree: the rows as before (a list), a repr of what it holds (it was the
    list's, thousands of characters with six measures), print() the table agree prints."""
    from inexeval.analysis.agreement import AGREEMENT_COLUMNS, AgreementRow, measure_agreement
    from inexeval.experiment import Agreement

    measures = [f"P@{k}" for k in (1, 2, 3, 5, 10, 20)]
    study = Experiment(str(ASSESSMENTS_2004), [str(r) for r in RUNS], measures=measures)
    agreement = study.agree()
    evaluation = study.evaluate("any")
    assert agreement == measure_agreement(evaluation.mean_table(measures), measures)
    assert isinstance(agreement, Agreement) and len(agreement) == 15
    assert all(isinstance(r, AgreementRow) for r in agreement)
    shown = repr(agreement)
    assert len(shown) < 500 and shown.startswith("Agreement(15 pairs of measures over 3 runs: "
                                                 "P@1 ~ P@2, P@1 ~ P@3, P@1 ~ P@5, ...")
    table = str(agreement).splitlines()
    assert table[0].split() == list(AGREEMENT_COLUMNS) and len(table) == 16
    assert agreement.to_markdown().startswith("| measure_a | measure_b |")
    assert agreement._repr_html_().startswith("<pre>")


def test_ir_measures_objects_are_mapped_or_named_when_they_have_no_counterpart() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"1": {"d1": 2, "d2": 0, "d3": 1}, "2": {"d1": 1}}
    run = {"1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "2": {"d2": 0.5, "d1": 0.4}}
    study = Experiment(qrels, [run], measures=[ir_measures.nDCG @ 10, ir_measures.RR,
                                               ir_measures.Rprec])
    assert study.measures == ["nDCG@10", "RR", "R-Prec"]
    means = study.evaluate()["run1"]
    reference = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.RR,
                                            ir_measures.Rprec], qrels, run)
    assert means["nDCG@10"] == pytest.approx(reference[ir_measures.nDCG @ 10], abs=1e-12)
    assert means["RR"] == pytest.approx(reference[ir_measures.RR], abs=1e-12)
    assert means["R-Prec"] == pytest.approx(reference[ir_measures.Rprec], abs=1e-12)
    with pytest.raises(MeasureError, match=r"ir_measures' alpha_nDCG@10 has no counterpart"):
        Experiment(qrels, [run], measures=[ir_measures.alpha_nDCG @ 10])


def test_jobs_give_the_same_scores() -> None:
    runs = [str(r) for r in RUNS]
    one = Experiment(str(ASSESSMENTS_2004), runs, measures=["P@5", "inex_eval"]).evaluate()
    two = Experiment(str(ASSESSMENTS_2004), runs, measures=["P@5", "inex_eval"],
                     jobs=2).evaluate()
    assert one.to_dict() == two.to_dict()
    assert one.scores.runs == two.scores.runs


def test_a_dask_cluster_gives_the_same_scores() -> None:
    pytest.importorskip("distributed")
    runs = [str(r) for r in RUNS]
    here = Experiment(str(ASSESSMENTS_2004), runs, measures=["P@5"]).evaluate()
    there = Experiment(str(ASSESSMENTS_2004), runs, measures=["P@5"],
                       scheduler="local:1").evaluate()
    assert here.to_dict() == there.to_dict()


def test_readme_api_example_runs_as_written() -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "reference" / "api.md"
    readme = page.read_text(encoding="utf-8")
    section = readme[readme.index("# Python API"):readme.index("## API reference")]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})  # noqa: S102


# options that would be ignored ---------------------------------------------------------------
@pytest.mark.parametrize(("argv", "words"), [
    (["--strict"], "--strict is not used by trec assessments"),
    (["--implicit", "off"], "--implicit off is not used by trec assessments"),
    (["--collection", str(COLLECTION)], "--collection is not used by the document measures"),
    (["--ideal-run", "RUN"], "--ideal-run is not used by the measures (no ideal_list=given)"),
    (["--navigation", "RUN"], "--navigation is not used by the measures (no nav=custom)"),
])
def test_options_unused_by_the_measures_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d1 1 1.0 r\n")
    argv = [str(run) if a == "RUN" else a for a in argv]
    if "--navigation" in argv:
        navigation = tmp_path / "nav.txt"
        navigation.write_text("a.xml /article[1] a.xml /article[1] 1\n")
        argv[-1] = str(navigation)
    code, out, err = cli(capsys, "eval", qrels, run, "-m", "P@5", *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert words in err


def test_unknown_evaluator_options_are_an_error() -> None:
    assessments = inexeval.as_assessments({"1": {"d1": 1}})
    with pytest.raises(InexevalError, match="unknown option 'navigaton'"):
        Evaluator(["P@5"], assessments, options={"navigaton": None})


# messages ------------------------------------------------------------------------------------
def test_swapped_assessments_and_run_are_said(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d1 1 1.0 r\n")
    code, _, err = cli(capsys, "eval", run, qrels)
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"inexeval: error: {run}:1: ")
    assert f"ASSESSMENTS and RUN seem swapped: this file reads as a run and {qrels} as " \
        "assessments" in err


@needs_ipcs
@pytest.mark.parametrize("command", [["eval"], ["compare"], ["plot", "-o", "PLOT"]])
def test_errors_about_a_run_name_its_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          command: list[str]) -> None:
    pytest.importorskip("matplotlib") if command[0] == "plot" else None
    element = tmp_path / "element.run"  # an element run on FOL qrels without the collection
    element.write_text("2009001 Q0 a.xml 1 1.0 r /article[1]\n")
    argv = [str(tmp_path / "p.png") if a == "PLOT" else a for a in command]
    code, _, err = cli(capsys, *argv, QRELS, element, IN_CONTEXT, "-m", "iP[0.01]")
    assert code == 2
    assert f"inexeval: error: {element}: an element run on FOL (passage) qrels needs the " \
        "collection" in err


def test_topic_ids_of_non_ascii_digits_sort_as_names(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("² 0 d1 1\n10 0 d1 1\n9 0 d1 1\n")
    run = tmp_path / "r.run"
    run.write_text("² Q0 d1 1 1.0 r\n10 Q0 d1 1 1.0 r\n9 Q0 d1 1 1.0 r\n")
    code, out, err = cli(capsys, "eval", "-q", qrels, run, "-m", "P@5")
    assert code == 0, err
    assert [line.split("\t")[1] for line in out.splitlines() if line.startswith("P@5")] == \
        ["9", "10", "²", "all"]


# the import graph ----------------------------------------------------------------------------
def _imports() -> dict[str, set[str]]:
    """Every module of src/ and the inexeval modules it imports (at any level, also inside
    functions and under ``TYPE_CHECKING``), with no exception."""
    modules = {}
    for path in SRC.rglob("*.py"):
        parts = ("inexeval", *path.relative_to(SRC).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                               for a in node.names)
        found = {known(t) for t in targets if t.startswith("inexeval")}
        graph[name] = {t for t in found if t is not None and t != name}
    return graph


def test_the_import_graph_of_src_has_no_cycle() -> None:
    graph = _imports()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycle = stack[stack.index(target):] + [target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_no_command_imports_another_and_analysis_never_imports_report() -> None:
    # a command is a module or package right under inexeval.commands; a command with
    # subcommands of its own (meta) is a package whose modules only it imports
    graph = _imports()

    def command(module: str) -> bool:
        return module.count(".") == 2 and module.startswith("inexeval.commands.")

    for name, targets in graph.items():
        if command(name):
            assert not {t for t in targets if command(t) and not name.startswith(t)}, name
        if name.startswith("inexeval.commands.") and not command(name):
            owner = ".".join(name.split(".")[:3])
            importers = {n for n, t in graph.items() if name in t}
            assert importers <= {owner}, (name, importers)
        if name.startswith("inexeval.analysis"):
            assert not {t for t in targets if t.startswith("inexeval.report")}, name
    assert "inexeval.experiment" in graph["inexeval.commands.eval"] | graph["inexeval.cli_args"]


def _private_imports(tree: ast.AST) -> list[str]:
    """The private names (``_name``, not dunders) a module takes from inexeval's modules:
    imported by name, or read as an attribute of an inexeval module it imported."""
    private = re.compile(r"_(?!_)")
    modules: set[str] = set()
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update((a.asname or a.name).split(".")[0] for a in node.names
                           if a.name.startswith("inexeval"))
        elif isinstance(node, ast.ImportFrom) and (node.level
                                                    or (node.module or "").startswith("inexeval")):
            for alias in node.names:
                if private.match(alias.name):
                    found.append(f"from {node.module} import {alias.name} (line {node.lineno})")
                modules.add(alias.asname or alias.name)
    found.extend(f"{node.value.id}.{node.attr} (line {node.lineno})" for node in ast.walk(tree)
                 if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                 and node.value.id in modules and private.match(node.attr))
    return found


def test_no_private_name_is_imported_across_modules() -> None:
    # a name shared by two modules is public (or moved to where it is used)
    found = {str(path.relative_to(SRC)): names for path in sorted(SRC.rglob("*.py"))
             if (names := _private_imports(ast.parse(path.read_text(encoding="utf-8"))))}
    assert found == {}


def test_the_private_import_check_finds_each_form() -> None:
    tree = ast.parse("from inexeval.measures.trec_eval import _overall\n"
                     "from inexeval import measures\nimport inexeval.formats.trec as trec\n"
                     "measures._x\ntrec._RUN_LINE\nfrom . import _helper\n"
                     "from inexeval import __version__\nmeasures.__all__\nimport os\nos._exit\n")
    assert [f.partition(" (")[0] for f in _private_imports(tree)] == [
        "from inexeval.measures.trec_eval import _overall", "from None import _helper",
        "measures._x", "trec._RUN_LINE"]


def test_nan_is_never_a_mean_of_defined_values() -> None:
    # a measure undefined on every topic of a run (nothing relevant under a strict
    # quantisation) has no mean: None, as eval prints 'undefined'
    evaluation = Experiment(str(ASSESSMENTS_2004), [str(RUNS[0])],
                            measures=["P@5"]).evaluate()
    assert all(v is None or not math.isnan(v) for v in evaluation[str(RUNS[0])].values())
