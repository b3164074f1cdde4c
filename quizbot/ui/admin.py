"""The "Admin" tab: log in, then import knowledge bases, look after monitors and read runs.

Admin actions are enabled by ``QUIZBOT_ADMIN_PASSWORD``; without it the tab only says how to turn
them on. With it, the tab shows a password box. A right password sets the session's
``is_admin`` state (server-side, per browser session) and reveals this tab's panel and the
admin-only components other tabs handed over (``admin_only``, e.g. the Monitor tab's "Run now");
a wrong one shows a message after a short delay and reveals nothing. Every handler checks
``is_admin`` again before it does or reads anything, and the panel's contents (the schedules
file, the runs) are only loaded after login, so they are never part of the page a student gets.

The panel:

* **Monitors**: the schedules file in force and its monitors (with their last night, alerts and
  next run), "Run now" per monitor, and a checker for a schedules file uploaded or edited in the
  browser (:func:`schedules.config.load_monitors`, the same validation the scheduler runs). The
  app never writes a schedules file: the shipped one belongs to the installation, so the way to
  change monitors is a file of one's own named by ``QUIZBOT_SCHEDULES_FILE``.
* **Runs**: the runs of :func:`storage.repo.list_runs`; selecting one shows
  :func:`quizbot.analysis.reporting.run_report` (:func:`render_report`): the figures
  ``quizbot runs report`` prints, with their 95% intervals, one titled table per section the run
  has (sub-labels, a permutation run's stability, open recall, SDAK, its repeat group).
* **Reason review (SDAK)**: for a run asked with the SDAK prompt, draw a sample of the reasons
  behind its correct verdicts (:func:`quizbot.analysis.reasons.sample_reasons`) and mark each
  sound or unsound, one at a time; the accuracy reliability so far is shown after each mark
  and in the run's report.
* **Review queue**: items students flagged in the practice chat (:mod:`quizbot.kb.review`), one
  at a time, with the item's text, its answer key, the KB fact behind it (for a false statement,
  the true tail it replaced), how many open flags it has and their comments; "Retire item",
  "True — never use as a negative", "False — remove this fact" and "Dismiss" record the
  decision (overrides, retirement) and close every open flag on that item.
* **Import a knowledge base**: a triplets CSV/JSONL file or MedLAMA ``<relation>_1000.csv``
  files, read by the importers ``quizbot kb import`` uses and installed with
  :func:`quizbot.kb.registry.install`; a bad file is refused whole, naming file, line and field.

:func:`build` lays each section out and wires it in a named part; the report's rendering is in
:mod:`quizbot.ui.admin_report`, the two review sections (reasons, flagged items) in
:mod:`quizbot.ui.admin_review`.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from quizbot import clock
from quizbot.analysis.reporting import run_report
from quizbot.domain import Run
from quizbot.errors import InputError, NotFoundError, QuizbotError
from quizbot.kb.importers import read_medlama, read_triplets
from quizbot.kb.registry import check_import_name, import_kb
from quizbot.monitoring.describe import describe_monitor
from quizbot.monitoring.nights import history
from quizbot.monitoring.scheduler import trigger_for
from quizbot.ratelimit import RateLimitedError
from quizbot.ui import admin_review as review
from quizbot.ui import identity
from quizbot.ui.admin_report import REPORT_CSS, render_report
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.monitor import NOT_ADMIN, declared_monitors, run_now
from quizbot.ui.render import md_escape
from schedules.config import MonitorSpec, default_schedules_file, load_monitors
from storage import Database
from storage.repo import list_runs

__all__ = [
    "FAILED_LOGIN_DELAY_S",
    "MONITOR_HEADERS",
    "RUN_HEADERS",
    "build",
    "check_schedules",
    "import_knowledge_base",
    "monitor_rows",
    "run_rows",
    "schedules_note",
]

ADMIN_REFUSED = "**Wrong password, or locked for a while after too many wrong ones.**"
FAILED_LOGIN_DELAY_S = 1.0  # slows down guessing; a right password is never delayed

MONITOR_HEADERS = [
    "monitor",
    "models",
    "schedule",
    "asks each night",
    "enabled",
    "last night",
    "alerts",
    "next run (UTC)",
]
RUN_HEADERS = ["run", "name", "model", "reported model", "status", "answers", "created (UTC)"]
KB_FORMATS = [("Triplets: one CSV or JSONL file", "triplets"), ("MedLAMA CSV files", "medlama")]


def schedules_note(path: Path, shipped: bool) -> str:
    """Markdown: which schedules file is in force and how to use another one."""
    origin = (
        "the file shipped with quizbot; it is part of the installation and is not edited here"
        if shipped
        else "named by `QUIZBOT_SCHEDULES_FILE`"
    )
    return (
        f"**Schedules file in force:** `{path}` ({origin}).\n\n"
        "To change the monitors, copy it somewhere of your own, edit it (or check an edited "
        "version below first), then set `QUIZBOT_SCHEDULES_FILE=/path/to/monitors.toml` and "
        "restart quizbot and its scheduler."
    )


def monitor_rows(
    specs: Sequence[MonitorSpec],
    histories: Mapping[str, Sequence[Mapping[str, Any]]],
    now: datetime,
    db: Database | None = None,
) -> list[list[Any]]:
    """One row per declared monitor (``MONITOR_HEADERS``); ``histories`` by monitor name; what
    each asks is :func:`quizbot.monitoring.describe.describe_monitor`'s text."""
    rows: list[list[Any]] = []
    for spec in specs:
        series = histories.get(spec.name, [])
        dates = [n["date"] for h in series for n in h["nights"]]
        upcoming = trigger_for(spec).get_next_fire_time(None, now) if spec.enabled else None
        rows.append(
            [
                spec.name,
                ", ".join(spec.models),
                f"{spec.cron} ({spec.timezone})",
                describe_monitor(db, spec.as_json()).text,
                "yes" if spec.enabled else "no",
                max(dates) if dates else "-",
                sum(len(h["alerts"]) for h in series),
                upcoming.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if upcoming else "-",
            ]
        )
    return rows


