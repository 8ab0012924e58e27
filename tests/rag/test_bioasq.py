"""The BioASQ snippet measures against BioASQ's own evaluator (its jar, run here), on generated
golden and system files at every version, and the quirks of that evaluator one by one."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.rag.bioasq_cases import (
    JAR_DIR,
    Jar,
    make_jar,
    parse_verbose,
    random_case,
    same,
    write_case,
)

from inexeval.errors import InexevalError
from inexeval.formats.bioasq import read_bioasq
from inexeval.measures.bioasq import MEASURES, VERSIONS, evaluate_bioasq

CASES = 160


@pytest.fixture(scope="module")
def jar(tmp_path_factory: pytest.TempPathFactory) -> Jar:
    return make_jar(tmp_path_factory.mktemp("jar"))


def ours(gold: Path, system: Path, version: int) -> Any:
    return evaluate_bioasq(read_bioasq(gold), read_bioasq(system), MEASURES, version)


def test_means_equal_the_jar_on_generated_files(jar: Jar, tmp_path: Path) -> None:
    cases = [write_case(tmp_path, f"c{seed}", random_case(seed)) for seed in range(CASES)]
    runs = [(version, gold, system) for gold, system in cases for version in VERSIONS]
    expected = jar.run(runs, tmp_path)
    wrong = []
    failed = 0
    for (version, gold, system), official in zip(runs, expected):
        if official is None:  # the evaluator threw: so do we, one line naming the question
            failed += 1
            with pytest.raises(InexevalError, match="BioASQ's evaluator stops"):
                ours(gold, system, version)
            continue
        results = ours(gold, system, version)
        for measure, value in official.items():
            if not same(results.mean(measure), value):
                wrong.append(f"{gold.name} -e {version} {measure}: {results.mean(measure)} "
                             f"!= {value}")
    assert not wrong, "\n".join(wrong[:20])
    assert failed < len(runs) / 10


def test_each_question_equals_the_jar_alone(jar: Jar, tmp_path: Path) -> None:
    """A question's values are the evaluator's means on a golden file of that question alone."""
    runs, keys = [], []
    for seed in range(40):
        gold, system = random_case(1000 + seed)
        system_file = tmp_path / f"s{seed}.json"
        system_file.write_text(json.dumps(system))
        for question in gold["questions"]:
            one = tmp_path / f"g{seed}-{question['id']}.json"
            one.write_text(json.dumps({"questions": [question]}))
            for version in VERSIONS:
                runs.append((version, one, system_file))
                keys.append(question["id"])
    wrong = []
    for (version, gold, system), qid, official in zip(runs, keys, jar.run(runs, tmp_path)):
        if official is None:
            with pytest.raises(InexevalError, match="BioASQ's evaluator stops"):
                ours(gold, system, version)
            continue
        results = ours(gold, system, version)
        for measure, value in official.items():
            if measure == "bioasq_snippet_GMAP":
                continue  # a mean only
            rows = [r.value for r in results.rows if r.topic == qid and r.measure == measure]
            if not rows:  # left out: the evaluator's mean over no question
                ok = math.isnan(value)
            else:
                ok = same(rows[0], value)
            if not ok:
                wrong.append(f"{qid} -e {version} {measure}: {rows} != {value}")
    assert not wrong, "\n".join(wrong[:20])


def test_driver_is_the_command_bioasq_documents(jar: Jar, tmp_path: Path) -> None:
    """The jar run as BioASQ documents it gives what the tests' driver gives."""
    gold, system = write_case(tmp_path, "one", random_case(7))
    command = ["java", "-cp", f"{JAR_DIR / 'BioASQEvaluation.jar'}:{JAR_DIR / 'lib' / '*'}",
               "evaluation.EvaluatorTask1b", "-phaseA", "-e", "8", str(gold), str(system),
               "-verbose"]
    alone = parse_verbose(subprocess.run(command, capture_output=True, text=True, check=True,
                                         timeout=300).stdout)
    assert alone == jar.run([(8, gold, system)], tmp_path)[0]


def snippet(document: str, begin: int, end: int, section: str = "abstract",
            end_section: str | None = None) -> dict[str, Any]:
    return {"document": document, "offsetInBeginSection": begin, "offsetInEndSection": end,
            "beginSection": section, "endSection": end_section or section}


