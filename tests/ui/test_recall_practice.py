"""The Practice tab's Recall section in a real browser: a student lists what they remember and sees
what they recalled, missed, listed that is not in our list, and got wrong.

The gold lists are never taken from the app: each question's item is read from the database the
server writes to, and the answer typed is built from it, so what the panel must show (recalled,
missed, wrong, F1) is known before the answer is sent. F1 is counted by hand (named gold
entities, made-up names). What is stored is checked in the database.
"""

from __future__ import annotations

import re
import statistics
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from quizbot.domain import RespondentKind
from quizbot.generate.service import load_any_items
from quizbot.items import RecallItem
from storage.sessions import find_respondent, load_session, respondent_history
from tests.ui.conftest import Served, screenshot
from tests.ui.events import wait_settled
from tests.ui.test_practice import assert_fits, config_text, database, stored

N = 3
WRONG = "<b>purple toenails"  # made up, and HTML that must show as text ("/" would split it)


def recall_items(served: Served, student: str) -> tuple[int, list[RecallItem]]:
    """The newest session of ``student`` and its recall items in order, from the database."""
    with database(served.database_url) as db:
        respondent = find_respondent(db, RespondentKind.HUMAN, student.casefold())
        assert respondent is not None and respondent.id is not None
        newest = respondent_history(db, respondent.id)[-1].session
        assert newest.id is not None and newest.config["format"] == "recall"
        ids = [e["id"] for e in newest.config["items"]]
        found = {i.id: i for i in load_any_items(db, ids)}
    items = [found[i] for i in ids]
    assert all(isinstance(i, RecallItem) for i in items)
    return newest.id, [i for i in items if isinstance(i, RecallItem)]


def stand_alone(item: RecallItem) -> str | None:
    """A gold entity of ``item`` whose names share no words' run with another gold's names
    (neither holds the other), so that naming it recalls it alone; None when every gold holds
    or is held by another (7 of clinical-core's 1,453 questions, e.g. "sigmoid colon" and
    "colon"). By docs/recall.md a name recalls every gold it is another wording, a narrower or
    a qualified form of: "progressive dysphagia" names "dysphagia" too when both are listed
    (clinical-core's oesophageal cancer), and "dysphagia" alone names both."""

    def names(gold: str) -> list[str]:
        return [f" {n.casefold()} " for n in (gold, *item.synonyms.get(gold, ()))]

    for gold in item.answers:
        others = [n for o in item.answers if o != gold for n in names(o)]
        if not any(a in b or b in a for a in names(gold) for b in others):
            return gold
    return None


def _item(*answers: str, synonyms: dict[str, tuple[str, ...]] | None = None) -> RecallItem:
    return RecallItem(
        kb="t", kb_version="1", relation="r", aspect="symptoms", head="h", question="q?",
        answers=answers, synonyms=synonyms or {},
    )  # fmt: skip


def test_stand_alone_passes_over_a_gold_that_another_holds_or_names() -> None:
    """The case a flake hunt drew (oesophageal cancer's symptoms), and a synonym's share."""
    listed = ("progressive dysphagia", "dysphagia", "odynophagia", "regurgitation")
    assert stand_alone(_item(*listed)) == "odynophagia"
    assert (
        stand_alone(
            _item("brain", "cerebral arteries", synonyms={"cerebral arteries": ("brain arteries",)})
        )
        is None
    )
    assert stand_alone(_item("pain", "back pain", "ear")) == "ear"
    assert stand_alone(_item("ear", "fear")) == "ear"  # whole words, not letters


