"""During a session: the next question, a student's answer scored by the shared parser, and
the feedback that explains it (never the key before the answer)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from quizbot.domain import FlagState, ItemFlag, Outcome, RespondentKind, SessionStatus
from quizbot.errors import DuplicateError, InputError, NotFoundError
from quizbot.evaluation.parse import Parsed, parse_human, score
from quizbot.generate.choice import I_DO_NOT_KNOW
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem
from quizbot.practice import review_queue
from quizbot.practice.facts import (
    _entries,
    _view,
)
from quizbot.practice.topics import (
    _display_name,
    _topic_label,
)
from quizbot.practice.views import (
    _IDK_WORDS,
    _LETTERS,
    _QUESTION_ID,
    MAX_ANSWER_LENGTH,
    Explanation,
    Feedback,
    Item,
    Option,
    OptionNote,
    Question,
    SessionView,
)
from quizbot.practice.windows import check_window
from quizbot.transforms import Polarity, Transform, describe
from storage import Database
from storage.assignments import assignment_by_id
from storage.practice_queries import tail_heads
from storage.repo import NewResponse
from storage.review import create_flag, list_flags
from storage.sessions import (
    LoadedSession,
    abandon_if_active,
    load_session,
    point_tails,
    record_session_answer,
    session_respondent,
    set_session_status,
)


def session_view(db: Database, session_id: int) -> SessionView:
    """A session's current state (to resume it); :class:`NotFoundError` if there is none."""
    return _view(load_session(db, session_id))


def session_belongs_to(db: Database, session_id: int, student: str) -> bool:
    """Whether practice session ``session_id`` is the human ``student``'s (the pseudonym or
    account name as a session is started with: spacing and case do not matter). ``False`` for
    a session that does not exist or is a model's."""
    try:
        key = _display_name(student).casefold()
    except InputError:
        return False
    owner = session_respondent(db, session_id)
    return owner is not None and owner.kind == RespondentKind.HUMAN.value and owner.name == key


def leave_session(db: Database, session_id: int) -> bool:
    """End a session its tab leaves behind (another was started): ``abandoned`` if it was still
    active, as :func:`end_session` would make it, in one UPDATE and without reading it back (a
    session start does this, and every statement counts there). Returns whether it was active.
    """
    return abandon_if_active(db, session_id)


def end_session(db: Database, session_id: int) -> SessionView:
    """Stop a session early: it becomes ``abandoned`` and takes no more answers.

    A finished session stays finished; ending it is a no-op.
    """
    loaded = load_session(db, session_id)
    if loaded.session.status == SessionStatus.ACTIVE.value:
        set_session_status(db, session_id, SessionStatus.ABANDONED)
        loaded = load_session(db, session_id)
    return _view(loaded)


def _question_id(session_id: int, position: int) -> str:
    return f"s{session_id}q{position}"


def idk_offered(config: Mapping[str, Any]) -> bool:
    """Whether a session offers "I don't know": always, unless it is on an assignment whose
    protocol leaves it out (:class:`quizbot.generate.protocol.Protocol`, copied into the
    session's config when it starts)."""
    protocol = config.get("protocol")
    return not isinstance(protocol, Mapping) or protocol.get("idk", True) is not False


def _instructions(item: Item, idk: bool = True) -> tuple[str, list[str]]:
    if isinstance(item, ChoiceItem):
        letters = _LETTERS[: len(item.options)]
        return (
            "Type the letter of your answer (several letters if more than one is right, "
            + ("e.g. A,C), or choose the last option if you do not know." if idk else "e.g. A,C)."),
            list(letters),
        )
    if not idk:
        return (
            "Is this statement true or false? Type true or false (or t/f, yes/no).",
            ["True", "False"],
        )
    return (
        'Is this statement true or false? Type true or false (or t/f, yes/no), or "I don\'t know".',
        ["True", "False", _IDK_WORDS],
    )


