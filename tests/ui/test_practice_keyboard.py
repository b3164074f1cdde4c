"""The Practice tab by keyboard alone, and its verdict on a phone (issue 29).

After the page is open nothing is clicked: the settings are reached with Tab, the session starts
with Enter on Start, statements are answered with 1/2/3, options toggled with their letters and
sent with Enter, and Next is pressed with Enter. The answers stored are read back from the
database and compared with the keys pressed. After every answer the focus must be on Next
(never on End session), and Tab + Enter from there must leave the session running. At 390 px
the verdict of every answer must be wholly on screen (inside the viewport and inside the chat's
own scrolling box) with Next under it.

Viewport screenshots of the chat mid-session go to tests/artifacts/ (``practice-keyboard-*``);
docs/screenshots/practice-chat-1280.png and -390.png show the same moment (feedback on an answer
given by keys, focus on Next) at 1280x1000 and 390x844. Each test's student is its own: they
run on the shared app (``served_shared``), each in a page of its own.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from quizbot.items import I_DO_NOT_KNOW, ChoiceItem, StatementItem
from storage.sessions import load_session
from tests.ui.conftest import ARTIFACTS, Served
from tests.ui.test_practice import IDK, assert_fits, bubbles, database, session_items, stored

N = 4
LETTERS = "ABCDEFGHIJ"
STUDENT_BOX = "#qb-practice-student textarea, #qb-practice-student input"
ANSWER_BOX = "#qb-practice-answer textarea"

# Is the element wholly visible: inside the viewport and inside every ancestor that clips it
# (the chat scrolls in a box of its own, so a verdict can be in the viewport and still hidden).
_WHOLLY_SHOWN_JS = """(el) => {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return false;
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
  for (let a = el.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowY === "visible" && s.overflowX === "visible") continue;
    const b = a.getBoundingClientRect();
    const out = r.top < b.top - 1 || r.bottom > b.bottom + 1;
    if (out || r.left < b.left - 1 || r.right > b.right + 1) return false;
  }
  return true;
}"""


def focused(tab: Any, selector: str) -> bool:
    return bool(tab.evaluate("(s) => !!document.activeElement?.matches(s)", selector))


def tab_to(tab: Any, selector: str, *, back: bool = False, limit: int = 80) -> None:
    """Press Tab (Shift+Tab with ``back``) until the focus is on ``selector``."""
    for _ in range(limit):
        if focused(tab, selector):
            return
        tab.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reached {selector}")


def start_by_keyboard(tab: Any, student: str, width: int) -> None:
    """Fill in the settings and press Start with the keyboard only (mixed format, N questions)."""
    tab.set_viewport_size({"width": width, "height": 900 if width > 700 else 844})
    tab_to(tab, STUDENT_BOX)
    tab.keyboard.type(student)
    # Gradio gives each radio button a group of its own: Tab reaches each, Space picks it.
    tab_to(tab, "#qb-practice-format input[value=mixed]")
    tab.keyboard.press("Space")
    mixed = tab.locator("#qb-practice-format input[value=mixed]")
    expect(mixed).to_be_checked()
    tab_to(tab, "#qb-practice-length input[type=number]")
    tab.keyboard.press("Control+A")
    tab.keyboard.type(str(N))
    tab.keyboard.press("Enter")
    tab_to(tab, "#qb-practice-start")
    tab.keyboard.press("Enter")
    tab.locator("#qb-practice-chat").get_by_text(f"Question 1 of {N}").wait_for()


def expect_question(tab: Any, position: int, item: StatementItem | ChoiceItem) -> None:
    """Question ``position`` is the chat's last message and the focus is on its answers."""
    expect(bubbles(tab).last).to_contain_text(f"Question {position} of {N}")
    first = "#qb-practice-true" if isinstance(item, StatementItem) else "#qb-practice-letter-A"
    expect(tab.locator(first)).to_be_focused()


def answer_by_keys(tab: Any, item: StatementItem | ChoiceItem, turn: int) -> str:
    """Answer ``item`` with the shortcut keys; returns the answer as it should be stored."""
    if isinstance(item, StatementItem):
        key = "123"[turn % 3]
        tab.keyboard.press(key)
        return {"1": "True", "2": "False", "3": IDK}[key]
    if turn % 3 == 1 and I_DO_NOT_KNOW in item.options:  # the "I do not know" option's letter
        tab.keyboard.press(LETTERS[item.options.index(I_DO_NOT_KNOW)].lower())
        return IDK
    picks = ["A", "C"] if turn % 3 == 0 else ["B"]
    submit = tab.locator("#qb-practice-submit")
    for letter in picks:
        tab.keyboard.press(letter.lower())
        expect(submit).to_contain_text(letter)  # toggled in the page, no server event
    expect(submit).to_have_text("Submit " + ", ".join(picks))
    tab.keyboard.press("Enter")
    return ", ".join(picks)


def wholly_shown(locator: Any) -> bool:
    return bool(locator.evaluate(_WHOLLY_SHOWN_JS))


