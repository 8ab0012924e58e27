"""Time EPRUM with the hierarchical user (issue 4): 30 topics, 200 ideal elements per topic,
runs of 1,500 results; then one topic with a fixed ideal set and growing run lengths, to show
the cost is linear in the run length.

    python benchmarks/bench_eprum.py [--topics 30] [--ideal 200] [--results 1500]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.evaluation import Evaluator
from inexeval.measures import eprum  # noqa: F401  (registers the families)
from inexeval.model import Assessments, Run, TopicAssessments, TopicRun
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run

MEASURES = ["EPRUM", "EPRUM@0.1", "EPRUM@0.5", "EPRUM_P@10", "EPRUM_P@100"]


def collection(n_docs: int, rng: np.random.Generator) -> CollectionIndex:
    """Articles of 3-6 sections of 2-8 paragraphs, paragraph lengths 50-800 characters."""
    docs = {}
    for d in range(n_docs):
        paths, tags, parent, depth, start, end = ["/article[1]"], ["article"], [-1], [1], [0], [0]
        at = 0
        for s in range(1, int(rng.integers(3, 7)) + 1):
            sec = len(paths)
            paths.append(f"/article[1]/sec[{s}]")
            tags.append("sec")
            parent.append(0)
            depth.append(2)
            start.append(at)
            end.append(at)
            for p in range(1, int(rng.integers(2, 9)) + 1):
                size = int(rng.integers(50, 800))
                paths.append(f"/article[1]/sec[{s}]/p[{p}]")
                tags.append("p")
                parent.append(sec)
                depth.append(3)
                start.append(at)
                end.append(at + size)
                at += size
            end[sec] = at
        end[0] = at
        name = f"doc{d}"
        docs[name] = DocumentIndex(name, tuple(paths), tuple(tags), np.array(parent),
                                   np.array(depth), np.array(start), np.array(end), at)
    return CollectionIndex(docs)


def ideal_pool(coll: CollectionIndex, rng: np.random.Generator) -> list[tuple[str, str]]:
    """The paragraphs of 60 random documents, where a topic's ideal elements are drawn."""
    names = list(coll)
    chosen = rng.choice(len(names), size=60, replace=False)
    return [(names[i], p) for i in chosen.tolist() for p in coll[names[i]].paths if "/p[" in p]


def make_run(name: str, coll: CollectionIndex, pool: list[tuple[str, str]], n_results: int,
             rng: np.random.Generator) -> TopicRun:
    """Half the results near the ideal pool (a paragraph, its section or its article: hits
    and near misses), half anywhere in the collection."""
    names = list(coll)
    results = []
    for _ in range(n_results):
        if rng.random() < 0.5:
            f, p = pool[int(rng.integers(len(pool)))]
            p = "/".join(p.split("/")[: int(rng.integers(1, 4)) + 1])
        else:
            f = names[int(rng.integers(len(names)))]
            doc = coll[f]
            p = doc.paths[int(rng.integers(len(doc)))]
        results.append((f, p))
    return make_topic_run(name, [f for f, _ in results], paths=[p for _, p in results])


def ideal_topic(name: str, pool: list[tuple[str, str]], n_ideal: int,
                rng: np.random.Generator) -> TopicAssessments:
    ideal = [pool[i] for i in rng.choice(len(pool), size=n_ideal, replace=False).tolist()]
    return build_topic(name, "trec", [(f, p, {"relevance": 1}) for f, p in ideal],
                       dim_types={"relevance": int})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--ideal", type=int, default=200)
    parser.add_argument("--results", type=int, default=1500)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(2006)
    coll = collection(3000, rng)
    tas: dict[str, TopicAssessments] = {}
    runs: dict[str, TopicRun] = {}
    for t in range(args.topics):
        pool = ideal_pool(coll, rng)
        tas[str(t)] = ideal_topic(str(t), pool, args.ideal, rng)
        runs[str(t)] = make_run(str(t), coll, pool, args.results, rng)
    evaluator = Evaluator(MEASURES, Assessments(tas, "trec"), collection=coll)
    clock = time.perf_counter()
    results = evaluator.evaluate(Run("bench", "element", runs))
    total = time.perf_counter() - clock
    print(f"{args.topics} topics x {args.results} results, {args.ideal} ideal elements, "
          f"{len(MEASURES)} measures: {total:.2f} s, {total / args.topics * 1000:.0f} ms per "
          f"topic-run (goal < 1000 ms); mean EPRUM {results.mean('EPRUM'):.4f}")

    pool = ideal_pool(coll, rng)
    single = Evaluator(["EPRUM"], Assessments({"0": ideal_topic("0", pool, args.ideal, rng)},
                                              "trec"), collection=coll)
    print("fixed ideal set, EPRUM only\nrun length     ms  us per result")
    for n in (375, 750, 1500, 3000, 6000):
        run = Run("r", "element", {"0": make_run("0", coll, pool, n, rng)})
        best = min(_time(single, run) for _ in range(3))
        print(f"{n:10d} {best * 1000:6.0f} {best * 1e6 / n:8.0f}")


def _time(evaluator: Evaluator, run: Run) -> float:
    clock = time.perf_counter()
    evaluator.evaluate(run)
    return time.perf_counter() - clock


if __name__ == "__main__":
    main()
