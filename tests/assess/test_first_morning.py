"""Issue 36, the service side of a campaign's first morning: bodies, access, names, secrets
and files an attack on loopback found wrong, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

ADMIN_JSON = ["/api/admin/topics/1/assessors", "/api/admin/topics/1/accept-agreed",
              "/api/admin/topics/1/adjudicated/co/a1"]


@pytest.mark.parametrize("path", ADMIN_JSON)
def test_a_form_on_an_admin_json_endpoint_is_415(connect: Any, path: str) -> None:
    """Issue 36, 23: a form-encoded body was a 500 ("Stream consumed"): the form was read for
    its CSRF field, then the handler read the body again."""
    dora = connect("dora")
    method = dora.http.put if path.endswith("co/a1") else dora.http.post
    form = {"csrf_token": dora.csrf, "assessor": "bob", "choice": "a", "a": "alice",
            "b": "bob"}
    response = method(path, data=form)
    assert response.status_code == 415, response.text
    assert "must be JSON" in response.json()["error"]
    with_header = method(path, data=form, headers={"X-CSRF-Token": dora.csrf})
    assert with_header.status_code == 415
    # the token of a form still authorises nothing but a right one
    assert method(path, data={**form, "csrf_token": "wrong"}).status_code == 403
    alice = connect("alice")
    sent = (alice.http.put if path.endswith("co/a1") else alice.http.post)(
        path, data={**form, "csrf_token": alice.csrf})
    assert sent.status_code == 403


def test_a_put_outside_the_pool_says_nothing_of_the_store(connect: Any) -> None:
    """Issue 36, 24: a PUT of a document pooled for another topic answered 404 "not in the pool
    of topic", one the store does not hold "no document in the store": access is checked
    before anything is loaded, and both get the same answer (the name aside)."""
    body = {"version": 0, "status": "in-progress"}
    alice, carol = connect("alice"), connect("carol")
    for client, status in ((alice, 404), (carol, 403)):
        answers = []
        for file in ("co/a3", "co/none"):  # co/a3 is pooled for topic 2 only
            for sent in (body, {"version": "x"}):
                response = client.put(f"/api/topics/1/docs/{file}", sent)
                assert response.status_code == status, response.text
                answers.append(response.json()["error"].replace(file, "FILE"))
        assert len(set(answers)) == 1, answers


def test_a_database_password_is_never_shown(campaign: str, monkeypatch: Any,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36, 26: ``assess ... postgresql://u:SECRET@host/db`` printed the password in its
    errors and in the serving banner."""
    import uvicorn

    from inexeval.cli import main

    if not campaign.startswith("postgresql"):
        pytest.skip("a database server's URL")
    head, tail = campaign.split("://", 1)
    user, rest = tail.split("@", 1)
    secret = f"{head}://{user.split(':')[0]}:S3CRET@{rest}"
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)
    main(["assess", "serve", secret])
    assert capsys.readouterr().err.startswith(f"serving {head}://{user.split(':')[0]}:***@")
    assert main(["assess", "stats", secret]) == 0
    assert "S3CRET" not in "".join(capsys.readouterr())
    for command in (["stats", "postgresql://u:S3CRET@127.0.0.1:1/db"],
                    ["stats", "postgresql://u:S3CRET@127.0.0.1:notaport/db"]):
        assert main(["assess", *command]) == 2
        out, err = capsys.readouterr()
        assert "S3CRET" not in out + err and "***" in out + err, (command, out, err)


def test_user_names_are_normalised_and_look_alikes_refused(connect: Any, campaign: str) -> None:
    """Issue 36, 27: the NFC and NFD forms, the cases and the full-width forms of a name are
    one user (NFKC, case-folded); a name drawn like an existing one (Cyrillic а for Latin a)
    and ``Adjudicated`` are refused; a topic id ``..`` too (below)."""
    from inexeval.assess.store import Store, StoreError
    from tests.assess.conftest import CHEAP_HASHER, PASSWORD

    hashed = CHEAP_HASHER.hash("another one")
    with Store.open(campaign) as store:
        store.add_user("Zoé", hashed, False, "test")  # NFC
        for same in ("Zoe\u0301", "ZOÉ", "ｚｏé", "zoé"):
            with pytest.raises(StoreError, match="exists already"):
                store.add_user(same, hashed, False, "test")
        for alike in ("\u0430lice", "ALIC\u0415", "b\u043eb", "car0l"):
            with pytest.raises(StoreError, match="looks like the user"):
                store.add_user(alike, hashed, False, "test")
        for reserved in ("Adjudicated", "ADJUDICATED", "\u0430djudicated"):
            with pytest.raises(StoreError, match="adjudicated judgements"):
                store.add_user(reserved, hashed, False, "test")
        assert store.user("ZOE\u0301") is not None and store.user("ZOE\u0301").name == "zoé"
        assert store.assign("ＺＯÉ", ["1"], "test") == ["1"]
        assert store.assessors("1") == ["alice", "bob", "zoé"]
    # a login by any form of a name is that user's
    client = connect(None)
    response = client.http.post("/login", data={"username": "ALICE", "password": PASSWORD})
    assert response.status_code == 200 and response.json()["user"] == "alice"


