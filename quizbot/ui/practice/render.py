"""The Practice tab's words: constants and the pure rendering of questions, feedback,
summaries, reviews and progress (no Gradio event, no database)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd

from quizbot.analysis.metrics import MIN_SHARED_FOR_MCNEMAR
from quizbot.domain import FlagReason
from quizbot.generate.choice import I_DO_NOT_KNOW
from quizbot.kb.registry import KbListing
from quizbot.practice import service as practice
from quizbot.practice.service import Feedback, Progress, Question, Summary
from quizbot.ui.practice.progress_chart import progress_chart
from quizbot.ui.render import (
    error_markdown,
    format_percent,
    format_proportion,
    md_escape,
)

log = logging.getLogger(__name__)

Message = dict[str, str]

ALL_TOPICS = "all"
IDK = "I don't know"
LETTER_BUTTONS = "ABCDEFGHI"  # the service letters options A-J; J can only be "I do not know"
DEFAULT_LENGTH = 10
FORMATS = [
    ("True/false statements", "statement"),
    ("Multiple choice", "choice"),
    ("Mixed", "mixed"),
]
API_OUTPUTS = (
    "data: JSON {session, question, feedback, summary, error}",
    "chat: the transcript, a list of {role, content} messages",
    "status: Markdown line about the session",
    "summary: Markdown (filled when the session is over)",
    "knowledge-base notice: Markdown licence or acknowledgement",
    "answer box: an update (cleared, shown while a question is open)",
)
TOPIC_HEADERS = ["knowledge base", "kind", "topic", "right / answered", "accuracy", "95% CI"]
COVERAGE_HEADERS = [
    "topic",
    "facts seen",
    "seen (%)",
    "due today",
    "due this week",
    "right / answered",
    "accuracy",
]
COVERAGE_VIEWS = [("Per organ system", "system"), ("Per relation", "relation")]
PROGRESS_BY = [("Per day", "day"), ("Per week", "week"), ("Per session", "session")]
_KIND_WORDS = {"system": "organ system", "relation": "relation"}
SESSION_HEADERS = [
    "session",
    "started (UTC)",
    "knowledge base",
    "topic",
    "format",
    "status",
    "answered",
    "accuracy",
]
_OUTCOME_WORDS = {
    "correct": ("✓", "right"),
    "incorrect": ("✗", "wrong"),
    "abstained": ("–", 'not answered ("I don\'t know")'),
}
_QUESTION_PREVIEW = 90
_TAILS_SHOWN = 12  # in a feedback's details


# --------------------------------------------------------------------------------------------
# Rendering (pure)


def _code(text: str) -> str:
    """``text`` as inline code (no backslash escapes work there; a pipe is kept for tables)."""
    return "`" + text.replace("`", "'").replace("|", "\\|") + "`"


def answer_letters(question: Question | None) -> list[str]:
    """The option letters that get a button: every option but "I do not know"."""
    if question is None or question.options is None:
        return []
    return [
        o.letter for o in question.options if o.text != I_DO_NOT_KNOW and o.letter in LETTER_BUTTONS
    ]


def _asked(question: Question) -> str:
    """A question as it is asked, whole: position, topic, text and options."""
    lines = [
        f"**Question {question.position} of {question.total}** · *{md_escape(question.topic)}*",
        "",
        md_escape(question.text),
    ]
    if question.options:
        lines.append("")
        lines.extend(f"**{o.letter}.** {md_escape(o.text)}" for o in question.options)
    return "\n".join(lines)


def render_question(question: Question) -> str:
    """A question as a chat message: position, topic, text, options and how to answer."""
    return _asked(question) + f"\n\n*{md_escape(question.instructions)}*"


def _details(e: practice.Explanation) -> str:
    """The technical side of an explanation, collapsed: the triple, the wording's transform and
    everything the knowledge base lists for the head and relation."""
    parts = []
    if e.head:
        parts.append(f"Fact: {md_escape(e.head)} · *{md_escape(e.relation)}* · {md_escape(e.tail)}")
    if e.transform is not None:
        parts.append(f"Wording: {md_escape(e.transform)}")
    if e.true_tails:
        shown = ", ".join(md_escape(t) for t in e.true_tails[:_TAILS_SHOWN])
        if len(e.true_tails) > _TAILS_SHOWN:
            shown += f" and {len(e.true_tails) - _TAILS_SHOWN} more"
        parts.append(f"The knowledge base lists for {md_escape(e.head)}: {shown}")
    if not parts:
        return ""
    return "<details><summary>Details</summary>\n\n" + "  \n".join(parts) + "\n\n</details>"


def render_feedback(feedback: Feedback) -> str:
    """How an answer was scored, as one chat message: the verdict with the key, then the reason
    once in plain words (for multiple choice, every option: right or not, and what it is), and
    the technical details collapsed."""
    mark, word = _OUTCOME_WORDS.get(feedback.outcome, ("?", feedback.outcome))
    e = feedback.explanation
    lines = [
        f"{mark} **Answer {feedback.position} of {feedback.total}: {word}.** "
        f"Your answer: {md_escape(feedback.your_answer)}. "
        f"Correct answer: **{md_escape(feedback.correct_answer)}**.",
    ]
    if e.options:
        lines.append("")
        lines.extend(
            f"- {'✓' if o.correct else '✗'} **{o.letter}. {md_escape(o.text)}**"
            + (f": {md_escape(o.note)}" if o.note else "")
            for o in e.options
        )
    elif e.why or e.text:
        lines.extend(["", md_escape(e.why or e.text)])
    details = _details(e)
    if details:
        lines.extend(["", details])
    return "\n".join(lines)


def render_receipt(feedback: Feedback) -> str:
    """The acknowledgement of an exam answer: stored, and nothing about whether it was right."""
    then = (
        "That was the last question."
        if feedback.finished
        else "Your results are shown once you have answered every question."
    )
    return f"**Answer recorded.** Question {feedback.position} of {feedback.total}. {then}"


def render_review(review: Sequence[Feedback]) -> str:
    """An exam's review as Markdown: every question in order, whole (text and options, never
    cut short), then the student's answer, the key and the explanation."""
    if not review:
        return ""
    cards = [
        (_asked(f.question) + "\n\n" if f.question is not None else "") + render_feedback(f)
        for f in review
    ]
    return "### Review of every question\n\n" + "\n\n---\n\n".join(cards)


