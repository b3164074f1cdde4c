"""The "Ask a model" tab in a real browser, against a provider that echoes the API key back:
the key is in no table, message or stored row, for a single question and for a batch."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.net import free_port, stop_process, wait_for_http
from tests.helpers.stub import stub_server
from tests.security.test_key_echo import KEY, database_text
from tests.ui.conftest import CHROMIUM, QUIZBOT, ROOT, screenshot

pytestmark = pytest.mark.slow
MODEL = "openai/echo"
FIRST_CALL_MS = 120_000


@pytest.fixture
def echo_app(database_url: str, tmp_path: Path) -> Iterator[str]:
    with stub_server("--status", "401", "--echo-key") as stub:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
        env.update({
            "QUIZBOT_HOME": str(tmp_path / "home"),
            "DATABASE_URL": database_url,
            "QUIZBOT_MODELS": MODEL,
            "QUIZBOT_MODEL_SETTINGS": json.dumps(
                {MODEL: {"api_base": stub, "api_key_env": "TEAM_CRED"}}
            ),
            "TEAM_CRED": KEY,
        })  # fmt: skip
        log_path = tmp_path / "server.log"
        with log_path.open("w") as log:
            proc = subprocess.Popen(
                [QUIZBOT, "serve", "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=log
            )
            try:
                wait_for_http(f"http://127.0.0.1:{port}/")
                yield f"http://127.0.0.1:{port}/"
            finally:
                stop_process(proc)
        assert KEY not in log_path.read_text()  # nor in the server's log


def test_an_echoed_key_never_reaches_the_ask_tab_or_the_database(
    echo_app: str, database_url: str
) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(30_000)
        try:
            page.goto(echo_app)
            page.get_by_role("tab", name="Ask a model").click()
            page.locator("#qb-ask-statement textarea").fill("Insulin raises blood glucose.")
            page.locator("#qb-ask-custom").click()
            results = page.locator("#qb-ask-results")
            results.locator("[data-testid='cell-0-0']").wait_for(timeout=FIRST_CALL_MS)
            shown = results.text_content() or ""
            assert "is not valid" in shown and "[redacted]" in shown  # the echo, redacted
            assert KEY not in page.content()

            page.get_by_role("tab", name="Batch run").click()
            page.locator("#qb-ask-points input").fill("1")
            page.locator("#qb-ask-batch").click()
            summary = page.locator("#qb-ask-batch-summary")
            summary.get_by_text("failed", exact=False).first.wait_for(timeout=FIRST_CALL_MS)
            screenshot(page, "ask-key-echo")
            assert "[redacted]" in (summary.text_content() or "")
            assert KEY not in page.content()
        finally:
            browser.close()
    stored = database_text(database_url)
    assert "is not valid" in stored and KEY not in stored
