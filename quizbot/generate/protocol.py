"""An assignment's protocol: how its items are put to every respondent, students and models alike.

A comparison of students with models is fair only when both were asked the same question with the
same choices. The protocol says how an assignment's items are asked, and it is fixed when the
assignment is made (stored in its config under ``"protocol"``):

* ``idk``: whether "I do not know" is one of the answers offered. A statement is then answered
  True, False or "I do not know"; a multiple-choice question offers its options and "I do not
  know" (:meth:`~quizbot.items.ChoiceItem.offered_options`). Without it a statement is answered
  True or False, and a question with an "I do not know" option of its own cannot be part of the
  assignment (the option cannot be taken away without changing the question).
* ``instruction``: the question's wording: ``standard`` is the PretexEval sentence
  (:data:`STATEMENT_QUESTION` with the answers listed, :data:`CHOICE_REQUEST` for lettered options,
  :data:`RECALL_REQUEST` for open recall). The texts themselves are stored with the protocol
  (:meth:`Protocol.instruction_texts`), so what the results show is what was fixed.
* ``shots``: worked examples (demonstrations) before each question, for models. Students are never
  shown any, so the default is none; an instructor may choose otherwise and the results say so.
* ``two_pass``: EBMQA's two passes (pass 1 with "I do not know", pass 2 a forced guess).

Students answer under it on the practice page (:mod:`quizbot.practice.feedback`: the same choices,
"I do not know" refused when the protocol has none); a model's run for the assignment is asked
under it whatever flags are given (:func:`quizbot.evaluation.service.start`). A run's own
protocol is read back from its stored config (:meth:`Protocol.of_run`); a run whose protocol
differs from its assignment's is not compared (:meth:`Protocol.differences` says why).

Assignments made before protocols were stored get the one their students had
(:meth:`Protocol.of_assignment`): "I do not know" offered, no examples, one or two passes as
recorded; ``recorded`` is then False.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from quizbot.errors import InputError
from quizbot.items import I_DO_NOT_KNOW, AnyItem, ChoiceItem, RecallItem

__all__ = [
    "CHOICE_REQUEST",
    "FALSE_WORD",
    "MAX_SHOTS",
    "PROTOCOL_VERSION",
    "RECALL_REQUEST",
    "STATEMENT_QUESTION",
    "TRUE_WORD",
    "Protocol",
    "answer_request",
    "statement_template",
]

PROTOCOL_VERSION = 1
MAX_SHOTS = 20
TRUE_WORD = "True"
FALSE_WORD = "False"
# The PretexEval question after a statement: "<statement>, is the statement above ...?"
STATEMENT_QUESTION = "is the statement above true or false?"
CHOICE_REQUEST = (
    "Answer with the letter of the correct option; if more than one option is correct, "
    "give all their letters separated by commas."
)
RECALL_REQUEST = (
    "Answer with a comma-separated list of short names, most important first, and nothing else."
)
Instruction = Literal["standard", "sdak"]
_INSTRUCTION_NAMES = {
    "standard": "the PretexEval question",
    "sdak": "the SDAK question (a verdict Correct or Incorrect, then the reason)",
}


def answer_request(choices: Sequence[str]) -> str:
    """The sentence that lists the answers: "Please answer True, False or I do not know."."""
    if len(choices) < 2:
        raise ValueError("a question needs at least two answers")
    return f"Please answer {', '.join(choices[:-1])} or {choices[-1]}."


def statement_template(idk: bool, *, sentence: bool = True) -> str:
    """The question a statement is asked with, ``{statement}`` standing for its text verbatim.

    A statement that ends a sentence (".", "?" or "!", possibly inside closing quotes) is followed
    by the question as a sentence of its own ("... blood pressure. Is the statement above ...");
    one that does not (``sentence=False``, e.g. an imported statement without a period) goes on
    with a comma, as in the PretexEval paper ("... blood pressure, is the statement above ...").
    Either way the prompt never reads "., is" and holds the statement's text unchanged.
    """
    choices = (TRUE_WORD, FALSE_WORD, I_DO_NOT_KNOW) if idk else (TRUE_WORD, FALSE_WORD)
    if sentence:
        question = STATEMENT_QUESTION[0].upper() + STATEMENT_QUESTION[1:]
        return "{statement} " + question + " " + answer_request(choices)
    return "{statement}, " + STATEMENT_QUESTION + " " + answer_request(choices)


_CLOSING_QUOTES = "\"'\u201d\u2019"


def ends_sentence(text: str) -> bool:
    """Whether a statement's text ends a sentence (closing quotes aside)."""
    return text.rstrip().rstrip(_CLOSING_QUOTES).endswith((".", "?", "!"))


