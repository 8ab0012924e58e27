"""The command line of a campaign under attack (issue 25, findings 8 and 9), on SQLite and
PostgreSQL: private store files, passwords, names and topic ids, export targets, and the
commands that remove a user, change a password and end sessions."""

from __future__ import annotations

import io
import os
import pty
import select
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from inexeval.assess.store import Store
from inexeval.cli import main
from tests.assess.conftest import CHEAP_HASHER, PASSWORD, TestClient, app_of, init_store

SRC = Path(__file__).resolve().parents[2] / "src"


def run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None,
        monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_store_files_are_private(tmp_path: Path, campaign_files: dict[str, Path]) -> None:
    """Finding 8: the store, -wal and -shm were created 0644 (hashes readable by all)."""
    url = str(tmp_path / "store.db")
    old = os.umask(0o022)
    try:
        init_store(url, campaign_files)
        store = Store.open(url)
        try:
            store.share_writes()  # serve --workers: the writers' lock file
            store.add_user("erin", CHEAP_HASHER.hash(PASSWORD), False, "test")
            with store.engine.connect():  # a connection open: the -wal and -shm files exist
                modes = {suffix: stat.S_IMODE(os.stat(url + suffix).st_mode)
                         for suffix in ("", "-wal", "-shm", "-writers")}
        finally:
            store.close()
    finally:
        os.umask(old)
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600, "-writers": 0o600}


@pytest.mark.parametrize(("password", "message"), [
    ("short\n", "the password has 5 characters: at least 12"),
    ("eleven char\n", "has 11 characters"), ("\n", "the password is empty")])
def test_passwords_of_fewer_than_12_characters_are_refused(
        campaign: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        password: str, message: str) -> None:
    for command in (["add-user", campaign, "newcomer"], ["set-password", campaign, "alice"]):
        code, _, err = run(["assess", *command, "--password-stdin"], capsys, password,
                           monkeypatch)
        assert code == 2 and message in err
        assert not password.strip() or password.strip() not in err
    code, _, _ = run(["assess", "add-user", campaign, "newcomer", "--password-stdin"], capsys,
                     "twelve chars\n", monkeypatch)
    assert code == 0


def _control_terminal() -> None:
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _at_a_terminal(args: list[str], typed: list[str]) -> tuple[int, str]:
    """Run the command line with a terminal as standard input, typing ``typed`` lines when
    asked; what the terminal showed."""
    leader, follower = pty.openpty()
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "inexeval.cli", *args], stdin=follower,
                               stdout=follower, stderr=follower, env=environment,
                               start_new_session=True,
                               # the terminal becomes the child's controlling one (/dev/tty,
                               # which getpass reads); the child runs no thread before it
                               preexec_fn=_control_terminal)  # noqa: PLW1509
    os.close(follower)
    shown = b""
    pending = list(typed)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
            if pending and shown.endswith(b": "):  # a prompt, echo already off
                os.write(leader, pending.pop(0).encode() + b"\n")
        elif process.poll() is not None:
            break
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError(f"the command hung; the terminal showed {shown!r}") from None
    os.close(leader)
    return process.returncode, shown.decode(errors="replace")


def test_a_password_typed_at_a_terminal_is_not_echoed(campaign: str) -> None:
    """Finding 8: --password-stdin at a terminal echoed the password."""
    secret = "typed-at-a-terminal"
    code, shown = _at_a_terminal(["assess", "add-user", campaign, "tina", "--password-stdin"],
                                 [secret, secret])
    assert code == 0, shown
    assert "Password for tina:" in shown and "The same again:" in shown
    assert secret not in shown and "added assessor tina" in shown
    store = Store.open(campaign)
    try:
        user = store.user("tina")
        assert user is not None and CHEAP_HASHER.verify(user.password_hash, secret)
    finally:
        store.close()
    code, shown = _at_a_terminal(["assess", "set-password", campaign, "tina"],
                                 [secret + "!", secret + "?"])
    assert code == 2 and "the two passwords differ" in shown and secret not in shown


@pytest.mark.parametrize(("name", "message"), [
    ("line\nbreak", "not valid"), ("tab\there", "not valid"), ("nul\x00", "not valid"),
    ("a/b", "no '/'"), ("x" * 129, "1 to 128"), (" spaced", "surrounding spaces"),
    ("", "not valid"), ("\u202eevil", "not valid")])
def test_user_names_are_checked_alike_on_both_back_ends(
        campaign: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        name: str, message: str) -> None:
    """Finding 8: control characters broke stats; 200 characters failed on PostgreSQL only."""
    code, out, err = run(["assess", "add-user", campaign, name, "--password-stdin"], capsys,
                         PASSWORD + "\n", monkeypatch)
    assert code == 2 and message in err and err.count("\n") == 1 and out == ""
    code, _, _ = run(["assess", "add-user", campaign, "y" * 128, "--password-stdin"], capsys,
                     PASSWORD + "\n", monkeypatch)
    assert code == 0
    assert run(["assess", "stats", campaign], capsys)[0] == 0


