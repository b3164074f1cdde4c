"""A section that opens and closes in the browser, with its inputs rendered from the start.

Why not ``gr.Accordion``: Gradio 6 renders the children of a closed accordion only when it is
first opened, and once they are on the page it sets each of them again from the app's config
(a few frames later, longer on a busy machine). A value typed into such an input in between
(a length, an aspect) is put back to its default: the Recall section's "Number of questions"
was reset that way (issue 31). Here the section's body is an ordinary column, rendered with the
page and hidden by CSS while the section is closed; its toggle button opens and closes it in
the page itself (no server event), says so to screen readers (``aria-expanded``), and server
handlers that should run when it opens hang on the same button's click.

The page runs a click's handlers one after another in the order they were wired, each server
handler once the server has taken the one before it, so the toggle's own JavaScript is wired
when the button is made, before anything else can hang on its click: the section opens at once
even while the server is busy.

Usage, inside a Blocks::

    with disclosure_box("qb-recall"):
        toggle = disclosure_toggle("Recall: list what you remember", "qb-recall")
        ...  # what shows while closed too (e.g. an offer to resume)
        with disclosure_body("qb-recall"):
            ...  # the inputs
    toggle.click(refresh, ...)  # server work when it opens (or closes)
"""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

__all__ = [
    "DISCLOSURE_CSS",
    "disclosure_body",
    "disclosure_box",
    "disclosure_toggle",
    "open_js",
    "toggle_js",
]

# The body is hidden while its box has no ``data-open`` attribute (set and cleared by the JS
# below; Gradio never touches an attribute it did not write). The toggle reads as a heading.
DISCLOSURE_CSS = """
.qb-disclosure:not([data-open]) > .qb-disclosure-body,
.qb-disclosure:not([data-open]) .qb-disclosure-body { display: none !important; }
button.qb-disclosure-toggle { justify-content: flex-start; font-weight: 600; }
button.qb-disclosure-toggle::before { content: "\\25B8\\00A0"; }
.qb-disclosure[data-open] button.qb-disclosure-toggle::before { content: "\\25BE\\00A0"; }
"""


def _set_js(elem_id: str, how: str) -> str:
    """JavaScript that opens (``how="open"``) or flips (``"toggle"``) the section ``elem_id``
    and keeps its toggle's ``aria-expanded`` in step; it returns nothing (a JS-only handler)."""
    box = json.dumps(elem_id)
    toggle = json.dumps(f"{elem_id}-toggle")
    body = json.dumps(f"{elem_id}-body")
    want = "true" if how == "open" else "!box.hasAttribute('data-open')"
    return f"""() => {{
  const box = document.getElementById({box});
  if (!box) return;
  const open = {want};
  if (open) box.setAttribute('data-open', ''); else box.removeAttribute('data-open');
  const toggle = document.getElementById({toggle});
  if (toggle) {{
    toggle.setAttribute('aria-expanded', String(open));
    toggle.setAttribute('aria-controls', {body});
  }}
}}"""


def toggle_js(elem_id: str) -> str:
    """The toggle's click: open the section ``elem_id`` if closed, close it if open."""
    return _set_js(elem_id, "toggle")


def open_js(elem_id: str) -> str:
    """Open the section ``elem_id`` (e.g. when a button elsewhere leads into it)."""
    return _set_js(elem_id, "open")


def disclosure_box(elem_id: str) -> Any:
    """The section's outer column (a context manager); closed until its toggle is clicked."""
    return gr.Column(elem_id=elem_id, elem_classes=["qb-disclosure"])


def disclosure_toggle(label: str, elem_id: str) -> Any:
    """The button that opens and closes the section ``elem_id`` (its id: ``ELEM_ID-toggle``),
    with its JavaScript already wired (see the module's note on order)."""
    toggle = gr.Button(
        label,
        variant="secondary",
        elem_id=f"{elem_id}-toggle",
        elem_classes=["qb-disclosure-toggle"],
    )
    _wire_toggle(toggle, elem_id)
    return toggle


def disclosure_body(elem_id: str) -> Any:
    """The section's body (a context manager), hidden while the section is closed."""
    return gr.Column(elem_id=f"{elem_id}-body", elem_classes=["qb-disclosure-body"])


def _wire_toggle(toggle: Any, elem_id: str) -> None:
    """Open and close the section in the page on the toggle's click, and say it is closed to
    screen readers once the page has loaded. Server work on opening chains after it
    (``toggle.opened.then(...)``), never on the click itself: the page re-runs every handler of
    an event when one of them was deferred behind its own earlier run, which ran the toggle
    twice (the section opened and closed again)."""
    toggle.opened = toggle.click(None, None, None, js=toggle_js(elem_id), api_visibility="private")
    closed = json.dumps(f"{elem_id}-toggle")
    gr.on(
        None,
        None,
        js=f"() => {{ document.getElementById({closed})?.setAttribute('aria-expanded', "
        f"String(!!document.getElementById({json.dumps(elem_id)})?.hasAttribute('data-open'))); }}",
        api_visibility="private",
    )
