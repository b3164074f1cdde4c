"""Prompts for asking items of language models: the PretexEval format, zero- and k-shot.

A true/false statement is asked in the PretexEval paper's words::

    <statement>, is the statement above true or false? Please answer True or False.

The statement's text is kept verbatim. One that ends a sentence is followed by the question as a
sentence of its own ("... blood pressure. Is the statement above ..."), so the prompt never reads
"pressure., is"; one without a closing period keeps the paper's comma (:func:`statement_question`).
Keeping the text verbatim also lets an oracle server find the item in the prompt. A
multiple-choice item lists its lettered options (generated ones end with "I do not know";
imported ones may not, and ``idk`` then adds it) and asks for the letters of the correct ones.
The wordings and the answers each offers come from :mod:`quizbot.generate.protocol`, the one
place that also tells the practice page what students are offered.

Two styles carry the same content:

* ``completion``, for base models (e.g. Gemma 3 270M): plain few-shot text, one block per
  demonstration (question, then ``Answer: True``), blank lines between, ending with the question
  and ``Answer:`` for the model to continue. ``messages`` holds that text as one user message.
* ``chat``, for instruction-tuned models: alternating user/assistant messages, one pair per
  demonstration, then the question as the last user message. ``text`` lays the same content out
  as completion blocks without the final ``Answer:`` cue (for logging and caching).

Demonstrations are other items with their gold answers, drawn from a pool the caller keeps apart
from the evaluated set (:func:`select_demonstrations`): same relation and transform first, then
same relation, then any; labels balanced; ordered by hashing the seed with item ids, never by a
process-wide random state, so the same inputs give the same prompt byte for byte. Rendering uses
langchain-core templates; nothing here touches the network or a model.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from quizbot.generate.protocol import (
    CHOICE_REQUEST,
    RECALL_REQUEST,
    ends_sentence,
    statement_template,
)
from quizbot.items import ChoiceItem, RecallItem, StatementItem

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage
    from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

__all__ = [
    "ANSWER_CUE",
    "CHOICE_INSTRUCTION",
    "CHOICE_TEMPLATE",
    "DEFAULT_K",
    "EXAMPLE_SEPARATOR",
    "FALSE_ANSWER",
    "RECALL_INSTRUCTION",
    "SDAK_TEMPLATE",
    "STATEMENT_IDK_TEMPLATE",
    "STATEMENT_TEMPLATE",
    "STYLES",
    "TRUE_ANSWER",
    "Item",
    "Prompt",
    "Style",
    "build_prompt",
    "build_prompts",
    "prompt_key",
    "select_demonstrations",
    "statement_question",
]

Item = StatementItem | ChoiceItem | RecallItem
Style = Literal["completion", "chat"]
STYLES: tuple[Style, ...] = ("completion", "chat")
DEFAULT_K = 5

# The PretexEval question after a statement that ends a sentence; ``{statement}`` is the item text
# verbatim. A statement without a closing period is asked with the paper's comma form instead.
STATEMENT_TEMPLATE = statement_template(idk=False)
# The same question when the model may decline ("idk" setting).
STATEMENT_IDK_TEMPLATE = statement_template(idk=True)
_CLAUSE_TEMPLATE = statement_template(idk=False, sentence=False)
_CLAUSE_IDK_TEMPLATE = statement_template(idk=True, sentence=False)
# The second pass of a two-pass assignment (EBMQA): the model must commit to an answer.
FORCED_INSTRUCTION = (
    "You must choose an answer: if you are not sure, give your best guess; "
    "do not answer I do not know."
)
# The SDAK question (self-diagnostic atomic knowledge): a verdict word first, then the reason,
# so instruction following and the reason can be read off the reply (see
# :func:`quizbot.evaluation.parse.parse_sdak`). Our own wording of the paper's request.
SDAK_TEMPLATE = (
    "Claim: {statement}\n"
    "Is this claim correct or incorrect? Reply with the single word Correct or Incorrect "
    "first, then give the reason for your verdict."
)
TRUE_ANSWER = "True"
FALSE_ANSWER = "False"

CHOICE_INSTRUCTION = CHOICE_REQUEST
CHOICE_TEMPLATE = "{question}\n{options}\n" + CHOICE_INSTRUCTION
OPTION_TEMPLATE = "{letter}. {option}"
OPTION_LETTERS = string.ascii_uppercase
ANSWER_KEY_SEPARATOR = ", "

# Open recall (MedDisKEval): the question, then how to lay the list out. Demonstrations answer
# with their gold list on one line, so a base model does the same (and stops at the newline).
RECALL_INSTRUCTION = RECALL_REQUEST
RECALL_TEMPLATE = "{question}\n" + RECALL_INSTRUCTION

# Completion layout: demonstration blocks, blank line between, the question, then the cue.
ANSWER_CUE = "Answer:"
EXAMPLE_TEMPLATE = "{question}\n" + ANSWER_CUE + " {answer}"
COMPLETION_SUFFIX = "{question}\n" + ANSWER_CUE
CHAT_TEXT_SUFFIX = "{question}"
EXAMPLE_SEPARATOR = "\n\n"

# Bump when the key's payload layout changes (cached model calls then miss, as they must).
PROMPT_KEY_VERSION = 1

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


@dataclass(frozen=True)
class _Templates:
    """The langchain-core templates every prompt is rendered with, built once (:func:`_templates`).

    Zero-shot prompts need no few-shot machinery: ``zero_shot_text`` and ``zero_shot_chat`` give
    the same text and messages as the few-shot templates with no examples, built once instead of
    per item (most of a run's CPU).
    """

    sdak: PromptTemplate
    choice: PromptTemplate
    recall: PromptTemplate
    option: PromptTemplate
    example: PromptTemplate
    chat_example: ChatPromptTemplate
    zero_shot_text: Mapping[str, PromptTemplate]
    zero_shot_chat: ChatPromptTemplate


@cache
def _templates() -> _Templates:
    """The templates, made on the first prompt: langchain-core takes about a second to import,
    which the web app's start and the CLI commands that build no prompt do not pay."""
    from langchain_core.prompts import (  # noqa: PLC0415 - heavy; only prompts need it
        ChatPromptTemplate,
        PromptTemplate,
    )

    return _Templates(
        sdak=PromptTemplate.from_template(SDAK_TEMPLATE),
        choice=PromptTemplate.from_template(CHOICE_TEMPLATE),
        recall=PromptTemplate.from_template(RECALL_TEMPLATE),
        option=PromptTemplate.from_template(OPTION_TEMPLATE),
        example=PromptTemplate.from_template(EXAMPLE_TEMPLATE),
        chat_example=ChatPromptTemplate.from_messages(
            [("human", "{question}"), ("ai", "{answer}")]
        ),
        zero_shot_text={
            "completion": PromptTemplate.from_template(COMPLETION_SUFFIX),
            "chat": PromptTemplate.from_template(CHAT_TEXT_SUFFIX),
        },
        zero_shot_chat=ChatPromptTemplate.from_messages([("human", "{question}")]),
    )


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: ``messages`` for chat APIs, ``text`` for completion APIs and logs.

    Both are always filled. In completion style ``messages`` is ``text`` as one user message; in
    chat style ``text`` is the messages' content as completion blocks (see the module docstring).
    """

    text: str
    messages: tuple[dict[str, str], ...]


def _rank(key: str, item_id: str) -> bytes:
    return hashlib.sha256(f"{key}\x1f{item_id}".encode()).digest()


def _tier(item: Item, candidate: Item) -> int:
    """0: same relation and transform (choice: subtype), 1: same relation, 2: anything else."""
    if candidate.relation != item.relation:
        return 2
    if isinstance(item, StatementItem) and isinstance(candidate, StatementItem):
        return 0 if candidate.transform is item.transform else 1
    if isinstance(item, ChoiceItem) and isinstance(candidate, ChoiceItem):
        return 0 if candidate.subtype == item.subtype else 1
    return 0 if isinstance(item, RecallItem) else 1


def _same_knowledge(item: Item, candidate: Item) -> bool:
    """True when ``candidate`` is about the same fact as ``item`` (it would give the answer away).

    Statements: the same KB fact (either side, any transform). Choice items: the same relation
    and head, or a shared knowledge point. Recall items: the same disease (any aspect), so
    demonstrations come from diseases outside the one asked.
    """
    if isinstance(item, RecallItem) and isinstance(candidate, RecallItem):
        return candidate.head == item.head
    if isinstance(item, StatementItem) and isinstance(candidate, StatementItem):
        return candidate.fact_id == item.fact_id or (
            candidate.knowledge_point_id == item.knowledge_point_id
        )
    if isinstance(item, ChoiceItem) and isinstance(candidate, ChoiceItem):
        return (candidate.kb, candidate.relation, candidate.head) == (
            item.kb,
            item.relation,
            item.head,
        ) or not set(candidate.knowledge_point_ids).isdisjoint(item.knowledge_point_ids)
    return False


def select_demonstrations(
    item: Item,
    pool: Iterable[Item],
    k: int = DEFAULT_K,
    seed: int | str = 0,
    exclude_ids: Collection[str] = (),
) -> tuple[Item, ...]:
    """Up to ``k`` demonstrations for ``item`` from ``pool``, deterministic for ``seed``.

    Skipped: items of the other kind, ``item`` itself, any id in ``exclude_ids`` (pass the
    evaluated set), duplicates, and items about the same fact as ``item``. Among the rest, those
    with the same relation and transform (choice items: subtype) come first, then the same
    relation, then any; within a tier the order is a hash of the seed, ``item``'s id and the
    candidate's id (so the pool's order does not matter, and each item gets its own draw).

    Statement demonstrations are balanced by label: ``k // 2`` of one and the rest of the other,
    which label gets the extra one for odd ``k`` also decided by the hash (k=5: 3/2 either way).
    Balance takes precedence over tier, and when one label runs short the other fills the gap.
    The chosen demonstrations are returned in a hashed order, so labels are not grouped.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if k == 0:
        return ()
    item_id = item.id
    key = f"{seed}\x1f{item_id}"
    excluded = set(exclude_ids)
    excluded.add(item_id)
    ranked: list[tuple[int, bytes, Item]] = []
    for candidate in pool:
        if type(candidate) is not type(item):
            continue
        candidate_id = candidate.id
        if candidate_id in excluded or _same_knowledge(item, candidate):
            continue
        excluded.add(candidate_id)  # skips later duplicates
        ranked.append((_tier(item, candidate), _rank(key, candidate_id), candidate))
    ranked.sort(key=lambda entry: entry[:2])
    ordered = [entry[2] for entry in ranked]

    if isinstance(item, StatementItem):
        trues = [c for c in ordered if isinstance(c, StatementItem) and c.label]
        falses = [c for c in ordered if isinstance(c, StatementItem) and not c.label]
        extra_to_true = _rank(key, "label-split")[0] & 1 == 1
        n_true = k // 2 + (k % 2 if extra_to_true else 0)
        n_true = min(n_true, len(trues))
        n_false = min(k - n_true, len(falses))
        n_true = min(k - n_false, len(trues))
        chosen: list[Item] = [*trues[:n_true], *falses[:n_false]]
    else:
        chosen = ordered[:k]
    order_key = f"{key}\x1forder"
    return tuple(sorted(chosen, key=lambda c: _rank(order_key, c.id)))


