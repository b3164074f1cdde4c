"""The "Practice" tab: a student answers questions one at a time in a chat, with feedback.

Modules: :mod:`.render` (words and pure rendering), :mod:`.browser` (what runs in the page),
:mod:`.screen` (the screen after an action), :mod:`.sessions` (start, resume, answer, next, end),
:mod:`.panels` (topics, progress, flags, due panel), :mod:`.due` (the due panel's values, which
an answer, a start and End show with their own screen), :mod:`.layout` (components and wiring).
This package exports the names the app and its tests use.

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

    Keyboard. Keys 1/2/3 press True/False/I don't know, a letter presses its option's button
    (still in the page only), Enter submits the letters or presses Next; a help line under the
    chat lists them (:data:`KEYS_HELP`, :data:`KEYS_JS`). They act only while the Practice tab
    is shown and the focus is in the chat's column or nowhere, never in a text box. After every
    change of the chat (:data:`AFTER_CHAT_JS`) the focus moves to what comes next (Next, or the
    new question's first button, or the answer box after a typed answer) and the newest message
    is shown from its start, the page scrolled so that it and the control under it are on
    screen (at 390 px the verdict with Next). End session sits beside the status line, so no
    Tab + Enter from there ends a session.

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

    In accounts mode nobody needs to type a name: the tab lists the student's own assignments
    (:mod:`quizbot.ui.practice.assignment_list`: their cohort's and those of no cohort, open
    now or opening later, an exam only when they may sit it) with the status (not started, in
    progress, finished) and the window; choosing one fills the assignment field and Start
    starts it (the server checks cohort, seat and window again). The list is filled on page
    load and again when a session starts or finishes.

    Flagging. After the feedback on a question, "Flag this question" (reason and an optional
    comment) flags the question just answered: its id is kept in server-side state when the
    answer is stored, so a question not yet answered can never be flagged, and the service checks
    it again (:func:`quizbot.practice.service.flag`). Reviewers see flags in the Admin tab.

    Progress. "My progress" reads the student's whole history from the database
    (:func:`quizbot.practice.service.progress`): accuracy per day, per week or per session with
    95% Wilson intervals: overall in a chart (:mod:`quizbot.ui.practice.progress_chart`: one
    evenly spaced slot per period, so a single day is one point with its interval bar, not a
    dot against an axis), per topic in a table, and the list of sessions. Below, the coverage
    per organ system or per relation, weakest first, and the weakest topics of that view
    (:meth:`~quizbot.practice.service.Coverage.weakest`) with "Practice these": a session on
    them in the tab's format and length.

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
    "My progress" adds its figures (mean F1 per aspect) below the accuracy. Recall questions
    come back there, not in the chat: its own resume offer, "Review my recall mistakes" and
    "Review due recall questions" (the chat's review and due panel count facts only).

API (for ``gradio_client``; ``gr.State`` is kept per client, so one Client is one student)
    ``/practice_start`` (student, kb="clinical-core", topic="all", format="statement",
    length=10, cohort=None, assignment=None) and ``/practice_answer`` (answer) return the six
    values of :data:`API_OUTPUTS`; the first is a JSON object with ``session``, ``question``,
    ``feedback``, ``summary`` and ``error`` (each null when it does not apply). The button
    updates are not part of the API. ``/practice_progress`` (student, kb="all", by="day",
    "week" or "session") returns the overview, the chart (HTML: an SVG of the overall accuracy
    per period with its 95% Wilson intervals, :mod:`quizbot.ui.practice.progress_chart`) and
    the two tables (per topic: one row each, saying
    whether it is a relation or an organ system; sessions). The coverage below them (facts seen
    and due, per organ system or per relation, :func:`~quizbot.practice.service.coverage`) is
    filled by a chained event of its own, not part of the API.
"""

from __future__ import annotations

from quizbot.ui.practice.browser import (
    AFTER_CHAT_JS,
    ALL_TOPICS_JS,
    KEYS_HELP,
    KEYS_JS,
    LETTER_JS,
    SHOW_CHAT_JS,
    SUBMIT_JS,
)
from quizbot.ui.practice.layout import build
from quizbot.ui.practice.panels import (
    kb_changed,
    refresh_due,
    send_flag,
    show_coverage,
    show_progress,
)
from quizbot.ui.practice.render import (
    ALL_TOPICS,
    API_OUTPUTS,
    COVERAGE_HEADERS,
    FLAG_REASONS,
    IDK,
    LETTER_BUTTONS,
    SEALED_ACCURACY,
    SESSION_HEADERS,
    TOPIC_HEADERS,
    Message,
    ProgressView,
    _error_text,
    answer_letters,
    coverage_rows,
    coverage_text,
    due_panel_text,
    kb_note,
    progress_view,
    render_feedback,
    render_question,
    render_receipt,
    render_review,
    render_summary,
    topic_choices,
)
from quizbot.ui.practice.screen import Screen, _controls, _outputs
from quizbot.ui.practice.sessions import (
    after_start,
    end,
    offer_resume,
    resume,
    show_next,
    start,
    start_assignment,
    start_due,
    submit,
    submit_selection,
)
from quizbot.ui.render import format_proportion, md_escape

__all__ = [
    "AFTER_CHAT_JS",
    "ALL_TOPICS",
    "ALL_TOPICS_JS",
    "API_OUTPUTS",
    "COVERAGE_HEADERS",
    "FLAG_REASONS",
    "IDK",
    "KEYS_HELP",
    "KEYS_JS",
    "LETTER_BUTTONS",
    "LETTER_JS",
    "SEALED_ACCURACY",
    "SESSION_HEADERS",
    "SHOW_CHAT_JS",
    "SUBMIT_JS",
    "TOPIC_HEADERS",
    "Message",
    "ProgressView",
    "Screen",
    "_controls",
    "_error_text",
    "_outputs",
    "after_start",
    "answer_letters",
    "build",
    "coverage_rows",
    "coverage_text",
    "due_panel_text",
    "end",
    "format_proportion",
    "kb_changed",
    "kb_note",
    "md_escape",
    "offer_resume",
    "progress_view",
    "refresh_due",
    "render_feedback",
    "render_question",
    "render_receipt",
    "render_review",
    "render_summary",
    "resume",
    "send_flag",
    "show_coverage",
    "show_next",
    "show_progress",
    "start",
    "start_assignment",
    "start_due",
    "submit",
    "submit_selection",
    "topic_choices",
]
