"""The assessment service under concurrent assessors, for the server's tests and for
``benchmarks/bench_assess.py``: a campaign in a fresh store, ``inexeval assess serve`` started on a
loopback port, assessors saving at the same time over HTTP (one thread and connection each),
optionally a SIGKILL of the server during that load and a restart, and the check that every
acknowledged save is in the store."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

PASSWORD = "bench password"
DOCUMENTS_PER_TOPIC = 5


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(store: str, port: int, timeout: float = 60.0,
                 options: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    """``inexeval assess serve STORE [OPTIONS]`` on 127.0.0.1:PORT, returned once it
    answers."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parents[1] / "src"), os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen(
        [sys.executable, "-m", "inexeval.cli", "assess", "serve", store, "--host", "127.0.0.1",
         "--port", str(port), *options], env=environment, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped: {server.stderr.read().decode()[-2000:]}"
                               if server.stderr else "the server stopped")
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/openapi.json", timeout=1.0)
            return server
        except httpx.TransportError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not answer in time")


def cpu_seconds(pid: int) -> float | None:
    """The CPU seconds (user and system) a process and its descendants have used so far, from
    ``/proc`` (None where there is none): a server of ``--workers N`` is a supervisor and N
    worker processes."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        used = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                used += cpu_seconds(int(child)) or 0.0
    except OSError:
        return None
    return used


def make_campaign(folder: Path, store: str, assessors: int) -> list[str]:
    """A store with one topic per assessor, each pooling DOCUMENTS_PER_TOPIC articles of about
    2,000 characters; returns the assessor names."""
    from argon2 import PasswordHasher

    from inexeval.assess.store import Store
    from inexeval.cli import main

    collection = folder / "collection"
    collection.mkdir()
    paragraph = "XML retrieval evaluation with highlighted passages. " * 8
    documents = assessors * DOCUMENTS_PER_TOPIC
    for d in range(documents):
        body = "".join(f"<sec><p>{paragraph}</p><p>{paragraph}</p></sec>" for _ in range(2))
        (collection / f"d{d}.xml").write_text(
            f"<article><fm><ti>Document {d}</ti></fm><bdy>{body}</bdy></article>")
    topics = "".join(f'<inex_topic topic_id="{t + 1}" query_type="CO"><title>topic {t + 1}'
                     f"</title></inex_topic>" for t in range(assessors))
    (folder / "topics.xml").write_text(f"<topics>{topics}</topics>")
    (folder / "pool.tsv").write_text("".join(
        f"{t + 1}\td{t * DOCUMENTS_PER_TOPIC + k}\t\t{k + 1}\t1\n"
        for t in range(assessors) for k in range(DOCUMENTS_PER_TOPIC)))
    code = main(["assess", "init", store, "--collection", str(collection), "--topics",
                 str(folder / "topics.xml"), "--pool", str(folder / "pool.tsv")])
    if code != 0:
        raise RuntimeError("assess init failed")
    names = [f"assessor{a + 1:02d}" for a in range(assessors)]
    hashed = PasswordHasher().hash(PASSWORD)
    opened = Store.open(store)
    try:
        for a, name in enumerate(names):
            opened.add_user(name, hashed, False, "bench")
            opened.assign(name, [str(a + 1)], "bench")
    finally:
        opened.close()
    return names


@dataclass
class Assessor:
    """One assessor's session: what the server acknowledged, and the save latencies."""

    name: str
    topic: str
    files: list[str]
    acknowledged: list[tuple[str, int, tuple[tuple[int, int], ...]]] = field(
        default_factory=list)
    latencies: list[float] = field(default_factory=list)
    server_times: list[float] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)
    failures: int = 0
    finished: bool = False


def login(base: str, name: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=30.0)
    # the server checks a few passwords at a time and asks the others to retry (503)
    while True:
        response = client.post("/login", data={"username": name, "password": PASSWORD},
                               timeout=300.0)
        if response.status_code != 503:
            break
        time.sleep(float(response.headers.get("retry-after", "1")) * random.random())
    response.raise_for_status()
    client.headers["X-CSRF-Token"] = response.json()["csrf_token"]
    return client


class ConnectionLost(Exception):
    """The server went away during a request (the request may or may not have been done)."""


Answer = tuple[int, str | None, bytes]
"""A response: its status, its ``Server-Timing`` header and its body."""

CLIENTS = ("asyncio", "httpx")
"""The load clients: ``asyncio``, one thread and event loop for all the assessors, each with
one keep-alive HTTP/1.1 connection over asyncio streams (a few lines of HTTP, the cheapest in
CPU); ``httpx``, one thread and ``httpx.Client`` per assessor. Both send the same requests
(httpx's headers and JSON encoding) and check the same things."""


