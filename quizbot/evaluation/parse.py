"""Read an answer (a model's completion or what a person typed) and score it: one scorer for both.

Every function here is total: any ``str`` gives a :class:`Parsed` with a non-empty ``reason``
(at most 200 characters, the ``response.parse_reason`` column), never an exception. Only the
first 50,000 characters of an answer are read.

Normalisation
    NFKC (full-width and circled letters become plain ones), curly quotes become straight ones,
    zero-width characters are dropped, markdown emphasis (``* _ ` ~ #``) and quotes that are not
    apostrophes inside a word become spaces, "e.g."/"i.e." become "eg"/"ie". Matching is
    case-insensitive and on whole words: a keyword must not touch a letter, digit, apostrophe or
    an in-word hyphen, so "untrue" is not "true", "nothing" is not "no", "notably" is not "not",
    "yesterday" is not "yes", "non-true" is nothing.

Where the answer is
    The *answer region* is the first non-empty line plus the lines after it, up to the first line
    that starts a new demonstration (``Statement:``, ``Question:``, ``Claim:``, ``Q:``,
    ``Example``, ``Input:``, ``Context:``, ``Passage:``, ``Premise:``, ``Hypothesis:``,
    ``Problem:``), so a base model's ``True.\\n\\nStatement: ...\\nAnswer: False`` is read as
    true. The region is split into sentences (at ``.``, ``!`` or ``?`` plus space, unless the next
    word starts lower-case, which keeps "E. coli" whole) and read sentence by sentence: the first
    sentence that decides anything decides everything; later sentences are never consulted.
    Reasons name the sentence when it is not the first ("... in sentence 2").

True/false (the PretexEval / EBMQA seed keyword sets)
    * True keywords: ``true``, ``entailed``, ``correct``, ``yes``.
    * False keywords: ``false``, ``contradicted``, ``wrong``, ``no``, ``incorrect``, and
      ``untrue``.
    * A keyword directly followed by ``answer``/``option``/``choice``/``response``/``label``/
      ``letter`` is not a keyword ("The correct answer is false" is false).
    * Negated forms are matched FIRST and hide the keyword inside them: a negator (``not``,
      ``never``, ``nothing``, ``isn't``/``isnt``, ``aren't``, ``wasn't``, ``weren't``, ``ain't``,
      ``cannot``, ``can't``, ``couldn't``, ``wouldn't``, ``won't``, ``shouldn't``, ``doesn't``,
      optionally after ``is/are/was/were/be`` and optionally followed by ``be``/``seem(s)``/
      ``sound(s)``/``appear(s)``/``look(s)``, ``to be`` and one adverb such as ``entirely``,
      ``necessarily``, ``at all``) then a keyword. ``not correct``, ``not true``, ``isn't true``,
      ``is not correct``, ``not entailed`` read as false. Decision beyond the seeds: a negated
      false keyword (``not false``, ``not wrong``, ``not incorrect``, ``nothing wrong``,
      ``not contradicted``) reads as TRUE rather than being misread as false. ``yes``/``no`` are
      never negated.
    * IDK phrases (abstain): "I do not know" / "I don't know" / "I dont know" (an adverb such as
      "really" may follow "I"), "not sure", "unsure", "cannot determine" / "can't determine"
      (also "can not", "cant"), "cannot be determined", "unknown", "no idea", "I cannot say",
      "uncertain", "insufficient information", "idk". With ``allow_idk=False`` such an answer is
      still ABSTAINED (abstention is an outcome of its own), with reason
      "IDK phrase '...' although not offered".
    * In the deciding sentence the earliest match wins, an IDK phrase included ("I'm not sure it
      is true" abstains; "True, though I am not sure" is true). If the sentence holds both a true
      and a false reading, the earliest one wins only when it *leads*: nothing but filler words
      ("answer", "the statement is", "I think", "so", ...) before it, and the opposite reading is
      not offered as an alternative ("true or false", "true/false", "true, false"). Otherwise the
      answer is unparsed: "conflicting keywords 'x' and 'y'".

Multiple choice (letters A.. up to the number of options offered; generated items end with
"I do not know", imported ones may have no such option unless the prompt added it)
    1. The whole first line, after dropping "Answer:" / "The correct answer is" and trailing
       punctuation, equal to an option's text (case-insensitive; an option's trailing
       parenthesis is optional, so "Very frequent" is "Very frequent (80-99%)"), or to several
       option texts joined by "," / ";" / "and" / "&", picks those options.
    2. Otherwise, per sentence, the earliest of an option-letter list and an IDK phrase wins.
       A letter is a lone letter, optionally in brackets: "(A)", "A.", "B)", "[C]", and a list
       joins letters with "," "and" "&" "/" ";" "+" ("A and C", "A, C"). A list counts when it
       follows a cue ("answer", "option(s)", "choice", "letter", "choose", "select", "pick",
       "go with", "both", "boxed", optionally + "is/are/would be" or ":"), when it opens the
       sentence, or after "is/are/'s/be" (upper-case, ending the clause). The letters "A" and
       "I" (and lower-case "a", "i") count only when bracketed, in a list, or followed by the end
       or ``. ; : ! ?`` (so "A patient..." and "I think..." are no answers), except that an
       upper-case "A" after a cue always counts. Letters inside an option's text ("hepatitis C")
       are not letters. Letters past the options: unparsed "letter 'F' out of range". Letters
       joined by "or": unparsed (alternatives, not an answer). The "I do not know" letter (or
       text, or any IDK phrase) alone abstains; with other letters it is unparsed. When
       :func:`parse_and_score` is told IDK was not offered, the reason says so, as above.
    3. Otherwise, exactly one option's text in the sentence picks it (a shorter option text
       inside a longer matched one does not count); several: unparsed.

People (:func:`parse_human`)
    "?" abstains; for a statement t/true/y/yes read true and f/false/n/no read false; for a
    question, letters typed alone or as a list ("a", "a, c", "a c", "a and c") or run together
    ("ac", all within range and distinct); anything else goes through the model parsers above.

SDAK replies (:func:`parse_sdak`)
    The SDAK prompt asks for the word "Correct" or "Incorrect" first, then the reason. A reply
    *follows the instruction* when, after NFKC normalisation, leading white space, markdown
    marks (``* _ ` # >``), quotes and at most one label (``Answer:``, ``Verdict:``,
    ``Response:``, ``Judgement:``), its first word is ``correct`` or ``incorrect`` (any case;
    "Correct." "**Incorrect**:" "Verdict: correct -"), not directly followed by "or"/"/" and the
    other word (an alternative, not a verdict). The *reason* is the rest of the reply with
    leading punctuation and a ``Reason:``/``Because:`` label removed, white space collapsed,
    cut at 2,000 characters (empty when the reply is the verdict alone). A reply that does not
    follow the instruction has no verdict here (the run's outcome still comes from
    :func:`parse_true_false`, which reads "The claim is correct" as true) and its reason is the
    whole reply. Nothing is stored beyond the raw text: reports read replies again (extract on
    read), so a fix to this reader applies to old runs too.

Scoring (:func:`score`)
    abstained -> ABSTAINED; no answer -> UNPARSED; a statement is CORRECT iff the answer is
    "true" for a true label and "false" for a false one; a question is CORRECT iff the chosen
    letters equal the answer keys exactly (a partial or superset choice is INCORRECT) and
    ABSTAINED when only the "I do not know" letter was chosen. UNPARSED when the answer cannot
    belong to the item (a letter for a statement, "true" or a letter past the options for a
    question). Multi-answer questions also get a fractional credit (:func:`partial_credit`).
    The scorer never returns ERROR: that outcome is reserved for calls that failed,
    which the metrics leave out, while an unreadable answer counts as answered and wrong.
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, ParamSpec

from quizbot.domain import Outcome
from quizbot.items import ChoiceItem, StatementItem

__all__ = [
    "FALSE_KEYWORDS",
    "IDK_PHRASES",
    "TRUE_KEYWORDS",
    "Parsed",
    "SdakReading",
    "parse_and_score",
    "parse_choice",
    "parse_human",
    "parse_sdak",
    "parse_true_false",
    "partial_credit",
    "score",
]

logger = logging.getLogger(__name__)

TRUE_KEYWORDS: tuple[str, ...] = ("true", "entailed", "correct", "yes")
FALSE_KEYWORDS: tuple[str, ...] = ("false", "contradicted", "wrong", "no", "incorrect", "untrue")
IDK_PHRASES: tuple[str, ...] = (
    "I do not know",
    "I don't know",
    "I dont know",
    "not sure",
    "unsure",
    "cannot determine",
    "can't determine",
    "cannot be determined",
    "unknown",
    "no idea",
    "I cannot say",
    "uncertain",
    "insufficient information",
    "idk",
)

_MAX_CHARS = 50_000
_MAX_REASON = 200
_LETTERS = "ABCDEFGHIJ"

# ---------------------------------------------------------------------------------------------
# Patterns

# Whole-word edges: no word character or apostrophe next to it, and no in-word hyphen.
_L = r"(?<![\w'])(?<!\w-)"
_R = r"(?![\w'])(?!-\w)"

_NOT_A_KEYWORD_BEFORE = r"(?!\s+(?:answers?|options?|choices?|responses?|labels?|letters?)\b)"
_KEYWORD_RE = re.compile(
    _L + r"(true|entailed|correct|yes|false|contradicted|wrong|no|incorrect|untrue)" + _R
    + _NOT_A_KEYWORD_BEFORE,
    re.IGNORECASE,
)  # fmt: skip
_NEGATED_RE = re.compile(
    _L
    + r"(?:(?:is|are|was|were|be)\s+)?"
    + r"(?:not|never|nothing|isn't|isnt|aren't|wasn't|weren't|ain't|cannot|can't|couldn't"
    + r"|wouldn't|won't|shouldn't|doesn't)"
    + r"(?:\s+(?:be|seems?|sounds?|appears?|looks?))?(?:\s+to\s+be)?"
    + r"(?:\s+(?:entirely|completely|quite|fully|necessarily|really|totally|exactly|strictly"
    + r"|always|actually|wholly|factually|at\s+all))?"
    + r"\s+(true|correct|entailed|false|wrong|incorrect|untrue|contradicted)"
    + _R,
    re.IGNORECASE,
)
_IDK_RE = re.compile(
    _L
    + r"(?:i\s+(?:really\s+|honestly\s+|simply\s+|just\s+)?(?:do\s+not|don't|dont)\s+know"
    + r"|not\s+sure|unsure|(?:cannot|can't|cant|can\s+not)\s+(?:determine|be\s+determined)"
    + r"|unknown|no\s+idea|i\s+(?:cannot|can't|cant|can\s+not)\s+say|uncertain"
    + r"|insufficient\s+information|idk)"
    + _R,
    re.IGNORECASE,
)
_TRUE_SET = frozenset({"true", "entailed", "correct", "yes"})

# Words that may stand before a keyword that still "leads" its sentence.
_FILLER_WORDS = """
    a answer answers final the my our correct right best short overall response verdict label
    output result conclusion judgement judgment assessment is would be statement this that it
    it's that's this's claim sentence assertion above given i i'd i'm think believe say guess
    so therefore thus hence seems appears to definitely clearly probably likely certainly
    absolutely actually in fact well ok okay of course here am
