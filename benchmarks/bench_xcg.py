"""Benchmark of issue 3: the overlap-aware element measures at INEX 2005 scale.

An in-memory collection of 2,000 articles (31 elements each), 30 topics with highlighted text in
15-40 articles each (judged as INEX 2005 size/rsize records, and as INEX 2003 e/s records for
inex_eval_ng), 50 runs of 1,500 overlapping elements per topic. Times two Evaluator passes, as
``inexeval eval`` would make them (one per assessment file): inex_eval_ng (strict and generalised,
overlap considered and ignored) on the 2003 judgements; nxCG at 6 cut-offs, MAep (gen2005, alpha
= 1 so the overlap bookkeeping runs) and HiXEval P/R/F at 4 cut-offs (alpha = 1) on the 2005 ones.
Goal: under 30 s in all on 2 cores; then each 2005 family alone, for reference. Also times one measure on runs 4x longer, to show the
cost per result stays flat (linear overlap bookkeeping).

    python benchmarks/bench_xcg.py [--runs 50] [--topics 30] [--results 1500]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import inexeval.measures.hixeval
import inexeval.measures.ng
import inexeval.measures.xcg  # noqa: F401  (registered even before measures/__init__ lists them)
from inexeval.collection.index import CollectionIndex, DocumentIndex
from inexeval.evaluation import Evaluator
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run

SECTIONS, PARAGRAPHS = 6, 4


def make_collection(documents: int, rng: np.random.Generator) -> CollectionIndex:
    """Articles of 6 sections of 4 paragraphs; a section has a 40-character title of its own."""
    docs = {}
    for d in range(documents):
        paths, parents, depths, starts, ends = ["/article[1]"], [-1], [1], [0], [0]
        cursor = 0
        for s in range(SECTIONS):
            me = len(paths)
            paths.append(f"/article[1]/sec[{s + 1}]")
            parents.append(0)
            depths.append(2)
            starts.append(cursor)
            ends.append(0)
            cursor += 40
            for p in range(PARAGRAPHS):
                size = int(rng.integers(100, 800))
                paths.append(f"/article[1]/sec[{s + 1}]/p[{p + 1}]")
                parents.append(me)
                depths.append(3)
                starts.append(cursor)
                ends.append(cursor + size)
                cursor += size
            ends[me] = cursor
        ends[0] = cursor
        name = f"d{d}"
        docs[name] = DocumentIndex(name, tuple(paths), tuple(p.rsplit("/", 1)[1][:-3] for p in paths),
                                   np.array(parents), np.array(depths), np.array(starts),
                                   np.array(ends), cursor)
    return CollectionIndex(docs)


def make_topic(topic: str, collection: CollectionIndex, names: list[str],
               rng: np.random.Generator) -> tuple[Any, Any, list[str]]:
    """INEX 2005 and 2003 assessments of one topic, and its relevant articles."""
    relevant = list(rng.choice(names, size=int(rng.integers(15, 41)), replace=False))
    records_2005, records_2003, highlights = [], [], {}
    for name in relevant:
        doc = collection[name]
        marked = []
        for k in np.flatnonzero(doc.depth == 3):
            if rng.random() < 0.3:
                start, end = int(doc.start[k]), int(doc.end[k])
                cut = int(rng.integers(start, end))
                marked.append((start, cut if rng.random() < 0.5 else end))
        marked = [m for m in marked if m[1] > m[0]] or [(int(doc.start[2]), int(doc.end[2]))]
        rows = np.array(marked, dtype=np.int64)
        highlights[name] = rows
        for k, path in enumerate(doc.paths):
            start, end = int(doc.start[k]), int(doc.end[k])
            inside = int(np.clip(np.minimum(rows[:, 1], end) - np.maximum(rows[:, 0], start),
                                 0, None).sum())
            if inside:
                share = inside / (end - start)
                records_2005.append((name, path, {"exhaustivity": int(rng.choice([-1, 1, 2])),
                                                  "size": end - start, "rsize": inside}))
                records_2003.append((name, path, {"exhaustivity": int(rng.integers(1, 4)),
                                                  "specificity": 1 + int(share * 2.999)}))
            elif rng.random() < 0.2:
                records_2003.append((name, path, {"exhaustivity": 0, "specificity": 0}))
    return (build_topic(topic, "inex2005", records_2005, highlights=highlights),
            build_topic(topic, "inex2003", records_2003), relevant)


def make_run(number: int, topics: dict[str, list[str]], collection: CollectionIndex,
             names: list[str], results: int, rng: np.random.Generator) -> Run:
    """Per topic, distinct elements of relevant and other articles, overlapping freely."""
    per_topic = {}
    for topic, relevant in topics.items():
        pool = relevant + list(rng.choice(names, size=results // 10, replace=False))
        chosen: dict[tuple[str, str], None] = {}
        while len(chosen) < results:
            name = pool[int(rng.integers(len(pool)))]
            paths = collection[name].paths
            chosen[(name, paths[int(rng.integers(len(paths)))])] = None
        files = [f for f, _ in chosen]
        per_topic[topic] = make_topic_run(topic, files, paths=[p for _, p in chosen],
                                          ranks=list(range(1, results + 1)))
    return Run(f"run{number}", "element", per_topic)


def timed(label: str, measures: list[str], qrels: Assessments, runs: list[Run],
          collection: CollectionIndex, limit: int | None = None) -> float:
    t0 = time.perf_counter()
    results = Evaluator(measures, qrels, collection=collection, limit=limit).evaluate(runs)
    took = time.perf_counter() - t0
    shown = ", ".join(f"{m}={results.mean(m, runs[0].name):.4f}" for m in results.measures()[:2])
    print(f"{label:<70} {took:6.2f} s   ({shown} on {runs[0].name})")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--results", type=int, default=1500)
    parser.add_argument("--documents", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(2005)
    t0 = time.perf_counter()
    collection = make_collection(args.documents, rng)
    names = list(collection)
    made = {str(t): make_topic(str(t), collection, names, rng) for t in range(1, args.topics + 1)}
    qrels_2005 = Assessments({t: m[0] for t, m in made.items()}, "inex2005")
    qrels_2003 = Assessments({t: m[1] for t, m in made.items()}, "inex2003")
    relevant = {t: m[2] for t, m in made.items()}
    runs = [make_run(n, relevant, collection, names, args.results, rng) for n in range(args.runs)]
    print(f"workload: {args.runs} runs x {args.topics} topics x {args.results} results, "
          f"{args.documents} articles, built in {time.perf_counter() - t0:.1f} s")

    total = timed("inex_eval_ng strict+generalised x considered+ignored",
                  [f"inex_eval_ng(quant={q},overlap={o})" for q in ("strict", "generalised")
                   for o in ("considered", "ignored")], qrels_2003, runs, collection)
    total += timed("nxCG@5,10,25,50,100,500 + MAep (gen2005) + HiXEval P/R/F@5,10,25,50",
                   [f"nxCG(quant=gen2005)@{k}" for k in (5, 10, 25, 50, 100, 500)]
                   + ["MAep(quant=gen2005)"]
                   + [f"HiXEval_{m}@{k}" for m in "FPR" for k in (5, 10, 25, 50)],
                   qrels_2005, runs, collection)
    print(f"{'total':<70} {total:6.2f} s   (goal < 30 s)")
    for label, measures in (("  of which nxCG + MAep alone", ["nxCG(quant=gen2005)@10",
                                                              "MAep(quant=gen2005)"]),
                            ("  of which HiXEval alone", ["HiXEval_F@10", "HiXEval_P@10"])):
        timed(label, measures, qrels_2005, runs, collection)

    few = runs[: max(1, args.runs // 10)]
    long_runs = [make_run(n, relevant, collection, names, 4 * args.results, rng)
                 for n in range(len(few))]
    short = timed("scaling: nxCG+MAep, runs as given", ["nxCG(quant=gen2005)@10",
                  "MAep(quant=gen2005)"], qrels_2005, few, collection)
    longer = timed("scaling: nxCG+MAep, runs 4x longer", ["nxCG(quant=gen2005)@10",
                   "MAep(quant=gen2005)"], qrels_2005, long_runs, collection, limit=0)
    print(f"cost per result, runs 4x longer / as given: {longer / (4 * short):.2f} "
          "(1.0 = linear; below 1: fixed costs per topic amortised)")


if __name__ == "__main__":
    main()