def _question(loaded: LoadedSession, position: int, item: Item) -> Question:
    row = loaded.session
    assert row.id is not None
    entries = _entries(row.config)
    labels = row.config.get("labels", {})
    offered = idk_offered(row.config)
    instructions, replies = _instructions(item, offered)
    if isinstance(item, ChoiceItem):
        text = item.question
        options: list[Option] | None = [Option(_LETTERS[i], o) for i, o in enumerate(item.options)]
    else:
        text, options = item.text, None
    return Question(
        session_id=row.id,
        id=_question_id(row.id, position),
        position=position,
        total=len(entries),
        kind=item.kind,
        text=text,
        options=options,
        topic=_topic_label(labels, entries[position - 1]),
        instructions=instructions,
        quick_replies=replies,
        shown_at=datetime.now(UTC),
        idk=offered,
    )


def next_question(db: Database, session_id: int) -> Question | None:
    """The first unanswered question of an active session, or ``None`` when there is none left.

    :class:`NotFoundError` if the session does not exist.
    """
    return first_unanswered(db, load_session(db, session_id))


def first_unanswered(db: Database, loaded: LoadedSession) -> Question | None:
    """The first unanswered question of a loaded session; ``None`` if it is not active or
    every question is answered."""
    if loaded.session.status != SessionStatus.ACTIVE.value:
        return None
    answered = loaded.answered
    for position, entry in enumerate(_entries(loaded.session.config), start=1):
        if entry["id"] not in answered:
            item = load_items(db, [entry["id"]])[0]
            return _question(loaded, position, item)
    return None


def first_question(
    db: Database, loaded: LoadedSession, item: Item | None = None
) -> Question | None:
    """The first question of a session just recorded (``loaded``, no answers yet), as
    :func:`next_question` would read it back; ``item`` is its first item when already in
    memory (else it is read)."""
    if loaded.answers:
        return first_unanswered(db, loaded)
    entries = _entries(loaded.session.config)
    if loaded.session.status != SessionStatus.ACTIVE.value or not entries:
        return None
    if item is None or item.id != entries[0]["id"]:
        item = load_items(db, [entries[0]["id"]])[0]
    return _question(loaded, 1, item)


def _locate(loaded: LoadedSession, question_id: str) -> tuple[int, dict[str, Any]]:
    """(position, entry) of a question id or item id within the session."""
    row = loaded.session
    entries = _entries(row.config)
    match = _QUESTION_ID.fullmatch(question_id.strip())
    if match is not None:
        session_part, position = int(match.group(1)), int(match.group(2))
        if session_part == row.id and 1 <= position <= len(entries):
            return position, entries[position - 1]
    else:
        for position, entry in enumerate(entries, start=1):
            if entry["id"] == question_id:
                return position, entry
    raise NotFoundError(
        f"question {question_id!r} is not part of practice session {row.id}",
        hint="answer the question next_question returned for this session",
    )


def _words(item: Item, parsed_answer: str | None) -> str:
    """An answer ("true", "A,C", None for "I don't know") in words."""
    if parsed_answer is None or parsed_answer == "idk":
        return _IDK_WORDS
    if isinstance(item, ChoiceItem):
        shown = []
        for letter in parsed_answer.split(","):
            index = _LETTERS.find(letter.strip().upper())
            text = item.options[index] if 0 <= index < len(item.options) else "?"
            shown.append(f"{letter.strip().upper()}. {text}")
        return "; ".join(shown)
    return parsed_answer.capitalize()


def _key_words(item: Item) -> str:
    if isinstance(item, ChoiceItem):
        return _words(item, ",".join(item.answer_keys))
    return "True" if item.label else "False"


def _sentence(relation: str, head: str, tail: str, label: str) -> str:
    protos = default_prototypes()
    if protos.covers(relation):
        return protos.render(relation, Transform.NONE, head, tail)
    return f"{head[:1].upper()}{head[1:]} {label} {tail}."


