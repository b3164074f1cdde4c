"""The "Practice" tab: a student answers questions one at a time in a chat, with feedback.

Everything a student does is a call to :mod:`quizbot.practice.service`; this module only lays out
the
controls, keeps the per-browser state and renders what the service returns.

Design
    State. The session id, the current :class:`~quizbot.practice.service.Question`, the chat
    transcript
    live in ``gr.State``, which stays on the server (per browser tab, and per ``gradio_client``
    session); the letters chosen for a multiple-choice answer live in the page until Submit
    (see Answering). The browser receives only
    rendered text: a question before it is answered (the service's ``Question`` carries no label,
    key, lineage or item id), and the right answer and the explanation only after the answer is
    stored. The chat is kept in state rather than read back from the Chatbot so that the
    ``practice_answer`` endpoint takes nothing but the answer text and a client cannot rewrite
    the transcript.

    Answering. True/false statements get "True", "False" and "I don't know" buttons; multiple
    choice gets one toggle button per option letter (most questions say "select all that
    apply", so a letter button selects rather than submits), a "Submit" button that sends the
    selected letters, and "I don't know". Only the buttons that fit the current question are
    shown. A letter click never reaches the server: a JavaScript handler (``fn=None``, see
    :data:`LETTER_JS`) toggles the letter in the page's selection for the question in the
    tab's JSON, colours the button and names the selection on Submit, so fast clicks cannot be
    lost or reordered and queue no event; Submit sends the letters once (:data:`SUBMIT_JS`) and
    the server reads them as it reads a typed answer. Anything can also be typed (true/false,
    t/f, yes/no, letters such as "A,C", idk); what the service cannot read comes back as an
    :class:`~quizbot.errors.InputError` whose message and hint are shown in the chat, and
    nothing is stored.

    Feedback and summary. After each answer the chat shows, in a message of its own, whether
    it was right and the right answer, then the reason once in plain words (the service's
    ``why``: the fact; for a false statement what is true instead; for multiple choice every
    option, right or not, and what the KB says a wrong one is), and the technical side (the
    triple, the transform's name, the KB's list) in a collapsed "Details". The next question
    waits for the "Next question" button and comes in its own message (the Chatbot does not
    group consecutive messages); the JSON already carries it, so an API client goes on without
    it. An exam's "Answer recorded" is followed by the next question at once. At the end (or
    on "End session") the summary goes below the chat: accuracy, answer rate, joint accuracy
    per fact, topics and the weakest ones, how every model with stored answers
    to the same items did, and each answer with its key.

    Assignments. "Assignment (optional)" takes the name of an assignment an instructor made
    (``quizbot assignment create``); "Start" then starts the student's session on it, or resumes
    it (:func:`quizbot.practice.service.start_assignment_session`: the same pseudonym is the same
    student), and the knowledge base, topic, format and length are the assignment's. A practice
    assignment gives feedback as above. An exam acknowledges each answer with "Answer recorded"
    and nothing else (the service withholds the outcome, key and explanation, and so does the
    tab: the chat, the JSON and the flag form get none of them) until the last answer; then the
    summary and the review of every question (:func:`~quizbot.practice.service.exam_review`)
    appear below the chat. "End session" on an exam before its last answer ends it with a
    message and no results (the student may start it afresh). A finished assignment is never
    started again: entering it again shows a message and its summary and review once more. An
    unknown name is a message in the chat.

    Flagging. After the feedback on a question, "Flag this question" (reason and an optional
    comment) flags the question just answered: its id is kept in server-side state when the
    answer is stored, so a question not yet answered can never be flagged, and the service checks
    it again (:func:`quizbot.practice.service.flag`). Reviewers see flags in the Admin tab.

    Progress. "My progress" reads the student's whole history from the database
    (:func:`quizbot.practice.service.progress`): per-topic accuracy per day or per session with 95%
    intervals (a table, and a chart with the interval in each point's tooltip), and the list of
    sessions. The chart is a scatter plot rather than a line chart: Gradio's line chart draws
    nothing for a topic seen on a single day, which is every topic of a new student.

    Knowledge base notice. The chosen knowledge base's licence or acknowledgement (from
    :func:`quizbot.kb.registry.kb_listing`; for HPO the required acknowledgement) is shown under
    the KB choice and, for the running session, right under the chat.

    Coming back. A reload empties the tab's state but the session stays active in the
    database. When a pseudonym is entered (Enter, or leaving the field) the tab asks
    :func:`~quizbot.practice.service.resumable_session` and offers "Resume your session of
    <date> UTC (k/n answered)" or "Start new" under the field; Resume goes on at the next
    question, and once any other session runs in the tab the offered one is ended
    (:func:`after_start`). Idle sessions are closed by the service after
    ``QUIZBOT_PRACTICE_IDLE_HOURS``.

    Sessions. "Start" and "Review my mistakes" (``review=True``: facts the student missed
    before) start a session with the settings on the left; starting another one while a session
    is running in the same tab ends the running one (it becomes ``abandoned``), as "End session"
    does.

    Recall. Under the chat, "Recall: list what you remember" (:mod:`quizbot.ui.recall_practice`)
    asks open recall questions with the same pseudonym, knowledge base and assignment fields;
    "My progress" adds its figures (mean F1 per aspect) below the accuracy.

API (for ``gradio_client``; ``gr.State`` is kept per client, so one Client is one student)
    ``/practice_start`` (student, kb="clinical-core", topic="all", format="statement",
    length=10, cohort=None, assignment=None) and ``/practice_answer`` (answer) return the six
    values of :data:`API_OUTPUTS`; the first is a JSON object with ``session``, ``question``,
    ``feedback``, ``summary`` and ``error`` (each null when it does not apply). The button
    updates are not part of the API. ``/practice_progress`` (student, kb="all", by="day")
    returns the overview, the chart data and the two tables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, cast

import gradio as gr
import pandas as pd

from quizbot.analysis.metrics import MIN_SHARED_FOR_MCNEMAR
from quizbot.domain import MAX_FLAG_COMMENT, FlagReason
from quizbot.errors import DuplicateError, InputError, NotFoundError, QuizbotError
from quizbot.generate.choice import I_DO_NOT_KNOW
from quizbot.kb.registry import BUILTINS, DEFAULT_KB, KbListing, kb_listing
from quizbot.practice import service as practice
from quizbot.practice.feedback import WITHHELD
from quizbot.practice.service import Feedback, Progress, Question, Summary
from quizbot.ui import identity, recall_practice
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.render import (
    error_markdown,
    format_percent,
    format_proportion,
    md_escape,
    user_message,
)

__all__ = [
    "ALL_TOPICS",
    "API_OUTPUTS",
    "FLAG_REASONS",
    "IDK",
    "LETTER_BUTTONS",
    "SESSION_HEADERS",
    "TOPIC_HEADERS",
    "Message",
    "ProgressView",
    "Screen",
    "answer_letters",
    "build",
    "format_proportion",
    "kb_note",
    "md_escape",
    "progress_view",
    "render_feedback",
    "render_question",
    "render_receipt",
    "render_review",
    "render_summary",
    "send_flag",
    "topic_choices",
]

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
TOPIC_HEADERS = ["knowledge base", "topic", "period", "right / answered", "accuracy", "95% CI"]
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
# At phone width the settings stack above the chat: once a session starts or resumes, bring the
# session's status line (and the chat under it) into view instead of leaving the student at the
# bottom of the settings.
# A new knowledge base: the topic goes back to "All topics", in the browser, at once (the
# server only sends the KB's topics as choices; see :func:`kb_changed`).
ALL_TOPICS_JS = f"() => {ALL_TOPICS!r}"
SHOW_CHAT_JS = """() => {
  if (window.innerWidth < 700) {
    document.querySelector('#qb-practice-status')?.scrollIntoView({block: 'start'});
  }
}"""


# The multiple-choice selection, kept in the page (``window.qbLetters``) for the question in the
# tab's JSON (``data.question``: session, opaque id, position): a new question starts it empty.
# A JSON without a question (an error) keeps it. Shared by the letter buttons and Submit.
_SELECTION_JS = """
  const q = (typeof data === "string" ? JSON.parse(data || "null") : data)?.question;
  const key = q ? `${q.session_id}:${q.id}:${q.position}` : null;
  let sel = window.qbLetters;
  if (!sel || (key !== null && sel.key !== key)) {
    sel = window.qbLetters = {key: key ?? sel?.key ?? null, picked: []};
  }