def _choice_question(item: ChoiceItem, *, idk: bool) -> str:
    options = item.offered_options(idk)
    if len(options) < 2:
        raise ValueError(f"choice item {item.id}: fewer than two options")
    if len(options) > len(OPTION_LETTERS):
        raise ValueError(f"choice item {item.id}: more than {len(OPTION_LETTERS)} options")
    lines = "\n".join(
        _templates().option.format(letter=letter, option=option)
        for letter, option in zip(OPTION_LETTERS, options, strict=False)
    )
    return _templates().choice.format(question=item.question, options=lines)


def statement_question(text: str, *, idk: bool) -> str:
    """A statement as asked: its text verbatim, then the PretexEval question (a sentence of its
    own after a closing period, else after a comma), then the answers offered."""
    if ends_sentence(text):
        template = STATEMENT_IDK_TEMPLATE if idk else STATEMENT_TEMPLATE
    else:
        template = _CLAUSE_IDK_TEMPLATE if idk else _CLAUSE_TEMPLATE
    return template.replace("{statement}", text.rstrip(), 1)


def _question(item: Item, *, idk: bool, forced: bool = False, sdak: bool = False) -> str:
    """The item as asked: the PretexEval sentence, the question with lettered options, or the
    recall question with its instruction.

    ``forced`` (a two-pass assignment's second pass) adds :data:`FORCED_INSTRUCTION`; ``sdak``
    asks a statement with :data:`SDAK_TEMPLATE` (verdict first, then the reason).
    """
    if sdak:
        if not isinstance(item, StatementItem):
            raise ValueError(f"the SDAK prompt asks statements only; {item.id} is a {item.kind}")
        return _templates().sdak.format(statement=item.text)
    if isinstance(item, ChoiceItem):
        asked = _choice_question(item, idk=idk and not forced)
    elif isinstance(item, RecallItem):
        asked = _templates().recall.format(question=item.question)
    else:
        asked = statement_question(item.text, idk=idk and not forced)
    return f"{asked} {FORCED_INSTRUCTION}" if forced else asked


