"""Start the shared OpenAI-compatible stub server (../shared/tools/stub_openai.py) on loopback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

STUB = Path(__file__).resolve().parents[3] / "shared" / "tools" / "stub_openai.py"


@contextmanager
def stub_server(*args: str) -> Iterator[str]:
    """Run the stub with ``args``; yield its base URL (``http://127.0.0.1:PORT/v1``)."""
    if not STUB.exists():
        pytest.skip(f"{STUB} is not present")
    proc = subprocess.Popen(
        [sys.executable, str(STUB), "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        if not first.startswith("listening on "):
            raise RuntimeError(
                f"stub did not start: {first!r} {proc.stderr.read() if proc.stderr else ''}"
            )
        yield f"http://{first.removeprefix('listening on ')}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
