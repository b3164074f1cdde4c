"""Build the Gradio app: one tab per audience, each in its own module.

Practice (students, :mod:`quizbot.ui.practice`), Ask a model (:mod:`quizbot.ui.ask`), Humans vs
models (:mod:`quizbot.ui.compare`), Monitor (:mod:`quizbot.ui.monitor`), Admin
(:mod:`quizbot.ui.admin`) and Status (here). Whether this browser session is an admin is a
server-side ``gr.State``; admin controls elsewhere start hidden and are shown on login, and every
admin action checks the state again on the server.

In accounts mode (:mod:`quizbot.ui.gate`) the tabs follow the account's role
(:data:`TAB_ROLES`): each restricted tab is shown only to the roles that may use it. Each tab's
handlers are wired inside a declared area (:class:`~quizbot.ui.wiring.Wiring`) naming the role
they need, and every handler of a restricted area checks the role of the request on the server
(:func:`identity.restrict`); a handler wired outside every area stops the build.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from quizbot import __version__
from quizbot.config import Settings
from quizbot.domain import Role
from quizbot.kb.registry import KbListing, kb_listing
from quizbot.status import DatabaseReport, database_report, may_see_database_details
from quizbot.ui import admin, ask, assignments, compare, identity, monitor, practice
from quizbot.ui.context import UiContext
from quizbot.ui.disclosure import DISCLOSURE_CSS
from quizbot.ui.skips import SkippingBlocks
from quizbot.ui.wiring import EVERYONE, Wiring
from storage import Database

__all__ = [
    "CSS",
    "TAB_ROLES",
    "UPLOAD_CLEANUP",
    "build_app",
    "launch_options",
    "render_knowledge_bases",
    "render_status",
]

# Uploaded files (schedules files, KB imports) are temporary: every 10 minutes those older than
# an hour are deleted, and all of them when the server stops (Gradio's delete_cache).
UPLOAD_CLEANUP = (600, 3600)


def launch_options(settings: Settings) -> dict[str, Any]:
    """What ``launch`` (or mounting the app) needs besides the address: the upload size limit
    (a larger upload is refused with HTTP 413 before it is stored) and the CSS."""
    return {"max_file_size": settings.max_upload_mb * 1024 * 1024, "css": CSS}


# Who may use each tab in accounts mode, and call its handlers (tabs not listed: everyone).
TAB_ROLES = {
    "ask": Role.INSTRUCTOR,
    "compare": Role.INSTRUCTOR,
    "monitor": Role.INSTRUCTOR,
    "assignments": Role.INSTRUCTOR,  # instructors: their cohort's only (ui/assignments.py)
    "admin": Role.ADMIN,
}

# Passed to ``launch`` (Gradio 6 takes CSS there). On a phone the practice summary's answer
# table broke words letter by letter ("yo/ur/an/sw/er"); it scrolls sideways instead, and so do
# an assignment's results tables.
CSS = (
    """
