"""Local mode answers only loopback names (DNS rebinding) and no foreign Origin, over real HTTP.

A web page at ``http://rebind.evil.example:PORT`` whose name the attacker re-points at 127.0.0.1
sends ``Host: rebind.evil.example:PORT``: `quizbot serve` must give it no app (neither the page's
``/config`` nor ``/gradio_api/info``) and no model batch, while ``127.0.0.1:PORT``,
``localhost:PORT`` and ``[::1]:PORT`` are served. A state-changing request whose ``Origin`` is
another site (or another port of this machine) is refused, whatever its Host.
"""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.ui.conftest import Served

pytestmark = pytest.mark.slow


def _request(
    served: Served, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, str]:
    """One raw request to the served app with exactly these headers (Host included)."""
    parts = urlsplit(served.url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def test_a_rebound_host_name_gets_no_app_and_loopback_names_are_served(
    served_shared: Served,
) -> None:
    served = served_shared
    port = urlsplit(served.url).port
    for path in ("/config", "/gradio_api/info", "/"):
        status, body = _request(served, "GET", path, {"Host": f"rebind.evil.example:{port}"})
        assert status == 400, (path, status)
        assert "components" not in body and "named_endpoints" not in body
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
        status, body = _request(served, "GET", "/config", {"Host": host})
        assert status == 200, (host, status)
        assert "components" in json.loads(body)
        assert _request(served, "GET", "/gradio_api/info", {"Host": host})[0] == 200


def _join(served: Served, headers: dict[str, str]) -> int:
    """Queue a model question the way the page does; the status of the join."""
    status, body = _request(served, "GET", "/config", {"Host": headers["Host"]})
    config: dict[str, Any] = json.loads(body) if status == 200 else {"dependencies": []}
    dep = next((d for d in config["dependencies"] if d.get("api_name") == "status"), None)
    fn_index = dep["id"] if dep else 0
    payload = json.dumps({"data": [False], "fn_index": fn_index, "session_hash": "abcdef12345"})
    return _request(
        served,
        "POST",
        "/gradio_api/queue/join",
        {**headers, "Content-Type": "application/json"},
        payload.encode(),
    )[0]


def test_a_foreign_origin_cannot_change_anything(served_shared: Served) -> None:
    served = served_shared
    port = urlsplit(served.url).port
    own = {"Host": f"127.0.0.1:{port}"}
    assert _join(served, {**own, "Origin": f"http://127.0.0.1:{port}"}) == 200
    assert _join(served, own) == 200  # no Origin: not a browser page
    for origin in (f"http://rebind.evil.example:{port}", "http://127.0.0.1:3000", "null"):
        assert _join(served, {**own, "Origin": origin}) == 403, origin
    # a rebound page sends its own name as both Host and Origin: refused at the Host already
    rebound = f"rebind.evil.example:{port}"
    assert _join(served, {"Host": rebound, "Origin": f"http://{rebound}"}) == 400
    # reading stays open to the loopback names whatever the Origin (no state changes)
    assert (
        _request(served, "GET", "/gradio_api/info", {**own, "Origin": "http://x.example"})[0] == 200
    )
