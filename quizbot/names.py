"""Names people give things (knowledge bases, prototype sets, assignments, cohorts, runs,
reviewers): one rule, checked in Python so every database backend refuses the same names.

A name is shown in HTML and Markdown, used in messages and file names and stored in columns
of limited width, so it must be short, printable, one line, free of markup and of path parts.
"""

from __future__ import annotations

import unicodedata

from quizbot.errors import InputError

__all__ = ["MAX_NAME", "check_name", "check_text"]

MAX_NAME = 100
_MARKUP = set('<>`"')
_PATH = set("/\\")


def _bad_character(text: str) -> str | None:
    """The first control, format or separator character in ``text`` (not a plain space)."""
    for char in text:
        if char == " ":
            continue
        if unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}:
            return char
    return None


def check_text(text: str, *, field: str, path: str | None = None, line: int | None = None) -> str:
    """``text`` unchanged if it holds no NUL byte or other control character; else an
    :class:`InputError` naming the field (and the file and line when given)."""
    bad = _bad_character(text.replace("\n", " ").replace("\t", " "))
    if bad is not None:
        what = "a NUL byte" if bad == "\x00" else f"the control character U+{ord(bad):04X}"
        raise InputError(f"contains {what}", path=path, line=line, field=field)
    return text


def check_name(name: object, *, field: str = "name", max_length: int = MAX_NAME) -> str:
    """``name`` stripped, if it is a valid name; else an :class:`InputError` saying why.

    Valid: 1 to ``max_length`` characters on one line, no control characters, no markup
    characters (``< > ` "``), no path separators and not ``.`` or ``..``.
    """
    if not isinstance(name, str) or not name.strip():
        raise InputError("is empty", field=field)
    name = name.strip()
    if len(name) > max_length:
        raise InputError(
            f"is {len(name)} characters long; at most {max_length} are allowed", field=field
        )
    bad = _bad_character(name)
    if bad is not None:
        what = "a NUL byte" if bad == "\x00" else f"the control character U+{ord(bad):04X}"
        raise InputError(f"contains {what}; a name is one line of text", field=field)
    if any(c in _MARKUP for c in name):
        raise InputError('must not contain < > ` or "', field=field)
    if any(c in _PATH for c in name) or name in {".", ".."}:
        raise InputError("must not contain / or \\ or be . or ..", field=field)
    return name