def _answer(item: Item) -> str:
    """The gold answer as a model should give it: ``True``/``False``, letters ``A, C``, or the
    recall gold list on one line."""
    if isinstance(item, RecallItem):
        return ", ".join(item.answers)
    if isinstance(item, ChoiceItem):
        letters = OPTION_LETTERS[: len(item.options)]
        if not item.answer_keys or any(key not in letters for key in item.answer_keys):
            raise ValueError(f"choice item {item.id}: bad answer keys {item.answer_keys!r}")
        return ANSWER_KEY_SEPARATOR.join(item.answer_keys)
    return TRUE_ANSWER if item.label else FALSE_ANSWER


def _escape(value: str) -> str:
    """Protect braces: FewShotPromptTemplate re-parses the formatted examples as a template."""
    return value.replace("{", "{{").replace("}", "}}")


def _blocks(examples: Sequence[Mapping[str, str]], question: str, suffix: str) -> str:
    from langchain_core.prompts import FewShotPromptTemplate  # noqa: PLC0415 - see _templates

    template = FewShotPromptTemplate(
        examples=[{k: _escape(v) for k, v in example.items()} for example in examples],
        example_prompt=_templates().example,
        suffix=suffix,
        example_separator=EXAMPLE_SEPARATOR,
    )
    return template.format(question=question)


