"""The Practice tab's layout and the wiring of its events."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

import gradio as gr

from quizbot.domain import MAX_FLAG_COMMENT, FlagReason
from quizbot.errors import QuizbotError
from quizbot.kb.registry import BUILTINS, DEFAULT_KB, kb_listing
from quizbot.practice import service as practice
from quizbot.ui import identity, recall_practice
from quizbot.ui.context import UiContext
from quizbot.ui.disclosure import disclosure_body, disclosure_box, disclosure_toggle
from quizbot.ui.practice import assignment_list
from quizbot.ui.practice.browser import (
    AFTER_CHAT_JS,
    ALL_TOPICS_JS,
    KEYS_HELP,
    KEYS_JS,
    LETTER_JS,
    SHOW_CHAT_JS,
    SUBMIT_JS,
)
from quizbot.ui.practice.panels import (
    kb_changed,
    refresh_due,
    send_flag,
    show_coverage,
    show_progress,
    start_weakest,
)
from quizbot.ui.practice.render import (
    ALL_TOPICS,
    COVERAGE_HEADERS,
    COVERAGE_VIEWS,
    DEFAULT_LENGTH,
    FLAG_REASONS,
    FORMATS,
    IDK,
    LETTER_BUTTONS,
    PROGRESS_BY,
    PROGRESS_HINT,
    PROGRESS_HINT_ACCOUNTS,
    SESSION_HEADERS,
    TOPIC_HEADERS,
    due_hint,
    intro_text,
)
from quizbot.ui.practice.sessions import (
    _fixed_answer,
    after_start,
    end,
    offer_resume,
    resume,
    show_next,
    start,
    start_due,
    submit,
    submit_selection,
)

log = logging.getLogger(__name__)

PROGRESS = "qb-practice-progress"  # the My progress section (its toggle: PROGRESS-toggle)

# Handlers that show what the database holds for the current inputs (the due counts, the resume
# offers) run again after a pending run when triggered meanwhile ("always_last"): with Gradio's
# default for a blur or a click ("once") a trigger arriving while one runs was dropped, so the
# due count read just before an answer was stored stayed on screen after it. Checked by
# tests/ui/test_wiring.py::test_views_of_the_database_run_again_when_triggered_meanwhile.
REFRESHING = (
    "practice.panels:refresh_due",
    "practice.sessions:offer_resume",
    "recall_practice:refresh_due",
    "recall_practice:offer",
)


# How many calls of one practice handler that reads and writes a session (start, answer, end,
# next) a replica runs at once. Gradio's default for every handler is 16 (quizbot.ui.gate); a
# practice call is a few milliseconds of Python between database round trips, and 16 threads
# taking turns at the GIL keep their transactions open while they wait for it (PostgreSQL saw
# connections "idle in transaction", docs/performance.md Part 13). The handlers that ask models
# keep 16: their calls wait seconds on the network, not on the GIL.
PRACTICE_CONCURRENCY = 4
_PRACTICE_CALL: dict[str, Any] = {"concurrency_limit": PRACTICE_CONCURRENCY}


def _kb_names(ctx: UiContext) -> list[str]:
    names = list(BUILTINS)
    try:
        names.extend(e.name for e in kb_listing(ctx.db) if e.name not in names)
    except QuizbotError as exc:  # the tab still works with the built-in KBs
        log.warning("practice tab: cannot list knowledge bases: %s", exc)
    return names


@dataclass
class _Settings:
    """The left column: who, what and how many, the resume offer and the due panel."""

    intro: Any
    student: Any
    resume_box: Any
    resume_text: Any
    resume_btn: Any
    fresh_btn: Any
    cohort: Any
    assignment: Any
    kb: Any
    kb_info: Any
    topic: Any
    fmt: Any
    length: Any
    start_btn: Any
    review_btn: Any
    due_text: Any
    due_btn: Any
    assignments: assignment_list.AssignmentList  # accounts mode: the student's own list


@dataclass
class _Chat:
    """The right column: the chat, the answer controls, the flag form and the summary."""

    status: Any
    chatbot: Any
    ack: Any
    true_btn: Any
    false_btn: Any
    letter_btns: list[Any]
    submit_btn: Any
    idk_btn: Any
    answer_box: Any
    end_btn: Any
    next_btn: Any
    flag_box: Any
    flag_reason: Any
    flag_comment: Any
    flag_btn: Any
    flag_result: Any
    summary: Any
    data: Any


@dataclass
class _ProgressPanel:
    """The "My progress" section (:mod:`quizbot.ui.disclosure`); ``toggle`` opens it."""

    toggle: Any
    kb: Any
    by: Any
    button: Any
    text: Any
    plot: Any
    topics: Any
    sessions: Any
    coverage_view: Any
    coverage_text: Any
    coverage: Any
    weakest: Any
    weakest_btn: Any


@dataclass
class _States:
    """What the tab keeps on the server per browser tab."""

    session: Any
    question: Any
    chat: Any
    flag: Any  # the question just answered (its id stays on the server)
    offered: Any  # the session offered for resuming (pseudonym or account)
    due: Any  # whom and which KB the due panel counts for (quizbot.ui.practice.due)

    @classmethod
    def make(cls) -> _States:
        """The states, created inside the tab's Blocks."""
        return cls(
            gr.State(None), gr.State(None), gr.State([]), gr.State(None), gr.State(None),
            gr.State(None),
        )  # fmt: skip

    def answer(self) -> list[Any]:
        """The inputs of every answering handler after the answer itself."""
        return [self.session, self.question, self.chat]


