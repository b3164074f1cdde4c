"""No network at import or start: quizbot, litellm and the app make no outside connection."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_GUARD = r"""
import json, os, socket, sys
attempts = []
_real_connect = socket.socket.connect
_real_gai = socket.getaddrinfo

def _loopback(host):
    return str(host) in {"127.0.0.1", "::1", "localhost"} or str(host).startswith("127.")

def connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
        attempts.append(f"connect {address}")
        raise OSError("network disabled by test")
    return _real_connect(self, address)

def getaddrinfo(host, *args, **kwargs):
    if host is not None and not _loopback(host):
        attempts.append(f"resolve {host}")
        raise socket.gaierror("network disabled by test")
    return _real_gai(host, *args, **kwargs)

socket.socket.connect = connect
socket.getaddrinfo = getaddrinfo

import quizbot  # sets the offline environment first
env = {k: os.environ.get(k) for k in ("LITELLM_LOCAL_MODEL_COST_MAP", "GRADIO_ANALYTICS_ENABLED")}
import litellm  # noqa: F401
from quizbot.config import load_settings
from quizbot.ui.app import build_app
from storage import open_database
settings = load_settings()
db = open_database(settings.effective_database_url)
app = build_app(settings, db)
app.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), prevent_thread_lock=True,
           quiet=True)
app.close()
print(json.dumps({"attempts": attempts, "env": env}))
"""


@pytest.mark.slow
def test_import_and_start_make_no_outside_connection(tmp_path: Path) -> None:
    from tests.helpers.net import free_port

    script = tmp_path / "guard.py"
    script.write_text(_GUARD)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "GRADIO_", "LITELLM_"))
    }
    env["QUIZBOT_HOME"] = str(tmp_path / "home")
    result = subprocess.run(
        [sys.executable, str(script), str(free_port())],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["env"] == {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    assert report["attempts"] == []