def _option_notes(
    db: Database, kb_name: str, item: ChoiceItem, label: str, fact: str
) -> list[OptionNote]:
    """Every option but "I do not know": right or not, and what the KB says about it.

    A right option is the fact it stands for. A wrong one is "not listed for" the head, and,
    where the knowledge base lists it under the same relation for another head, that fact (so
    the student learns what the distractor really is).
    """
    shown = [(i, o) for i, o in enumerate(item.options) if o != I_DO_NOT_KNOW]
    if item.subtype == "frequency":  # the options are frequency bands, not tails
        keys = set(item.answer_keys)
        return [
            OptionNote(_LETTERS[i], o, _LETTERS[i] in keys, fact if _LETTERS[i] in keys else "")
            for i, o in shown
        ]
    wrong = [o for i, o in shown if _LETTERS[i] not in item.answer_keys]
    elsewhere = tail_heads(db, kb_name, item.relation, wrong) if wrong else {}
    notes: list[OptionNote] = []
    for i, option in shown:
        letter = _LETTERS[i]
        if letter in item.answer_keys:
            sentence = _sentence(item.relation, item.head, option, label)
            notes.append(OptionNote(letter, option, True, sentence))
            continue
        note = f"Not listed for {item.head}."
        heads = [h for h in elsewhere.get(option, []) if h != item.head]
        if heads:
            note += " " + _sentence(item.relation, heads[0], option, label)
            if len(heads) > 1:
                others = len(heads) - 1
                note = f"{note[:-1]} (and {others} other{'s' if others > 1 else ''})."
        notes.append(OptionNote(letter, option, False, note))
    return notes


def _explain(db: Database, loaded: LoadedSession, item: Item) -> Explanation:
    """The verdict and the reason in plain words; for multiple choice, every option's note.

    Statements, by which tail they name and whether the wording denies it:

    - the fact, affirmed (true): the fact;
    - the fact, denied (false): it denies a true fact, and the fact;
    - a substituted tail, affirmed (false): the KB does not list it, and what is true;
    - a substituted tail, denied (true): it denies something false, and what is true.

    The transform's name and the KB's full list stay in the fields, for a "details" view.
    """
    row = loaded.session
    label = str(row.config.get("relation_labels", {}).get(item.relation, item.relation))
    tails = point_tails(db, row.kb_name, item.relation, item.head)
    if isinstance(item, ChoiceItem):
        correct = [str(t) for t in item.meta.get("correct_tails", [])]
        tail = correct[0] if correct else (tails[0] if tails else "")
        if item.subtype == "frequency":
            band = str(item.meta.get("band", _key_words(item)))
            tail = str(item.meta.get("tail", tail))
            fact = f"{tail[:1].upper()}{tail[1:]} in {item.head}: {band}."
            patients = item.meta.get("patients")
            if isinstance(patients, str) and patients:  # e.g. "7/9 patients": what it rests on
                fact = f"{fact[:-1]} (reported in {patients})."
        else:
            fact = _sentence(item.relation, item.head, tail, label)
        notes = _option_notes(db, row.kb_name, item, label, fact)
        why = " ".join(f"{n.letter}: {n.note}" for n in notes if n.note)
        text = f"The right answer is {_key_words(item)}. {why}".strip()
        return Explanation(fact, item.head, label, tail, None, False, None, tails, text, why, notes)
    negative = item.polarity is Polarity.NEGATIVE
    true_tail = item.positive_tail if negative and item.positive_tail else item.tail
    fact = _sentence(item.relation, item.head, true_tail, label)
    negated = item.transform.negated
    verdict = "true" if item.label else "false"
    absent = f"the knowledge base does not list {item.tail} for {item.head} ({label})"
    if not negative:
        why = f"It denies a true fact: {fact}" if negated else fact
    elif negated:
        why = f"It denies something false: {absent}. What is true: {fact}"
    else:
        why = f"{absent[:1].upper()}{absent[1:]}. What is true: {fact}"
    return Explanation(
        fact=fact,
        head=item.head,
        relation=label,
        tail=true_tail,
        transform=describe(item.transform),
        negative=negative,
        substituted_tail=item.tail if negative else None,
        true_tails=tails,
        text=f"The statement is {verdict}: {why}",
        why=why,
    )