def build(ctx: UiContext) -> None:
    """Lay out the tab inside the enclosing gr.Tab and wire its events."""
    kb_names = _kb_names(ctx)
    with gr.Row(equal_height=False):
        settings = _settings_column(kb_names, ctx.accounts_mode())
        chat = _chat_column()
    recall_practice.build(
        ctx,
        student=settings.student,
        cohort=settings.cohort,
        kb=settings.kb,
        assignment=settings.assignment,
    )
    progress = _progress_panel(kb_names, ctx.accounts_mode())
    states = _States.make()
    screen = [
        chat.data,
        chat.chatbot,
        chat.status,
        chat.summary,
        chat.ack,
        chat.true_btn,
        chat.false_btn,
        *chat.letter_btns,
        chat.submit_btn,
        chat.idk_btn,
        chat.answer_box,
        chat.end_btn,
        chat.next_btn,
        # an answer clears the flag form and shows the due panel itself: no request of their own
        chat.flag_result,
        chat.flag_comment,
        settings.due_text,
        settings.due_btn,
        states.due,
        chat.flag_box,
        states.flag,
        states.session,
        states.question,
        states.chat,
    ]
    refresh = _wire_due_panel(
        ctx,
        settings.due_text,
        settings.due_btn,
        [settings.student, settings.kb],
        [settings.length, states.session, states.chat],
        states.due,
        screen,
    )
    settled = _wire_starts(ctx, settings, states, screen, refresh)
    assignment_list.wire(
        ctx,
        settings.assignments,
        settings.assignment,
        [states.session.change, chat.summary.change],  # a session started or finished
    )
    _wire_answers(ctx, chat, states, screen)
    _wire_kb_and_flag(ctx, settings, chat, states)
    coverage = {  # not part of the API: /practice_progress keeps its four outputs
        "fn": identity.as_student(ctx, partial(show_coverage, ctx), 4, student=0),
        "inputs": [settings.student, progress.kb, settings.kb, progress.coverage_view],
        "outputs": [
            progress.coverage_text,
            progress.coverage,
            progress.weakest,
            progress.weakest_btn,
        ],
        "api_visibility": "private",
        "show_progress": "hidden",
    }
    gr.on(
        [progress.button.click, progress.toggle.click],
        identity.as_student(ctx, partial(show_progress, ctx), 3, student=0),
        [settings.student, progress.kb, progress.by],
        [progress.text, progress.plot, progress.topics, progress.sessions],
        api_name="practice_progress",
    ).then(**coverage)
    progress.coverage_view.change(**coverage)
    progress.weakest_btn.click(  # "Practice these": a session on the weakest topics
        identity.as_student(ctx, partial(start_weakest, ctx), 8, student=0, sessions=(6,)),
        [
            settings.student,
            progress.kb,
            settings.kb,
            progress.coverage_view,
            settings.fmt,
            settings.length,
            states.session,
            states.chat,
        ],
        screen,
        api_visibility="private",
        show_progress="minimal",
    ).then(**settled).then(fn=None, js=SHOW_CHAT_JS, api_visibility="private")


