"""The shape checks of the rephrasing validator: one plain sentence of about the original's length.

:func:`clean_candidate` strips a leading label ("Rephrased:") and one pair of wrapping quotes;
:func:`check_shape`, :func:`check_size` and :func:`check_sentences` reject an empty text, more
than one line, an instruction echo, the original unchanged, a length outside 0.4x to 2.5x, a
question or more than one sentence.
"""

from __future__ import annotations

import re

from quizbot.generate.rephrase.lexicon import (
    ABBREVIATIONS,
)
from quizbot.generate.rephrase.reading import (
    MASK,
    Context,
    Reading,
    Verdict,
    reject,
)

__all__ = [
    "MAX_LENGTH_RATIO",
    "MIN_LENGTH_RATIO",
    "check_sentences",
    "check_shape",
    "check_size",
    "clean_candidate",
]

MIN_LENGTH_RATIO = 0.4
MAX_LENGTH_RATIO = 2.5


_LABEL = re.compile(
    r"^\s*(?:rephrased|rewritten|rewrite|reworded|restated|paraphrased?|answer|output)"
    r"(?:\s+(?:statement|sentence|version|text))?\s*:\s*",
    re.IGNORECASE,
)


_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "`": "`"}


_ECHO_START = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|absolutely|here(?:'s|’s|\s+is|\s+are)|as an ai"
    r"|i\s+(?:cannot|can't|will|would|am|have))\b",
    re.IGNORECASE,
)


_ECHO_ANYWHERE = re.compile(
    r"\b(?:statement|rewritten|rephrased|paraphrased?|rewrite)\s*:", re.IGNORECASE
)


_SENTENCE_END = re.compile(r"(\S*?)([.!?]+)[\"'”’)\]]*\s+(?=\S)")


def _loose_quote(inner: str, quotes: set[str]) -> bool:
    """True if a quote character in ``inner`` is not an apostrophe between two letters."""
    for i, char in enumerate(inner):
        if char in quotes and not (
            0 < i < len(inner) - 1 and inner[i - 1].isalnum() and inner[i + 1].isalnum()
        ):
            return True
    return False


def _strip_quotes(text: str) -> str:
    if len(text) < 2 or text[0] not in _QUOTES:
        return text
    close = _QUOTES[text[0]]
    body, trail = text, ""
    if body[-1] in ".!?" and body[-2] == close:
        body, trail = body[:-1], body[-1]
    if len(body) < 2 or body[-1] != close:
        return text
    inner = body[1:-1]
    if _loose_quote(inner, {text[0], close}):
        return text  # quotes inside: not a single pair around everything
    inner = inner.strip()
    if trail and not inner.endswith((".", "!", "?")):
        inner += trail
    return inner


def clean_candidate(candidate: str) -> str:
    """Strip whitespace, one leading label ("Rephrased:") and one pair of wrapping quotes."""
    text = candidate.strip()
    text = _LABEL.sub("", text, count=1).strip()
    text = _strip_quotes(text)
    return re.sub(r"[ \t]+", " ", text).strip()


def check_shape(orig: Reading, cand: Reading, _c: Context) -> Verdict | None:
    """Reject an empty text, more than one line or a reply instead of a statement."""
    text = cand.text
    if not text:
        return reject("empty", "no text")
    if any(char in cand.raw for char in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"):
        return reject("newline", "more than one line")
    if _ECHO_START.match(text) or _ECHO_ANYWHERE.search(text):
        return reject("instruction echo", f"looks like a reply, not a statement: {text[:40]!r}")
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] == _QUOTES[text[0]]:
        return reject("instruction echo", "the text is wrapped in quotes")
    return None


def check_size(orig: Reading, cand: Reading, _c: Context) -> Verdict | None:
    """Reject the original unchanged, or a text far shorter or longer than it."""
    # Case counts: a rewording that only changes capitals is a (faithful) rewording.
    if cand.text.rstrip(".!") == orig.text.rstrip(".!"):
        return reject("unchanged", "same text as the original")
    ratio = len(cand.text) / max(1, len(orig.text))
    if not MIN_LENGTH_RATIO <= ratio <= MAX_LENGTH_RATIO:
        return reject("length changed", f"{ratio:.2f}x the original's length")
    return None


def check_sentences(_o: Reading, cand: Reading, _c: Context) -> Verdict | None:
    """Reject a question or more than one sentence (initials and abbreviations aside)."""
    if "?" in cand.masked:
        return reject("question", "the candidate asks a question")
    for match in _SENTENCE_END.finditer(cand.masked):
        word, punct = match.group(1).lower(), match.group(2)
        if (
            "!" not in punct
            and MASK not in word
            and ((len(word) == 1 and word.isalpha()) or word.rstrip(".") in ABBREVIATIONS)
        ):
            continue  # an initial ("E. coli") or an abbreviation ("e.g.")
        return reject("multiple sentences", "more than one sentence")
    return None
