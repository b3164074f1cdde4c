"""Caching of model calls: interactive reuse in the database, and runs that refuse it."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from quizbot.errors import ConfigError
from quizbot.evaluation.runner import RunConfig, execute, prepare_run
from quizbot.generate.service import GenerateRequest, prepare
from quizbot.items import StatementItem
from quizbot.providers import Request
from quizbot.providers.cache import CachedProvider, DbCallStore, call_key
from quizbot.providers.scripted import ScriptedProvider
from storage import Database
from storage.repo import list_responses

ASK = Request(text="Asthma can present with wheeze. True or False?")


def _cached(
    db: Database, answer: str = "True", api_base: str | None = None
) -> tuple[ScriptedProvider, CachedProvider]:
    inner = ScriptedProvider([answer], name="openai/m", reported_model="m-2026-01")
    return inner, CachedProvider(inner, DbCallStore(db), api_base=api_base)


def test_a_repeated_call_is_answered_from_the_database(db: Database) -> None:
    inner, provider = _cached(db)
    first = asyncio.run(provider.complete(ASK))
    second = asyncio.run(provider.complete(ASK))
    assert inner.calls == 1
    assert (first.cached, second.cached) == (False, True)
    assert (second.text, second.model, second.total_tokens) == (
        "True",
        "m-2026-01",
        first.total_tokens,
    )
    # A new process (a new wrapper over the same database) still finds it.
    other_inner, other = _cached(db, answer="False")
    assert asyncio.run(other.complete(ASK)).text == "True" and other_inner.calls == 0


@pytest.mark.parametrize(
    "change",
    [
        {"text": "Asthma can present with fever. True or False?"},
        {"temperature": 0.7},
        {"max_tokens": 64},
        {"style": "completion"},
        {"stop": ("\n",)},
        {"messages": ({"role": "system", "content": "Be brief."},)},
    ],
)
def test_anything_that_can_change_the_answer_is_in_the_key(change: dict[str, Any]) -> None:
    assert call_key("openai/m", ASK) != call_key("openai/m", dataclasses.replace(ASK, **change))


def test_the_model_and_endpoint_are_in_the_key(db: Database) -> None:
    assert call_key("openai/m", ASK) != call_key("openai/n", ASK)
    assert call_key("openai/m", ASK, "http://a/v1") != call_key("openai/m", ASK, "http://b/v1")
    _, here = _cached(db, api_base="http://a/v1")
    asyncio.run(here.complete(ASK))
    inner, there = _cached(db, api_base="http://b/v1")
    asyncio.run(there.complete(ASK))
    assert inner.calls == 1  # another endpoint is another model as far as the cache knows


def _items(db: Database) -> list[StatementItem]:
    generation = prepare(db, GenerateRequest(kb="clinical-core", points=1, seed=3))
    return [i for i in generation.items() if isinstance(i, StatementItem)]


def test_runs_refuse_a_caching_provider_unless_allowed(db: Database) -> None:
    items = _items(db)
    run_id = prepare_run(db, items, RunConfig(model="openai/m"))
    _, provider = _cached(db)
    with pytest.raises(ConfigError, match="answers from a cache"):
        asyncio.run(execute(db, run_id, provider))
    assert list_responses(db, run_id=run_id) == []

    asyncio.run(execute(db, run_id, provider, allow_cache=True))
    again = prepare_run(db, items, RunConfig(model="openai/m"))
    inner, provider = _cached(db)
    asyncio.run(execute(db, again, provider, allow_cache=True))
    assert inner.calls == 0
    responses = list_responses(db, run_id=again)
    assert len(responses) == len(items) and all(r.cached for r in responses)