def _comparison_text(result: practice.ModelResult) -> str:
    c = result.comparison
    if c is None:
        return f"too few shared questions for a test (needs {MIN_SHARED_FOR_MCNEMAR})"
    diff, p = c.get("difference"), c.get("p_value")
    if diff is None or p is None:
        return "–"
    return f"{100 * diff:+.0f} points (McNemar p = {p:.2g})"


def _preview(text: str) -> str:
    first = " ".join(text.split("\n", 1)[0].split())
    return first if len(first) <= _QUESTION_PREVIEW else first[: _QUESTION_PREVIEW - 1] + "…"


def render_summary(summary: Summary, offered: Sequence[str] = (), *, answers: bool = True) -> str:
    """A session's results as Markdown; ``offered`` models without shared answers are named.

    ``answers=False`` leaves out the table of answers (questions cut to one line), for an exam,
    whose review (:func:`render_review`) follows with every question whole.
    """
    s = summary.session
    ended = "finished" if s.status == "finished" else s.status
    lines = [
        f"### Session summary: {md_escape(s.topic_label)} ({md_escape(s.kb)}, {s.format}"
        f"{', review' if s.review else ''})",
        f"{summary.n_answered} of {summary.n_items} questions answered; session {ended}.",
        "",
        "| measure | result |",
        "|---|---|",
        f"| Accuracy (right / answered) | {format_proportion(summary.accuracy)} |",
        f'| Answer rate (not "I don\'t know") | {format_proportion(summary.answer_rate)} |',
        f"| Accuracy when you answered | {format_proportion(summary.accuracy_answered)} |",
        f"| Facts with every question right (joint accuracy) | "
        f"{format_proportion(summary.joint_accuracy)} |",
        "",
    ]
    if summary.weakest_topics:
        weak = "; ".join(
            f"{md_escape(t.label)}: {format_proportion(t.accuracy)}" for t in summary.weakest_topics
        )
        lines.append(f"**Weakest topics:** {weak}")
    else:
        lines.append("**Weakest topics:** none stands out (a topic needs two answers or more).")
    if summary.topics:
        lines.extend(["", "| topic | accuracy |", "|---|---|"])
        lines.extend(
            f"| {md_escape(t.label)} | {format_proportion(t.accuracy)} |" for t in summary.topics
        )
    lines.extend(["", "**Models on the same questions**", ""])
    compared = [m for m in summary.models if m.n_shared > 0]
    if compared:
        lines.extend(
            [
                "| model | shared questions | model accuracy | your accuracy on them | "
                "model − you |",
                "|---|---:|---|---|---|",
            ]
        )
        lines.extend(
            f"| {_code(m.model)} | {m.n_shared} | {format_proportion(m.model_accuracy)} | "
            f"{format_proportion(m.student_accuracy)} | {_comparison_text(m)} |"
            for m in compared
        )
    else:
        lines.append("No model has answered these questions yet.")
    missing = [m for m in offered if m not in {r.model for r in compared}]
    if missing:
        lines.append(
            "\nNot evaluated on these questions yet: " + ", ".join(_code(m) for m in missing) + "."
        )
    if summary.answers and not answers:
        lines.extend(["", "Every question is reviewed below, whole, with your answer and the key."])
    elif summary.answers:
        lines.extend(
            [
                "",
                "**Your answers**",
                "",
                "| # | question | your answer | correct answer | result |",
                "|---:|---|---|---|---|",
            ]
        )
        lines.extend(
            f"| {a.position} | {md_escape(_preview(a.text))} | {md_escape(a.your_answer)} | "
            f"{md_escape(a.correct_answer)} | {_OUTCOME_WORDS.get(a.outcome, ('', a.outcome))[1]} |"
            for a in summary.answers
        )
    return "\n".join(lines)


