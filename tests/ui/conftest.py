"""A running ``inexeval assess serve`` over a fresh store, and pages logged in to it.

The store is made with the command line, as an organiser would: ``assess init`` from the
generated campaign of :mod:`tests.ui.campaign`, ``add-user`` (alice and bob assess topic 1,
alice also topic 2, boss is an administrator) and ``assign``. Each test module gets its own
server and store, so tests in different modules never see each other's judgements.
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.ui.campaign import write_campaign

from inexeval.cli import main

PASSWORD = "correct horse battery"
SCREENS = Path("/tmp/inexeval-screens")


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The command line, run in this process (six commands make each module's store: a Python
    started for each took a second apiece), standard input ``stdin``."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin or "")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = saved
    done = subprocess.CompletedProcess(["inexeval", *args], code, out.getvalue(),
                                       err.getvalue())
    assert done.returncode == 0, done.stderr
    return done


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Server:
    url: str
    store: Path
    folder: Path
    process: subprocess.Popen[bytes]
    clients: dict[str, httpx.Client] = field(default_factory=dict)

    def api(self, user: str) -> httpx.Client:
        """An HTTP client logged in as ``user``, sending the session's CSRF token."""
        if user not in self.clients:
            # an idle connection dropped well before the server's keep-alive of 5 s ends it:
            # reused at the moment the server closed it, a request got "Server disconnected
            # without sending a response" (httpx's default expiry is 5 s too)
            client = httpx.Client(base_url=self.url, timeout=30,
                                  limits=httpx.Limits(keepalive_expiry=2))
            client.post("/login", data={"username": user, "password": PASSWORD}).raise_for_status()
            client.headers["X-CSRF-Token"] = client.get("/api/session").json()["csrf_token"]
            self.clients[user] = client
        return self.clients[user]

    def judgement(self, user: str, topic: str, file: str) -> dict[str, Any]:
        response = self.api(user).get(f"/api/topics/{topic}/docs/{file}")
        response.raise_for_status()
        found: dict[str, Any] = response.json()
        return found


@contextmanager
def running_server(folder: Path, mode: str = "highlight", init_options: tuple[str, ...] = (),
                   extra: dict[str, str] | None = None) -> Iterator[Server]:
    """``inexeval assess serve`` on a free loopback port over a fresh store in ``folder``
    (the 2002/2003 modes with an element pool; ``init_options`` added to ``assess init``;
    ``extra``: more documents, ``{name: XML}``, in topic 1's pool)."""
    files = write_campaign(folder, element_pool=mode in ("2002", "2003"), extra=extra)
    store = folder / "store.db"
    cli("assess", "init", str(store), "--collection", str(files["collection"]),
        "--topics", str(files["topics"]), "--pool", str(files["pool"]), "--mode", mode,
        *init_options)
    for name, admin in (("alice", False), ("bob", False), ("boss", True)):
        cli("assess", "add-user", str(store), name, "--password-stdin",
            *(["--admin"] if admin else []), stdin=PASSWORD + "\n")
    cli("assess", "assign", str(store), "alice", "1", "2")
    cli("assess", "assign", str(store), "bob", "1")
    with serving(store, folder) as running:
        yield running


@contextmanager
def serving(store: Path, folder: Path) -> Iterator[Server]:
    """``inexeval assess serve`` of ``store`` on a free loopback port (its log in
    ``folder``)."""
    port = free_port()
    log = (folder / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "inexeval.cli", "assess", "serve", str(store), "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{url}/login", timeout=1)
            break
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                log.close()
                pytest.fail(f"assess serve did not start: {(folder / 'serve.log').read_text()}")
            time.sleep(0.1)
    running = Server(url, store, folder, process)
    try:
        yield running
    finally:
        for client in running.clients.values():
            client.close()
        process.terminate()
        process.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("campaign")) as running:
        yield running


class ConsoleErrors(list[str]):
    """Console errors, uncaught exceptions and unexpected dialogs of the pages it watches."""

    def watch(self, page: Any) -> Any:
        page.on("console", lambda m: self.append(f"{page.url}: {m.text}")
                if m.type == "error" else None)
        # An uncaught exception is reported with its stack: an error seen once under load is
        # found from the report alone.
        page.on("pageerror", lambda e: self.append(f"{page.url}: {e}\n{e.stack or ''}"))

        def dialog(shown: Any) -> None:
            # Playwright answers a dialog nobody listens to silently (a confirm() then says no):
            # one the test does not handle itself is answered as Playwright would (dismissed; a
            # beforeunload accepted) and counted as an error. A test that expects dialogs adds
            # its own listener, which alone answers them.
            if page._impl_obj.listener_count("dialog") > 1:
                return
            self.append(f"{page.url}: unexpected {shown.type} dialog: {shown.message}")
            if shown.type == "beforeunload":
                shown.accept()
            else:
                shown.dismiss()

        page.on("dialog", dialog)
        return page


@pytest.fixture
def console() -> Iterator[ConsoleErrors]:
    """Collects console errors; the test fails if any page logged one."""
    errors = ConsoleErrors()
    yield errors
    assert not errors, errors


def log_in(browser: Any, server: Server, user: str, console: ConsoleErrors,
           viewport: dict[str, int] | None = None) -> Any:
    """A new browser context logged in as ``user`` through the login form; its page."""
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
    page = console.watch(context.new_page())
    page.goto(f"{server.url}/login")
    page.get_by_label("User name").fill(user)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{server.url}/")
    return page


def open_document(page: Any, server: Server, topic: str, file: str) -> None:
    page.goto(f"{server.url}/topics/{topic}/docs/{file}")
    page.wait_for_selector("body[data-ready=true]")


def open_as(browser: Any, server: Server, console: ConsoleErrors, user: str, topic: str,
            file: str) -> Any:
    """A new context logged in as ``user`` with the document page of ``file`` open."""
    page = log_in(browser, server, user, console)
    open_document(page, server, topic, file)
    return page


def screenshot(page: Any, folder: Path, name: str) -> Path:
    """Save a screenshot as a test artifact (``folder``) and a copy in /tmp/inexeval-screens."""
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    SCREENS.mkdir(exist_ok=True)
    shutil.copy(path, SCREENS / path.name)
    return path
