"""The app's frame in a real browser: every tab is there and the status page shows the database
(where it is and its row counts to an administrator only)."""

from __future__ import annotations

from tests.ui.conftest import Served, screenshot


def test_every_tab_opens_and_the_status_page_reports_the_database(
    shared_page: object, served_shared: Served
) -> None:
    tab = shared_page
    served = served_shared
    tabs = ("Practice", "Ask a model", "Humans vs models", "Monitor", "Assignments", "Admin")
    for name in (*tabs, "Status"):
        # Gradio draws the tabs after its scripts load: wait, then count (on a loaded machine
        # counting at once found none)
        tab.get_by_role("tab", name=name).first.wait_for()  # type: ignore[attr-defined]
        assert tab.get_by_role("tab", name=name).count() == 1, name  # type: ignore[attr-defined]
    tab.get_by_role("tab", name="Status").click()  # type: ignore[attr-defined]
    status = tab.locator("#quizbot-status")  # type: ignore[attr-defined]
    status.get_by_text("Schema version").wait_for()
    public = status.inner_text()
    assert "up to date" in public
    location = served.database_url.rsplit("/", 1)[-1]
    assert location not in public and "respondent" not in public  # no path, no row counts
    screenshot(tab, "status")

    tab.get_by_role("tab", name="Admin").click()  # type: ignore[attr-defined]
    tab.locator("#qb-admin-password input").fill(served.admin_password)  # type: ignore[attr-defined]
    tab.locator("#qb-admin-login").click()  # type: ignore[attr-defined]
    tab.locator("#qb-admin-message").get_by_text("Logged in").wait_for()  # type: ignore[attr-defined]
    tab.get_by_role("tab", name="Status").click()  # type: ignore[attr-defined]
    status.get_by_text(location).wait_for()
    assert "respondent" in status.inner_text()  # the row counts, for the admin
    screenshot(tab, "status-admin")
