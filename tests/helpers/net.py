"""Helpers for tests that start servers on loopback."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_http(url: str, timeout: float = 90.0, process: Any = None) -> str:
    """Poll ``url`` until it answers 200; return the body. Raises TimeoutError.

    With ``process`` (the server's ``subprocess.Popen``) the wait ends as soon as it exits
    (RuntimeError), so ``timeout`` can be long enough for a start on a loaded machine without
    making a crashed server a long wait."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited ({process.returncode}) before {url} answered")
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                if resp.status == 200:
                    return str(resp.read().decode("utf-8", "replace"))
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            last = exc
        time.sleep(0.3)
    raise TimeoutError(f"{url} did not answer within {timeout}s (last error: {last})")


def stop_process(proc: subprocess.Popen[Any], timeout: float = 20.0) -> int:
    """Stop a server this test started: SIGTERM, up to ``timeout`` seconds for it to exit, then
    SIGKILL and wait again. A process already gone is only reaped. Returns its exit status."""
    if proc.poll() is None:
        proc.terminate()
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
    return proc.wait(timeout=timeout)
