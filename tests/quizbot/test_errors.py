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
