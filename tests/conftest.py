"""Suite-wide fixtures: real components (PostgreSQL, Chromium) that some tests need.

A test that needs one asks for the fixture; where the component is absent the test is skipped
with a visible reason that starts with ``needs ``. Under ``CI=true`` such a skip fails the run
(the CI machine installs everything), so a green CI never hides an untested browser or database.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator

import pytest

CHROMIUM = os.environ.get("INEXEVAL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
POSTGRES_URL = os.environ.get("INEXEVAL_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRED_PREFIX = "needs "


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The URL of a PostgreSQL server that answers, or a skip naming what is missing."""
    if not _port_open("127.0.0.1", 5432):
        pytest.skip(f"{REQUIRED_PREFIX}PostgreSQL on 127.0.0.1:5432 (no server answers)")
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
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int) -> None:
    """Under CI=true a test skipped for a missing server or browser fails the run."""
    if os.environ.get("CI", "").lower() != "true":
        return
    missing = [report for report in terminalreporter.stats.get("skipped", [])
               if REQUIRED_PREFIX in str(report.longrepr)]
    if missing:
        terminalreporter.write_line(
            f"CI: {len(missing)} test(s) skipped for a missing server or browser; failing the run",
            red=True)
        terminalreporter._session.exitstatus = 1  # type: ignore[attr-defined]
