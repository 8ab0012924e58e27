"""``inexeval chunks`` on Chroma's general evaluation (issue 34): 3 chunkers on its 5 corpora and
472 questions, BM25 retrieval, every measure at 4 cut-offs (1, 3, 5, 10), timed as one command on
one core; beside it the official code's own time for the same scoring (its
``_full_precision_score`` and ``_scores_from_dataset_and_retrievals`` at each cut-off, on the
same chunks and BM25 rankings; its chunking and retrieval need chromadb and an embedding model
and are not timed), and inexeval's scoring alone. Every official value is checked equal to
inexeval's.

    python benchmarks/bench_chunks.py DATA

DATA: the folder ``chunking_evaluation/evaluation_framework/general_evaluation_data`` of github
brandonstarxel/chunking_evaluation (``questions_df.csv`` and ``corpora/``).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHUNKERS = ("fixed:400:0", "recursive:800:400", "recursive:200:0")
CUTOFFS = (1, 3, 5, 10)


def _one_core() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def command(data: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the whole command (reading, chunking, BM25, scoring, table)."""
    words = [sys.executable, "-m", "inexeval.cli", "chunks", str(data / "questions_df.csv"),
             "--retriever", "bm25"]
    for chunker in CHUNKERS:
        words += ["--chunker", chunker]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
           "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(words, env=env, capture_output=True, text=True, check=True,
                          preexec_fn=_one_core)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(done.stdout, end="")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def scoring(data: Path) -> tuple[float, float]:
    """CPU seconds of inexeval's scoring and of the official code's, on the same chunks and
    rankings (values checked equal)."""
    import numpy as np
    from tests.rag.official import metadatas, official

    from inexeval.formats.chroma import read_questions
    from inexeval.rag.chunkers import parse_chunker
    from inexeval.rag.evaluate import ALL_MEASURES, evaluate, parse
    from inexeval.rag.retrieve import CorpusWords, bm25

    questions = read_questions(data / "questions_df.csv")
    measures = parse(ALL_MEASURES, CUTOFFS)
    words = CorpusWords(questions.corpora)
    base = official()
    ours = theirs = 0.0
    for spec in CHUNKERS:
        chunks = parse_chunker(spec).chunk(questions.corpora)
        rankings = bm25(questions, chunks, max(CUTOFFS), words)
        start = time.process_time()
        results = evaluate(questions, measures, spec, rankings=rankings, chunking=chunks)
        ours += time.process_time() - start
        evaluation = base.BaseEvaluation(str(data / "questions_df.csv"))
        chunk_list = metadatas(chunks.docs, chunks.starts, chunks.ends)
        ranked = [metadatas(r.docs, r.starts, r.ends) for r in rankings.values()]
        start = time.process_time()
        omega, _ = evaluation._full_precision_score(chunk_list)
        found = {"chroma_P_omega": omega}
        for k in CUTOFFS:
            iou, recall, precision = evaluation._scores_from_dataset_and_retrievals(
                ranked, [k] * len(ranked))
            found.update({f"chroma_IoU@{k}": iou, f"chroma_R@{k}": recall,
                          f"chroma_P@{k}": precision})
        theirs += time.process_time() - start
        for name, values in found.items():
            mine = [row.value for row in results.rows if row.measure == name]
            assert mine == values and results.mean(name, spec) == np.mean(values), (spec, name)
    return ours, theirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="Chroma's general_evaluation_data folder")
    args = parser.parse_args()
    wall, cpu = command(args.data)
    _one_core()
    ours, theirs = scoring(args.data)
    print(f"inexeval chunks, {len(CHUNKERS)} chunkers x 472 questions, BM25, "
          f"{1 + 5 * len(CUTOFFS)} measures: {wall:.2f} s wall, {cpu:.2f} s CPU (one core)")
    print(f"scoring alone (P_omega, R/P/IoU at {len(CUTOFFS)} cut-offs), CPU: inexeval {ours:.2f} s, "
          f"the official code {theirs:.2f} s ({theirs / ours:.0f} times), values equal")


if __name__ == "__main__":
    main()
