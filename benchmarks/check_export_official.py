"""Check the FOL qrels that ``assess export`` writes with the official INEX evaluator (inex_eval
3.1): it must read them and give the same numbers as ``inexeval eval --task focused``.

A collection of synthetic articles (nested sections and paragraphs, mixed content, non-ASCII
and non-BMP characters) is generated into a temporary folder with judgements for 30 topics
(relevant articles with 1-4 highlighted passages that cross element boundaries and a best entry
point; judged non-relevant articles; a few in progress, which are not exported). The judgements
are exported with :func:`inexeval.assess.export.write_export`, five FOL runs are generated
(judged and unjudged articles, passages near and off the highlighted text), and both tools
evaluate them with per-topic values (``-q``). Every line of the official output is compared.

    python benchmarks/check_export_official.py [--jar ../shared/tools/inex_eval.jar]

For checking by hand, never a test dependency (it needs Java).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from inexeval.assess.export import write_export
from inexeval.assess.model import Judgement
from inexeval.collection.build import build_index
from inexeval.collection.index import CollectionIndex

WORDS = ["retrieval", "XML", "élément", "passage", "focused", "Ωmega", "\U0001F600", "index",
         "query", "assessor", "pool", "&amp;", "relevance", "text"]


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 25)))


def write_collection(folder: Path, documents: int, rng: random.Random) -> list[str]:
    names = []
    for d in range(documents):
        sections = []
        for _ in range(rng.randint(1, 4)):
            paragraphs = "".join(
                f"<p>{_sentence(rng)}<it>{_sentence(rng)}</it>{_sentence(rng)}</p>"
                if rng.random() < 0.3 else f"<p>{_sentence(rng)}</p>"
                for _ in range(rng.randint(1, 6)))
            sections.append(f"<sec><st>{_sentence(rng)}</st>{paragraphs}</sec>")
        name = f"{d % 7}/{1000 + d}"
        path = folder / f"{name}.xml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<article><fm><ti>{_sentence(rng)}</ti></fm><bdy>{''.join(sections)}"
                        "</bdy></article>", encoding="utf-8")
        names.append(name)
    return names


def judgements(collection: CollectionIndex, names: list[str], topics: int,
               rng: random.Random) -> list[Judgement]:
    out = []
    for t in range(topics):
        topic = str(2010001 + t)
        for name in rng.sample(names, 25):
            length = collection[name].length
            kind = rng.random()
            if kind < 0.1:
                out.append(Judgement(topic, name, "ann", "in-progress", ((0, 1),)))
            elif kind < 0.5 or length < 20:
                out.append(Judgement(topic, name, "ann", "done"))
            else:
                # distinct cut points: non-empty passages that neither touch nor overlap
                cuts = sorted(rng.sample(range(length + 1), 2 * rng.randint(1, 4)))
                passages = tuple(zip(cuts[::2], cuts[1::2]))
                bep = passages[0][0] + rng.randint(0, passages[0][1] - passages[0][0] - 1)
                out.append(Judgement(topic, name, "ann", "done", passages, bep))
    return out


def write_runs(folder: Path, given: list[Judgement], collection: CollectionIndex, names: list[str],
               count: int, rng: random.Random) -> list[Path]:
    topics = sorted({j.topic for j in given})
    judged = {t: [j for j in given if j.topic == t] for t in topics}
    paths = []
    for r in range(count):
        lines = []
        for topic in topics:
            unjudged = sorted(set(names) - {j.file for j in judged[topic]})
            picked = rng.sample(judged[topic], len(judged[topic])) + rng.sample(unjudged, 5)
            for rank, j in enumerate(picked, 1):
                file = j.file if isinstance(j, Judgement) else j
                length = collection[file].length
                spans = list(j.passages) if isinstance(j, Judgement) and rng.random() < 0.5 else []
                spans = spans or [(0, length)]
                start, end = rng.choice(spans)
                shift = rng.randint(-30, 30)
                offset = min(max(start + shift, 0), max(length - 1, 0))
                size = max(1, min(end - start + rng.randint(-40, 40), length - offset))
                lines.append(f"{topic} Q0 {file} {rank} {1.0 / rank:.6f} run{r} {offset} {size}\n")
        path = folder / f"run{r}.fol"
        path.write_text("".join(lines))
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = Path(os.environ.get("INEXEVAL_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    parser.add_argument("--jar", default=str(shared / "tools" / "inex_eval.jar"))
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(2010)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        names = write_collection(folder / "collection", 300, rng)
        collection = build_index(folder / "collection")
        given = judgements(collection, names, args.topics, rng)
        qrels = folder / "qrels.txt"
        written = write_export(given, collection, "fol", qrels)
        relevant = sum(1 for line in qrels.read_text().splitlines() if len(line.split()) > 5)
        runs = write_runs(folder, given, collection, names, args.runs, rng)
        official = subprocess.run(["java", "-jar", args.jar, "-f", "-q", str(qrels),
                                   *map(str, runs)], capture_output=True, text=True, check=False)
        ours = subprocess.run([sys.executable, "-m", "inexeval.cli", "eval", str(qrels),
                               *map(str, runs), "--task", "focused", "-q", "--format",
                               "official"], capture_output=True, text=True, check=False)
        for name, done in (("official evaluator", official), ("inexeval eval", ours)):
            if done.returncode:
                print(f"{name} failed ({done.returncode}): {done.stderr.strip()[:800]}")
                return 1
    theirs, mine = official.stdout.splitlines(), ours.stdout.splitlines()
    values = differ = 0
    for a, b in zip(theirs, mine):
        fa, fb = a.split("\t"), b.split("\t")
        if fa[:-1] != fb[:-1]:
            differ += 1
            continue
        try:
            x, y = float(fa[-1]), float(fb[-1])
        except ValueError:
            continue
        values += 1
        if abs(x - y) > 1e-12:
            differ += 1
    differ += abs(len(theirs) - len(mine))
    maip = [line for line in theirs if line.startswith("MAiP")]
    print(f"{written} judged articles exported ({relevant} relevant) for {args.topics} topics; "
          f"{len(runs)} runs; official evaluator read the qrels, {len(theirs)} output lines; "
          f"{values} numeric values compared, {differ} differ (tolerance 1e-12); "
          f"official MAiP per run: {', '.join(m.split()[-1] for m in maip)}")
    if official.stderr.strip():
        print("official stderr:", official.stderr.strip()[:500])
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
