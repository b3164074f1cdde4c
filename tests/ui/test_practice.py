"""The Practice tab in a real browser, and its two API endpoints through gradio_client.

The answer key is never taken from the app: each item's label / answer letters are read from the
database the server writes to (the items of the session, in the session's order), and the outcome
the chat shows, the outcome stored and the raw text stored are checked against what was clicked.
Each test's student (or API client's pseudonym) is its own and it reads only that student's
sessions: the tests run on the shared app (``served_shared``), each in a page of its own.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import expect
from sqlmodel import col, select

from quizbot.domain import RespondentKind
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem, StatementItem
from quizbot.ui.render import md_escape
from storage import Database, open_database
from storage.models import Response
from storage.sessions import find_respondent, load_session, respondent_history
from tests.ui.conftest import Served, screenshot

IDK = "I don't know"
N = 6
LEAKY_KEYS = ("answer_keys", "polarity", "positive_tail", "lineage", "correct_answer")


@contextmanager
def database(url: str) -> Iterator[Database]:
    db = open_database(url)
    try:
        yield db
    finally:
        db.dispose()


def session_items(db: Database, student: str) -> tuple[int, list[StatementItem | ChoiceItem]]:
    """The newest session of ``student`` and its items in order, straight from the database."""
    respondent = find_respondent(db, RespondentKind.HUMAN, student.casefold())
    assert respondent is not None and respondent.id is not None
    newest = respondent_history(db, respondent.id)[-1].session
    assert newest.id is not None
    ids = [e["id"] for e in newest.config["items"]]
    by_id = {item.id: item for item in load_items(db, ids)}
    return newest.id, [by_id[i] for i in ids]


def stored(db: Database, session_id: int) -> list[Response]:
    return db.read(
        lambda s: list(
            s.execute(
                select(Response)
                .where(col(Response.quiz_session_id) == session_id)
                .order_by(col(Response.id))
            ).scalars()
        )
    )


def expected_outcome(item: StatementItem | ChoiceItem, answer: str | set[str]) -> str:
    """How an answer should score, from the item's key as stored in the database."""
    if answer == IDK:
        return "abstained"
    if isinstance(item, ChoiceItem):
        assert isinstance(answer, set)
        return "correct" if answer == set(item.answer_keys) else "incorrect"
    said_true = answer in ("True", "t")
    return "correct" if said_true == item.label else "incorrect"


def key_text(item: StatementItem | ChoiceItem) -> list[str]:
    """Pieces the feedback's "Correct answer" must contain."""
    if isinstance(item, ChoiceItem):
        letters = "ABCDEFGHIJ"
        return [f"{k}. {item.options[letters.index(k)]}" for k in item.answer_keys]
    return ["True" if item.label else "False"]


WORDS = {"correct": "right", "incorrect": "wrong", "abstained": "not answered"}


def feedback_line(chat_text: str, position: int) -> str:
    lines = [line for line in chat_text.splitlines() if f"Answer {position} of {N}:" in line]
    assert len(lines) == 1, chat_text
    return lines[0]


def bubbles(tab: Any) -> Any:
    """The chat's bot messages, one element per bubble."""
    return tab.locator("#qb-practice-chat .message-row.bot-row")


def assert_fits(tab: Any, width: int) -> None:
    """Nothing in the page is wider than the screen (no sideways scrolling of the page)."""
    wide = tab.evaluate("document.documentElement.scrollWidth")
    assert wide <= width + 1, f"the page is {wide} px wide at {width} px"


def config_text(served: Served) -> str:
    with urllib.request.urlopen(f"{served.url}config", timeout=30) as response:
        return str(response.read().decode("utf-8"))


