"""What the Practice tab runs in the page itself (JavaScript handlers, ``fn=None``)."""

from __future__ import annotations

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