def f1_by_hand(named: int, unverified: int, n_gold: int) -> float:
    """Made-up names are unverified: nothing is known of them, so they count on neither side."""
    del unverified
    precision = 1.0 if named else 0.0
    recall = named / n_gold
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def start_recall(tab: Any, student: str | None, n: int, aspect: str | None = None) -> None:
    """Open the Recall section, ask for ``n`` questions and wait for the first one.

    ``student`` None: accounts mode (the account is the student). ``aspect`` (a relation, e.g.
    ``"relation:has_symptom"``): questions of that aspect only, else of all aspects. The length
    must read ``n`` before Start is pressed, and a start that shows no first question fails with
    what the section shows instead (status and question text, and a screenshot in
    tests/artifacts).
    """
    if student is not None:
        tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(student)
    # Clicks land where the button was when Playwright found it steady: wait until what the
    # page asked the server has come back (it can move the section down the page) first.
    wait_settled(tab)
    tab.locator("#qb-recall-toggle").click()
    expect(tab.locator("#qb-recall-toggle")).to_have_attribute("aria-expanded", "true")
    if aspect is not None:  # typed: the dropdown takes a relation as it is (the service checks)
        box = tab.locator("#qb-recall-aspect input")
        box.fill(aspect)
        box.press("Enter")
        label = r"\w.* \(\d[\d,]* questions\)"  # or the choice it matched, by its label
        expect(box).to_have_value(re.compile(rf"^({re.escape(aspect)}|{label})$"))
    length = tab.locator("#qb-recall-length input[type=number]")
    # Typed once: no load event puts an input back (tests/ui/test_practice_inputs.py).
    length.fill(str(n))
    length.press("Enter")
    expect(length).to_have_value(str(n))
    wait_settled(tab)  # the name's blur (offers, due counts) can move Start down the page
    tab.locator("#qb-recall-start").click()
    first = tab.locator("#qb-recall-question").get_by_text(f"Question 1 of {n}")
    try:
        first.wait_for(timeout=60_000)  # a wait, not a speed check: CI shares 2 cores with Gemma
    except PlaywrightTimeout:
        screenshot(tab, "recall-start-failed")
        status = tab.locator("#qb-recall-status").inner_text()
        question = tab.locator("#qb-recall-question").inner_text()
        raise AssertionError(
            f"no 'Question 1 of {n}' after Start recall; status: {status!r}; question: {question!r}"
        ) from None


def test_a_student_completes_a_recall_session_and_sees_matched_missed_wrong(
    shared_page: Any, served_shared: Served
) -> None:
    tab, served = shared_page, served_shared
    student = "Rita Recall"
    start_recall(tab, student, N)
    session_id, items = recall_items(served, student)
    assert len(items) == N
    section = tab.locator("#qb-recall")
    panel = tab.locator("#qb-recall-feedback")
    typed: list[str] = []
    f1s: list[float] = []
    for position, item in enumerate(items, start=1):
        expect(tab.locator("#qb-recall-question")).to_contain_text(f"Question {position} of {N}")
        expect(tab.locator("#qb-recall-question")).to_contain_text(item.head)
        # Before the answer: no gold entity in the section (beyond the question's own words),
        # none in the app's config, no item id anywhere.
        shown = section.inner_text().casefold()
        for answer in item.answers:
            if answer.casefold() not in item.question.casefold():
                assert answer.casefold() not in shown, answer
        assert item.id not in tab.content() and item.id not in config_text(served)
        gold = list(item.answers)
        if position == 1:  # the first entity and a made-up one
            alone = stand_alone(item)  # None: the made-up one only
            named, wrong = ([alone] if alone else []), [WRONG]
            text = ", ".join([*named, WRONG])
        elif position == 2:  # everything, bullets and "and"
            lines = [f"- {g}" for g in gold[:-2]]
            lines.append(f"- {gold[-2]} and {gold[-1]}" if len(gold) > 1 else f"- {gold[-1]}")
            text = "\n".join(lines)
            named, wrong = gold, []
        else:
            text, named, wrong = "I don't know", [], []
        f1s.append(f1_by_hand(len(named), len(wrong), len(gold)))
        box = tab.locator("#qb-recall-answer textarea").first
        box.fill(text)
        typed.append(text)
        tab.locator("#qb-recall-submit").click()
        verdict = tab.locator("#qb-recall-verdict")
        verdict.wait_for()
        expect(verdict).to_contain_text(f"Question {position} of {N}")
        expect(verdict).to_contain_text(f"F1 {f1s[-1]:.2f}" if named else "F1 0")
        recalled = tab.locator("#qb-recall-recalled")
        expect(recalled).to_contain_text(f"\u2713 Recalled ({len(named)} of {len(gold)})")
        for g in named:
            expect(recalled).to_contain_text(g)
        missed = tab.locator("#qb-recall-missed")
        for g in gold:
            if g not in named:
                expect(missed.locator("li").filter(has_text=g).first).to_be_visible()
        if not [g for g in gold if g not in named]:
            expect(missed).to_contain_text("you recalled the whole list")
        # A made-up name is "not in our list", never "Wrong".
        expect(tab.locator("#qb-recall-wrongs li")).to_have_count(0)
        unverified = tab.locator("#qb-recall-unverifieds li")
        expect(unverified).to_have_count(len(wrong))
        if wrong:  # shown as text, not as HTML
            assert unverified.first.inner_text() == WRONG
            assert panel.locator("b").count() == 0
        if position < N:
            screenshot(tab, f"recall-feedback-{position}")
            tab.locator("#qb-recall-next").click()
    status = tab.locator("#qb-recall-status")
    expect(status).to_contain_text("Session over")
    summary = tab.locator("#qb-recall-summary")
    expect(summary).to_contain_text(f"Mean F1 {statistics.mean(f1s):.2f}")
    expect(summary).to_contain_text(f"over {N} question(s)")
    screenshot(tab, "recall-summary")

    with database(served.database_url) as db:
        rows = stored(db, session_id)
        assert [r.raw_text for r in rows] == typed
        assert rows[-1].outcome == "abstained"
        assert all(r.parsed_answer and r.latency_ms is not None for r in rows)
        assert load_session(db, session_id).session.status == "finished"

    # "My progress" shows the recall answers apart, with mean F1 per aspect.
    tab.locator("#qb-practice-progress-toggle").click()
    tab.locator("#qb-practice-progress-show").click()
    progress = tab.locator("#qb-practice-progress-text")
    expect(progress).to_contain_text("Open recall")
    expect(progress).to_contain_text(f"Mean F1 {statistics.mean(f1s):.2f}")
    for aspect in {i.aspect for i in items}:
        expect(progress).to_contain_text(aspect)