def test_a_student_practises_in_the_chat_with_buttons_and_typing(
    shared_page: Any, served_shared: Served
) -> None:
    tab, served = shared_page, served_shared
    student = "Dana Test"
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(student)
    tab.locator("#qb-practice-cohort textarea, #qb-practice-cohort input").first.fill("Group 7")
    tab.locator("#qb-practice-format").get_by_text("Mixed").click()
    length = tab.locator("#qb-practice-length input[type=number]")
    length.fill(str(N))
    length.press("Enter")
    tab.locator("#qb-practice-start").click()
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text(f"Question 1 of {N}").wait_for()
    panel = tab.get_by_role("tabpanel").filter(has=chat)

    with database(served.database_url) as db:
        session_id, items = session_items(db, student)
        assert len(items) == N
        respondent = load_session(db, session_id).respondent
        assert respondent.cohort == "Group 7"

        statements = choices = 0
        detailed: set[str] = set()  # the kinds whose feedback details were opened
        sent: list[tuple[str, str]] = []  # (raw text, outcome shown)
        for position, item in enumerate(items, start=1):
            # Nothing about the answer is on the page or in the config before answering.
            # (Other tabs have their own wording, so the words are looked for in this tab only.)
            for text in (tab.content(), config_text(served)):
                assert item.id not in text and item.id.split(":")[-1] not in text
            html = panel.inner_html()
            assert not any(key in html for key in LEAKY_KEYS)
            shown = panel.inner_text()
            assert shown.count("Correct answer:") == position - 1
            # How to answer this one: five by clicking, the last one typed.
            if position == N:
                raw = "t" if isinstance(item, StatementItem) else "a"
                answer: str | set[str] = "True" if raw == "t" else {"A"}
                box = tab.locator("#qb-practice-answer textarea, #qb-practice-answer input").first
                box.fill(raw)
                box.press("Enter")
            elif isinstance(item, StatementItem):
                raw = ["True", "False", IDK][statements % 3]
                statements += 1
                answer = raw
                button = {"True": "#qb-practice-true", "False": "#qb-practice-false"}
                tab.locator(button.get(raw, "#qb-practice-idk")).click()
            else:
                assert tab.locator("#qb-practice-true").is_hidden()
                picks = [["A", "C"], [], ["B"]][choices % 3]
                choices += 1
                if choices == 1:  # an unreadable typed answer: a hint, nothing stored
                    before = len(stored(db, session_id))
                    box = tab.locator("#qb-practice-answer textarea, #qb-practice-answer input")
                    box.first.fill("banana")
                    box.first.press("Enter")
                    chat.get_by_text("could not read 'banana'").wait_for()
                    assert len(stored(db, session_id)) == before
                if not picks:
                    raw, answer = IDK, IDK
                    tab.locator("#qb-practice-idk").click()
                else:
                    for letter in picks:
                        tab.locator(f"#qb-practice-letter-{letter}").click()
                        submit = tab.locator("#qb-practice-submit")
                        submit.get_by_text(re.compile(rf"Submit .*{letter}")).wait_for()
                    raw, answer = ", ".join(picks), set(picks)
                    tab.locator("#qb-practice-submit").click()
            chat.get_by_text(f"Answer {position} of {N}:").wait_for()
            line = feedback_line(chat.inner_text(), position)
            outcome = expected_outcome(item, answer)
            assert f": {WORDS[outcome]}" in line, (line, outcome)
            assert all(piece in line.split("Correct answer:")[1] for piece in key_text(item)), line
            if position < N:
                # One bubble per step: the feedback ends the chat until the student asks for
                # the next question; jargon stays in the collapsed details.
                expect(bubbles(tab).last).to_contain_text(f"Answer {position} of {N}:")
                assert f"Question {position + 1} of {N}" not in chat.inner_text()
                assert "inversion" not in bubbles(tab).last.inner_text().split("Details")[0]
                kind = "choice" if isinstance(item, ChoiceItem) else "statement"
                # The first feedback of each kind (mixed mode draws the kinds at random).
                if kind not in detailed:
                    detailed.add(kind)
                    last = bubbles(tab).last
                    last.get_by_text("Details").click()
                    expect(last).to_contain_text("Fact:")
                    if isinstance(item, ChoiceItem):  # every option, right or not
                        text = last.inner_text().split("\n", 1)[1]  # after the verdict
                        assert text.count("✓") == len(item.answer_keys), text
                        assert text.count("✗") == len(item.options) - 1 - len(item.answer_keys)
                    tab.set_viewport_size({"width": 1280, "height": 900})
                    screenshot(tab, f"practice-feedback-{kind}-1280")
                    tab.set_viewport_size({"width": 390, "height": 844})
                    screenshot(tab, f"practice-feedback-{kind}-390")
                    assert_fits(tab, 390)
                    tab.set_viewport_size({"width": 1400, "height": 1000})
                tab.locator("#qb-practice-next").click()
                chat.get_by_text(f"Question {position + 1} of {N}").wait_for()
                expect(bubbles(tab).last).to_contain_text(f"Question {position + 1} of {N}")
                expect(bubbles(tab).last).not_to_contain_text("Correct answer")
                assert tab.locator("#qb-practice-next").is_hidden()
            sent.append((raw, outcome))

        assert detailed == {"statement", "choice"} and choices >= 1  # every check above ran
        rows = stored(db, session_id)
        assert [(r.raw_text, r.outcome) for r in rows] == sent
        assert [r.item_id for r in rows] == [item.id for item in items]
        assert {r.respondent_id for r in rows} == {respondent.id}
        assert all(r.run_id is None for r in rows)
        assert load_session(db, session_id).session.status == "finished"

    right = sum(outcome == "correct" for _, outcome in sent)
    summary = tab.locator("#qb-practice-summary")
    summary.get_by_text("Session summary").wait_for()
    accuracy_row = summary.locator("tr", has_text="Accuracy (right / answered)").inner_text()
    assert f"{right}/{N}" in accuracy_row
    joint_row = summary.locator("tr", has_text="joint accuracy").inner_text()
    assert re.search(r"\d+/\d+", joint_row)
    assert "Models on the same questions" in summary.inner_text()
    assert tab.locator("#qb-practice-true").is_hidden()

    tab.locator("#qb-practice-progress-toggle").click()
    progress = tab.locator("#qb-practice-progress-text")
    progress.get_by_text(f"{N} answers in 1 session").wait_for()
    assert f"{right}/{N}" in progress.inner_text()
    expect(tab.locator("#qb-practice-progress-sessions")).to_contain_text("finished")
    expect(tab.locator("#qb-practice-progress-topics")).to_contain_text("95%")
    screenshot(tab, "practice")
    tab.set_viewport_size({"width": 390, "height": 844})
    screenshot(tab, "practice-summary-390")
    assert_fits(tab, 390)


