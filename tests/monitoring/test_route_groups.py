"""Request latency's route groups (quizbot.monitoring.metrics.route_of): a page's event stream and
heartbeat, which last as long as the page, never share a group with requests answered at once."""

from __future__ import annotations

import pytest

from quizbot.monitoring.metrics import route_of


@pytest.mark.parametrize(
    ("path", "group"),
    [
        ("/gradio_api/queue/data", "event_stream"),
        ("/gradio_api/heartbeat/abc123", "heartbeat"),
        ("/gradio_api/queue/join", "gradio_queue"),
        ("/gradio_api/call/practice_start", "gradio_api"),
        ("/", "page"),
        ("/login", "login"),
        ("/assets/index.js", "static"),
        ("/somewhere/else", "other"),
    ],
)
def test_each_path_falls_in_its_group(path: str, group: str) -> None:
    assert route_of(path) == group
