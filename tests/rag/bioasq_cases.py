"""Random BioASQ golden and system files for the tests against BioASQ's own evaluator, and that
evaluator run on them (tests/rag/bioasq: its jar, compiled with a driver that runs many cases in
one JVM)."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

JAR_DIR = Path(__file__).parent / "bioasq"
JAR_LINES = {"MPrec": "bioasq_snippet_P", "MRec": "bioasq_snippet_R", "MF1": "bioasq_snippet_F1",
             "MAP": "bioasq_snippet_MAP", "GMAP": "bioasq_snippet_GMAP"}
"""The evaluator's ``-verbose`` lines ``NAME snippets: value`` and the measures they give."""

# One PubMed id written several ways: the same last '/'-part (precision and recall match them),
# different whole strings (average precision does not); a trailing '/' dropped by Java's split.
DOCUMENTS = ("http://www.ncbi.nlm.nih.gov/pubmed/101", "https://pubmed.ncbi.nlm.nih.gov/101",
             "101", "http://www.ncbi.nlm.nih.gov/pubmed/101/", "http://www.ncbi.nlm.nih.gov/pubmed/202",
             "202", "http://www.ncbi.nlm.nih.gov/pubmed/303", "", "a//303")
SECTIONS = ("abstract", "title", "sections.0", "sections.1", "0", "x.abstract", "a.b.c")


def _snippet(rng: random.Random, documents: Sequence[str], huge: bool,
             crossing: bool = False) -> dict[str, Any]:
    """``crossing``: mostly from the title into the abstract, the offsets in any order."""
    if crossing and rng.random() < 0.7:
        begin_section, end_section, cross = "title", "abstract", True
    else:
        begin_section = rng.choice(SECTIONS)
        cross = rng.random() < 0.2
        end_section = rng.choice(SECTIONS) if cross else begin_section
    top = 2**31 - 1 if huge else 25 if crossing else 60
    begin = rng.randint(0, top)
    if cross and _cut(begin_section) != _cut(end_section):  # any order
        end = rng.randint(0, top)
    else:
        end = min(top, begin + (rng.randint(0, top - begin) if huge else rng.randint(0, 15)))
    snippet = {"document": rng.choice(documents), "offsetInBeginSection": begin,
               "offsetInEndSection": end, "beginSection": begin_section,
               "endSection": end_section}
    if rng.random() < 0.5:
        snippet["text"] = "some text"
    return dict(rng.sample(list(snippet.items()), len(snippet)))  # any key order


def _cut(section: str) -> str:
    return section[section.find(".") + 1:]


def random_case(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A golden and a system file: questions with 0-7 golden snippets (empty lists, missing
    lists, with and without golden documents), answered, unanswered, answered with nothing,
    system-only questions; overlapping, repeated, cross-section and far-apart snippets over a
    few documents written several ways."""
    rng = random.Random(seed)
    huge = rng.random() < 0.15
    crossing = not huge and rng.random() < 0.3
    documents = rng.sample(DOCUMENTS, rng.randint(1, len(DOCUMENTS)))
    gold_questions, system_questions = [], []
    for q in range(rng.randint(1, 8)):
        qid = f"q{seed}-{q}"
        question: dict[str, Any] = {"id": qid, "body": "?", "type": "factoid"}
        shape = rng.random()
        if shape > 0.1:
            question["snippets"] = [_snippet(rng, documents, huge, crossing)
                                    for _ in range(rng.choice((0, 1, 2, 3, 5, 7)))]
            if question["snippets"] and rng.random() < 0.3:  # a repeated snippet
                question["snippets"].append(dict(rng.choice(question["snippets"])))
        if rng.random() < 0.7:
            question["documents"] = [] if rng.random() < 0.2 else list(documents[:2])
        gold_questions.append(question)
        answer = rng.random()
        if answer < 0.15:
            continue  # unanswered
        answered: dict[str, Any] = {"id": qid}
        if answer > 0.25:
            answered["snippets"] = [_snippet(rng, documents, huge, crossing)
                                    for _ in range(rng.randint(0, 12))]
            golden = question.get("snippets", [])
            if golden and rng.random() < 0.6:  # some golden snippets given back, a bit moved
                for g in rng.sample(golden, rng.randint(1, len(golden))):
                    copy = dict(g)
                    if copy["beginSection"] == copy["endSection"] and not huge:
                        copy["offsetInEndSection"] += rng.randint(0, 5)
                    answered["snippets"].insert(rng.randint(0, len(answered["snippets"])), copy)
        system_questions.append(answered)
    for q in range(rng.randint(0, 2)):
        system_questions.append({"id": f"extra{seed}-{q}", "snippets": [
            _snippet(rng, documents, huge, crossing)]})
    rng.shuffle(system_questions)
    return {"questions": gold_questions}, {"questions": system_questions}


def write_case(folder: Path, name: str, case: tuple[dict[str, Any], dict[str, Any]]
               ) -> tuple[Path, Path]:
    gold, system = folder / f"{name}.gold.json", folder / f"{name}.system.json"
    gold.write_text(json.dumps(case[0], indent=1))
    system.write_text(json.dumps(case[1], indent=1))
    return gold, system


class Jar:
    """BioASQ's evaluator: ``run`` gives its snippet means for each ``(version, gold, system)``."""

    def __init__(self, classes: Path) -> None:
        self.classpath = ":".join([str(classes), str(JAR_DIR / "BioASQEvaluation.jar"),
                                   str(JAR_DIR / "lib" / "*")])

    def run(self, cases: Sequence[tuple[int, Path, Path]], folder: Path
            ) -> list[dict[str, float] | None]:
        """None where the evaluator fails (throws)."""
        listing = folder / "cases.tsv"
        listing.write_text("".join(f"{v}\t{g}\t{s}\n" for v, g, s in cases))
        out = subprocess.run(["java", "-cp", self.classpath, "RunMany", str(listing)],
                             capture_output=True, text=True, check=True, timeout=600).stdout
        return [None if "=== failed" in block else parse_verbose(block)
                for block in out.split("=== end\n")[:-1]]


def parse_verbose(text: str) -> dict[str, float]:
    """The snippet means of the evaluator's ``-verbose`` output."""
    values = {}
    for line in text.splitlines():
        name, _, value = line.partition(" snippets: ")
        if value and name in JAR_LINES:
            values[JAR_LINES[name]] = float(value)
    assert len(values) == len(JAR_LINES), text
    return values


def make_jar(folder: Path) -> Jar:
    """The evaluator compiled with its driver into ``folder``; the test is skipped without
    Java."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        pytest.skip("needs Java (java and javac) to run BioASQ's evaluator")
    subprocess.run(["javac", "-cp", str(JAR_DIR / "BioASQEvaluation.jar"), "-d", str(folder),
                    str(JAR_DIR / "RunMany.java")], check=True, capture_output=True, timeout=300)
    return Jar(folder)


def same(a: float | None, b: float) -> bool:
    """Equal to 1e-9 (NaN equal to NaN, an infinity to itself)."""
    if a is None:
        return False
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return abs(a - b) <= 1e-9