def kb_note(listing: Sequence[KbListing], kb: str) -> str:
    """The licence or acknowledgement of knowledge base ``kb`` as Markdown ("" if none)."""
    for entry in listing:
        if entry.name == kb and entry.license:
            return license_note(kb, entry.license)
    return ""


def license_note(kb: str, license: str) -> str:
    """:func:`kb_note` from the licence alone (:func:`quizbot.kb.registry.kb_license`)."""
    if not license:
        return ""
    text = "  \n".join(md_escape(line) for line in license.splitlines())
    return f"**Knowledge base {_code(kb)}:** {text}"


def topic_choices(topics: Sequence[practice.Topic]) -> list[tuple[str, str]]:
    """Dropdown choices (label, value) for a KB's topics, "All topics" first."""
    choices = [("All topics", ALL_TOPICS)]
    for t in topics:
        prefix = "Organ system: " if t.kind == "system" else ""
        choices.append((f"{prefix}{t.label} ({t.n_facts:,} facts)", t.key))
    return choices


@dataclass(frozen=True)
class ProgressView:
    """A student's progress, ready for the tab's components."""

    overview: str
    plot: pd.DataFrame
    topics: list[list[Any]]
    sessions: list[list[Any]]
    chart: str = ""  # overall accuracy per period with its intervals (SVG in HTML)


def _period_value(period: str, by: str) -> Any:
    return int(period) if by == "session" else pd.Timestamp(period)


def weakest_text(c: practice.Coverage, view: str) -> str:
    """The weakest topics of a coverage view in one line, or why there are none yet."""
    weak = c.weakest(view)
    if not weak:
        return "**Weakest topics:** none yet (a topic needs two answers or more, not all right)."
    listed = "; ".join(f"{md_escape(t.label)}: {format_proportion(t.accuracy)}" for t in weak)
    return f"**Weakest topics:** {listed}."


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


SEALED_ACCURACY = "exam not complete: shown after its last answer"


def progress_view(p: Progress) -> ProgressView:
    """Tables and chart data for :func:`quizbot.practice.service.progress` (accuracy in percent)."""
    by_what = p.by if p.by in ("day", "week") else "session"
    overview = (
        f"**{md_escape(p.student)}**: {_count(p.total_answered, 'answer')} in "
        f"{_count(len(p.sessions), 'session')}; accuracy {format_proportion(p.accuracy)}. "
        + {"day": "Per day (UTC).", "week": "Per week (UTC, from Monday)."}.get(
            p.by, "Per session."
        )
    )
    series = [("Overall", "", p.timeline)] + [
        (t.label, t.kb, t.points) for t in p.topics if t.points
    ]
    several_kbs = len({t.kb for t in p.topics}) > 1
    plot_rows = []
    for label, kb, points in series:
        name = f"{label} ({kb})" if several_kbs and kb else label
        for point in points:
            a = point.accuracy
            if a.value is None:
                continue
            plot_rows.append(
                {
                    by_what: _period_value(point.period, p.by),
                    "accuracy (%)": round(100 * a.value, 1),
                    "topic": name,
                    "answered": a.n,
                    "95% CI": f"{format_percent(a.low)}–{format_percent(a.high)}",
                }
            )
    plot = pd.DataFrame(plot_rows, columns=[by_what, "accuracy (%)", "topic", "answered", "95% CI"])
    # One row per topic (its figures over every period: the chart has them period by period),
    # saying whether it is a relation or an organ system.
    topic_rows: list[list[Any]] = [
        [
            t.kb,
            _KIND_WORDS.get(t.kind, t.kind),
            t.label,
            f"{t.overall.k}/{t.overall.n}",
            format_percent(t.overall.value),
            f"{format_percent(t.overall.low)}–{format_percent(t.overall.high)}",
        ]
        for t in p.topics
    ]
    session_rows: list[list[Any]] = [
        [
            s.id,
            _when(s.started_at),
            s.kb,
            s.topic_label,
            s.format + (" (review)" if s.review else ""),
            s.status,
            f"{s.answered}/{s.total}",
            SEALED_ACCURACY if s.sealed else format_proportion(s.accuracy),
        ]
        for s in sorted(p.sessions, key=lambda s: s.started_at, reverse=True)
    ]
    return ProgressView(overview, plot, topic_rows, session_rows, progress_chart(p.timeline, p.by))


