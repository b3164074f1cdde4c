"""A monitor's ``prompt``: "sdak" only where the SDAK question applies, every problem named with
its file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizbot.errors import InputError
from schedules.config import MonitorSpec, load_monitors

HEAD = """# monitors
[[monitor]]
name = "first"
models = ["baseline/random"]
cron = "0 2 * * *"

[[monitor]]
name = "sdak"
models = ["baseline/random"]
cron = "0 3 * * *"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "monitors.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _line_of(text: str, needle: str) -> int:
    """The 1-based line of the last line of ``text`` starting with ``needle``."""
    lines = text.splitlines()
    return max(i for i, line in enumerate(lines, start=1) if line.startswith(needle))


def test_sdak_is_read_and_turns_idk_off_unless_told(tmp_path: Path) -> None:
    first, sdak = load_monitors(_write(tmp_path, HEAD + 'prompt = "sdak"\npoints = 8\n'))
    assert first.prompt == "standard" and first.idk is True
    assert sdak.prompt == "sdak" and sdak.idk is False and sdak.shots == 0
    assert sdak.as_json()["prompt"] == "sdak"
    (plain,) = load_monitors(
        _write(tmp_path, HEAD.split("\n\n", maxsplit=1)[0] + '\nprompt = "standard"\n')
    )
    assert plain == MonitorSpec(
        name="first", models=("baseline/random",), cron="0 2 * * *", prompt="standard"
    )


@pytest.mark.parametrize(
    ("extra", "key", "expected"),
    [
        ('prompt = "sdk"', "prompt", "must be one of standard, sdak"),
        ("prompt = 3", "prompt", "must be a non-empty string"),
        ('prompt = "sdak"\nformat = "recall"', "prompt", 'use it with format = "statements"'),
        ('prompt = "sdak"\nshots = 3', "shots", 'must be 0 with prompt = "sdak"'),
        ('prompt = "sdak"\nidk = true', "idk", 'must be false with prompt = "sdak"'),
    ],
)
def test_a_wrong_prompt_names_the_file_line_and_key(
    tmp_path: Path, extra: str, key: str, expected: str
) -> None:
    text = HEAD + extra + "\n"
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_monitors(path)
    line = _line_of(text, f"{key} =")
    message = info.value.message
    assert str(path) in message
    assert f"monitor 'sdak', key '{key}': " in message and expected in message
    assert f"(line {line})" in message
    assert (info.value.line, info.value.field) == (line, key)


def test_other_keys_get_their_line_too_and_problems_are_all_reported(tmp_path: Path) -> None:
    text = HEAD.replace('cron = "0 2 * * *"', 'cron = "0 25 * * *"') + 'prompt = "sdk"\n'
    with pytest.raises(InputError) as info:
        load_monitors(_write(tmp_path, text))
    message = info.value.message
    cron_line = text.splitlines().index('cron = "0 25 * * *"') + 1
    assert "monitor 'first', key 'cron': not a valid cron" in message
    assert f"(line {cron_line})" in message
    assert f"key 'prompt': must be one of standard, sdak (line {_line_of(text, 'prompt')})" in (
        message
    )
    assert info.value.line is None  # two problems: each names its own line in the message


def test_a_missing_key_points_at_its_monitor_table(tmp_path: Path) -> None:
    text = HEAD.replace('models = ["baseline/random"]\ncron = "0 3 * * *"\n', "")
    with pytest.raises(InputError) as info:
        load_monitors(_write(tmp_path, text))
    header = [i for i, line in enumerate(text.splitlines(), 1) if line == "[[monitor]]"][1]
    assert "monitor 'sdak', key 'models': a non-empty list" in info.value.message
    assert f"(line {header})" in info.value.message