def test_the_api_endpoints_work_without_a_browser(served_shared: Served) -> None:
    from gradio_client import Client

    served = served_shared
    first = Client(served.url, verbose=False)
    result = first.predict(
        "Eve", "clinical-core", "all", "statement", 3, api_name="/practice_start"
    )
    data = result[0]
    assert data["error"] is None and data["feedback"] is None
    question = data["question"]
    assert set(question) == {
        "session_id",
        "id",
        "position",
        "total",
        "kind",
        "text",
        "options",
        "topic",
        "instructions",
        "quick_replies",
        "shown_at",  # when the server built it: the start of the student's time taken
        "idk",  # whether "I don't know" is offered (an assignment's protocol may leave it out)
    }
    assert question["position"] == 1 and question["total"] == 3
    # The chat shows it too, escaped for Markdown (the seed is random: any text may come up).
    chat_text = " ".join(
        part["text"] if isinstance(part, dict) else str(part)
        for message in result[1]
        for part in (
            message["content"] if isinstance(message["content"], list) else [message["content"]]
        )
    )
    assert md_escape(question["text"]) in chat_text
    with database(served.database_url) as db:
        session_id, items = session_items(db, "Eve")
        assert data["session"]["id"] == session_id
        everything = json.dumps(result)
        assert not any(item.id.split(":")[-1] in everything for item in items)
        assert "The statement is" not in everything

        # A second client has its own session state.
        other = Client(served.url, verbose=False)
        theirs = other.predict("Finn", api_name="/practice_start")[0]
        assert theirs["session"]["id"] != session_id

        unreadable = first.predict("banana", api_name="/practice_answer")[0]
        assert "could not read" in unreadable["error"] and unreadable["feedback"] is None
        assert stored(db, session_id) == []

        answers = ["true", "false", "idk"]
        for position, (text, item) in enumerate(zip(answers, items, strict=True), start=1):
            out = first.predict(text, api_name="/practice_answer")[0]
            expected = expected_outcome(item, {"true": "True", "false": "False", "idk": IDK}[text])
            assert out["feedback"]["position"] == position
            assert out["feedback"]["outcome"] == expected
            if position < 3:
                assert out["question"]["position"] == position + 1 and out["summary"] is None
        assert out["question"] is None
        assert out["summary"]["n_answered"] == 3
        assert [r.outcome for r in stored(db, session_id)] == [
            expected_outcome(item, a) for item, a in zip(items, ["True", "False", IDK], strict=True)
        ]
        after = first.predict("true", api_name="/practice_answer")[0]
        assert "over" in after["error"]
        assert len(stored(db, session_id)) == 3

        bad = first.predict("", api_name="/practice_start")[0]
        assert "pseudonym" in bad["error"] and bad["session"] is None


