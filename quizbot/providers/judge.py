"""An optional judge: a model asked whether an entry the KB cannot verify answers a question.

Open recall scoring classes every listed entry from the KB alone (:mod:`quizbot.evaluation.recall`);
what it knows nothing of is *unverified* and counts on neither side of precision. A run (``quizbot
eval --judge MODEL``), a monitor (``judge = "MODEL"``) or an assignment may name a judge model: each
unverified entry is then put to it, once per question, entry, judge and prompt version, with the
fixed prompt below (stored in the run's config with its version), and its verdict counts: a
*correct* entry like a true one, an *incorrect* one like a known wrong one. A reply that says
neither is *unclear* and the entry stays unverified.

The same machinery confirms a *rephrasing* the rules of
:mod:`quizbot.generate.rephrase.validator` cannot decide (``quizbot generate --rephrase MODEL
--judge MODEL``): :func:`ask_rephrase_judge` asks, with its own fixed prompt, whether a rewrite
states the same claim as the statement.

The judge is reached like any model, through the providers seam (:func:`get_provider`, litellm),
with temperature 0 and a few tokens. Without a judge nothing here is called and the scoring
stays offline and deterministic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from quizbot.errors import redact
from quizbot.providers.base import Provider, Request
from quizbot.providers.retry import call_with_retries

__all__ = [
    "JUDGE_MAX_TOKENS",
    "JUDGE_PROMPT",
    "JUDGE_PROMPT_VERSION",
    "REPHRASE_JUDGE_PROMPT",
    "REPHRASE_JUDGE_PROMPT_VERSION",
    "JudgeVerdict",
    "ask_judge",
    "ask_rephrase_judge",
    "judge_prompt",
    "parse_verdict",
    "prompt_config",
]

JUDGE_PROMPT_VERSION = "recall-judge-1"
JUDGE_PROMPT = (
    "You are a careful clinician grading one entry of a student's answer to an open question "
    "about medicine.\n"
    "Question: {question}\n"
    "Entry: {entry}\n"
    "Is the entry a correct answer to the question, as a textbook would accept it (a true, "
    "relevant item of what is asked, possibly less specific or named differently)? "
    'Reply with one word: "Correct" or "Incorrect".'
)
JUDGE_MAX_TOKENS = 8
REPHRASE_JUDGE_PROMPT_VERSION = "rephrase-judge-1"
REPHRASE_JUDGE_PROMPT = (
    "You are a careful medical editor checking a rewrite of a true-or-false statement.\n"
    "Statement: {statement}\n"
    "Rewrite: {rewrite}\n"
    "Does the rewrite state the same claim as the statement: the same entities in the same "
    "roles, the same polarity (affirmed or denied), no stronger, weaker or additional claim? "
    'Reply with one word: "Yes" or "No".'
)
Verdict = Literal["correct", "incorrect", "unclear"]

_VERDICT_RE = re.compile(r"\b(incorrect|not\s+correct|wrong|correct|right|yes|no)\b", re.I)
_WORDS = {
    "correct": "correct",
    "right": "correct",
    "yes": "correct",
    "incorrect": "incorrect",
    "wrong": "incorrect",
    "no": "incorrect",
}


@dataclass(frozen=True)
class JudgeVerdict:
    """The judge's verdict on one entry and its raw reply (redacted)."""

    entry: str
    verdict: Verdict
    reply: str


def judge_prompt(question: str, entry: str) -> str:
    """The fixed prompt for one entry of an answer to ``question``."""
    return JUDGE_PROMPT.format(question=question.strip(), entry=" ".join(entry.split()))


def prompt_config() -> dict[str, str]:
    """What a run stores of its judge's prompt: the template and its version."""
    return {"prompt": JUDGE_PROMPT, "version": JUDGE_PROMPT_VERSION}


def parse_verdict(text: str) -> Verdict:
    """The verdict a reply states first ("Correct.", "Incorrect: ...", "Yes"); ``unclear`` when
    it states none."""
    found = _VERDICT_RE.search(text or "")
    if found is None:
        return "unclear"
    word = " ".join(found.group(1).casefold().split())
    return "incorrect" if word == "not correct" else _WORDS.get(word, "unclear")  # type: ignore[return-value]


async def ask_judge(
    provider: Provider, question: str, entry: str, *, attempts: int = 3
) -> JudgeVerdict:
    """Ask ``provider`` whether ``entry`` answers ``question`` (chat, temperature 0).

    Retryable failures are retried (:func:`call_with_retries`); a failure that remains raises
    :class:`~quizbot.providers.base.ProviderError`, and the caller leaves the entry unverified.
    """
    completion = await _ask(provider, judge_prompt(question, entry), attempts)
    return JudgeVerdict(entry, parse_verdict(completion), redact(completion)[:2000])


async def ask_rephrase_judge(
    provider: Provider, statement: str, rewrite: str, *, attempts: int = 3
) -> JudgeVerdict:
    """Ask ``provider`` whether ``rewrite`` states the same claim as ``statement`` (chat,
    temperature 0, :data:`REPHRASE_JUDGE_PROMPT`): ``correct`` means yes, ``incorrect`` no,
    ``unclear`` neither. Failures raise like :func:`ask_judge`."""
    prompt = REPHRASE_JUDGE_PROMPT.format(
        statement=" ".join(statement.split()), rewrite=" ".join(rewrite.split())
    )
    completion = await _ask(provider, prompt, attempts)
    return JudgeVerdict(rewrite, parse_verdict(completion), redact(completion)[:2000])


async def _ask(provider: Provider, prompt: str, attempts: int) -> str:
    request = Request(
        text=prompt,
        messages=({"role": "user", "content": prompt},),
        style="chat",
        max_tokens=JUDGE_MAX_TOKENS,
        temperature=0.0,
    )
    completion = await call_with_retries(lambda: provider.complete(request), attempts=attempts)
    return completion.text
