"""The Monitor and Admin tabs' helpers without a browser: what they render, what they refuse.

Histories are written by hand in the shape :func:`quizbot.monitoring.nights.history` returns, so
every
expected row below is worked out from the input, not from the code under test. The helpers that
act (run a monitor, import a knowledge base) run against the real test databases.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from quizbot.config import Settings
from quizbot.errors import DuplicateError, InputError, NotFoundError
from quizbot.ui.admin import (
    check_schedules,
    import_knowledge_base,
    monitor_rows,
    run_rows,
    schedules_note,
)
from quizbot.ui.admin_report import render_report
from quizbot.ui.context import UiContext
from quizbot.ui.monitor import NOT_ADMIN, monitor_names, run_now
from quizbot.ui.monitor_chart import chart_svg
from quizbot.ui.monitor_views import (
    accuracy_text,
    alert_rows,
    change_rows,
    describe_monitor,
    night_rows,
    provider_changes,
)
from quizbot.ui.render import md_escape
from schedules.config import MonitorSpec, default_schedules_file
from storage import Database
from storage.monitoring import get_monitor, list_nights
from storage.repo import get_knowledge_base, list_runs


def _scope(value: float | None, low: float = 0.0, high: float = 1.0) -> dict[str, Any]:
    interval = None if value is None else [low, high]
    return {"n_items": 32, "n_errors": 0, "accuracy": {"value": value, "interval": interval}}


def _night(
    day: str, provider: str | None, anchor: float, rotating: float, status: str = "completed"
) -> dict[str, Any]:
    if status != "completed":
        return {"date": day, "run_id": None, "provider_model": None, "status": status,
                "metrics": {}, "anchor": {}, "rotating": {},
                "error": "every call failed"}  # fmt: skip
    return {
        "date": day,
        "run_id": int(day[-2:]),
        "provider_model": provider,
        "status": status,
        "metrics": _scope((anchor + rotating) / 2, 0.25, 0.75),
        "anchor": _scope(anchor, anchor - 0.1, anchor + 0.1),
        "rotating": _scope(rotating, rotating - 0.2, rotating + 0.2),
        "error": None,
    }


SERIES: dict[str, Any] = {
    "monitor": "watch",
    "model": "openai/m",
    "nights": [
        _night("2026-01-01", "m-1", 0.5, 0.25),
        _night("2026-01-02", None, 0, 0, status="failed"),
        _night("2026-01-03", "m-2", 0.75, 0.5),
        _night("2026-01-04", "m-1", 0.5, 0.5),
        _night("2026-01-05", "m-2", 0.5, 0.5),
    ],
    "alerts": [
        {"date": "2026-01-03", "severity": "warning", "metric": "model_id:provider_model",
         "effect": None, "p_value": None, "message": "new id", "delivered": True,
         "delivery_error": None},
        {"date": "2026-01-04", "severity": "critical", "metric": "anchor:accuracy",
         "effect": -0.25, "p_value": 0.000123, "message": "fell", "delivered": False,
         "delivery_error": "HTTP 500"},
    ],
}  # fmt: skip
OTHER: dict[str, Any] = {
    "monitor": "watch",
    "model": "baseline/random",
    "nights": [_night("2026-01-03", "baseline/random", 0.5, 0.5)],
    "alerts": [],
}


def test_provider_changes_skip_failed_nights_and_name_each_new_id() -> None:
    assert provider_changes(SERIES) == [
        ("2026-01-03", "m-1", "m-2"),
        ("2026-01-04", "m-2", "m-1"),
        ("2026-01-05", "m-1", "m-2"),
    ]
    assert provider_changes(OTHER) == []


def test_chart_draws_bands_not_lines_alert_markers_and_id_changes() -> None:
    html = chart_svg(SERIES)
    svg = ElementTree.fromstring(html[html.index("<svg") : html.index("</svg>") + 6])
    ns = "{http://www.w3.org/2000/svg}"
    bands = [p for p in svg.iter(f"{ns}polygon") if p.get("class") == "qb-band"]
    # one shaded band per scope, through the 4 completed nights' upper then lower bounds
    assert len(bands) == 2 and all(len(b.get("points", "").split()) == 8 for b in bands)
    assert len(list(svg.iter(f"{ns}polyline"))) == 2  # the two accuracy lines, no bound lines
    markers = [p for p in svg.iter(f"{ns}path") if p.get("class") == "qb-alert-marker"]
    assert len(markers) == 2  # one per alerting night
    assert {m.get("fill") for m in markers} == {"#e67700", "#c92a2a"}  # warning, critical
    titles = [m.findtext(f"{ns}title") or "" for m in markers]
    assert any("critical: fell" in t for t in titles)
    dashed = [line for line in svg.iter(f"{ns}line") if line.get("stroke-dasharray")]
    assert len(dashed) == 3  # the three model-id changes
    assert "id → m-2 (2026-01-03)" in html and "id → m-1 (2026-01-04)" in html
    assert chart_svg(None) == "" and chart_svg({**OTHER, "nights": []}) == ""


def test_tables_list_every_model_newest_first() -> None:
    nights = night_rows([SERIES, OTHER])
    assert [(r[0], r[1]) for r in nights] == [
        ("2026-01-05", "openai/m"),
        ("2026-01-04", "openai/m"),
        ("2026-01-03", "baseline/random"),
        ("2026-01-03", "openai/m"),
        ("2026-01-02", "openai/m"),
        ("2026-01-01", "openai/m"),
    ]
    assert nights[-1][2:] == [
        "completed", "0.375 [0.25–0.75]", "0.500 [0.40–0.60]", "0.250 [0.05–0.45]", "32",
        "m-1", 1,
    ]  # fmt: skip
    assert nights[-2][2] == "failed: every call failed"
    assert nights[-2][3:6] == ["-", "-", "-"]
    assert change_rows([SERIES, OTHER])[0] == ["2026-01-05", "openai/m", "m-1", "m-2"]
    assert alert_rows([SERIES, OTHER]) == [
        ["2026-01-04", "openai/m", "critical", "fell", "anchor:accuracy", "-25.0 points",
         "0.00012", "failed: HTTP 500"],
        ["2026-01-03", "openai/m", "warning", "new id", "model_id:provider_model", "-", "-",
         "delivered"],
    ]  # fmt: skip
    assert accuracy_text({}) == "-"


def test_monitor_names_and_descriptions() -> None:
    spec = MonitorSpec(name="zeta", models=("baseline/random",), cron="0 2 * * *")
    assert monitor_names([spec], ["alpha", "zeta", "beta"]) == ["zeta", "alpha", "beta"]
    empty = describe_monitor("zeta", spec.as_json(), [])
    assert "No nights yet — run `quizbot monitor run zeta` or press **Run now**" in empty
    assert (
        "25 knowledge points a night = 400 statements from clinical-core (6 anchor points = "
        "96 anchor statements); true/false statements, standard prompt"
    ) in empty
    text = describe_monitor("watch", None, [SERIES, OTHER])
    assert "Not in the schedules file in force" in text
    assert "5 night(s) from 2026-01-01 to 2026-01-05; 2 alert(s); 1 failed" in text


def test_schedules_checker_names_problems_without_its_scratch_file() -> None:
    shipped = default_schedules_file().read_text(encoding="utf-8")
    assert check_schedules(shipped).startswith("**Valid:** 1 monitor(s): `baselines`")
    verdict = check_schedules(
        '[[monitor]]\nname = "n"\nmodels = []\ncron = "0 2 * *"\nanchor_point = 3\n'
    )
    assert verdict.startswith("**Problems:**")
    assert r"- monitor 'n', key 'anchor\_point': unknown key" in verdict
    assert "- monitor 'n', key 'models': a non-empty list" in verdict
    assert "- monitor 'n', key 'cron': must have five fields" in verdict
    assert r"e.g. '0 2 \* \* \*'" in verdict  # shown literally, not as emphasis
    assert "quizbot-schedules-" not in verdict and "/tmp" not in verdict
    assert "not valid TOML" in check_schedules("[[monitor]\n")
    assert "shipped with quizbot" in schedules_note(default_schedules_file(), shipped=True)
    assert "`QUIZBOT_SCHEDULES_FILE`" in schedules_note(Path("/etc/m.toml"), shipped=False)


def test_md_escape_shows_text_literally() -> None:
    assert md_escape("upload <relation>_1000.csv & *x* [a](b) `c`") == (
        r"upload \<relation\>\_1000.csv \& \*x\* \[a\](b) \`c\`"
    )


def test_monitor_rows_show_next_run_last_night_and_alerts() -> None:
    daily = MonitorSpec(name="daily", models=("a", "b"), cron="0 2 * * *")
    off = MonitorSpec(name="off", models=("a",), cron="0 2 * * *", enabled=False)
    now = datetime(2026, 1, 1, 3, 0, tzinfo=UTC)
    rows = monitor_rows([daily, off], {"daily": [SERIES, OTHER]}, now)
    assert rows[0] == [
        "daily", "a, b", "0 2 * * * (UTC)",
        "25 knowledge points a night = 400 statements from clinical-core (6 anchor points = "
        "96 anchor statements); true/false statements, standard prompt", "yes",
        "2026-01-05", 2, "2026-01-02 02:00",
    ]  # fmt: skip
    assert rows[1][4:] == ["no", "-", 0, "-"]


def test_render_report_shows_values_intervals_and_breakdowns() -> None:
    report = {
        "run_id": 7, "name": "nightly", "model": "openai/m", "model_reported": "m-2",
        "status": "completed", "n_items": 10, "answered": 9, "n_errors": 1,
        "metrics": {"average_accuracy": 0.5, "joint_accuracy": None},
        "intervals": {"average_accuracy": [0.25, 0.75], "joint_accuracy": None},
        "by_relation": {"has_symptom": {"n": 9, "metrics": {"average_accuracy": 0.5,
                        "answer_rate": 1.0}, "intervals": {"average_accuracy": [0.2, 0.8]}}},
    }  # fmt: skip
    text = render_report(report)
    assert text.startswith("### Run 7: nightly\nModel `openai/m` (reported: `m-2`), completed, ")
    assert "9 of 10 items answered and stored; 1 failed calls, left out of the metrics." in text
    assert "| average accuracy | 0.500 \\[0.250, 0.750\\] |" in text
    assert "| joint accuracy (all 8 variants right) | - |" in text
    assert "| has\\_symptom | 9 | 0.500 \\[0.200, 0.800\\] | 1.000 | - |" in text


SMALL = (
    '[[monitor]]\nname = "small"\nmodels = ["baseline/always-true"]\npoints = 2\n'
    'anchor_points = 1\ncron = "0 2 * * *"\n'
)


def test_run_now_refuses_students_and_runs_for_an_admin(db: Database, tmp_path: Path) -> None:
    schedules = tmp_path / "monitors.toml"
    schedules.write_text(SMALL, encoding="utf-8")
    ctx = UiContext(Settings(home=tmp_path / "home", schedules_file=schedules), db)
    when = date(2026, 3, 1)
    assert run_now(ctx, False, "small", when) == NOT_ADMIN
    with pytest.raises(NotFoundError):
        get_monitor(db, "small")  # nothing ran, nothing was even recorded
    assert "no monitor named 'nope'" in run_now(ctx, True, "nope", when)

    text = run_now(ctx, True, "small", when)
    assert text.startswith("- small 2026-03-01 baseline/always-true: completed (run ")
    assert ", 32 items, 0 failed, 0 alerts" in text  # NightResult.line, as monitor run prints
    monitor = get_monitor(db, "small")
    assert monitor.id is not None
    nights = list_nights(db, monitor.id)
    assert [(n.scheduled_date, n.status) for n in nights] == [(when, "completed")]
    assert "skipped" in run_now(ctx, True, "small", when)
    assert "is not a date" in run_now(ctx, True, "small", "2026-02-30")
    (row,) = run_rows(list_runs(db))
    assert row[1:6] == [
        "monitor small 2026-03-01", "baseline/always-true", "baseline/always-true",
        "completed", "32/32",  # 2 points x 16 statements
    ]  # fmt: skip


def test_import_refuses_bad_files_whole_and_imports_good_ones(db: Database, tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    broken = uploads / "broken.csv"
    broken.write_text("head,relation,tail\nasthma,has_symptom,wheeze\nflu,has_symptom,\n")
    with pytest.raises(InputError) as caught:
        import_knowledge_base(db, [str(broken)], "triplets", "notes")
    assert str(caught.value) == "broken.csv, line 3, field 'tail': missing value"
    with pytest.raises(NotFoundError):
        get_knowledge_base(db, "notes")
    with pytest.raises(DuplicateError):
        import_knowledge_base(db, [str(broken)], "triplets", "clinical-core")
    with pytest.raises(InputError, match="one CSV or JSONL file"):
        import_knowledge_base(db, [str(broken), str(broken)], "triplets", "notes")
    with pytest.raises(InputError, match=r"broken\.csv: not a MedLAMA relation file"):
        import_knowledge_base(db, [str(broken)], "medlama", "notes")

    good = uploads / "good.jsonl"
    good.write_text(
        '{"head": "asthma", "relation": "has_symptom", "tail": "wheeze"}\n'
        '{"head": "gout", "relation": "has_symptom", "tail": "joint pain"}\n'
    )
    message = import_knowledge_base(db, [str(good)], "triplets", " notes ")
    assert message.startswith("Imported **notes**: 2 triplets (2 knowledge points) in 1 relation")
    assert get_knowledge_base(db, "notes").source == "triplets"
    assert "already imported" in import_knowledge_base(db, [str(good)], "triplets", "notes")
    other = uploads / "other.csv"
    other.write_text("head,relation,tail\nflu,has_symptom,fever\n")
    with pytest.raises(DuplicateError, match="a different knowledge base is already named"):
        import_knowledge_base(db, [str(other)], "triplets", "notes")

    medlama = uploads / "may_treat_1000.csv"
    medlama.write_text(
        "head_cui,head_name,rel,tail_names,tail_cuis\n"
        "C1,metformin,may_treat,type 2 diabetes || obesity,C2 || C3\n"
    )
    message = import_knowledge_base(db, [str(medlama)], "medlama", "lama")
    assert message.startswith("Imported **lama**: 2 triplets (1 knowledge points) in 1 relation")
