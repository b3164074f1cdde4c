"""The served app over raw HTTP, as an attacker without a browser would use it: upload limits and
what the public status endpoint tells."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.net import free_port, stop_process, wait_for_http

ROOT = Path(__file__).resolve().parents[2]
QUIZBOT = str(Path(sys.executable).with_name("quizbot"))

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class App:
    url: str
    database_url: str
    uploads: Path


@pytest.fixture
def app(database_url: str, tmp_path: Path) -> Iterator[App]:
    """`quizbot serve` with a 1 MB upload limit and its own Gradio upload directory."""
    port = free_port()
    uploads = tmp_path / "gradio"
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    env.update({
        "QUIZBOT_HOME": str(tmp_path / "home"),
        "DATABASE_URL": database_url,
        "QUIZBOT_MAX_UPLOAD_MB": "1",
        "QUIZBOT_ADMIN_PASSWORD": "a-long-admin-password",
        "GRADIO_TEMP_DIR": str(uploads),
    })  # fmt: skip
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [QUIZBOT, "serve", "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=log
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/")
        yield App(f"http://127.0.0.1:{port}", database_url, uploads)
    finally:
        stop_process(proc)
        log.close()


def _upload(url: str, name: str, data: bytes) -> tuple[int, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{url}/gradio_api/upload",
        data=body,
        method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


def _stored_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def test_an_oversize_upload_is_refused_and_not_kept(app: App) -> None:
    status, body = _upload(app.url, "big.csv", b"x" * (3 * 1024 * 1024))
    assert status == 413, body
    assert _stored_bytes(app.uploads) < 1024 * 1024  # nothing of the 3 MB stays on disk
    status, body = _upload(app.url, "small.csv", b"head,relation,tail\n")
    assert status == 200, body  # the route works: it is the size that was refused


def _call(url: str, api: str) -> str:
    request = urllib.request.Request(
        f"{url}/gradio_api/call/{api}",
        data=json.dumps({"data": []}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        event = json.loads(response.read())["event_id"]
    with urllib.request.urlopen(f"{url}/gradio_api/call/{api}/{event}", timeout=60) as response:
        body: bytes = response.read()
    return body.decode()


def test_the_public_status_endpoint_shows_no_database_location_or_row_counts(app: App) -> None:
    shown = _call(app.url, "status")
    assert "Schema version" in shown  # the endpoint answered
    location = app.database_url.rsplit("/", 1)[-1]  # the file or database name
    assert location not in shown
    assert "| table | rows |" not in shown and "respondent" not in shown
