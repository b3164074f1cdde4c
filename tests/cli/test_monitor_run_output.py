"""`quizbot monitor run` prints one line per night and each alert once; `quizbot monitor incident
show ID` lists the anchor items that flipped, with the model's own words, sortable by relation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.generate.item_banks import import_item_set
from quizbot.monitoring.nights import run_night
from schedules.config import MonitorSpec
from storage import Database
from storage.incidents import list_incidents
from tests.monitoring.test_incident_notifications import _night, scripted, write_bank


def test_monitor_run_prints_one_line_per_night_and_no_noise(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schedules = tmp_path / "monitors.toml"
    schedules.write_text(
        '[[monitor]]\nname = "tiny"\nmodels = ["baseline/always-true", "baseline/random"]\n'
        'cron = "0 2 * * *"\npoints = 2\nanchor_points = 1\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", "INFO")
    done = CliRunner().invoke(
        cli, ["monitor", "run", "tiny", "--schedules", str(schedules), "--date", "2026-04-01"]
    )
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert len(lines) == 2, lines  # one line per model and night, no alert on a first night
    for line, model in zip(lines, ("baseline/always-true", "baseline/random"), strict=True):
        assert line.startswith(f"tiny 2026-04-01 {model}: completed (run ")
        assert "accuracy 0." in line and "[" in line and "–" in line  # with its interval
        assert ", 32 items, 0 failed, 0 alerts" in line
    assert "failed item(s) again" not in done.output


def test_incident_show_lists_the_flipped_anchor_items(
    db: Database, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info, _bank = import_item_set(db, write_bank(tmp_path / "bank.jsonl"), "medqa", "boards")
    positions = {item_id: i for i, item_id in enumerate(info.item_ids)}
    spec = MonitorSpec(name="boards", models=("gpt-x",), cron="0 2 * * *", item_set="boards")
    factory = scripted(db, positions)
    for n in range(1, 5):
        run_night(db, spec, "gpt-x", _night(n), provider_factory=factory)
    (incident,) = list_incidents(db, monitor="boards")
    monkeypatch.setenv("DATABASE_URL", database_url)

    shown = CliRunner().invoke(cli, ["monitor", "incident", "show", str(incident.id), "--json"])
    assert shown.exit_code == 0, shown.output
    flips = json.loads(shown.stdout)["flips"]
    # the 8 items the script stops answering on night 4, against night 3
    assert (flips["flipped"], flips["anchors_compared"], flips["now_wrong"]) == (8, 120, 8)
    assert flips["reference_night"] == _night(3).isoformat()
    relations = [f["relation"] for f in flips["items"]]
    assert relations == sorted(relations) and set(relations) == {"step1", "step2&3"}
    first = flips["items"][0]
    assert first["before"]["outcome"] == "correct" and first["after"]["outcome"] == "incorrect"
    assert first["before"]["raw_text"] != first["after"]["raw_text"]  # the model's own words

    by_item = CliRunner().invoke(
        cli, ["monitor", "incident", "show", str(incident.id), "--sort", "item", "--json"]
    )
    ids = [f["item_id"] for f in json.loads(by_item.stdout)["flips"]["items"]]
    assert ids == sorted(ids)

    text = CliRunner().invoke(cli, ["monitor", "incident", "show", str(incident.id)])
    assert text.exit_code == 0, text.output
    assert f"flipped anchor items, {_night(3)} -> {_night(4)}: 8 of 120" in text.output
    assert "[step1] now wrong: Question" in text.output
    assert f"{_night(4)}  0.883" in text.output and "opened" in text.output
    missing = CliRunner().invoke(cli, ["monitor", "incident", "show", "9999"])
    assert missing.exit_code == 66 and "no incident 9999" in missing.output
