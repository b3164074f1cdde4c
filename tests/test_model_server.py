"""The in-repository test model server answers as the tests rely on, over real HTTP."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.stub import stub_server


def _post(url: str, body: dict[str, Any], key: str | None = None) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _chat(base: str, prompt: str, key: str | None = None) -> tuple[int, dict[str, Any]]:
    body = {"model": "m", "messages": [{"role": "user", "content": prompt}]}
    return _post(f"{base}/chat/completions", body, key)


def _text(reply: dict[str, Any]) -> str:
    return str(reply["choices"][0]["message"]["content"])


def test_a_fixed_answer_and_its_usage(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    with stub_server("--answer", "false", "--log", str(log)) as base:
        status, reply = _chat(base, "Is the sky green? Answer True or False.")
    assert status == 200 and _text(reply) == "False" and reply["model"] == "m"
    assert reply["usage"]["completion_tokens"] == 1
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["prompt"].startswith("Is the sky green?")


def test_the_oracle_answers_the_last_item_in_the_prompt(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    rows = [
        {"kind": "statement", "text": "Aspirin treats pain.", "label": True},
        {"kind": "statement", "text": "Insulin treats fractures.", "label": False},
        {"kind": "choice", "question": "Which drug treats asthma?",
         "options": ["salbutamol", "warfarin", "I do not know"], "answer_keys": ["A"]},
        {"kind": "recall", "question": "List symptoms of migraine.",
         "answers": ["headache", "photophobia", "nausea", "aura"]},
    ]  # fmt: skip
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    demo_then_ask = "Aspirin treats pain.\nAnswer: True\n\nInsulin treats fractures.\nAnswer:"
    with stub_server("--oracle", str(items), "--policy", "correct") as base:
        assert _text(_chat(base, demo_then_ask)[1]) == "False"
        assert _text(_chat(base, "Which drug treats asthma? A. salbutamol")[1]) == "A"
        recalled = _text(_chat(base, "List symptoms of migraine.")[1])
        assert recalled == "headache, photophobia, nausea, aura"
        assert _text(_chat(base, "Something else entirely")[1]) == "I do not know"
    with stub_server("--oracle", str(items), "--policy", "wrong") as base:
        assert _text(_chat(base, demo_then_ask)[1]) == "True"
        assert _text(_chat(base, "Which drug treats asthma?")[1]) == "B"
    with stub_server("--oracle", str(items), "--policy", "bar1") as base:
        assert _text(_chat(base, "List symptoms of migraine.")[1]) == (
            "headache, photophobia, unrelated finding"
        )


def test_forced_status_and_echoed_key() -> None:
    with stub_server("--status", "401", "--echo-key") as base:
        status, reply = _chat(base, "hello", key="sk-echo-me-123456")
    assert status == 401 and reply["error"]["type"] == "authentication_error"
    assert "sk-echo-me-123456" in reply["error"]["message"]
    with stub_server("--status", "404") as base:
        status, reply = _chat(base, "hello", key="sk-echo-me-123456")
    assert status == 404 and "sk-echo-me" not in reply["error"]["message"]


def test_injected_faults_and_embeddings() -> None:
    with stub_server("--error-rate", "1.0") as base:
        statuses = {_chat(base, "x")[0] for _ in range(4)}
        assert statuses == {429, 500}
        status, reply = _post(f"{base}/embeddings", {"model": "e", "input": ["a b", "a b", "c"]})
    assert status == 200
    vectors = [row["embedding"] for row in reply["data"]]
    assert vectors[0] == vectors[1] != vectors[2]
    assert abs(sum(v * v for v in vectors[0]) - 1.0) < 1e-9


def test_litellm_reaches_it_for_chat_and_text_completion() -> None:
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import asyncio

    import litellm

    async def both(base: str) -> tuple[str, str]:
        chat = await litellm.acompletion(
            model="openai/x", api_base=base, api_key="k",
            messages=[{"role": "user", "content": "Is it? Answer True or False."}],
        )  # fmt: skip
        text = await litellm.atext_completion(
            model="openai/x", api_base=base, api_key="k", prompt="Is it? Answer:"
        )
        return chat.choices[0].message.content, text.choices[0].text

    with stub_server("--answer", "true") as base:
        assert asyncio.run(both(base)) == ("True", "True")


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]"])
def test_a_bad_body_is_a_400(body: bytes) -> None:
    with stub_server() as base:
        request = urllib.request.Request(f"{base}/chat/completions", data=body)
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 400


def test_a_server_that_writes_much_to_stderr_is_not_blocked(tmp_path: Path) -> None:
    # 1 MiB on stderr before the first line: a helper that left stderr unread until the server
    # stopped would see it block on a full pipe (64 KiB) and never start
    noisy = tmp_path / "noisy_server.py"
    noisy.write_text(
        "import sys, time\n"
        "for _ in range(1024):\n"
        "    sys.stderr.write('x' * 1023 + '\\n')\n"
        "sys.stderr.flush()\n"
        "print('listening on 127.0.0.1:9', flush=True)\n"
        "time.sleep(60)\n",
        encoding="utf-8",
    )
    with stub_server(server=noisy) as base:
        assert base == "http://127.0.0.1:9/v1"


def test_a_server_that_does_not_start_says_why(tmp_path: Path) -> None:
    broken = tmp_path / "broken_server.py"
    broken.write_text("import sys\nsys.exit('no model file here')\n", encoding="utf-8")
    with (
        pytest.raises(RuntimeError, match=r"did not start.*no model file here"),
        stub_server(server=broken),
    ):
        pass