def run_rows(runs: Sequence[tuple[Run, int]]) -> list[list[Any]]:
    """One row per run, as :func:`storage.repo.list_runs` orders them (``RUN_HEADERS``)."""
    return [
        [
            run.id,
            run.name or "",
            run.model_requested,
            run.model_reported or "-",
            run.status,
            f"{answers}/{run.n_items}",
            run.created_at.strftime("%Y-%m-%d %H:%M"),
        ]
        for run, answers in runs
    ]


def _shown(message: str, folder: Path, label: str) -> str:
    """A message about files in a scratch folder, naming the files as the user knows them."""
    return message.replace(f"{folder}/", "").replace(str(folder), label)


def check_schedules(text: str) -> str:
    """Check the text of a schedules file as the scheduler would; Markdown verdict."""
    if not text.strip():
        return "Paste a schedules file, or upload one, first."
    with tempfile.TemporaryDirectory(prefix="quizbot-schedules-") as scratch:
        folder = Path(scratch)
        path = folder / "monitors.toml"
        path.write_text(text, encoding="utf-8")
        try:
            specs = load_monitors(path)
        except QuizbotError as exc:
            found = exc.message.removeprefix(f"{path}: ")
            problems = _shown(found, folder, "the file").split("; ")
            return "**Problems:**\n\n" + "\n".join(f"- {md_escape(p)}" for p in problems)
    if not specs:
        return "Valid, but it declares no monitors (add `[[monitor]]` tables)."
    names = ", ".join(f"`{s.name}` ({len(s.models)} model(s), cron `{s.cron}`)" for s in specs)
    return (
        f"**Valid:** {len(specs)} monitor(s): {names}. Save it outside the quizbot installation "
        "and point `QUIZBOT_SCHEDULES_FILE` at it to use it."
    )