def _message(message: BaseMessage) -> dict[str, str]:
    content: Any = message.content
    if not isinstance(content, str):  # pragma: no cover - text templates give text content
        raise TypeError(f"unexpected non-text message content: {content!r}")
    return {"role": _ROLES[message.type], "content": content}


def build_prompt(
    item: Item,
    *,
    demonstrations: Sequence[Item] = (),
    idk: bool = False,
    style: Style = "completion",
    evaluated_ids: Collection[str] = (),
    forced: bool = False,
    sdak: bool = False,
) -> Prompt:
    """Render ``item`` as a prompt, zero-shot or with ``demonstrations`` (answers shown).

    ``idk`` asks a statement as "True, False or I do not know"; demonstrations keep the plain
    True/False wording (their answers are True or False). A choice item is asked with its own
    options; ``idk`` adds "I do not know" after them when it has none
    (:meth:`ChoiceItem.offered_options`), and generated items always end with it.
    ``forced`` asks for a guess (the second pass of a two-pass assignment): "I do not know" is
    not offered for a statement and :data:`FORCED_INSTRUCTION` is added to the question.
    ``sdak`` asks a statement the SDAK way (:data:`SDAK_TEMPLATE`), zero-shot only.

    Raises ValueError for an unknown style, a demonstration of the other kind, a demonstration
    that is ``item`` itself or whose id is in ``evaluated_ids`` (pass the evaluated set), or a
    malformed choice item.
    """
    if style not in STYLES:
        raise ValueError(f"unknown prompt style {style!r}; expected one of {STYLES}")
    for demo in demonstrations:
        if type(demo) is not type(item):
            raise ValueError(f"demonstration {demo.id} is a {demo.kind}, item is a {item.kind}")
        if demo.id == item.id or demo.id in evaluated_ids:
            raise ValueError(f"demonstration {demo.id} is in the evaluated set")
    if sdak and demonstrations:
        raise ValueError("the SDAK prompt is zero-shot: no demonstrations")
    question = _question(item, idk=idk, forced=forced, sdak=sdak)
    if not demonstrations:
        text = _templates().zero_shot_text[style].format(question=question)
        if style == "completion":
            return Prompt(text=text, messages=({"role": "user", "content": text},))
        chat_messages = _templates().zero_shot_chat.format_messages(question=question)
        return Prompt(text=text, messages=tuple(_message(m) for m in chat_messages))
    examples = [{"question": _question(d, idk=False), "answer": _answer(d)} for d in demonstrations]
    if style == "completion":
        text = _blocks(examples, question, COMPLETION_SUFFIX)
        return Prompt(text=text, messages=({"role": "user", "content": text},))
    from langchain_core.prompts import (  # noqa: PLC0415 - see _templates
        ChatPromptTemplate,
        FewShotChatMessagePromptTemplate,
    )

    chat = ChatPromptTemplate.from_messages(
        [
            FewShotChatMessagePromptTemplate(
                examples=examples, example_prompt=_templates().chat_example
            ),
            ("human", "{question}"),
        ]
    )
    messages = tuple(_message(m) for m in chat.format_messages(question=question))
    return Prompt(text=_blocks(examples, question, CHAT_TEXT_SUFFIX), messages=messages)


def build_prompts(
    items: Sequence[Item],
    pool: Sequence[Item],
    *,
    k: int = DEFAULT_K,
    seed: int | str = 0,
    idk: bool = False,
    style: Style = "completion",
) -> list[Prompt]:
    """Prompts for the evaluated ``items``, each with ``k`` demonstrations drawn from ``pool``.

    Pool items that are also evaluated are never used (see :func:`select_demonstrations`).
    """
    evaluated = {item.id for item in items}
    return [
        build_prompt(
            item,
            demonstrations=select_demonstrations(item, pool, k, seed, exclude_ids=evaluated),
            idk=idk,
            style=style,
            evaluated_ids=evaluated,
        )
        for item in items
    ]


def prompt_key(prompt: Prompt, settings: Mapping[str, Any]) -> str:
    """Stable sha256 hex of the prompt text and the call settings (model, temperature, ...).

    Settings are serialised as JSON with sorted keys, so their order does not matter; values must
    be JSON-serialisable (TypeError otherwise) so the key never depends on a ``repr``. The text
    determines the messages for either style, so it alone stands for the prompt.
    """
    payload = json.dumps(
        {"v": PROMPT_KEY_VERSION, "text": prompt.text, "settings": dict(settings)},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        allow_nan=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