def test_letters_still_work_after_an_unreadable_typed_answer(
    shared_page: Any, served_shared: Served
) -> None:
    """The error path once returned one value too many, shifting every output: after "banana"
    the letter buttons no longer reached the server. Multiple choice only, so it always runs."""
    tab, served = shared_page, served_shared
    assert served.log_file is not None
    log_start = served.log_file.stat().st_size  # the shared app's log: this test's part of it
    student = "Lee Letters"
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(student)
    tab.locator("#qb-practice-format").get_by_text("Multiple choice").click()
    length = tab.locator("#qb-practice-length input[type=number]")
    length.fill("2")
    length.press("Enter")
    tab.locator("#qb-practice-start").click()
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text("Question 1 of 2").wait_for()
    box = tab.locator("#qb-practice-answer textarea, #qb-practice-answer input").first
    box.fill("banana")
    box.press("Enter")
    chat.get_by_text("could not read 'banana'").wait_for()
    tab.locator("#qb-practice-letter-A").click()
    tab.locator("#qb-practice-submit").get_by_text(re.compile(r"Submit .*A")).wait_for()
    tab.locator("#qb-practice-submit").click()
    chat.get_by_text("Answer 1 of 2:").wait_for()
    # ... and the session goes on: the next question comes, and its letters work too.
    tab.locator("#qb-practice-next").click()
    chat.get_by_text("Question 2 of 2").wait_for()
    tab.locator("#qb-practice-letter-B").click()
    tab.locator("#qb-practice-submit").get_by_text(re.compile(r"Submit .*B")).wait_for()
    tab.locator("#qb-practice-submit").click()
    chat.get_by_text("Answer 2 of 2:").wait_for()
    tab.locator("#qb-practice-summary").get_by_text("Session summary").wait_for()
    with database(served.database_url) as db:
        session_id, items = session_items(db, student)
        assert all(isinstance(item, ChoiceItem) for item in items)
        rows = stored(db, session_id)
        assert [(r.item_id, r.raw_text) for r in rows] == [(items[0].id, "A"), (items[1].id, "B")]
        assert rows[0].outcome == expected_outcome(items[0], {"A"})
        assert rows[1].outcome == expected_outcome(items[1], {"B"})
    # The shifted outputs showed in the server's log as a TypeError with the whole payload.
    with served.log_file.open("rb") as handle:
        handle.seek(log_start)
        log = handle.read().decode("utf-8", "replace")
    assert "TypeError" not in log and "Traceback" not in log, log[-2000:]


def test_a_reload_offers_the_session_again_and_it_goes_on_where_it_was(
    shared_page: Any, served_shared: Served
) -> None:
    """Start, answer 2, reload the page (the tab's state is gone), enter the pseudonym again:
    "Resume your session of <date> (2/4 answered)"; Resume asks question 3 of the same session."""
    tab, served = shared_page, served_shared
    student = "Rae Reload"
    name = tab.locator("#qb-practice-student textarea, #qb-practice-student input").first
    name.fill(student)
    length = tab.locator("#qb-practice-length input[type=number]")
    length.fill("4")
    length.press("Enter")
    tab.locator("#qb-practice-start").click()
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text("Question 1 of 4").wait_for()
    tab.locator("#qb-practice-true").click()
    chat.get_by_text("Answer 1 of 4:").wait_for()
    tab.locator("#qb-practice-next").click()
    chat.get_by_text("Question 2 of 4").wait_for()
    tab.locator("#qb-practice-idk").click()
    chat.get_by_text("Answer 2 of 4:").wait_for()
    with database(served.database_url) as db:
        session_id, items = session_items(db, student)
        assert len(stored(db, session_id)) == 2
        started = load_session(db, session_id).session.started_at

    tab.reload()
    tab.get_by_text("quizbot", exact=False).first.wait_for()
    assert "Answer 1 of 4" not in tab.locator("#qb-practice-chat").inner_text()
    name = tab.locator("#qb-practice-student textarea, #qb-practice-student input").first
    name.fill(student.lower())
    name.press("Enter")
    offer = tab.locator("#qb-practice-resume-text")
    expect(offer).to_contain_text(f"Resume your session of {started:%Y-%m-%d %H:%M} UTC")
    expect(offer).to_contain_text("2/4 answered")
    tab.set_viewport_size({"width": 1280, "height": 900})
    screenshot(tab, "practice-resume-offer-1280")
    tab.set_viewport_size({"width": 390, "height": 844})
    screenshot(tab, "practice-resume-offer-390")
    assert_fits(tab, 390)
    tab.locator("#qb-practice-resume-go").click()  # at phone width: the buttons are usable
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text("Question 3 of 4").wait_for()
    # The settings stack above the chat on a phone: the page scrolls to the session.
    expect(tab.locator("#qb-practice-status")).to_be_in_viewport()
    expect(tab.locator("#qb-practice-false")).to_be_in_viewport()
    expect(chat).to_contain_text("Welcome back")
    expect(tab.locator("#qb-practice-resume-go")).to_be_hidden()
    tab.locator("#qb-practice-false").click()
    chat.get_by_text("Answer 3 of 4:").wait_for()
    screenshot(tab, "practice-resumed-390")
    with database(served.database_url) as db:
        again, _ = session_items(db, student)
        assert again == session_id  # the same session, not a new one
        rows = stored(db, session_id)
        assert [r.item_id for r in rows] == [item.id for item in items[:3]]
        assert [r.raw_text for r in rows] == ["True", IDK, "False"]
        assert load_session(db, session_id).session.status == "active"