def test_the_recall_section_fits_a_phone(shared_page: Any, served_shared: Served) -> None:
    tab, served = shared_page, served_shared
    tab.set_viewport_size({"width": 390, "height": 844})
    start_recall(tab, "Phone Recall", 1)
    _, items = recall_items(served, "Phone Recall")
    tab.locator("#qb-recall-answer textarea").first.fill(
        f"{items[0].answers[0]}, a very long made-up entity name that should wrap nicely"
    )
    tab.locator("#qb-recall-submit").click()
    tab.locator("#qb-recall-verdict").wait_for()
    for element in ("#qb-recall-start", "#qb-recall-feedback", "#qb-recall-summary"):
        box = tab.locator(element).first.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 391, element
    assert_fits(tab, 390)
    screenshot(tab, "narrow-recall")


def test_a_recall_exam_assignment_shows_nothing_until_its_last_answer(
    shared_page: Any, served_shared: Served
) -> None:
    """An exam of its own name that only its own student takes: on the shared app."""
    from quizbot.domain import AssignmentMode
    from quizbot.generate.assignments import AssignmentRequest, make_assignment

    tab, served = shared_page, served_shared
    with database(served.database_url) as db:
        make_assignment(
            db,
            AssignmentRequest(
                name="recall-exam", kb="clinical-core", points=2, seed="x", format="recall",
                mode=AssignmentMode.EXAM,
            ),
        )  # fmt: skip
    tab.locator("#qb-practice-assignment textarea, #qb-practice-assignment input").first.fill(
        "recall-exam"
    )
    start_recall(tab, "Exam Taker", 2)
    session_id, items = recall_items(served, "Exam Taker")
    first = items[0]
    tab.locator("#qb-recall-answer textarea").first.fill(f"{first.answers[0]}, {WRONG}")
    tab.locator("#qb-recall-submit").click()
    verdict = tab.locator("#qb-recall-verdict")
    expect(verdict).to_contain_text("Answer recorded")
    assert tab.locator("#qb-recall-recalled").count() == 0  # no lists, no score
    section = tab.locator("#qb-recall").inner_text()
    assert "F1" not in section
    for gold in first.answers[1:]:  # missed ones: not revealed yet
        assert gold not in section.replace(first.question, ""), gold
    tab.locator("#qb-recall-next").click()
    tab.locator("#qb-recall-question").get_by_text("Question 2 of 2").wait_for()
    tab.locator("#qb-recall-answer textarea").first.fill(", ".join(items[1].answers))
    tab.locator("#qb-recall-submit").click()
    expect(tab.locator("#qb-recall-status")).to_contain_text("Session over")
    review = tab.locator("#qb-recall-feedback")
    for item in items:  # every answer's full feedback at the end
        expect(review).to_contain_text(item.question)
        for gold in item.answers:
            expect(review).to_contain_text(gold)
    expect(review).to_contain_text(WRONG)
    with database(served.database_url) as db:
        assert load_session(db, session_id).session.assignment_id is not None
        texts = [r.raw_text for r in stored(db, session_id)]
        assert texts[0] == f"{first.answers[0]}, {WRONG}" and len(texts) == 2