"""
_FILLER = frozenset(_FILLER_WORDS.split())
_ALTERNATIVE_RE = re.compile(
    r"[\s,/|\\;:\-–—&+]*(?:(?:or|and|nor|vs|versus|and/or)\b[\s.,/]*)?", re.IGNORECASE
)

_MARKER_RE = re.compile(
    r"\s*(?:statement|question|claim|q|example|input|context|passage|premise|hypothesis"
    r"|problem)\s*\d*\s*[:.)]",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(r"[.!?]+\s+")
_LETTER_RE = re.compile(r"[^\W\d_]")
_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201b": "'",
        "\u02bc": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
    }
)
_INVISIBLE_RE = re.compile("[\u00ad\u200b-\u200f\u2060\ufeff]")
_MARKDOWN_RE = re.compile(r"[*_`~#]+")
_LONE_APOSTROPHE_RE = re.compile(r"(?<!\w)'|'(?!\w)")
_ABBREVIATION_RE = re.compile(r"(?<![\w.])([ei])\.([ge])\.", re.IGNORECASE)

# Choice letters.
_TOKEN_RE = re.compile(_L + r"([(\[{]?)([A-Za-z])([)\]}]?)" + _R)
_SEPARATOR_RE = re.compile(
    r"\s*(?:,\s*(?:and\s+|or\s+|&\s*)?|;\s*|/\s*|&\s*|\+\s*|\s+(?:and/or|and|or)\s+)",
    re.IGNORECASE,
)
_END_RE = re.compile(r"\s*(?:$|[.;:!?)\]}\"]|[-–—]\s)")  # strict: "I, for one" is no letter
_CLAUSE_END_RE = re.compile(r"\s*(?:$|[.,;:!?)\]}\"]|[-–—]\s)")
_STRONG_CUE_RE = re.compile(
    r"(?:\banswers?|\boptions?|\bchoices?|\bletters?|\bchoose|\bchose|\bchosen|\bselect(?:ed)?"
    r"|\bpick(?:ed)?|\bboth|\bboxed|\bgo\s+with|\bgoing\s+with)"
    r"(?:\s+(?:is|are|would\s+be|will\s+be|should\s+be))?[\s:=\-–—\"(\[{]*$",
    re.IGNORECASE,
)
_WEAK_CUE_RE = re.compile(r"(?:\bis|\bare|'s|\bbe)[\s:\"]*$", re.IGNORECASE)
_LEAD_RE = re.compile(
    r"^[\W_]*(?:(?:the|my)\s+)?(?:(?:correct|final|right|best)\s+)?(?:answers?|options?|choices?)"
    r"(?:\s+(?:is|are|would\s+be))?\s*[:=\-–—]?\s*",
    re.IGNORECASE,
)
_EDGE_CHARS = " \t\"'.,;:!?"
_OPTION_LIST_SEP_RE = re.compile(r"\s*(?:,|;|&|\band\b)\s*", re.IGNORECASE)
_PARENTHESIS_RE = re.compile(r"\s*\([^()]*\)$")

# People.
_HUMAN_TRUE = frozenset({"t", "true", "y", "yes"})
_HUMAN_FALSE = frozenset({"f", "false", "n", "no"})
_HUMAN_LIST_SEP_RE = re.compile(r"\s*(?:,|;|/|&|\+|\band\b)\s*|\s+", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------
# Result


@dataclass(frozen=True)
class Parsed:
    """What an answer was read as.

    ``answer`` is ``"true"``/``"false"`` for a statement, sorted letters joined by commas
    (``"A,C"``) for a question, or ``None`` when nothing was read or the respondent abstained;
    ``abstained`` is set for "I do not know"; ``reason`` says why, in words, for the audit log.
    """

    answer: str | None
    abstained: bool
    reason: str


_P = ParamSpec("_P")


def _total(func: Callable[_P, Parsed]) -> Callable[_P, Parsed]:
    """Turn an unexpected exception into an unparsed answer: scoring must never stop."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> Parsed:
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            logger.warning("%s failed on an answer", func.__name__, exc_info=True)
            return Parsed(None, False, f"parser error: {type(exc).__name__}")

    return wrapper


