"""Optional LLM rephrasing of instantiated statements, with a validator.

:mod:`~quizbot.generate.rephrase.validator` decides whether a candidate keeps the statement's
meaning; :mod:`~quizbot.generate.rephrase.driver` asks a model, validates, caches and falls back
to the prototype statement.
"""

from __future__ import annotations

from quizbot.generate.rephrase.driver import (
    DEMONSTRATIONS,
    INSTRUCTION,
    JUDGEABLE,
    CandidateJudge,
    CompletionText,
    JsonlRephraseCache,
    MemoryRephraseCache,
    RephraseCache,
    Rephraser,
    RephraseResult,
    RephraseStats,
    ScriptedCompleter,
    TextCompleter,
    build_prompt,
    statement_key,
)
from quizbot.generate.rephrase.validator import (
    Verdict,
    clean_candidate,
    negation_cues,
    validate_rephrasing,
)

__all__ = [
    "DEMONSTRATIONS",
    "INSTRUCTION",
    "JUDGEABLE",
    "CandidateJudge",
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
