"""``inexeval assess serve`` as a real server on a loopback port: talked to over HTTP, and
killed with SIGKILL under load (every acknowledged save survives, the database is intact)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import httpx
from benchmarks.bench_assess import free_port, make_campaign, run_load, start_server

from tests.assess.conftest import PASSWORD


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


def test_kill_9_under_load_loses_no_acknowledged_save(store_url: str, tmp_path: Path) -> None:
    names = make_campaign(tmp_path, store_url, 3)
    result = run_load(store_url, names, saves=15, pause=0.0, kill=True, port=free_port())
    assert result["killed_after_acknowledged"] is not None
    assert result["acknowledged_saves_checked"] == 45
    if not store_url.startswith("postgresql"):
        assert result["integrity_check"] == "ok"
