"""Inputs the Practice tab must never lose, in a real browser.

A multiple-choice answer is chosen in the page: a letter click sends nothing to the server (no
event is queued per click, so none can be lost or reordered), and Submit sends every letter
chosen, however fast they were clicked. What is stored is read from the database.

Every test writes only its own student's (or account's) sessions and reads only those: they run on
the shared apps (``served_shared``, ``shared_app``), each in a page of its own.
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from quizbot.items import ChoiceItem
from tests.ui.conftest import App, Served
from tests.ui.events import page_events_held, wait_layout, wait_settled
from tests.ui.test_accounts import _log_in_page, browser
from tests.ui.test_practice import config_text, database, session_items, stored

__all__ = ["browser"]  # the accounts-mode tests' fixture, used by name

JOIN = "/gradio_api/queue/join"  # every server event a page sends is one POST here


class Joins:
    """The server events the page sends (requests to Gradio's queue), by the id of the handler
    they run (``fn_index``)."""

    def __init__(self, tab: Any) -> None:
        self.fns: list[int] = []
        tab.on("request", self._seen)

    def _seen(self, request: Any) -> None:
        if JOIN in request.url:
            self.fns.append(int(json.loads(request.post_data or "{}").get("fn_index", -1)))


def handlers_of(served: Served, elem_id: str, *triggers: str) -> set[int]:
    """The ids of the handlers the component ``elem_id`` starts on ``triggers`` (a click when
    none is named), from the app's config (what the browser runs)."""
    config = json.loads(config_text(served))
    (component,) = (c["id"] for c in config["components"] if c["props"].get("elem_id") == elem_id)
    wanted = [[component, t] for t in triggers or ("click",)]
    return {d["id"] for d in config["dependencies"] if any(w in d["targets"] for w in wanted)}


def start_choice(tab: Any, student: str, n: int) -> None:
    """A multiple-choice session of ``n`` questions, waiting for its first question and for
    every step the start sets off (its ``.then`` steps come after the question is shown: a
    test counting events from here must not see them)."""
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(student)
    tab.locator("#qb-practice-format").get_by_text("Multiple choice").click()
    length = tab.locator("#qb-practice-length input[type=number]")
    length.fill(str(n))
    length.press("Enter")
    tab.locator("#qb-practice-start").click()
    tab.locator("#qb-practice-chat").get_by_text(f"Question 1 of {n}").first.wait_for()
    wait_settled(tab)


def shown_letters(tab: Any) -> list[str]:
    """The letters of the buttons the question shows (every option but "I do not know")."""
    tab.locator("#qb-practice-submit").wait_for()
    buttons = tab.locator("[id^=qb-practice-letter-]:visible")
    return [str(b.get_attribute("id")).rsplit("-", 1)[1] for b in buttons.all()]


def test_four_letters_clicked_as_fast_as_possible_are_all_submitted_and_send_no_event(
    shared_page: Any, served_shared: Served
) -> None:
    """Question 1: four Playwright clicks back to back, then Submit at once (no wait for the
    label). Question 2: four clicks in one JavaScript task, the harshest timing a page can see.
    Neither sends a server event before Submit, which sends exactly one; both store all four."""
    tab, served = shared_page, served_shared
    student = "Flo Fast"
    start_choice(tab, student, 2)
    chat = tab.locator("#qb-practice-chat")
    joins = Joins(tab)
    (submit_fn,) = handlers_of(served, "qb-practice-submit")
    letter_fns = set().union(*(handlers_of(served, f"qb-practice-letter-{x}") for x in "ABCD"))
    assert len(letter_fns) == 4
    # The student field's own handler (its blur refreshes the due panel) may still be on its way
    # to the server on a loaded machine; nothing else may be sent while letters are clicked.
    stray = handlers_of(served, "qb-practice-student", "blur", "submit")
    assert stray

    letters = shown_letters(tab)[:4]
    assert len(letters) == 4, letters
    for letter in letters:
        tab.locator(f"#qb-practice-letter-{letter}").click()
    assert set(joins.fns) <= stray  # the clicks stayed in the page
    tab.locator("#qb-practice-submit").click()  # Playwright waits until it is enabled
    chat.get_by_text("Answer 1 of 2:").wait_for()
    # Submit: one event (and the counter does count), none of them a letter's (that the answer
    # sets off nothing else is tests/ui/test_due_with_answer.py's).
    assert joins.fns.count(submit_fn) == 1 and not letter_fns & set(joins.fns)

    tab.locator("#qb-practice-next").click()
    chat.get_by_text("Question 2 of 2").first.wait_for()
    second = shown_letters(tab)[:4]
    assert len(second) == 4, second
    before = len(joins.fns)
    tab.evaluate(
        """(letters) => letters.forEach(
            (l) => document.querySelector(`#qb-practice-letter-${l}`).click())""",
        second,
    )
    expect(tab.locator("#qb-practice-submit")).to_have_text(f"Submit {', '.join(second)}")
    assert set(joins.fns[before:]) <= stray
    tab.locator("#qb-practice-submit").click()
    chat.get_by_text("Answer 2 of 2:").wait_for()
    assert joins.fns.count(submit_fn) == 2 and not letter_fns & set(joins.fns)

    with database(served.database_url) as db:
        session_id, items = session_items(db, student)
        assert all(isinstance(item, ChoiceItem) for item in items)
        raw = [r.raw_text for r in stored(db, session_id)]
    assert raw == [", ".join(letters), ", ".join(second)]


def test_a_letter_clicked_twice_is_unselected_and_a_new_question_starts_with_none(
    shared_page: Any, served_shared: Served
) -> None:
    """Toggling stays exact at full speed (A, B, A: only B), and the selection belongs to its
    question: the next one starts empty (Submit disabled, buttons back to plain)."""
    tab, served = shared_page, served_shared
    student = "Tog Gle"
    start_choice(tab, student, 2)
    chat = tab.locator("#qb-practice-chat")
    submit = tab.locator("#qb-practice-submit")
    for letter in ("A", "B", "A"):
        tab.locator(f"#qb-practice-letter-{letter}").click()
    submit.get_by_text("Submit B", exact=True).wait_for()
    submit.click()
    chat.get_by_text("Answer 1 of 2:").wait_for()
    tab.locator("#qb-practice-next").click()
    chat.get_by_text("Question 2 of 2").first.wait_for()
    expect(submit).to_be_disabled()
    expect(submit).to_have_text("Submit")
    tab.locator("#qb-practice-letter-C").click()
    submit.get_by_text("Submit C", exact=True).wait_for()
    submit.click()
    chat.get_by_text("Answer 2 of 2:").wait_for()
    with database(served.database_url) as db:
        session_id, _ = session_items(db, student)
        assert [r.raw_text for r in stored(db, session_id)] == ["B", "C"]


def set_every_input_while_the_page_loads(tab: Any, base_url: str, *, named: bool) -> None:
    """Reload the page with its server events held at the network (so the order is certain),
    set every input of the Practice tab and its Recall section while the load events wait
    (the pseudonym and cohort only when ``named``: accounts mode hides them), release them,
    wait until they and everything they started have run, then check every input held."""
    with page_events_held(tab, base_url):
        length = tab.locator("#qb-practice-length input[type=number]")
        length.wait_for()
        fields = {"#qb-practice-assignment": "homework-1"}
        if named:
            fields |= {"#qb-practice-student": "Ina Put", "#qb-practice-cohort": "Group 3"}
        for elem, value in fields.items():
            tab.locator(f"{elem} textarea, {elem} input").first.fill(value)
        tab.locator("#qb-practice-format").get_by_text("Multiple choice").click()
        length.fill("3")
        length.press("Enter")
        topic = tab.locator("#qb-practice-topic input")
        topic.fill("relation:investigated_with")
        topic.press("Enter")
        tab.locator("#qb-recall").get_by_text("Recall: list what you remember").first.click()
        aspect = tab.locator("#qb-recall-aspect input")
        aspect.fill("relation:treated_with_drug")
        aspect.press("Enter")
        recall_length = tab.locator("#qb-recall-length input[type=number]")
        recall_length.fill("4")
        recall_length.press("Enter")

    for elem, value in fields.items():
        expect(tab.locator(f"{elem} textarea, {elem} input").first).to_have_value(value)
    expect(tab.locator("#qb-practice-format input[value=choice]")).to_be_checked()
    expect(length).to_have_value("3")
    expect(topic).to_have_value(re.compile(r"^(relation:investigated_with|Investigations \()"))
    expect(aspect).to_have_value(re.compile(r"^(relation:treated_with_drug|Medications \()"))
    expect(recall_length).to_have_value("4")
    # ... and they are what Start sends: 3 multiple-choice questions on investigations.
    tab.locator("#qb-practice-assignment textarea, #qb-practice-assignment input").first.fill("")
    tab.locator("#qb-practice-start").click()
    tab.locator("#qb-practice-chat").get_by_text("Question 1 of 3").first.wait_for()


def test_inputs_set_while_the_page_loads_hold_after_its_load_events(
    shared_page: Any, served_shared: Served
) -> None:
    """No load event overwrites what the student set (local mode: every input)."""
    set_every_input_while_the_page_loads(shared_page, served_shared.url, named=True)
    with database(served_shared.database_url) as db:
        _, items = session_items(db, "Ina Put")
    assert len(items) == 3 and all(isinstance(item, ChoiceItem) for item in items)
    assert {item.relation for item in items} == {"investigated_with"}


def test_inputs_set_while_the_page_loads_hold_in_accounts_mode(
    shared_app: App, browser: Any
) -> None:
    """The same for a student account, whose page load also shows the tabs of its role and
    offers its active session (the recall length was once put back by a load here)."""
    app = shared_app
    tab = _log_in_page(browser, app, "stu")
    try:
        set_every_input_while_the_page_loads(tab, f"{app.url}/", named=False)
    finally:
        tab.context.close()


def test_inputs_hold_while_the_load_offers_an_accounts_recall_session(
    shared_app: App, browser: Any
) -> None:
    """With an active recall session, a student account's page load also offers it and opens
    the Recall section (one more load event with outputs in the section): every input set
    before that event ran still holds, and the offer is there."""
    from quizbot.practice.service import start_recall_session
    from storage import open_database

    app = shared_app
    db = open_database(app.database_url)
    try:
        start_recall_session(
            db, student=app.account("stu"), kb="clinical-core", length=2, seed="held"
        )
    finally:
        db.dispose()
    tab = _log_in_page(browser, app, "stu")
    try:
        set_every_input_while_the_page_loads(tab, f"{app.url}/", named=False)
        expect(tab.locator("#qb-recall-resume-text")).to_contain_text("0/2 answered")
    finally:
        tab.context.close()


def test_the_recall_section_is_on_the_page_closed_and_keeps_what_is_typed_at_once(
    shared_page: Any,
) -> None:
    """The Recall section's inputs are rendered with the page, hidden while it is closed, so
    opening it renders nothing that Gradio would then set back to its config (a closed
    ``gr.Accordion`` did: a length typed at once after opening became 5 again). The toggle
    opens and closes it in the page, by mouse or keyboard, and says which to screen readers.
    It starts nothing (no name, no Start): the shared app serves it."""
    tab = shared_page
    length = tab.locator("#qb-recall-length input[type=number]")
    toggle = tab.locator("#qb-recall-toggle")
    assert length.count() == 1  # already on the page: a closed accordion's inputs are not
    expect(length).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    length.fill("7")  # at once: no wait between opening and typing
    length.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    wait_settled(tab)  # what the opening asked the server (due line, aspects) has come back
    wait_layout(tab)
    expect(length).to_have_value("7")
    toggle.press("Enter")
    expect(length).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.press("Enter")
    expect(length).to_have_value("7")  # closing and opening again keeps it