def _quote(text: str, limit: int = 40) -> str:
    words = " ".join(text.split())
    if len(words) > limit:
        words = words[: limit - 3] + "..."
    return f"'{words.lower()}'"


def _result(answer: str | None, reason: str, *, abstained: bool = False) -> Parsed:
    if len(reason) > _MAX_REASON:
        reason = reason[: _MAX_REASON - 3] + "..."
    return Parsed(answer, abstained, reason or "no reason")


def _idk(phrase: str, allow_idk: bool, where: str) -> Parsed:
    offered = "" if allow_idk else " although not offered"
    return _result(None, f"IDK phrase {_quote(phrase)}{offered}{where}", abstained=True)


def _where(index: int) -> str:
    return "" if index == 0 else f" in sentence {index + 1}"


# ---------------------------------------------------------------------------------------------
# Text


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFKC", text[:_MAX_CHARS]).translate(_QUOTES)
    text = _INVISIBLE_RE.sub("", text)
    text = _MARKDOWN_RE.sub(" ", text)
    text = _LONE_APOSTROPHE_RE.sub(" ", text)
    return _ABBREVIATION_RE.sub(r"\1\2", text)


def _answer_region(cleaned: str) -> list[str]:
    """The first non-empty line and what follows it, up to the next demonstration."""
    lines = cleaned.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    region = lines[start : start + 1]
    for line in lines[start + 1 :]:
        if _MARKER_RE.match(line):
            break
        region.append(line)
    return region