def _flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InputError("must be true or false", field=f"protocol.{field}")
    return value


@dataclass(frozen=True)
class Protocol:
    """How an assignment's items are asked (see the module docstring)."""

    idk: bool = True
    shots: int = 0  # demonstrations before each question, for models; students get none
    two_pass: bool = False
    instruction: Instruction = "standard"
    recorded: bool = True  # False: derived for an assignment made before protocols were stored

    def __post_init__(self) -> None:
        if self.shots < 0:
            raise InputError("must be 0 or more", field="protocol.shots")
        if self.two_pass and not self.idk:
            raise InputError(
                'a two-pass assignment offers "I do not know" in pass 1', field="protocol.idk"
            )
        if self.instruction not in _INSTRUCTION_NAMES:
            raise InputError(
                f"unknown instruction {self.instruction!r}", field="protocol.instruction"
            )

    # ----------------------------------------------------------------------------------------
    # What it offers

    def statement_choices(self) -> tuple[str, ...]:
        """The answers a true/false statement offers: True, False (and "I do not know")."""
        return (TRUE_WORD, FALSE_WORD, I_DO_NOT_KNOW) if self.idk else (TRUE_WORD, FALSE_WORD)

    def choices(self, item: AnyItem) -> tuple[str, ...]:
        """The answers ``item`` offers under this protocol (none for an open recall question)."""
        if isinstance(item, RecallItem):
            return ()
        if isinstance(item, ChoiceItem):
            return item.offered_options(self.idk)
        return self.statement_choices()

    def check_items(self, items: Sequence[AnyItem]) -> None:
        """:class:`InputError` when an item cannot be asked under this protocol: a question with
        an "I do not know" option of its own when the protocol offers none."""
        if self.idk:
            return
        for item in items:
            if isinstance(item, ChoiceItem) and item.has_idk:
                raise InputError(
                    f'item {item.id} has an "I do not know" option of its own, which an '
                    'assignment without "I do not know" cannot offer',
                    field="--no-idk",
                    hint='leave out --no-idk, or use questions without an "I do not know" option',
                )

    def options_text(self) -> str:
        """The answer options in words, e.g. 'True / False / "I do not know"'."""
        if self.idk:
            return f'True / False / "{I_DO_NOT_KNOW}" (multiple choice: the options and it)'
        return f'True / False, no "{I_DO_NOT_KNOW}" (multiple choice: the options only)'

    def instruction_name(self) -> str:
        """The instruction in words, e.g. "the PretexEval question"."""
        return _INSTRUCTION_NAMES[self.instruction]

    def instruction_texts(self) -> dict[str, str]:
        """The instruction of each kind of question, as the model reads it."""
        if self.instruction == "sdak":
            return {"statement": "SDAK: Correct or Incorrect first, then the reason"}
        return {
            "statement": statement_template(self.idk),
            "choice": "{question} with lettered options. " + CHOICE_REQUEST,
            "recall": "{question} " + RECALL_REQUEST,
        }

    def describe(self) -> str:
        """One line an instructor reads: options, instruction, examples, passes."""
        shots = (
            "no worked examples (students get none either)"
            if self.shots == 0
            else f"{self.shots} worked example(s) per question for models (students get none)"
        )
        passes = (
            "two passes (pass 2: a forced guess on the abstentions)"
            if self.two_pass
            else ("one pass")
        )
        return (
            f"answers {self.options_text()}; {_INSTRUCTION_NAMES[self.instruction]}; "
            f"{shots}; {passes}"
        )

    def differences(self, other: Protocol) -> list[str]:
        """How ``other`` (a respondent's) differs from this (the assignment's), in words."""
        found: list[str] = []
        if other.idk != self.idk:
            found.append(
                f'answers offered: {"with" if other.idk else "without"} "I do not know"; the '
                f"assignment's are {'with' if self.idk else 'without'} it"
            )
        if other.instruction != self.instruction:
            found.append(
                f"asked with {_INSTRUCTION_NAMES[other.instruction]}; the assignment uses "
                f"{_INSTRUCTION_NAMES[self.instruction]}"
            )
        if other.shots != self.shots:
            found.append(
                f"{other.shots} worked example(s) per question; the assignment's protocol has "
                f"{self.shots}"
            )
        if other.two_pass != self.two_pass:
            found.append(
                f"{'two passes' if other.two_pass else 'one pass'}; the assignment has "
                f"{'two' if self.two_pass else 'one'}"
            )
        return found

    # ----------------------------------------------------------------------------------------
    # Stored form

    def as_json(self) -> dict[str, Any]:
        """The stored form, with the instruction texts and a readable summary."""
        return {
            "version": PROTOCOL_VERSION,
            "idk": self.idk,
            "shots": self.shots,
            "two_pass": self.two_pass,
            "instruction": self.instruction,
            "instruction_texts": self.instruction_texts(),
            "recorded": self.recorded,
            "summary": self.describe(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Protocol:
        """A stored protocol; :class:`InputError` naming the field when it is malformed."""
        shots = data.get("shots", 0)
        if not isinstance(shots, int) or isinstance(shots, bool) or not 0 <= shots <= MAX_SHOTS:
            raise InputError(
                f"must be a whole number from 0 to {MAX_SHOTS}", field="protocol.shots"
            )
        instruction = data.get("instruction", "standard")
        if instruction not in _INSTRUCTION_NAMES:
            raise InputError(f"unknown instruction {instruction!r}", field="protocol.instruction")
        return cls(
            idk=_flag(data.get("idk", True), "idk"),
            shots=shots,
            two_pass=_flag(data.get("two_pass", False), "two_pass"),
            instruction="sdak" if instruction == "sdak" else "standard",
            recorded=_flag(data.get("recorded", True), "recorded"),
        )

    @classmethod
    def of_assignment(cls, config: Mapping[str, Any]) -> Protocol:
        """An assignment's protocol from its config; for one made before protocols were stored,
        the one its students had ("I do not know" offered, no examples; open recall: none to
        offer)."""
        stored = config.get("protocol")
        if isinstance(stored, Mapping):
            return cls.from_json(stored)
        recall = config.get("format") == "recall"
        return cls(
            idk=not recall,
            shots=0,
            two_pass=bool(config.get("two_pass", False)),
            recorded=False,
        )

    @classmethod
    def of_run(cls, config: Mapping[str, Any]) -> Protocol:
        """The protocol a model's run was asked under, read from its stored config (``idk``,
        ``shots``, ``prompt``; ``pass`` 1 or 2 on a two-pass assignment's runs)."""
        shots = config.get("shots", 0)
        return cls(
            idk=bool(config.get("idk", False)) or config.get("pass") in (1, 2),
            shots=shots if isinstance(shots, int) and shots >= 0 else 0,
            two_pass=config.get("pass") in (1, 2),
            instruction="sdak" if config.get("prompt") == "sdak" else "standard",
        )
