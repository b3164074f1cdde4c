"""Prompt builder: the PretexEval wording, k-shot demonstrations, chat/completion styles, keys."""

from __future__ import annotations

from collections import Counter

import pytest

from quizbot.evaluation.prompts import (
    STATEMENT_IDK_TEMPLATE,
    STATEMENT_TEMPLATE,
    STYLES,
    Item,
    build_prompt,
    build_prompts,
    prompt_key,
    select_demonstrations,
    statement_question,
)
from quizbot.generate.choice import I_DO_NOT_KNOW
from quizbot.generate.points import candidate_points
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.statements import plan_points, statements
from quizbot.items import ChoiceItem, StatementItem, StatementSide
from quizbot.kb.clinical import load_clinical_core
from quizbot.transforms import Polarity, Transform

TF = "is the statement above true or false? Please answer True or False."
TF_IDK = "is the statement above true or false? Please answer True, False or I do not know."
TF_SENTENCE = "Is the statement above true or false? Please answer True or False."
TF_IDK_SENTENCE = (
    "Is the statement above true or false? Please answer True, False or I do not know."
)
INSTRUCTION = (
    "Answer with the letter of the correct option; if more than one option is correct, "
    "give all their letters separated by commas."
)


def stmt(
    head: str,
    tail: str,
    *,
    relation: str = "treats",
    transform: Transform = Transform.NONE,
    label: bool = True,
    text: str | None = None,
) -> StatementItem:
    """A hand-made statement; polarity follows from label and transform as in the generator."""
    polarity = Polarity.POSITIVE if label != transform.negated else Polarity.NEGATIVE
    side = StatementSide("test-kb", "1", relation, head, tail, polarity, "hand@0")
    body = text if text is not None else f"{head} {relation} {tail} ({transform.value})."
    return StatementItem(side, transform, label, body, "hand")


def choice(head: str, answers: tuple[str, ...] = ("A",), relation: str = "treats") -> ChoiceItem:
    """A hand-made choice question with three options and "I do not know"."""
    return ChoiceItem(
        kb="test-kb",
        kb_version="1",
        relation=relation,
        head=head,
        question=f"Which drugs treat {head}?",
        options=(f"{head}-drug-1", f"{head}-drug-2", f"{head}-drug-3", I_DO_NOT_KNOW),
        answer_keys=answers,
        subtype="semantic",
        knowledge_point_ids=(f"kp:{head}",),
    )


def pool_for(item: StatementItem, per_tier: int = 20) -> list[StatementItem]:
    """Candidates in every tier, both labels, each about a fact of its own."""
    other = Transform.INS if item.transform is not Transform.INS else Transform.NONE
    pool: list[StatementItem] = []
    for i in range(per_tier):
        label = i % 2 == 0
        pool.append(stmt(f"t0h{i}", "x", transform=item.transform, label=label))
        pool.append(stmt(f"t1h{i}", "x", transform=other, label=label))
        pool.append(stmt(f"t2h{i}", "x", relation="causes", transform=item.transform, label=label))
    return pool


def _label(item: Item) -> bool:
    assert isinstance(item, StatementItem)
    return item.label


ASKED = stmt("Aspirin", "headache", transform=Transform.INV, text="Aspirin treats headache.")


# --- wording -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("The pancreas secretes insulin.", "The pancreas secretes insulin. " + TF_SENTENCE),
        ("The pancreas secretes insulin. ", "The pancreas secretes insulin. " + TF_SENTENCE),
        (
            'Statement: "X is the most likely occluded artery."',
            'Statement: "X is the most likely occluded artery." ' + TF_SENTENCE,
        ),
        ("Without a period", "Without a period, " + TF),
        ("An ellipsis...", "An ellipsis... " + TF_SENTENCE),
        ("A question?", "A question? " + TF_SENTENCE),
    ],
)
def test_a_statement_is_asked_verbatim_and_never_with_a_period_before_a_comma(
    text: str, asked: str
) -> None:
    assert statement_question(text, idk=False) == asked
    item = stmt("Aspirin", "headache", transform=Transform.INV, text=text)
    prompt = build_prompt(item, style="chat").text
    assert prompt == asked
    assert text.rstrip() in prompt  # an oracle server finds the item by its text
    assert "., " not in prompt


