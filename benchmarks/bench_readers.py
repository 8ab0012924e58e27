"""Time the collection index and the readers at INEX-2005 scale (a benchmark, not a test).

    python benchmarks/bench_readers.py [--docs 2000] [--fol-only]

Builds a synthetic IEEE-layout collection, indexes it, saves and loads the index, then reads
30 topics x 5,000 judged elements of 2005-style assessments and a 30 x 1,500 element run.
First it times the real FOL run of the shared data (``ipcs/bert_inex_converted_1.run``, 18,693
lines): the best of 7 x 10 warm reads, CPU and wall time per read (issue 12's target: 15 ms).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from inexeval.collection.build import build_index, load_index, save_index
from inexeval.formats.inex_assessments import read_inex_assessments
from inexeval.formats.trec import read_trec_run


def document(rng: np.random.Generator) -> str:
    secs = []
    for _ in range(int(rng.integers(3, 8))):
        paras = "".join(f"<p>{'word ' * int(rng.integers(20, 120))}&amp; <it>x</it> end.</p>"
                        for _ in range(int(rng.integers(3, 10))))
        secs.append(f"<sec><st>Title</st>{paras}</sec>")
    return (f"<article><fm><ti>IEEE</ti><atl>A &amp; B</atl></fm><bdy>{''.join(secs)}</bdy>"
            "<bm><bib><bb>ref</bb></bib></bm></article>")


def fol_run() -> None:
    from inexeval.formats.fol import read_fol_run

    shared = Path(os.environ.get("INEXEVAL_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    path = shared / "data" / "ipcs" / "bert_inex_converted_1.run"
    if not path.is_file():
        print(f"FOL run: {path} not found, skipped")
        return
    read_fol_run(path)
    cpu, wall = [], []
    for _ in range(7):
        began, clock = time.process_time(), time.perf_counter()
        for _ in range(10):
            read_fol_run(path)
        cpu.append((time.process_time() - began) / 10)
        wall.append((time.perf_counter() - clock) / 10)
    print(f"FOL run {path.name}: {min(cpu) * 1000:.1f} ms CPU, {min(wall) * 1000:.1f} ms wall "
          "per warm read (best of 7 x 10)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--fol-only", action="store_true", help="time the FOL run only")
    args = parser.parse_args()
    fol_run()
    if args.fol_only:
        return
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "collection"
        for d in range(args.docs):
            folder = root / "co" / str(2000 + d % 5)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"r{d}.xml").write_text(document(rng))
        size = sum(f.stat().st_size for f in root.rglob("*.xml"))
        began = time.perf_counter()
        index = build_index(root)
        built = time.perf_counter() - began
        elements = sum(len(index[n]) for n in index)
        began = time.perf_counter()
        save_index(index, Path(tmp) / "ix.npz")
        saved = time.perf_counter() - began
        began = time.perf_counter()
        loaded = load_index(Path(tmp) / "ix.npz")
        opened = time.perf_counter() - began
        began = time.perf_counter()
        for name in loaded:
            loaded[name].find("/article[1]")
        touched = time.perf_counter() - began
        print(f"index: {args.docs} docs, {size / 1e6:.1f} MB, {elements} elements: build "
              f"{built:.2f} s, save {saved:.2f} s, load {opened:.2f} s + first access of all "
              f"documents {touched:.2f} s")
        names = list(index)
        qrels = Path(tmp) / "qrels"
        qrels.mkdir()
        for topic in range(30):
            with open(qrels / f"{topic}.xml", "w") as out:
                out.write(f'<assessments topic="{topic}">')
                for name in rng.choice(names, 100, replace=False):
                    out.write(f'<file name="{name}">')
                    out.writelines(f'<element path="{path}" exhaustivity="1" size="10" rsize="5"/>' for path in index[str(name)].paths[:50])
                    out.write("</file>")
                out.write("</assessments>")
        began = time.perf_counter()
        assessments = read_inex_assessments(qrels)
        judged = sum(len(assessments[t]) for t in assessments)
        print(f"2005 assessments: {judged} records in {time.perf_counter() - began:.2f} s")
        run = Path(tmp) / "run.txt"
        with open(run, "w") as out:
            for topic in range(30):
                for rank in range(1, 1501):
                    name = names[int(rng.integers(len(names)))]
                    path = index[name].paths[int(rng.integers(len(index[name])))]
                    out.write(f"{topic} Q0 {name} {rank} {1 / rank} r {path}\n")
        began = time.perf_counter()
        read_trec_run(run)
        print(f"element run: 45000 lines in {time.perf_counter() - began:.2f} s")


if __name__ == "__main__":
    main()