def _settings_column(kb_names: list[str], accounts_mode: bool) -> _Settings:
    with gr.Column(scale=1, min_width=280):
        intro = gr.Markdown(intro_text(accounts_mode), elem_id="qb-practice-intro")
        student = gr.Textbox(
            label="Pseudonym or code name",
            placeholder="e.g. your student code",
            max_length=practice.MAX_NAME_LENGTH,
            elem_id="qb-practice-student",
        )
        with gr.Group(visible=False, elem_id="qb-practice-resume") as resume_box:
            resume_text = gr.Markdown(elem_id="qb-practice-resume-text")
            with gr.Row():
                resume_btn = gr.Button("Resume", variant="primary", elem_id="qb-practice-resume-go")
                fresh_btn = gr.Button("Start new", elem_id="qb-practice-resume-new")
        cohort = gr.Textbox(
            label="Cohort or group (optional)",
            max_length=practice.MAX_NAME_LENGTH,
            elem_id="qb-practice-cohort",
        )
        assignments = assignment_list.build()  # accounts mode: the student's own list
        assignment = gr.Textbox(
            label="Assignment (optional)",
            info=(
                "Filled in by your choice above; it sets the questions, so the settings "
                "below are not used."
                if accounts_mode
                else "The name your instructor gave you; it sets the questions, so the "
                "settings below are not used."
            ),
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
        due_text, due_btn = _build_due_panel(accounts_mode)
    return _Settings(
        intro,
        student,
        resume_box,
        resume_text,
        resume_btn,
        fresh_btn,
        cohort,
        assignment,
        kb,
        kb_info,
        topic,
        fmt,
        length,
        start_btn,
        review_btn,
        due_text,
        due_btn,
        assignments,
    )


def _chat_column() -> _Chat:
    with gr.Column(scale=2, min_width=420, elem_id="qb-practice-chat-column"):
        # End session sits by the status line, above the chat: away from the answer controls
        # and Next, so one Tab + Enter from where the focus lands never ends a session.
        with gr.Row(equal_height=False):
            status = gr.Markdown(
                "Choose your options and press **Start**.", elem_id="qb-practice-status"
            )
            end_btn = gr.Button(
                "End session",
                visible=False,
                size="sm",
                scale=0,
                min_width=120,
                elem_id="qb-practice-end",
            )
        chatbot = gr.Chatbot(
            label="Practice",
            height=520,
            feedback_options=None,
            buttons=["copy_all"],
            group_consecutive_messages=False,  # one bubble per question, one per feedback
            autoscroll=False,  # AFTER_CHAT_JS shows the newest message from its start
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
                label="Your answer",  # its accessible name; the placeholder says the rest
                show_label=False,
                placeholder="…or type: true / false, a letter such as A or A,C, or idk; "
                "press Enter",
                max_length=practice.MAX_ANSWER_LENGTH,
                visible=False,
                scale=4,
                elem_id="qb-practice-answer",
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
        gr.Markdown(KEYS_HELP, elem_id="qb-practice-keys")
        summary = gr.Markdown(elem_id="qb-practice-summary")
        data = gr.JSON(visible=False, elem_id="qb-practice-data")
    return _Chat(
        status,
        chatbot,
        ack,
        true_btn,
        false_btn,
        letter_btns,
        submit_btn,
        idk_btn,
        answer_box,
        end_btn,
        next_btn,
        flag_box,
        flag_reason,
        flag_comment,
        flag_btn,
        flag_result,
        summary,
        data,
    )


def _progress_panel(kb_names: list[str], accounts_mode: bool) -> _ProgressPanel:
    with disclosure_box(PROGRESS):
        progress_toggle = disclosure_toggle("My progress", PROGRESS)
        with disclosure_body(PROGRESS):
            with gr.Row():
                progress_kb = gr.Dropdown(
                    choices=[("All knowledge bases", ALL_TOPICS), *((n, n) for n in kb_names)],
                    value=ALL_TOPICS,
                    label="Knowledge base",
                )
                by = gr.Radio(
                    choices=PROGRESS_BY,
                    value="day",
                    label="Accuracy",
                    elem_id="qb-practice-progress-by",
                )
                progress_btn = gr.Button("Show my progress", elem_id="qb-practice-progress-show")
            progress_text = gr.Markdown(
                PROGRESS_HINT_ACCOUNTS if accounts_mode else PROGRESS_HINT,
                elem_id="qb-practice-progress-text",
            )
            plot = gr.HTML(label="Accuracy over time", elem_id="qb-practice-progress-plot")
            topic_table = gr.Dataframe(
                headers=TOPIC_HEADERS,
                label="Per topic (95% Wilson intervals)",
                interactive=False,
                elem_id="qb-practice-progress-topics",
            )
            coverage_text = gr.Markdown(elem_id="qb-practice-coverage-text")
            coverage_view = gr.Radio(
                choices=COVERAGE_VIEWS,
                value="system",
                label="Coverage",
                elem_id="qb-practice-coverage-view",
            )
            coverage_table = gr.Dataframe(
                headers=COVERAGE_HEADERS,
                label="Facts seen and due for review, weakest topics first",
                interactive=False,
                elem_id="qb-practice-coverage",
            )
            with gr.Row(equal_height=True):
                weakest = gr.Markdown(elem_id="qb-practice-weakest")
                weakest_btn = gr.Button(
                    "Practice these",
                    interactive=False,
                    size="sm",
                    scale=0,
                    min_width=140,
                    elem_id="qb-practice-weakest-start",
                )
            session_table = gr.Dataframe(
                headers=SESSION_HEADERS,
                label="Sessions",
                interactive=False,
                elem_id="qb-practice-progress-sessions",
            )

    return _ProgressPanel(
        progress_toggle,
        progress_kb,
        by,
        progress_btn,
        progress_text,
        plot,
        topic_table,
        session_table,
        coverage_view,
        coverage_text,
        coverage_table,
        weakest,
        weakest_btn,
    )


def _wire_starts(
    ctx: UiContext, s: _Settings, states: _States, screen: list[Any], refresh: dict[str, Any]
) -> dict[str, Any]:
    """The resume offer, Start, Review my mistakes, Start new and Resume. Returns the step
    chained after a start (the resume offer settles), for the other ways to start. A start
    shows the due panel itself; Resume, which reads no field of the form, chains ``refresh``
    (the panel read again)."""
    # The API takes the components in this order (states are not part of it), so the
    # assignment, added last, comes after the cohort there too.
    settings = [s.student, s.kb, s.topic, s.fmt, s.length, s.cohort]
    settings += [states.session, s.assignment, states.chat]
    # ...and, last, what the tab shows (states too): a start skips the updates that would leave
    # a control as it is (Screen.tab_known)
    settings += [states.question, states.flag]
    # In accounts mode the logged-in account is the student, whatever the form says.
    identity.hide_in_accounts_mode(ctx, s.student, s.cohort)
    as_account = partial(
        identity.as_student, ctx, n_inputs=len(settings), student=0, cohort=5, sessions=(6,)
    )
    offer = [s.resume_box, s.resume_text, states.offered]
    gr.on(
        [s.student.blur, s.student.submit],
        identity.as_student(ctx, partial(offer_resume, ctx), 2, student=0),
        [s.student, states.session],
        offer,
        api_visibility="private",
        show_progress="hidden",
        trigger_mode="always_last",  # see REFRESHING
    )
    gr.on(  # accounts mode: the intro names the account, from the login, on page load
        None,
        identity.for_account(ctx, partial(intro_text, True), 1),
        outputs=[s.intro],
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
        "fn": identity.own_sessions(ctx, partial(after_start, ctx), 2, sessions=(0, 1)),
        "inputs": [states.offered, states.session],
        "outputs": offer,
        "api_visibility": "private",
        "show_progress": "hidden",
    }
    to_chat = {"fn": None, "js": SHOW_CHAT_JS, "api_visibility": "private"}
    s.start_btn.click(
        as_account(partial(start, ctx, tab_known=True)),
        settings,
        screen,
        api_name="practice_start",
        show_progress="minimal",
        **_PRACTICE_CALL,
    ).then(**settled).then(**to_chat)
    s.review_btn.click(
        as_account(partial(start, ctx, review=True, tab_known=True)),
        settings,
        screen,
        api_visibility="private",
        show_progress="minimal",
        **_PRACTICE_CALL,
    ).then(**settled).then(**to_chat)
    s.fresh_btn.click(
        as_account(partial(start, ctx, tab_known=True)),
        settings,
        screen,
        api_visibility="private",
        show_progress="minimal",
        **_PRACTICE_CALL,
    ).then(**settled).then(**to_chat)
    s.resume_btn.click(
        identity.own_sessions(ctx, partial(resume, ctx), 3, sessions=(0, 1)),
        [states.offered, states.session, states.chat],
        screen,
        api_visibility="private",
        show_progress="minimal",
        **_PRACTICE_CALL,
    ).then(**settled).then(**to_chat).then(**refresh)
    return settled


def _wire_answers(ctx: UiContext, c: _Chat, states: _States, screen: list[Any]) -> None:
    """Typed answers, True/False/I don't know, the letters (in the page), Submit, End, Next.

    An answer and End also take the due panel's state (never part of the API) and show the
    panel with their screen; Next changes nothing the panel counts, so it leaves it."""
    answer_state = states.answer()
    due = [*answer_state, states.due]
    gr.on(
        [c.answer_box.submit],
        identity.own_sessions(ctx, partial(submit, ctx), 5, sessions=(1,)),
        [c.answer_box, *due],
        screen,
        api_name="practice_answer",
        show_progress="minimal",
        **_PRACTICE_CALL,
    )
    fixed: list[tuple[Any, str]] = [(c.true_btn, "True"), (c.false_btn, "False"), (c.idk_btn, IDK)]
    for button, text in fixed:
        button.click(
            identity.own_sessions(ctx, _fixed_answer(ctx, text), 4, sessions=(0,)),
            due,
            screen,
            api_visibility="private",
            show_progress="minimal",
            **_PRACTICE_CALL,
        )
    for letter, button in zip(LETTER_BUTTONS, c.letter_btns, strict=True):
        button.click(  # in the browser only: no server event per letter
            None,
            [c.data],
            [button, c.submit_btn],
            js=LETTER_JS.replace("LETTER", letter),
            api_visibility="private",
        )
    c.submit_btn.click(
        identity.own_sessions(ctx, partial(submit_selection, ctx), 6, sessions=(2,)),
        [c.submit_btn, c.data, *due],
        screen,
        js=SUBMIT_JS,
        api_visibility="private",
        show_progress="minimal",
        **_PRACTICE_CALL,
    )
    c.end_btn.click(
        identity.own_sessions(ctx, partial(end, ctx), 3, sessions=(0,)),
        [states.session, states.chat, states.due],
        screen,
        api_visibility="private",
        show_progress="minimal",
        **_PRACTICE_CALL,
    )
    c.next_btn.click(
        identity.own_sessions(ctx, partial(show_next, ctx), 3, sessions=(0,)),
        answer_state,
        screen,
        api_visibility="private",
        show_progress="minimal",
        **_PRACTICE_CALL,
    )
    # In the page only: the shortcut keys (installed on load), and after every change of the
    # chat the newest message in view and the focus on what comes next.
    gr.on(None, None, js=KEYS_JS, api_visibility="private")
    c.chatbot.change(None, [c.data], None, js=AFTER_CHAT_JS, api_visibility="private")


def _wire_kb_and_flag(ctx: UiContext, s: _Settings, c: _Chat, states: _States) -> None:
    """The KB's topics and notice (on page load and on a change of KB) and the flag form."""
    gr.on(  # on page load and on a change of KB
        None,
        partial(kb_changed, ctx),
        [s.kb],
        [s.topic, s.kb_info],
        api_visibility="private",
        show_progress="minimal",
    )
    s.kb.change(None, None, [s.topic], js=ALL_TOPICS_JS, api_visibility="private")  # in the browser
    c.flag_btn.click(
        identity.own_sessions(ctx, partial(send_flag, ctx), 4, sessions=(2,)),
        [c.flag_reason, c.flag_comment, states.session, states.flag],
        [c.flag_result, c.flag_comment],
        api_visibility="private",
        show_progress="minimal",
    )


def _build_due_panel(accounts_mode: bool) -> tuple[Any, Any]:
    with gr.Group(elem_id="qb-practice-due"):
        text = gr.Markdown(due_hint(accounts_mode), elem_id="qb-practice-due-text")
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
    state: Any,
    screen: list[Any],
) -> dict[str, Any]:
    """``who`` is [student, kb]; ``session`` is [length, session state, chat state]; ``state``
    the panel's own (whom and which KB it counts for).

    The panel is read again when the name or the KB changes (and, in accounts mode, on page
    load), and comes with the screen of every start, answer and End (their handlers read it:
    :mod:`quizbot.ui.practice.due`), not after every change of the chat as a request of its
    own. Returns the refresh as a step to chain (Resume)."""
    student, kb = who
    button.click(
        identity.as_student(
            ctx, partial(start_due, ctx), len(who) + len(session), student=0, sessions=(3,)
        ),
        [*who, *session],
        screen,
        api_visibility="private",
        show_progress="minimal",
        **_PRACTICE_CALL,
    )
    refresh: dict[str, Any] = {
        "fn": identity.as_student(ctx, partial(refresh_due, ctx), len(who), student=0),
        "inputs": who,
        "outputs": [text, button, state],
        "api_visibility": "private",
        "show_progress": "hidden",
    }
    gr.on(
        [student.blur, student.submit, kb.change],
        **refresh,
        trigger_mode="always_last",  # see REFRESHING
    )
    gr.on(  # accounts mode: the account's due facts on page load (local: once a name is typed)
        None,
        identity.for_account(ctx, lambda name: refresh_due(ctx, name, DEFAULT_KB), 3),
        outputs=[text, button, state],
        api_visibility="private",
        show_progress="hidden",
    )
    return refresh
