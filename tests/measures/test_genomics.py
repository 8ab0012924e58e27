"""TREC Genomics 2007: the gold-standard reader and the Passage2 and aspect measures, checked
against a character-by-character transcription of the track's scoring rules on the real gold
standard."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import DATA, needs_shared

from inexeval.errors import FormatError, MeasureError
from inexeval.evaluation import evaluate
from inexeval.formats.detect import detect_assessments_format, load_assessments
from inexeval.formats.genomics import read_genomics_gold
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run

GOLD = DATA / "trec-genomics-2007" / "trecgen2007.gold.standard.tsv.txt"

Gold = dict[str, dict[str, list[tuple[int, int, list[str]]]]]


def _gold_lines(path: Path) -> Gold:
    gold: Gold = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        topic, pmid, offset, length, aspects = (f.strip() for f in line.split("\t"))
        gold.setdefault(topic, {}).setdefault(pmid, []).append(
            (int(offset), int(length), [a.strip() for a in aspects.split("|")]))
    return gold


def _passage2(gold: dict[str, list[tuple[int, int, list[str]]]],
              passages: list[tuple[str, int, int]]) -> float:
    """Character by character, as the track's script: a new relevant character adds the
    precision so far, a relevant one read before counts for nothing."""
    relevant = {(p, c) for p, spans in gold.items() for o, n, _ in spans for c in range(o, o + n)}
    remaining = set(relevant)
    found = read = 0
    total = 0.0
    for pmid, offset, length in passages:
        for c in range(offset, offset + length):
            if (pmid, c) in relevant and (pmid, c) not in remaining:
                continue
            read += 1
            if (pmid, c) in remaining:
                remaining.discard((pmid, c))
                found += 1
                total += found / read
    return total / len(relevant)


def _aspects(gold: dict[str, list[tuple[int, int, list[str]]]],
             passages: list[tuple[str, int, int]]) -> float:
    distinct = {a for spans in gold.values() for _, _, aspects in spans for a in aspects}
    seen: set[str] = set()
    numerator = denominator = 0
    total = 0.0
    for pmid, offset, length in passages:
        hit = next((aspects for o, n, aspects in gold.get(pmid, [])
                    if min(o + n, offset + length) > max(o, offset)), None)
        if hit is None:
            denominator += 1
            continue
        new = len(set(hit) - seen)
        if new:
            numerator += 1
            denominator += 1
            total += new * numerator / denominator
        seen.update(hit)
    return total / len(distinct)


def _random_run(gold: Gold, rng: random.Random, overlapping: bool) -> dict[str, list[tuple[str, int, int]]]:
    """Passages near gold passages (shifted, cut, repeated) and elsewhere, per topic."""
    run: dict[str, list[tuple[str, int, int]]] = {}
    for topic, documents in gold.items():
        candidates = [(p, o, n) for p, spans in documents.items() for o, n, _ in spans]
        passages = []
        for pmid, offset, length in rng.sample(candidates, min(len(candidates), 25)):
            start = max(0, offset + rng.randint(-200, 200))
            passages.append((pmid, start, max(1, length + rng.randint(-300, 300))))
            if overlapping and rng.random() < 0.3:
                passages.append((pmid, start + rng.randint(0, 50), rng.randint(1, 400)))
            if rng.random() < 0.3:
                passages.append((str(rng.randint(10**7, 10**8)), 0, rng.randint(1, 500)))
        run[topic] = passages
    return run


def _as_run(passages: dict[str, list[tuple[str, int, int]]]) -> Run:
    return Run("r", "passage", {t: make_topic_run(
        t, [p for p, _, _ in items], offsets=[o for _, o, _ in items],
        lengths=[n for _, _, n in items], ranks=list(range(1, len(items) + 1)))
        for t, items in passages.items()})


@needs_shared
def test_reader_and_detection() -> None:
    assert detect_assessments_format(GOLD) == "genomics"
    qrels = load_assessments(GOLD)
    gold = _gold_lines(GOLD)
    assert qrels.scale == "fol" and sorted(qrels) == sorted(gold)
    topic = qrels["200"]
    for pmid, spans in gold["200"].items():
        chars = {c for o, n, _ in spans for c in range(o, o + n)}
        i = topic.files.tolist().index(pmid)
        assert topic.dim("rsize")[i] == len(chars)
        assert topic.aspects[pmid] == tuple((o, o + n, tuple(a)) for o, n, a in spans)


@needs_shared
@pytest.mark.parametrize("seed", [1, 2])
def test_passage2_and_aspect_ap_equal_the_track_rules(seed: int) -> None:
    gold = _gold_lines(GOLD)
    chosen = dict(sorted(gold.items())[seed * 6:seed * 6 + 6])
    run_passages = _random_run(chosen, random.Random(seed), overlapping=True)
    qrels = read_genomics_gold(GOLD).select(set(chosen))
    results = evaluate(qrels, _as_run(run_passages), ["passage2_MAP", "aspect_MAP"], complete=True)
    for topic, gold in chosen.items():
        assert results.value("r", topic, "passage2_AP") == pytest.approx(
            _passage2(gold, run_passages[topic]), rel=1e-12)
        assert results.value("r", topic, "aspect_AP") == pytest.approx(
            _aspects(gold, run_passages[topic]), rel=1e-12)


@needs_shared
def test_gold_run_is_perfect_and_focused_measures_run() -> None:
    gold = _gold_lines(GOLD)
    ideal = {t: [(p, o, n) for p, spans in docs.items() for o, n, _ in spans]
             for t, docs in gold.items()}
    results = evaluate(read_genomics_gold(GOLD), _as_run(ideal),
                       ["passage2_AP", "iP[0.00]", "MAiP"])
    assert results.mean("passage2_AP") == pytest.approx(1.0)
    assert results.mean("iP[0.00]") == pytest.approx(1.0)
    assert results.mean("MAiP") == pytest.approx(1.0)


def test_hand_worked_passage2() -> None:
    # gold: characters 10-19 of d; run: [5, 15) then [10, 25): 5 irrelevant, 5 relevant
    # (1/6 + 2/7 + 3/8 + 4/9 + 5/10), then 5 seen (nothing), 5 relevant (6/11 ... 10/15), 5 irrelevant
    topic = build_topic("1", "fol", [("d", "", {"rsize": 10, "length": 100, "bep": -1})],
                        dim_types={"rsize": int, "length": int, "bep": int},
                        highlights={"d": np.array([[10, 20]])})
    run = _as_run({"1": [("d", 5, 10), ("d", 10, 15)]})
    expected = (sum(i / (5 + i) for i in range(1, 6)) + sum((5 + i) / (10 + i) for i in range(1, 6))) / 10
    assert evaluate(Assessments({"1": topic}, "fol"), run, ["passage2_AP"]).mean(
        "passage2_AP") == pytest.approx(expected, rel=1e-14)
    with pytest.raises(MeasureError, match="aspects"):
        evaluate(Assessments({"1": topic}, "fol"), run, ["aspect_AP"])


@pytest.mark.parametrize("line, problem", [
    ("200\t123\t10\t5\n", "4 tab-separated fields"),
    ("200\t123\tten\t5\tA\n", "offset 'ten'"),
    ("200\t123\t10\t-5\tA\n", "length '-5'"),
])
def test_bad_lines_name_the_line(tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "gold.tsv"
    path.write_text("200\t1\t0\t5\tA|B\n" + line, encoding="latin-1")
    with pytest.raises(FormatError, match=problem) as raised:
        read_genomics_gold(path)
    assert raised.value.line == 2


def test_latin1_aspects(tmp_path: Path) -> None:
    path = tmp_path / "gold.tsv"
    path.write_bytes("7\t1\t0\t5\tCAF\xc9 AU LAIT|B\n".encode("latin-1"))
    assert read_genomics_gold(path)["7"].aspects["1"] == ((0, 5, ("CAF\xc9 AU LAIT", "B")),)


def test_tied_ranks_are_read_by_pmid_offset_and_length() -> None:
    topic = build_topic("1", "fol", [("b", "", {"rsize": 10, "length": 100, "bep": -1})],
                        dim_types={"rsize": int, "length": int, "bep": int},
                        highlights={"b": np.array([[0, 10]])})
    qrels = Assessments({"1": topic}, "fol")
    # both passages at rank 1: "a" (irrelevant) is read before "b" whatever the file order
    tied = Run("r", "passage", {"1": make_topic_run("1", ["b", "a"], offsets=[0, 0],
                                                    lengths=[10, 10], ranks=[1, 1])})
    expected = sum(i / (10 + i) for i in range(1, 11)) / 10
    assert evaluate(qrels, tied, ["passage2_AP"]).mean("passage2_AP") == pytest.approx(expected)