def _sentences(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        begin = 0
        for m in _SENTENCE_END_RE.finditer(line):
            if m.end() < len(line) and line[m.end()].islower():
                continue  # "E. coli"
            if not _LETTER_RE.search(line, begin, m.start()):
                continue  # a list number: "1. True"
            out.append(line[begin : m.end()].strip())
            begin = m.end()
        out.append(line[begin:].strip())
    return [s for s in out if s]


# ---------------------------------------------------------------------------------------------
# True / false


class _Hit(NamedTuple):
    start: int
    end: int
    rank: int  # at the same start: IDK (0) before negated form (1) before keyword (2)
    polarity: str | None  # "true" / "false"; None for an IDK phrase
    text: str


def _tf_hits(sentence: str) -> list[_Hit]:
    found: list[_Hit] = []
    for m in _IDK_RE.finditer(sentence):
        found.append(_Hit(m.start(), m.end(), 0, None, m.group()))
    for m in _NEGATED_RE.finditer(sentence):
        flipped = "false" if m.group(1).lower() in _TRUE_SET else "true"
        found.append(_Hit(m.start(), m.end(), 1, flipped, m.group()))
    for m in _KEYWORD_RE.finditer(sentence):
        polarity = "true" if m.group(1).lower() in _TRUE_SET else "false"
        found.append(_Hit(m.start(), m.end(), 2, polarity, m.group()))
    found.sort(key=lambda h: (h.start, h.rank, h.start - h.end))
    chosen: list[_Hit] = []
    end = -1
    for hit in found:  # earliest first; a hit inside an earlier one is part of it
        if hit.start >= end:
            chosen.append(hit)
            end = hit.end
    return chosen


def _leads(before: str) -> bool:
    words = re.findall(r"[^\W_]+(?:'[^\W_]+)?", before.lower())
    return len(words) <= 8 and all(w in _FILLER or w.isdigit() for w in words)


def _decide_true_false(sentence: str, index: int, allow_idk: bool) -> Parsed | None:
    hits = _tf_hits(sentence)
    if not hits:
        return None
    first = hits[0]
    where = _where(index)
    if first.polarity is None:
        return _idk(first.text, allow_idk, where)
    leads = _leads(sentence[: first.start])
    opposite = next((h for h in hits if h.polarity not in (None, first.polarity)), None)
    if opposite is not None and (
        not leads or _ALTERNATIVE_RE.fullmatch(sentence[first.end : opposite.start])
    ):
        return _result(
            None,
            f"conflicting keywords {_quote(first.text)} and {_quote(opposite.text)}{where}",
        )
    if first.rank == 1:
        return _result(first.polarity, f"negated form {_quote(first.text)}{where}")
    at_start = " at start" if leads else ""
    return _result(first.polarity, f"keyword {_quote(first.text)}{at_start}{where}")


@_total
def parse_true_false(text: str, *, allow_idk: bool = True) -> Parsed:
    """Read a true/false answer: ``"true"``, ``"false"``, abstained, or unparsed.

    ``allow_idk`` says whether "I do not know" was offered; an IDK answer abstains either way,
    and the reason records when it was not offered. See the module docstring for the rules.
    """
    cleaned = _clean(text)
    if not cleaned.strip():
        return _result(None, "empty")
    for index, sentence in enumerate(_sentences(_answer_region(cleaned))):
        decided = _decide_true_false(sentence, index, allow_idk)
        if decided is not None:
            return decided
    return _result(None, "no keyword")


# ---------------------------------------------------------------------------------------------
# Multiple choice


class _Options(NamedTuple):
    letters: str  # the valid letters, "ABCDE" for five options
    idk: frozenset[str]  # letters of "I do not know" options
    aliases: tuple[tuple[str, int], ...]  # (normalised text, option index)


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().split()).strip(_EDGE_CHARS)


