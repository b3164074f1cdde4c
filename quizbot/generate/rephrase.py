"""Optional LLM rephrasing of instantiated statements, with a conservative validator.

PretexEval asks an LLM to *rephrase* each statement made from a prototype: same meaning, same
structure, new wording. A rephrasing is only used when :func:`validate_rephrasing` accepts it;
otherwise the prototype statement is kept. The validator is lexical, pure and deterministic. It
rejects a candidate (with a reason whose text before the first ``:`` is a stable category) when:

* it is not one plain sentence: empty, a newline, a question, several sentences, an echo of the
  prompt ("Sure, here is...", "Statement:"), or less than 0.5x / more than 2.5x the original's
  length. A leading label ("Rephrased:") and one pair of quotes around everything are stripped
  first (:func:`clean_candidate`), not rejected;
* it is the original again (``unchanged``);
* the head or the tail is not there verbatim (case-insensitive, whitespace and Unicode-NFKC
  normalised, whole-word at the entity's edges, so "Bacterial Infection" does not stand for
  "Bacterial Infections" nor "FBN12" for "FBN1"), or appears more often than in the original;
* head and tail come in a different order than in the original (catches role swaps such as
  "[tail] treats [head]"; also rejects faithful passive/active flips, by design: same structure);
* the number of negation cues outside the entities (:func:`negation_cues`: not, no, never,
  cannot, n't, without, none, neither/nor, fails to, unable, lacks, absent, excludes, rules
  out, unlikely, rarely, seldom, hardly...) has a different parity than the original's, or the
  original's parity does not match ``negated`` (``negation unclear``: a prototype the lexicon
  misreads; every candidate for it is rejected, which shows up in the stats);
* it adds a word that changes the claim's strength: absolutes (always, all, every, only, must,
  guaranteed, invariably...), frequency words (usually, often, mainly...) or hedges (rarely,
  unlikely...) absent from the original.

Residual risks (the validator is conservative: any doubt means the prototype statement is kept,
which is always correct, so false rejections only cost variety):

* a non-entity word can be swapped for one with another meaning ("treat" -> "cause", "can" ->
  "does", "increased" -> "decreased"); there is no lexicon of antonyms or modality;
* negation by a word outside the cue lexicon ("X is contraindicated in Y", "unresponsive",
  other un-/in- adjectives) is not counted, so it can flip an affirmative statement unnoticed;
* parity treats double negation as affirmation ("it is not true that X cannot ..."), which is
  right logically but may read differently;
* added content that is neither a quantifier nor an entity ("..., especially in children") is
  only bounded by the length ratio;
* sentence splitting is heuristic (abbreviations such as "e.g." and single initials are allowed).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from quizbot.errors import InputError

__all__ = [
    "DEMONSTRATIONS",
    "CompletionText",
    "JsonlRephraseCache",
    "MemoryRephraseCache",
    "RephraseCache",
    "RephraseResult",
    "RephraseStats",
    "Rephraser",
    "ScriptedCompleter",
    "TextCompleter",
    "Verdict",
    "build_prompt",
    "clean_candidate",
    "negation_cues",
    "statement_key",
    "validate_rephrasing",
]

log = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------------
# Validator
# --------------------------------------------------------------------------------------------

MIN_LENGTH_RATIO = 0.5
MAX_LENGTH_RATIO = 2.5


@dataclass(frozen=True, slots=True)
class Verdict:
    """The validator's decision. ``reason`` is ``"<category>: <detail>"`` when rejected."""

    ok: bool
    reason: str

    @property
    def category(self) -> str:
        """The stable part of ``reason`` (before the first colon), for counting rejections."""
        return self.reason.split(":", 1)[0].strip()


_ACCEPTED = Verdict(True, "accepted")

_SPACES = re.compile(r"\s+")
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
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "etc",
        "vs",
        "approx",
        "cf",
        "dr",
        "st",
        "mr",
        "mrs",
        "ms",
        "no",
        "fig",
        "al",
        "spp",
        "sp",
        "var",
        "ssp",
        "incl",
        "resp",
        "ca",
        "mg",
        "ml",
    ]
)

