"""CPU time of the organiser's views over a campaign of realistic size (issue 22).

Builds a store (SQLite in a temporary folder, or a new schema of a PostgreSQL server with
``--postgres URL``) of ``--topics`` topics with ``--pool`` articles of 5,000 characters each,
two assessors per topic who have done every article (a third of them relevant, with one or two
passages), every save in the action log as the service writes it; then times, in CPU seconds
of this process (``time.process_time``; the database server's own time is not counted), what
``/admin`` computes (:func:`inexeval.assess.organiser.overview`, ``agreement``, ``drift``,
``export_plan``) and a topic's disagreements.

    python benchmarks/bench_organiser.py [--topics 50] [--pool 100]
        [--postgres postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import random
import secrets
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from inexeval.assess import adjudicate, organiser
from inexeval.assess.model import Judgement
from inexeval.assess.store import Document, Store

LENGTH = 5000


def build(url: str, topics: int, pool: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    files = [f"co/d{k}" for k in range(topics * pool // 2)]
    documents = [Document(f, "x" * LENGTH, (("/article[1]", 0, LENGTH),), ((0, 0, LENGTH),))
                 for f in files]
    topic_rows = [{"topic": str(t), "title": f"topic {t}"} for t in range(1, topics + 1)]
    pool_rows = [(str(t), f, "", k + 1, 1) for t in range(1, topics + 1)
                 for k, f in enumerate(rng.sample(files, pool))]
    with Store.create(url) as store:
        store.init_campaign("passages", topic_rows, documents, pool_rows, "bench")
        for name in ("alice", "bob"):
            store.add_user(name, "x", False, "bench")
            store.assign(name, [r["topic"] for r in topic_rows], "bench")
        for judgement in store.judgements():
            relevant = rng.random() < 1 / 3
            start = rng.randrange(0, LENGTH - 600)
            passages = ((start, start + rng.randrange(50, 300)),) if relevant else ()
            if relevant and rng.random() < 0.5:
                passages += ((start + 400, start + 550),)

            def done(j: Judgement, p: tuple[tuple[int, int], ...] = passages) -> Judgement:
                return Judgement(j.topic, j.file, j.assessor, status="done", passages=p,
                                 best_entry_point=p[0][0] if p else None, seconds=30.0)

            store.save(judgement.topic, judgement.file, judgement.assessor, judgement.version,
                       done)


def timed(name: str, call: Callable[[], Any], repeat: int = 3) -> None:
    best = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        call()
        best = min(best, time.process_time() - began)
    print(f"{name:<28} {best * 1000:9.1f} ms CPU (best of {repeat})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--pool", type=int, default=100)
    parser.add_argument("--postgres", metavar="URL")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        schema = None
        if args.postgres:
            import psycopg

            schema = f"bench_organiser_{secrets.token_hex(4)}"
            with psycopg.connect(args.postgres, autocommit=True) as connection:
                connection.execute(f"CREATE SCHEMA {schema}")
            url = f"{args.postgres}?options=-csearch_path%3D{schema}"
        else:
            url = str(Path(folder) / "store.db")
        try:
            began = time.perf_counter()
            build(url, args.topics, args.pool)
            saves = 2 * args.topics * args.pool
            print(f"{args.topics} topics x {args.pool} articles x 2 assessors: {saves} saves "
                  f"in {time.perf_counter() - began:.1f} s")
            with Store.open(url) as store:
                timed("overview", lambda: organiser.overview(store))
                timed("agreement", lambda: organiser.agreement(store))
                timed("drift", lambda: organiser.drift(store))
                timed("export_plan", lambda: organiser.export_plan(store, None, False))
                timed("disagreements (1 topic)",
                      lambda: adjudicate.disagreements(store, "1", "alice", "bob"))
        finally:
            if schema is not None:
                import psycopg

                with psycopg.connect(args.postgres, autocommit=True) as connection:
                    connection.execute(f"DROP SCHEMA {schema} CASCADE")


if __name__ == "__main__":
    main()
