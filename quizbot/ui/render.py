"""One home for how the app turns text, numbers and errors into what a page shows.

Every tab escapes user and knowledge-base text with :func:`md_escape` before it reaches Markdown
(a chat bubble, a results table, a notice) and with :func:`html_text` before it reaches HTML (the
charts); shows figures with :func:`format_estimate` or :func:`format_proportion`; and turns a
failed action into a message with :func:`error_markdown`, which never shows a traceback or the
text of an unexpected exception (it may hold internals or secrets) and logs that instead.
"""

from __future__ import annotations

import html
import logging
import math
import re
from collections.abc import Sequence

from quizbot.analysis.metrics import Proportion
from quizbot.errors import QuizbotError, redact

__all__ = [
    "error_markdown",
    "format_estimate",
    "format_mean_sd",
    "format_percent",
    "format_proportion",
    "html_text",
    "md_escape",
    "md_table",
    "user_message",
]

log = logging.getLogger("quizbot.ui")

# Every character Markdown (GitHub flavour), the chat's LaTeX ($) or inline HTML (<, >, &) would
# interpret; CommonMark treats a backslash before any ASCII punctuation as that character.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]#|~$<>&])")


def md_escape(text: str) -> str:
    """``text`` shown literally in Markdown: no emphasis, links, code, tables, LaTeX or HTML."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def html_text(text: str) -> str:
    """``text`` for HTML, also escaping what Gradio's HTML templates would interpret."""
    return html.escape(text).replace("$", "&#36;").replace("{", "&#123;").replace("}", "&#125;")


def format_percent(value: float | None) -> str:
    """``75%``; ``–`` for no value."""
    return "–" if value is None else f"{100 * value:.0f}%"


def format_estimate(value: float | None, interval: Sequence[float | None] | None) -> str:
    """``0.750 [0.409, 0.929]``; ``-`` when there is no value."""
    if value is None or not math.isfinite(value):
        return "-"
    if not interval or len(interval) != 2:
        return f"{value:.3f}"
    low, high = interval
    if low is None or high is None:
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def format_mean_sd(mean: float | None, sd: float | None) -> str:
    """``0.500 ± 0.100``; the mean alone without an SD; ``-`` without a mean."""
    if mean is None:
        return "-"
    return f"{mean:.3f}" if sd is None else f"{mean:.3f} ± {sd:.3f}"


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A Markdown table's lines: the first column left-aligned, the others right-aligned (for
    figures). Every header and cell is escaped with :func:`md_escape`, so names from a
    knowledge base or an imported file are shown literally and cannot break the table."""

    def line(cells: Sequence[object]) -> str:
        return "| " + " | ".join(md_escape(" ".join(str(c).split())) for c in cells) + " |"

    align = "|" + "|".join([":---", *(["---:"] * (len(headers) - 1))]) + "|"
    return [line(headers), align, *(line(row) for row in rows)]


def format_proportion(p: Proportion) -> str:
    """ "k/n (value%; 95% CI low–high%)", or "no answers" when n is 0."""
    if p.n == 0 or p.value is None:
        return "no answers"
    low, high = format_percent(p.low), format_percent(p.high)
    return f"{p.k}/{p.n} ({format_percent(p.value)}; 95% CI {low}–{high})"


def user_message(exc: BaseException) -> str:
    """The plain text for a failed action: the error and its fix, never a traceback.

    Errors quizbot raised on purpose carry a user-safe message (redacted again here, in case it
    quotes a provider); anything else is a bug and is shown only as an apology.
    """
    if isinstance(exc, QuizbotError):
        return redact(str(exc))
    return f"Something went wrong ({type(exc).__name__}). The error was logged."


def error_markdown(exc: BaseException, title: str = "Could not do that.") -> str:
    """A failed action as Markdown: ``**title** message`` and the fix on its own line.

    Unexpected errors (not :class:`~quizbot.errors.QuizbotError`) are logged with their
    traceback here, once, so handlers need not.
    """
    if not isinstance(exc, QuizbotError):
        log.error("unexpected error in the web app", exc_info=exc)
    text, _, fix = user_message(exc).partition("\n  fix: ")
    shown = f"**{title}** {md_escape(text)}"
    return f"{shown}  \n**Fix:** {md_escape(fix)}" if fix else shown
