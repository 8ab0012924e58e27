"""``inexeval assess serve`` as a real server on a loopback port: talked to over HTTP, and
killed with SIGKILL under load (every acknowledged save survives, the database is intact)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from inexeval.assess.api import LOGIN_ATTEMPTS
from tests.assess.conftest import PASSWORD, add_users, init_store
from tests.assess_load import CLIENTS, free_port, make_campaign, run_load, start_server


def test_serve_answers_over_http(campaign: str) -> None:
    port = free_port()
    server = start_server(campaign, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            assert client.get("/api/topics").status_code == 401
            login = client.post("/login", data={"username": "alice", "password": PASSWORD})
            assert login.status_code == 200
            assert "httponly" in login.headers["set-cookie"].lower()
            csrf = {"X-CSRF-Token": login.json()["csrf_token"]}
            saved = client.put("/api/topics/1/docs/co/a1", headers=csrf, json={
                "version": 0, "status": "in-progress", "passages": [[0, 7]]})
            assert saved.status_code == 200 and saved.json()["version"] == 1
            assert client.get("/api/topics/1/docs/co/a1").json()["passages"] == [[0, 7]]
            assert client.put("/api/topics/1/docs/co/a1", headers=csrf, content=b"{").status_code \
                == 422
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def test_serve_refuses_a_missing_store(tmp_path: Path) -> None:
    import sys

    done = subprocess.run([sys.executable, "-m", "inexeval.cli", "assess", "serve",
                           str(tmp_path / "none.db"), "--port", str(free_port())],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and done.stderr.startswith("inexeval: error: ")
    assert "no assessment store there" in done.stderr


@pytest.mark.parametrize("client", CLIENTS)
def test_kill_9_under_load_loses_no_acknowledged_save(store_url: str, tmp_path: Path,
                                                      client: str) -> None:
    """The kill lands while the assessors save: some saves were acknowledged before it and
    some after, assessors were still saving, and at least one request died with the server
    (then retried); every acknowledged save is in the store (whichever load client)."""
    names = make_campaign(tmp_path, store_url, 3)
    result = run_load(store_url, names, saves=15, pause=0.0, kill=True, port=free_port(),
                      client=client)
    assert 15 <= result["killed_after_acknowledged"] < 45
    assert result["assessors_saving_at_the_kill"] >= 1
    assert result["saves_lost_to_the_kill_and_retried"] >= 1
    assert result["acknowledged_saves_checked"] == 45
    if not store_url.startswith("postgresql"):
        assert result["integrity_check"] == "ok"


def test_several_worker_processes_share_the_store(store_url: str, tmp_path: Path) -> None:
    """``--workers 2``: two serving processes, each with its own committer (SQLite) and
    connections, under assessors saving back to back: versions are the database's (every
    acknowledged save is in the store, versions strictly increase), and a login's throttle
    is the store's, whichever process answers."""
    names = make_campaign(tmp_path, store_url, 4)
    port = free_port()
    server = start_server(store_url, port, options=("--workers", "2"))
    try:
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        assert sum(b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()
                   for child in children) == 2
        statuses = []
        for _ in range(LOGIN_ATTEMPTS + 1):  # new connections: either process may answer
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
                statuses.append(client.post("/login", data={
                    "username": "nobody", "password": "wrong"}).status_code)
        assert statuses == [401] * LOGIN_ATTEMPTS + [429]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    result = run_load(store_url, names, saves=15, pause=0.0, kill=False, port=port,
                      options=("--workers", "2"))
    assert result["acknowledged_saves_checked"] == 60


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _settled_cpu(pid: int, timeout: float = 60.0) -> float:
    """The process's CPU seconds once it has used less than 0.05 s in a second."""
    deadline = time.monotonic() + timeout
    last = _cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = _cpu_seconds(pid)
        if now - last < 0.05:
            return now
        last = now
    raise AssertionError("the server kept working")


def test_a_keyword_request_stops_when_its_client_goes_away(
        store_url: str, campaign_files: dict[str, Path]) -> None:
    """The stems of a long article's words (2.8 million characters, 150,000 distinct words:
    seconds of CPU) went on being computed after the page asking for them was closed. Now the
    server stops once the connection is gone: the request that was cut after a little of its
    CPU used a small part of what the same request costs when its client waits for it."""
    text = " ".join(f"retrievals{k:07d}x" for k in range(150_000))
    (campaign_files["collection"] / "co" / "long.xml").write_text(
        f"<article><bdy><p>{text}</p></bdy></article>", encoding="utf-8")
    campaign_files["pool"].write_text("1\tco/long\t\t1\t1\n2\tco/a3\t\t1\t1\n")
    init_store(store_url, campaign_files, mode="passages")
    add_users(store_url, {"alice": ["1"]})
    port = free_port()
    server = start_server(store_url, port)
    path = "/api/topics/1/docs/co/long/keywords"
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            assert client.post("/login", data={"username": "alice", "password": PASSWORD}
                               ).status_code == 200
            began = _settled_cpu(server.pid)
            answer = client.get(path)
            assert answer.status_code == 200 and answer.json()["spans"] == []
            full_cost = _settled_cpu(server.pid) - began
            # other keywords: not the answer cached above
            assert client.put("/api/topics/1/keywords", json={"keywords": ["evaluation"]},
                              headers={"X-CSRF-Token": client.get("/api/session").json()[
                                  "csrf_token"]}).status_code == 200
            cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
            began = _settled_cpu(server.pid)
            with socket.create_connection(("127.0.0.1", port)) as cut:
                cut.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}"
                            "\r\n\r\n".encode())
                while _cpu_seconds(server.pid) - began < 0.2:
                    time.sleep(0.02)
            cut_cost = _settled_cpu(server.pid) - began
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    assert full_cost > 1.0, full_cost
    assert cut_cost < full_cost / 3, (cut_cost, full_cost)
