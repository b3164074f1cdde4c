"""Providers over real HTTP (the shared stub server), the retry policy, and the baselines."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from tenacity import wait_none

from quizbot.config import load_settings
from quizbot.errors import ConfigError, InputError
from quizbot.providers import (
    ModelSettings,
    ProviderError,
    Request,
    get_provider,
    resolve_model_settings,
)
from quizbot.providers import retry as retry_module
from quizbot.providers.retry import call_with_retries
from quizbot.providers.scripted import ScriptedProvider
from tests.helpers.stub import stub_server

ASK = Request(
    text="Asthma can present with wheeze., is the statement above true or false? "
    "Please answer True or False.",
    messages=({"role": "user", "content": "Asthma can present with wheeze. True or False?"},),
)


@pytest.fixture
def no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries without sleeping."""
    monkeypatch.setattr(retry_module, "WAIT", wait_none())


@pytest.mark.parametrize("style", ["chat", "completion"])
def test_litellm_reaches_an_openai_compatible_server(style: str) -> None:
    with stub_server("--answer", "false") as base:
        provider = get_provider("openai/my-model", ModelSettings(api_base=base))
        request = Request(ASK.text, ASK.messages, style="chat" if style == "chat" else "completion")
        got = asyncio.run(provider.complete(request))
    assert got.text.strip() == "False"
    assert got.model == "my-model"  # what the server reported
    assert got.prompt_tokens and got.completion_tokens and got.total_tokens
    assert got.latency_ms > 0


def test_litellms_standard_environment_variables_keep_working(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with stub_server("--answer", "true") as base:
        monkeypatch.setenv("OPENAI_API_BASE", base)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        got = asyncio.run(get_provider("openai/env-model").complete(ASK))
    assert got.text.strip() == "True" and got.model == "env-model"


def test_server_errors_are_retryable_and_classified() -> None:
    with stub_server("--error-rate", "1.0") as base:
        provider = get_provider("openai/m", ModelSettings(api_base=base))
        statuses = set()
        for _ in range(2):
            with pytest.raises(ProviderError) as info:
                asyncio.run(provider.complete(ASK))
            assert info.value.retryable
            statuses.add(info.value.status)
    assert statuses == {429, 500}  # the stub alternates rate limits and server errors


class _BadRequest(BaseHTTPRequestHandler):
    """A server that refuses every request as malformed (HTTP 400)."""

    def do_POST(self) -> None:
        body = b'{"error": {"message": "bad request", "type": "invalid_request_error"}}'
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


def test_client_errors_are_not_retried() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _BadRequest)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/v1"
        provider = get_provider("openai/m", ModelSettings(api_base=base))
        with pytest.raises(ProviderError) as info:
            asyncio.run(provider.complete(ASK))
    finally:
        server.shutdown()
    assert info.value.status == 400 and not info.value.retryable


def test_a_refused_connection_is_retryable() -> None:
    provider = get_provider("openai/m", ModelSettings(api_base="http://127.0.0.1:1/v1", timeout=5))
    with pytest.raises(ProviderError) as info:
        asyncio.run(provider.complete(ASK))
    assert info.value.retryable


@pytest.mark.usefixtures("no_wait")
def test_retries_get_through_an_unreliable_server() -> None:
    with stub_server("--error-rate", "0.5", "--answer", "true") as base:
        provider = get_provider("openai/m", ModelSettings(api_base=base))

        async def ask_many() -> list[str]:
            return [
                (await call_with_retries(lambda: provider.complete(ASK), attempts=20)).text
                for _ in range(10)
            ]

        answers = asyncio.run(ask_many())
    assert [a.strip() for a in answers] == ["True"] * 10


@pytest.mark.usefixtures("no_wait")
def test_the_policy_retries_only_retryable_failures() -> None:
    flaky = ScriptedProvider(
        ["True"], fail=lambda n, _r: ProviderError("503", retryable=True) if n < 3 else None
    )
    assert asyncio.run(call_with_retries(lambda: flaky.complete(ASK), attempts=5)).text == "True"
    assert flaky.calls == 4
    broken = ScriptedProvider(["True"], fail=lambda n, _r: ProviderError("400", retryable=False))
    with pytest.raises(ProviderError, match="400"):
        asyncio.run(call_with_retries(lambda: broken.complete(ASK), attempts=5))
    assert broken.calls == 1
    hopeless = ScriptedProvider(["True"], fail=lambda n, _r: ProviderError("429", retryable=True))
    with pytest.raises(ProviderError):
        asyncio.run(call_with_retries(lambda: hopeless.complete(ASK), attempts=3))
    assert hopeless.calls == 3