@pytest.mark.parametrize("topic", ["1/2", "x" * 129, "tab\tid"])
def test_topic_ids_are_checked_by_init(store_url: str, campaign_files: dict[str, Path],
                                       capsys: pytest.CaptureFixture[str], topic: str) -> None:
    """Finding 8: a topic id with '/' was stored and then unreachable by every route."""
    topics = campaign_files["topics"]
    topics.write_text(topics.read_text().replace('topic_id="2"', f'topic_id="{topic}"'))
    pool = campaign_files["pool"]
    pool.write_text(pool.read_text().replace("2\tco/a3", f"{topic}\tco/a3"))
    code, _, err = run(["assess", "init", store_url, "--collection",
                        str(campaign_files["collection"]), "--topics", str(topics), "--pool",
                        str(pool)], capsys)
    if code == 0:  # a reader of the topic file may refuse it first: fine too
        pytest.fail(f"topic id {topic!r} was accepted")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_export_refuses_an_existing_output_and_the_store_files(
        campaign: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 8: export -o overwrote an existing file and wrote the store's own -wal."""
    target = tmp_path / "qrels.fol"
    target.write_text("precious\n")
    code, _, err = run(["assess", "export", campaign, "-o", str(target)], capsys)
    assert code == 2 and "exists already (--force replaces it)" in err
    assert target.read_text() == "precious\n"
    code, _, _ = run(["assess", "export", campaign, "-o", str(target), "--force", "--format",
                      "json"], capsys)
    assert code == 0 and target.read_text() != "precious\n"
    if not campaign.startswith("postgresql"):
        for suffix in ("", "-wal", "-shm", "-journal", "-writers"):
            code, _, err = run(["assess", "export", campaign, "-o", campaign + suffix,
                                "--force", "--format", "json"], capsys)
            assert code == 2 and "would overwrite" in err, suffix
        assert Store.open(campaign).mode() == "highlight"


def test_set_password_remove_user_and_end_sessions(
        campaign: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 9: no command removed a user, changed a password or ended sessions."""
    with TestClient(app_of(campaign)) as http:
        def logged_in(name: str, password: str = PASSWORD) -> Any:
            fresh = TestClient(http.app)
            fresh.post("/login", data={"username": name, "password": password})
            return fresh

        alice, bob, carol = logged_in("alice"), logged_in("bob"), logged_in("carol")
        code, out, _ = run(["assess", "set-password", campaign, "alice", "--password-stdin"],
                           capsys, "a brand new password\n", monkeypatch)
        assert code == 0 and out == "new password for alice (1 session(s) ended)\n"
        assert alice.get("/api/session").status_code == 401
        assert logged_in("alice", "a brand new password").get("/api/session").status_code == 200
        assert logged_in("alice").get("/api/session").status_code == 401

        code, out, _ = run(["assess", "end-sessions", campaign, "bob"], capsys)
        assert code == 0 and out == "1 session(s) of bob ended\n"
        assert bob.get("/api/session").status_code == 401

        code, out, _ = run(["assess", "remove-user", campaign, "carol"], capsys)
        assert code == 0 and out == ("removed carol (topics withdrawn: 2); the judgements stay "
                                     "in the store\n")
        assert carol.get("/api/session").status_code == 401
        assert logged_in("carol").get("/api/session").status_code == 401
    for command in (["remove-user", campaign, "carol"], ["end-sessions", campaign, "zoe"]):
        code, _, err = run(["assess", *command], capsys)
        assert code == 2 and "no user" in err
    code, out, _ = run(["assess", "add-user", campaign, "carol", "--password-stdin"], capsys,
                       PASSWORD + "\n", monkeypatch)
    assert code == 0
    store = Store.open(campaign)
    try:
        actions = [a["action"] for a in store.actions()]
        assert actions[-4:] == ["set-password", "end-sessions", "remove-user", "add-user"]
        assert store.assessors("2") == []
    finally:
        store.close()


def test_serve_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for options, message in ((["--session-idle", "0"], "not a number of hours above 0"),
                             (["--session-idle", "x"], "not a number of hours"),
                             (["--address-hold", "0"], "not a number of seconds from 0.1"),
                             (["--address-hold", "61"], "not a number of seconds from 0.1"),
                             (["--address-hold", "nan"], "not a number of seconds")):
        assert main(["assess", "serve", str(tmp_path / "none.db"), *options]) == 2
        assert message in capsys.readouterr().err
