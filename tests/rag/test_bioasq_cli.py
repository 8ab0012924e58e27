"""``inexeval eval GOLD.json SYSTEM.json`` with the BioASQ snippet measures: eval's layout, the
options, and every malformed input as one line naming the file and the question (exit 2)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from inexeval.cli import main

PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"


def snippet(document: str, begin: int, end: int, section: str = "abstract") -> dict[str, Any]:
    return {"document": PUBMED + document, "offsetInBeginSection": begin,
            "offsetInEndSection": end, "beginSection": section, "endSection": section,
            "text": "..."}


GOLD = {"questions": [
    {"id": "q1", "body": "?", "documents": [PUBMED + "1"],
     "snippets": [snippet("1", 0, 9), snippet("1", 5, 14)]},  # merged: [0, 14], 15 characters
    {"id": "q2", "snippets": [snippet("2", 0, 3, "title")]},
    {"id": "q3", "snippets": [snippet("3", 0, 99)]},
]}
SYSTEM = {"questions": [
    {"id": "q1", "snippets": [snippet("1", 10, 19), snippet("9", 0, 9)]},
    {"id": "q2", "snippets": []},
    {"id": "q4", "snippets": [snippet("4", 0, 1)]},
]}


def write(folder: Path, name: str, data: Any) -> str:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["eval", *args])
    out, err = capsys.readouterr()
    return code, out, err


def table(out: str) -> dict[tuple[str, str], str]:
    return {(m, t): v for m, t, v in (line.split("\t") for line in out.splitlines())}


def test_per_question_and_means_in_evals_layout(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    gold, system = write(tmp_path, "gold.json", GOLD), write(tmp_path, "system.json", SYSTEM)
    code, out, err = run(capsys, gold, system, "-q", "--digits", "6")
    assert code == 0
    values = table(out)
    # q1: overlap of [10, 19] with [0, 14] is 5; 20 system characters, 15 golden
    assert values["bioasq_snippet_P", "q1"] == f"{5 / 20:.6f}"
    assert values["bioasq_snippet_R", "q1"] == f"{5 / 15:.6f}"
    # AP: rank 1 precision 5/10, rank 2 (another document) not relevant; min(10, 1 snippet)
    assert values["bioasq_snippet_MAP", "q1"] == f"{5 / 10:.6f}"
    # q2 answered with nothing: 0; q3 not answered: left out; q4 not in the golden file
    assert values["bioasq_snippet_P", "q2"] == "0.000000"
    assert ("bioasq_snippet_P", "q3") not in values and ("bioasq_snippet_P", "q4") not in values
    assert values["num_q", "all"] == "2"
    assert values["bioasq_snippet_MAP", "all"] == f"{(0.5 + 0) / 2:.6f}"
    gmap = ((0.5 + 1e-5) * 1e-5) ** 0.5
    assert values["bioasq_snippet_GMAP", "all"] == f"{gmap:.6f}"
    assert ("bioasq_snippet_GMAP", "q1") not in values  # a mean only
    assert "1 question(s) of the system file are not in the golden file" in err
    code, out, _ = run(capsys, gold, system, "-m", "bioasq_snippet_MAP", "--bioasq-version",
                       "2")
    assert code == 0 and table(out)["bioasq_snippet_MAP", "all"] == f"{0.5 / 1 / 2:.4f}"
    assert table(out).keys() == {("num_q", "all"), ("bioasq_snippet_MAP", "all")}


def test_complete_scores_unanswered_questions_0(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    gold, system = write(tmp_path, "gold.json", GOLD), write(tmp_path, "system.json", SYSTEM)
    code, out, _ = run(capsys, gold, system, "-c", "-q", "-m", "bioasq_snippet_MAP")
    values = table(out)
    assert code == 0 and values["bioasq_snippet_MAP", "q3"] == "0.0000"
    assert values["num_q", "all"] == "3" and values["bioasq_snippet_MAP", "all"] == "0.1667"


def test_several_systems_each_named_by_its_file(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    gold = write(tmp_path, "gold.json", GOLD)
    a, b = write(tmp_path, "a.json", SYSTEM), write(tmp_path, "b.json", {"questions": [
        {"id": "q3", "snippets": [snippet("3", 0, 99)]}]})
    code, out, _ = run(capsys, gold, a, b, "-m", "bioasq_snippet_F1")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert ["b", "bioasq_snippet_F1", "all", "1.0000"] in rows
    assert ["a", "bioasq_snippet_F1", "all", f"{(2 * 0.25 * (1 / 3) / (0.25 + 1 / 3)) / 2:.4f}"
            ] in rows


def test_listed_by_measures_bioasq(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures", "bioasq"]) == 0
    out = capsys.readouterr().out
    heads = [line.split(":")[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert heads == sorted(
        ["bioasq_snippet_P", "bioasq_snippet_R", "bioasq_snippet_F1", "bioasq_snippet_MAP",
         "bioasq_snippet_GMAP"], key=str.lower)


BAD_SNIPPETS = {
    "offsetInEndSection 3 is before offsetInBeginSection 9": {"offsetInEndSection": 3,
                                                              "offsetInBeginSection": 9},
    "offsetInBeginSection '-1' is not a whole number": {"offsetInBeginSection": -1},
    "offsetInEndSection '2.5' is not a whole number": {"offsetInEndSection": 2.5},
    "offsetInEndSection '12' is not a whole number": {"offsetInEndSection": "12"},
    "offsetInEndSection '2147483648' is not a whole number": {"offsetInEndSection": 2**31},
    "has no offsetInBeginSection": {"offsetInBeginSection": None},
    "has no document": {"document": None},
    "beginSection '3' is not a string": {"beginSection": 3},
    "document '//' has no id": {"document": "//"},
}


@pytest.mark.parametrize("problem", list(BAD_SNIPPETS))
@pytest.mark.parametrize("which", ["gold", "system"])
def test_a_malformed_snippet_is_one_line_naming_file_and_question(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], problem: str, which: str) -> None:
    bad = snippet("1", 9, 20)
    for key, value in BAD_SNIPPETS[problem].items():
        if value is None:
            del bad[key]
        else:
            bad[key] = value
    broken = {"questions": [{"id": "q1", "snippets": [snippet("1", 0, 1)]},
                            {"id": "q'2", "snippets": [snippet("1", 0, 1), bad]}]}
    gold = write(tmp_path, "gold.json", broken if which == "gold" else GOLD)
    system = write(tmp_path, "system.json", broken if which == "system" else SYSTEM)
    code, out, err = run(capsys, gold, system)
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if not line.startswith("inexeval: measures")]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"inexeval: error: {tmp_path / which}")
    assert "question \"q'2\", snippet 2" in lines[0] and problem in lines[0]


@pytest.mark.parametrize(("content", "problem"), [
    ('{"questions": {"id": "q1"}}', "neither a BioASQ golden nor a system file"),
    ('[{"questions": []}]', "neither a BioASQ golden nor a system file"),
    ('{"data": []}', "neither a BioASQ golden nor a system file"),
    ('{"questions": [', "not a BioASQ JSON file"),
    ('{"questions": [{"body": "?"}]}', "question 1 has no string id"),
    ('{"questions": [{"id": 5}]}', "question 1 has no string id"),
    ('{"questions": [{"id": "a"}, {"id": "a"}]}', "question 'a' is given twice"),
    ('{"questions": [{"id": "a", "snippets": {}}]}', "question 'a': snippets is not a list"),
    ('{"questions": [{"id": "a", "snippets": [1]}]}', "question 'a', snippet 1 is not a JSON"),
    ('{"questions": [{"id": "a", "documents": "d"}]}', "question 'a': documents is not a list"),
])
def test_a_malformed_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      content: str, problem: str) -> None:
    for gold_broken in (True, False):
        gold = write(tmp_path, "gold.json", content if gold_broken else GOLD)
        system = write(tmp_path, "system.json", SYSTEM if gold_broken else content)
        code, out, err = run(capsys, gold, system)
        lines = [line for line in err.splitlines() if not line.startswith("inexeval: measures")]
        assert code == 2 and out == "" and len(lines) == 1, err
        assert (gold if gold_broken else system) in lines[0] and problem in lines[0]


def test_a_system_file_of_other_questions(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    gold = write(tmp_path, "gold.json", GOLD)
    system = write(tmp_path, "system.json", {"questions": [{"id": "x", "snippets": []}]})
    code, _, err = run(capsys, gold, system)
    assert code == 2 and f"{system}: no question of the system file is in the golden file" in err


@pytest.mark.parametrize(("args", "problem"), [
    (["-m", "P@10"], "P@10 cannot score BioASQ JSON files"),
    (["--task", "focused"], "--task not used by BioASQ JSON files"),
    (["--limit", "5"], "--limit not used by BioASQ JSON files"),
    (["--format", "official"], "--format official"),
    (["--bioasq-version", "4"], "invalid choice"),
    (["SYSTEM"], "the same run file is given twice"),
])
def test_options_that_do_not_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   args: list[str], problem: str) -> None:
    gold, system = write(tmp_path, "gold.json", GOLD), write(tmp_path, "system.json", SYSTEM)
    code, out, err = run(capsys, gold, system, *[system if a == "SYSTEM" else a for a in args])
    assert code == 2 and out == "" and problem in err and len(err.splitlines()) == 1


def test_bioasq_measures_and_version_need_bioasq_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = write(tmp_path, "qrels.txt", "1 0 doc1 1\n")
    trec_run = write(tmp_path, "run.txt", "1 Q0 doc1 1 1.0 r\n")
    code, _, err = run(capsys, qrels, trec_run, "--bioasq-version", "9")
    assert code == 2 and "--bioasq-version goes with BioASQ JSON files" in err
    code, _, err = run(capsys, qrels, trec_run, "-m", "bioasq_snippet_MAP")
    assert code == 2 and "bioasq_snippet_MAP needs bioasq assessments" in err


ROOT = Path(__file__).resolve().parents[2]


def _readme_sessions() -> list[tuple[str, list[str]]]:
    readme = (ROOT / "docs/guides/rag.md").read_text(encoding="utf-8")
    start = readme.index("## BioASQ task B snippet measures\n")
    end = readme.find("\n## ", start + 1)
    section = readme[start:end if end >= 0 else len(readme)]
    sessions: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", section, flags=re.DOTALL):
        for line in block.splitlines():
            if line.startswith("$ "):
                sessions.append((line[2:], []))
            else:
                sessions[-1][1].append(line)
    return sessions


def test_the_readme_section_runs_as_written() -> None:
    sessions = _readme_sessions()
    assert len(sessions) == 2
    for command, shown in sessions:
        words = shlex.split(command)
        assert words[0] == "inexeval"
        done = subprocess.run([sys.executable, "-m", "inexeval.cli", *words[1:]], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert [line.split() for line in done.stdout.splitlines()] == [
            line.split() for line in shown], command


def test_the_readme_means_are_the_jars(tmp_path: Path) -> None:
    from tests.rag.bioasq_cases import make_jar

    jar = make_jar(tmp_path)
    example = ROOT / "examples" / "bioasq"
    official = jar.run([(8, example / "golden.json", example / "system.json")], tmp_path)[0]
    shown = {line.split()[0]: float(line.split()[2]) for line in _readme_sessions()[0][1]
             if line.split()[1] == "all" and line.split()[0] != "num_q"}
    assert official is not None and shown.keys() == official.keys()
    assert all(abs(shown[m] - official[m]) <= 0.00005 for m in shown)


def test_version_9_counts_only_questions_with_golden_snippets(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = write(tmp_path, "gold.json", {"questions": [*GOLD["questions"], {"id": "q5"}]})
    system = write(tmp_path, "system.json", {"questions": [*SYSTEM["questions"],
                                                           {"id": "q5", "snippets": []}]})
    for args, count in (([], "2"), (["-c"], "3")):
        code, out, err = run(capsys, gold, system, "--bioasq-version", "9", *args)
        assert code == 0 and table(out)["num_q", "all"] == count
        assert f"inexeval: {count} topics;" in err
    code, out, err = run(capsys, gold, system, "--bioasq-version", "8")
    assert table(out)["num_q", "all"] == "3" and "inexeval: 3 topics;" in err