def _unreadable(item: Item, text: str, parsed: Parsed) -> InputError:
    if isinstance(item, ChoiceItem):
        hint = (
            f"type one or more of the letters {', '.join(_LETTERS[: len(item.options)])} "
            '(e.g. A or A,C), or "I don\'t know"'
        )
    else:
        hint = 'type true or false (t/f, yes/no), or "I don\'t know"'
    shown = text.strip()
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return InputError(f"could not read {shown!r} as an answer ({parsed.reason})", hint=hint)


def _time_taken(shown_at: datetime | None, now: datetime) -> float | None:
    """Milliseconds from the question being put out to its answer arriving; None if unknown."""
    if shown_at is None or shown_at.tzinfo is None:
        return None
    taken = (now - shown_at).total_seconds() * 1000.0
    return taken if taken >= 0 else None


def answer(
    db: Database,
    session_id: int,
    item_id: str,
    text: str,
    *,
    shown_at: datetime | None = None,
) -> Feedback:
    """Score what the student typed (or the button they pressed) and store it.

    See :func:`answer_loaded`, which also gives the session as it stands after the answer.
    """
    return answer_loaded(db, session_id, item_id, text, shown_at=shown_at)[0]


def answer_loaded(
    db: Database,
    session_id: int,
    item_id: str,
    text: str,
    *,
    shown_at: datetime | None = None,
) -> tuple[Feedback, LoadedSession]:
    """Score what the student typed (or the button they pressed) and store it; the feedback
    and the session after the answer (its answers read under the session's lock as the answer
    was stored, so the caller needs no second load: :func:`quizbot.practice.step.answer_and_next`).

    ``shown_at`` is the :attr:`Question.shown_at` of the question answered: the time taken
    (now minus it) is stored as the response's ``latency_ms``; without it none is stored.
    In a session on an assignment the assignment's window is checked first
    (:func:`quizbot.practice.windows.check_window`: no answer before it opens or once it has
    closed). In the second pass of a two-pass assignment ("forced") "I don't know" is refused.

    ``item_id`` is the :attr:`Question.id` (the item's id is accepted too). Input that cannot be
    read raises :class:`InputError` and stores nothing; a question of another session raises
    :class:`NotFoundError`; a second answer to a question raises :class:`DuplicateError` and
    changes nothing; a session that is no longer active raises :class:`InputError`. The session
    is marked finished with its last answer.
    """
    loaded = load_session(db, session_id)
    row = loaded.session
    assert row.id is not None
    position, entry = _locate(loaded, item_id)
    if entry["id"] in loaded.answered:
        raise DuplicateError(
            f"question {position} was already answered; the first answer stands",
            hint="go on to the next question",
        )
    if row.status != SessionStatus.ACTIVE.value:
        raise InputError(
            f"practice session {session_id} is {row.status}; it takes no more answers",
            hint="see its summary, or start a new session",
        )
    if row.assignment_id is not None:
        check_window(assignment_by_id(db, row.assignment_id), "answered")
    item = load_items(db, [entry["id"]])[0]
    if not isinstance(text, str) or not text.strip():
        raise _unreadable(item, "", Parsed(None, False, "empty"))
    if len(text) > MAX_ANSWER_LENGTH:
        raise InputError(
            f"the answer is longer than {MAX_ANSWER_LENGTH} characters",
            hint="type just the answer",
        )
    parsed = parse_human(text, item)
    outcome = score(item, parsed)
    if outcome is Outcome.UNPARSED:
        raise _unreadable(item, text, parsed)
    if parsed.abstained and not idk_offered(row.config):
        raise InputError(
            'this assignment does not offer "I don\'t know": its questions are answered without it',
            hint="answer true or false (or a letter)",
        )
    if parsed.abstained and row.config.get("forced"):
        raise InputError(
            "this is the second pass: please give your best guess",
            hint="answer true or false (or a letter); a guess counts only in the with-guessing "
            "figures",
        )
    stored_answer = "idk" if parsed.abstained else parsed.answer
    respondent_id = loaded.respondent.id
    assert respondent_id is not None
    recorded = record_session_answer(
        db,
        NewResponse(
            item_id=item.id,
            respondent_id=respondent_id,
            outcome=outcome,
            quiz_session_id=row.id,
            raw_text=text,
            parsed_answer=stored_answer,
            parse_reason=parsed.reason,
            latency_ms=_time_taken(shown_at, datetime.now(UTC)),
            answer_pass=answer_pass(row.config),
            # Stamped by the review queue's clock (QUIZBOT_CLOCK_FILE moves both), so the day
            # progress counts an answer on is the day its spaced review was taken.
            created_at=review_queue.now(),
        ),
        n_items=len(_entries(row.config)),
    )
    review_queue.record(db, respondent_id, recorded.response_id, item)  # FSRS cards
    after = LoadedSession(recorded.session, loaded.respondent, list(recorded.answers))
    second_pass_due = (
        row.config.get("two_pass")
        and answer_pass(row.config) == 1
        and (stored_answer == "idk" or any(a.parsed_answer == "idk" for a in loaded.answers))
    )
    if is_exam(row.config) and (not recorded.finished or second_pass_due):
        # An exam, like a model's run, gets no feedback until everything is answered.
        return withheld_feedback(
            row.id, _question_id(row.id, position), position, len(_entries(row.config)),
            _words(item, stored_answer), recorded.n_answered,
        ), after  # fmt: skip
    return Feedback(
        session_id=row.id,
        question_id=_question_id(row.id, position),
        position=position,
        total=len(_entries(row.config)),
        outcome=outcome.value,
        your_answer=_words(item, stored_answer),
        correct_answer=_key_words(item),
        explanation=_explain(db, loaded, item),
        answered=recorded.n_answered,
        finished=recorded.finished,
    ), after


