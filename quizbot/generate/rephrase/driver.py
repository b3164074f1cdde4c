"""The rephrasing driver: the provider seam, the few-shot prompt, caches and :class:`Rephraser`.

Every candidate a model writes is judged by :func:`~quizbot.generate.rephrase.validator.judge`;
the prototype statement is kept whenever it is rejected.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from quizbot.errors import InputError
from quizbot.generate.rephrase.validator import Verdict, clean_candidate, judge, normalise

log = logging.getLogger(__name__)

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
        "Standard treatment options for type 2 diabetes mellitus include metformin.",
        "For type 2 diabetes mellitus, the standard treatment options include metformin.",
        "type 2 diabetes mellitus",
        "metformin",
        False,
    ),
    (
        "If a patient with Graves disease has exophthalmos, this is a recognised feature of the "
        "condition.",
        "Should a patient with Graves disease have exophthalmos, it is a recognised feature of "
        "the disease.",
        "Graves disease",
        "exophthalmos",
        False,
    ),
    (
        "Recognised physiological effects of warfarin do not include bronchodilation.",
        "Among the recognised physiological effects of warfarin, bronchodilation is not included.",
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
    parts.append(f"Statement: {normalise(statement)}")
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
            except (UnicodeDecodeError, ValueError, TypeError, KeyError, RecursionError):
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
    judge_asked: int = 0
    judge_confirmed: int = 0
    judge_errors: int = 0

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
        if self.judge_asked:
            text += f"; judge confirmed {self.judge_confirmed:,} of {self.judge_asked:,}"
            if self.judge_errors:
                text += f" ({self.judge_errors:,} failed)"
        return text


# The rejections a judge may overturn: those the rules read from words they cannot weigh. Never
# one for shape, negation, an entity (missing, duplicated, extended, foreign) or roles.
JUDGEABLE = frozenset(
    ["claim strength changed", "antonym", "predicate changed", "extra qualifier", "extra claim"]
)


class CandidateJudge(Protocol):
    """A model that confirms whether a rewrite states the same claim as its statement."""

    @property
    def model(self) -> str:
        """The judge model's name."""
        ...

    def confirm(self, statement: str, rewrite: str) -> bool:
        """True when the judge says the rewrite states the same claim; may raise."""
        ...


def _first_line(text: str) -> str:
    lines = text.lstrip().splitlines()
    return lines[0] if lines else ""


class Rephraser:
    """Asks a completer to rephrase statements, validates, caches, and falls back safely.

    Per statement: a cached rephrasing (re-validated, so a stricter validator or a hand-edited
    cache cannot leak a bad one) -> else up to ``max_attempts`` completions of the same prompt
    (completers may sample), taking each one's first line -> else the original statement. Only
    accepted texts are cached. Exceptions from the completer or the cache never propagate.
    ``synonyms`` (a KB's ``Lexicon.synonyms``) are passed to the validator, so a rewording may
    name an entity by a listed synonym. ``judge`` (optional) may confirm a candidate the rules
    reject for a reason in :data:`JUDGEABLE`; a confirmed one is used and cached like an accepted
    one.
    """

    def __init__(
        self,
        completer: TextCompleter,
        cache: RephraseCache | None = None,
        *,
        max_attempts: int = 2,
        synonyms: Mapping[str, Sequence[str]] | None = None,
        judge: CandidateJudge | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.completer = completer
        self.cache: RephraseCache = cache if cache is not None else MemoryRephraseCache()
        self.max_attempts = max_attempts
        self.synonyms = synonyms
        self.judge = judge
        self.stats = RephraseStats()

    def rephrase(self, statement: str, *, head: str, tail: str, negated: bool) -> RephraseResult:
        """The statement to use for ``statement`` (see the class docstring)."""
        self.stats.requested += 1
        model = self.completer.model
        cached = self._cached(model, statement)
        if cached is not None:
            if self._decide(statement, cached, head=head, tail=tail, negated=negated).ok:
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
            verdict = self._decide(statement, candidate, head=head, tail=tail, negated=negated)
            if verdict.ok:
                self.stats.rephrased += 1
                self._store(model, statement, candidate)
                return RephraseResult(candidate, True, completion.model, verdict.reason, attempt)
            self.stats.rejected[verdict.category] += 1
            reason = verdict.reason
            log.debug("rephrasing rejected (%s): %r", reason, candidate)
        return RephraseResult(statement, False, None, reason, self.max_attempts)

    def _decide(
        self, statement: str, candidate: str, *, head: str, tail: str, negated: bool
    ) -> Verdict:
        """The validator's verdict, or the judge's confirmation of a candidate the rules reject
        for a reason in :data:`JUDGEABLE` (a judge that fails leaves the rejection standing).
        A validator that fails on a candidate rejects it ("validator error", logged with the
        candidate): one odd sentence never stops a generation."""
        try:
            verdict = judge(
                statement, candidate, head=head, tail=tail, negated=negated, synonyms=self.synonyms
            )
        except Exception as exc:
            log.exception("the rephrasing validator failed on %r; rejected", candidate)
            return Verdict(False, f"validator error: {type(exc).__name__}")
        if verdict.ok or self.judge is None or verdict.category not in JUDGEABLE:
            return verdict
        self.stats.judge_asked += 1
        try:
            same = self.judge.confirm(statement, candidate)
        except Exception as exc:
            self.stats.judge_errors += 1
            log.warning("rephrasing judge failed (%s); the rejection stands", type(exc).__name__)
            return verdict
        if not same:
            return verdict
        self.stats.judge_confirmed += 1
        return Verdict(True, f"accepted: confirmed by {self.judge.model} ({verdict.category})")

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