def test_templates_are_the_paper_question() -> None:
    assert STATEMENT_TEMPLATE == "{statement} " + TF_SENTENCE
    assert STATEMENT_IDK_TEMPLATE == "{statement} " + TF_IDK_SENTENCE
    assert statement_question("Aspirin treats headache", idk=True) == (
        "Aspirin treats headache, " + TF_IDK
    )


def test_zero_shot_is_the_paper_question_without_a_stray_period_before_a_comma() -> None:
    assert ASKED.text.endswith("headache.")
    sentence = "Aspirin treats headache. " + TF_SENTENCE
    chat = build_prompt(ASKED, style="chat")
    assert chat.text == sentence
    assert chat.messages == ({"role": "user", "content": sentence},)
    completion = build_prompt(ASKED)
    assert completion.text == sentence + "\nAnswer:"


def test_k_shot_completion_text_is_answered_blocks_then_the_question() -> None:
    demos = (
        stmt("Ibuprofen", "fever", text="Ibuprofen treats fever.", label=True),
        stmt("Insulin", "gout", text="Insulin treats gout.", label=False),
    )
    prompt = build_prompt(ASKED, demonstrations=demos)
    assert prompt.text == (
        f"Ibuprofen treats fever. {TF_SENTENCE}\nAnswer: True\n\n"
        f"Insulin treats gout. {TF_SENTENCE}\nAnswer: False\n\n"
        f"Aspirin treats headache. {TF_SENTENCE}\nAnswer:"
    )


def test_idk_changes_only_the_question_not_the_demonstrations() -> None:
    demo = stmt("Ibuprofen", "fever", text="Ibuprofen treats fever.")
    prompt = build_prompt(ASKED, demonstrations=(demo,), idk=True)
    assert prompt.text == (
        f"Ibuprofen treats fever. {TF_SENTENCE}\nAnswer: True\n\n"
        f"Aspirin treats headache. {TF_IDK_SENTENCE}\nAnswer:"
    )
    chat = build_prompt(ASKED, demonstrations=(demo,), idk=True, style="chat")
    assert [m["content"] for m in chat.messages] == [
        f"Ibuprofen treats fever. {TF_SENTENCE}",
        "True",
        f"Aspirin treats headache. {TF_IDK_SENTENCE}",
    ]


def test_braces_in_a_statement_are_kept_literally() -> None:
    demo = stmt("X", "y", text="Gene {BRCA1} variant causes {x}.")
    asked = stmt("Z", "w", text="Value {0} is {unknown}.")
    for style in STYLES:
        prompt = build_prompt(asked, demonstrations=(demo,), style=style)
        assert "Gene {BRCA1} variant causes {x}. Is" in prompt.text
        assert "Value {0} is {unknown}. Is" in prompt.text


# --- chat ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("idk", [False, True])
def test_chat_messages_carry_the_same_content_as_the_text(idk: bool) -> None:
    demos = select_demonstrations(ASKED, pool_for(ASKED), k=5, seed=3)
    chat = build_prompt(ASKED, demonstrations=demos, style="chat", idk=idk)
    completion = build_prompt(ASKED, demonstrations=demos, idk=idk)

    roles = [m["role"] for m in chat.messages]
    assert roles == ["user", "assistant"] * 5 + ["user"]
    pairs = zip(chat.messages[:-1:2], chat.messages[1::2], strict=True)
    rebuilt = [f"{u['content']}\nAnswer: {a['content']}" for u, a in pairs]
    rebuilt.append(chat.messages[-1]["content"])
    assert chat.text == "\n\n".join(rebuilt)
    assert completion.text == chat.text + "\nAnswer:"
    assert [a["content"] for a in chat.messages[1::2]] == [
        "True" if d.label else "False" for d in demos if isinstance(d, StatementItem)
    ]


# --- demonstrations ------------------------------------------------------------------------------


def test_k_shot_has_k_demonstrations_of_the_same_relation_and_transform() -> None:
    demos = select_demonstrations(ASKED, pool_for(ASKED), k=5, seed=0)
    assert len(demos) == 5
    assert all(isinstance(d, StatementItem) for d in demos)
    assert {(d.relation, d.transform) for d in demos if isinstance(d, StatementItem)} == {
        ("treats", Transform.INV)
    }
    assert build_prompt(ASKED, demonstrations=demos).text.count("\nAnswer: ") == 5