#qb-practice-summary table {
  display: block; overflow-x: auto; max-width: 100%; border: none; padding: 0;
}
#qb-practice-summary th, #qb-practice-summary td { word-break: normal; overflow-wrap: normal; }
#qb-assign-results table {
  display: block; overflow-x: auto; max-width: 100%; border: none; padding: 0;
}
#qb-assign-results th, #qb-assign-results td { word-break: normal; overflow-wrap: normal; }
#qb-compare-plots { flex-wrap: wrap; }
#qb-compare-plots > #qb-compare-chart { flex: 1 1 580px; min-width: 0; }
#qb-compare-plots > #qb-compare-heatmap { flex: 1 1 360px; min-width: 0; }
"""
    + DISCLOSURE_CSS
)


def render_knowledge_bases(listing: list[KbListing]) -> str:
    """Knowledge bases with their size and licence or acknowledgement, as Markdown."""
    lines = ["| knowledge base | version | points |", "|---|---|---:|"]
    notes = []
    for entry in listing:
        points = f"{entry.points:,}" if entry.installed else "loads on first use"
        lines.append(f"| `{entry.name}` | {entry.version or '-'} | {points} |")
        if entry.installed and entry.license:
            notes.append(f"*{entry.name}*: {entry.license}")
    return "\n".join(lines) + ("\n\n" + "\n\n".join(notes) if notes else "")


def render_status(report: DatabaseReport) -> str:
    """The status report as Markdown (location and row counts only if the report has them)."""
    schema = report.schema_version or "none"
    state = "up to date" if report.up_to_date else f"behind (code needs {report.schema_head})"
    if report.url is None or report.counts is None:
        return (
            f"**Database:** {report.backend}  \n"
            f"**Schema version:** `{schema}`, {state}\n\n"
            "*Where the database is and how many rows it holds is shown to administrators "
            "(log in on the Admin tab, then open this tab again).*\n"
        )
    rows = "\n".join(f"| `{table}` | {n:,} |" for table, n in report.counts.items())
    warnings = "".join(f"- **Warning:** {w}\n" for w in report.warnings)
    if warnings:
        warnings += "\n"
    return (
        f"**Database:** `{report.url}` ({report.backend})  \n"
        f"**Schema version:** `{schema}`, {state}\n\n"
        f"{warnings}"
        f"| table | rows |\n|---|---:|\n{rows}\n"
    )


def build_app(settings: Settings, db: Database, ctx: UiContext | None = None) -> gr.Blocks:
    """The quizbot web app for these settings and this database."""
    ctx = ctx or UiContext(settings, db)
    guarded = ctx.accounts_mode()  # restricted tabs start hidden; page load shows the allowed
    with SkippingBlocks(title="quizbot", delete_cache=UPLOAD_CLEANUP) as app:
        gr.Markdown(
            f"# quizbot {__version__}\n"
            "Medical knowledge practice for students, and knowledge monitoring for language "
            "models, on the same generated questions."
        )
        with gr.Row(equal_height=True):  # accounts mode: who is logged in, and a way out
            who = gr.Markdown(visible=False, elem_id="qb-who")
            account = gr.Button(
                "Change password",
                link="/account",
                size="sm",
                visible=False,
                scale=0,
                elem_id="qb-account",
            )
            logout = gr.Button(
                "Log out", link="/logout", size="sm", visible=False, scale=0, elem_id="qb-logout"
            )
        # The public status endpoints are registered before any tab, so their API names stay
        # exactly /status and /knowledge_bases whatever the tabs name their own handlers.
        status = gr.Markdown(elem_id="quizbot-status", render=False)
        kbs = gr.Markdown(elem_id="quizbot-kbs", render=False)

        is_admin = gr.State(False)
        wiring = Wiring(app)  # who may call each handler, declared where it is wired

        def _status(admin: bool) -> str:
            detailed = may_see_database_details(bool(admin))
            return render_status(database_report(db, detailed=detailed))

        def _kbs() -> str:
            return render_knowledge_bases(kb_listing(db))

        with wiring.area("page", EVERYONE):
            app.load(_kbs, outputs=kbs, api_name="knowledge_bases")
            app.load(_status, inputs=is_admin, outputs=status, api_name="status")
        with gr.Tab("Practice", id="practice"), wiring.area("practice", EVERYONE):
            practice.build(ctx)
        with (
            gr.Tab("Ask a model", id="ask", visible=not guarded) as ask_tab,
            wiring.area("ask", TAB_ROLES["ask"]),
        ):
            ask.build(ctx)
        with (
            gr.Tab("Humans vs models", id="compare", visible=not guarded) as compare_tab,
            wiring.area("compare", TAB_ROLES["compare"]),
        ):
            compare.build(ctx)
        with (
            gr.Tab("Monitor", id="monitor", visible=not guarded) as monitor_tab,
            wiring.area("monitor", TAB_ROLES["monitor"]),
        ):
            admin_only = monitor.build(ctx, is_admin)
        with (
            gr.Tab("Assignments", id="assignments", visible=not guarded) as assignments_tab,
            wiring.area("assignments", TAB_ROLES["assignments"]),
        ):
            admin_only += assignments.build(ctx, is_admin)
        with (
            gr.Tab("Admin", id="admin", visible=not guarded) as admin_tab,
            wiring.area("admin", TAB_ROLES["admin"]),
        ):
            admin.build(ctx, is_admin, admin_only)
        with gr.Tab("Status", id="status") as status_tab, wiring.area("status", EVERYONE):
            status.render()  # type: ignore[no-untyped-call]
            kbs.render()  # type: ignore[no-untyped-call]
            refresh = gr.Button("Refresh", size="sm")
            refresh.click(_kbs, outputs=kbs, api_visibility="private")
            refresh.click(_status, inputs=is_admin, outputs=status, api_visibility="private")
            # Opening the tab shows what the viewer may see now (details once an admin logged in).
            status_tab.select(_status, inputs=is_admin, outputs=status, api_visibility="private")

        tabs = {
            ask_tab: TAB_ROLES["ask"],
            compare_tab: TAB_ROLES["compare"],
            monitor_tab: TAB_ROLES["monitor"],
            assignments_tab: TAB_ROLES["assignments"],
            admin_tab: TAB_ROLES["admin"],
        }
        with wiring.area("page", EVERYONE):  # shows each tab to the roles that may use it
            app.load(
                identity.tab_visibility(ctx, tabs),
                outputs=[who, account, logout, *tabs],
                api_visibility="private",
            )
        guarded_handlers = identity.restrict(ctx, app, wiring)
        if guarded_handlers != wiring.restricted():  # every declared restricted handler
            raise RuntimeError(
                f"{wiring.restricted()} handlers need a role, {guarded_handlers} were guarded"
            )
    blocks: gr.Blocks = app
    return blocks
