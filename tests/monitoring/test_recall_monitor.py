"""A monitor of open recall questions (``format = "recall"``), night after night over real HTTP
through litellm to the test model server's oracle: stable nights raise nothing, a night whose
answers degrade (policy ``correct`` -> ``wrong``: "none") raises recall drift alerts folded into
``recall_f1`` and ``recall_tiers`` incidents, a night with no usable answers stays failed, and the
Monitor tab shows mean F1 with its interval."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy import stats
from tenacity import wait_none

from quizbot.cli import cli
from quizbot.domain import RECALL_MAX_TOKENS
from quizbot.errors import InputError
from quizbot.items import RecallItem
from quizbot.monitoring.nights import history, night_items, run_monitor
from quizbot.providers import retry as retry_module
from quizbot.ui.monitor_chart import chart_svg
from quizbot.ui.monitor_views import night_rows, overview_html, overview_rows
from schedules.config import load_monitors
from storage import Database
from storage.incidents import list_incidents
from storage.monitoring import get_monitor, list_nights
from storage.repo import get_run, list_responses
from tests.helpers.served_models import model_settings, monitor_from, write_oracle
from tests.helpers.stub import stub_server

MODEL = "openai/recall-night"
FIRST = date(2026, 4, 1)
TOML = """
[[monitor]]
name = "recall-night"
models = ["openai/recall-night"]
cron = "0 2 * * *"
kb = "clinical-core"
format = "recall"
points = 8
anchor_points = 4
"""


@pytest.fixture(autouse=True)
def _no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry_module, "WAIT", wait_none())


def _expected_f1(item: RecallItem, policy: str) -> float:
    if policy == "correct":
        return 1.0
    # Policy "wrong" answers "none": an abstention, F1 0. (Before unverified entries stopped
    # counting as wrong, "bar1" was used here; its extra entry no longer lowers precision.)
    del item
    return 0.0


def _tier(f1: float) -> str:
    if f1 >= 0.7:
        return "basically correct"
    return "completely wrong" if f1 < 0.25 else "partially correct"


@pytest.mark.filterwarnings("ignore:Precision loss")
def test_recall_nights_over_http_raise_a_recall_drift_incident(
    db: Database, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = monitor_from(tmp_path, TOML)
    assert spec.format == "recall" and spec.statements_per_night == 8
    days = [FIRST + timedelta(days=k) for k in range(5)]
    nights = {d: night_items(db, spec, d) for d in days}
    first_items, first_anchors = nights[days[0]]
    assert all(isinstance(i, RecallItem) for i in first_items) and len(first_items) == 8
    assert len(first_anchors) == 4
    assert all(night_items(db, spec, d)[1] == first_anchors for d in days[1:2])
    assert {i.id for i in nights[days[1]][0]} != {i.id for i in first_items}  # rotating slice
    oracle = write_oracle(tmp_path / "oracle.jsonl", [i for d in days for i in nights[d][0]])

    seen = tmp_path / "requests.jsonl"
    with stub_server("--oracle", str(oracle), "--policy", "correct", "--log", str(seen)) as base:
        settings = model_settings(monkeypatch, MODEL, base)
        for day in days[:4]:
            (result,) = run_monitor(db, spec, when=day, settings=settings)
            assert result.status == "completed", result.message
            assert result.alerts == (), result.alerts
    # A night asks for a list with the room `quizbot eval` gives recall questions, not the
    # few tokens of a true/false verdict (a cut list would read as lower recall).
    lengths = {json.loads(line)["max_tokens"] for line in seen.read_text().splitlines()}
    assert lengths == {RECALL_MAX_TOKENS}
    with stub_server("--oracle", str(oracle), "--policy", "wrong") as base:
        (worse,) = run_monitor(
            db, spec, when=days[4], settings=model_settings(monkeypatch, MODEL, base)
        )
    assert worse.status == "completed", worse.message
    assert worse.run_id is not None
    run = get_run(db, worse.run_id)
    assert run.config["monitor_format"] == "recall"
    assert sorted(run.config["anchor_item_ids"]) == sorted(first_anchors)
    assert len(list_responses(db, run_id=worse.run_id)) == 8

    # Tonight's F1 values, computed from the oracle's policy, and the window's (all 1.0).
    tonight = [_expected_f1(i, "wrong") for i in nights[days[4]][0] if isinstance(i, RecallItem)]
    window = [1.0] * 32  # the 4 earlier nights (8 answers each) all lie in the 7-night window
    alerts = {a["metric"]: a for a in worse.alerts}
    assert set(alerts) == {"recall:recall_f1", "recall:recall_tiers"}
    f1_alert = alerts["recall:recall_f1"]
    assert f1_alert["severity"] == "critical"
    mean_now = sum(tonight) / len(tonight)
    assert f1_alert["effect"] == pytest.approx(mean_now - 1.0)
    # An alert carries the p-value after the night's Bonferroni correction: 2 tests tonight.
    if len(set(tonight)) > 1:
        scipy_p = float(stats.ttest_ind(tonight, window, equal_var=False).pvalue)
        assert f1_alert["p_value"] == pytest.approx(min(1.0, 2 * scipy_p))
    else:
        assert f1_alert["p_value"] == 0.0
    tiers_now = Counter(_tier(f) for f in tonight)
    names = [t for t in ("completely wrong", "partially correct", "basically correct")
             if tiers_now[t] or t == "basically correct"]  # fmt: skip
    table = [[tiers_now[t] for t in names], [len(window) if t == "basically correct" else 0
                                             for t in names]]  # fmt: skip
    assert alerts["recall:recall_tiers"]["p_value"] == pytest.approx(
        min(1.0, 2 * float(stats.chi2_contingency(table)[1]))
    )

    incidents = {i.metric: i for i in list_incidents(db, monitor=spec.name)}
    assert set(incidents) == {"recall_f1", "recall_tiers"}
    assert incidents["recall_f1"].state == "open" and incidents["recall_f1"].kind == "drift"
    assert incidents["recall_f1"].opened_on == days[4]
    assert {e["incident"]["metric"] for e in worse.incidents} == {"recall_f1", "recall_tiers"}

    # History and the Monitor tab: mean F1 with its t interval, tier shares.
    (series,) = history(db, spec.name)
    last = series["nights"][-1]
    assert last["recall"]["overall"]["f1"]["mean"] == pytest.approx(mean_now)
    assert (
        last["recall"]["overall"]["tiers"]["basically correct"]["k"]
        == tiers_now["basically correct"]
    )
    assert series["nights"][0]["recall"]["overall"]["f1"]["mean"] == 1.0
    rows = overview_rows({spec.name: [series]}, list_incidents(db))
    (row,) = rows
    assert row.accuracy.startswith(f"F1 {mean_now:.3f}")
    assert row.trend == pytest.approx([1.0, 1.0, 1.0, 1.0, mean_now])
    html = overview_html(rows)
    assert "recall_f1" in html and f"F1 {mean_now:.3f}" in html
    chart = chart_svg(series, [i.as_json() for i in list_incidents(db)])
    assert 'aria-label="open recall mean F1 per night"' in chart
    assert chart.count("qb-band") == 2 and "qb-alert-marker" in chart
    (latest, *_) = night_rows([series])
    assert latest[0] == days[4].isoformat() and latest[3].startswith("F1 ")

    # `quizbot monitor history` prints the same mean F1.
    monkeypatch.setenv("DATABASE_URL", database_url)
    printed = CliRunner().invoke(cli, ["monitor", "history", spec.name])
    assert printed.exit_code == 0, printed.output
    assert f"F1 {mean_now:.3f}" in printed.output.splitlines()[-3]


def test_a_recall_night_with_no_usable_answers_stays_failed(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = monitor_from(tmp_path, TOML)
    with stub_server("--status", "503") as base:
        settings = model_settings(monkeypatch, MODEL, base)
        (result,) = run_monitor(db, spec, when=FIRST, settings=settings)
    assert result.status == "failed"
    assert [a["metric"] for a in result.alerts] == ["operational:night_failed"]
    monitor = get_monitor(db, spec.name)
    (night,) = list_nights(db, monitor.id)
    assert night.status == "failed"
    (incident,) = list_incidents(db, monitor=spec.name)
    assert incident.metric == "night_failed" and incident.kind == "operational"
    (series,) = history(db, spec.name)
    assert series["nights"][0]["recall"] is None


def test_recall_format_is_validated(tmp_path: Path) -> None:
    path = tmp_path / "monitors.toml"
    path.write_text(TOML.replace('"recall"', '"essay"'), encoding="utf-8")
    with pytest.raises(InputError, match="format"):
        load_monitors(path)
    path.write_text(TOML + 'item_set = "mcq"\n', encoding="utf-8")
    with pytest.raises(InputError, match="item_set"):
        load_monitors(path)
