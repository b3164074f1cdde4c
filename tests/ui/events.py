"""What a Gradio page has asked the server and what has come back, for tests that must wait on
the app rather than sleep.

:func:`watch` installs a small wrapper of the page's ``fetch`` (before the app's scripts run):
every ``queue/join`` (one server event: the handler's ``fn_index``, the ``event_id`` the
server gives it) and every ``process_completed`` message of the ``queue/data`` stream are
recorded in the page. :func:`wait_settled` then waits until given handlers have run, every
event the page started has completed, no join is on its way, and nothing has moved for three
frames and 100 ms (a completed event's outputs set off their ``.change`` handlers a tick later:
without that, "settled" could be seen between an event and the change it causes).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

_WATCH_JS = """
(() => {
  const joined = (window.qbJoined = {});  // event_id -> fn_index
  const done = (window.qbDone = new Set());
  // Joins sent whose event_id has not come back yet, and the frame and time of the last
  // join sent, join answered or event completed: a completed event's outputs set off their
  // .change handlers a tick or two later, so "nothing pending" must hold a few frames on.
  const quiet = (window.qbQuiet = { inflight: 0, frame: 0, lastFrame: 0, lastAt: 0 });
  const stir = () => { quiet.lastFrame = quiet.frame; quiet.lastAt = performance.now(); };
  const tickFrame = () => { quiet.frame += 1; requestAnimationFrame(tickFrame); };
  requestAnimationFrame(tickFrame);
  const original = window.fetch.bind(window);
  async function read(stream) {
    const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) return;
      rest += value;
      const lines = rest.split("\\n");
      rest = lines.pop();
      for (const line of lines) {
        if (!line.startsWith("data:")) continue;
        try {
          const msg = JSON.parse(line.slice(5));
          if (msg.msg === "process_completed" && msg.event_id) {
            done.add(msg.event_id);
            stir();
          }
        } catch (e) {}
      }
    }
  }
  window.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url ?? String(input);
    const joining = url.includes("/queue/join");
    if (joining) { quiet.inflight += 1; stir(); }
    let response;
    try {
      response = await original(input, init);
    } catch (e) {
      if (joining) { quiet.inflight -= 1; stir(); }
      throw e;
    }
    if (joining) {
      let fn = null;
      try { fn = JSON.parse(init?.body ?? "{}").fn_index; } catch (e) {}
      response.clone().json().then(
        (r) => { if (r.event_id) joined[r.event_id] = fn; },
        () => {},
      ).finally(() => { quiet.inflight -= 1; stir(); });
    } else if (url.includes("/queue/data") && response.body) {
      const [mine, theirs] = response.body.tee();
      read(mine);
      return new Response(theirs, {
        status: response.status, statusText: response.statusText, headers: response.headers,
      });
    }
    return response;
  };
})();
"""

_SETTLED_JS = """(fns) => {
  const joined = window.qbJoined, done = window.qbDone, quiet = window.qbQuiet;
  if (!joined) return false;
  const ran = new Set(Object.entries(joined).filter(([id]) => done.has(id)).map(([, fn]) => fn));
  const still = quiet.inflight === 0 && quiet.frame - quiet.lastFrame >= 3
    && performance.now() - quiet.lastAt >= 100;
  return still && fns.every((fn) => ran.has(fn)) && Object.keys(joined).every((id) => done.has(id));
}"""


def watch(tab: Any) -> None:
    """Record the page's server events from its next load on (call before ``goto``/``reload``)."""
    tab.add_init_script(_WATCH_JS)


_STATE_JS = """() => ({
  joined: window.qbJoined ?? null,
  done: window.qbDone ? [...window.qbDone] : null,
  quiet: window.qbQuiet ?? null,
  now: performance.now(),
})"""


def page_events(tab: Any) -> dict[str, Any]:
    """What the page has recorded of its server events (needs :func:`watch`): ``joined``
    (event id -> handler id), ``done`` (event ids completed), ``quiet`` (joins in flight, the
    last frame and time anything moved) and ``now``."""
    state = tab.evaluate(_STATE_JS)
    assert isinstance(state, dict)
    return state


def unsettled(state: dict[str, Any], fns: set[int] | frozenset[int]) -> str:
    """Why a page is not settled, from :func:`page_events`' state, in words."""
    joined: dict[str, Any] = state.get("joined") or {}
    done = set(state.get("done") or [])
    quiet: dict[str, Any] = state.get("quiet") or {}
    ran = {fn for event, fn in joined.items() if event in done}
    open_events = {event: fn for event, fn in joined.items() if event not in done}
    return (
        f"handlers that never ran: {sorted(set(fns) - ran)}; events joined but not completed "
        f"(event id: handler): {open_events}; joins in flight: {quiet.get('inflight')}; "
        f"{len(joined)} joined, {len(done)} completed"
    )


def wait_settled(
    tab: Any, fns: set[int] | frozenset[int] = frozenset(), timeout: float = 60_000
) -> None:
    """Wait until each handler in ``fns`` has run and every event the page started is done.
    On a timeout the error says which handlers and events were still open."""
    try:
        tab.wait_for_function(_SETTLED_JS, arg=sorted(fns), timeout=timeout)
    except PlaywrightTimeout as error:
        try:
            why = unsettled(page_events(tab), fns)
        except Exception as inner:  # the page may be gone: say so, keep the timeout
            why = f"the page's events could not be read ({inner})"
        raise AssertionError(f"the page did not settle in {timeout / 1000:.0f} s: {why}") from error


def load_handlers(config: dict[str, Any]) -> set[int]:
    """The ids of the handlers a page load runs on the server (JavaScript-only ones excluded)."""
    return {
        d["id"]
        for d in config["dependencies"]
        if any(t[1] == "load" for t in d["targets"]) and d.get("backend_fn", True)
    }


def config_of(text: str) -> dict[str, Any]:
    """The app's config (the text of ``/config``) as a dict."""
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


def wait_loaded(tab: Any, base_url: str, timeout: float = 60_000) -> None:
    """Wait until the page's load events (and what they started) have run; needs :func:`watch`
    before the page was opened. The config is read as the page's own session (accounts mode)."""
    config = config_of(tab.request.get(f"{base_url.rstrip('/')}/config").text())
    wait_settled(tab, load_handlers(config), timeout)


def wait_layout(tab: Any) -> None:
    """Wait until the browser has laid out and painted what changed (two animation frames),
    e.g. after a resize, instead of sleeping."""
    tab.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


JOINS = "**/gradio_api/queue/join*"


@contextmanager
def page_events_held(tab: Any, base_url: str) -> Iterator[None]:
    """Reload ``tab`` with the page's server events held at the network, so what the test does
    inside the block certainly comes before them; then release them and wait until they and
    everything they started have run."""
    loads = load_handlers(config_of(tab.request.get(f"{base_url}config").text()))
    assert loads, "the page has load events, or this test checks nothing"
    held: list[Any] = []
    released = False

    def hold(route: Any) -> None:  # the server events wait until the block is done
        if released:
            route.continue_()
        else:
            held.append(route)

    watch(tab)
    tab.route(JOINS, hold)
    tab.reload()
    yield
    assert len(held) >= len(loads)  # the load events did wait
    released = True
    for route in held:
        route.continue_()
    wait_settled(tab, loads)
