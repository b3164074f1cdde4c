"""Build the Gradio app.

Until the practice, model and monitor tabs land, the app serves a status page: which database is
in use, its schema version and what it holds. It is a real page over the real database.
"""

from __future__ import annotations

import gradio as gr

from quizbot import __version__
from quizbot.config import Settings
from quizbot.status import DatabaseReport, database_report
from storage import Database

__all__ = ["build_app", "render_status"]


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
            "\n\nThis build provides the storage foundation; the practice quiz, model runs and the "
            "nightly monitor are added on top of it."
        )
        with gr.Tab("Status"):
            status = gr.Markdown(elem_id="quizbot-status")
            refresh = gr.Button("Refresh", size="sm")

        def _status() -> str:
            return render_status(database_report(db))

        app.load(_status, outputs=status, api_name="status")
        refresh.click(_status, outputs=status, api_visibility="private")
    blocks: gr.Blocks = app
    return blocks
