"""The one rendering module: escaping, figures and error messages every tab shows."""

from __future__ import annotations

import logging

import pytest

from quizbot.analysis.metrics import Proportion
from quizbot.errors import InputError, QuizbotError
from quizbot.ui.render import (
    error_markdown,
    format_estimate,
    format_proportion,
    html_text,
    md_escape,
    user_message,
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("[click](javascript:alert(1))", r"\[click\](javascript:alert(1))"),
        ("<script>alert(1)</script>", r"\<script\>alert(1)\</script\>"),
        ("*bold* _it_ `code` ~strike~", r"\*bold\* \_it\_ \`code\` \~strike\~"),
        ("a | b", r"a \| b"),
        ("# heading", r"\# heading"),
        ("$x^2$ & more", r"\$x^2\$ \& more"),
        ("back\\slash", "back\\\\slash"),
        ("plain text, 5-10%.", "plain text, 5-10%."),
    ],
)
def test_md_escape_leaves_no_markup(text: str, shown: str) -> None:
    assert md_escape(text) == shown


def test_html_text_escapes_markup_and_template_characters() -> None:
    assert (
        html_text("<b>'x'</b> ${y} & z")
        == "&lt;b&gt;&#x27;x&#x27;&lt;/b&gt; &#36;&#123;y&#125; &amp; z"
    )


def test_figures() -> None:
    assert format_estimate(0.75, [0.40926, 0.92849]) == "0.750 [0.409, 0.928]"
    assert format_estimate(0.5, None) == "0.500"
    assert format_estimate(0.5, [0.1, None]) == "0.500"
    assert format_estimate(None, [0.1, 0.2]) == "-"
    assert format_estimate(float("nan"), [0.1, 0.2]) == "-"
    assert format_proportion(Proportion(2, 6, 2 / 6, 0.0968, 0.7)) == "2/6 (33%; 95% CI 10%–70%)"
    assert format_proportion(Proportion(0, 0, None, None, None)) == "no answers"


def test_a_user_error_shows_its_message_and_fix_escaped() -> None:
    shown = error_markdown(InputError("bad *file*", hint="use a <csv>"), "Could not import.")
    assert shown == "**Could not import.** bad \\*file\\*  \n**Fix:** use a \\<csv\\>"


def test_an_unexpected_error_is_logged_never_shown(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="quizbot.ui"):
        shown = error_markdown(RuntimeError("token sk-secret-0123456789 in /srv/internals.py"))
    assert "sk-secret" not in shown and "internals" not in shown
    assert "RuntimeError" in shown and "logged" in shown
    assert any(r.exc_info for r in caplog.records)


def test_a_user_error_quoting_a_key_is_redacted() -> None:
    error = QuizbotError("provider said: Incorrect API key sk-proj-abcdefghijklmnop")
    assert "abcdefghijklmnop" not in user_message(error)
    assert "abcdefghijklmnop" not in error_markdown(error)