def _is_idk_text(option: str) -> bool:
    return _IDK_RE.fullmatch(" ".join(option.split()).strip(_EDGE_CHARS)) is not None


def _options(options: Sequence[str]) -> _Options:
    usable = list(options)[: len(_LETTERS)]
    aliases: list[tuple[str, int]] = []
    for i, option in enumerate(usable):
        full = _norm(option)
        if full:
            aliases.append((full, i))
        short = _norm(_PARENTHESIS_RE.sub("", full))
        if short != full and len(short) >= 3:
            aliases.append((short, i))
    idk = frozenset(_LETTERS[i] for i, option in enumerate(usable) if _is_idk_text(option))
    return _Options(_LETTERS[: len(usable)], idk, tuple(aliases))


def _from_letters(
    letters: Sequence[str], raw: str, alternatives: bool, opts: _Options, allow_idk: bool, why: str
) -> Parsed:
    chosen = sorted({letter.upper() for letter in letters})
    outside = [letter for letter in chosen if letter not in opts.letters]
    if outside:
        return _result(None, f"letter '{outside[0]}' out of range{why}")
    if alternatives:
        return _result(None, f"alternative letters {_quote(raw)}, not one answer{why}")
    idk = [letter for letter in chosen if letter in opts.idk]
    if idk and len(chosen) == 1:
        offered = "" if allow_idk else " although not offered"
        return _result(None, f"IDK option letter '{idk[0]}'{offered}{why}", abstained=True)
    if idk:
        return _result(None, f"IDK letter '{idk[0]}' combined with other letters{why}")
    joined = ",".join(chosen)
    noun = "option letter" if len(chosen) == 1 else "option letters"
    return _result(joined, f"{noun} '{joined}'{why}")