def _share(value: float) -> str:
    """A share seen in percent, with a decimal below 10% (a few facts of a big KB are not 0%)."""
    if 0 < value < 0.001:
        return "<0.1%"
    return f"{100 * value:.1f}%" if value < 0.1 else format_percent(value)


def coverage_text(c: practice.Coverage) -> str:
    """The knowledge base's coverage in one line: facts seen of all, and how many are due."""
    share = f" ({_share(c.seen / c.n_facts)})" if c.n_facts else ""
    return (
        f"**Coverage of {_code(c.kb)}:** {c.seen:,} of {c.n_facts:,} facts seen{share}; "
        f"due for review: **{c.due_now}** today, **{c.due_week}** within a week."
    )


def coverage_rows(c: practice.Coverage, view: str) -> list[list[Any]]:
    """One row per organ system (``view`` "system") or per relation, weakest first."""
    return [
        [
            t.label,
            f"{t.seen:,} of {t.n_facts:,}",
            _share(t.share_seen),
            t.due_now,
            t.due_week,
            f"{t.accuracy.k}/{t.accuracy.n}",
            format_percent(t.accuracy.value),
        ]
        for t in (c.systems if view == "system" else c.relations)
    ]


FLAG_REASONS = [
    ("The answer key is wrong", FlagReason.WRONG_KEY.value),
    ("The question is ambiguous", FlagReason.AMBIGUOUS.value),
    ("Something else", FlagReason.OTHER.value),
]


def _error_text(exc: BaseException) -> str:
    """A failed practice action as Markdown (the chat's warning look)."""
    return error_markdown(exc, "⚠")


# --------------------------------------------------------------------------------------------
# Spaced review: the "Due for review" panel, its session, the line in "My progress"

_DUE_HINT = "Enter your pseudonym to see what is due for review."
_DUE_HINT_ACCOUNTS = "Facts you answer come due here for spaced review."


def due_hint(accounts_mode: bool) -> str:
    """The "Due for review" panel before it knows the student: local mode asks for the
    pseudonym; in accounts mode the account is known (the panel fills on page load)."""
    return _DUE_HINT_ACCOUNTS if accounts_mode else _DUE_HINT


# --------------------------------------------------------------------------------------------
# The tab's intro and hints: local mode asks for a pseudonym, accounts mode names the account

_INTRO = "Practise medical knowledge one question at a time."
PROGRESS_HINT = "Enter your pseudonym above, then press **Show my progress**."
PROGRESS_HINT_ACCOUNTS = "Press **Show my progress**."


def intro_text(accounts_mode: bool, account: str | None = None) -> str:
    """The Practice tab's intro: in local mode, ask for a pseudonym; in accounts mode, say that
    answers are kept with the account, naming it once known (on page load, from the login)."""
    if not accounts_mode:
        return (
            f"{_INTRO} Use a pseudonym or code name: it is how your answers and progress are kept."
        )
    if not account:
        return f"{_INTRO} Your answers and progress are kept with your account."
    return (
        f"{_INTRO} Signed in as **{md_escape(account)}**: your answers and progress are kept "
        "with your account."
    )


def due_panel_text(count: int) -> str:
    """The panel's text for ``count`` facts due now."""
    noun = "fact" if count == 1 else "facts"
    if count == 0:
        return (
            f"**Due for review: 0 {noun}.** Facts you answer come due again days later "
            "(spaced review)."
        )
    return f"**Due for review: {count} {noun}.** Press **Review due facts** to go over them."