WITHHELD = "withheld"  # the outcome shown for an exam answer before the exam is complete
_WITHHELD_TEXT = "This is an exam: the answers are shown once you have answered every question."


def answer_pass(config: Mapping[str, Any]) -> int | None:
    """The pass a session's answers belong to: 1 or 2 on a two-pass assignment, else None."""
    if not config.get("two_pass"):
        return None
    return 2 if config.get("pass") == 2 else 1


def is_exam(config: Mapping[str, Any]) -> bool:
    """Whether a session's config is an exam-mode assignment (no feedback until the end)."""
    return config.get("mode") == "exam"


def withheld_feedback(
    session_id: int, question_id: str, position: int, total: int, your_answer: str, answered: int
) -> Feedback:
    """The receipt an exam answer gets: stored, but no outcome, key or explanation."""
    return Feedback(
        session_id=session_id,
        question_id=question_id,
        position=position,
        total=total,
        outcome=WITHHELD,
        your_answer=your_answer,
        correct_answer="",
        explanation=Explanation("", "", "", "", None, False, None, [], _WITHHELD_TEXT),
        answered=answered,
        finished=False,
    )


# --------------------------------------------------------------------------------------------
# Summary


def flag(
    db: Database, session_id: int, question_id: str, reason: str, comment: str = ""
) -> ItemFlag:
    """Flag a question of this session that the student has answered, for a reviewer.

    ``question_id`` is the :attr:`Feedback.question_id` of the answer. A question not answered
    yet cannot be flagged (:class:`InputError`): a flag is about a question whose key the
    student has seen. A second open flag on the same question from the same session is refused
    (:class:`DuplicateError`). ``reason`` is one of :class:`~quizbot.domain.FlagReason`; the
    comment is optional, at most :data:`~quizbot.domain.MAX_FLAG_COMMENT` characters.
    """
    loaded = load_session(db, session_id)
    position, entry = _locate(loaded, question_id)
    item_id = entry["id"]
    if item_id not in loaded.answered:
        raise InputError(
            f"question {position} has not been answered yet",
            hint="answer it first; you can flag it once you have seen its answer",
        )
    for earlier in list_flags(db, state=FlagState.OPEN, item_id=item_id):
        if earlier.quiz_session_id == session_id:
            raise DuplicateError(
                f"question {position} is already flagged; a reviewer will look at it",
            )
    return create_flag(
        db, item_id=item_id, reason=reason, comment=comment, quiz_session_id=session_id
    )
