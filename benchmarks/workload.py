"""Synthetic INEX-scale workloads for the benchmarks (deterministic for a given seed).

``make_element_workload(folder)`` writes a collection of IEEE-layout articles, INEX 2003/2004
assessments (one file per topic) and TREC-like element runs, and returns their paths.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

WORDS = ["xml", "element", "retrieval", "passage", "query", "ranking", "relevance", "structure", "index", "score"]


@dataclass
class ElementWorkload:
    collection: Path
    assessments: Path
    runs: list[Path]
    num_docs: int


def _doc_paths(sections: int = 5, subsections: int = 2, paragraphs: int = 4) -> list[str]:
    paths = ["/article[1]", "/article[1]/fm[1]", "/article[1]/bdy[1]"]
    for s in range(1, sections + 1):
        sec = f"/article[1]/bdy[1]/sec[{s}]"
        paths.append(sec)
        for p in range(1, paragraphs + 1):
            paths.append(f"{sec}/p[{p}]")
        for u in range(1, subsections + 1):
            ss1 = f"{sec}/ss1[{u}]"
            paths.append(ss1)
            paths += [f"{ss1}/p[{p}]" for p in range(1, paragraphs + 1)]
    return paths


def _doc_xml(rng: random.Random, sections: int = 5, subsections: int = 2,
             paragraphs: int = 4) -> str:
    def para() -> str:
        return "<p>" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 40))) + "</p>"

    body = []
    for _ in range(sections):
        inner = "".join(para() for _ in range(paragraphs))
        inner += "".join("<ss1>" + "".join(para() for _ in range(paragraphs)) + "</ss1>"
                         for _ in range(subsections))
        body.append(f"<sec>{inner}</sec>")
    return f"<article><fm><ti>title</ti></fm><bdy>{''.join(body)}</bdy></article>\n"


def make_element_workload(folder: Path, *, docs: int = 2000, topics: int = 30,
                          judged_per_topic: int = 5000, runs: int = 50, results: int = 1500,
                          seed: int = 1) -> ElementWorkload:
    rng = random.Random(seed)
    collection = folder / "collection"
    names = [f"co/{2000 + i % 5}/r{i:05d}" for i in range(docs)]
    for name in names:
        path = collection / f"{name}.xml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_doc_xml(rng), encoding="utf-8")
    paths = _doc_paths()
    assessments = folder / "assessments"
    assessments.mkdir(parents=True, exist_ok=True)
    pools: dict[str, list[tuple[str, str]]] = {}
    for t in range(1, topics + 1):
        topic = str(100 + t)
        chosen = rng.sample(names, judged_per_topic // len(paths) + 1)
        lines = [f"<assessments topic='{topic}'>"]
        pool: list[tuple[str, str]] = []
        for name in chosen:
            lines.append(f"<file file='{name}'>")
            for path in paths:
                relevant = rng.random() < 0.3
                e, s = (rng.randint(1, 3), rng.randint(1, 3)) if relevant else (0, 0)
                lines.append(f"<path path='{path}' exhaustiveness='{e}' specificity='{s}'/>")
                pool.append((name, path))
            lines.append("</file>")
        lines.append("</assessments>")
        (assessments / f"{topic}.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        pools[topic] = pool
    run_paths = []
    for r in range(runs):
        out = folder / f"run{r:02d}.txt"
        lines = []
        for topic, pool in pools.items():
            hits = rng.sample(pool, results // 2)
            noise = [(rng.choice(names), rng.choice(paths)) for _ in range(results - len(hits))]
            ranked = list(dict.fromkeys(hits + noise))
            rng.shuffle(ranked)
            lines += [f"{topic} Q0 {name} {i} {len(ranked) - i} run{r:02d} {path}"
                      for i, (name, path) in enumerate(ranked, start=1)]
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        run_paths.append(out)
    return ElementWorkload(collection, assessments, run_paths, docs)
