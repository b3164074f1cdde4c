"""A click answered while the page's event stream is being closed still completes (issue 31).

Gradio's page reads every event's result from one stream (``queue/data``) that the server
closes once the page has no event left ("close_stream"); the page opens a new one when it joins
an event while none is open. The two travel on different connections, so a busy browser can
read a new event's join reply before the "close_stream" the server sent just before it: the
page then believes the stream open, reads the close and drops the stream, and the new event's
result waits on the server for a stream nobody opens. That was the hung "Review my recall
mistakes" of the seventh session's flake hunt: the click came as the due line's refresh,
chained after the last answer, finished.

Here the order is forced, never timed: a wrapper of the page's ``fetch`` holds back the
"close_stream" messages the server sends, the test clicks while one is held, waits until the
click's join is answered, and only then lets the close through.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import Served, open_page
from tests.ui.events import wait_layout, wait_settled
from tests.ui.test_recall_practice import start_recall
from tests.ui.test_recall_review import _answer, _enter_name

# Installed after tests/ui/events.py's wrapper, so it wraps it: that one still sees every
# message as it comes; the page sees a "close_stream" only once the test releases it.
_HOLD_CLOSE_JS = """
(() => {
  const held = (window.qbHeldCloses = []);
  window.qbHoldCloses = false;
  window.qbReleaseCloses = () => {
    window.qbHoldCloses = false;
    held.splice(0).forEach((f) => f());
  };
  const inner = window.fetch;
  const CLOSE = 'data: {"msg":"close_stream"';
  window.fetch = async (input, init) => {
    const response = await inner(input, init);
    const url = typeof input === "string" ? input : input.url ?? String(input);
    if (!url.includes("/queue/data") || !response.body) return response;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const encode = (text) => new TextEncoder().encode(text);
    const body = new ReadableStream({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) {
          if (held.length) await new Promise((r) => held.push(r));
          controller.close();
          return;
        }
        const at = window.qbHoldCloses ? value.indexOf(CLOSE) : -1;
        if (at < 0) {
          controller.enqueue(encode(value));
          return;
        }
        if (at > 0) controller.enqueue(encode(value.slice(0, at)));  // all but the close
        window.qbClosesHeld = (window.qbClosesHeld || 0) + 1;
        await new Promise((r) => held.push(r));
        controller.enqueue(encode(value.slice(at)));
      },
    });
    return new Response(body, {
      status: response.status, statusText: response.statusText, headers: response.headers,
    });
  };
})();
"""

# The server sent the close (held back), or (a stream that is never closed) every event joined
# has come back.
_CLOSED_OR_DONE_JS = """() => window.qbClosesHeld > 0 || (window.qbQuiet.inflight === 0
  && Object.keys(window.qbJoined).every((id) => window.qbDone.has(id)))"""


@pytest.fixture
def holding_page(served: Served) -> Iterator[Any]:
    """A Chromium page on ``served`` whose "close_stream" messages the test can hold."""
    with open_page(served.url, _HOLD_CLOSE_JS) as tab:
        yield tab


def _joined(tab: Any) -> int:
    return int(tab.evaluate("() => Object.keys(window.qbJoined).length"))


def test_a_click_joined_while_the_event_stream_closes_still_completes(
    holding_page: Any,
) -> None:
    tab, student = holding_page, "Cleo Close"
    start_recall(tab, student, 1, aspect="relation:has_symptom")
    _answer(tab, "I don't know", 1, 1)  # a mistake to review
    expect(tab.locator("#qb-recall-status")).to_contain_text("Session over")
    wait_settled(tab)  # the due line's refresh after the answer is done: no stream open

    # An event that ends with the page's stream being closed, the close held back...
    tab.evaluate("() => { window.qbHoldCloses = true; }")
    _enter_name(tab, student)  # the offer and the due line: server events
    tab.wait_for_function(_CLOSED_OR_DONE_JS)
    # ... and "Review my recall mistakes" joined before the page reads that close.
    before = _joined(tab)
    tab.locator("#qb-recall-review").click()
    tab.wait_for_function("(n) => Object.keys(window.qbJoined).length > n", arg=before)
    wait_layout(tab)  # the page has taken the join's reply in
    tab.evaluate("() => window.qbReleaseCloses()")
    question = tab.locator("#qb-recall-question")
    expect(question).to_contain_text("Question 1 of 1", timeout=30_000)
    expect(tab.locator("#qb-recall-status")).to_contain_text("Review my mistakes")