def test_a_whole_session_by_keyboard_alone(shared_page: Any, served_shared: Served) -> None:
    tab, served = shared_page, served_shared
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    student = "Kai Keys"
    start_by_keyboard(tab, student, 1280)
    chat = tab.locator("#qb-practice-chat")
    # Every control of the chat has a name of its own for a screen reader.
    expect(tab.get_by_role("textbox", name="Your answer", exact=True)).to_be_attached()
    expect(tab.get_by_role("button", name="End session", exact=True)).to_be_visible()
    expect(tab.locator("#qb-practice-keys")).to_contain_text("1 True · 2 False")
    with database(served.database_url) as db:
        session_id, items = session_items(db, student)
        assert {type(i) for i in items} == {StatementItem, ChoiceItem}  # mixed: both kinds
        given: list[str] = []
        for position, item in enumerate(items, start=1):
            expect_question(tab, position, item)
            if isinstance(item, ChoiceItem):
                for letter in LETTERS[: len(item.options) - 1]:
                    expect(tab.get_by_role("button", name=f"Option {letter}")).to_be_visible()
            if position == 1:  # keys typed in the answer box are text, not shortcuts
                tab_to(tab, ANSWER_BOX)
                tab.keyboard.type("12ab")
                expect(tab.locator(ANSWER_BOX)).to_have_value("12ab")
                tab.keyboard.press("Control+A")
                tab.keyboard.press("Backspace")
                first = "#qb-practice-true, #qb-practice-letter-A"
                tab_to(tab, first, back=True)
                assert stored(db, session_id) == []
                if isinstance(item, ChoiceItem):  # no letter was toggled either
                    expect(tab.locator("#qb-practice-submit")).to_have_text("Submit")
            given.append(answer_by_keys(tab, item, position))
            chat.get_by_text(f"Answer {position} of {N}:").wait_for()
            if position == N:
                break
            next_button = tab.locator("#qb-practice-next")
            expect(next_button).to_be_focused()
            assert not focused(tab, "#qb-practice-end")
            if position == 2:
                tab.screenshot(path=str(ARTIFACTS / "practice-keyboard-1280.png"))
            # One Tab + Enter from where the focus landed does not end the session.
            tab.keyboard.press("Tab")
            assert not focused(tab, "#qb-practice-end")
            tab.keyboard.press("Enter")
            expect(tab.locator("#qb-practice-status")).to_contain_text(
                f"question {position + 1} of {N}"
            )
            assert load_session(db, session_id).session.status == "active"
            tab_to(tab, "#qb-practice-next", back=True)
            tab.keyboard.press("Enter")
        tab.locator("#qb-practice-summary").get_by_text("Session summary").wait_for()
        rows = stored(db, session_id)
        assert [r.raw_text for r in rows] == given
        assert [r.item_id for r in rows] == [item.id for item in items]
        assert load_session(db, session_id).session.status == "finished"


def test_the_verdict_is_on_screen_after_each_answer_at_phone_width(
    shared_page: Any, served_shared: Served
) -> None:
    tab, served = shared_page, served_shared
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    student = "Pia Phone"
    start_by_keyboard(tab, student, 390)
    chat = tab.locator("#qb-practice-chat")
    with database(served.database_url) as db:
        session_id, items = session_items(db, student)
        given: list[str] = []
        for position, item in enumerate(items, start=1):
            if position == 1:  # typed: the focus comes back to the box for the next question
                expect_question(tab, position, item)
                tab_to(tab, ANSWER_BOX)
                raw = "t" if isinstance(item, StatementItem) else "a"
                tab.keyboard.type(raw)
                tab.keyboard.press("Enter")
                given.append(raw)
            elif position == 2:
                expect(bubbles(tab).last).to_contain_text(f"Question {position} of {N}")
                expect(tab.locator(ANSWER_BOX)).to_be_focused()
                # back to the buttons, where the keys work
                tab_to(tab, "#qb-practice-true, #qb-practice-letter-A", back=True)
                given.append(answer_by_keys(tab, item, position))
            else:
                expect_question(tab, position, item)
                given.append(answer_by_keys(tab, item, position))
            verdict = chat.get_by_text(f"Answer {position} of {N}:")
            verdict.wait_for()
            if position == N:  # the session is over: nothing to focus, the verdict on screen
                expect(tab.locator("#qb-practice-summary")).to_contain_text("Session summary")
                tab.wait_for_function(_WHOLLY_SHOWN_JS, arg=verdict.element_handle())
                break
            next_button = tab.locator("#qb-practice-next")
            expect(next_button).to_be_focused()  # set in the same frame as the scroll
            assert wholly_shown(verdict), verdict.bounding_box()
            assert wholly_shown(next_button), next_button.bounding_box()
            assert_fits(tab, 390)
            if position == 3:
                tab.screenshot(path=str(ARTIFACTS / "practice-keyboard-390.png"))
            tab.keyboard.press("Enter")
        assert [r.raw_text for r in stored(db, session_id)] == given
