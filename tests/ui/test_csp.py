"""Every page under the strict Content-Security-Policy of issue 25 in Chromium: no violation and
no other error in the console, and logging out works with JavaScript and without it."""

from __future__ import annotations

from typing import Any

from tests.ui.conftest import PASSWORD, ConsoleErrors, Server, log_in, open_document

from inexeval.assess.app import CONTENT_SECURITY_POLICY


def _visit(page: Any, url: str) -> Any:
    response = page.goto(url)
    assert response is not None
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["cache-control"] == "no-store"
    return response


def test_every_page_works_under_the_policy(browser: Any, server: Server,
                                           console: ConsoleErrors) -> None:
    context = browser.new_context()
    page = console.watch(context.new_page())
    _visit(page, f"{server.url}/login")
    page.get_by_label("User name").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{server.url}/")
    for path in ("/", "/topics/1", "/topics/2"):
        _visit(page, server.url + path)
        page.wait_for_load_state("networkidle")
    _visit(page, f"{server.url}/topics/1/docs/co/a1")
    page.wait_for_selector("body[data-ready=true]")
    page.keyboard.press("j")  # the page's scripts run: keys, highlighting, the check panel
    # a refusal shown as a page (an admin page for an assessor) is under the policy too
    assert page.goto(f"{server.url}/admin").status == 403
    console[:] = [e for e in console if "status of 403" not in e]  # the refusal itself
    context.close()
    admin = log_in(browser, server, "boss", console)
    _visit(admin, f"{server.url}/admin")
    admin.wait_for_load_state("networkidle")
    admin.context.close()
    assert not [e for e in console if "Content Security Policy" in e], list(console)


def test_logging_out_with_and_without_javascript(browser: Any, server: Server,
                                                 console: ConsoleErrors) -> None:
    page = log_in(browser, server, "bob", console)
    open_document(page, server, "1", "co/a1")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{server.url}/login")
    assert page.context.request.get(f"{server.url}/api/session").status == 401
    page.context.close()
    # without JavaScript the form posts its CSRF field (finding 7: it was a 403, and the
    # session stayed valid)
    context = browser.new_context(java_script_enabled=False)
    bare = console.watch(context.new_page())
    bare.goto(f"{server.url}/login")
    bare.fill("#username", "bob")
    bare.fill("#password", PASSWORD)
    bare.click("button[type=submit]")
    bare.wait_for_url(f"{server.url}/")
    bare.click("#logout button")
    bare.wait_for_url(f"{server.url}/login")
    assert context.request.get(f"{server.url}/api/session").status == 401
    context.close()