def import_knowledge_base(db: Database, files: Sequence[str], fmt: str, name: str) -> str:
    """Import uploaded files as knowledge base ``name``, as ``quizbot kb import`` does.

    ``fmt`` is ``triplets`` (one CSV/JSONL file) or ``medlama`` (``<relation>_1000.csv`` files).
    Raises :class:`~quizbot.errors.QuizbotError` naming the file, line and field of a problem.
    """
    name = name.strip()
    if not name:
        raise InputError("give the knowledge base a name")
    check_import_name(name)
    if not files:
        raise InputError("upload a file first")
    if fmt == "triplets" and len(files) != 1:
        raise InputError("a triplets import takes one CSV or JSONL file", hint="upload one file")
    if fmt == "medlama":
        for upload in files:
            if not Path(upload).name.endswith("_1000.csv"):
                raise InputError(
                    "not a MedLAMA relation file",
                    path=Path(upload).name,
                    hint="upload the <relation>_1000.csv files of MedLAMA's 2021AA folder, "
                    "keeping their names",
                )
    with tempfile.TemporaryDirectory(prefix="quizbot-import-") as scratch:
        folder = Path(scratch)
        copies = []
        for upload in files:
            copy = folder / Path(upload).name  # the upload keeps the name it had on the user's disk
            shutil.copyfile(upload, copy)
            copies.append(copy)
        try:
            data = (
                read_medlama(folder, name) if fmt == "medlama" else read_triplets(copies[0], name)
            )
        except InputError as exc:
            raise InputError(_shown(exc.message, folder, "the upload"), hint=exc.hint) from None
    outcome = import_kb(db, data)
    shown = md_escape(name)
    if outcome.unchanged:
        return f"**{shown}** is already imported; nothing to do."
    points = sum(1 for t in data.triplets if t.meta.get("primary", True))
    return (
        f"Imported **{shown}**: {len(data.triplets):,} triplets ({points:,} knowledge points) "
        f"in {len(data.relations)} relation(s). Generate questions from it with "
        "`quizbot generate --kb <name> --out items.jsonl`."
    )


def _frame(headers: list[str], rows: list[list[Any]]) -> Any:
    return pd.DataFrame(rows, columns=headers)


@dataclass(frozen=True)
class _Login:
    """The password row (shown until an admin logs in) and the message under it."""

    row: gr.Row
    password: gr.Textbox
    button: gr.Button
    message: gr.Markdown


@dataclass(frozen=True)
class _Monitors:
    """The monitors section: the schedules file, its monitors, Run now, the file checker."""

    schedules: gr.Markdown
    table: gr.Dataframe
    name: gr.Dropdown
    run_now: gr.Button
    run_result: gr.Markdown
    upload: gr.File
    editor: gr.Code
    check: gr.Button
    check_result: gr.Markdown


@dataclass(frozen=True)
class _Runs:
    """The runs section: the list and the selected run's report."""

    refresh: gr.Button
    table: gr.Dataframe
    report: gr.Markdown


@dataclass(frozen=True)
class _Import:
    """The knowledge base import section."""

    files: gr.File
    format: gr.Radio
    name: gr.Textbox
    button: gr.Button
    result: gr.Markdown


def build(ctx: UiContext, is_admin: gr.State, admin_only: list[Any]) -> None:
    """Lay out the tab; logging in shows ``admin_only`` components of other tabs."""
    if not ctx.admin_enabled:
        gr.Markdown(
            "### Admin actions are off\n"
            "Set `QUIZBOT_ADMIN_PASSWORD` to a password of your choice and restart "
            "`quizbot serve`; this tab then asks for it and, once logged in, lets you import "
            "knowledge bases, check and run monitors, and read every run.",
            elem_id="qb-admin-disabled",
        )
        return
    login = _login_layout()
    with gr.Column(visible=False, elem_id="qb-admin-panel") as panel:
        with gr.Row():
            gr.Markdown("Admin actions below; every one is checked again on the server.")
            logout = gr.Button("Log out", size="sm", elem_id="qb-admin-logout", scale=0)
        monitors = _monitors_layout()
        runs = _runs_layout()
        reasons = review.reasons_layout()
        flags = review.flags_layout()
        kb = _import_layout()

    # Wired in the order the tab always was: login, logout, monitors, runs, import, reasons,
    # review queue, then (accounts mode) the admin account's page load.
    admin_data = _data_handler(ctx)
    data_outputs = [monitors.schedules, monitors.table, monitors.name, monitors.editor, runs.table]
    logged_in = _wire_login(ctx, is_admin, admin_only, login, panel, admin_data, data_outputs)
    logout.click(
        _logout_handler(admin_only),
        outputs=[
            *[is_admin, login.message, login.row, panel, *admin_only, *data_outputs],
            *[runs.report, monitors.run_result, monitors.check_result, kb.result],
        ],
        api_visibility="private",
    )
    _wire_monitors(ctx, is_admin, monitors, admin_data, data_outputs)
    _wire_runs_and_import(ctx, is_admin, runs, kb)
    review.wire_reasons(ctx, is_admin, reasons, flags.reviewer, logout)
    queue, queue_outputs = review.wire_flags(ctx, is_admin, flags, logged_in, logout)

    if ctx.accounts_mode():
        _account_login(ctx, is_admin, [login.row, panel, *admin_only, flags.reviewer]).then(
            admin_data, inputs=is_admin, outputs=data_outputs, api_visibility="private"
        ).then(queue, inputs=is_admin, outputs=queue_outputs, api_visibility="private")