def _exact_options(line: str, opts: _Options) -> list[int] | None:
    core = _norm(_LEAD_RE.sub("", _norm(line)))
    if not core:
        return None
    by_text: dict[str, set[int]] = {}
    for alias, index in opts.aliases:
        by_text.setdefault(alias, set()).add(index)
    if core in by_text:
        hit = by_text[core]
        return sorted(hit) if len(hit) == 1 else None
    parts = [_norm(p) for p in _OPTION_LIST_SEP_RE.split(core)]
    if len(parts) < 2 or not all(len(by_text.get(p, ())) == 1 for p in parts):
        return None
    return sorted({next(iter(by_text[p])) for p in parts})


def _option_spans(sentence: str, opts: _Options) -> list[tuple[int, int, int]]:
    """(start, end, option index) of whole-word option texts; nested shorter ones dropped."""
    spans: list[tuple[int, int, int]] = []
    for alias, index in opts.aliases:
        if len(alias) < 3:
            continue
        pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, alias.split())) + r"(?!\w)"
        for count, m in enumerate(re.finditer(pattern, sentence, re.IGNORECASE)):
            if count == 50:  # enough to decide; keeps the nesting check below cheap
                break
            spans.append((m.start(), m.end(), index))
    return [
        s
        for s in spans
        if not any(
            o[2] != s[2] and o[0] <= s[0] and s[1] <= o[1] and (o[1] - o[0]) > (s[1] - s[0])
            for o in spans
        )
    ]


class _LetterHit(NamedTuple):
    start: int
    letters: tuple[str, ...]
    raw: str
    alternatives: bool


def _token_counts(sentence: str, tok: re.Match[str], context: str, in_list: bool) -> bool:
    opening, letter, closing = tok.group(1), tok.group(2), tok.group(3)
    if opening or closing or in_list:
        return True
    if letter in "aiI" or (letter == "A" and context != "strong"):
        return _END_RE.match(sentence, tok.end()) is not None
    if context == "strong":
        return True
    if context == "start":
        return letter.isupper() or _CLAUSE_END_RE.match(sentence, tok.end()) is not None
    return letter.isupper() and _CLAUSE_END_RE.match(sentence, tok.end()) is not None


def _context(sentence: str, start: int) -> str | None:
    before = sentence[max(0, start - 80) : start]
    if start <= 20 and not _LETTER_RE.search(sentence, 0, start):
        return "start"
    if _STRONG_CUE_RE.search(before):
        return "strong"
    if _WEAK_CUE_RE.search(before):
        return "weak"
    return None


def _find_letters(sentence: str, masked: Sequence[tuple[int, int, int]]) -> _LetterHit | None:
    for tok in _TOKEN_RE.finditer(sentence):
        if any(s <= tok.start() < e for s, e, _ in masked):
            continue
        context = _context(sentence, tok.start())
        if context is None:
            continue
        tokens = [tok]
        alternatives = False
        pos = tok.end()
        while True:
            sep = _SEPARATOR_RE.match(sentence, pos)
            nxt = _TOKEN_RE.match(sentence, sep.end()) if sep else None
            if sep is None or nxt is None or not _token_counts(sentence, nxt, context, False):
                break
            if any(s <= nxt.start() < e for s, e, _ in masked):
                break
            alternatives = alternatives or bool(re.search(r"\bor\b", sep.group(), re.I))
            tokens.append(nxt)
            pos = nxt.end()
        if not _token_counts(sentence, tok, context, len(tokens) > 1):
            continue
        letters = tuple(t.group(2) for t in tokens)
        return _LetterHit(tok.start(), letters, sentence[tok.start() : pos], alternatives)
    return None