_NEGATION = re.compile(
    r"""\b(?:
        not | no | never | cannot | none | nobody | nothing | nowhere | neither | nor | without
      | \w+n['’]t                                  # doesn't, can't, won't, isn't ...
      | fail(?:s|ed|ing)?\s+to
      | unable | impossible | incapable
      | lack(?:s|ed|ing)?
      | absent | absence
      | (?:free|devoid)\s+of
      | exclud(?:e|es|ed|ing)
      | rul(?:e|es|ed|ing)\s+out
      | unrelated | unassociated | unaffected | unlikely
      | rarely | seldom | hardly | barely | scarcely
      | non-\w+
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
_STRENGTH = re.compile(
    r"""\b(?:
        always | all | every | everyone | each | only | must | guarantee[sd]? | invariably
      | necessarily | certainly | definitely | undoubtedly | exclusively | solely | universally
      | usually | typically | commonly | mostly | mainly | primarily | predominantly | often
      | frequently | generally
      | rarely | seldom | hardly | barely | scarcely | unlikely
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
_MASK = "\x1a"


def _normalise(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()


@lru_cache(maxsize=4096)
def _entity_pattern(entity: str) -> re.Pattern[str]:
    body = " ".join(re.escape(word) for word in entity.split(" "))
    before = r"(?<!\w)" if re.match(r"\w", entity) else ""
    after = r"(?!\w)" if re.search(r"\w$", entity) else ""
    return re.compile(before + body + after, re.IGNORECASE)


def _mask_entities(text: str, entities: Iterable[str]) -> tuple[str, dict[str, list[int]]]:
    """Blank out each entity (longest first, so one inside another is not found twice).

    Returns the masked text and, per normalised-casefolded entity, its start positions.
    """
    unique: dict[str, str] = {}
    for entity in entities:
        norm = _normalise(entity)
        if norm:
            unique.setdefault(norm.casefold(), norm)
    found: dict[str, list[int]] = {}
    for key, entity in sorted(unique.items(), key=lambda kv: -len(kv[1])):
        spans = [m.span() for m in _entity_pattern(entity).finditer(text)]
        for start, stop in reversed(spans):
            text = text[:start] + _MASK * (stop - start) + text[stop:]
        found[key] = [start for start, _ in spans]
    return text, found


def negation_cues(text: str, *, mask: Iterable[str] = ()) -> tuple[str, ...]:
    """The negation cues in ``text``, lower-cased, ignoring any inside the ``mask`` entities.

    "nor" only counts when no cue precedes it (so "neither ... nor" is one negation). An odd
    count means the sentence states a negation.
    """
    masked, _ = _mask_entities(_normalise(text), mask)
    cues: list[str] = []
    for match in _NEGATION.finditer(masked):
        cue = _SPACES.sub(" ", match.group(0).lower())
        if cue == "nor" and cues:
            continue
        cues.append(cue)
    return tuple(cues)


def _strength_words(masked: str) -> set[str]:
    return {m.group(0).lower() for m in _STRENGTH.finditer(masked)}


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


def validate_rephrasing(
    original: str, candidate: str, *, head: str, tail: str, negated: bool
) -> Verdict:
    """Whether ``candidate`` is a safe rephrasing of ``original`` (see the module docstring).

    ``head`` and ``tail`` are the entity names inserted into the prototype; ``negated`` is
    ``Transform.negated`` of the statement's variant (the sentence states a negation).
    """
    return _judge(original, clean_candidate(candidate), head=head, tail=tail, negated=negated)


def _reject(category: str, detail: str) -> Verdict:
    return Verdict(False, f"{category}: {detail}")


@dataclass(frozen=True, slots=True)
class _Reading:
    """A sentence normalised, with its entities blanked out and their start positions."""

    raw: str
    text: str
    masked: str
    found: dict[str, list[int]]

    @classmethod
    def of(cls, sentence: str, entities: tuple[str, str]) -> _Reading:
        text = _normalise(sentence)
        masked, found = _mask_entities(text, entities)
        return cls(sentence, text, masked, found)


_Check = Callable[[_Reading, _Reading, tuple[str, str], bool], Verdict | None]


def _judge(original: str, text: str, *, head: str, tail: str, negated: bool) -> Verdict:
    entities = (_normalise(head), _normalise(tail))
    if not all(entities):
        raise ValueError("head and tail must be non-empty")
    orig, cand = _Reading.of(original, entities), _Reading.of(text, entities)
    checks: tuple[_Check, ...] = (
        _check_shape,
        _check_size,
        _check_sentences,
        _check_entities,
        _check_order,
        _check_negation,
        _check_strength,
    )
    for check in checks:
        verdict = check(orig, cand, entities, negated)
        if verdict is not None:
            return verdict
    return _ACCEPTED


def _check_shape(orig: _Reading, cand: _Reading, _e: tuple[str, str], _n: bool) -> Verdict | None:
    text = cand.text
    if not text:
        return _reject("empty", "no text")
    if any(char in cand.raw for char in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"):
        return _reject("newline", "more than one line")
    if _ECHO_START.match(text) or _ECHO_ANYWHERE.search(text):
        return _reject("instruction echo", f"looks like a reply, not a statement: {text[:40]!r}")
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] == _QUOTES[text[0]]:
        return _reject("instruction echo", "the text is wrapped in quotes")
    return None


def _check_size(orig: _Reading, cand: _Reading, _e: tuple[str, str], _n: bool) -> Verdict | None:
    if cand.text.rstrip(".!").casefold() == orig.text.rstrip(".!").casefold():
        return _reject("unchanged", "same text as the original")
    ratio = len(cand.text) / max(1, len(orig.text))
    if not MIN_LENGTH_RATIO <= ratio <= MAX_LENGTH_RATIO:
        return _reject("length changed", f"{ratio:.2f}x the original's length")
    return None


def _check_sentences(_o: _Reading, cand: _Reading, _e: tuple[str, str], _n: bool) -> Verdict | None:
    if "?" in cand.masked:
        return _reject("question", "the candidate asks a question")
    for match in _SENTENCE_END.finditer(cand.masked):
        word, punct = match.group(1).lower(), match.group(2)
        if (
            "!" not in punct
            and _MASK not in word
            and ((len(word) == 1 and word.isalpha()) or word.rstrip(".") in _ABBREVIATIONS)
        ):
            continue  # an initial ("E. coli") or an abbreviation ("e.g.")
        return _reject("multiple sentences", "more than one sentence")
    return None


def _check_entities(
    orig: _Reading, cand: _Reading, entities: tuple[str, str], _n: bool
) -> Verdict | None:
    for role, entity in zip(("head", "tail"), entities, strict=True):
        in_orig, in_cand = orig.found[entity.casefold()], cand.found[entity.casefold()]
        if not in_orig:
            return _reject("entity missing", f"the original statement lacks the {role} {entity!r}")
        if not in_cand:
            return _reject("entity missing", f"the {role} {entity!r} is missing or altered")
        if len(in_cand) > len(in_orig):
            return _reject(
                "entity duplicated",
                f"the {role} {entity!r} appears {len(in_cand)} times (original: {len(in_orig)})",
            )
    return None


def _check_order(
    orig: _Reading, cand: _Reading, entities: tuple[str, str], _n: bool
) -> Verdict | None:
    head, tail = (e.casefold() for e in entities)
    if head == tail:
        return None
    if (orig.found[head][0] < orig.found[tail][0]) != (cand.found[head][0] < cand.found[tail][0]):
        return _reject("order swapped", "head and tail appear in the opposite order")
    return None


def _check_negation(
    orig: _Reading, cand: _Reading, _e: tuple[str, str], negated: bool
) -> Verdict | None:
    orig_cues, cand_cues = negation_cues(orig.masked), negation_cues(cand.masked)
    if len(orig_cues) % 2 != int(negated):
        return _reject(
            "negation unclear",
            f"the original reads as {_polarity(orig_cues)} ({_cue_list(orig_cues)}) "
            f"but negated={negated}",
        )
    if len(cand_cues) % 2 != len(orig_cues) % 2:
        return _reject(
            "negation flipped",
            f"the original is {_polarity(orig_cues)} ({_cue_list(orig_cues)}), "
            f"the candidate {_polarity(cand_cues)} ({_cue_list(cand_cues)})",
        )
    return None


def _check_strength(
    orig: _Reading, cand: _Reading, _e: tuple[str, str], _n: bool
) -> Verdict | None:
    added = sorted(_strength_words(cand.masked) - _strength_words(orig.masked))
    if added:
        return _reject("claim strength changed", f"adds {', '.join(map(repr, added))}")
    return None


def _polarity(cues: tuple[str, ...]) -> str:
    return "negated" if len(cues) % 2 else "affirmative"


def _cue_list(cues: tuple[str, ...]) -> str:
    return ", ".join(cues) if cues else "no negation cue"


# --------------------------------------------------------------------------------------------
# Provider seam and prompt
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompletionText:
    """A completion's text and the model that actually produced it."""

    text: str
    model: str


class TextCompleter(Protocol):
    """Anything that completes a text prompt (base or chat model behind it).

    ``model`` names the model *before* asking, because rephrasings are cached per model.
    """

    @property
    def model(self) -> str:
        """The model name used as the cache key."""
        ...

    def complete(self, prompt: str) -> CompletionText:
        """Complete ``prompt``; may raise anything (the :class:`Rephraser` falls back)."""
        ...


INSTRUCTION = (
    "Rewrite each medical statement with different wording but the same meaning and structure. "
    "Keep the entity names exactly as written and in the same order, and keep any negation."
)

# (statement, rewritten, head, tail, negated): the few-shot demonstrations, one negated.
DEMONSTRATIONS: tuple[tuple[str, str, str, str, bool], ...] = (
    (
        "Metformin may be used to treat type 2 diabetes mellitus.",
        "Metformin can be a suitable treatment for type 2 diabetes mellitus.",
        "Metformin",
        "type 2 diabetes mellitus",
        False,
    ),
    (
        "A patient with Graves disease can develop exophthalmos.",
        "A patient who has Graves disease may go on to develop exophthalmos.",
        "Graves disease",
        "exophthalmos",
        False,
    ),
    (
        "The agent warfarin does not have the physiological effect bronchodilation.",
        "The drug warfarin does not produce the physiological effect bronchodilation.",
        "warfarin",
        "bronchodilation",
        True,
    ),
)

_PROMPT_TAIL = re.compile(r"Statement: (.*)\nRewritten:\s*\Z")


def build_prompt(statement: str) -> str:
    """A few-shot text-completion prompt (works with base models) ending with "Rewritten:"."""
    parts = [INSTRUCTION, ""]
    for source, rewritten, *_ in DEMONSTRATIONS:
        parts += [f"Statement: {source}", f"Rewritten: {rewritten}", ""]
    parts.append(f"Statement: {_normalise(statement)}")
    return "\n".join(parts) + "\nRewritten:"


def _statement_in_prompt(prompt: str) -> str:
    match = _PROMPT_TAIL.search(prompt)
    return match.group(1) if match else prompt


class ScriptedCompleter:
    """A :class:`TextCompleter` for tests and demos: canned answers, no model.

    ``responses`` maps a statement (as found in the prompt) to its completion, or is a callable
    given that statement. A statement missing from the mapping raises :class:`LookupError`.
    Every prompt received is kept in ``prompts``.
    """

    def __init__(
        self,
        responses: Mapping[str, str] | Callable[[str], str],
        model: str = "scripted/rephraser",
    ) -> None:
        self.model = model
        self._responses = responses
        self.prompts: list[str] = []

    @property
    def calls(self) -> int:
        """How many completions were asked for."""
        return len(self.prompts)

    def complete(self, prompt: str) -> CompletionText:
        """Answer from the script."""
        self.prompts.append(prompt)
        statement = _statement_in_prompt(prompt)
        if isinstance(self._responses, Mapping):
            if statement not in self._responses:
                raise LookupError(f"no scripted rephrasing for {statement!r}")
            return CompletionText(self._responses[statement], self.model)
        return CompletionText(self._responses(statement), self.model)


# --------------------------------------------------------------------------------------------
# Caches
# --------------------------------------------------------------------------------------------


def statement_key(statement: str) -> str:
    """The cache key of a statement: the SHA-256 of its UTF-8 text."""
    return hashlib.sha256(statement.encode("utf-8")).hexdigest()


class RephraseCache(Protocol):
    """Stores validated rephrasings per (model, statement)."""

    def get(self, model: str, statement: str) -> str | None:
        """The cached rephrasing, or None."""
        ...

    def put(self, model: str, statement: str, text: str) -> None:
        """Remember a validated rephrasing."""
        ...


class MemoryRephraseCache:
    """A :class:`RephraseCache` in a dict (lost on exit)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], str] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, model: str, statement: str) -> str | None:
        """The cached rephrasing, or None."""
        return self._entries.get((model, statement_key(statement)))

    def put(self, model: str, statement: str, text: str) -> None:
        """Remember a validated rephrasing."""
        self._entries[(model, statement_key(statement))] = text


class JsonlRephraseCache:
    """A :class:`RephraseCache` in an append-only JSON-lines file, loaded when opened.

    Each line is ``{"model": ..., "sha256": <statement_key>, "text": ...}``; a later line for
    the same key wins. Unreadable lines (a last line cut off by a crash) are skipped with a
    warning, and the next write starts on a fresh line. Single-writer: not safe for two
    processes appending to the same file at once.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._entries: dict[tuple[str, str], str] = {}
        self._needs_newline = False
        self._load()

    def __len__(self) -> int:
        return len(self._entries)

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise InputError(
                f"cannot read the rephrase cache ({exc.strerror or exc})", path=str(self.path)
            ) from None
        self._needs_newline = bool(raw) and not raw.endswith(b"\n")
        skipped = 0
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                record = json.loads(line.decode("utf-8"))
                model, key, text = record["model"], record["sha256"], record["text"]
            except (UnicodeDecodeError, ValueError, TypeError, KeyError):
                skipped += 1
                continue
            if isinstance(model, str) and isinstance(key, str) and isinstance(text, str):
                self._entries[(model, key)] = text
            else:
                skipped += 1
        if skipped:
            log.warning("rephrase cache %s: skipped %d unreadable line(s)", self.path, skipped)

    def get(self, model: str, statement: str) -> str | None:
        """The cached rephrasing, or None."""
        return self._entries.get((model, statement_key(statement)))

    def put(self, model: str, statement: str, text: str) -> None:
        """Append a validated rephrasing to the file (no-op if already stored)."""
        key = (model, statement_key(statement))
        if self._entries.get(key) == text:
            return
        line = json.dumps({"model": model, "sha256": key[1], "text": text}, ensure_ascii=False)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            if self._needs_newline:
                handle.write("\n")
            handle.write(line + "\n")
        self._needs_newline = False
        self._entries[key] = text


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RephraseResult:
    """What to show: the rephrasing if one was accepted, else the original statement."""

    text: str
    rephrased: bool
    model: str | None  # the model that wrote ``text``; None when it is the original
    reason: str  # "accepted", "cache hit", or why the original was kept
    attempts: int  # completions asked for (0 on a cache hit)


@dataclass
class RephraseStats:
    """Running counts for one :class:`Rephraser`.

    ``rejected`` counts rejected *candidates* by category, so one statement that failed twice
    counts twice.
    """

    requested: int = 0
    rephrased: int = 0
    cache_hits: int = 0
    completer_errors: int = 0
    rejected: Counter[str] = field(default_factory=Counter)

    @property
    def kept_original(self) -> int:
        """Statements left as the prototype made them."""
        return self.requested - self.rephrased

    def summary(self) -> str:
        """E.g. ``rephrased 1,234 of 1,600 (cache 900); rejected: negation flipped 12``."""
        text = f"rephrased {self.rephrased:,} of {self.requested:,} (cache {self.cache_hits:,})"
        if self.rejected:
            ranked = sorted(self.rejected.items(), key=lambda kv: (-kv[1], kv[0]))
            text += "; rejected: " + ", ".join(f"{name} {n:,}" for name, n in ranked)
        if self.completer_errors:
            text += f"; completer errors {self.completer_errors:,}"
        return text


def _first_line(text: str) -> str:
    lines = text.lstrip().splitlines()
    return lines[0] if lines else ""


class Rephraser:
    """Asks a completer to rephrase statements, validates, caches, and falls back safely.

    Per statement: a cached rephrasing (re-validated, so a stricter validator or a hand-edited
    cache cannot leak a bad one) -> else up to ``max_attempts`` completions of the same prompt
    (completers may sample), taking each one's first line -> else the original statement. Only
    accepted texts are cached. Exceptions from the completer or the cache never propagate.
    """

    def __init__(
        self,
        completer: TextCompleter,
        cache: RephraseCache | None = None,
        *,
        max_attempts: int = 2,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.completer = completer
        self.cache: RephraseCache = cache if cache is not None else MemoryRephraseCache()
        self.max_attempts = max_attempts
        self.stats = RephraseStats()

    def rephrase(self, statement: str, *, head: str, tail: str, negated: bool) -> RephraseResult:
        """The statement to use for ``statement`` (see the class docstring)."""
        self.stats.requested += 1
        model = self.completer.model
        cached = self._cached(model, statement)
        if cached is not None:
            if _judge(statement, cached, head=head, tail=tail, negated=negated).ok:
                self.stats.cache_hits += 1
                self.stats.rephrased += 1
                return RephraseResult(cached, True, model, "cache hit", 0)
            log.debug("cached rephrasing no longer valid, asking again: %r", cached)
        prompt = build_prompt(statement)
        reason = "not attempted"
        for attempt in range(1, self.max_attempts + 1):
            try:
                completion = self.completer.complete(prompt)
                candidate = clean_candidate(_first_line(completion.text))
            except Exception as exc:
                self.stats.completer_errors += 1
                log.warning(
                    "rephrasing failed (%s: %s); keeping the prototype statement",
                    type(exc).__name__,
                    exc,
                )
                return RephraseResult(
                    statement,
                    False,
                    None,
                    f"completer error: {type(exc).__name__}: {exc}",
                    attempt,
                )
            verdict = _judge(statement, candidate, head=head, tail=tail, negated=negated)
            if verdict.ok:
                self.stats.rephrased += 1
                self._store(model, statement, candidate)
                return RephraseResult(candidate, True, completion.model, "accepted", attempt)
            self.stats.rejected[verdict.category] += 1
            reason = verdict.reason
            log.debug("rephrasing rejected (%s): %r", reason, candidate)
        return RephraseResult(statement, False, None, reason, self.max_attempts)

    def _cached(self, model: str, statement: str) -> str | None:
        try:
            return self.cache.get(model, statement)
        except Exception as exc:
            log.warning("rephrase cache read failed (%s); treating as a miss", exc)
            return None

    def _store(self, model: str, statement: str, text: str) -> None:
        try:
            self.cache.put(model, statement, text)
        except Exception as exc:
            log.warning("rephrase cache write failed (%s); continuing without caching", exc)
