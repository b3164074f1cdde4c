"""The error tree's messages."""

from __future__ import annotations

from quizbot.errors import ConfigError, InputError, QuizbotError


def test_input_error_names_file_line_and_field() -> None:
    err = InputError("not a number", path="kb.csv", line=12, field="frequency", hint="use 0..1")
    assert str(err) == "kb.csv, line 12, field 'frequency': not a number\n  fix: use 0..1"
    assert (err.path, err.line, err.field) == ("kb.csv", 12, "frequency")
    assert isinstance(err, QuizbotError)


def test_messages_without_location_or_hint_are_plain() -> None:
    assert str(InputError("empty file")) == "empty file"
    assert str(QuizbotError("x")) == "x"


def test_exit_codes_follow_sysexits() -> None:
    assert ConfigError("x").exit_code == 78
    assert InputError("x").exit_code == 65
    assert QuizbotError("x").exit_code == 1


def test_redact_removes_keys_tokens_url_passwords_and_secret_env_values() -> None:
    from quizbot.errors import REDACTED, redact

    env = {"TEAM_OPENAI_KEY": "plain-looking-secret-value", "HOME": "/root", "SHORT_KEY": "abc"}
    text = (
        "401 Incorrect API key provided: sk-proj-abcdefghijklmnop. Authorization: Bearer tok123456"
        " url=postgresql://quiz:hunter2pass@db:5432/q key=plain-looking-secret-value /root abc"
    )
    out = redact(text, environ=env)
    for secret in ("sk-proj-abcdefghijklmnop", "tok123456", "hunter2pass", "plain-looking-secret"):
        assert secret not in out
    assert out.count(REDACTED) >= 4
    # What is not a secret stays readable: the message, the user name, non-secret variables.
    assert "Incorrect API key provided" in out and "quiz:" in out and "/root abc" in out
    assert redact("model not found (HTTP 404)", environ={}) == "model not found (HTTP 404)"
    assert "s3cr3t-value" not in redact("echo s3cr3t-value", ["s3cr3t-value"], environ={})


def test_a_refused_connection_that_litellm_calls_a_500_is_a_connection_error() -> None:
    from litellm import exceptions as llm_errors

    from quizbot.providers.litellm_provider import _classify

    wrapped = llm_errors.InternalServerError(
        "OpenAIException - Connection error.", llm_provider="openai", model="m"
    )
    error = _classify(wrapped)
    assert (error.kind, error.retryable) == ("connection", True)
    auth = _classify(
        llm_errors.AuthenticationError("bad key sk-abcdefghijkl", llm_provider="openai", model="m"),
        ("sk-abcdefghijkl",),
    )
    assert (auth.kind, auth.retryable) == ("auth", False)
    assert "sk-abcdefghijkl" not in auth.message
    server = _classify(
        llm_errors.InternalServerError("upstream overloaded", llm_provider="openai", model="m")
    )
    assert (server.kind, server.retryable) == ("server", True)
