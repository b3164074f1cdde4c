"""The schedules file: every key checked, every problem named with its monitor and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizbot.errors import InputError
from schedules.config import (
    MonitorSpec,
    cron_trigger,
    default_schedules_file,
    find_monitor,
    load_monitors,
)

FULL = """
[[monitor]]
name = "nightly"
models = ["openai/gpt-4o-mini", "baseline/always-true"]
kb = "clinical-core"
relations = ["has_symptom", "prevents"]
points = 25
anchor_points = 6
cron = "0 2 * * *"
timezone = "Europe/London"
shots = 5
idk = false
rephrase = "openai/gpt-4o-mini"
webhook = "https://hooks.example.org/q"
alpha = 0.05
window = 10
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "monitors.toml"
    path.write_text(text)
    return path


def test_every_documented_key_is_read(tmp_path: Path) -> None:
    (spec,) = load_monitors(_write(tmp_path, FULL))
    assert spec == MonitorSpec(
        name="nightly",
        models=("openai/gpt-4o-mini", "baseline/always-true"),
        cron="0 2 * * *",
        kb="clinical-core",
        relations=("has_symptom", "prevents"),
        points=25,
        anchor_points=6,
        timezone="Europe/London",
        shots=5,
        idk=False,
        rephrase="openai/gpt-4o-mini",
        webhook="https://hooks.example.org/q",
        alpha=0.05,
        window=10,
    )
    assert spec.statements_per_night == 400


def test_the_shipped_file_declares_a_monitor_that_needs_no_key() -> None:
    specs = load_monitors(default_schedules_file())
    assert [s.name for s in specs] == ["baselines"]
    assert all(m.startswith("baseline/") for m in specs[0].models)
    assert find_monitor(specs, "baselines") is specs[0]
    with pytest.raises(InputError, match="no monitor named 'nope'") as info:
        find_monitor(specs, "nope")
    assert info.value.hint == "monitors: baselines"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("points = 25", "points = 0"), "monitor 'nightly', key 'points': must be a whole number"),
        (("anchor_points = 6", "anchor_points = 30"), "key 'anchor_points': 30 is more than"),
        (('cron = "0 2 * * *"', 'cron = "0 2 * *"'), "key 'cron': must have five fields"),
        (('cron = "0 2 * * *"', 'cron = "0 25 * * *"'), "key 'cron': not a valid cron"),
        (('"Europe/London"', '"Mars/Olympus"'), "key 'timezone': unknown time zone"),
        (('"https://hooks.example.org/q"', '"hooks.example.org"'), "key 'webhook': must be an"),
        (("idk = false", 'idk = "no"'), "key 'idk': must be true or false"),
        (("alpha = 0.05", "alpha = 5"), "key 'alpha': must be a number between 0 and 1"),
        (("window = 10", "windows = 10"), "key 'windows': unknown key"),
        (('models = ["openai/gpt-4o-mini", "baseline/always-true"]', "models = []"), "'models'"),
        (('"baseline/always-true"]', '"openai/gpt-4o-mini"]'), "a model is listed twice"),
    ],
)
def test_a_bad_value_names_the_file_monitor_and_key(
    tmp_path: Path, edit: tuple[str, str], expected: str
) -> None:
    assert edit[0] in FULL
    path = _write(tmp_path, FULL.replace(edit[0], edit[1]))
    with pytest.raises(InputError) as info:
        load_monitors(path)
    assert str(path) in info.value.message and expected in info.value.message


def test_all_problems_are_reported_at_once_and_unnamed_monitors_by_position(
    tmp_path: Path,
) -> None:
    text = FULL + '\n[[monitor]]\nmodels = ["baseline/random"]\ncron = "bad"\n'
    text += '\n[[monitor]]\nname = "nightly"\nmodels = ["baseline/random"]\ncron = "0 3 * * *"\n'
    with pytest.raises(InputError) as info:
        load_monitors(_write(tmp_path, text))
    message = info.value.message
    assert "monitor #2, key 'name': required" in message
    assert "monitor #2, key 'cron'" in message
    assert "monitor 'nightly', key 'name': another monitor has the same name" in message


def test_broken_toml_and_missing_files_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"not valid TOML .*line 2"):
        load_monitors(_write(tmp_path, '[[monitor]]\nname = "x\n'))
    with pytest.raises(InputError, match="no such schedules file"):
        load_monitors(tmp_path / "absent.toml")
    with pytest.raises(InputError, match="unknown table or key"):
        load_monitors(_write(tmp_path, '[monitors]\nname = "x"\n'))


@pytest.mark.parametrize(
    ("weekday_field", "expected"),
    [
        ("1", {0}),  # crontab: 1 is Monday (APScheduler 3's from_crontab would say Tuesday)
        ("0", {6}),
        ("7", {6}),
        ("1-5", {0, 1, 2, 3, 4}),
        ("*/2", {6, 1, 3, 5}),  # crontab days 0, 2, 4, 6: Sunday, Tuesday, Thursday, Saturday
        ("mon,fri", {0, 4}),
        ("*", set(range(7))),
    ],
)
def test_weekdays_follow_crontab_numbering(weekday_field: str, expected: set[int]) -> None:
    from datetime import UTC, datetime, timedelta

    trigger = cron_trigger(f"0 2 * * {weekday_field}", "UTC")
    fire, seen = None, set()
    now = datetime(2026, 3, 1, tzinfo=UTC)
    for _ in range(14):
        fire = trigger.get_next_fire_time(fire, fire + timedelta(seconds=1) if fire else now)
        assert fire is not None
        seen.add(fire.weekday())
    assert seen == expected
