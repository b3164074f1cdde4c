"""Who may call each event handler: the roles declared where handlers are wired (issue 27).

:data:`CONTRACT` below is the contract: every handler of the built app (admin enabled, so every
tab has its handlers), by its area and name, with the role it needs and how many times it is
wired. A handler added without an entry here, or wired outside every area, or declared with
another role, fails :func:`test_every_handler_has_the_role_the_contract_names`; the app refuses
to build with a handler declared nowhere. :func:`identity.restrict`'s count (handlers wrapped
with the role check) is checked against the contract.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gradio as gr
import pytest

from quizbot.config import load_settings
from quizbot.domain import Role
from quizbot.ui import identity
from quizbot.ui.app import TAB_ROLES, build_app
from quizbot.ui.context import UiContext
from quizbot.ui.wiring import EVERYONE, Wiring, handler_name, wiring_of
from storage import open_database

ADMIN, INSTR = Role.ADMIN, Role.INSTRUCTOR

# (area, handler) -> (role it needs, how many times it is wired)
CONTRACT: dict[tuple[str, str], tuple[Role | None, int]] = {
    ("page", "app:build_app._kbs"): (EVERYONE, 1),
    ("page", "app:build_app._status"): (EVERYONE, 1),
    ("page", "identity:tab_visibility.shown"): (EVERYONE, 1),
    ("status", "app:build_app._kbs"): (EVERYONE, 1),
    ("status", "app:build_app._status"): (EVERYONE, 2),
    ("practice", "practice.layout:_wire_starts.<lambda>"): (EVERYONE, 1),
    ("practice", "practice.panels:kb_changed"): (EVERYONE, 1),
    ("practice", "practice.panels:refresh_due"): (EVERYONE, 2),
    ("practice", "practice.panels:send_flag"): (EVERYONE, 1),
    ("practice", "practice.panels:show_coverage"): (EVERYONE, 2),
    ("practice", "practice.panels:show_progress"): (EVERYONE, 1),
    ("practice", "practice.render:intro_text"): (EVERYONE, 1),
    ("practice", "practice.sessions:_fixed_answer.handler"): (EVERYONE, 3),
    ("practice", "practice.sessions:after_start"): (EVERYONE, 5),
    ("practice", "practice.sessions:end"): (EVERYONE, 1),
    ("practice", "practice.sessions:offer_resume"): (EVERYONE, 1),
    ("practice", "practice.sessions:resume"): (EVERYONE, 1),
    ("practice", "practice.sessions:show_next"): (EVERYONE, 1),
    ("practice", "practice.sessions:start"): (EVERYONE, 3),
    ("practice", "practice.sessions:start_due"): (EVERYONE, 1),
    ("practice", "practice.sessions:submit"): (EVERYONE, 1),
    ("practice", "practice.sessions:submit_selection"): (EVERYONE, 1),
    ("practice", "recall_practice:_wire_comeback.<lambda>"): (EVERYONE, 1),
    ("practice", "recall_practice:offer"): (EVERYONE, 1),
    ("practice", "recall_practice:refresh_due"): (EVERYONE, 5),
    ("practice", "recall_practice:resume"): (EVERYONE, 1),
    ("practice", "recall_practice:settle"): (EVERYONE, 4),
    ("practice", "recall_practice:start_review"): (EVERYONE, 2),
    ("practice", "recall_practice:aspects_for"): (EVERYONE, 2),
    ("practice", "recall_practice:end"): (EVERYONE, 1),
    ("practice", "recall_practice:mark"): (EVERYONE, 1),
    ("practice", "recall_practice:show_next"): (EVERYONE, 1),
    ("practice", "recall_practice:start"): (EVERYONE, 1),
    ("practice", "recall_practice:submit"): (EVERYONE, 1),
    ("ask", "ask:_kb_picker.knowledge_bases"): (INSTR, 2),
    ("ask", "ask:_kb_picker.relations"): (INSTR, 2),
    ("monitor", "monitor:_view_handler._view"): (INSTR, 5),
    ("monitor", "monitor:build.<lambda>"): (INSTR, 1),
    ("monitor", "monitor:build._act"): (INSTR, 3),
    ("monitor", "monitor:build._run"): (INSTR, 1),
    ("monitor", "monitor_incident:incident_section._choices"): (INSTR, 1),
    ("monitor", "monitor_incident:incident_section._first_choices"): (INSTR, 1),
    ("monitor", "monitor_incident:incident_section._page"): (INSTR, 4),
    ("assignments", "assignments:_retire_panel._retire"): (INSTR, 1),
    ("admin", "admin:_data_handler._admin_data"): (ADMIN, 1),
    ("admin", "admin:_logout_handler._logout"): (ADMIN, 1),
    ("admin", "admin:_wire_login._login"): (ADMIN, 1),
    ("admin", "admin:_wire_monitors._after_run"): (ADMIN, 1),
    ("admin", "admin:_wire_monitors._check"): (ADMIN, 1),
    ("admin", "admin:_wire_monitors._load_upload"): (ADMIN, 1),
    ("admin", "admin:_wire_monitors._run"): (ADMIN, 1),
    ("admin", "admin:_wire_runs_and_import._import"): (ADMIN, 1),
    ("admin", "admin:_wire_runs_and_import._refresh_runs"): (ADMIN, 1),
    ("admin", "admin:_wire_runs_and_import._report"): (ADMIN, 1),
    ("admin", "admin_review:_decision.handler"): (ADMIN, 4),
    ("admin", "admin_review:wire_flags._forget"): (ADMIN, 1),
    ("admin", "admin_review:wire_flags._queue"): (ADMIN, 6),
    ("admin", "admin_review:wire_flags._select"): (ADMIN, 1),
    ("admin", "admin_review:wire_reasons._draw"): (ADMIN, 1),
    ("admin", "admin_review:wire_reasons._forget_reasons"): (ADMIN, 1),
    ("admin", "admin_review:wire_reasons._reason_mark.handler"): (ADMIN, 2),
    ("practice", "practice.layout:_wire_due_panel.<lambda>"): (EVERYONE, 1),
    ("practice", "practice.panels:start_weakest"): (EVERYONE, 1),
    ("ask", "ask:_shared_controls.<lambda>"): (INSTR, 1),
    ("ask", "ask:_wire_custom.on_custom"): (INSTR, 1),
    ("ask", "ask:_wire_generated.on_new"): (INSTR, 1),
    ("ask", "ask:_wire_generated.on_generated"): (INSTR, 1),
    ("ask", "ask:_wire_batch.on_batch"): (INSTR, 1),
    ("compare", "compare:_wire_lists.initial_lists"): (INSTR, 1),
    ("compare", "compare:_wire_lists.lists"): (INSTR, 1),
    ("compare", "compare:_wire_lists.on_models"): (INSTR, 1),
    ("compare", "compare:_wire_compare.on_compare"): (INSTR, 1),
    ("compare", "compare:_wire_compare.<lambda>"): (INSTR, 1),
    ("compare", "compare:_wire_export.on_export"): (INSTR, 1),
    ("assignments", "assignments:_wire_listing._list"): (INSTR, 3),
    ("assignments", "assignments:_wire_listing._opened"): (INSTR, 1),
    ("assignments", "assignments:_wire_create._create"): (INSTR, 1),
    ("assignments", "assignments:_wire_results._show"): (INSTR, 1),
    ("assignments", "assignments:_wire_results.<lambda>"): (INSTR, 1),
    ("assignments", "assignments:_wire_results._export.run"): (INSTR, 2),
}
RANK = {None: -1, Role.STUDENT: 0, Role.INSTRUCTOR: 1, Role.ADMIN: 2}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[gr.Blocks]:
    """The whole app, admin tab included, over a fresh SQLite database file."""
    home = tmp_path_factory.mktemp("wiring")
    settings = load_settings(
        home=str(home), database_url=f"sqlite:///{home}/quizbot.db", admin_password="x" * 12
    )
    db = open_database(settings.effective_database_url)
    try:
        yield build_app(settings, db)
    finally:
        db.dispose()


def _declared(app: gr.Blocks) -> tuple[Wiring, Counter[tuple[str, str, Role | None]]]:
    wiring = wiring_of(app)
    assert wiring is not None
    found: Counter[tuple[str, str, Role | None]] = Counter()
    for key, block_fn in app.fns.items():
        if block_fn.fn is None:  # a step that runs in the browser only (js=...)
            continue
        area = wiring.area_of(key)
        assert area is not None, f"{handler_name(block_fn.fn)} is wired outside every area"
        found[(area.name, handler_name(block_fn.fn), area.role)] += 1
    return wiring, found


def test_every_handler_has_the_role_the_contract_names(app: gr.Blocks) -> None:
    _, found = _declared(app)
    listed = {(area, name, role): n for (area, name), (role, n) in CONTRACT.items()}
    missing = sorted(set(found) - set(listed), key=str)
    lines = [f'    ("{a}", "{n}"): ({r}, {found[(a, n, r)]}),' for a, n, r in missing]
    assert not missing, "handlers the contract does not list (or with another role):\n" + (
        "\n".join(lines)
    )
    assert dict(found) == listed  # no handler gone, none wired more or fewer times


def test_restrict_wrapped_exactly_the_handlers_that_need_a_role(app: gr.Blocks) -> None:
    wiring, found = _declared(app)
    needing = sum(n for (_, _, role), n in found.items() if role is not None)
    assert needing == sum(n for role, n in CONTRACT.values() if role is not None) == 67
    assert wiring.guarded == needing  # identity.restrict's own count of what it wrapped
    # Each wrapped handler takes the request (its role check) as its last parameter.
    for key, block_fn in app.fns.items():
        area = wiring.area_of(key)
        if block_fn.fn is not None and area is not None and area.role is not None:
            assert "qb_request" in inspect.signature(block_fn.fn).parameters


def _members(block: Any) -> Iterator[int]:
    yield block._id
    for child in getattr(block, "children", None) or []:
        yield from _members(child)


def test_no_handler_touches_a_tab_that_needs_more_than_its_own_role(app: gr.Blocks) -> None:
    """A handler declared with a lower role than a tab whose components it reads or writes
    (say, wired on the Practice tab with an admin-only output) would let too many in."""
    wiring, _ = _declared(app)
    tabs = {
        block: TAB_ROLES[block.id]
        for block in app.blocks.values()
        if isinstance(block, gr.Tab) and block.id in TAB_ROLES
    }
    assert len(tabs) == len(TAB_ROLES)
    members = {tab: set(_members(tab)) for tab in tabs}
    for key, block_fn in app.fns.items():
        area = wiring.area_of(key)
        if block_fn.fn is None or area is None:
            continue
        touched = {t[0] for t in block_fn.targets if t[0] is not None}
        touched |= {b._id for b in [*block_fn.inputs, *block_fn.outputs]}
        for tab, role in tabs.items():
            if touched & members[tab] and area.name != "page":  # the page shows the tabs
                assert RANK[area.role] >= RANK[role], (handler_name(block_fn.fn), tab.id)


def test_a_handler_wired_outside_every_area_stops_the_build(tmp_path: Path) -> None:
    settings = load_settings(home=str(tmp_path), database_url=f"sqlite:///{tmp_path}/q.db")
    db = open_database(settings.effective_database_url)
    try:
        with gr.Blocks() as blocks:
            wiring = Wiring(blocks)
            button = gr.Button("go")
            with wiring.area("inside", Role.ADMIN):
                button.click(lambda: None)
            button.click(lambda: None)  # declared nowhere
        with pytest.raises(RuntimeError, match="outside every area"):
            identity.restrict(UiContext(settings, db), blocks, wiring)
    finally:
        db.dispose()


def test_views_of_the_database_run_again_when_triggered_meanwhile(app: gr.Blocks) -> None:
    """The due counts and resume offers are refreshed by events (a name typed, a KB chosen, the
    chat changed): one arriving while a refresh runs must run it again afterwards, not be
    dropped, or what was read before an answer was stored stays on screen."""
    from quizbot.ui.practice.layout import REFRESHING

    seen: Counter[str] = Counter()
    for block_fn in app.fns.values():
        name = handler_name(block_fn.fn)
        events = {event for _, event in block_fn.targets}
        if name in REFRESHING and events - {"then"}:  # wired on events, not chained steps
            assert block_fn.trigger_mode == "always_last", (name, sorted(events))
            seen[name] += 1
    assert set(seen) == set(REFRESHING)  # every one of them is wired on events somewhere


# The practice handlers that read and write a session, by name: at most PRACTICE_CONCURRENCY
# calls of each at once in a replica (quizbot.ui.practice.layout, docs/performance.md Part 15).
SESSION_STEPS = {
    "practice.sessions:start",
    "practice.sessions:start_due",
    "practice.sessions:resume",
    "practice.sessions:submit",
    "practice.sessions:submit_selection",
    "practice.sessions:_fixed_answer.handler",
    "practice.sessions:end",
    "practice.sessions:show_next",
}


def test_session_steps_run_a_few_at_once_and_model_calls_keep_the_default(app: gr.Blocks) -> None:
    from quizbot.ui.practice.layout import PRACTICE_CONCURRENCY

    assert PRACTICE_CONCURRENCY < 16  # Gradio's default here (quizbot.ui.gate.web_app)
    wiring = wiring_of(app)
    assert wiring is not None
    seen: Counter[str] = Counter()
    for key, block_fn in app.fns.items():
        name = handler_name(block_fn.fn)
        area = wiring.area_of(key)
        if name in SESSION_STEPS and area is not None and area.name == "practice":
            assert block_fn.concurrency_limit == PRACTICE_CONCURRENCY, name
            seen[name] += 1
        elif area is not None and area.name in ("ask", "compare"):
            assert block_fn.concurrency_limit == "default", name  # the queue's 16
    assert set(seen) == SESSION_STEPS