def _login_layout() -> _Login:
    with gr.Row(elem_id="qb-admin-login-row") as login_row:
        password = gr.Textbox(
            label="Admin password", type="password", elem_id="qb-admin-password", scale=3
        )
        login = gr.Button("Log in", variant="primary", elem_id="qb-admin-login", scale=0)
    message = gr.Markdown(elem_id="qb-admin-message")
    return _Login(login_row, password, login, message)


def _monitors_layout() -> _Monitors:
    gr.Markdown("## Monitors")
    schedules = gr.Markdown(elem_id="qb-admin-schedules")
    monitors = gr.Dataframe(
        headers=MONITOR_HEADERS,
        label="Monitors of the schedules file",
        interactive=False,
        wrap=True,
        column_widths=["11%", "22%", "12%", "19%", "7%", "10%", "6%", "13%"],
        elem_id="qb-admin-monitors",
    )
    with gr.Row():
        monitor = gr.Dropdown(label="Monitor", choices=[], elem_id="qb-admin-monitor-name")
        run_monitor_now = gr.Button(
            "Run now", variant="primary", elem_id="qb-admin-monitor-run", scale=0
        )
    run_result = gr.Markdown(
        "Run now runs tonight's night for every model of the monitor (a night already "
        "done is skipped).",
        elem_id="qb-admin-monitor-result",
    )
    gr.Markdown("### Check a schedules file")
    with gr.Row():
        upload = gr.File(
            label="Upload a schedules file (.toml)",
            file_types=[".toml"],
            type="filepath",
            elem_id="qb-admin-schedules-file",
            scale=1,
        )
        editor = gr.Code(
            label="Schedules file (edit, then Check)",
            language=None,
            lines=14,
            interactive=True,
            elem_id="qb-admin-schedules-text",
            scale=2,
        )
    with gr.Row():
        check = gr.Button("Check", elem_id="qb-admin-schedules-check", scale=0)
        check_result = gr.Markdown(elem_id="qb-admin-schedules-result")
    return _Monitors(
        schedules, monitors, monitor, run_monitor_now, run_result, upload, editor, check,
        check_result,
    )  # fmt: skip


def _runs_layout() -> _Runs:
    gr.Markdown("## Runs")
    refresh_runs = gr.Button("Refresh runs", size="sm", elem_id="qb-admin-runs-refresh", scale=0)
    runs = gr.Dataframe(
        headers=RUN_HEADERS,
        label="Runs, newest first (select one for its report)",
        interactive=False,
        max_height=400,
        elem_id="qb-admin-runs",
    )
    gr.HTML(REPORT_CSS, padding=False, elem_id="qb-admin-report-css")
    report = gr.Markdown(elem_id="qb-admin-report")
    return _Runs(refresh_runs, runs, report)


