"""Suite-wide fixtures: real components (PostgreSQL, Chromium) that some tests need.

A test that needs one asks for the fixture; where the component is absent the test is skipped
with a visible reason that starts with ``needs ``. So are the tests of the real INEX files
(``tests.helpers.needs_shared``), and a test whose optional module is missing
(``pytest.importorskip``: "could not import ..."). Under ``CI=true`` any such skip fails the run
(the CI machine installs everything and has ``../shared``), so a green CI never hides an untested
browser, database, module or real file.
"""

from __future__ import annotations

import os
import shutil
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

CHROMIUM = os.environ.get("INEXEVAL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
POSTGRES_URL = os.environ.get("INEXEVAL_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRED_PREFIX = "needs "
MISSING_MODULE = "could not import "
"""The reason ``pytest.importorskip`` gives when it has none of its own."""


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The URL of a PostgreSQL server that answers (``$INEXEVAL_POSTGRES``, its host and port
    probed), or a skip naming what is missing."""
    address = urlsplit(POSTGRES_URL)
    host, port = address.hostname or "127.0.0.1", address.port or 5432
    if not _port_open(host, port):
        pytest.skip(f"{REQUIRED_PREFIX}PostgreSQL on {host}:{port} (no server answers; "
                    "$INEXEVAL_POSTGRES names another)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip(f"{REQUIRED_PREFIX}psycopg 3 (pip install '.[assess]')")
    return POSTGRES_URL


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A headless Chromium driven by Playwright, or a skip naming what is missing."""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(f"{REQUIRED_PREFIX}Chromium at {CHROMIUM} (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(f"{REQUIRED_PREFIX}Playwright for Python (pip install playwright)")
    with sync_playwright() as playwright:
        from playwright.sync_api import Error

        # a launch that crashes at start (seen once under a load of 9: SIGTRAP in the zygote)
        # is tried again: one browser serves the whole session, so one crash failed every
        # browser test after it
        for attempt in range(3):
            try:
                chromium = playwright.chromium.launch(executable_path=CHROMIUM,
                                                      args=CHROMIUM_ARGS)
                break
            except Error:
                if attempt == 2:
                    raise
                time.sleep(2)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session", autouse=True)
def _browser_first(request: pytest.FixtureRequest) -> None:
    """The browser started before any test runs when some test of the session needs it, so that
    no state an earlier test leaves in the process reaches it: started by the first test that
    needed it, on pytest-xdist's first worker it came after `assess export` on a file that is no
    store had left the process's umask at 0177 (since fixed), and crashed at start (SIGTRAP)."""
    if any("browser" in getattr(item, "fixturenames", ()) for item in request.session.items):
        try:
            request.getfixturevalue("browser")
        except pytest.skip.Exception:
            pass  # (each test that needs it is skipped with the reason)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int) -> None:
    """Under CI=true a test skipped for a missing server, browser, module or real file fails
    the run."""
    if os.environ.get("CI", "").lower() != "true":
        return
    missing = [report for report in terminalreporter.stats.get("skipped", [])
               if REQUIRED_PREFIX in str(report.longrepr)
               or MISSING_MODULE in str(report.longrepr)]
    if missing:
        terminalreporter.write_line(
            f"CI: {len(missing)} test(s) skipped for a missing server, browser, module or real "
            "file; failing the run", red=True)
        terminalreporter._session.exitstatus = 1  # type: ignore[attr-defined]
