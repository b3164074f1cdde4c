"""The Practice tab's rendering and handlers without a browser.

Rendering is checked on hand-built service results with the expected text written out here. The
handlers run against a real database (both backends): their first output is the JSON a client
reads, the second the chat, and what they store is read back from the database.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from gradio.block_function import BlockFunction
from sqlmodel import col, select

from quizbot.analysis.metrics import Proportion
from quizbot.config import load_settings
from quizbot.errors import InputError
from quizbot.generate.service import load_items
from quizbot.items import StatementItem
from quizbot.kb.registry import KbListing
from quizbot.practice import review_queue
from quizbot.practice import service as practice_service
from quizbot.practice.service import (
    AnswerRecord,
    Coverage,
    Explanation,
    Feedback,
    ModelResult,
    Option,
    OptionNote,
    Progress,
    ProgressPoint,
    Question,
    SessionInfo,
    SessionView,
    Summary,
    TopicCoverage,
    TopicProgress,
    TopicScore,
)
from quizbot.ui import practice as ui
from quizbot.ui.app import build_app
from quizbot.ui.context import UiContext
from quizbot.ui.practice import screen as practice_screen
from storage import Database
from storage.models import Response
from storage.review import list_flags
from storage.sessions import load_session

T0 = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
T1 = datetime(2026, 3, 4, 18, 5, tzinfo=UTC)


def prop(k: int, n: int, low: float | None = None, high: float | None = None) -> Proportion:
    """A proportion with a made-up interval (the interval's arithmetic is not under test)."""
    return Proportion(k, n, k / n if n else None, low, high)


def choice_question() -> Question:
    return Question(
        session_id=3,
        id="s3q2",
        position=2,
        total=5,
        kind="choice",
        text="Which drugs treat gout? Select all that apply.",
        options=[
            Option("A", "colchicine"),
            Option("B", "allopurinol"),
            Option("C", "insulin"),
            Option("D", "I do not know"),
        ],
        topic="Drug treatment",
        instructions="Type the letter.",
        quick_replies=["A", "B", "C", "D"],
    )


def statement_question() -> Question:
    return Question(
        session_id=3,
        id="s3q1",
        position=1,
        total=5,
        kind="statement",
        text="Gout does not *never* affect the big toe.",
        options=None,
        topic="Sites affected",
        instructions="True or false?",
        quick_replies=["True", "False", "I don't know"],
    )


# --------------------------------------------------------------------------------------------
# Pure rendering


def test_markdown_special_characters_are_escaped() -> None:
    assert ui.md_escape("a*b_c [x](y) <b> | `z` ~ $1 \\") == (
        "a\\*b\\_c \\[x\\](y) \\<b\\> \\| \\`z\\` \\~ \\$1 \\\\"
    )
    assert ui.md_escape("plain text, 5-10%.") == "plain text, 5-10%."


def test_proportions_are_shown_with_their_interval() -> None:
    assert ui.format_proportion(prop(2, 6, 0.0968, 0.7)) == "2/6 (33%; 95% CI 10%–70%)"
    assert ui.format_proportion(prop(5, 5, 0.566, 1.0)) == "5/5 (100%; 95% CI 57%–100%)"
    assert ui.format_proportion(prop(0, 0)) == "no answers"


def test_errors_show_the_message_and_the_fix_never_a_traceback() -> None:
    shown = ui._error_text(InputError("could not read 'x'", hint="type true or false"))
    assert shown == "**⚠** could not read 'x'  \n**Fix:** type true or false"
    crashed = ui._error_text(KeyError("secret internals"))
    assert "KeyError" in crashed and "secret internals" not in crashed


def test_a_question_lists_its_options_and_letter_buttons_skip_i_do_not_know() -> None:
    q = choice_question()
    text = ui.render_question(q)
    assert text.startswith("**Question 2 of 5** · *Drug treatment*")
    for line in (
        "**A.** colchicine",
        "**B.** allopurinol",
        "**C.** insulin",
        "**D.** I do not know",
    ):
        assert line in text
    assert ui.answer_letters(q) == ["A", "B", "C"]
    assert ui.answer_letters(statement_question()) == []
    assert ui.answer_letters(None) == []
    assert "does not \\*never\\* affect" in ui.render_question(statement_question())


def explanation(*, negative: bool, transform: str | None) -> Explanation:
    why = (
        "The knowledge base does not list cornea for gout (affects site). What is true: Gout can "
        "affect the big toe."
        if negative
        else "Gout can affect the big toe."
    )
    return Explanation(
        fact="Gout can affect the big toe.",
        head="gout",
        relation="affects site",
        tail="big toe",
        transform=transform,
        negative=negative,
        substituted_tail="cornea" if negative else None,
        true_tails=["big toe", "ankle"],
        text=f"The statement is {'false' if negative else 'true'}: {why}",
        why=why,
    )


def feedback(outcome: str, e: Explanation, correct: str = "False") -> Feedback:
    return Feedback(
        session_id=3,
        question_id="s3q1",
        position=1,
        total=5,
        outcome=outcome,
        your_answer="True",
        correct_answer=correct,
        explanation=e,
        answered=1,
        finished=False,
    )


def test_feedback_is_the_verdict_the_reason_once_and_collapsed_details() -> None:
    wrong = ui.render_feedback(
        feedback("incorrect", explanation(negative=True, transform="inversion + instantiation"))
    )
    verdict, reason, details = wrong.split("\n\n", 2)
    assert verdict == "✗ **Answer 1 of 5: wrong.** Your answer: True. Correct answer: **False**."
    assert reason == (
        "The knowledge base does not list cornea for gout (affects site). What is true: Gout can "
        "affect the big toe."
    )
    assert wrong.count("cornea") == 1  # the substitution is said once
    # The transform's name is jargon: only inside the collapsed details.
    assert "inversion" not in verdict + reason
    assert details.startswith("<details><summary>Details</summary>")
    assert details.endswith("</details>")
    assert "Wording: inversion + instantiation" in details
    assert "gout · *affects site* · big toe" in details
    assert "The knowledge base lists for gout: big toe, ankle" in details

    right = ui.render_feedback(feedback("correct", explanation(negative=False, transform="none")))
    assert right.startswith("✓ **Answer 1 of 5: right.**")
    assert "\n\nGout can affect the big toe.\n\n<details>" in right
    assert "cornea" not in right


def test_multiple_choice_feedback_explains_every_option() -> None:
    e = Explanation(
        fact="Gout is treated with colchicine.",
        head="gout",
        relation="treated with drug",
        tail="colchicine",
        transform=None,
        negative=False,
        substituted_tail=None,
        true_tails=["colchicine", "allopurinol"],
        text="The right answer is A. colchicine. ...",
        why="A: ... C: ...",
        options=[
            OptionNote("A", "colchicine", True, "Gout is treated with colchicine."),
            OptionNote("B", "insulin", False, "Not listed for gout. Diabetes is treated with it."),
            OptionNote("C", "a*b", False, ""),
        ],
    )
    shown = ui.render_feedback(feedback("abstained", e, "A. colchicine"))
    assert 'not answered ("I don\'t know")' in shown and "**A. colchicine**" in shown
    lines = shown.split("\n")
    assert lines[2:5] == [
        "- ✓ **A. colchicine**: Gout is treated with colchicine.",
        "- ✗ **B. insulin**: Not listed for gout. Diabetes is treated with it.",
        "- ✗ **C. a\\*b**",
    ]
    assert "The right answer is" not in shown  # the key is said once, in the first line
    assert "Wording" not in shown


def session_view(status: str = "finished") -> SessionView:
    return SessionView(
        id=3,
        student="Ada",
        kb="clinical-core",
        topic=None,
        topic_label="All topics",
        format="mixed",
        review=False,
        seed="s",
        total=4,
        answered=3,
        status=status,
        started_at=T0,
        finished_at=None,
    )


def test_the_summary_shows_the_numbers_weak_topics_models_and_each_answer() -> None:
    drugs = TopicScore("relation:treated_with_drug", "relation", "Drug treatment", prop(0, 2))
    sites = TopicScore("relation:affects_site", "relation", "Sites affected", prop(1, 1))
    summary = Summary(
        session=session_view("abandoned"),
        n_items=4,
        n_answered=3,
        accuracy=prop(1, 3, 0.06, 0.79),
        answer_rate=prop(2, 3, 0.21, 0.94),
        accuracy_answered=prop(1, 2, 0.09, 0.91),
        joint_accuracy=prop(0, 1, 0.0, 0.79),
        topics=[drugs, sites],
        weakest_topics=[drugs],
        models=[
            ModelResult("openai/stub", 3, prop(3, 3), prop(1, 3), None),
            ModelResult("other/model", 0, prop(0, 0), prop(0, 0), None),
        ],
        answers=[
            AnswerRecord(
                1, "s3q1", "statement", "A | B", "Sites affected", "correct", "True", "True"
            )
        ],
    )
    text = ui.render_summary(summary, offered=["openai/stub", "baseline/random"])
    assert "3 of 4 questions answered; session abandoned." in text
    assert "| Accuracy (right / answered) | 1/3 (33%; 95% CI 6%–79%) |" in text
    assert '| Answer rate (not "I don\'t know") | 2/3 (67%; 95% CI 21%–94%) |' in text
    assert "| Facts with every question right (joint accuracy) | 0/1 (0%; 95% CI 0%–79%) |" in text
    assert "**Weakest topics:** Drug treatment: 0/2" in text
    assert "| `openai/stub` | 3 | 3/3" in text and "too few shared questions" in text
    assert "other/model" not in text.split("Not evaluated")[0].split("| model |")[1]
    assert "Not evaluated on these questions yet: `baseline/random`." in text
    assert "| 1 | A \\| B | True | True | right |" in text


def test_progress_becomes_a_chart_a_per_topic_table_and_a_session_list() -> None:
    drugs = TopicProgress(
        kb="clinical-core",
        key="relation:treated_with_drug",
        kind="relation",
        label="Drug treatment",
        overall=prop(3, 4, 0.3, 0.95),
        points=[ProgressPoint("7", prop(1, 2, 0.1, 0.9)), ProgressPoint("9", prop(2, 2, 0.34, 1))],
    )
    bones = TopicProgress(
        kb="clinical-core",
        key="system:musculoskeletal",
        kind="system",
        label="Musculoskeletal",
        overall=prop(1, 1, 0.21, 1),
        points=[],
    )
    sessions = [
        SessionInfo(7, "clinical-core", "All topics", "statement", False, "finished", T0, T0, 2, 2,
                    prop(1, 2)),
        SessionInfo(9, "clinical-core", "Drug treatment", "choice", True, "abandoned", T1, T1, 5,
                    2, prop(2, 2)),
    ]  # fmt: skip
    progress = Progress(
        student="Ada",
        by="session",
        total_answered=4,
        accuracy=prop(3, 4, 0.3, 0.95),
        timeline=[
            ProgressPoint("7", prop(1, 2, 0.1, 0.9)),
            ProgressPoint("9", prop(2, 2, 0.34, 1)),
        ],
        topics=[drugs, bones],
        sessions=sessions,
    )
    view = ui.progress_view(progress)
    assert "**Ada**: 4 answers in 2 sessions; accuracy 3/4 (75%; 95% CI 30%–95%)." in view.overview
    rows = view.plot.to_dict("records")
    assert [(r["session"], r["topic"], r["accuracy (%)"]) for r in rows] == [
        (7, "Overall", 50.0),
        (9, "Overall", 100.0),
        (7, "Drug treatment", 50.0),
        (9, "Drug treatment", 100.0),
    ]
    assert rows[1]["95% CI"] == "34%–100%"
    # One row per topic (issue 29: a row per period repeated each topic; the chart has the
    # periods), saying whether it is a relation or an organ system.
    assert view.topics == [
        ["clinical-core", "relation", "Drug treatment", "3/4", "75%", "30%–95%"],
        ["clinical-core", "organ system", "Musculoskeletal", "1/1", "100%", "21%–100%"],
    ]
    assert [row[0] for row in view.sessions] == [9, 7]  # newest first
    assert view.sessions[0][1] == "2026-03-04 18:05" and view.sessions[0][4] == "choice (review)"


def test_the_knowledge_base_note_shows_the_licence_line_by_line() -> None:
    listing = [
        KbListing(
            "hpo", "2025", "builtin", True, 10, {}, "Uses the HPO.\nLicence: https://x.org/l"
        ),
        KbListing("clinical-core", "1", "builtin", True, 10, {}, ""),
    ]
    assert ui.kb_note(listing, "hpo") == (
        "**Knowledge base `hpo`:** Uses the HPO.  \nLicence: https://x.org/l"
    )
    assert ui.kb_note(listing, "clinical-core") == ""
    assert ui.kb_note(listing, "missing") == ""


def _first_target(fn: BlockFunction) -> int:
    """The id of the first component ``fn`` is bound to (every bound target has one)."""
    target = fn.targets[0][0]
    assert target is not None
    return target


def test_a_letter_click_runs_in_the_browser_only_and_submit_sends_the_letters(
    db: Database,
) -> None:
    """Every letter button's click is JavaScript with no server function (so no event is queued
    and no click can be lost in a round trip); Submit has a server function and JavaScript that
    puts the page's selection in place of its label. The browser side is checked in
    tests/ui/test_practice.py (fast clicks, no request per click)."""
    settings = load_settings(models=["openai/stub"], database_url=db.url)
    blocks = build_app(settings, db, UiContext(settings, db))
    ids = {b.elem_id: b._id for b in blocks.blocks.values() if getattr(b, "elem_id", None)}
    letters = {ids[f"qb-practice-letter-{letter}"] for letter in ui.LETTER_BUTTONS}
    clicks = [
        f
        for f in blocks.fns.values()
        if any(t[0] in letters and t[1] == "click" for t in f.targets)
    ]
    assert len(clicks) == len(ui.LETTER_BUTTONS)
    assert all(f.fn is None and f.js for f in clicks)
    for letter, f in zip(ui.LETTER_BUTTONS, sorted(clicks, key=_first_target), strict=True):
        assert isinstance(f.js, str)
        assert f'"{letter}"' in f.js and f.outputs[-1]._id == ids["qb-practice-submit"]
    (submit,) = (
        f for f in blocks.fns.values() if (ids["qb-practice-submit"], "click") in f.targets
    )
    assert submit.fn is not None and submit.js == ui.SUBMIT_JS


def test_coverage_follows_show_my_progress_and_stays_out_of_the_api(db: Database) -> None:
    """The coverage table is filled after "Show my progress" and on a change of its view, by
    private events: ``/practice_progress`` keeps its four outputs for API clients."""
    settings = load_settings(models=["openai/stub"], database_url=db.url)
    blocks = build_app(settings, db, UiContext(settings, db))
    ids = {b.elem_id: b._id for b in blocks.blocks.values() if getattr(b, "elem_id", None)}
    filling = [
        f
        for f in blocks.fns.values()
        if any(o._id == ids["qb-practice-coverage"] for o in f.outputs)
    ]
    assert len(filling) == 2 and all(f.api_visibility == "private" for f in filling)
    assert any(f.trigger_after is not None for f in filling)  # chained after the progress
    assert any((ids["qb-practice-coverage-view"], "change") in f.targets for f in filling)
    (api,) = (f for f in blocks.fns.values() if f.api_name == "practice_progress")
    assert len(api.outputs) == 4


# --------------------------------------------------------------------------------------------
# Handlers over a real database

# shown, answer controls, flag form, due panel, flag, states
N_OUTPUTS = 5 + 2 + len(ui.LETTER_BUTTONS) + 5 + 2 + 3 + 2 + 3
NEXT, ANSWER_BOX = -11, -13  # the Next button and the answer box among the outputs


@pytest.fixture
def ctx(db: Database) -> Iterator[UiContext]:
    yield UiContext(load_settings(models=["openai/stub"]), db)


def responses(db: Database, session_id: int) -> list[Response]:
    return db.read(
        lambda s: list(
            s.execute(select(Response).where(col(Response.quiz_session_id) == session_id)).scalars()
        )
    )


def is_skip(value: Any) -> bool:
    return isinstance(value, dict) and value == {"__type__": "update"}


def test_start_answer_and_finish_through_the_handlers(ctx: UiContext, db: Database) -> None:
    out = ui.start(ctx, "Ada", "clinical-core", "all", "statement", 2.0, "G1", None)
    assert len(out) == N_OUTPUTS
    data, chat = out[0], out[1]
    session_id, question, chat_state = out[-3], out[-2], out[-1]
    assert data["error"] is None and data["session"]["id"] == session_id
    assert data["question"]["id"] == question.id == f"s{session_id}q1"
    assert "label" not in data["question"] and chat == chat_state
    assert ui.md_escape(question.text) in chat[-1]["content"]
    loaded = load_session(db, session_id)
    assert loaded.respondent.cohort == "G1"
    items = load_items(db, [e["id"] for e in loaded.session.config["items"]])
    assert all(isinstance(i, StatementItem) for i in items)
    assert not any(i.id in json.dumps(data) for i in items)

    # Unreadable: the hint is in the chat, the question stays, nothing is stored.
    out = ui.submit(ctx, "banana", session_id, question, chat_state)
    assert "could not read 'banana'" in out[0]["error"]
    assert out[1][-2] == {"role": "user", "content": "banana"}
    assert "**Fix:**" in out[1][-1]["content"]
    assert all(is_skip(v) for v in (out[-3], out[-2]))  # session, question
    assert responses(db, session_id) == []

    first = items[0]
    assert isinstance(first, StatementItem)
    out = ui.submit(ctx, "true", session_id, question, out[-1])
    want = "correct" if first.label else "incorrect"
    assert out[0]["feedback"]["outcome"] == want
    assert out[0]["question"]["position"] == 2 and out[0]["summary"] is None
    # The feedback is the last bubble: the next question waits for "Next".
    assert f"Answer 1 of 2: {'right' if first.label else 'wrong'}" in out[1][-1]["content"]
    assert "Question 2 of 2" not in json.dumps(out[1])
    assert out[NEXT]["visible"] is True and out[ANSWER_BOX]["visible"] is False
    assert out[5]["visible"] is False  # no True button while the feedback is read
    out = ui.show_next(ctx, session_id, out[-2], out[-1])
    assert out[1][-1]["content"].startswith("**Question 2 of 2**")
    assert "Answer 1 of 2" in out[1][-2]["content"]  # its own bubble, before the question
    assert out[NEXT]["visible"] is False and out[ANSWER_BOX]["visible"] is True
    assert out[5]["visible"] is True

    second = items[1]
    assert isinstance(second, StatementItem)
    out = ui.submit(ctx, ui.IDK, session_id, out[-2], out[-1])
    assert out[0]["feedback"]["outcome"] == "abstained"
    assert out[0]["question"] is None and out[0]["summary"]["n_answered"] == 2
    assert out[-2] is None  # no question left: the buttons go away
    assert "Session summary" in out[3] and "`openai/stub`" in out[3]
    stored = sorted(responses(db, session_id), key=lambda r: r.id or 0)
    assert [(r.item_id, r.raw_text, r.outcome) for r in stored] == [
        (first.id, "true", want),
        (second.id, ui.IDK, "abstained"),
    ]

    late = ui.submit(ctx, "true", session_id, None, out[-1])
    assert "over" in late[0]["error"] and len(responses(db, session_id)) == 2


def test_start_errors_are_messages_and_keep_the_running_session(ctx: UiContext) -> None:
    out = ui.start(ctx, "  ", "clinical-core", "all", "statement", 3, "", 41)
    assert "pseudonym" in out[0]["error"] and out[0]["session"] is None
    assert "⚠" in out[2] and "**Fix:**" in out[2]
    assert all(is_skip(v) for v in out[-4:])  # session 41 and its chat are left alone
    out = ui.start(ctx, "Ada", "clinical-core", "no-such-topic", "statement", 3)
    assert "is not a topic" in out[0]["error"]
    out = ui.start(ctx, "Ada", "clinical-core", "all", "statement", 2.5)
    assert "whole number" in out[0]["error"]
    out = ui.submit(ctx, "true", None, None, [])
    assert "start one first" in out[0]["error"]


def test_review_and_ending_early_and_progress(ctx: UiContext, db: Database) -> None:
    out = ui.start(ctx, "Bo", "clinical-core", "relation:treated_with_drug", "choice", 3)
    session_id, question, chat = out[-3], out[-2], out[-1]
    assert question.kind == "choice"
    out = ui.submit(ctx, "I don't know", session_id, question, chat)
    assert out[0]["feedback"]["outcome"] == "abstained"
    ended = ui.end(ctx, session_id, out[-1])
    assert ended[0]["summary"]["session"]["status"] == "abandoned"
    assert "session abandoned" in ended[3]
    review = ui.start(ctx, "Bo", "clinical-core", "all", "choice", 5, review=True)
    assert review[0]["session"]["review"] is True and review[0]["session"]["total"] == 1
    shown, _, topics, sessions = ui.show_progress(ctx, "bo", ui.ALL_TOPICS, "session")
    assert "1 answer in 2 sessions" in shown
    assert list(sessions["session"]) == [review[-3], session_id]
    assert "Drug treatment" in set(topics["topic"])
    missing, *_ = ui.show_progress(ctx, "nobody", ui.ALL_TOPICS, "day")
    assert "no practice sessions" in missing
    # Coverage, per relation and per organ system, in the KB chosen for practice.
    text, table, weakest, button = ui.show_coverage(
        ctx, "bo", ui.ALL_TOPICS, "clinical-core", "relation"
    )
    # One wrong answer is not yet a weak topic (two answers or more): nothing to practise.
    assert weakest.startswith("**Weakest topics:** none yet") and not button["interactive"]
    # The choice question reviewed every right option's fact: each counts as seen and is due.
    seen = int(text.split(":** ", 1)[1].split(" of ", 1)[0])
    assert seen >= 1 and "facts seen (<0.1%)" in text
    assert f"due for review: **0** today, **{seen}** within a week." in text
    assert list(table.columns) == ui.COVERAGE_HEADERS
    assert table.iloc[0]["topic"] == "Drug treatment" and table.iloc[0]["right / answered"] == "0/1"
    _, systems, *_ = ui.show_coverage(ctx, "bo", "clinical-core", "", "system")
    assert "Drug treatment" not in set(systems["topic"]) and len(systems) > 1
    assert ui.show_coverage(ctx, "nobody", ui.ALL_TOPICS, "clinical-core", "system")[0] == ""
    failed, *_ = ui.show_coverage(ctx, "bo", "no-such-kb", "", "system")
    assert "no-such-kb" in failed and "Traceback" not in failed


def test_starting_again_abandons_the_session_left_behind(ctx: UiContext, db: Database) -> None:
    first = ui.start(ctx, "Cy", "clinical-core", "all", "statement", 3)[-3]
    second = ui.start(ctx, "Cy", "clinical-core", "all", "statement", 3, None, first)[-3]
    assert second != first
    assert load_session(db, first).session.status == "abandoned"
    assert load_session(db, second).session.status == "active"


def test_every_screen_fills_exactly_the_tabs_outputs() -> None:
    """An error keeps the state: its screen must still have one value per output, or every
    later output shifts (the letter buttons stopped working after an unreadable answer)."""
    # views, T/F, letters, controls, flag form, due panel, flag, states
    outputs = 5 + 2 + len(ui.LETTER_BUTTONS) + 5 + 2 + 3 + 2 + 3
    normal = ui._outputs(ui.Screen(chat=[], data={}))
    kept = ui._outputs(ui.Screen(chat=None, data={}, keep_state=True))
    assert len(normal) == len(kept) == outputs


def test_the_flag_form_offers_only_the_question_just_answered(ctx: UiContext, db: Database) -> None:
    """The flag box appears with feedback, holding that answer's question id on the server;
    flagging a question before it is answered is impossible through the handler too."""
    out = ui.start(ctx, "Di", "clinical-core", "all", "statement", 2)
    box, flaggable = out[-5], out[-4]
    assert box["visible"] is False and flaggable is None
    session_id, question, chat = out[-3], out[-2], out[-1]
    refused, _ = ui.send_flag(ctx, "wrong_key", "x", session_id, None)
    assert "Answer a question first" in refused
    out = ui.submit(ctx, "true", session_id, question, chat)
    box, flaggable = out[-5], out[-4]
    assert box["visible"] is True and flaggable == question.id
    assert "question 1" in box["label"]
    message, comment = ui.send_flag(ctx, "ambiguous", "two readings", session_id, flaggable)
    assert "Thank you" in message and comment == ""
    (stored,) = list_flags(db)
    assert stored.item_id == load_session(db, session_id).session.config["items"][0]["id"]
    # A second flag on the same answer is refused with a message, not a traceback.
    again, untouched = ui.send_flag(ctx, "other", "", session_id, flaggable)
    assert "already flagged" in again and is_skip(untouched)
    # The question not yet answered cannot be flagged even if its id is sent.
    nxt = out[-2]
    refused, _ = ui.send_flag(ctx, "other", "", session_id, nxt.id)
    assert "not been answered" in refused
    assert len(list_flags(db)) == 1


def test_a_returning_student_is_offered_their_session_and_resumes_it(
    ctx: UiContext, db: Database
) -> None:
    """A reload empties the tab's state: entering the pseudonym offers the active session with
    its progress; Resume goes on at its next question; Start new ends it."""
    out = ui.start(ctx, "Ida", "clinical-core", "all", "statement", 4)
    session_id, question, chat = out[-3], out[-2], out[-1]
    for _ in range(2):
        out = ui.submit(ctx, "true", session_id, question, chat)
        question, chat = out[-2], out[-1]
    # This tab runs it: nothing to offer. A fresh tab (no state): the offer.
    box, _, offered = ui.offer_resume(ctx, "Ida", session_id)
    assert box["visible"] is False and offered is None
    box, text, offered = ui.offer_resume(ctx, " ida ", None)
    assert box["visible"] is True and offered == session_id
    started = load_session(db, session_id).session.started_at
    assert f"Resume your session of {started:%Y-%m-%d %H:%M} UTC" in text
    assert "(2/4 answered" in text
    assert ui.offer_resume(ctx, "Nobody", None)[2] is None
    assert ui.offer_resume(ctx, "", None)[2] is None

    out = ui.resume(ctx, offered, None, [])
    assert out[-3] == session_id and out[-2].position == 3
    assert "Welcome back Ida! You have answered 2 of 4" in out[1][0]["content"]
    assert out[1][-1]["content"].startswith("**Question 3 of 4**")
    assert ui.after_start(ctx, offered, out[-3])[2] is None
    assert load_session(db, session_id).session.status == "active"

    # Start new instead: the offered session is ended once the new one runs.
    newer = ui.start(ctx, "Ida", "clinical-core", "all", "statement", 2)[-3]
    box, _, cleared = ui.after_start(ctx, session_id, newer)
    assert box["visible"] is False and cleared is None
    assert load_session(db, session_id).session.status == "abandoned"
    assert load_session(db, newer).session.status == "active"
    # A start that failed (no session in the tab) leaves the offer as it was.
    assert all(is_skip(v) for v in ui.after_start(ctx, newer, None))
    gone = ui.resume(ctx, session_id, None, [])
    assert "abandoned" in gone[0]["error"] and "cannot be resumed" in gone[1][-1]["content"]


CONTROLS = slice(5, 5 + 2 + len(ui.LETTER_BUTTONS) + 5)  # True ... Next among the outputs


def _initial_controls() -> list[dict[str, Any]]:
    """The answer controls as the page is built (see ``build``)."""
    hidden = {"visible": False}
    letters = [{"visible": False, "variant": "secondary"} for _ in ui.LETTER_BUTTONS]
    submit = {"visible": False, "value": "Submit", "interactive": False}
    return [dict(hidden), dict(hidden), *letters, submit, dict(hidden), {**hidden, "value": ""}]
    # End and Next are appended by the caller


def _apply(shown: list[dict[str, Any]], updates: list[Any]) -> None:
    """What the browser does with the controls' updates: a skip leaves a control as it is."""
    for props, update in zip(shown, updates, strict=True):
        props.update({k: v for k, v in update.items() if k != "__type__"})


@pytest.mark.parametrize("fmt", ["statement", "choice", "mixed"])
def test_skipped_controls_are_already_as_the_full_update_would_set_them(
    ctx: UiContext, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After every answer and every "Next", the controls the handlers leave alone (skipped) are
    in the state the full set of updates would have put them in: what the student sees is the
    same. Two browsers are followed through whole sessions, one given the handlers' outputs,
    the other every control's update computed without skipping (``asked`` unset)."""
    full_controls: list[list[Any]] = []
    original = ui._controls

    def both(screen: ui.Screen) -> list[Any]:
        asked, screen.asked = screen.asked, None
        full_controls.append(original(screen))
        screen.asked = asked
        return original(screen)

    monkeypatch.setattr(practice_screen, "_controls", both)  # where _outputs looks it up
    hidden = {"visible": False}
    lean = [*_initial_controls(), dict(hidden), dict(hidden)]
    full = [*_initial_controls(), dict(hidden), dict(hidden)]
    skipped = 0

    def step(out: tuple[Any, ...]) -> None:
        nonlocal skipped
        controls = list(out[CONTROLS])
        skipped += sum(map(is_skip, controls)) - sum(map(is_skip, full_controls[-1]))
        _apply(lean, controls)
        _apply(full, full_controls[-1])
        assert lean == full

    out = ui.start(ctx, "Ada", "clinical-core", "all", fmt, 6.0)
    step(out)
    session_id, question, chat = out[-3], out[-2], out[-1]
    turn = 0
    while question is not None:
        turn += 1
        letters = ui.answer_letters(question)
        if letters:  # pick a letter first (in the page): its button turns primary, Submit names it
            button = {"variant": "primary"}
            submit = {"value": f"Submit {letters[0]}", "interactive": True}
            i = ui.LETTER_BUTTONS.index(letters[0])
            for shown in (lean, full):
                _apply([shown[2 + i], shown[2 + len(ui.LETTER_BUTTONS)]], [button, submit])
            out = ui.submit_selection(ctx, letters[0], None, session_id, question, chat)
        else:
            out = ui.submit(ctx, ("true", "false", ui.IDK)[turn % 3], session_id, question, chat)
        step(out)
        question, chat = out[-2], out[-1]
        if question is not None and out[NEXT]["visible"]:
            out = ui.show_next(ctx, session_id, question, chat)
            step(out)
            chat = out[-1]
    assert lean[-2:] == [hidden, hidden]  # the session is over: End and Next gone
    assert skipped > 0  # something was left alone, or this test checks nothing


def test_an_exam_review_shows_each_question_whole_with_answer_key_and_explanation() -> None:
    long_text = (
        "Systemic lupus erythematosus, a chronic autoimmune disease that can affect the skin, "
        "joints, kidneys and serous membranes, commonly presents with a malar rash over the "
        "cheeks and the bridge of the nose that spares the nasolabial folds."
    )
    asked = Question(
        session_id=3,
        id="s3q1",
        position=1,
        total=2,
        kind="statement",
        text=long_text,
        options=None,
        topic="Symptoms",
        instructions="Is this statement true or false?",
        quick_replies=["True", "False"],
    )
    e = explanation(negative=False, transform="none")
    statement = dataclasses.replace(feedback("incorrect", e, "True"), total=2, question=asked)
    choice = dataclasses.replace(
        feedback("correct", e, "A. colchicine"),
        question_id="s3q2",
        position=2,
        total=2,
        your_answer="A",
        question=dataclasses.replace(choice_question(), total=2),
    )
    review = ui.render_review([statement, choice])
    first, second = review.split("\n\n---\n\n")
    assert first.startswith("### Review of every question\n\n**Question 1 of 2** · *Symptoms*")
    assert long_text in first and "…" not in review  # whole, never cut short
    assert "✗ **Answer 1 of 2: wrong.** Your answer: True. Correct answer: **True**." in first
    assert "Gout can affect the big toe." in first  # the explanation
    assert first.index(long_text) < first.index("Your answer")  # the question comes first
    assert "Which drugs treat gout? Select all that apply." in second
    assert "**A.** colchicine\n**B.** allopurinol\n**C.** insulin" in second
    assert "Your answer: A. Correct answer: **A. colchicine**." in second
    assert "Type the letter." not in review  # how to answer is no part of a review


def test_coverage_is_a_line_for_the_kb_and_a_row_per_topic_weakest_first() -> None:
    def topic(key: str, label: str, seen: int, n: int, k: int, answered: int) -> TopicCoverage:
        kind = key.split(":", maxsplit=1)[0]
        return TopicCoverage(key, kind, label, n, seen, 1, 2, prop(k, answered))

    report = Coverage(
        student="Ada",
        kb="clinical-core",
        n_facts=2500,
        seen=3,
        due_now=1,
        due_week=2,
        systems=[topic("system:cardiovascular", "Cardiovascular", 3, 300, 1, 3)],
        relations=[
            topic("relation:has_symptom", "Symptoms", 2, 1200, 0, 2),
            topic("relation:treated_with_drug", "Drug treatment", 1, 40, 1, 1),
        ],
    )
    assert ui.coverage_text(report) == (
        "**Coverage of `clinical-core`:** 3 of 2,500 facts seen (0.1%); "
        "due for review: **1** today, **2** within a week."
    )
    assert ui.coverage_rows(report, "relation") == [
        ["Symptoms", "2 of 1,200", "0.2%", 1, 2, "0/2", "0%"],
        ["Drug treatment", "1 of 40", "2.5%", 1, 2, "1/1", "100%"],
    ]
    assert ui.coverage_rows(report, "system") == [
        ["Cardiovascular", "3 of 300", "1.0%", 1, 2, "1/3", "33%"]
    ]


def test_an_answer_and_a_start_bring_the_due_panel_with_their_screen(
    ctx: UiContext, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No second request for the "Due for review" panel: a start reads it for the tab's name
    and KB (and keeps them in the panel's state); an answer given with that state counts it
    again after its own review; an API client's answer (no state) leaves it. The flag form is
    cleared by the answer too."""
    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    moment = [t0]
    monkeypatch.setattr(review_queue, "now", lambda: moment[0])
    due_at = practice_screen._DUE
    out = ui.start(ctx, "Eli", "clinical-core", "all", "statement", 3.0)
    text, button, state = out[due_at : due_at + 3]
    assert "Due for review: 0 facts" in text and button["interactive"] is False
    assert state == ["Eli", "clinical-core"]
    session_id = out[-3]
    items = load_items(db, [e["id"] for e in load_session(db, session_id).session.config["items"]])

    def wrong(position: int) -> str:
        item = items[position - 1]
        assert isinstance(item, StatementItem)
        return "false" if item.label else "true"

    out = ui.submit(ctx, wrong(1), session_id, out[-2], out[-1])  # as the API: no state
    assert all(is_skip(v) for v in out[due_at : due_at + 3])
    assert out[due_at - 2 : due_at] == ("", "")  # the flag form, cleared for the new question
    moment[0] = t0 + timedelta(days=2)  # the miss is due now
    reads: list[str] = []  # the panel read apart (name looked up, synced, counted)
    read_apart = practice_service.count_due_now

    def counted(*args: Any, **kwargs: Any) -> int:
        reads.append("read")
        return read_apart(*args, **kwargs)

    monkeypatch.setattr(practice_service, "count_due_now", counted)
    out = ui.submit(ctx, wrong(2), session_id, out[-2], out[-1], state)
    text, button, kept = out[due_at : due_at + 3]
    assert "Due for review: 1 fact." in text and button["interactive"] is True
    assert kept == state
    assert reads == []  # counted in the answer's own transaction
    out = ui.end(ctx, session_id, out[-1], state)  # End reads it again too
    assert "Due for review: 1 fact." in out[due_at] and reads == ["read"]
