"""Build the Gradio app.

Until the practice, model and monitor tabs land, the app serves a status page: which database is
in use, its schema version and what it holds. It is a real page over the real database.
"""

from __future__ import annotations

import gradio as gr

from quizbot import __version__
from quizbot.config import Settings
from quizbot.kb.registry import KbListing, kb_listing
from quizbot.status import DatabaseReport, database_report
from storage import Database

__all__ = ["build_app", "render_knowledge_bases", "render_status"]


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
    """The status report as Markdown."""
    rows = "\n".join(f"| `{table}` | {n:,} |" for table, n in report.counts.items())
    schema = report.schema_version or "none"
    state = "up to date" if report.up_to_date else f"behind (code needs {report.schema_head})"
    return (
        f"**Database:** `{report.url}` ({report.backend})  \n"
        f"**Schema version:** `{schema}`, {state}\n\n"
        f"| table | rows |\n|---|---:|\n{rows}\n"
    )


def build_app(settings: Settings, db: Database) -> gr.Blocks:
    """The quizbot web app for these settings and this database."""
    with gr.Blocks(title="quizbot") as app:
        gr.Markdown(
            f"# quizbot {__version__}\n"
            "Medical knowledge quizzing for students and knowledge monitoring for language models."
            "\n\nThis build provides storage and question generation (`quizbot generate`); the "
            "practice quiz, model runs and the nightly monitor are added on top of it."
        )
        with gr.Tab("Status"):
            status = gr.Markdown(elem_id="quizbot-status")
            kbs = gr.Markdown(elem_id="quizbot-kbs")
            refresh = gr.Button("Refresh", size="sm")

        def _status() -> str:
            return render_status(database_report(db))

        def _kbs() -> str:
            return render_knowledge_bases(kb_listing(db))

        app.load(_kbs, outputs=kbs, api_name="knowledge_bases")
        refresh.click(_kbs, outputs=kbs, api_visibility="private")

        app.load(_status, outputs=status, api_name="status")
        refresh.click(_status, outputs=status, api_visibility="private")
    blocks: gr.Blocks = app
    return blocks
