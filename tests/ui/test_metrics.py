"""``/metrics`` for Prometheus: the night's figures over real HTTP, who may read them, and the
Grafana dashboard that reads them.

The HTTP test runs ``quizbot serve`` (tests/ui/conftest.py ``served``: local mode with an admin
password) over the test database after one monitor night, and reads ``/metrics`` as ``curl``
would, parsed by ``prometheus_client.parser``. The expected accuracy is counted from the night's
stored answers, not taken from the code under test. The access rule in accounts mode and with
``QUIZBOT_METRICS_PUBLIC=1`` runs in process (Starlette's test client over the real app).
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.domain import Role
from quizbot.monitoring.metrics import METRIC_NAMES
from quizbot.monitoring.nights import run_monitor
from quizbot.ui import gate
from schedules.config import MonitorSpec
from storage import Database, open_database
from storage.repo import list_responses
from tests.helpers.net import free_port, stop_process, wait_for_http
from tests.ui.conftest import ADMIN_PASSWORD, QUIZBOT, ROOT

DASHBOARD = ROOT / "deploy" / "grafana" / "quizbot.json"
SPEC = MonitorSpec(name="nightly", models=("baseline/random",), cron="0 2 * * *", points=3,
                   anchor_points=1)  # fmt: skip


def _get(url: str, token: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


@contextmanager
def serving(database_url: str, tmp_path: Path, **settings: str) -> Iterator[str]:
    """`quizbot serve` on a free port over ``database_url`` (local mode, the admin password of
    tests/ui/conftest.py, ``settings`` as QUIZBOT_ variables); yields its address. Waits up to
    five minutes for it: a loaded machine builds the app slowly."""
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("QUIZBOT_") and k != "DATABASE_URL"}  # fmt: skip
    env.update({"QUIZBOT_HOME": str(tmp_path / "home"), "DATABASE_URL": database_url,
                "QUIZBOT_ADMIN_PASSWORD": ADMIN_PASSWORD})  # fmt: skip
    env.update({f"QUIZBOT_{k.upper()}": v for k, v in settings.items()})
    with (tmp_path / "server.log").open("w") as log:
        proc = subprocess.Popen(
            [QUIZBOT, "serve", "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=log
        )
        try:
            wait_for_http(f"http://127.0.0.1:{port}/", timeout=300)
            yield f"http://127.0.0.1:{port}/"
        finally:
            stop_process(proc)


@pytest.mark.slow
def test_curl_metrics_after_a_night_shows_its_accuracy(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path) as url:
        _scrape_after_a_night(database_url, url)


def _scrape_after_a_night(database_url: str, base: str) -> None:
    db = open_database(database_url)
    try:
        (night,) = run_monitor(db, SPEC, when=date(2026, 4, 2))
        assert night.status == "completed" and night.run_id is not None
        answers = [r for r in list_responses(db, run_id=night.run_id) if r.outcome != "error"]
    finally:
        db.dispose()
    expected = sum(r.outcome == "correct" for r in answers) / len(answers)
    url = base.rstrip("/") + "/metrics"

    assert _get(url)[0] == 401  # the admin pages' rule: no password, no figures
    assert _get(url, "not the password")[0] == 401
    _get(base)  # one page request, timed
    status, text = _get(url, ADMIN_PASSWORD)
    assert status == 200, text
    found = _samples(text)
    key = (("model", "baseline/random"), ("monitor", "nightly"), ("part", "overall"))
    assert found[("quizbot_monitor_accuracy", key)] == pytest.approx(expected)
    nights = (("model", "baseline/random"), ("monitor", "nightly"), ("status", "completed"))
    assert found[("quizbot_monitor_nights_total", nights)] == 1
    assert found[("quizbot_eval_runs_total", (("status", "completed"),))] >= 1
    pages = [v for (name, labels), v in found.items()
             if name == "quizbot_http_request_duration_seconds_count"
             and ("route", "page") in labels]  # fmt: skip
    assert pages and pages[0] >= 1
    names = {name for name, _labels in found}
    assert names <= METRIC_NAMES, names - METRIC_NAMES


@pytest.fixture
def accounts_app(db: Database, tmp_path: Path) -> Any:
    accounts.create_user(db, "boss", "admin", "admin password 123")
    accounts.create_user(db, "tutor", "instructor", "tutor password 123")
    return load_settings(home=str(tmp_path / "home"), database_url=db.url)


def _login(client: TestClient, name: str, password: str) -> None:
    client.get("/logout")  # a form page: the browser gets its form token
    form = {"username": name, "password": password, "csrf": client.cookies["quizbot_csrf"]}
    done = client.post("/login", data=form)
    assert done.status_code == 303, done.text


def test_in_accounts_mode_only_an_admin_account_reads_metrics(
    db: Database, accounts_app: Any
) -> None:
    app = gate.web_app(accounts_app, db)
    with TestClient(app, base_url="https://quiz.test", follow_redirects=False) as client:
        assert client.get("/metrics").status_code == 401  # the gate: no session
        _login(client, "tutor", "tutor password 123")
        assert client.get("/metrics").status_code == 403
    with TestClient(app, base_url="https://quiz.test", follow_redirects=False) as client:
        _login(client, "boss", "admin password 123")
        page = client.get("/metrics")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain")
        assert "quizbot_eval_runs_total" in page.text or "# HELP quizbot_eval_runs" in page.text
        assert page.headers["x-frame-options"] == "DENY"  # the gate's headers still apply


def test_metrics_public_needs_no_login_and_names_no_student(
    db: Database, accounts_app: Any
) -> None:
    (invite,) = accounts.import_cohort(db, [("zelda-student", Role.STUDENT)], "cohort-x")
    public = accounts_app.model_copy(update={"metrics_public": True})
    with TestClient(gate.web_app(public, db), base_url="https://quiz.test") as client:
        page = client.get("/metrics")
        assert page.status_code == 200
        assert "zelda" not in page.text and "cohort-x" not in page.text
        assert client.get("/gradio_api/info").status_code == 401  # only /metrics is public
        assert invite.password not in page.text


# --------------------------------------------------------------------------------------------
# The Grafana dashboard

_REQUIRED = ("title", "panels", "schemaVersion", "uid", "time", "templating")


def test_the_grafana_dashboard_loads_and_names_only_metrics_that_exist() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    for key in _REQUIRED:
        assert key in dashboard, key
    assert isinstance(dashboard["schemaVersion"], int) and dashboard["panels"]
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    used: set[str] = set()
    for panel in dashboard["panels"]:
        assert {"id", "type", "title", "gridPos"} <= set(panel), panel.get("title")
        for target in panel.get("targets", []):
            used |= _metric_names(target["expr"])
    for variable in dashboard["templating"]["list"]:
        if variable.get("type") == "query":
            query = variable["query"]
            used |= _metric_names(query if isinstance(query, str) else query["query"])
    assert used, "the dashboard queries nothing"
    assert used <= METRIC_NAMES, used - METRIC_NAMES
    assert {"quizbot_monitor_accuracy", "quizbot_monitor_incidents_open"} <= used


def _metric_names(expr: str) -> set[str]:
    import re

    return set(re.findall(r"\bquizbot_[a-z_]+\b", expr))
