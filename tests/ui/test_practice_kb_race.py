"""A knowledge base chosen while the page loads, in a real browser (issue 31).

A student who picks another knowledge base in the first moments, before the page's load events
have answered, must get that knowledge base: the dropdown keeps it, the topics offered and the
note under it are that knowledge base's, and Start asks its questions. The page's server events
are held at the network while the choice is made, so the order is certain, then released.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from playwright.sync_api import expect

from quizbot.cli import cli
from quizbot.practice import service as practice
from quizbot.ui.practice import topic_choices
from tests.ui.conftest import App, Served
from tests.ui.events import page_events_held
from tests.ui.test_accounts import _log_in_page, app, browser
from tests.ui.test_practice import database, session_items

__all__ = ["app", "browser"]  # the accounts-mode fixtures, used by name

KB = "racekb"
STUDENT = "Kay Bee"
# A small knowledge base of made-up diseases: any of its questions names one of them.
DISEASES = ("zebra fever", "quokka pox", "wombat syndrome", "okapi palsy")
FACTS = "head,relation,tail,head_type,tail_type,group\n" + "".join(
    f"{d},has_symptom,{s},disease,symptom,{g}\n"
    for d, g, symptoms in [
        (DISEASES[0], "stripes", ("striped rash", "night sweats", "hoof pain")),
        (DISEASES[1], "smiles", ("smiling fits", "cheek swelling", "tail itch")),
        (DISEASES[2], "burrows", ("cubic stools", "back pouch ache", "dig urge")),
        (DISEASES[3], "stripes", ("leg stripes", "long tongue", "ear twitch")),
    ]
    for s in symptoms
)


@pytest.fixture
def database_url(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test database with the knowledge base :data:`KB` imported before the app starts
    (the Practice tab lists the knowledge bases it finds when it is built)."""
    facts = tmp_path / f"{KB}.csv"
    facts.write_text(FACTS, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", database_url)
    args = ["kb", "import", "--format", "triplets", str(facts), "--name", KB]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return database_url


def choose_kb_while_the_page_loads(tab: Any, base_url: str, *, named: bool) -> None:
    """Reload with the page's server events held, choose :data:`KB` (and, when ``named``, a
    pseudonym: accounts mode hides it), release the events and wait until they and what they
    started have run."""
    with page_events_held(tab, base_url):
        kb = tab.locator("#qb-practice-kb input")
        kb.wait_for()
        if named:
            student = tab.locator("#qb-practice-student textarea, #qb-practice-student input")
            student.first.fill(STUDENT)
        kb.click()
        tab.get_by_role("option", name=KB, exact=True).click()
        expect(kb).to_have_value(KB)


def check_the_chosen_kb_is_used(tab: Any, database_url: str, student: str) -> None:
    """The dropdown holds :data:`KB`, its topics are offered, and Start asks its questions."""
    kb = tab.locator("#qb-practice-kb input")
    expect(kb).to_have_value(KB)
    expect(tab.locator("#qb-practice-kb-note")).not_to_contain_text("clinical-core")
    with database(database_url) as db:
        wanted = [label for label, _ in topic_choices(practice.topics(db, KB))]
    assert len(wanted) > 1
    topic = tab.locator("#qb-practice-topic input")
    topic.click()
    options = tab.locator("#qb-practice-topic ul[role=listbox] li")
    expect(options).to_have_text([re.compile(rf"{re.escape(w)}$") for w in wanted])  # after a ✓
    topic.press("Escape")

    tab.locator("#qb-practice-start").click()
    tab.locator("#qb-practice-chat").get_by_text("Question 1 of").first.wait_for()
    expect(kb).to_have_value(KB)
    expect(tab.locator("#qb-practice-status")).to_contain_text(KB)
    with database(database_url) as db:
        _, items = session_items(db, student)
    assert items and {item.kb for item in items} == {KB}


def test_a_kb_chosen_while_the_page_loads_holds_and_sets_the_questions(
    page: Any, served: Served
) -> None:
    choose_kb_while_the_page_loads(page, served.url, named=True)
    check_the_chosen_kb_is_used(page, served.database_url, STUDENT)


def test_a_kb_chosen_while_the_page_loads_holds_in_accounts_mode(app: App, browser: Any) -> None:
    """The same for a student account, whose page load also shows the tabs of its role and
    offers its active session."""
    tab = _log_in_page(browser, app, "stu")
    try:
        choose_kb_while_the_page_loads(tab, f"{app.url}/", named=False)
        check_the_chosen_kb_is_used(tab, app.database_url, "stu")
    finally:
        tab.context.close()