def test_preference_falls_back_to_same_relation_then_any() -> None:
    pool = [
        *(stmt(f"same{i}", "x", transform=Transform.INV, label=i % 2 == 0) for i in range(2)),
        *(stmt(f"rel{i}", "x", transform=Transform.DN, label=i % 2 == 0) for i in range(2)),
        *(stmt(f"any{i}", "x", relation="causes", label=i % 2 == 0) for i in range(10)),
    ]
    for seed in range(5):
        heads = {d.head for d in select_demonstrations(ASKED, pool, k=5, seed=seed)}
        assert {"same0", "same1", "rel0", "rel1"} <= heads
        assert len(heads) == 5 and len([h for h in heads if h.startswith("any")]) == 1


def test_demonstrations_never_come_from_the_evaluated_set() -> None:
    evaluated = [stmt(f"t0h{i}", "x", transform=Transform.INV, label=i % 2 == 0) for i in range(6)]
    pool = pool_for(ASKED, per_tier=6)  # the same t0h* items: the best candidates, all evaluated
    evaluated_ids = {e.id for e in evaluated} | {ASKED.id}
    assert evaluated_ids - {ASKED.id} <= {p.id for p in pool}
    for seed in range(10):
        demos = select_demonstrations(ASKED, [ASKED, *pool], 5, seed, exclude_ids=evaluated_ids)
        assert len(demos) == 5
        assert not {d.id for d in demos} & evaluated_ids

    with pytest.raises(ValueError, match="evaluated set"):
        build_prompt(ASKED, demonstrations=(evaluated[0],), evaluated_ids=evaluated_ids)
    with pytest.raises(ValueError, match="evaluated set"):
        build_prompt(ASKED, demonstrations=(ASKED,))


def test_build_prompts_skips_evaluated_items_in_the_pool() -> None:
    evaluated = [ASKED, stmt("t0h0", "x", transform=Transform.INV, text="EVALUATED.")]
    pool = [evaluated[1], *pool_for(ASKED, per_tier=4)]
    prompts = build_prompts(evaluated, pool, k=5, seed=1)
    assert len(prompts) == 2
    assert all(p.text.count("\nAnswer: ") == 5 for p in prompts)
    assert "EVALUATED, " not in prompts[0].text


def test_demonstrations_about_the_same_fact_are_skipped() -> None:
    same_fact = [
        stmt("Aspirin", "headache", transform=t, label=not t.negated, text=f"LEAK {t.value}.")
        for t in Transform
    ]
    demos = select_demonstrations(ASKED, [*same_fact, *pool_for(ASKED, per_tier=4)], k=5, seed=0)
    assert len(demos) == 5
    assert not any(d.head == "Aspirin" for d in demos)


@pytest.mark.parametrize("seed", range(8))
def test_labels_are_balanced_three_two_either_way(seed: int) -> None:
    demos = select_demonstrations(ASKED, pool_for(ASKED), k=5, seed=seed)
    trues = sum(1 for d in demos if isinstance(d, StatementItem) and d.label)
    assert trues in (2, 3)


def test_both_splits_occur_and_balance_beats_tier() -> None:
    splits = Counter(
        sum(1 for d in select_demonstrations(ASKED, pool_for(ASKED), 5, seed) if _label(d))
        for seed in range(20)
    )
    assert set(splits) == {2, 3}

    # Only true statements share the transform: falses come from the same relation instead.
    pool = [
        *(stmt(f"t0h{i}", "x", transform=Transform.INV, label=True) for i in range(6)),
        *(stmt(f"t1h{i}", "x", transform=Transform.NONE, label=False) for i in range(6)),
    ]
    demos = select_demonstrations(ASKED, pool, 5, seed=0)
    labels = Counter(d.label for d in demos if isinstance(d, StatementItem))
    assert sorted(labels.values()) == [2, 3]


def test_one_label_short_is_filled_with_the_other() -> None:
    pool = [
        stmt("f0", "x", transform=Transform.INV, label=False),
        *(stmt(f"t{i}", "x", transform=Transform.INV, label=True) for i in range(8)),
    ]
    demos = select_demonstrations(ASKED, pool, 5, seed=0)
    assert len(demos) == 5
    assert sum(1 for d in demos if isinstance(d, StatementItem) and not d.label) == 1


