"""Models litellm has no price for are priced at zero once (quizbot never shows a cost), so
litellm stops failing its cost lookup on every call; prices litellm knows are left alone."""

from __future__ import annotations

import asyncio
import logging

import litellm
import pytest

from quizbot.providers import Completion, ModelSettings, Request, get_provider
from tests.helpers.stub import stub_server

ASK = Request(
    "Asthma can present with wheeze. True or False?",
    messages=({"role": "user", "content": "Asthma can present with wheeze. True or False?"},),
)


@pytest.mark.parametrize("style", ["chat", "completion"])
def test_an_unknown_model_is_priced_at_zero_once_and_answers_as_before(
    style: str, caplog: pytest.LogCaptureFixture
) -> None:
    model = f"openai/quizbot-unpriced-{style}"
    with pytest.raises(Exception, match="isn't mapped"):
        litellm.get_model_info(model)  # litellm has no price for it
    with stub_server("--answer", "true") as base:
        provider = get_provider(model, ModelSettings(api_base=base))
        request = Request(ASK.text, ASK.messages, style=style)  # type: ignore[arg-type]

        async def three() -> list[Completion]:
            try:
                return [await provider.complete(request) for _ in range(3)]
            finally:
                await provider.aclose()

        with caplog.at_level(logging.WARNING, logger="LiteLLM"):
            got = asyncio.run(three())
    assert [g.text.strip() for g in got] == ["True"] * 3
    assert all(g.prompt_tokens and g.completion_tokens for g in got)
    info = litellm.get_model_info(model)
    assert info["input_cost_per_token"] == 0 and info["output_cost_per_token"] == 0
    assert litellm.cost_per_token(model=model, prompt_tokens=1000, completion_tokens=1000) == (
        0.0,
        0.0,
    )
    warned = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not warned, [r.getMessage() for r in warned]


def test_a_model_litellm_knows_keeps_its_price() -> None:
    model = "openai/gpt-4o-mini"
    before = litellm.get_model_info(model)
    assert before["input_cost_per_token"]  # a priced model, or this test proves nothing
    provider = get_provider(model, ModelSettings(api_base="http://127.0.0.1:9/v1"))
    asyncio.run(provider.aclose())
    after = litellm.get_model_info(model)
    assert after["input_cost_per_token"] == before["input_cost_per_token"]
    assert after["output_cost_per_token"] == before["output_cost_per_token"]