def _import_layout() -> _Import:
    gr.Markdown("## Import a knowledge base")
    gr.Markdown(
        "**Triplets**: a CSV with the header `head,relation,tail` (optional columns "
        "`head_type`, `tail_type`, `group`) or JSONL objects with those fields. "
        "**MedLAMA**: one or more `<relation>_1000.csv` files from MedLAMA's `2021AA` "
        "folder. A file with a problem is refused whole, naming the file, line and field."
    )
    with gr.Row():
        kb_files = gr.File(
            label="Files",
            file_count="multiple",
            file_types=[".csv", ".jsonl", ".ndjson"],
            type="filepath",
            elem_id="qb-admin-kb-file",
        )
        with gr.Column():
            kb_format = gr.Radio(
                KB_FORMATS, value="triplets", label="Format", elem_id="qb-admin-kb-format"
            )
            kb_name = gr.Textbox(label="Name to import it under", elem_id="qb-admin-kb-name")
            kb_import = gr.Button("Import", variant="primary", elem_id="qb-admin-kb-import")
    kb_result = gr.Markdown(elem_id="qb-admin-kb-result")
    return _Import(kb_files, kb_format, kb_name, kb_import, kb_result)


def _runs_frame(ctx: UiContext, admin: bool) -> Any:
    if not admin:
        return gr.skip()
    return _frame(RUN_HEADERS, run_rows(list_runs(ctx.db)))


def _data_handler(ctx: UiContext) -> Callable[..., list[Any]]:
    """The handler that fills the panel (five outputs: schedules note, monitors, monitor
    choice, editor, runs)."""

    @guarded(5)
    def _admin_data(admin: bool, chosen: str | None = None, text: bool = True) -> list[Any]:
        """The panel's contents: the schedules file and its monitors (keeping the ``chosen``
        one selected), the file's text for the editor (unless ``text`` is False, so that an
        edit in progress survives a refresh) and the runs."""
        if not admin:
            return [gr.skip()] * 5
        path, specs, problem = declared_monitors(ctx)
        histories = {}
        for spec in specs:
            try:
                histories[spec.name] = history(ctx.db, spec.name)
            except NotFoundError:
                histories[spec.name] = []
        note = schedules_note(path, path.resolve() == default_schedules_file().resolve())
        if problem:
            note += f"\n\n**It could not be read:** {md_escape(problem)}"
        content: Any = gr.skip()
        if text:
            try:
                content = path.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as exc:
                content = f"# cannot read {path}: {exc}"
        names = [s.name for s in specs]
        chosen = chosen if chosen in names else (names[0] if names else None)
        return [
            note,
            _frame(MONITOR_HEADERS, monitor_rows(specs, histories, clock.now(), ctx.db)),
            gr.Dropdown(choices=names, value=chosen),
            content,
            _runs_frame(ctx, admin),
        ]

    return _admin_data


def _wire_login(
    ctx: UiContext,
    is_admin: gr.State,
    admin_only: list[Any],
    login: _Login,
    panel: gr.Column,
    admin_data: Callable[..., list[Any]],
    data_outputs: list[Any],
) -> Any:
    """Log in with the admin password, then fill the panel; returns that event (for more
    steps after a login)."""

    def _login(secret: str, request: gr.Request) -> list[Any]:
        address = request.client.host if request is not None and request.client else None
        try:
            if ctx.check_admin(secret or "", address):
                return [True, "Logged in as admin.", "", *_shown_to(True, admin_only)]
        except RateLimitedError as exc:
            wait = max(1, round(exc.retry_after))
            return [
                False, f"**Too many attempts; wait {wait} s.**", "", *_shown_to(False, admin_only)
            ]  # fmt: skip
        time.sleep(FAILED_LOGIN_DELAY_S)
        return [False, ADMIN_REFUSED, "", *_shown_to(False, admin_only)]

    admin_outputs = [is_admin, login.message, login.password, login.row, panel, *admin_only]
    return gr.on(
        [login.button.click, login.password.submit],
        _login,
        inputs=login.password,
        outputs=admin_outputs,
        api_visibility="private",
    ).then(admin_data, inputs=is_admin, outputs=data_outputs, api_visibility="private")


def _shown_to(admin: bool, admin_only: list[Any]) -> list[Any]:
    return [
        gr.update(visible=not admin),  # the login row
        gr.update(visible=admin),  # the panel
        *(gr.update(visible=admin) for _ in admin_only),
    ]


