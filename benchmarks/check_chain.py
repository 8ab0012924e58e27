"""A campaign's stages joined on real files, with the judging done over HTTP by a real server:
``inexeval pool`` of the bundled demo's three runs -> ``assess init`` reads the pool -> ``assess
serve`` (a process on a loopback port) -> two assessors log in and judge every pooled article
through the JSON API (about half relevant, with one or two passages and a best entry point, the
others not relevant) -> ``assess export`` (FOL) -> ``inexeval eval --task focused|thorough
--format official -q`` of the runs (converted to FOL by ``convert run``), and, with ``--jar``, the
official INEX evaluator on the same files: every line compared.

    python benchmarks/check_chain.py [--jar ../shared/tools/inex_eval.jar] [--keep DIR]

For checking by hand (the issues' "the stages meet at files"), never a test dependency (it needs
Java for the comparison, and a server process).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.assess_load import free_port, start_server

from inexeval import demo

PASSWORD = "chain check password"
ASSESSORS = ("alice", "bob")


def inexeval(*argv: str, stdin: str | None = None) -> str:
    """``inexeval ARGV`` in a process of its own; its standard output (exit 0 required)."""
    done = subprocess.run([sys.executable, "-m", "inexeval.cli", *argv], input=stdin,
                          check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"inexeval {' '.join(argv)}: exit {done.returncode}: "
                         f"{done.stderr.strip()}")
    return done.stdout


def judge(base: str, name: str, topics: list[str], rng: random.Random) -> tuple[int, int]:
    """``name`` logs in and judges every pooled article of ``topics``: (relevant, not)."""
    client = httpx.Client(base_url=base, timeout=60.0)
    response = client.post("/login", data={"username": name, "password": PASSWORD})
    response.raise_for_status()
    client.headers["X-CSRF-Token"] = response.json()["csrf_token"]
    relevant = irrelevant = 0
    for topic in topics:
        pool = client.get(f"/api/topics/{topic}/pool")
        pool.raise_for_status()
        body = pool.json()
        items = body["articles"]
        for item in items:
            file = item["file"] if isinstance(item, dict) else item
            url = f"/api/topics/{topic}/docs/{file}"
            got = client.get(url)
            got.raise_for_status()
            judgement = got.json()
            length = len(client.get(f"{url}/content").json()["text"])
            change: dict[str, object] = {"version": judgement["version"], "status": "done",
                                         "seconds": 30.0}
            if rng.random() < 0.5 and length > 40:
                passages = []
                for _ in range(rng.randint(1, 2)):
                    start = rng.randrange(0, length - 20)
                    passages.append([start, min(length, start + rng.randint(10, 400))])
                passages.sort()
                change["passages"] = passages
                change["best_entry_point"] = passages[0][0]
                relevant += 1
            else:
                change["passages"] = []
                irrelevant += 1
            put = client.put(url, json=change)
            if put.status_code != 200:
                raise SystemExit(f"{name}: PUT {url}: {put.status_code} {put.text}")
    return relevant, irrelevant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jar", type=Path, help="the official INEX evaluator (inex_eval.jar)")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--depth", type=int, default=5, help="the pool's depth (default 5)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="inexeval-chain-"))
    folder.mkdir(parents=True, exist_ok=True)
    store = str(folder / "campaign.db")
    pool = folder / "pool.tsv"
    inexeval("pool", *map(str, demo.RUNS), "--depth", str(args.depth),
             "-o", str(pool))
    topics = sorted({line.split("\t")[0] for line in pool.read_text().splitlines()
                     if line and not line.startswith("#")})
    inexeval("assess", "init", store, "--collection", str(demo.COLLECTION), "--topics",
             str(demo.TOPICS), "--pool", str(pool))
    share = {name: topics[i::len(ASSESSORS)] for i, name in enumerate(ASSESSORS)}
    for name, mine in share.items():
        inexeval("assess", "add-user", store, name, "--password-stdin", stdin=PASSWORD + "\n")
        if mine:
            inexeval("assess", "assign", store, name, *mine)
    port = free_port()
    server = start_server(store, port)
    rng = random.Random(7)
    try:
        counts = {name: judge(f"http://127.0.0.1:{port}", name, mine, rng)
                  for name, mine in share.items() if mine}
    finally:
        server.terminate()
        server.wait(30)
    qrels = folder / "qrels.fol"
    inexeval("assess", "export", store, "-o", str(qrels))
    print(f"pool: {len(topics)} topics, {sum(1 for _ in pool.read_text().splitlines())} lines; "
          f"judged over HTTP: " + ", ".join(f"{name} {r} relevant, {n} not"
                                            for name, (r, n) in counts.items())
          + f"; exported {sum(1 for _ in qrels.read_text().splitlines())} lines")
    runs = []
    for path in demo.RUNS:
        fol = folder / f"{path.stem}.fol"
        inexeval("convert", "run", str(path), "--collection", str(demo.COLLECTION), "-o",
                 str(fol))
        runs.append(fol)
    failed = False
    for task, flag in (("focused", "-f"), ("thorough", "-t")):
        for run in runs:
            done = subprocess.run([sys.executable, "-m", "inexeval.cli", "eval", str(qrels),
                                   str(run), "--task", task, "--format", "official", "-q",
                                   "--collection", str(demo.COLLECTION)],
                                  check=False, capture_output=True, text=True)
            ours = done.stdout
            refused = done.returncode == 2 and len(done.stderr.splitlines()) == 1
            failed |= done.returncode != 0 and not refused
            line = (f"{task} {run.stem}: inexeval " +
                    (f"refuses it ({done.stderr.strip()})" if refused else
                     f"{len(ours.splitlines())} lines, exit {done.returncode}"))
            if args.jar is not None:
                jar = subprocess.run(["java", "-jar", str(args.jar), flag, "-q", str(qrels),
                                      str(run)], check=False, capture_output=True, text=True)
                if refused:  # the official evaluator prints an ERROR line for such a run
                    same = "ERROR" in jar.stdout + jar.stderr
                    verdict = "refuses it too" if same else "does NOT refuse it"
                else:
                    same = jar.stdout.splitlines() == ours.splitlines()
                    verdict = (f"{len(jar.stdout.splitlines())} lines, "
                               f"{'the same' if same else 'DIFFERENT'}")
                failed |= not same
                line += f"; inex_eval.jar {verdict}"
            print(line)
    print(f"files in {folder}")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
