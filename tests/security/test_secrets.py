"""Secrets never reach a message, a log line or a table: redaction, settings, storage, webhooks."""

from __future__ import annotations

import io
import json
import logging
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

import quizbot.errors as errors
from quizbot.domain import Outcome, RunStatus
from quizbot.errors import REDACTED, ConfigError, redact, register_secret
from storage import Database
from storage.repo import get_run, list_responses, record_responses, update_run
from tests.helpers.factories import answer, make_run

SECRET = "plain-team-credential-42"  # no known shape, so only knowing it can remove it


@pytest.fixture(autouse=True)
def _fresh_known_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(errors, "_KNOWN", set())


def test_redact_covers_query_parameters_headers_and_urls_with_awkward_passwords() -> None:
    text = (
        "GET https://api.example.invalid/v1?model=m&api_key=abc123def456&key=zz9988776655 "
        "x-api-key: hdr-1234567890 postgresql+psycopg://quiz:p@ss:w0rd@db.example:5432/q "
        "redis://:onlypass1234@cache access_token=tok_abcdef123"
    )
    out = redact(text, environ={})
    for secret in ("abc123def456", "zz9988776655", "hdr-1234567890", "p@ss:w0rd", "ss:w0rd",
                   "onlypass1234", "tok_abcdef123"):  # fmt: skip
        assert secret not in out, secret
    assert "db.example:5432/q" in out and "model=m" in out and "quiz:" in out


def test_registered_secrets_are_removed_plain_url_encoded_and_json_escaped() -> None:
    weird = 'we/ird "pass" word+1'
    assert weird in redact(f"echo {weird}", environ={})
    register_secret(weird)
    register_secret("short")  # too short to be told from ordinary words: ignored
    for shown in (weird, "we%2Fird%20%22pass%22%20word%2B1", json.dumps(weird)[1:-1]):
        assert redact(f"echo {shown}!", environ={}) == f"echo {REDACTED}!"
    assert redact("a short word", environ={}) == "a short word"


def test_every_user_error_is_redacted_when_made() -> None:
    register_secret(SECRET)
    exc = ConfigError(f"endpoint said: {SECRET} is wrong")
    assert SECRET not in str(exc) and SECRET not in exc.message


def test_a_key_put_in_model_settings_is_never_echoed_in_the_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quizbot.config import load_settings

    monkeypatch.setenv(
        "QUIZBOT_MODEL_SETTINGS", json.dumps({"openai/m": {"auth_value": SECRET, "timeout": 5}})
    )
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "auth_value" in str(caught.value)  # it names the bad option...
    assert SECRET not in str(caught.value)  # ...never its value


def test_a_database_url_password_is_never_in_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quizbot.config import load_settings

    monkeypatch.setenv("DATABASE_URL", f"mysql://quiz:{SECRET}@db.example/q")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "DATABASE_URL" in str(caught.value) and SECRET not in str(caught.value)


def test_settings_register_the_keys_they_name_whatever_the_variable_is_called(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quizbot.config import load_settings

    monkeypatch.setenv("TEAM_CRED", SECRET)
    monkeypatch.setenv("QUIZBOT_MODEL_SETTINGS", json.dumps({"x/*": {"api_key_env": "TEAM_CRED"}}))
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://quiz:db-pass-0123@db.example/q")
    load_settings()
    assert redact(f"{SECRET} and db-pass-0123 in the middle", environ={}) == (
        f"{REDACTED} and {REDACTED} in the middle"
    )


def test_log_lines_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    from quizbot.logs import RedactingFormatter

    register_secret(SECRET)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter("%(message)s"))
    logger = logging.getLogger("quizbot.test.secrets")
    logger.addHandler(handler)
    try:
        logger.warning("provider said %s; url %s", SECRET, "https://u:hunter22@h/x")
        try:
            raise RuntimeError(f"failed with {SECRET}")
        except RuntimeError:
            logger.exception("boom")
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert "provider said" in written and "failed with" in written  # the traceback is there
    assert SECRET not in written and "hunter22" not in written


def test_a_webhook_token_is_registered_and_never_stored_or_listed(tmp_path: Path) -> None:
    from schedules.config import load_monitors

    token = "T0001/B0002/XyZsecretWebhookToken"
    path = tmp_path / "monitors.toml"
    path.write_text(
        f'[[monitor]]\nname = "nightly"\nmodels = ["baseline/always-true"]\n'
        f'cron = "0 2 * * *"\nwebhook = "https://hooks.example.invalid/services/{token}"\n'
    )
    (spec,) = load_monitors(path)
    assert spec.webhook and token in spec.webhook  # the real URL is still what gets the POST
    shown = json.dumps(spec.as_json())
    assert "hooks.example.invalid" in shown and "XyZsecret" not in shown
    assert "XyZsecret" not in redact(f"webhook {spec.webhook}: HTTP 500", environ={})


def test_storage_redacts_every_error_and_model_text_it_is_given(db: Database) -> None:
    register_secret(SECRET)
    fx = make_run(db, 2)
    echoed = f"AuthenticationError: key {SECRET} refused; Bearer abcdef123456"
    record_responses(
        db,
        [
            replace(answer(fx, fx.item_ids[0], Outcome.ERROR), raw_text=None, error_text=echoed),
            replace(answer(fx, fx.item_ids[1]), raw_text=f"True ({SECRET})"),
        ],
    )
    update_run(db, fx.run_id, status=RunStatus.FAILED, error_text=f"first error: {echoed}")
    stored = [get_run(db, fx.run_id).error_text or ""] + [
        f"{r.error_text} {r.raw_text}" for r in list_responses(db, run_id=fx.run_id)
    ]
    assert any("AuthenticationError" in s for s in stored)
    assert all(SECRET not in s and "abcdef123456" not in s for s in stored)


def test_a_failed_night_is_stored_redacted(db: Database) -> None:
    from quizbot.domain import NightStatus
    from storage.monitoring import claim_night, finish_night, night_series, upsert_monitor

    register_secret(SECRET)
    monitor = upsert_monitor(db, "nightly", {"models": ["openai/m"]})
    assert monitor.id is not None
    night = claim_night(db, monitor.id, "openai/m", date(2026, 11, 24), "test-host")
    assert night is not None
    finish_night(db, night.id, status=NightStatus.FAILED, error_text=f"key {SECRET} refused")
    (row,) = night_series(db, monitor.id)
    assert "refused" in (row.error_text or "") and SECRET not in (row.error_text or "")


def test_a_key_pasted_as_the_key_variable_name_is_refused_without_repeating_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quizbot.config import load_settings

    pasted = "abcDEF0123456789ghiJKL"  # a plausible variable name by shape, but a key
    monkeypatch.setenv("QUIZBOT_MODEL_SETTINGS", json.dumps({"openai/m": {"api_key_env": pasted}}))
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "looks like a key itself" in str(caught.value) and pasted not in str(caught.value)
    monkeypatch.setenv("QUIZBOT_MODEL_SETTINGS", json.dumps({"openai/m": {"api_key_env": "A B"}}))
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "api_key_env" in str(caught.value) and "A B" not in str(caught.value)
