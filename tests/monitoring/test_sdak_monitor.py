"""A monitor of ``prompt = "sdak"``, night after night on a SQLite file, over real HTTP through
litellm to the test model server's oracle (policy ``sdak``): nights are asked the SDAK way
through the one entry point, their summaries carry the SDAK pair metrics, stable nights raise
nothing, and a night whose replies stop giving the verdict first (``--noise``) raises an
instruction-following drift alert folded into an incident of its own.

Expected figures are computed here from the stored raw replies with the server's own reply
formats ("Correct. ..." / "Incorrect. ..."), not with quizbot's SDAK reader, and the test's
p-value comes from scipy's chi-square test of the 2x2 table (the square of the pooled
two-proportion z).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from scipy import stats
from sqlmodel import col, select
from tenacity import wait_none

from quizbot.monitoring.nights import history, night_items, run_monitor
from quizbot.providers import retry as retry_module
from quizbot.ui.monitor_views import describe_monitor
from schedules.config import MonitorSpec
from storage import Database, open_database
from storage.incidents import list_incidents
from storage.models import DriftResult, MonitorNight
from storage.repo import get_run
from tests.helpers.oracles import wilson
from tests.helpers.served_models import model_settings, monitor_from, replies_by_pair, write_oracle
from tests.helpers.stub import stub_server

MODEL = "openai/sdak-night"
FIRST = date(2026, 5, 1)
TOML = """
[[monitor]]
name = "sdak-night"
models = ["openai/sdak-night"]
cron = "0 2 * * *"
kb = "clinical-core"
prompt = "sdak"
points = 4
anchor_points = 2
"""


@pytest.fixture(autouse=True)
def _no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry_module, "WAIT", wait_none())


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(f"sqlite:///{tmp_path / 'quizbot.db'}")
    try:
        yield database
    finally:
        database.dispose()


def _pairs(db: Database, run_id: int) -> list[tuple[str, str]]:
    """(factual reply, counterfactual reply) of every pair the night answered."""
    groups = replies_by_pair(db, run_id).values()
    return [(g[True], g[False]) for g in groups if len(g) == 2]


def _follows(reply: str) -> bool:
    return reply.startswith(("Correct.", "Incorrect."))


def _following(pairs: list[tuple[str, str]]) -> int:
    return sum(_follows(f) and _follows(c) for f, c in pairs)


def _pair_right(pairs: list[tuple[str, str]]) -> int:
    return sum(f.startswith("Correct.") and c.startswith("Incorrect.") for f, c in pairs)


@pytest.mark.slow
def test_sdak_nights_over_http_raise_an_instruction_following_incident(
    sqlite_db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = sqlite_db
    spec = monitor_from(tmp_path, TOML)
    assert spec.prompt == "sdak" and spec.idk is False
    days = [FIRST + timedelta(days=k) for k in range(5)]
    oracle = write_oracle(
        tmp_path / "oracle.jsonl", [i for d in days for i in night_items(db, spec, d)[0]]
    )

    results = []
    with stub_server("--oracle", str(oracle), "--policy", "sdak") as base:
        settings = model_settings(monkeypatch, MODEL, base)
        for day in days[:4]:
            (result,) = run_monitor(db, spec, when=day, settings=settings)
            assert result.status == "completed", result.message
            assert result.alerts == (), result.alerts
            results.append(result)
    with stub_server("--oracle", str(oracle), "--policy", "sdak", "--noise", "0.8") as base:
        (worse,) = run_monitor(
            db, spec, when=days[4], settings=model_settings(monkeypatch, MODEL, base)
        )
    assert worse.status == "completed", worse.message
    results.append(worse)

    # Each night is an SDAK run of the entry point, with room for a reason.
    pairs = []
    for result in results:
        assert result.run_id is not None
        config = get_run(db, result.run_id).config
        assert config["prompt"] == "sdak" and config["idk"] is False and config["shots"] == 0
        assert config["max_tokens"] > 16
        pairs.append(_pairs(db, result.run_id))

    # The summaries' SDAK metrics, against counts made from the raw replies.
    for result, night_pairs in zip(results, pairs, strict=True):
        part = result.summary["sdak"]
        n = len(night_pairs)
        assert part["n_pairs"] == n > 0
        k_if, k_pair = _following(night_pairs), _pair_right(night_pairs)
        assert part["counts"]["instruction_following"] == k_if
        assert part["metrics"]["instruction_following"] == pytest.approx(k_if / n)
        assert part["metrics"]["pair_accuracy"] == pytest.approx(k_pair / n)
        assert part["intervals"]["instruction_following"] == pytest.approx(wilson(k_if, n))
    stable = pairs[:4]
    assert all(_following(p) == len(p) for p in stable)  # no noise: every verdict at the start

    # Tonight's instruction following against the 4 window nights pooled. The window followed
    # every time, so its dispersion is 1 and the test is the plain pooled z-test: scipy's
    # chi-square of the 2x2 table without continuity correction gives the same p-value.
    k_now, n_now = _following(pairs[4]), len(pairs[4])
    k_base, n_base = sum(_following(p) for p in stable), sum(len(p) for p in stable)
    assert k_now < n_now
    table = [[k_now, n_now - k_now], [k_base, n_base - k_base]]
    scipy_p = float(stats.chi2_contingency(table, correction=False)[1])

    def findings(scope_metric: tuple[str, str] | None = None) -> list[DriftResult]:
        query = (
            select(DriftResult)
            .join(MonitorNight, col(MonitorNight.id) == col(DriftResult.monitor_night_id))
            .where(col(MonitorNight.scheduled_date) == days[4])
        )
        if scope_metric is not None:
            query = query.where(
                col(DriftResult.scope) == scope_metric[0],
                col(DriftResult.metric) == scope_metric[1],
            )
        return db.read(lambda s: list(s.execute(query).scalars().all()))

    (found,) = findings(("sdak", "sdak_instruction_following"))
    assert found.test == "two_proportion_vs_window"
    assert (found.n, found.value, found.baseline_value) == (n_now, k_now / n_now, k_base / n_base)
    assert found.effect == pytest.approx(k_now / n_now - k_base / n_base)
    assert found.p_value == pytest.approx(scipy_p, rel=1e-6, abs=1e-300)
    # It joins the night's family: Bonferroni over the primary tests (relations count once).
    tested = [f for f in findings() if f.p_value is not None]
    m = sum(not f.scope.startswith("relation:") for f in tested)
    m += any(f.scope.startswith("relation:") for f in tested)
    assert found.p_adjusted == pytest.approx(min(1.0, scipy_p * m), rel=1e-6, abs=1e-300)

    alerts = {a["metric"]: a for a in worse.alerts}
    alert = alerts["sdak:sdak_instruction_following"]
    assert alert["severity"] == "critical"  # a fall of more than 10 points
    assert "SDAK instruction following fell" in alert["message"]
    incidents = {i.metric: i for i in list_incidents(db, monitor=spec.name)}
    incident = incidents["sdak_instruction_following"]
    assert incident.kind == "drift" and incident.state == "open"
    assert incident.opened_on == days[4]

    # History and the Monitor tab show the figures of the last SDAK night.
    (series,) = history(db, spec.name)
    assert [n["sdak"]["n_pairs"] for n in series["nights"]] == [len(p) for p in pairs]
    text = describe_monitor(spec.name, spec.as_json(), [series])
    assert "Asked the SDAK way" in text
    low, high = wilson(k_now, n_now)
    assert f"instruction following {k_now / n_now:.3f} [{low:.3f}, {high:.3f}]" in text, text
    assert f"pair accuracy {_pair_right(pairs[4]) / n_now:.3f}" in text


def test_a_standard_monitor_has_no_sdak_part(sqlite_db: Database) -> None:
    spec = MonitorSpec(
        name="plain", models=("baseline/always-true",), cron="0 2 * * *", points=2,
        anchor_points=1,
    )  # fmt: skip
    (result,) = run_monitor(sqlite_db, spec, when=FIRST)
    assert result.status == "completed", result.message
    assert "sdak" not in result.summary
    assert result.run_id is not None
    assert get_run(sqlite_db, result.run_id).config["prompt"] == "standard"
    (series,) = history(sqlite_db, "plain")
    assert series["nights"][0]["sdak"] is None
    assert "SDAK" not in describe_monitor("plain", spec.as_json(), [series])


def test_nights_asked_with_another_prompt_leave_the_comparison_window(
    sqlite_db: Database,
) -> None:
    plain = MonitorSpec(
        name="switch", models=("baseline/always-true",), cron="0 2 * * *", points=2,
        anchor_points=1,
    )  # fmt: skip
    for k in range(3):
        (night,) = run_monitor(sqlite_db, plain, when=FIRST + timedelta(days=k))
        assert night.status == "completed", night.message
        assert "notes" not in night.summary
    sdak = MonitorSpec(**{**plain.__dict__, "prompt": "sdak", "idk": False})
    (switched,) = run_monitor(sqlite_db, sdak, when=FIRST + timedelta(days=3))
    assert switched.status == "completed", switched.message
    assert switched.summary["notes"] == [
        "3 earlier nights asked with another prompt left out of the comparisons"
    ]
    # The baseline answers "True" to the SDAK question too: no verdict at the start, ever.
    assert switched.summary["sdak"]["metrics"]["instruction_following"] == 0.0
    assert switched.alerts == ()  # nothing to compare with: no drift from the switch itself
    compared = sqlite_db.read(
        lambda s: [
            f.compared_run_ids
            for f in s.execute(
                select(DriftResult)
                .join(MonitorNight, col(MonitorNight.id) == col(DriftResult.monitor_night_id))
                .where(col(MonitorNight.scheduled_date) == FIRST + timedelta(days=3))
            )
            .scalars()
            .all()
        ]
    )
    assert compared and not any(compared)  # no finding compared tonight with a standard night