def test_a_topic_id_dot_dot_is_refused(tmp_path: Any, campaign_files: dict[str, Any]) -> None:
    from inexeval.cli import main

    for bad in ("..", "."):
        campaign_files["topics"].write_text(
            campaign_files["topics"].read_text().replace('topic_id="2"', f'topic_id="{bad}"'))
        campaign_files["pool"].write_text(
            campaign_files["pool"].read_text().replace("\n2\t", f"\n{bad}\t"))
        target = tmp_path / f"s{len(bad)}.db"
        assert main(["assess", "init", str(target), "--collection",
                     str(campaign_files["collection"]), "--topics", str(campaign_files["topics"]),
                     "--pool", str(campaign_files["pool"])]) == 2
        assert not target.exists()  # issue 36, 28: a failed init leaves no store behind
        campaign_files["topics"].write_text(
            campaign_files["topics"].read_text().replace(f'topic_id="{bad}"', 'topic_id="2"'))
        campaign_files["pool"].write_text(
            campaign_files["pool"].read_text().replace(f"\n{bad}\t", "\n2\t"))


def test_keywords_of_a_locked_topic_stay(connect: Any) -> None:
    """Issue 36, 28: the keywords of a locked topic could still be changed."""
    alice, dora = connect("alice"), connect("dora")
    assert alice.put("/api/topics/1/keywords", {"keywords": ["xml"]}).status_code == 200
    assert dora.post("/api/admin/topics/1/lock").status_code == 200
    locked = alice.put("/api/topics/1/keywords", {"keywords": ["other"]})
    assert locked.status_code == 423 and "locked" in locked.json()["error"]
    assert alice.get("/api/topics/1/keywords").json()["keywords"] == ["xml"]


def test_exports_are_private_unless_asked(connect: Any, campaign: str, tmp_path: Any,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36, 28: exports were 0644 while the store is 0600; now 0600 unless --mode, a
    folder of per-topic files 0700."""
    import os
    import stat

    from inexeval.cli import main

    alice = connect("alice")
    for file in ("co/a1", "co/a2"):
        assert alice.put(f"/api/topics/1/docs/{file}", {"version": 0, "status": "done"}
                         ).status_code == 200
    old = os.umask(0o022)
    try:
        fol, shared, xml = tmp_path / "q.fol", tmp_path / "shared.fol", tmp_path / "xml"
        assert main(["assess", "export", campaign, "-o", str(fol)]) == 0
        assert main(["assess", "export", campaign, "-o", str(shared), "--mode", "644"]) == 0
        assert main(["assess", "export", campaign, "-o", str(xml), "--format", "inex2005"]) == 0
        assert main(["assess", "export", campaign, "-o", str(fol), "--mode", "9"]) == 2
        assert os.umask(0o022) == 0o022  # the command gave the process's umask back
    finally:
        os.umask(old)
    capsys.readouterr()
    assert stat.S_IMODE(fol.stat().st_mode) == 0o600
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    assert stat.S_IMODE(xml.stat().st_mode) == 0o700
    assert [stat.S_IMODE(f.stat().st_mode) for f in xml.iterdir()] == [0o600]


def test_init_reads_no_link_out_of_the_collection(tmp_path: Any,
                                                  campaign_files: dict[str, Any]) -> None:
    """Issue 36, 28: a document of the collection that is a symbolic link to a file outside it
    was read into the store."""
    from inexeval.cli import main

    outside = tmp_path / "secret.xml"
    outside.write_text("<article><bdy><p>not for the store</p></bdy></article>")
    linked = campaign_files["collection"] / "co" / "a3.xml"
    linked.unlink()
    linked.symlink_to(outside)
    target = tmp_path / "linked.db"
    assert main(["assess", "init", str(target), "--collection",
                 str(campaign_files["collection"]), "--topics", str(campaign_files["topics"]),
                 "--pool", str(campaign_files["pool"])]) == 2
    assert not target.exists()
