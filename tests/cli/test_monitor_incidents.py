"""`quizbot monitor incidents`, `ack`, `resolve` and `accept-baseline` through the command line.

Incidents are made the real way, by running nights on both databases: a model whose key is
refused (an operational incident) and a model whose reported id changes (a drift incident).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.monitoring.nights import run_night
from quizbot.providers import ProviderError
from quizbot.providers.scripted import ScriptedProvider
from schedules.config import MonitorSpec
from storage import open_database

SPEC = MonitorSpec(name="cli-watch", models=("scripted/a", "scripted/b"), cron="0 2 * * *",
                   points=2, anchor_points=1)  # fmt: skip


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> Iterator[CliRunner]:
    db = open_database(database_url)
    try:
        refused = ScriptedProvider(
            ["True"], fail=lambda _n, _r: ProviderError("401 no", retryable=False, kind="auth")
        )
        run_night(db, SPEC, "scripted/a", date(2026, 5, 1), provider_factory=lambda *_: refused)
        for day, version in ((1, "v1"), (2, "v2")):
            provider = ScriptedProvider(["True"], reported_model=version)
            run_night(db, SPEC, "scripted/b", date(2026, 5, day),
                      provider_factory=lambda *_, p=provider: p)  # fmt: skip
    finally:
        db.dispose()
    monkeypatch.setenv("DATABASE_URL", database_url)
    yield CliRunner()


def _incidents(runner: CliRunner, *args: str) -> list[dict[str, object]]:
    result = runner.invoke(cli, ["monitor", "incidents", "--json", *args])
    assert result.exit_code == 0, result.output
    found: list[dict[str, object]] = json.loads(result.stdout)["incidents"]
    return found


def test_incidents_are_listed_acted_on_and_refused_with_documented_codes(
    runner: CliRunner,
) -> None:
    listed = _incidents(runner)
    by_model = {i["model"]: i for i in listed}
    assert set(by_model) == {"scripted/a", "scripted/b"}
    ops, drift = by_model["scripted/a"], by_model["scripted/b"]
    assert (ops["kind"], ops["metric"], ops["state"]) == ("operational", "night_failed", "open")
    assert (drift["kind"], drift["metric"]) == ("drift", "provider_model")
    assert {"id", "severity", "opened_on", "evidence", "events", "baseline_from"} <= set(ops)

    text = runner.invoke(cli, ["monitor", "incidents", "--monitor", "cli-watch"])
    assert text.exit_code == 0 and f"#{ops['id']}" in text.output and "night_failed" in text.output

    acked = runner.invoke(cli, ["monitor", "ack", str(ops["id"]), "--note", "on it", "--by", "k"])
    assert acked.exit_code == 0, acked.output
    assert "acknowledged" in acked.output and "webhook: not set" in acked.output
    again = runner.invoke(cli, ["monitor", "ack", str(ops["id"])])
    assert again.exit_code == 65 and "is acknowledged" in again.output
    assert "Traceback" not in again.output
    assert [i["id"] for i in _incidents(runner, "--state", "acknowledged")] == [ops["id"]]

    refused = runner.invoke(cli, ["monitor", "accept-baseline", str(ops["id"])])
    assert refused.exit_code == 65 and "operational" in refused.output
    missing = runner.invoke(cli, ["monitor", "resolve", "424242"])
    assert missing.exit_code == 66 and "no incident 424242" in missing.output
    unknown = runner.invoke(cli, ["monitor", "incidents", "--monitor", "nope"])
    assert unknown.exit_code == 66

    accepted = runner.invoke(
        cli,
        ["monitor", "accept-baseline", str(drift["id"]), "--from-night", "2026-05-02", "--json"],
    )
    assert accepted.exit_code == 0, accepted.output
    body = json.loads(accepted.stdout)["incident"]
    assert (body["state"], body["baseline_from"]) == ("accepted", "2026-05-02")
    assert body["events"][-1]["event"] == "accepted"

    resolved = runner.invoke(cli, ["monitor", "resolve", str(ops["id"]), "--json"])
    assert (
        resolved.exit_code == 0 and json.loads(resolved.stdout)["incident"]["state"] == "resolved"
    )
    assert _incidents(runner) == []  # nothing active any more
    assert len(_incidents(runner, "--state", "all")) == 2
