"""The local model: Gemma 3 270M served by llama.cpp, evaluated end to end with no API key.

Needs the extra quizbot[local]; skipped without it, unless QUIZBOT_REQUIRE_LOCAL_MODEL=1 (CI),
where its absence is a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.errors import ConfigError, InputError
from quizbot.providers import get_provider
from quizbot.providers.local import endpoint

REQUIRED = os.environ.get("QUIZBOT_REQUIRE_LOCAL_MODEL", "") in {"1", "true", "yes"}
HAVE_LLAMA = importlib.util.find_spec("llama_cpp") is not None


def test_local_models_need_the_running_server(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not running") as info:
        endpoint(tmp_path)
    assert info.value.hint and "quizbot local-model start" in info.value.hint
    with pytest.raises(InputError, match="local model server"):
        get_provider("local/gemma-3-270m")


@pytest.mark.slow
def test_gemma_answers_an_eval_end_to_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """One backend is enough here: the storage paths are proven on both elsewhere."""
    if not HAVE_LLAMA:
        if REQUIRED:
            pytest.fail("llama-cpp-python is not installed (QUIZBOT_REQUIRE_LOCAL_MODEL is set)")
        pytest.skip("the local extra (llama-cpp-python) is not installed")
    monkeypatch.setenv("QUIZBOT_HOME", str(tmp_path / "home"))  # SQLite file in the home
    runner = CliRunner()
    started = runner.invoke(cli, ["local-model", "start", "--json"])
    assert started.exit_code == 0, started.output
    try:
        server = json.loads(started.stdout)
        assert server["model"] == "local/gemma-3-270m"
        assert (tmp_path / "home" / "models" / "gemma-3-270m-q4_k_m.gguf").stat().st_size > 1e8
        status = json.loads(runner.invoke(cli, ["local-model", "status", "--json"]).stdout)
        assert status == {"running": True, "base_url": server["base_url"], "pid": server["pid"]}

        args = ["eval", "--model", "local/gemma-3-270m", "--kb", "clinical-core", "--points", "2",
                "--shots", "3", "--concurrency", "2", "--json"]  # fmt: skip
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["n_items"] == 32 and report["status"] == "completed"
        assert report["n_errors"] == 0
        assert report["model_reported"] == "gemma-3-270m"  # what llama.cpp said it served
        # A 270M base model is weak, but with few-shot completion it answers in the format.
        assert report["metrics"]["instruction_following_rate"] >= 0.5
    finally:
        stopped = runner.invoke(cli, ["local-model", "stop"])
    assert stopped.exit_code == 0 and "stopped" in stopped.stdout
    after = json.loads(runner.invoke(cli, ["local-model", "status", "--json"]).stdout)
    assert after == {"running": False}
