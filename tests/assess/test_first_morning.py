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