def evaluate(tmp_path: Path, jar: Jar, gold: list[dict[str, Any]],
             system: list[dict[str, Any]], version: int = 8,
             documents: list[str] | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """Ours and the evaluator's means of one question."""
    question: dict[str, Any] = {"id": "q", "snippets": gold}
    if documents is not None:
        question["documents"] = documents
    files = write_case(tmp_path, "quirk", ({"questions": [question]},
                                           {"questions": [{"id": "q", "snippets": system}]}))
    results = ours(*files, version)
    mine = {m: results.mean(m) for m in MEASURES}
    official = jar.run([(version, *files)], tmp_path)[0]
    assert official is not None
    return mine, official


PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/1"


def agree(mine: dict[str, float], official: dict[str, float]) -> bool:
    return all(same(mine[m], official[m]) for m in MEASURES)


def test_inclusive_ends_and_hand_worked_values(jar: Jar, tmp_path: Path) -> None:
    # golden [10, 19] (10 characters); the system [15, 24] then [40, 49]: overlap 5
    mine, official = evaluate(tmp_path, jar, [snippet(PUBMED, 10, 19)],
                              [snippet(PUBMED, 15, 24), snippet(PUBMED, 40, 49)])
    assert agree(mine, official)
    assert mine["bioasq_snippet_P"] == 5 / 20 and mine["bioasq_snippet_R"] == 5 / 10
    # AP: rank 1 precision 5/10 (relevant), rank 2 5/20 (same document: relevant though it
    # overlaps nothing, the stray ';'), over min(10, 1 golden snippet)
    assert mine["bioasq_snippet_MAP"] == 5 / 10 + 5 / 20
    assert mine["bioasq_snippet_GMAP"] == pytest.approx(5 / 10 + 5 / 20 + 1e-5, abs=1e-12)


def test_document_by_last_part_for_p_r_whole_string_for_map(jar: Jar, tmp_path: Path) -> None:
    mine, official = evaluate(tmp_path, jar, [snippet(PUBMED, 0, 9)],
                              [snippet("https://pubmed.ncbi.nlm.nih.gov/1/", 0, 9)])
    assert agree(mine, official)
    assert mine["bioasq_snippet_P"] == 1.0 and mine["bioasq_snippet_MAP"] == 0.0


def test_system_section_0_matches_golden_abstract_only_one_way(jar: Jar,
                                                               tmp_path: Path) -> None:
    one_way, official = evaluate(tmp_path, jar, [snippet(PUBMED, 0, 9, "abstract")],
                                 [snippet(PUBMED, 0, 9, "sections.0", "title")])
    assert agree(one_way, official) and one_way["bioasq_snippet_P"] == 1.0
    other_way, official = evaluate(tmp_path, jar, [snippet(PUBMED, 0, 9, "sections.0")],
                                   [snippet(PUBMED, 0, 9, "abstract")])
    assert agree(other_way, official) and other_way["bioasq_snippet_P"] == 0.0


def test_merged_twice_and_once_with_version_9_without_documents(jar: Jar,
                                                                tmp_path: Path) -> None:
    """Snippets from the title into the abstract, offsets in any order: one pass of
    concatenateSnippets leaves (14..11) and (0..18) apart, the second merges them. BioASQ 9
    merges once a golden question without documents."""
    cross = [snippet(PUBMED, b, e, "title", "abstract")
             for b, e in ((14, 11), (12, 18), (0, 12), (4, 4))]
    gold = [snippet(PUBMED, 0, 30, "title", "abstract")]
    twice, official = evaluate(tmp_path, jar, gold, cross, version=8)
    assert agree(twice, official)
    assert twice["bioasq_snippet_P"] == 19 / 19  # (0..18), 19 characters, within (0..30)
    nine_with, official = evaluate(tmp_path, jar, gold, cross, version=9, documents=[PUBMED])
    assert agree(nine_with, official) and nine_with == twice
    once, official = evaluate(tmp_path, jar, gold, cross, version=9)
    assert agree(once, official)
    assert once["bioasq_snippet_P"] == (-2 + 19) / (-2 + 19)
    assert once["bioasq_snippet_R"] == (-2 + 19) / 31


@pytest.mark.parametrize("version", VERSIONS)
def test_map_normalisation_of_each_version(jar: Jar, tmp_path: Path, version: int) -> None:
    gold = [snippet(PUBMED, 100 * k, 100 * k + 9) for k in range(12)]
    mine, official = evaluate(tmp_path, jar, gold, [snippet(PUBMED, 0, 9)], version)
    assert agree(mine, official)
    assert mine["bioasq_snippet_MAP"] == 1 / {2: 12, 3: 10, 5: 10, 8: 10, 9: 10}[version]


def test_empty_golden_snippets(jar: Jar, tmp_path: Path) -> None:
    """An AP of 0/0 (version 8: min(10, 0 golden snippets)) is NaN for the evaluator: 0 in MAP,
    nothing in GMAP's sum but one in its count; version 9 leaves the question out."""
    for version in VERSIONS:
        mine, official = evaluate(tmp_path, jar, [], [snippet(PUBMED, 0, 9)], version)
        assert agree(mine, official), (version, mine, official)
    mine, _ = evaluate(tmp_path, jar, [], [snippet(PUBMED, 0, 9)], 9)
    assert math.isnan(mine["bioasq_snippet_P"])


def test_huge_offsets_wrap_and_saturate_as_java_ints(jar: Jar, tmp_path: Path) -> None:
    top = 2**31 - 1
    mine, official = evaluate(tmp_path, jar, [snippet(PUBMED, 0, top), snippet(PUBMED, 0, top,
                                                                               "title")],
                              [snippet(PUBMED, 0, top), snippet(PUBMED, 0, top, "title"),
                               snippet(PUBMED, 5, top - 5)])
    assert agree(mine, official), (mine, official)


def test_where_the_evaluator_throws_we_stop_naming_the_question(jar: Jar, tmp_path: Path,
                                                               capsys: Any) -> None:
    """Snippets crossing sections backwards make concatenateSnippets read past its list
    (IndexOutOfBoundsException): no value, one line naming the file and the question."""
    crossing = [snippet(PUBMED, b, e, "title", "abstract")
                for b, e in ((18, 3), (19, 9), (2, 14), (12, 20), (2, 2))]
    files = write_case(tmp_path, "throws", ({"questions": [{"id": "q7", "snippets": [
        snippet(PUBMED, 0, 9)]}]}, {"questions": [{"id": "q7", "snippets": crossing}]}))
    assert jar.run([(8, *files)], tmp_path) == [None]
    from inexeval.cli import main

    assert main(["eval", *map(str, files)]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and str(files[1]) in error[0] and "'q7'" in error[0]


def test_keys_given_twice_append_as_the_evaluator_reads_them(jar: Jar, tmp_path: Path) -> None:
    """``snippets`` and ``questions`` given twice are both read (the evaluator's streaming
    reader appends); a key of a snippet given twice: the last."""
    def one(begin: int, end: int) -> str:
        return json.dumps(snippet(PUBMED, begin, end))

    gold = tmp_path / "twice.gold.json"
    gold.write_text('{"questions": [{"id": "a", "snippets": [' + one(0, 9) + '], "snippets": ['
                    + one(20, 29) + ']}], "questions": [{"id": "b", "snippets": [' + one(0, 9)
                    + ']}]}')
    system = tmp_path / "twice.system.json"
    system.write_text('{"questions": [{"id": "a", "snippets": [' + one(20, 29)[:-1]
                      + ', "offsetInEndSection": 24}]}, {"id": "b", "snippets": []}]}')
    official = jar.run([(8, gold, system)], tmp_path)[0]
    results = ours(gold, system, 8)
    assert official is not None and agree({m: results.mean(m) for m in MEASURES}, official)
    assert results.value("run", "a", "bioasq_snippet_R") == 5 / 20
    assert results.value("run", "a", "bioasq_snippet_P") == 5 / 5


def test_precision_and_recall_above_1(jar: Jar, tmp_path: Path) -> None:
    """Snippets are merged by document string but compared by the document's last '/'-part:
    one PubMed id written two ways is counted twice. Precision 2 here (and recall 2 the other
    way round)."""
    ways = [snippet(PUBMED, 0, 9), snippet("https://pubmed.ncbi.nlm.nih.gov/1", 0, 9)]
    mine, official = evaluate(tmp_path, jar, ways, [snippet(PUBMED, 0, 9)])
    assert agree(mine, official) and mine["bioasq_snippet_P"] == 2.0
    mine, official = evaluate(tmp_path, jar, [snippet(PUBMED, 0, 9)], ways)
    assert agree(mine, official) and mine["bioasq_snippet_R"] == 2.0


def test_a_document_of_slashes_only_stops_both(jar: Jar, tmp_path: Path) -> None:
    """Java's split("/") of "/" is empty: getDocumentOnlyID throws; we refuse the file."""
    files = write_case(tmp_path, "slashes", ({"questions": [{"id": "q", "snippets": [
        snippet(PUBMED, 0, 9)]}]}, {"questions": [{"id": "q", "snippets": [
            snippet("/", 0, 9)]}]}))
    assert jar.run([(8, *files)], tmp_path) == [None]
    with pytest.raises(InexevalError, match="document '/' has no id"):
        ours(*files, 8)
