"""Reliability and speed of the assessment service under concurrent assessors (issue 10).

Starts ``inexeval assess serve`` on a free loopback port over a fresh store (SQLite, or a new
schema of a PostgreSQL server with ``--postgres URL``), logs in ``--assessors`` assessors, each
on a topic of its own, and lets them save ``--saves`` changes each at the same time (one
keep-alive HTTP connection per assessor, each save a PUT with the version it last read). Then checks
that every acknowledged save is in the store (the final judgements and the action log hold
exactly the acknowledged states) and that versions strictly increase, and prints the save
latencies (median, p95, max) as the client saw them, and as the server measured them
(``Server-Timing``: from the request's arrival to the start of the response), and the CPU
the server's processes and the client used per save.

The assessors of a campaign work on machines of their own; here they share the server's. With
``--client asyncio`` (the default) they are coroutines of one thread, each with an asyncio
stream; ``--client httpx`` gives each a thread and an ``httpx.Client``, which costs several
times as much CPU per save, taken from the server (see ``tests/assess_load.py``).

With ``--kill`` the server is killed with SIGKILL once a third of the saves are acknowledged,
restarted, and the assessors carry on; the same checks run on the restarted store, plus
``PRAGMA integrity_check`` on SQLite.

    python benchmarks/bench_assess.py [--assessors 20] [--saves 100] [--pause 0.5] [--kill]
        [--postgres postgresql://postgres@127.0.0.1:5432/test] [--workers 2]
        [--client asyncio|httpx]
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.assess_load import CLIENTS, free_port, make_campaign, run_load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assessors", type=int, default=20)
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--pause", type=float, default=0.0, metavar="SECONDS",
                        help="mean pause before each save (0: save back to back, a stress "
                        "test; an assessor reading saves every few seconds)")
    parser.add_argument("--kill", action="store_true", help="kill -9 the server during the load")
    parser.add_argument("--postgres", metavar="URL", help="use a new schema of this server")
    parser.add_argument("--workers", type=int, default=1, help="assess serve --workers N (1)")
    parser.add_argument("--client", choices=CLIENTS, default="asyncio",
                        help="the assessors' HTTP client (asyncio)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        schema = None
        if args.postgres:
            import psycopg

            schema = f"inexeval_bench_{secrets.token_hex(4)}"
            with psycopg.connect(args.postgres, autocommit=True) as connection:
                connection.execute(f"CREATE SCHEMA {schema}")
            store = f"{args.postgres}?options=-csearch_path%3D{schema}"
        else:
            store = str(Path(folder) / "store.db")
        try:
            names = make_campaign(Path(folder), store, args.assessors)
            result = run_load(store, names, args.saves, args.pause, args.kill, free_port(),
                              options=("--workers", str(args.workers)), client=args.client)
        finally:
            if schema is not None:
                with psycopg.connect(args.postgres, autocommit=True) as connection:
                    connection.execute(f"DROP SCHEMA {schema} CASCADE")
    print(f"store: {'PostgreSQL' if args.postgres else 'SQLite'}, {args.workers} worker(s), "
          f"{args.client} client")
    for key, value in result.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