def _choice(text: str, options: Sequence[str], allow_idk: bool) -> Parsed:
    opts = _options(options)
    cleaned = _clean(text)
    if not cleaned.strip():
        return _result(None, "empty")
    region = _answer_region(cleaned)
    exact = _exact_options(region[0], opts)
    if exact is not None:
        letters = [opts.letters[i] for i in exact]
        if len(letters) == 1 and letters[0] in opts.idk:
            offered = "" if allow_idk else " although not offered"
            reason = f"IDK option text {_quote(options[exact[0]])}{offered}"
            return _result(None, reason, abstained=True)
        picked = _from_letters(letters, "", False, opts, allow_idk, "")
        if picked.answer is None:
            return picked
        texts = ", ".join(_quote(options[i]) for i in exact)
        return _result(picked.answer, f"option text matched {texts}")
    for index, sentence in enumerate(_sentences(region)):
        where = _where(index)
        spans = _option_spans(sentence, opts)
        letters_hit = _find_letters(sentence, spans)
        idk_hit = _IDK_RE.search(sentence)
        if idk_hit is not None and (letters_hit is None or idk_hit.start() < letters_hit.start):
            return _idk(idk_hit.group(), allow_idk, where)
        if letters_hit is not None:
            return _from_letters(
                letters_hit.letters,
                letters_hit.raw,
                letters_hit.alternatives,
                opts,
                allow_idk,
                where,
            )
        chosen = sorted({i for _, _, i in spans})
        if len(chosen) == 1:
            letter = opts.letters[chosen[0]]
            if letter in opts.idk:
                offered = "" if allow_idk else " although not offered"
                reason = f"IDK option text {_quote(options[chosen[0]])}{offered}{where}"
                return _result(None, reason, abstained=True)
            return _result(letter, f"option text found {_quote(options[chosen[0]])}{where}")
        if chosen:
            texts = ", ".join(_quote(options[i], 25) for i in chosen)
            return _result(None, f"several option texts {texts}{where}")
    return _result(None, "no option letter or text")


@_total
def parse_choice(text: str, options: Sequence[str]) -> Parsed:
    """Read a multiple-choice answer: sorted letters (``"A,C"``), abstained, or unparsed.

    ``options`` are the options as offered, any "I do not know" included. See the module
    docstring for the rules.
    """
    return _choice(text, options, True)


@_total
def _parse_choice_offered(text: str, options: Sequence[str], allow_idk: bool) -> Parsed:
    return _choice(text, options, allow_idk)


# ---------------------------------------------------------------------------------------------
# People


def _human_letters(core: str, opts: _Options) -> Parsed | None:
    parts = [p for p in _HUMAN_LIST_SEP_RE.split(core) if p]
    if parts and all(len(p) == 1 and p.isascii() and p.isalpha() for p in parts):
        return _from_letters(parts, core, False, opts, True, "")
    if (
        2 <= len(core) <= len(opts.letters)
        and len(set(core)) == len(core)
        and all(c.upper() in opts.letters for c in core)
    ):
        return _from_letters(list(core), core, False, opts, True, " (typed together)")
    return None


@_total
def parse_human(text: str, item: StatementItem | ChoiceItem) -> Parsed:
    """Read what a person typed for ``item``; same classes as the model parsers.

    Statements: t/true/y/yes, f/false/n/no; questions: letters alone, listed ("a, c", "a c") or
    run together ("ac"); "?" abstains; anything else is read by :func:`parse_true_false` or
    :func:`parse_choice` (so "idk" and "I don't know" abstain).
    """
    cleaned = _clean(text).strip()
    if not cleaned:
        return _result(None, "empty")
    if re.fullmatch(r"\?+", cleaned):
        return _result(None, "IDK mark '?'", abstained=True)
    core = cleaned.lower().strip(_EDGE_CHARS)
    if isinstance(item, ChoiceItem):
        typed = _human_letters(core, _options(item.options)) if core else None
        return typed if typed is not None else _choice(text, item.options, True)
    if core in _HUMAN_TRUE:
        return _result("true", f"typed '{core}'")
    if core in _HUMAN_FALSE:
        return _result("false", f"typed '{core}'")
    return parse_true_false(text, allow_idk=True)


# ---------------------------------------------------------------------------------------------
# Scoring


def score(item: StatementItem | ChoiceItem, parsed: Parsed) -> Outcome:
    """Score a parsed answer against ``item``'s key (see the module docstring)."""
    if parsed.abstained:
        return Outcome.ABSTAINED
    if parsed.answer is None:
        return Outcome.UNPARSED
    if isinstance(item, ChoiceItem):
        opts = _options(item.options)
        chosen = {part.strip().upper() for part in parsed.answer.split(",")}
        if not chosen or not all(len(c) == 1 and c in opts.letters for c in chosen):
            # An answer was given but cannot be one of this item's options: unreadable, not a
            # provider failure (ERROR is reserved for calls that failed and is left out of the
            # metrics; an unreadable answer counts as answered and wrong).
            return Outcome.UNPARSED
        if chosen <= opts.idk:
            return Outcome.ABSTAINED
        keys = {key.strip().upper() for key in item.answer_keys}
        return Outcome.CORRECT if chosen == keys else Outcome.INCORRECT
    if parsed.answer not in ("true", "false"):
        return Outcome.UNPARSED  # an answer of the wrong kind (a letter to a statement)
    expected = "true" if item.label else "false"
    return Outcome.CORRECT if parsed.answer == expected else Outcome.INCORRECT