def test_selection_is_deterministic_per_seed_and_ignores_pool_order() -> None:
    pool = pool_for(ASKED)
    first = select_demonstrations(ASKED, pool, 5, seed=7)
    assert select_demonstrations(ASKED, pool, 5, seed=7) == first
    assert select_demonstrations(ASKED, list(reversed(pool)), 5, seed=7) == first
    assert select_demonstrations(ASKED, pool, 5, seed=8) != first
    assert select_demonstrations(ASKED, pool, 5, seed="7") == first  # the seed is hashed as text


def test_small_pools_and_bad_arguments() -> None:
    assert select_demonstrations(ASKED, pool_for(ASKED), k=0) == ()
    assert len(select_demonstrations(ASKED, pool_for(ASKED, per_tier=1), k=5)) == 3
    with pytest.raises(ValueError, match="k must be"):
        select_demonstrations(ASKED, [], k=-1)
    with pytest.raises(ValueError, match="style"):
        build_prompt(ASKED, style="raw")  # type: ignore[arg-type]


# --- multiple choice -----------------------------------------------------------------------------


def test_choice_prompt_lists_lettered_options_and_the_instruction() -> None:
    item = choice("gout")
    prompt = build_prompt(item)
    assert prompt.text == (
        "Which drugs treat gout?\nA. gout-drug-1\nB. gout-drug-2\nC. gout-drug-3\n"
        f"D. I do not know\n{INSTRUCTION}\nAnswer:"
    )
    chat = build_prompt(item, style="chat")
    assert chat.messages[-1]["content"] == prompt.text.removesuffix("\nAnswer:")


def test_choice_demonstrations_are_choice_items_with_their_letters() -> None:
    item = choice("gout")
    pool: list[Item] = [
        choice("asthma", ("A", "C")),
        choice("migraine", ("B",)),
        choice("gout", ("B",)),  # same question: skipped
        *pool_for(ASKED, per_tier=2),
    ]
    demos = select_demonstrations(item, pool, k=5, seed=0)
    assert {d.head for d in demos} == {"asthma", "migraine"}
    prompt = build_prompt(item, demonstrations=demos, style="chat")
    answers = sorted(m["content"] for m in prompt.messages if m["role"] == "assistant")
    assert answers == ["A, C", "B"]
    assert "\nAnswer: A, C\n\n" in build_prompt(item, demonstrations=demos).text

    with pytest.raises(ValueError, match="statement"):
        build_prompt(item, demonstrations=(ASKED,))
    bad = ChoiceItem("k", "1", "treats", "h", "Q?", ("a",), ("A",), "semantic", ("kp",))
    with pytest.raises(ValueError, match="fewer than two options"):
        build_prompt(bad)


# --- keys ----------------------------------------------------------------------------------------


def test_prompt_key_depends_on_text_and_settings_not_their_order() -> None:
    prompt = build_prompt(ASKED)
    settings = {"model": "gemma-3-270m", "temperature": 0.0, "max_tokens": 4}
    key = prompt_key(prompt, settings)
    assert len(key) == 64 and int(key, 16) >= 0
    assert prompt_key(build_prompt(ASKED), dict(reversed(settings.items()))) == key
    assert prompt_key(prompt, {**settings, "temperature": 0.7}) != key
    assert prompt_key(prompt, {**settings, "seed": 1}) != key
    assert prompt_key(build_prompt(ASKED, idk=True), settings) != key
    assert prompt_key(build_prompt(ASKED, style="chat"), settings) != key


# --- generated items -----------------------------------------------------------------------------


def test_generated_statements_get_k_shot_prompts_from_a_separate_pool() -> None:
    kb = load_clinical_core()
    items = list(statements(kb, plan_points(kb, candidate_points(kb)[:8]), default_prototypes()))
    evaluated, pool = items[:16], items[16:]  # the first point's 16 statements vs the rest
    prompts = build_prompts(evaluated, pool, k=5, seed=0)
    for item, prompt in zip(evaluated, prompts, strict=True):
        assert prompt.text.endswith(f"{statement_question(item.text, idk=False)}\nAnswer:")
        assert prompt.text.count("\nAnswer: ") == 5
        shown = prompt.text.split("\n\n")[:-1]
        assert not any(e.text in block for e in evaluated for block in shown)
