"""What the Practice tab runs in the page itself (JavaScript handlers, ``fn=None``)."""

from __future__ import annotations

import json

from quizbot.items import I_DO_NOT_KNOW
from quizbot.ui.practice.render import ALL_TOPICS

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


# The keys of the chat, as the help line under it says them (see :data:`KEYS_JS`).
KEYS_HELP = (
    "**Keys:** 1 True · 2 False · 3 I don't know · A, B, C… choose options (the letter of "
    '"I do not know" answers it) · Enter submits, or goes to the next question · Tab moves '
    "between the buttons. Keys do nothing while you type in a text box."
)

# Installed once on page load (``fn=None``): the chat's shortcut keys, in the page. They act
# only while the Practice tab is shown, with no modifier, and when the focus is in the chat's
# column or on nothing (not in the settings, the recall section or a text box), and only on a
# control that is shown and enabled: a key clicks it, so it does what the click does (a letter
# toggles in the page, as a click does: no server event). Enter on a focused True/False/Next
# button is the button's own; on a letter button it submits the letters instead of toggling.
# ``window.qbTyped`` remembers whether the last answer was typed, so focus goes back to the box.
KEYS_JS = """() => {
  if (window.qbPracticeKeys) return;
  window.qbPracticeKeys = true;
  const $ = (id) => document.getElementById(id);
  const usable = (el) => !!el && !el.disabled && el.checkVisibility();
  const editing = (el) => el instanceof HTMLElement && (el.isContentEditable ||
    el.matches("textarea, select, input:not([type=radio], [type=checkbox], [type=button])"));
  document.addEventListener("keydown", (ev) => {
    const column = $("qb-practice-chat-column");
    if (!column || !column.checkVisibility()) return;  // another tab is open
    const t = ev.target;
    if (t instanceof Element && t.closest("#qb-practice-answer")) {
      if (ev.key === "Enter") window.qbTyped = true;  // the box's own Enter submits it
      return;
    }
    if (ev.defaultPrevented || ev.repeat || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.isComposing || editing(t)) return;
    if (t !== document.body && !(column.contains(t) && !t.closest("#qb-practice-flag"))) return;
    const key = ev.key;
    const onLetter = t instanceof Element && t.id.startsWith("qb-practice-letter-");
    let target = null;
    if (key === "Enter") {
      if (t instanceof HTMLButtonElement && !onLetter) return;  // the button's own Enter
      target = ["qb-practice-next", "qb-practice-submit"].map($).find(usable) ?? null;
      if (onLetter) ev.preventDefault();  // Enter on a letter submits, never toggles
    } else if (/^[123]$/.test(key) && usable($("qb-practice-true"))) {
      target = $(["qb-practice-true", "qb-practice-false", "qb-practice-idk"][+key - 1]);
    } else if (/^[a-z]$/i.test(key)) {
      const letter = key.toUpperCase();  // the "I do not know" option's letter is its button
      const idk = letter === window.qbIdkLetter;
      target = $(idk ? "qb-practice-idk" : `qb-practice-letter-${letter}`);
    }
    if (!usable(target)) return;
    ev.preventDefault();
    window.qbTyped = false;
    target.click();
  }, true);
  document.addEventListener("pointerdown", (ev) => {
    if (ev.target instanceof Element && ev.target.closest("#qb-practice-chat-column button")) {
      window.qbTyped = false;
    }
  }, true);
}"""

# On every change of the chat (``fn=None``, the tab's JSON as input): once the page shows the
# new state, give the controls their accessible names; show the newest message from its start
# inside the chat (a long feedback would otherwise open at its end, the verdict out of sight);
# move the focus to what comes next (Next while feedback waits for it, else the answer box if
# the last answer was typed, else True or the first option; nothing when the session is over);
# and scroll the page so that the message's start is on screen with, as far as it fits under
# it, what to press next (at phone width: the verdict with Next under it).
AFTER_CHAT_JS = """(data) => {
  const d = typeof data === "string" ? JSON.parse(data || "null") : data;
  const q = d?.question, fb = d?.feedback;
  const $ = (id) => document.getElementById(id);
  window.qbIdkLetter = q?.options?.find((o) => o.text === IDK_OPTION)?.letter ?? null;
  let focusId = null, marker = null;
  if (q && fb) {
    focusId = "qb-practice-next";
    marker = `Answer ${fb.position} of ${fb.total}`;
  } else if (q) {
    focusId = window.qbTyped ? "qb-practice-answer"
      : q.kind === "statement" ? "qb-practice-true" : "qb-practice-letter-A";
    marker = `Question ${q.position} of ${q.total}`;
  } else if (fb && d?.session?.mode !== "exam") {  // the last answer: its verdict, then the end
    marker = `Answer ${fb.position} of ${fb.total}`;
  }
  const target = () => {
    const el = focusId && $(focusId);
    return el && el.tagName !== "BUTTON" ? el.querySelector("textarea, input") : el;
  };
  const message = () => [...document.querySelectorAll("#qb-practice-chat .message-row.bot-row")]
    .reverse().find((b) => !marker || b.innerText.includes(marker));
  const ready = () => (!focusId || target()?.checkVisibility()) && (!marker || message());
  const show = () => {
    const keys = {"qb-practice-true": "1", "qb-practice-false": "2", "qb-practice-idk": "3",
                  "qb-practice-next": "Enter", "qb-practice-submit": "Enter"};
    for (const [id, key] of Object.entries(keys)) $(id)?.setAttribute("aria-keyshortcuts", key);
    for (const b of document.querySelectorAll("[id^=qb-practice-letter-]")) {
      const letter = b.id.slice(-1);
      b.setAttribute("aria-label", "Option " + letter);
      b.setAttribute("aria-keyshortcuts", letter);
    }
    const bubble = message();
    let box = bubble?.parentElement;
    while (box && box.id !== "qb-practice-chat" && box.scrollHeight <= box.clientHeight + 1) {
      box = box.parentElement;
    }
    if (bubble && box && box.id !== "qb-practice-chat") {
      // the chat's floating label covers the top of its box: start the message below it
      const label = document.querySelector("#qb-practice-chat [data-testid=block-label]");
      const boxTop = box.getBoundingClientRect().top;
      const pad = Math.max(8, (label?.getBoundingClientRect().bottom ?? boxTop) - boxTop + 8);
      const start = box.scrollTop + bubble.getBoundingClientRect().top - boxTop;
      box.scrollTop = box.scrollHeight - start <= box.clientHeight - pad
        ? box.scrollHeight : start - pad;
    }
    const el = target();
    if (el && !el.disabled) el.focus({preventScroll: true});
    const top = bubble?.getBoundingClientRect().top;
    if (top !== undefined && marker) {  // the message's start in view, then what to press
      // nothing to press (the session is over): the verdict's first lines
      const bottom = el?.checkVisibility() ? el.getBoundingClientRect().bottom : top + 64;
      const low = window.innerHeight - 8;
      let by = bottom > low ? bottom - low : 0;
      if (top - by < 8) by = top - 8;
      if (by) window.scrollBy(0, by);
    }
  };
  const started = performance.now();
  const wait = () => {
    if (ready() || performance.now() - started > 5000) {
      requestAnimationFrame(show);
    } else {
      requestAnimationFrame(wait);
    }
  };
  requestAnimationFrame(wait);
}""".replace("IDK_OPTION", json.dumps(I_DO_NOT_KNOW))
