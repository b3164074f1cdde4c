"""An assignment's protocol: what it offers, how it is stored, how a run's is read back."""

from __future__ import annotations

import pytest

from quizbot.errors import InputError
from quizbot.evaluation.prompts import STATEMENT_IDK_TEMPLATE, STATEMENT_TEMPLATE
from quizbot.generate.protocol import Protocol, answer_request
from quizbot.items import ChoiceItem


def _choice(options: tuple[str, ...]) -> ChoiceItem:
    return ChoiceItem(
        kb="kb",
        kb_version="1",
        relation="has_symptom",
        head="Asthma",
        question="Which is a symptom of asthma?",
        options=options,
        answer_keys=("A",),
        subtype="semantic",
        knowledge_point_ids=("p1",),
    )


def test_the_prompt_templates_list_exactly_the_protocols_statement_choices() -> None:
    assert STATEMENT_IDK_TEMPLATE.endswith(answer_request(Protocol(idk=True).statement_choices()))
    assert STATEMENT_TEMPLATE.endswith(answer_request(Protocol(idk=False).statement_choices()))
    assert answer_request(("True", "False", "I do not know")) == (
        "Please answer True, False or I do not know."
    )


def test_choices_add_i_do_not_know_to_a_question_only_when_offered() -> None:
    plain = _choice(("Wheeze", "Rash"))
    assert Protocol(idk=True).choices(plain) == ("Wheeze", "Rash", "I do not know")
    assert Protocol(idk=False).choices(plain) == ("Wheeze", "Rash")


def test_a_question_with_its_own_i_do_not_know_cannot_go_without_one() -> None:
    own = _choice(("Wheeze", "Rash", "I do not know"))
    Protocol(idk=True).check_items([own])
    with pytest.raises(InputError) as caught:
        Protocol(idk=False).check_items([own])
    assert caught.value.field == "--no-idk"


def test_stored_form_round_trips_and_bad_fields_are_named() -> None:
    protocol = Protocol(idk=False, shots=3)
    stored = protocol.as_json()
    assert stored["summary"] == protocol.describe()
    assert "3 worked example(s)" in stored["summary"]
    assert Protocol.from_json(stored) == protocol
    with pytest.raises(InputError) as caught:
        Protocol.from_json({**stored, "shots": "three"})
    assert caught.value.field == "protocol.shots"
    with pytest.raises(InputError) as caught:
        Protocol.from_json({**stored, "idk": "yes"})
    assert caught.value.field == "protocol.idk"
    with pytest.raises(InputError):
        Protocol(idk=False, two_pass=True)


def test_an_assignment_made_before_protocols_gets_what_its_students_had() -> None:
    legacy = Protocol.of_assignment({"two_pass": True})
    assert (legacy.idk, legacy.shots, legacy.two_pass, legacy.recorded) == (True, 0, True, False)
    assert Protocol.of_assignment({"format": "recall"}).idk is False


def test_a_runs_protocol_is_read_from_its_config_and_differences_are_said() -> None:
    assignment = Protocol(idk=True)
    plain_run = Protocol.of_run({"idk": False, "shots": 0, "prompt": "standard"})
    assert assignment.differences(plain_run) == [
        'answers offered: without "I do not know"; the assignment\'s are with it'
    ]
    assert assignment.differences(Protocol.of_run({"idk": True, "shots": 0})) == []
    sdak = Protocol.of_run({"idk": False, "shots": 5, "prompt": "sdak"})
    said = " | ".join(Protocol(idk=False).differences(sdak))
    assert "SDAK" in said and "5 worked example(s)" in said
    pass_one = Protocol.of_run({"idk": False, "pass": 1})
    assert (pass_one.idk, pass_one.two_pass) == (True, True)