def _logout_handler(admin_only: list[Any]) -> Callable[[], list[Any]]:
    def _logout() -> list[Any]:
        cleared = ["", _frame(MONITOR_HEADERS, []), gr.Dropdown(choices=[], value=None), ""]
        results = ["", "", "", ""]  # the report and the three action results
        return [
            False,
            "Logged out.",
            *_shown_to(False, admin_only),
            *cleared,
            _frame(RUN_HEADERS, []),
            *results,
        ]

    return _logout


def _wire_monitors(
    ctx: UiContext,
    is_admin: gr.State,
    w: _Monitors,
    admin_data: Callable[..., list[Any]],
    data_outputs: list[Any],
) -> None:
    """Run now (then refresh the panel), load an uploaded schedules file, check one."""

    def _run(admin: bool, name: str | None) -> str:
        return run_now(ctx, admin, name)

    def _after_run(admin: bool, name: str | None) -> list[Any]:
        return admin_data(admin, name, text=False)

    w.run_now.click(
        _run, inputs=[is_admin, w.name], outputs=w.run_result, api_visibility="private"
    ).then(_after_run, inputs=[is_admin, w.name], outputs=data_outputs, api_visibility="private")

    def _load_upload(admin: bool, path: str | None) -> Any:
        if not admin:
            return gr.skip()
        if not path:
            return gr.skip()
        try:
            return Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            return f"# cannot read the upload: {exc}"

    w.upload.upload(
        _load_upload, inputs=[is_admin, w.upload], outputs=w.editor, api_visibility="private"
    )

    @guarded(1)
    def _check(admin: bool, text: str | None) -> str:
        if not admin:
            return NOT_ADMIN
        return check_schedules(text or "")

    w.check.click(
        _check, inputs=[is_admin, w.editor], outputs=w.check_result, api_visibility="private"
    )


def _wire_runs_and_import(ctx: UiContext, is_admin: gr.State, runs: _Runs, kb: _Import) -> None:
    """Refresh the runs, show a selected run's report, import a knowledge base."""

    @guarded(2, at=1)
    def _refresh_runs(admin: bool) -> tuple[Any, Any]:
        if not admin:
            return gr.skip(), NOT_ADMIN
        return _runs_frame(ctx, admin), gr.skip()

    runs.refresh.click(
        _refresh_runs, inputs=is_admin, outputs=[runs.table, runs.report], api_visibility="private"
    )

    @guarded(1)
    def _report(admin: bool, evt: gr.SelectData) -> str:
        if not admin:
            return NOT_ADMIN
        try:
            row = evt.row_value or []
            run_id = int(row[0])
        except (TypeError, ValueError, IndexError):
            return "Select a run's row."
        return render_report(run_report(ctx.db, run_id))

    runs.table.select(_report, inputs=is_admin, outputs=runs.report, api_visibility="private")

    @guarded(1)
    def _import(admin: bool, files: list[str] | None, fmt: str, name: str | None) -> str:
        if not admin:
            return NOT_ADMIN
        return import_knowledge_base(ctx.db, files or [], fmt, name or "")

    kb.button.click(
        _import,
        inputs=[is_admin, kb.files, kb.format, kb.name],
        outputs=kb.result,
        api_visibility="private",
    )


def _account_login(ctx: UiContext, is_admin: gr.State, shown: list[Any]) -> Any:
    """Accounts mode: an admin account is an admin from the page load on (no admin password;
    :func:`quizbot.ui.identity.restrict` checks the role again at every admin call). ``shown``:
    the password row, the panel, the other tabs' admin-only components, and the "Decided by"
    box (which then shows the account, and decisions are recorded under its name)."""

    def _from_account(request: gr.Request) -> list[Any]:
        admin = identity.current(ctx, request).is_admin
        # the password row stays hidden: admin rights follow the account only
        return [
            admin,
            gr.update(visible=False),
            *(gr.update(visible=admin) for _ in shown[1:-1]),
            gr.update(value=identity.current(ctx, request).name, interactive=False),
        ]

    return gr.on(None, _from_account, outputs=[is_admin, *shown], api_visibility="private")
