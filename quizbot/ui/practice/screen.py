"""The Practice tab's screen after an action: what the chat shows and which controls are
visible, as one value per output component."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from quizbot.practice import service as practice
from quizbot.practice.service import Feedback, Question, Summary
from quizbot.ui.practice.render import LETTER_BUTTONS, Message, _code, answer_letters
from quizbot.ui.render import (
    md_escape,
)

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
    # ``asked`` and ``flagged`` are what the tab's state held when the action came, None
    # included (a session start is given both): no question there means every answer control
    # hidden (the tab's first screen, or a session over), no flaggable question the flag box.
    tab_known: bool = False
    flagged: str | None = None  # the question the flag box offered (the flag state)


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
    if (before is None and not screen.tab_known) or screen.keep_state:
        return same
    q = screen.question
    asking = q is not None and not screen.pending
    statement = asking and q is not None and q.kind == "statement"
    letters = set(answer_letters(q)) if asking and q is not None and q.kind == "choice" else set()
    shown = set(answer_letters(before)) if before is not None and before.kind == "choice" else set()
    n = len(LETTER_BUTTONS)
    if (before is None or before.kind != "statement") and not statement:
        same[0] = same[1] = True  # True, False
    for i, letter in enumerate(LETTER_BUTTONS):
        same[2 + i] = letter not in shown and letter not in letters
    same[2 + n] = not shown and not letters  # Submit
    if before is None:  # no question was on screen: End and Next hidden, and stay so if...
        same[2 + n + 3] = q is None  # ...no session runs now
        same[2 + n + 4] = not (q is not None and screen.pending)  # ...none waits for Next
    else:
        same[2 + n + 3] = q is not None  # End
    return same


def _flag_controls(screen: Screen) -> list[Any]:
    """Updates for the flag box and the flaggable question's id (both kept out of the API)."""
    if screen.keep_state:
        return [gr.skip()] * 2
    answered = screen.answered
    if answered is None:
        if screen.tab_known and screen.flagged is None:  # hidden already (see Screen.flagged)
            return [gr.skip(), None]
        return [gr.update(visible=False, open=False), None]
    return [
        gr.update(
            visible=True,
            open=False,
            label=f"Flag this question (question {answered.position}, just answered)",
        ),
        answered.question_id,
    ]


def _flag_form(screen: Screen) -> list[Any]:
    """Updates for the flag form's result line and comment: cleared whenever the flaggable
    question changes (a new answer, Next, a new session), so no second request is needed for
    it; left as they are when the flag state is (see :func:`_flag_controls`)."""
    unchanged = screen.keep_state or (
        screen.answered is None and screen.tab_known and screen.flagged is None
    )
    return [gr.skip(), gr.skip()] if unchanged else ["", ""]


# Where the "Due for review" panel's three outputs (text, button, what it counts for: see
# quizbot.ui.practice.due) sit in :func:`_outputs`: after the answer controls and the flag
# form, before the flag box, its state and the session's states (the last five, as before).
_DUE = 5 + len(LETTER_BUTTONS) + len(_OTHER_CONTROLS) + 2


def _outputs(screen: Screen) -> tuple[Any, ...]:
    """The screen as values/updates for the tab's output components: what it shows, the
    answer controls, the flag form, the due panel (left as it is: :func:`with_due` fills it),
    the flag box and its state, the session's three states last."""
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
        *_flag_form(screen),
        gr.skip(),
        gr.skip(),
        gr.skip(),
        *_flag_controls(screen),
        *states,
    )


def with_due(outputs: tuple[Any, ...], panel: tuple[Any, Any, Any] | None) -> tuple[Any, ...]:
    """``outputs`` (of :func:`_outputs`) showing the due panel ``panel`` too (text, button,
    what it counts for; see :mod:`quizbot.ui.practice.due`); as they are for ``None``."""
    if panel is None:
        return outputs
    return (*outputs[:_DUE], *panel, *outputs[_DUE + 3 :])


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