def parse_and_score(
    text: str, item: StatementItem | ChoiceItem, *, idk_offered: bool
) -> tuple[Parsed, Outcome]:
    """Parse a model's ``text`` for ``item`` and score it; ``idk_offered`` as in the prompt.

    A choice item is read against the options it was offered
    (:meth:`~quizbot.items.ChoiceItem.offered_options`), so an "I do not know" the prompt added
    to an imported item abstains.
    """
    if isinstance(item, ChoiceItem):
        parsed = _parse_choice_offered(text, item.offered_options(idk_offered), idk_offered)
    else:
        parsed = parse_true_false(text, allow_idk=idk_offered)
    return parsed, score(item, parsed)


def partial_credit(item: ChoiceItem, answer: str | None) -> float:
    """Fractional credit for a multi-answer question, in [0, 1].

    ``(right options chosen - wrong options chosen) / right options``, floored at 0: every
    right letter earns 1/k of the credit (k right options) and every wrong letter costs as
    much, so choosing every option earns nothing and the exact key earns 1. No answer, an
    unreadable one or "I do not know" (``answer`` None or ``"idk"``) earns 0.

    The EBMQA paper (Avnat et al., JMIR 2025) gives partial credit to multi-answer semantic
    questions; its exact formula was not available to us, so this is quizbot's own definition
    (see :mod:`quizbot.analysis.metrics`), reported next to exact match, never instead of it.
    """
    keys = {key.strip().upper() for key in item.answer_keys}
    if not answer or answer == "idk" or not keys:
        return 0.0
    chosen = {part.strip().upper() for part in answer.split(",") if part.strip()}
    right = len(chosen & keys)
    wrong = len(chosen - keys)
    return max(0.0, (right - wrong) / len(keys))


# ---------------------------------------------------------------------------------------------
# SDAK replies

_SDAK_MAX_REASON = 2000
_SDAK_VERDICT_RE = re.compile(
    r"^[\s*_`#>\"'(\[]*"
    r"(?:(?:answer|verdict|response|judg(?:e)?ment|final\s+answer)\s*[:\-–—]\s*[*_`\"'\s]*)?"
    r"(correct|incorrect)(?![\w'-])",
    re.IGNORECASE,
)
_SDAK_ALTERNATIVE_RE = re.compile(r"[*_`\"'\s]*(?:or|/)\s*(?:in)?correct\b", re.IGNORECASE)
_SDAK_REASON_LEAD_RE = re.compile(
    r"^[\s*_`\"')\].,:;!\-–—]*(?:(?:reason|because|explanation)\s*[:\-–—]\s*)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SdakReading:
    """An SDAK reply as the paper reads it.

    ``verdict`` is ``"true"`` (the claim was called correct, *supported*), ``"false"`` (called
    incorrect, *refuted*), or ``None`` when the reply does not open with a verdict
    (``follows`` is then False); ``reason`` is the explanation after the verdict.
    """

    verdict: str | None
    follows: bool
    reason: str


def _sdak_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text[:_MAX_CHARS]).translate(_QUOTES)
    return _INVISIBLE_RE.sub("", text)


def parse_sdak(text: str | None) -> SdakReading:
    """Read an SDAK reply: the verdict at its start (if any) and the reason after it.

    Total: any text (or ``None``, a failed call) gives a reading, never an exception. See the
    module docstring for the rules.
    """
    if not text:
        return SdakReading(None, False, "")
    cleaned = _sdak_text(text)
    m = _SDAK_VERDICT_RE.match(cleaned)
    if m is None or _SDAK_ALTERNATIVE_RE.match(cleaned, m.end()):
        return SdakReading(None, False, _sdak_reason(cleaned))
    verdict = "false" if m.group(1).lower() == "incorrect" else "true"
    rest = _SDAK_REASON_LEAD_RE.sub("", cleaned[m.end() :], count=1)
    return SdakReading(verdict, True, _sdak_reason(rest))


def _sdak_reason(text: str) -> str:
    reason = " ".join(text.split())
    if len(reason) > _SDAK_MAX_REASON:
        reason = reason[: _SDAK_MAX_REASON - 3] + "..."
    return reason
