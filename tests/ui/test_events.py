"""The browser tests' event helpers' own words: what :func:`tests.ui.events.unsettled` says of a
page that did not settle (the text a flake hunt's failure report carries)."""

from __future__ import annotations

from tests.ui.events import load_handlers, unsettled


def test_unsettled_names_the_handlers_that_never_ran_and_the_open_events() -> None:
    state = {
        "joined": {"a1": 3, "b2": 5, "c3": 5},
        "done": ["a1", "c3"],
        "quiet": {"inflight": 1},
    }
    why = unsettled(state, {3, 5, 8})
    assert "handlers that never ran: [8]" in why
    assert "{'b2': 5}" in why
    assert "joins in flight: 1" in why
    assert "3 joined, 2 completed" in why


def test_unsettled_reads_a_page_that_recorded_nothing() -> None:
    why = unsettled({"joined": None, "done": None, "quiet": None}, {1})
    assert "handlers that never ran: [1]" in why
    assert "0 joined, 0 completed" in why


def test_load_handlers_are_the_server_handlers_of_page_loads() -> None:
    config = {
        "dependencies": [
            {"id": 1, "targets": [[0, "load"]], "backend_fn": True},
            {"id": 2, "targets": [[0, "load"]], "backend_fn": False},  # JavaScript only
            {"id": 3, "targets": [[7, "click"]], "backend_fn": True},
            {"id": 4, "targets": [[7, "click"], [0, "load"]]},
        ]
    }
    assert load_handlers(config) == {1, 4}