"""
# A letter button's click, in the browser only (``fn=None``): toggle the letter, colour the
# button, name the selection on Submit (disabled while nothing is chosen). JavaScript is one
# thread, so every click updates the selection the click before it left.
LETTER_JS = (
    "(data) => {"
    + _SELECTION_JS
    + """  const letter = "LETTER";
  sel.picked = sel.picked.includes(letter)
    ? sel.picked.filter((x) => x !== letter)
    : [...sel.picked, letter].sort();
  const n = sel.picked.length;
  return [
    {__type__: "update", variant: sel.picked.includes(letter) ? "primary" : "secondary"},
    {__type__: "update", interactive: n > 0,
     value: n ? "Submit " + sel.picked.join(", ") : "Submit"},
  ];
}"""
)
# Submit's inputs as sent: the page's selection (for the question on screen) in place of the
# button's label, the JSON left out (the server has the question in its state).
SUBMIT_JS = (
    "(label, data, ...states) => {"
    + _SELECTION_JS
    + """  return [sel.key === key ? sel.picked.join(", ") : "", null, ...states];
}"""
)


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


def render_question(question: Question) -> str:
    """A question as a chat message: position, topic, text, options and how to answer."""
    lines = [
        f"**Question {question.position} of {question.total}** · *{md_escape(question.topic)}*",
        "",
        md_escape(question.text),
    ]
    if question.options:
        lines.append("")
        lines.extend(f"**{o.letter}.** {md_escape(o.text)}" for o in question.options)
    lines.extend(["", f"*{md_escape(question.instructions)}*"])
    return "\n".join(lines)


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
    """An exam's review: the feedback on every question, in order, as Markdown."""
    if not review:
        return ""
    return "### Review of every question\n\n" + "\n\n---\n\n".join(map(render_feedback, review))


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


def render_summary(summary: Summary, offered: Sequence[str] = ()) -> str:
    """A session's results as Markdown; ``offered`` models without shared answers are named."""
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
    if summary.answers:
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
            text = "  \n".join(md_escape(line) for line in entry.license.splitlines())
            return f"**Knowledge base {_code(kb)}:** {text}"
    return ""


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


def _period_value(period: str, by: str) -> Any:
    return int(period) if by == "session" else pd.Timestamp(period)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


SEALED_ACCURACY = "exam not complete: shown after its last answer"