def test_a_missing_key_variable_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(ConfigError, match="MY_KEY"):
        get_provider("openai/m", ModelSettings(api_key_env="MY_KEY"))


def test_model_strings_are_checked() -> None:
    with pytest.raises(InputError, match="provider prefix"):
        get_provider("gpt-4o")
    with pytest.raises(InputError, match="unknown baseline"):
        get_provider("baseline/clever")


def test_baselines() -> None:
    requests = [Request(f"statement {i}") for i in range(400)]
    random = get_provider("baseline/random", seed=1)
    answers = [asyncio.run(random.complete(r)).text for r in requests]
    assert answers == [
        asyncio.run(get_provider("baseline/random", seed=1).complete(r)).text for r in requests
    ]
    counts = Counter(answers)
    assert set(counts) == {"True", "False"} and 150 < counts["True"] < 250
    assert answers != [
        asyncio.run(get_provider("baseline/random", seed=2).complete(r)).text for r in requests
    ]
    assert asyncio.run(get_provider("baseline/always-true").complete(requests[0])).text == "True"
    majority = get_provider("baseline/majority", majority_answer="False")
    assert {asyncio.run(majority.complete(r)).text for r in requests[:20]} == {"False"}
    choice = Request("Which?", options=("A", "B", "C"))
    assert asyncio.run(get_provider("baseline/random").complete(choice)).text in {"A", "B", "C"}
    assert asyncio.run(get_provider("baseline/always-true").complete(choice)).text == "A"


def test_explicit_values_beat_settings_which_beat_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(
        "QUIZBOT_MODEL_SETTINGS",
        '{"openai/m": {"api_base": "http://a:1/v1", "api_key_env": "K", "timeout": 5,'
        ' "max_concurrency": 3, "style": "completion"}}',
    )
    settings = load_settings()
    configured = resolve_model_settings("openai/m", settings)
    assert configured == ModelSettings("http://a:1/v1", "K", 5.0, 3, "completion")
    explicit = resolve_model_settings(
        "openai/m", settings, api_base="http://b:2/v1", timeout=9, max_concurrency=7
    )
    assert (explicit.api_base, explicit.timeout, explicit.max_concurrency) == (
        "http://b:2/v1",
        9,
        7,
    )
    assert explicit.api_key_env == "K"  # what the command line leaves unset still comes through
    plain = resolve_model_settings("openai/other", settings)
    assert plain == ModelSettings(None, None, 60.0, 8, None)


def test_a_local_model_needs_its_server_unless_an_address_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ConfigError, match="local model is not running"):
        resolve_model_settings("local/gemma-3-270m", load_settings())
    monkeypatch.setenv("QUIZBOT_MODEL_SETTINGS", '{"local/*": {"api_base": "http://h:9/v1"}}')
    assert resolve_model_settings("local/gemma-3-270m", load_settings()).api_base == "http://h:9/v1"


def test_configured_endpoint_and_key_variable_reach_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Per-model settings, not litellm's variables, route the call (the stub answers)."""
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    monkeypatch.setenv("TEAM_KEY", "sk-team")
    with stub_server("--answer", "true") as base:
        monkeypatch.setenv(
            "QUIZBOT_MODEL_SETTINGS",
            f'{{"openai/*": {{"api_base": "{base}", "api_key_env": "TEAM_KEY"}}}}',
        )
        reach = resolve_model_settings("openai/configured", load_settings())
        got = asyncio.run(get_provider("openai/configured", reach).complete(ASK))
    assert got.text.strip() == "True" and got.model == "configured"


def test_closing_one_provider_leaves_the_others_and_later_ones_working() -> None:
    """A long-lived process (the app, the scheduler) asks again after a run has closed."""

    async def scenario(base: str) -> list[str]:
        first = get_provider("openai/a", ModelSettings(api_base=base))
        second = get_provider("openai/b", ModelSettings(api_base=base))
        answers = [(await first.complete(ASK)).text, (await second.complete(ASK)).text]
        await first.aclose()
        answers.append((await second.complete(ASK)).text)  # still open: its clients too
        await second.aclose()  # the last one: clients closed and forgotten
        third = get_provider("openai/c", ModelSettings(api_base=base))
        answers.append((await third.complete(ASK)).text)  # same loop, fresh clients
        await third.aclose()
        await third.aclose()  # closing twice is harmless
        return answers

    with stub_server("--answer", "true") as base:
        answers = asyncio.run(scenario(base))
    assert [a.strip() for a in answers] == ["True"] * 4
