"""A Gradio session hash belongs to the account that used it first (issue 25, N3), over real HTTP.

The attack: the session hash travels in every ``/gradio_api/queue/data`` URL, so a proxy log holds
it. Logged in as s2 with s1's session hash, the attacker joined the queue (an answer was stored as
s1's, in s1's practice session) and read s1's events. `quizbot serve` must refuse both.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest

from quizbot import accounts
from storage import open_database
from tests.ui.conftest import App
from tests.ui.test_accounts import _http, _login, _serve

pytestmark = pytest.mark.slow

OTHER = ("s2", "second student password")


@pytest.fixture
def app(database_url: str, tmp_path: Path) -> Iterator[App]:
    db = open_database(database_url)
    try:
        accounts.create_user(db, OTHER[0], "student", OTHER[1], cohort="year-1")
    finally:
        db.dispose()
    yield from _serve(database_url, tmp_path, {})


def _join(app: App, jar: CookieJar, session: str) -> int:
    """Join the queue for the page's status handler in Gradio session ``session``."""
    _, _, text = _http(f"{app.url}/config", cookies=jar)
    config: dict[str, Any] = json.loads(text)
    dep = next(d for d in config["dependencies"] if d.get("api_name") == "status")
    body = {"data": [False], "fn_index": dep["id"], "session_hash": session}
    status, _, _ = _http(
        f"{app.url}/gradio_api/queue/join",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        cookies=jar,
    )
    return status


def _opens(app: App, jar: CookieJar, path: str) -> int:
    """The status of a stream (``queue/data``, ``heartbeat``), read from its headers only: an
    open stream is never read to its end."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    try:
        response = opener.open(f"{app.url}{path}", timeout=60)
    except urllib.error.HTTPError as exc:
        return exc.code
    status: int = response.status
    response.close()
    return status


def test_another_account_cannot_use_a_session_hash(app: App) -> None:
    status, owner, _ = _login(app, "stu", "student password 1")
    assert status == 303
    session = uuid.uuid4().hex[:11]
    assert _join(app, owner, session) == 200
    assert _opens(app, owner, f"/gradio_api/queue/data?session_hash={session}") == 200

    status, attacker, _ = _login(app, *OTHER)
    assert status == 303
    assert _join(app, attacker, session) == 403  # joining s1's session as s2
    # reading s1's event stream, or keeping s1's session alive, as s2
    assert _opens(app, attacker, f"/gradio_api/queue/data?session_hash={session}") == 403
    assert _opens(app, attacker, f"/gradio_api/heartbeat/{session}") == 403

    # s2's own sessions work, and s1's session still works for s1
    assert _join(app, attacker, uuid.uuid4().hex[:11]) == 200
    assert _join(app, owner, session) == 200