class HttpxSession:
    """An assessor's ``httpx.Client`` (logged in), in a thread of its own: its requests block
    that thread's event loop, which runs nothing else."""

    def __init__(self, base: str, name: str, client: httpx.Client):
        self.base, self.name, self.client = base, name, client

    async def request(self, method: str, url: str, body: Any = None) -> Answer:
        try:
            response = self.client.request(method, url, json=body)
        except httpx.TransportError as lost:
            raise ConnectionLost(str(lost)) from lost
        return response.status_code, response.headers.get("server-timing"), response.content

    async def login_again(self) -> None:
        self.client.close()
        self.client = login(self.base, self.name)

    def close(self) -> None:
        self.client.close()


class StreamSession:
    """An assessor's keep-alive HTTP/1.1 connection over asyncio streams, with the session
    cookie and CSRF token of an ``httpx`` login, sending what ``httpx`` would send."""

    def __init__(self, base: str, name: str, client: httpx.Client):
        self.base, self.name = base, name
        self.host = base.split("://", 1)[1]
        self._take(client)
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    def _take(self, client: httpx.Client) -> None:
        cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        self.head = (f"Host: {self.host}\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate\r\n"
                     f"Connection: keep-alive\r\nUser-Agent: python-httpx/{httpx.__version__}"
                     f"\r\nX-CSRF-Token: {client.headers['X-CSRF-Token']}\r\n"
                     f"Cookie: {cookie}\r\n")
        client.close()

    async def request(self, method: str, url: str, body: Any = None) -> Answer:
        content = b"" if body is None else json.dumps(
            body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        message = (f"{method} {url} HTTP/1.1\r\n{self.head}" + (
            "" if body is None else f"Content-Length: {len(content)}\r\n"
                                    "Content-Type: application/json\r\n") + "\r\n")
        try:
            if self.streams is None:
                host, port = self.host.rsplit(":", 1)
                self.streams = await asyncio.open_connection(host, int(port))
            reader, writer = self.streams
            writer.write(message.encode() + content)
            lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            headers = dict(line.lower().split(": ", 1) for line in lines[1:] if line)
            if "content-length" not in headers or headers.get("connection") == "close":
                raise RuntimeError(f"{self.name}: an answer this client cannot read: {lines}")
            answer = await reader.readexactly(int(headers["content-length"]))
        except (OSError, asyncio.IncompleteReadError) as lost:
            self.close()
            raise ConnectionLost(str(lost)) from lost
        return int(lines[0].split()[1]), headers.get("server-timing"), answer

    async def login_again(self) -> None:
        self.close()
        self._take(await asyncio.to_thread(login, self.base, self.name))

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


async def work(assessor: Assessor, session: HttpxSession | StreamSession, saves: int,
               pause: float, down: threading.Event, up: threading.Event) -> None:
    """Save ``saves`` changes, cycling over the topic's documents, pausing a random time of
    mean ``pause`` seconds before each (an assessor reading); a save lost to a dead server is
    not acknowledged, and is retried (re-reading the version) once the server is back."""
    rng = random.Random(assessor.name)
    done = 0
    while done < saves:
        await asyncio.sleep(rng.uniform(0, 2 * pause))
        file = assessor.files[done % len(assessor.files)]
        url = f"/api/topics/{assessor.topic}/docs/{file}"
        passage = (done, done + 10 + done % 7)
        try:
            if file not in assessor.versions:
                status, _, content = await session.request("GET", url)
                if status != 200:
                    raise RuntimeError(f"{assessor.name}: GET {status} {content!r}")
                assessor.versions[file] = json.loads(content)["version"]
            began = time.perf_counter()
            status, timing, content = await session.request("PUT", url, {
                "version": assessor.versions[file], "status": "in-progress",
                "passages": [passage], "seconds": float(done)})
            elapsed = time.perf_counter() - began
        except ConnectionLost:
            assessor.failures += 1
            assessor.versions.pop(file, None)
            await asyncio.to_thread(down.wait)
            await asyncio.to_thread(up.wait)
            await session.login_again()
            continue
        if status != 200:
            raise RuntimeError(f"{assessor.name}: {status} {content.decode()}")
        version = json.loads(content)["version"]
        assessor.versions[file] = version
        assessor.latencies.append(elapsed)
        assessor.server_times.append(float((timing or "app;dur=nan").split("dur=")[1]) / 1000)
        assessor.acknowledged.append((file, version, (passage,)))
        done += 1
    session.close()
    assessor.finished = True


def verify(store_url: str, assessors: list[Assessor]) -> dict[str, Any]:
    """Every acknowledged save is in the store and versions strictly increase."""
    from inexeval.assess.store import Store

    store = Store.open(store_url)
    try:
        logged = {(a["actor"], a["file"], json.loads(a["after"])["version"]):
                  json.loads(a["after"]) for a in store.actions() if a["action"] == "save"}
        checked = 0
        for assessor in assessors:
            last: dict[str, int] = {}
            for file, version, passages in assessor.acknowledged:
                if version <= last.get(file, 0):
                    raise AssertionError(f"{assessor.name} {file}: version {version} after "
                                         f"{last[file]}")
                last[file] = version
                state = logged.get((assessor.name, file, version))
                if state is None or state["passages"] != [list(p) for p in passages]:
                    raise AssertionError(f"acknowledged save missing: {assessor.name} {file} "
                                         f"version {version}")
                checked += 1
            for file, version in last.items():
                stored = store.judgement(assessor.topic, file, assessor.name)
                if stored.version != version:
                    raise AssertionError(f"{assessor.name} {file}: stored version "
                                         f"{stored.version}, last acknowledged {version}")
        integrity = None
        if not store_url.startswith("postgresql"):
            with store.engine.connect() as connection:
                integrity = connection.exec_driver_sql("PRAGMA integrity_check").scalar()
            if integrity != "ok":
                raise AssertionError(f"integrity_check: {integrity}")
    finally:
        store.close()
    return {"acknowledged_saves_checked": checked, "integrity_check": integrity}


def run_load(store_url: str, names: list[str], saves: int, pause: float, kill: bool,
             port: int, options: tuple[str, ...] = (), client: str = "httpx") -> dict[str, Any]:
    """The load (with a kill -9 and restart when ``kill``) on a server started with
    ``options``, sent by ``client`` (one of :data:`CLIENTS`), then :func:`verify`."""
    base = f"http://127.0.0.1:{port}"
    server = start_server(store_url, port, options=options)
    assessors = [Assessor(name, str(a + 1), [f"d{a * DOCUMENTS_PER_TOPIC + k}"
                                              for k in range(DOCUMENTS_PER_TOPIC)])
                 for a, name in enumerate(names)]
    down, up = threading.Event(), threading.Event()
    if not kill:
        down.set()
        up.set()
    errors: list[BaseException] = []
    kind = {"httpx": HttpxSession, "asyncio": StreamSession}[client]
    sessions = [kind(base, a.name, login(base, a.name)) for a in assessors]

    def guarded(*indices: int) -> None:
        async def load() -> None:
            await asyncio.gather(*(work(assessors[i], sessions[i], saves, pause, down, up)
                                   for i in indices))
        try:
            asyncio.run(load())
        except BaseException as failure:  # noqa: BLE001 - reported after the threads end
            errors.append(failure)

    threads = ([threading.Thread(target=guarded, args=range(len(assessors)))]
               if client == "asyncio" else
               [threading.Thread(target=guarded, args=(i,)) for i in range(len(assessors))])
    # the client's own full collections (20-30 ms each) would be timed as the server's
    gc.freeze()
    began = time.perf_counter()
    client_began = time.process_time()
    server_cpu = [cpu_seconds(server.pid)]
    for thread in threads:
        thread.start()
    killed_after = working = None
    try:
        if kill:
            target = len(names) * saves // 3
            while sum(len(a.acknowledged) for a in assessors) < target and any(
                    t.is_alive() for t in threads):
                time.sleep(0.005)
            working = sum(not a.finished for a in assessors)
            server_cpu.append(cpu_seconds(server.pid))
            os.kill(server.pid, signal.SIGKILL)
            server.wait()
            killed_after = sum(len(a.acknowledged) for a in assessors)
            down.set()
            server = start_server(store_url, port, options=options)
            server_cpu.append(cpu_seconds(server.pid))
            up.set()
        for thread in threads:
            thread.join()
        server_cpu.append(cpu_seconds(server.pid))
        client_cpu = time.process_time() - client_began
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    wall = time.perf_counter() - began
    if errors:
        raise errors[0]
    latencies = sorted(t for a in assessors for t in a.latencies)
    server = sorted(t for a in assessors for t in a.server_times)
    result = {
        "assessors": len(names), "mean_pause_seconds": pause, "saves_acknowledged": len(latencies),
        "wall_seconds": round(wall, 2), "saves_per_second": round(len(latencies) / wall, 1),
        "latency_ms_median": round(1000 * statistics.median(latencies), 1),
        "latency_ms_p95": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1),
        "latency_ms_max": round(1000 * latencies[-1], 1),
        "server_ms_median": round(1000 * statistics.median(server), 1),
        "server_ms_p95": round(1000 * server[int(0.95 * (len(server) - 1))], 1),
        # the CPU of the whole load (the kill's logins included) per acknowledged save
        "server_cpu_ms_per_save": None if None in server_cpu else round(1000 * sum(
            end - start for start, end in zip(server_cpu[::2], server_cpu[1::2],
                                              strict=True)) / len(latencies), 2),
        "client_cpu_ms_per_save": round(1000 * client_cpu / len(latencies), 2),
        "killed_after_acknowledged": killed_after,
        "assessors_saving_at_the_kill": working,
        "saves_lost_to_the_kill_and_retried": sum(a.failures for a in assessors),
    }
    result.update(verify(store_url, assessors))
    return result