def progress_view(p: Progress) -> ProgressView:
    """Tables and chart data for :func:`quizbot.practice.service.progress` (accuracy in percent)."""
    by_what = "day" if p.by == "day" else "session"
    overview = (
        f"**{md_escape(p.student)}**: {_count(p.total_answered, 'answer')} in "
        f"{_count(len(p.sessions), 'session')}; accuracy {format_proportion(p.accuracy)}. "
        + ("Per day (UTC)." if p.by == "day" else "Per session.")
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
    topic_rows: list[list[Any]] = []
    for t in p.topics:
        for period, a in [("all", t.overall)] + [(x.period, x.accuracy) for x in t.points]:
            topic_rows.append(
                [
                    t.kb,
                    t.label,
                    period if period == "all" or p.by == "day" else f"session {period}",
                    f"{a.k}/{a.n}",
                    format_percent(a.value),
                    f"{format_percent(a.low)}–{format_percent(a.high)}",
                ]
            )
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
    return ProgressView(overview, plot, topic_rows, session_rows)


# --------------------------------------------------------------------------------------------
# The screen after an action


@dataclass
class Screen:
    """What the chat area shows after an action; ``None`` fields are left as they are."""

    chat: list[Message] | None
    data: dict[str, Any]
    session_id: int | None = None
    question: Question | None = None
    status: str | None = None
    summary: str | None = None
    ack: str | None = None
    keep_state: bool = False  # leave session, question and chat as they were
    answered: Feedback | None = None  # the answer just given: its question may be flagged
    pending: bool = False  # ``question`` waits for the student's "Next" (feedback is showing)
    # The question in the session's state when the action came (the one answered, or the one
    # "Next" shows): the controls it cannot have shown are known to be hidden, and End shown.
    asked: Question | None = None


def _data(
    *,
    session: dict[str, Any] | None = None,
    question: Question | None = None,
    feedback: Feedback | None = None,
    summary: Summary | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    return {
        "session": session,
        "question": question.as_json() if question is not None else None,
        "feedback": feedback.as_json() if feedback is not None else None,
        "summary": summary.as_json() if summary is not None else None,
        "error": error,
    }


def _keep(value: Any) -> Any:
    return gr.skip() if value is None else value


# The answer controls besides the letters, in output order (see :func:`_controls`).
_OTHER_CONTROLS = ("true", "false", "submit", "idk", "answer box", "end", "next")


def _controls(screen: Screen) -> list[Any]:
    """Updates for True, False, the letters, Submit, I don't know, the answer box, End, Next.

    While feedback is showing (``pending``) only End and Next are shown: the next question
    comes when the student asks for it, in a bubble of its own.
    """
    if screen.keep_state:
        return [gr.skip()] * (len(LETTER_BUTTONS) + len(_OTHER_CONTROLS))
    q = screen.question
    running = q is not None
    asking = running and not screen.pending
    statement = asking and q is not None and q.kind == "statement"
    letters = set(answer_letters(q)) if asking and q is not None and q.kind == "choice" else set()
    updates = [
        gr.update(visible=statement),
        gr.update(visible=statement),
        *(gr.update(visible=letter in letters, variant="secondary") for letter in LETTER_BUTTONS),
        gr.update(visible=bool(letters), value="Submit", interactive=False),
        gr.update(visible=asking and q is not None and q.idk),
        gr.update(value="", visible=asking),
        gr.update(visible=running),
        gr.update(visible=running and screen.pending),
    ]
    return [gr.skip() if same else u for u, same in zip(updates, _unchanged(screen), strict=True)]


def _unchanged(screen: Screen) -> list[bool]:
    """Which of :func:`_controls`' updates would leave the control as it is, in output order.

    Only with ``screen.asked``, the question in the session's state when the action came: the
    controls that question cannot show (True/False for a multiple-choice one, the letters it
    has no option for, Submit without letters) are hidden and reset whatever the screen was
    (its own question, its feedback, a failed action), and End is shown while a session runs.
    An update hiding them again, or showing End again, changes nothing, so it is skipped
    (Gradio's postprocessing of an update costs far more than the update does).
    """
    same = [False] * (len(LETTER_BUTTONS) + len(_OTHER_CONTROLS))
    before = screen.asked
    if before is None or screen.keep_state:
        return same
    q = screen.question
    asking = q is not None and not screen.pending
    statement = asking and q is not None and q.kind == "statement"
    letters = set(answer_letters(q)) if asking and q is not None and q.kind == "choice" else set()
    shown = set(answer_letters(before)) if before.kind == "choice" else set()
    n = len(LETTER_BUTTONS)
    if before.kind != "statement" and not statement:
        same[0] = same[1] = True  # True, False
    for i, letter in enumerate(LETTER_BUTTONS):
        same[2 + i] = letter not in shown and letter not in letters
    same[2 + n] = not shown and not letters  # Submit
    same[2 + n + 3] = q is not None  # End
    return same


def _flag_controls(screen: Screen) -> list[Any]:
    """Updates for the flag box and the flaggable question's id (both kept out of the API)."""
    if screen.keep_state:
        return [gr.skip()] * 2
    answered = screen.answered
    if answered is None:
        return [gr.update(visible=False, open=False), None]
    return [
        gr.update(
            visible=True,
            open=False,
            label=f"Flag this question (question {answered.position}, just answered)",
        ),
        answered.question_id,
    ]


def _outputs(screen: Screen) -> tuple[Any, ...]:
    """The screen as values/updates for the tab's output components, the flag form's two next
    to last, the session's three states last."""
    if screen.keep_state:
        states: list[Any] = [gr.skip(), gr.skip(), _keep(screen.chat)]
    else:
        states = [screen.session_id, screen.question, _keep(screen.chat)]
    return (
        screen.data,
        _keep(screen.chat),
        _keep(screen.status),
        _keep(screen.summary),
        _keep(screen.ack),
        *_controls(screen),
        *_flag_controls(screen),
        *states,
    )


def _status(view: practice.SessionView, position: int | None) -> str:
    if position:
        where = f"question {position} of {view.total}"
    else:
        where = "finished" if view.status == "finished" else "ended early"
    review = ", review of mistakes" if view.review else ""
    exam = " · exam" if view.mode == "exam" else ""
    text = (
        f"**Session {view.id}** · {md_escape(view.student)} · {_code(view.kb)} · "
        f"{md_escape(view.topic_label)} · {view.format}{review}{exam} · {where}"
    )
    if view.notes:
        text += "  \n" + " ".join(f"*{md_escape(n)}*" for n in view.notes)
    return text


# --------------------------------------------------------------------------------------------
# Actions


def _length(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InputError(
        "the number of questions must be a whole number", field="length", hint="e.g. 10"
    )


def _finish(
    ctx: UiContext,
    session_id: int,
    chat: list[Message],
    *,
    feedback: Feedback | None = None,
) -> Screen:
    """The screen once a session has no question left: its summary (an exam's with its review)."""
    result = practice.summary(ctx.db, session_id)
    rendered = render_summary(result, ctx.models())
    if result.session.mode == "exam":
        review = practice.exam_review(ctx.db, session_id)
        rendered += "\n\n" + render_review(review)
        over = (
            f"**Exam complete.** Accuracy {format_proportion(result.accuracy)}. Your summary "
            "and the review of every question, with the right answers, are below the chat."
        )
    else:
        over = (
            f"**Session over.** Accuracy {format_proportion(result.accuracy)}. "
            "Your summary is below the chat; start another session whenever you like."
        )
    chat = [*chat, {"role": "assistant", "content": over}]
    return Screen(
        chat=chat,
        data=_data(session=result.session.as_json(), feedback=feedback, summary=result),
        session_id=session_id,
        question=None,
        status=_status(result.session, None),
        summary=rendered,
        answered=feedback,
    )


def _abandon(ctx: UiContext, session_id: int) -> None:
    """End the session this tab leaves behind; a failure only costs a stale 'active' mark."""
    try:
        practice.end_session(ctx.db, session_id)
    except QuizbotError as exc:
        log.warning("practice tab: could not end session %s: %s", session_id, exc)


def _opening(
    ctx: UiContext,
    view: practice.SessionView,
    question: Question | None,
    intro: str,
    ack: str,
) -> Screen:
    """The screen of a session just started or resumed: the greeting and its first question,
    or, when no question is left, the finished session's summary."""
    chat: list[Message] = [{"role": "assistant", "content": intro}]
    if question is None:
        screen = _finish(ctx, view.id, chat)
        screen.ack = ack
        return screen
    chat.append({"role": "assistant", "content": render_question(question)})
    return Screen(
        chat=chat,
        data=_data(session=view.as_json(), question=question),
        session_id=view.id,
        question=question,
        status=_status(view, question.position),
        summary="",
        ack=ack,
    )


def start(
    ctx: UiContext,
    student: str,
    kb: str,
    topic: str | None,
    format: str,
    length: float,
    cohort: str | None = None,
    session_id: int | None = None,
    assignment: str | None = None,
    chat: list[Message] | None = None,
    *,
    review: bool = False,
) -> tuple[Any, ...]:
    """Start a session and ask its first question (the ``practice_start`` endpoint).

    With an ``assignment`` name the session is the student's on that assignment (started or
    resumed, see :func:`start_assignment`); the other settings are then the assignment's.
    """
    if assignment is not None and assignment.strip() and not review:
        # accounts mode: the account (as_student) and its cohort decide what it may sit
        return start_assignment(ctx, student, assignment, session_id, chat)
    try:
        chosen_topic = None if topic in (None, "", ALL_TOPICS) else topic
        view = practice.start_session(
            ctx.db,
            student=student or "",
            kb=kb or DEFAULT_KB,
            topic=chosen_topic,
            format=cast(practice.Format, format or "statement"),
            length=_length(length),
            cohort=cohort or None,
            review=review,
            idle_timeout=_idle(ctx),
        )
        if session_id is not None and session_id != view.id:
            _abandon(ctx, session_id)
        question = practice.next_question(ctx.db, view.id)
        what = "your mistakes" if view.review else md_escape(view.topic_label)
        intro = (
            f"Hello {md_escape(view.student)}! {view.total} question(s) on {what} from "
            f"{_code(view.kb)}. Answer with the buttons or type your answer."
        )
        ack = kb_note(kb_listing(ctx.db), view.kb)
        # no question cannot happen for a new session; shown rather than assumed
        return _outputs(_opening(ctx, view, question, intro, ack))
    except Exception as exc:  # every error becomes a message, never a traceback
        message = _error_text(exc)
        return _outputs(
            Screen(chat=None, data=_data(error=user_message(exc)), status=message, keep_state=True)
        )


def _unknown_assignment(name: str) -> str:
    return (
        f"⚠ **There is no assignment called {_code(name)}.** Check the name your instructor "
        "gave you (spelling and capitals count); nothing was started."
    )


def start_assignment(
    ctx: UiContext,
    student: str,
    assignment: str,
    session_id: int | None = None,
    chat: list[Message] | None = None,
) -> tuple[Any, ...]:
    """Start or resume ``student``'s session on ``assignment`` and show where they are (in
    accounts mode as the account: another cohort's assignment is unknown to it, and an exam
    is open only to an account of its cohort, :func:`quizbot.ui.identity.sitter`).

    A new or unfinished session shows its next question; a finished one is not started again:
    a message says so and its summary (an exam's with the review) is shown once more. Errors,
    such as an unknown name, are a message in the chat; the running session, if any, goes on.
    """
    name = assignment.strip()
    try:
        try:
            view = practice.start_assignment_session(
                ctx.db,
                assignment=name,
                student=student or "",
                sitter=identity.sitter(ctx, student),
            )
        except NotFoundError as exc:
            if "assignment" not in str(exc):
                raise
            message = _unknown_assignment(name)
            return _outputs(
                Screen(
                    chat=[*(chat or []), {"role": "assistant", "content": message}],
                    data=_data(error=f"no assignment {name!r}"),
                    keep_state=True,
                )
            )
        if session_id is not None and session_id != view.id:
            _abandon(ctx, session_id)
        title = f"assignment {_code(view.assignment or name)}"
        ack = kb_note(kb_listing(ctx.db), view.kb)
        if view.status != "active":
            intro = (
                f"Hello {md_escape(view.student)}! You have already finished {title} "
                f"({view.answered} of {view.total} answered); your answers stand and it cannot "
                "be taken again. Its summary is below."
            )
            screen = _finish(ctx, view.id, [{"role": "assistant", "content": intro}])
            screen.ack = ack
            return _outputs(screen)
        question = practice.next_question(ctx.db, view.id)
        if view.answered:
            intro = (
                f"Welcome back {md_escape(view.student)}! You have answered {view.answered} of "
                f"{view.total} questions of {title}; here is the next one."
            )
        else:
            intro = (
                f"Hello {md_escape(view.student)}! {title[:1].upper()}{title[1:]}: "
                f"{view.total} question(s) from {_code(view.kb)}. Answer with the buttons or "
                "type your answer."
            )
        if view.mode == "exam":
            intro += (
                " **This is an exam:** each answer is recorded without feedback; your results "
                "and the explanations are shown once you have answered every question."
            )
        # no question: every answer stored, the session is finished and shown as such
        return _outputs(_opening(ctx, view, question, intro, ack))
    except Exception as exc:  # every error becomes a message, never a traceback
        message = _error_text(exc)
        return _outputs(
            Screen(
                chat=[*(chat or []), {"role": "assistant", "content": message}],
                data=_data(error=user_message(exc)),
                keep_state=True,
            )
        )


def _idle(ctx: UiContext) -> timedelta:
    """How long a practice session may go unanswered before it is closed (the setting)."""
    return timedelta(hours=ctx.settings.practice_idle_hours)


def _no_offer() -> tuple[Any, ...]:
    return gr.update(visible=False), "", None


def offer_resume(ctx: UiContext, student: str | None, session_id: int | None) -> tuple[Any, ...]:
    """After the pseudonym is entered (accounts mode: on page load, for the account): offer the
    student's active session (a page reload lost it from the tab), with when it started and how
    far it got; nothing when there is none or it is the one this tab runs. Returns the offer
    box, its text and the offered session's id."""
    try:
        view = practice.resumable_session(ctx.db, student or "", idle_timeout=_idle(ctx))
    except QuizbotError as exc:  # a lookup while typing: the Start button reports errors
        log.warning("practice tab: cannot look up a session to resume: %s", exc)
        return _no_offer()
    if view is None or view.id == session_id:
        return _no_offer()
    text = (
        f"**Resume your session of {_when(view.started_at)} UTC** "
        f"({view.answered}/{view.total} answered · {md_escape(view.topic_label)} · "
        f"{_code(view.kb)} · {view.format})? Or start a new one."
    )
    return gr.update(visible=True), text, view.id


def resume(
    ctx: UiContext, offered: int | None, session_id: int | None, chat: list[Message] | None
) -> tuple[Any, ...]:
    """The "Resume" button: take the offered session up again at its next question."""
    try:
        if offered is None:
            raise InputError("there is no session to resume", hint="press Start")
        view = practice.session_view(ctx.db, offered)
        if view.status != "active":
            raise InputError(
                f"session {view.id} is {view.status} and cannot be resumed",
                hint="press Start new",
            )
        if session_id is not None and session_id != view.id:
            _abandon(ctx, session_id)
        question = practice.next_question(ctx.db, view.id)
        intro = (
            f"Welcome back {md_escape(view.student)}! You have answered {view.answered} of "
            f"{view.total} questions of your session of {_when(view.started_at)} UTC "
            f"({md_escape(view.topic_label)} from {_code(view.kb)}); here is the next one."
        )
        ack = kb_note(kb_listing(ctx.db), view.kb)
        return _outputs(_opening(ctx, view, question, intro, ack))
    except Exception as exc:  # every error becomes a message, never a traceback
        return _outputs(
            Screen(
                chat=[*(chat or []), {"role": "assistant", "content": _error_text(exc)}],
                data=_data(error=user_message(exc)),
                keep_state=True,
            )
        )


def after_start(ctx: UiContext, offered: int | None, session_id: int | None) -> tuple[Any, ...]:
    """Once a session runs in the tab the offer goes; an offered session the student did not
    resume (they started a new one) is ended. Nothing changes when no session runs (the start
    failed), so the offer stays."""
    if session_id is None:
        return gr.skip(), gr.skip(), gr.skip()
    if offered is not None and offered != session_id:
        _abandon(ctx, offered)
    return _no_offer()


def submit(
    ctx: UiContext,
    answer: str,
    session_id: int | None,
    question: Question | None,
    chat: list[Message] | None,
) -> tuple[Any, ...]:
    """Score an answer, show the feedback and the next question (``practice_answer``)."""
    chat = list(chat or [])
    typed = answer if isinstance(answer, str) else ""
    shown = {"role": "user", "content": md_escape(typed.strip()) or "(empty)"}
    if session_id is None or question is None:
        error = (
            "no practice session is running; start one first"
            if session_id is None
            else "this practice session is over; start another one"
        )
        message = f"⚠ {error[:1].upper()}{error[1:]} (enter a pseudonym and press **Start**)."
        return _outputs(
            Screen(
                chat=[*chat, shown, {"role": "assistant", "content": message}],
                data=_data(error=error),
                keep_state=True,
            )
        )
    try:
        ctx.check_answer_rate(session_id)  # refused: said in the chat below, nothing recorded
        step = practice.answer_and_next(
            ctx.db, session_id, question.id, typed, shown_at=question.shown_at
        )
    except (InputError, DuplicateError) as exc:
        # Unreadable input, or a question answered already (a double click): say so; for a
        # duplicate, move on to whatever is next.
        chat = [*chat, shown, {"role": "assistant", "content": _error_text(exc)}]
        if isinstance(exc, InputError):
            return _outputs(
                Screen(
                    chat=chat,
                    data=_data(question=question, error=user_message(exc)),
                    keep_state=True,
                )
            )
        return _next(ctx, session_id, chat, None, error=user_message(exc), asked=question)
    except Exception as exc:
        chat = [*chat, shown, {"role": "assistant", "content": _error_text(exc)}]
        return _outputs(
            Screen(
                chat=chat, data=_data(question=question, error=user_message(exc)), keep_state=True
            )
        )
    feedback = step.feedback
    if feedback.outcome == WITHHELD:  # an exam: stored, acknowledged, nothing revealed
        chat = [*chat, shown, {"role": "assistant", "content": render_receipt(feedback)}]
        return _next(ctx, session_id, chat, None, step=step, asked=question)
    if feedback.finished and step.view.mode == "exam":  # the review below says it all
        chat = [*chat, shown, {"role": "assistant", "content": render_receipt(feedback)}]
    else:
        chat = [*chat, shown, {"role": "assistant", "content": render_feedback(feedback)}]
    return _next(ctx, session_id, chat, feedback, hold=True, step=step, asked=question)


def _next(
    ctx: UiContext,
    session_id: int,
    chat: list[Message],
    feedback: Feedback | None,
    *,
    error: str | None = None,
    hold: bool = False,
    step: practice.AnswerStep | None = None,
    asked: Question | None = None,
) -> tuple[Any, ...]:
    """The screen after an answer: the summary when nothing is left, else the next question,
    or (``hold``, after feedback) the next question kept back until the student presses Next.
    The JSON's ``question`` is the next question either way, so an API client goes on.

    ``step`` is what :func:`quizbot.practice.service.answer_and_next` returned with the
    answer (read in its transaction); without it (a duplicate answer) it is read here.
    ``asked`` is the question answered (see :attr:`Screen.asked`)."""
    try:
        if step is not None:
            question, second, view = step.question, step.second, step.view
            second_question = step.second_question
        else:
            question = practice.next_question(ctx.db, session_id)
            second = (
                None if question is not None else practice.second_pass_session(ctx.db, session_id)
            )
            second_question = None if second is None else practice.next_question(ctx.db, second.id)
            view = practice.session_view(ctx.db, session_id)
        if second is not None:  # a two-pass assignment: now a guess on what was not known
            intro = (
                f"**Second pass:** you did not know {second.total} question(s). Please give "
                "your best guess on each; your first answers stand and are reported apart."
            )
            screen = _opening(ctx, second, second_question, intro, "")
            screen.chat = [*chat, *(screen.chat or [])]
        elif question is None:
            screen = _finish(ctx, session_id, chat, feedback=feedback)
        else:
            if not hold:
                chat = [*chat, {"role": "assistant", "content": render_question(question)}]
            screen = Screen(
                chat=chat,
                data=_data(question=question, feedback=feedback),
                session_id=session_id,
                question=question,
                status=_status(view, question.position),
                answered=feedback,
                pending=hold,
            )
    except Exception as exc:
        message = _error_text(exc)
        screen = Screen(
            chat=[*chat, {"role": "assistant", "content": message}],
            data=_data(feedback=feedback, error=user_message(exc)),
            keep_state=True,
        )
    if error is not None:
        screen.data["error"] = error
    screen.asked = asked
    return _outputs(screen)


def submit_selection(
    ctx: UiContext,
    letters: str | None,
    data: Any,
    session_id: int | None,
    question: Question | None,
    chat: list[Message] | None,
) -> tuple[Any, ...]:
    """Send the letters chosen with the letter buttons (``"A, C"``, put in by :data:`SUBMIT_JS`
    from the page's selection) as the answer; they are read and checked like a typed answer.
    ``data`` is the tab's JSON, which the browser needs and the server does not."""
    del data
    text = letters if isinstance(letters, str) else ""
    return submit(ctx, text.removeprefix("Submit").strip(), session_id, question, chat)


def show_next(
    ctx: UiContext,
    session_id: int | None,
    question: Question | None,
    chat: list[Message] | None,
) -> tuple[Any, ...]:
    """The "Next" button: the question held back after feedback, in a chat bubble of its own."""
    if session_id is None or question is None:
        return _outputs(
            Screen(chat=None, data=_data(error="no question is waiting"), keep_state=True)
        )
    try:
        view = practice.session_view(ctx.db, session_id)
    except Exception as exc:
        failed = Screen(chat=None, data=_data(error=user_message(exc)), keep_state=True)
        failed.status = _error_text(exc)
        return _outputs(failed)
    return _outputs(
        Screen(
            chat=[*(chat or []), {"role": "assistant", "content": render_question(question)}],
            data=_data(session=view.as_json(), question=question),
            session_id=session_id,
            question=question,
            status=_status(view, question.position),
            asked=question,
        )
    )


def end(ctx: UiContext, session_id: int | None, chat: list[Message] | None) -> tuple[Any, ...]:
    """Stop the running session early and show its summary."""
    chat = list(chat or [])
    if session_id is None:
        return _outputs(
            Screen(chat=None, data=_data(error="no practice session is running"), keep_state=True)
        )
    try:
        view = practice.end_session(ctx.db, session_id)
        if view.mode == "exam" and view.answered < view.total:
            # An unfinished exam has no results to show (the service refuses its summary).
            message = (
                f"**Exam ended early.** Your {view.answered} answer(s) of {view.total} are "
                "stored; an exam's results are shown only when every question is answered, so "
                "there is no review. Enter the assignment again to start it afresh."
            )
            return _outputs(
                Screen(
                    chat=[*chat, {"role": "assistant", "content": message}],
                    data=_data(session=view.as_json()),
                    status=_status(view, None),
                    summary="",
                )
            )
        return _outputs(_finish(ctx, session_id, chat))
    except Exception as exc:
        message = _error_text(exc)
        return _outputs(
            Screen(chat=None, data=_data(error=user_message(exc)), status=message, keep_state=True)
        )


def kb_changed(ctx: UiContext, kb: str) -> tuple[Any, Any]:
    """The chosen KB's topics (for the dropdown) and its licence note.

    The topic's value is never sent: this runs on page load too, and a value sent then would
    overwrite a topic the student chose while the page loaded. A change of KB puts the topic
    back to "All topics" in the browser (:data:`ALL_TOPICS_JS`)."""
    try:
        found = practice.topics(ctx.db, kb or DEFAULT_KB)
        return (
            gr.update(choices=topic_choices(found)),
            kb_note(kb_listing(ctx.db), kb or DEFAULT_KB),
        )
    except Exception as exc:
        return gr.update(choices=topic_choices([])), _error_text(exc)


def show_progress(ctx: UiContext, student: str, kb: str, by: str) -> tuple[Any, ...]:
    """The student's progress: overview, chart, per-topic table, sessions table."""
    empty_plot = progress_view_empty()
    try:
        result = practice.progress(
            ctx.db,
            student or "",
            kb=None if kb in (None, "", ALL_TOPICS) else kb,
            by="session" if by == "session" else "day",
            idle_timeout=_idle(ctx),
        )
    except Exception as exc:
        return (
            _error_text(exc),
            empty_plot,
            pd.DataFrame([], columns=TOPIC_HEADERS),
            pd.DataFrame([], columns=SESSION_HEADERS),
        )
    view = progress_view(result)
    x = "session" if result.by == "session" else "day"
    return (
        view.overview + _due_line(ctx, student, kb) + recall_practice.progress_text(result),
        gr.update(value=view.plot, x=x),
        pd.DataFrame(view.topics, columns=TOPIC_HEADERS),
        pd.DataFrame(view.sessions, columns=SESSION_HEADERS),
    )


def progress_view_empty() -> pd.DataFrame:
    """An empty chart frame (nothing to draw)."""
    return pd.DataFrame({"day": [], "accuracy (%)": [], "topic": []})


FLAG_REASONS = [
    ("The answer key is wrong", FlagReason.WRONG_KEY.value),
    ("The question is ambiguous", FlagReason.AMBIGUOUS.value),
    ("Something else", FlagReason.OTHER.value),
]


@guarded(2)
def send_flag(
    ctx: UiContext,
    reason: str | None,
    comment: str | None,
    session_id: int | None,
    answered: str | None,
) -> tuple[Any, Any]:
    """Flag the question just answered (never one still open) for a reviewer.

    ``answered`` is the id of the question whose feedback the student has seen, kept on the
    server; the browser sends only the reason and the comment. Returns the result message and
    the comment box (cleared once the flag is stored).
    """
    if session_id is None or answered is None:
        return "Answer a question first; you can flag it once you have seen its answer.", gr.skip()
    stored = practice.flag(
        ctx.db, session_id, answered, reason or FlagReason.OTHER.value, comment or ""
    )
    label = dict((v, k) for k, v in FLAG_REASONS).get(stored.reason, stored.reason)
    return (
        f"Thank you: flagged for review ({md_escape(label.lower())}). A reviewer will check it.",
        "",
    )


# --------------------------------------------------------------------------------------------
# Layout


def _kb_names(ctx: UiContext) -> list[str]:
    names = list(BUILTINS)
    try:
        names.extend(e.name for e in kb_listing(ctx.db) if e.name not in names)
    except QuizbotError as exc:  # the tab still works with the built-in KBs
        log.warning("practice tab: cannot list knowledge bases: %s", exc)
    return names


def build(ctx: UiContext) -> None:
    """Lay out the tab inside the enclosing gr.Tab."""
    kb_names = _kb_names(ctx)
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=280):
            gr.Markdown(
                "Practise medical knowledge one question at a time. Use a pseudonym or code "
                "name: it is how your answers and progress are kept."
            )
            student = gr.Textbox(
                label="Pseudonym or code name",
                placeholder="e.g. your student code",
                max_length=practice.MAX_NAME_LENGTH,
                elem_id="qb-practice-student",
            )
            with gr.Group(visible=False, elem_id="qb-practice-resume") as resume_box:
                resume_text = gr.Markdown(elem_id="qb-practice-resume-text")
                with gr.Row():
                    resume_btn = gr.Button(
                        "Resume", variant="primary", elem_id="qb-practice-resume-go"
                    )
                    fresh_btn = gr.Button("Start new", elem_id="qb-practice-resume-new")
            cohort = gr.Textbox(
                label="Cohort or group (optional)",
                max_length=practice.MAX_NAME_LENGTH,
                elem_id="qb-practice-cohort",
            )
            assignment = gr.Textbox(
                label="Assignment (optional)",
                info="The name your instructor gave you; it sets the questions, so the "
                "settings below are not used.",
                max_length=practice.MAX_NAME_LENGTH,
                elem_id="qb-practice-assignment",
            )
            kb = gr.Dropdown(
                choices=kb_names,
                value=DEFAULT_KB,
                label="Knowledge base",
                info="hpo loads on first use (about 20 s)",
                elem_id="qb-practice-kb",
            )
            kb_info = gr.Markdown(elem_id="qb-practice-kb-note")
            topic = gr.Dropdown(
                choices=[("All topics", ALL_TOPICS)],
                value=ALL_TOPICS,
                label="Topic",
                allow_custom_value=True,  # choices change with the KB; the service checks
                elem_id="qb-practice-topic",
            )
            fmt = gr.Radio(
                choices=FORMATS,
                value="statement",
                label="Question format",
                elem_id="qb-practice-format",
            )
            length = gr.Slider(
                minimum=1,
                maximum=practice.MAX_LENGTH,
                step=1,
                value=DEFAULT_LENGTH,
                label="Number of questions",
                elem_id="qb-practice-length",
            )
            with gr.Row():
                start_btn = gr.Button("Start", variant="primary", elem_id="qb-practice-start")
                review_btn = gr.Button("Review my mistakes", elem_id="qb-practice-review")
            due_text, due_btn = _build_due_panel()
        with gr.Column(scale=2, min_width=420):
            status = gr.Markdown(
                "Choose your options and press **Start**.", elem_id="qb-practice-status"
            )
            chatbot = gr.Chatbot(
                label="Practice",
                height=520,
                feedback_options=None,
                buttons=["copy_all"],
                group_consecutive_messages=False,  # one bubble per question, one per feedback
                elem_id="qb-practice-chat",
            )
            ack = gr.Markdown(elem_id="qb-practice-ack")
            with gr.Row():
                true_btn = gr.Button("True", visible=False, elem_id="qb-practice-true")
                false_btn = gr.Button("False", visible=False, elem_id="qb-practice-false")
                letter_btns = [
                    gr.Button(
                        letter, visible=False, min_width=60, elem_id=f"qb-practice-letter-{letter}"
                    )
                    for letter in LETTER_BUTTONS
                ]
                submit_btn = gr.Button(
                    "Submit",
                    visible=False,
                    interactive=False,
                    variant="primary",
                    elem_id="qb-practice-submit",
                )
                idk_btn = gr.Button(IDK, visible=False, elem_id="qb-practice-idk")
            with gr.Row():
                answer_box = gr.Textbox(
                    show_label=False,
                    placeholder="…or type: true / false, a letter such as A or A,C, or idk; "
                    "press Enter",
                    max_length=practice.MAX_ANSWER_LENGTH,
                    visible=False,
                    scale=4,
                    elem_id="qb-practice-answer",
                )
                end_btn = gr.Button(
                    "End session", visible=False, scale=1, elem_id="qb-practice-end"
                )
                next_btn = gr.Button(
                    "Next question",
                    visible=False,
                    variant="primary",
                    scale=1,
                    elem_id="qb-practice-next",
                )
            with gr.Accordion(
                "Flag this question", open=False, visible=False, elem_id="qb-practice-flag"
            ) as flag_box:
                flag_reason = gr.Radio(
                    choices=FLAG_REASONS,
                    value=FlagReason.WRONG_KEY.value,
                    label="What is wrong?",
                    elem_id="qb-practice-flag-reason",
                )
                flag_comment = gr.Textbox(
                    label="Comment (optional)",
                    max_length=MAX_FLAG_COMMENT,
                    lines=2,
                    elem_id="qb-practice-flag-comment",
                )
                flag_btn = gr.Button("Send flag", size="sm", elem_id="qb-practice-flag-send")
                flag_result = gr.Markdown(elem_id="qb-practice-flag-result")
            summary = gr.Markdown(elem_id="qb-practice-summary")
            data = gr.JSON(visible=False, elem_id="qb-practice-data")
    recall_practice.build(ctx, student=student, cohort=cohort, kb=kb, assignment=assignment)
    with gr.Accordion("My progress", open=False, elem_id="qb-practice-progress") as progress_box:
        with gr.Row():
            progress_kb = gr.Dropdown(
                choices=[("All knowledge bases", ALL_TOPICS), *((n, n) for n in kb_names)],
                value=ALL_TOPICS,
                label="Knowledge base",
            )
            by = gr.Radio(
                choices=[("Per day", "day"), ("Per session", "session")],
                value="day",
                label="Accuracy",
            )
            progress_btn = gr.Button("Show my progress", elem_id="qb-practice-progress-show")
        progress_text = gr.Markdown(
            "Enter your pseudonym above, then press **Show my progress**.",
            elem_id="qb-practice-progress-text",
        )
        plot = gr.ScatterPlot(
            progress_view_empty(),
            x="day",
            y="accuracy (%)",
            color="topic",
            y_lim=[0, 100],
            tooltip=["topic", "accuracy (%)", "95% CI", "answered"],
            label="Accuracy over time",
            elem_id="qb-practice-progress-plot",
        )
        topic_table = gr.Dataframe(
            headers=TOPIC_HEADERS,
            label="Per topic (95% Wilson intervals)",
            interactive=False,
            elem_id="qb-practice-progress-topics",
        )
        session_table = gr.Dataframe(
            headers=SESSION_HEADERS,
            label="Sessions",
            interactive=False,
            elem_id="qb-practice-progress-sessions",
        )

    session_state = gr.State(None)
    question_state = gr.State(None)
    chat_state = gr.State([])
    flag_state = gr.State(None)  # the question just answered (its id stays on the server)
    offered_state = gr.State(None)  # the session offered for resuming (pseudonym or account)

    screen = [
        data,
        chatbot,
        status,
        summary,
        ack,
        true_btn,
        false_btn,
        *letter_btns,
        submit_btn,
        idk_btn,
        answer_box,
        end_btn,
        next_btn,
        flag_box,
        flag_state,
        session_state,
        question_state,
        chat_state,
    ]
    # The API takes the components in this order (states are not part of it), so the
    # assignment, added last, comes after the cohort there too.
    settings = [student, kb, topic, fmt, length, cohort, session_state, assignment, chat_state]
    # In accounts mode the logged-in account is the student, whatever the form says.
    identity.hide_in_accounts_mode(ctx, student, cohort)
    as_account = partial(identity.as_student, ctx, n_inputs=len(settings), student=0, cohort=5)
    offer = [resume_box, resume_text, offered_state]
    gr.on(
        [student.blur, student.submit],
        identity.as_student(ctx, partial(offer_resume, ctx), 2, student=0),
        [student, session_state],
        offer,
        api_visibility="private",
        show_progress="hidden",
    )
    gr.on(  # accounts mode: the account's own active session is offered on page load
        None,
        identity.for_account(ctx, lambda name: offer_resume(ctx, name, None), len(offer)),
        outputs=offer,
        api_visibility="private",
        show_progress="hidden",
    )
    settled = {  # after Start, Start new, Resume: the offer goes (an old one is ended)
        "fn": partial(after_start, ctx),
        "inputs": [offered_state, session_state],
        "outputs": offer,
        "api_visibility": "private",
        "show_progress": "hidden",
    }
    to_chat = {"fn": None, "js": SHOW_CHAT_JS, "api_visibility": "private"}
    start_btn.click(
        as_account(partial(start, ctx)),
        settings,
        screen,
        api_name="practice_start",
        show_progress="minimal",
    ).then(**settled).then(**to_chat)
    review_btn.click(
        as_account(partial(start, ctx, review=True)),
        settings,
        screen,
        api_visibility="private",
        show_progress="minimal",
    ).then(**settled).then(**to_chat)
    fresh_btn.click(
        as_account(partial(start, ctx)),
        settings,
        screen,
        api_visibility="private",
        show_progress="minimal",
    ).then(**settled).then(**to_chat)
    resume_btn.click(
        partial(resume, ctx),
        [offered_state, session_state, chat_state],
        screen,
        api_visibility="private",
        show_progress="minimal",
    ).then(**settled).then(**to_chat)
    due_session = [length, session_state, chat_state]
    _wire_due_panel(ctx, due_text, due_btn, [student, kb], due_session, chatbot, screen)
    answer_state = [session_state, question_state, chat_state]
    gr.on(
        [answer_box.submit],
        partial(submit, ctx),
        [answer_box, *answer_state],
        screen,
        api_name="practice_answer",
        show_progress="minimal",
    )
    fixed: list[tuple[Any, str]] = [(true_btn, "True"), (false_btn, "False"), (idk_btn, IDK)]
    for button, text in fixed:
        button.click(
            _fixed_answer(ctx, text),
            answer_state,
            screen,
            api_visibility="private",
            show_progress="minimal",
        )
    for letter, button in zip(LETTER_BUTTONS, letter_btns, strict=True):
        button.click(  # in the browser only: no server event per letter
            None,
            [data],
            [button, submit_btn],
            js=LETTER_JS.replace("LETTER", letter),
            api_visibility="private",
        )
    submit_btn.click(
        partial(submit_selection, ctx),
        [submit_btn, data, *answer_state],
        screen,
        js=SUBMIT_JS,
        api_visibility="private",
        show_progress="minimal",
    )
    end_btn.click(
        partial(end, ctx),
        [session_state, chat_state],
        screen,
        api_visibility="private",
        show_progress="minimal",
    )
    next_btn.click(
        partial(show_next, ctx),
        answer_state,
        screen,
        api_visibility="private",
        show_progress="minimal",
    )
    gr.on(  # on page load and on a change of KB
        None,
        partial(kb_changed, ctx),
        [kb],
        [topic, kb_info],
        api_visibility="private",
        show_progress="minimal",
    )
    kb.change(None, None, [topic], js=ALL_TOPICS_JS, api_visibility="private")  # in the browser
    flag_state.change(  # a new answer: a fresh flag form
        lambda: ("", ""), None, [flag_result, flag_comment], api_visibility="private"
    )
    flag_btn.click(
        partial(send_flag, ctx),
        [flag_reason, flag_comment, session_state, flag_state],
        [flag_result, flag_comment],
        api_visibility="private",
        show_progress="minimal",
    )
    progress_outputs = [progress_text, plot, topic_table, session_table]
    gr.on(
        [progress_btn.click, progress_box.expand],
        identity.as_student(ctx, partial(show_progress, ctx), 3, student=0),
        [student, progress_kb, by],
        progress_outputs,
        api_name="practice_progress",
    )


def _fixed_answer(ctx: UiContext, text: str) -> Callable[..., tuple[Any, ...]]:
    """A handler answering ``text`` (a button's answer) to the current question."""

    def handler(
        session_id: int | None, question: Question | None, chat: list[Message] | None
    ) -> tuple[Any, ...]:
        return submit(ctx, text, session_id, question, chat)

    return handler


def _error_text(exc: BaseException) -> str:
    """A failed practice action as Markdown (the chat's warning look)."""
    return error_markdown(exc, "⚠")


# --------------------------------------------------------------------------------------------
# Spaced review: the "Due for review" panel, its session, the line in "My progress"

_DUE_HINT = "Enter your pseudonym to see what is due for review."


def due_panel_text(count: int) -> str:
    """The panel's text for ``count`` facts due now."""
    noun = "fact" if count == 1 else "facts"
    if count == 0:
        return (
            f"**Due for review: 0 {noun}.** Facts you answer come due again days later "
            "(spaced review)."
        )
    return f"**Due for review: {count} {noun}.** Press **Review due facts** to go over them."


def refresh_due(ctx: UiContext, student: str, kb: str) -> tuple[Any, Any]:
    """The panel's text and whether its button can be pressed (the student's cards are built
    from their answers on first use)."""
    if not (student or "").strip():
        return _DUE_HINT, gr.update(interactive=False)
    try:
        count = practice.count_due_now(ctx.db, student, kb=kb or DEFAULT_KB)
    except Exception as exc:  # every error becomes a message, never a traceback
        return _error_text(exc), gr.update(interactive=False)
    return due_panel_text(count), gr.update(interactive=count > 0)


def start_due(
    ctx: UiContext,
    student: str,
    kb: str,
    length: float,
    session_id: int | None = None,
    chat: list[Message] | None = None,
) -> tuple[Any, ...]:
    """Start a session asking the facts due for review now (most overdue first)."""
    try:
        view = practice.start_review_session(
            ctx.db, student=student or "", kb=kb or DEFAULT_KB, length=_length(length)
        )
        if session_id is not None and session_id != view.id:
            _abandon(ctx, session_id)
        question = practice.next_question(ctx.db, view.id)
        intro = (
            f"Hello {md_escape(view.student)}! {view.total} fact(s) due for review from "
            f"{_code(view.kb)}. Answer with the buttons or type your answer."
        )
        return _outputs(_opening(ctx, view, question, intro, ""))
    except Exception as exc:  # every error becomes a message, never a traceback
        message = _error_text(exc)
        return _outputs(
            Screen(chat=None, data=_data(error=user_message(exc)), status=message, keep_state=True)
        )


def _due_line(ctx: UiContext, student: str, kb: str | None) -> str:
    """The progress overview's spaced-review line (empty when it cannot be read)."""
    try:
        counts = practice.due_counts(
            ctx.db, student or "", kb=None if kb in (None, "", ALL_TOPICS) else kb
        )
    except Exception as exc:  # the rest of the progress view still stands
        log.warning("due counts not shown: %s", user_message(exc))
        return ""
    return (
        f"\n\nDue for review: **{counts.today}** today, **{counts.week}** within a week "
        "(spaced review)."
    )


def _build_due_panel() -> tuple[Any, Any]:
    with gr.Group(elem_id="qb-practice-due"):
        text = gr.Markdown(_DUE_HINT, elem_id="qb-practice-due-text")
        button = gr.Button(
            "Review due facts", interactive=False, size="sm", elem_id="qb-practice-due-start"
        )
    return text, button


def _wire_due_panel(
    ctx: UiContext,
    text: Any,
    button: Any,
    who: list[Any],
    session: list[Any],
    chatbot: Any,
    screen: list[Any],
) -> None:
    """``who`` is [student, kb]; ``session`` is [length, session state, chat state]."""
    student, kb = who
    button.click(
        identity.as_student(ctx, partial(start_due, ctx), len(who) + len(session), student=0),
        [*who, *session],
        screen,
        api_visibility="private",
        show_progress="minimal",
    )
    gr.on(
        [student.blur, student.submit, kb.change, chatbot.change],
        identity.as_student(ctx, partial(refresh_due, ctx), len(who), student=0),
        who,
        [text, button],
        api_visibility="private",
        show_progress="hidden",
    )
