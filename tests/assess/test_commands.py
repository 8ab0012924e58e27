"""``inexeval assess`` on the command line: init (and its errors), users, assignments, stats."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher

from inexeval.assess.store import Store
from inexeval.cli import main
from tests.assess.conftest import init_store


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_init_stores_topics_documents_and_pool(
        store_url: str, campaign_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["assess", "init", store_url, "--collection",
                        str(campaign_files["collection"]), "--topics",
                        str(campaign_files["topics"]), "--pool", str(campaign_files["pool"]),
                        "--mode", "2003"], capsys)
    assert code == 0 and out.startswith("2 topics, 3 documents, 4 pooled units, 2003 mode")
    store = Store.open(store_url)
    try:
        assert store.mode() == "2003" and store.topic_ids() == ["1", "2"]
        assert store.document_files() == ["co/a1", "co/a2", "co/a3"]
        assert store.document("co/a3").text == "Small document about XML."
        assert store.pool_paths("1", "co/a2") == ["/article[1]/bdy[1]/p[1]",
                                                  "/article[1]/bdy[1]/p[2]"]
    finally:
        store.close()


@pytest.mark.parametrize(("line", "message"), [
    ("1\tco/missing\t\t1\t1", "document co/missing is not in the collection"),
    ("1\t../outside\t\t1\t1", "document ../outside is not in the collection"),
    ("1\tco/a3\t/article[1]/sec[4]\t1\t1", "element /article[1]/sec[4] is not in document co/a3"),
    ("7\tco/a3\t\t1\t1", "topic 7 is not in the topic file"),
])
def test_init_refuses_a_pool_naming_what_is_not_there(
        tmp_path: Path, campaign_files: dict[str, Path], capsys: pytest.CaptureFixture[str],
        line: str, message: str) -> None:
    pool = tmp_path / "bad.tsv"
    pool.write_text("1\tco/a1\t\t1\t1\n" + line + "\n", encoding="utf-8")
    store = tmp_path / "s.db"
    code, _, err = run(["assess", "init", str(store), "--collection",
                        str(campaign_files["collection"]), "--topics",
                        str(campaign_files["topics"]), "--pool", str(pool)], capsys)
    assert code == 2
    assert err.startswith(f"inexeval: error: {pool}:2: {message}"), err
    assert err.count("\n") == 1 and not store.exists()


def test_init_from_a_saved_index(tmp_path: Path, campaign_files: dict[str, Path],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    index = tmp_path / "index.npz"
    assert main(["index", str(campaign_files["collection"]), "-o", str(index), "--quiet"]) == 0
    capsys.readouterr()
    files = {**campaign_files, "collection": index}
    init_store(str(tmp_path / "s.db"), files)
    shutil.rmtree(campaign_files["collection"])
    code, _, err = run(["assess", "init", str(tmp_path / "t.db"), "--collection", str(index),
                        "--topics", str(campaign_files["topics"]), "--pool",
                        str(campaign_files["pool"])], capsys)
    assert code == 2 and "which is not available: give the collection folder" in err


def test_init_refuses_an_existing_store(campaign: str, campaign_files: dict[str, Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["assess", "init", campaign, "--collection",
                        str(campaign_files["collection"]), "--topics",
                        str(campaign_files["topics"]), "--pool", str(campaign_files["pool"])],
                       capsys)
    assert code == 2 and "exists" in err


def test_add_user_password_from_stdin_and_file(
        campaign: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret passphrase\n\n"))
    code, out, err = run(["assess", "add-user", campaign, "erin", "--password-stdin"], capsys)
    assert code == 0 and out == "added assessor erin\n" and err == ""
    secret = tmp_path / "password"
    secret.write_text("file passphrase\n", encoding="utf-8")
    code, out, err = run(["assess", "add-user", campaign, "frank", "--admin",
                          "--password-file", str(secret)], capsys)
    assert code == 0 and out == "added administrator frank\n"
    store = Store.open(campaign)
    try:
        erin, frank = store.user("erin"), store.user("frank")
        with store.engine.connect() as connection:
            dump = " ".join(str(row) for table in ("users", "actions")
                            for row in connection.execute(sa.text(f"SELECT * FROM {table}")))
    finally:
        store.close()
    assert erin is not None and frank is not None and frank.admin and not erin.admin
    assert erin.password_hash.startswith("$argon2id$")
    # one trailing newline stripped, not more
    assert PasswordHasher().verify(erin.password_hash, "s3cret passphrase\n")
    assert PasswordHasher().verify(frank.password_hash, "file passphrase")
    assert "s3cret" not in dump and "file pass" not in dump


@pytest.mark.parametrize(("args", "message"), [
    (["zed", "--password-file", "/nonexistent/pw"], "cannot read the password"),
    (["alice", "--password-stdin"], "exists already"),
    ([" spaced", "--password-stdin"], "surrounding spaces"),
])
def test_add_user_errors(campaign: str, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str], args: list[str],
                         message: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Zq9-unique-words\n"))
    code, out, err = run(["assess", "add-user", campaign, *args], capsys)
    assert code == 2 and message in err and "Zq9" not in err + out


def test_add_user_refuses_an_empty_password(campaign: str, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    code, _, err = run(["assess", "add-user", campaign, "gina", "--password-stdin"], capsys)
    assert code == 2 and "the password is empty" in err


def test_assign_unassign_and_stats(campaign: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["assess", "assign", campaign, "carol", "1", "2"], capsys)
    assert code == 0 and out == "1 topic(s) assigned to carol (1 unchanged: 2)\n"
    code, out, _ = run(["assess", "unassign", campaign, "bob", "1"], capsys)
    assert code == 0 and out == "1 topic(s) withdrawn from bob\n"
    code, _, err = run(["assess", "assign", campaign, "carol", "99"], capsys)
    assert code == 2 and err == "inexeval: error: no topic '99' in the store\n"
    code, out, _ = run(["assess", "stats", campaign], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "topic\tassessor\tpool\tdone\tin_progress\trelevant\tseconds\tlocked"
    assert lines[1:4] == ["1\talice\t2\t0\t0\t0\t0\tno", "1\tcarol\t2\t0\t0\t0\t0\tno",
                          "2\tcarol\t1\t0\t0\t0\t0\tno"]


def test_commands_on_a_missing_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["assess", "stats", str(tmp_path / "none.db")], capsys)
    assert code == 2 and "no assessment store there" in err


def test_without_the_assess_extra_one_error_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # a core install (pip install inexeval) has no SQLAlchemy: one line, exit 2, no traceback
    import importlib.util

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sqlalchemy" else found(name, *a))
    assert main(["assess", "stats", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert err == ("inexeval: error: inexeval assess needs the assess extra (missing: "
                   "sqlalchemy): pip install 'inexeval[assess]'\n")


def test_init_is_in_passages_mode_by_default(tmp_path: Path, campaign_files: dict[str, Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`assess init` without --mode is the INEX 2006-2010 passages mode; its export is FOL
    qrels (the inex2005 format, which holds exhaustivity, is refused)."""
    store = tmp_path / "s.db"
    code, out, _ = run(["assess", "init", str(store), "--collection",
                        str(campaign_files["collection"]), "--topics",
                        str(campaign_files["topics"]), "--pool", str(campaign_files["pool"])],
                       capsys)
    assert code == 0 and out.startswith("2 topics, 3 documents, 4 pooled units, passages mode")
    code, _, err = run(["assess", "export", str(store), "-o", str(tmp_path / "q"), "--format",
                        "inex2005"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "inex2005 format holds exhaustivity, which passages mode does not ask" in err
    code, _, err = run(["assess", "export", str(store), "-o", str(tmp_path / "q.fol")], capsys)
    assert code == 2 and "nothing to export (topics left out: 1 (no assessor" in err
    assert not (tmp_path / "q.fol").exists()


def test_init_min_element_chars(tmp_path: Path, campaign_files: dict[str, Path],
                                capsys: pytest.CaptureFixture[str]) -> None:
    """`--min-element-chars` is kept with a highlight campaign; the service then never asks
    about shorter elements (nor inline ones) and /content says which they are."""
    from inexeval.assess.api import Service
    from tests.assess.conftest import CHEAP_HASHER

    store = tmp_path / "s.db"
    files = ["--collection", str(campaign_files["collection"]), "--topics",
             str(campaign_files["topics"]), "--pool", str(campaign_files["pool"])]
    code, _, _ = run(["assess", "init", str(store), *files, "--mode", "highlight",
                      "--min-element-chars", "30"], capsys)
    assert code == 0
    with Store.open(store) as opened:
        assert opened.setting("min_element_chars") == "30"
        service = Service(opened, opened.mode(), hasher=CHEAP_HASHER)
        inline = service.structure("co/a1").inline
        # "XML retrieval evaluates elements." (33 characters) is asked, "Intro" is not
        assert "/article[1]/bdy[1]/sec[1]/p[1]" not in inline
        assert "/article[1]/bdy[1]/sec[1]/st[1]" in inline
        assert "/article[1]/bdy[1]/sec[1]/p[2]" in inline  # "Second & paragraph." (19)
        assert "/article[1]/bdy[1]/p[1]/it[1]" in service.structure("co/a3").inline
        service.checks.close()
    code, _, err = run(["assess", "init", str(tmp_path / "t.db"), *files, "--mode",
                        "highlight", "--min-element-chars", "-1"], capsys)
    assert code == 2 and "negative" in err
    # other modes keep no such setting (nothing is inline there)
    code, _, _ = run(["assess", "init", str(tmp_path / "p.db"), *files], capsys)
    with Store.open(tmp_path / "p.db") as opened:
        assert opened.setting("min_element_chars") is None
