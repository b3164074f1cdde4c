"""Settings: defaults, environment names, and errors that name the setting and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizbot.config import Settings, default_home, load_settings
from quizbot.errors import ConfigError


def test_defaults_put_a_sqlite_file_in_the_home(tmp_path: Path) -> None:
    settings = load_settings()
    assert settings.home == tmp_path / "home"
    assert settings.effective_database_url == f"sqlite:///{tmp_path / 'home' / 'quizbot.db'}"
    assert (settings.host, settings.port, settings.sqlite_synchronous) == (
        "127.0.0.1",
        7860,
        "FULL",
    )
    assert settings.models == []


def test_home_defaults_to_xdg_data_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_home() == tmp_path / "xdg" / "quizbot"
    monkeypatch.delenv("QUIZBOT_HOME")
    assert load_settings().home == tmp_path / "xdg" / "quizbot"


@pytest.mark.parametrize("name", ["DATABASE_URL", "QUIZBOT_DATABASE_URL"])
def test_database_url_is_read_from_either_name(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "postgres://u:p@localhost/quiz")
    assert load_settings().effective_database_url == "postgresql+psycopg://u:p@localhost/quiz"


def test_models_are_comma_separated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_MODELS", " openai/gpt-4o-mini, baseline/always-true ,")
    assert load_settings().models == ["openai/gpt-4o-mini", "baseline/always-true"]


def test_practice_sessions_close_after_twelve_idle_hours_unless_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert load_settings().practice_idle_hours == 12
    monkeypatch.setenv("QUIZBOT_PRACTICE_IDLE_HOURS", "1.5")
    assert load_settings().practice_idle_hours == 1.5


def test_case_of_enumerated_values_does_not_matter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", "debug")
    monkeypatch.setenv("QUIZBOT_SQLITE_SYNCHRONOUS", "normal")
    settings = load_settings()
    assert (settings.log_level, settings.sqlite_synchronous) == ("DEBUG", "NORMAL")
    assert settings.engine_options().sqlite_synchronous == "NORMAL"


def test_the_database_waits_come_from_their_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().engine_options().lock_timeout_ms == 30_000
    monkeypatch.setenv("QUIZBOT_PG_LOCK_TIMEOUT_MS", "5000")
    monkeypatch.setenv("QUIZBOT_SQLITE_BUSY_TIMEOUT_MS", "7000")
    options = load_settings().engine_options()
    assert (options.lock_timeout_ms, options.busy_timeout_ms) == (5000, 7000)


@pytest.mark.parametrize(
    ("env", "value", "named", "fix"),
    [
        ("QUIZBOT_PORT", "abc", "QUIZBOT_PORT='abc'", "between 1 and 65535"),
        ("QUIZBOT_PORT", "70000", "QUIZBOT_PORT='70000'", "between 1 and 65535"),
        ("DATABASE_URL", "mysql://u@h/d", "DATABASE_URL='mysql://u@h/d'", "sqlite:///"),
        ("DATABASE_URL", "sqlite://", "DATABASE_URL='sqlite://'", "sqlite:///"),
        ("QUIZBOT_LOG_LEVEL", "loud", "QUIZBOT_LOG_LEVEL='LOUD'", "DEBUG, INFO"),
        ("QUIZBOT_MODELS", "a b,c", "QUIZBOT_MODELS", "comma-separated"),
        ("QUIZBOT_MODELS", "a,a", "listed twice", "comma-separated"),
        ("QUIZBOT_SCHEDULES_FILE", "/nope/monitors.toml", "no such file", "existing TOML"),
        ("QUIZBOT_SQLITE_SYNCHRONOUS", "OFF", "QUIZBOT_SQLITE_SYNCHRONOUS", "FULL"),
        ("QUIZBOT_PG_LOCK_TIMEOUT_MS", "10", "QUIZBOT_PG_LOCK_TIMEOUT_MS", "between 100 and"),
        ("QUIZBOT_HOME", "  ", "QUIZBOT_HOME", "writable directory"),
        ("QUIZBOT_DEBUG", "perhaps", "QUIZBOT_DEBUG", "1 or 0"),
        ("QUIZBOT_PRACTICE_IDLE_HOURS", "0", "QUIZBOT_PRACTICE_IDLE_HOURS='0'", "number of hours"),
        ("QUIZBOT_PRACTICE_IDLE_HOURS", "soon", "QUIZBOT_PRACTICE_IDLE_HOURS", "e.g. 12"),
    ],
)
def test_bad_values_name_the_setting_and_the_fix(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, named: str, fix: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert named in info.value.message
    assert info.value.hint is not None and fix in info.value.hint


def test_empty_variables_mean_unset(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("QUIZBOT_HOME", "QUIZBOT_PORT", "DATABASE_URL", "QUIZBOT_ADMIN_PASSWORD"):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    settings = load_settings()
    assert settings.home == tmp_path / "xdg" / "quizbot"
    assert settings.port == 7860 and settings.admin_password is None
    assert settings.effective_database_url.startswith("sqlite:///")


def test_an_explicitly_empty_admin_password_is_refused() -> None:
    with pytest.raises(ConfigError, match="QUIZBOT_ADMIN_PASSWORD"):
        load_settings(admin_password="")


def test_all_bad_settings_are_reported_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_PORT", "0")
    monkeypatch.setenv("QUIZBOT_DB_POOL_SIZE", "many")
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert "QUIZBOT_PORT" in info.value.message and "QUIZBOT_DB_POOL_SIZE" in info.value.message


def test_admin_password_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_ADMIN_PASSWORD", "hunter2-hunter2")
    settings = load_settings()
    assert "hunter2-hunter2" not in repr(settings)
    assert settings.admin_password is not None
    assert settings.admin_password.get_secret_value() == "hunter2-hunter2"


def test_settings_are_frozen() -> None:
    settings = Settings()
    with pytest.raises(Exception, match="frozen"):
        settings.port = 1  # type: ignore[misc]


def test_an_unwritable_home_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    settings = load_settings(home=blocker / "sub")
    with pytest.raises(ConfigError, match="QUIZBOT_HOME"):
        settings.ensure_home()


def test_per_model_settings_come_from_json_with_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "QUIZBOT_MODEL_SETTINGS",
        '{"openai/gpt-4o-mini": {"api_key_env": "WORK_KEY", "max_concurrency": 16},'
        ' "openai/*": {"timeout": 30}, "openai/gpt-4o*": {"timeout": 90, "style": "chat"},'
        ' "ollama/*": {"api_base": "http://gpu-box:11434"}}',
    )
    settings = load_settings()
    exact = settings.model_options("openai/gpt-4o-mini")
    assert (exact.api_key_env, exact.max_concurrency, exact.timeout) == ("WORK_KEY", 16, None)
    assert settings.model_options("openai/gpt-4o").timeout == 90  # the longer pattern wins
    assert settings.model_options("openai/o3").timeout == 30
    assert settings.model_options("ollama/llama3").api_base == "http://gpu-box:11434"
    assert settings.model_options("anthropic/claude").model_dump(exclude_none=True) == {}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("{not json", "QUIZBOT_MODEL_SETTINGS='{not json': not valid JSON"),
        ('["openai/x"]', "must be a JSON object"),
        ('{"openai/x": {"timeout": 0}}', 'QUIZBOT_MODEL_SETTINGS["openai/x"].timeout=0:'),
        ('{"openai/x": {"api_key": "sk-1"}}', 'QUIZBOT_MODEL_SETTINGS["openai/x"].api_key'),
        ('{"openai/x": {"api_key_env": "has space"}}', '["openai/x"].api_key_env'),
        ('{"openai/x": {"api_base": "gpu-box:8000"}}', '["openai/x"].api_base'),
    ],
)
def test_bad_model_settings_name_the_entry_and_key(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: str
) -> None:
    monkeypatch.setenv("QUIZBOT_MODEL_SETTINGS", value)
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert expected in info.value.message
    assert info.value.hint and "api_key_env" in info.value.hint
