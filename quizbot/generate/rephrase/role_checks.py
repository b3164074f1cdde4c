"""The role checks of the rephrasing validator: head and tail keep who plays which role.

:func:`check_roles` compares the order of the two entities with the predicate's voice, the
owner of a relational noun, the kinds the surrounding words give each entity and the words that
introduce it; :func:`check_types` catches a type label ("the disease", "[Y] gene") moved to the
other entity and :func:`check_condition` a conditional whose condition now names the other
entity. See :mod:`~quizbot.generate.rephrase.validator` for the whole list of checks.
"""

from __future__ import annotations

import re

from quizbot.generate.rephrase.claims import (
    NEGATION,
)
from quizbot.generate.rephrase.direction import direction_kept
from quizbot.generate.rephrase.labels import unlabelled
from quizbot.generate.rephrase.possession import names_a_place, possessor
from quizbot.generate.rephrase.reading import (
    CLAUSE_BREAK,
    MASK,
    RIGHT_WORD,
    WORD,
    Context,
    Reading,
    Verdict,
    reject,
)
from quizbot.generate.rephrase.relational import owner_role, player, read_relation
from quizbot.generate.rephrase.roles import kinds_before, role_kept, role_swap
from quizbot.generate.wording import (
    FUNCTION_WORDS,
    TYPE_NOUNS,
    PredicateReading,
    family_allowed,
    predicate_reading,
    stem,
)

__all__ = ["check_condition", "check_roles", "check_types"]


def _kinds(reading: Reading, key: str) -> set[str]:
    """What the words around the entity's first mention call it (see :mod:`.roles`)."""
    start, stop = reading.found[key][0]
    before = reading.masked[:start].rsplit(MASK, 1)[-1]
    return kinds_before(before, reading.masked[stop:])


def check_roles(orig: Reading, cand: Reading, context: Context) -> Verdict | None:
    """Head and tail keep their roles.

    The order of the two entities may change only when the predicate between them says the
    roles are recoverable: both sentences read as the same predicate family
    (:func:`~quizbot.generate.wording.predicate_reading`) and the order changed exactly when the
    voice did ("X treats Y" / "Y is treated with X"), or the family is symmetric ("associated
    with"). With the same order, a reading whose voice flipped swaps the roles ("X is treated
    with Y"). Otherwise the old rule holds: same order. Last, a candidate may not give one
    entity the words the original used to introduce the other ("the gene [disease]"). Owner and
    predicate are read on the sentences of :func:`~.labels.unlabelled` (kind labels left out,
    possessives as of-phrases, a fronted phrase put back), the kinds with possessives only.
    """
    head, tail = context.keys
    if head == tail:
        return None
    place = names_a_place(orig.masked) or names_a_place(cand.masked)
    plain = unlabelled(orig), unlabelled(cand)  # "the gene product [X]" read as "[X]"
    owners = (_owner(plain[0], context.keys, place), _owner(plain[1], context.keys, place))
    if None not in owners:
        if owners[0] != owners[1]:
            return reject("roles swapped", "the relation now belongs to the other entity")
        return None  # "[X] is the morphology of [Y]" / "The morphology of [Y] is [X]"
    ofs = unlabelled(orig, labels=False), unlabelled(cand, labels=False)  # "[B]'s N": "N of [B]"
    kinds = (
        (_kinds(ofs[0], head), _kinds(ofs[0], tail)),
        (_kinds(ofs[1], head), _kinds(ofs[1], tail)),
    )
    kind = role_swap(*kinds)
    if kind is not None:
        return reject("roles swapped", f"the candidate gives the other entity the {kind} role")
    was, orig_first = _relation(plain[0], context.keys)
    now, cand_first = _relation(plain[1], context.keys)
    swapped = orig_first != cand_first
    wholes = (player(was, _order(orig_first, context.keys), *owner_role(cand.masked)), owners[1])
    if None in wholes:
        role = owner_role(orig.masked)
        wholes = (owners[0], player(now, _order(cand_first, context.keys), *role))
    if None not in wholes and wholes[0] != wholes[1]:
        return reject("roles swapped", "the owner's role is now the other entity's")
    weaker = (
        now is not None
        and now.symmetric
        and (
            (was is not None and family_allowed(now.family, {was.family}))
            or (was is None and owners[0] is not None)  # "[X] is the morphology of [Y]"
        )
    )
    if weaker or None not in wholes:
        pass  # "X is a feature of Y" -> "Y is associated with X": no roles left to swap
    elif was is not None and now is not None and was.family == now.family:
        if not was.symmetric and (was.flip != now.flip) != swapped:
            return reject(
                "roles swapped",
                f"{was.phrase!r} became {now.phrase!r} "
                + ("with head and tail swapped" if swapped else "with head and tail in place"),
            )
    elif (
        swapped
        and not _anchored_to_patient(orig, cand, context)
        and not direction_kept((orig.masked, orig.found), (cand.masked, cand.found))
        and not role_kept(*kinds)
    ):
        return reject("order swapped", "head and tail appear in the opposite order")
    elif (
        was is None
        and now is not None
        and not now.symmetric
        and not swapped
        and _patient_key(orig, orig, context) is not None
        and CLAUSE_BREAK.search(orig.between(head, tail))
        and not CLAUSE_BREAK.search(cand.between(head, tail))
        and _COPULA_AFTER.match(cand.between(head, tail))
    ):
        # "In a patient with [Y], [X] is the treatment": the patient clause names [Y], the
        # predicate applies to [X]; "A patient with [Y] is the treatment for [X]" makes [Y]
        # its subject (not "Individuals affected by [Y] exhibit [X]": the person acts).
        return reject("roles swapped", f"{now.phrase!r} now has the patient's entity first")
    bare = None
    if (weaker or swapped) and all(
        _type_nouns(cand, key) <= _type_nouns(orig, key) for key in context.keys
    ):
        bare = _bare_symmetric(cand.between(head, tail))
    for this, other in ((head, tail), (tail, head)):
        frame = cand.frame(this)
        if (
            frame
            and _stems(frame) == _stems(orig.frame(other))
            and _stems(frame) != _stems(orig.frame(this))
            and any(w not in FUNCTION_WORDS for w in frame)
            and not (bare and set(frame) <= bare)
        ):
            return reject(
                "roles swapped",
                f"{' '.join(frame)!r} now introduces the other entity",
            )
    return None


def _relation(reading: Reading, keys: tuple[str, str]) -> tuple[PredicateReading | None, bool]:
    """The sentence's predicate (:func:`.relational.read_relation`) and whether it reads the
    head first."""
    head, tail = keys
    found, reverse = read_relation(reading.between(head, tail), reading.after(head, tail))
    return found, (reading.found[head][0] < reading.found[tail][0]) != reverse


def _order(head_first: bool, keys: tuple[str, str]) -> tuple[str, str]:
    return keys if head_first else (keys[1], keys[0])


def _stems(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(stem(w) for w in words)


_CONDITION_LEAD = re.compile(
    r"^\s*(?:if|when|whenever|once|having|taking|in)\b"
    r"|\b(?:patients?|individuals?|persons?|people|someone|anyone|subjects?|those)\b"
    # the person is qualified by the condition ("Patients with [Y]"), not the subject of the
    # claim ("Patients can treat [Y] by ...")
    r"(?!\s+(?:can|could|may|might|will|would|should|must|do|does|are|is)\b)",
    re.IGNORECASE,
)


_LATE_IF = re.compile(r"\b(?:if|when|whenever|once|provided)\b", re.IGNORECASE)
# a person qualified by the second entity, after the first: "... in patients with [Y]",
# "... for someone who takes [Y]"
_LATE_PERSON = re.compile(
    r"\b(?:patients?|individuals?|persons?|people|someone|somebody|anyone|those|subjects?)\s+"
    r"(?:who|that|with|taking|having|receiving|on)\b[^,;:.]*$",
    re.IGNORECASE,
)
# A word of evidence after the first entity makes it the condition: "[A] may indicate that a
# patient has [B]", "[A] is a marker of [B]" say "if [A], then [B]"
_EVIDENCE = re.compile(
    r"^[^,;:]*?\b(?:indicat(?:e|es|ing)|suggest(?:s|ing)?|signal(?:s|ling|ing)?|predict(?:s|ing)?"
    r"|impl(?:y|ies|ying)|signif(?:y|ies|ying)|point(?:s|ing)?\s+to|herald(?:s|ing)?"
    r"|(?:sign|marker|indicator|predictor)s?\s+of|(?:indicative|suggestive|predictive)\s+of)\b",
    re.IGNORECASE,
)


def _condition(reading: Reading, keys: tuple[str, str]) -> str | None:
    """The entity of a conditional sentence's condition: the first one, when the sentence opens
    with "If"/"When"/"Having" or a person ("A patient that has [Y] ...", "Patients with [Y]"),
    or says the first is evidence of the second ("[Y] may indicate [X]"); else None."""
    first = min(keys, key=lambda key: reading.found[key][0])
    lead = CLAUSE_BREAK.split(reading.masked[: reading.found[first][0][0]])[0]
    if _LATE_IF.search(reading.masked[reading.found[first][0][1] :]):
        return None  # "Patients may have [X] if they take [Y]": the condition comes last
    if _EVIDENCE.match(reading.between(*keys)):
        return first  # "Lesions in [A] may indicate [B]": "if [A], then [B]"
    if _CONDITION_LEAD.search(lead):
        return first
    second = max(keys, key=lambda key: reading.found[key][0])
    between = reading.masked[reading.found[first][0][1] : reading.found[second][0][0]]
    # "There is no need to [X] for someone who takes [Y]": the person qualified comes last
    return second if _LATE_PERSON.search(between) else None


# Nouns that label an entity's kind when written right next to it ("the disease [X]", "[Y]
# gene", "[Y] molecular abnormality").
_LABELS = frozenset(
    stem(w)
    for w in (
        "gene",
        "product",
        "protein",
        "disease",
        "disorder",
        "abnormality",
        "cell",
        "tissue",
        "anatomy",
        "site",
        "process",
        "structure",
        "morphology",
        "drug",
        "medication",
        "finding",
        "phenotype",
    )
)


_TWO_RIGHT = re.compile(r"^ ([^\W\d_][\w'’-]*)(?: ([^\W\d_][\w'’-]*))?")


def _near_types(reading: Reading, key: str) -> set[str]:
    """The labels right before the entity or right after it (past one modifier), stems."""
    frame = reading.frame(key)
    near = [frame[-1]] if frame else []
    right = _TWO_RIGHT.search(reading.masked[reading.found[key][0][1] :])
    if right is not None and right.group(1).lower() not in FUNCTION_WORDS:
        near += [w.lower() for w in right.groups() if w]
    complement = _COMPLEMENT.match(reading.masked[reading.found[key][0][1] :])
    if complement is not None:  # "[X] is (not) a molecular abnormality ..."
        words = [w.lower() for w in complement.groups() if w]
        near += words[1:] if words == ["gene", "product"] else words
    return {stem(w) for w in near if stem(w) in _LABELS}


def check_types(orig: Reading, cand: Reading, context: Context) -> Verdict | None:
    """A type noun the statement puts next to one entity only ("the disease [X]", "[Y] gene",
    "molecular abnormality [Y]") put next to the other one is a role swap ("the [Y]
    molecular abnormality ... [X]")."""
    for this, other in (context.keys, context.keys[::-1]):
        moved = (_near_types(cand, this) & _near_types(orig, other)) - _type_nouns(orig, this)
        if moved:
            return reject("roles swapped", f"{sorted(moved)[0]!r} now names the other entity")
    return None


def _cause(reading: Reading, keys: tuple[str, str], *, implied: bool) -> str | None:
    """The entity a sentence makes the cause: the cause of its causal predicate ("[A] leads to
    [B]", "[B] is attributed to [A]", "[B] ... because [A]"); with ``implied``, when it states
    no predicate, the condition of a conditional ("If [A] decreases, [B] may decrease": [A]'s
    change brings [B]'s). None when it says neither."""
    found, head_first = _relation(reading, keys)
    if found is not None and found.family == "cause":
        first, second = _order(head_first, keys)
        return first if found.flip == 0 else second
    return _condition(reading, keys) if implied and found is None else None


def check_cause(orig: Reading, cand: Reading, context: Context) -> Verdict | None:
    """A candidate that names a cause in words names the statement's: "Reduced [B] may lead to
    less [A]" is the converse of "If [A] decreases, [B] may decrease", and "[A] may be
    attributed to [B]" of "[B] may be caused by [A]"."""
    now = _cause(cand, context.keys, implied=False)
    was = _cause(orig, context.keys, implied=True)
    if was is not None and now is not None and was != now:
        return reject("roles swapped", "the cause is now the other entity")
    return None


def check_condition(orig: Reading, cand: Reading, context: Context) -> Verdict | None:
    """A conditional keeps its condition: "If a patient has lesions in [Y], then he/she suffers
    from [X]" is the converse of "If a patient suffers from [X], then he/she has lesions in
    [Y]", not a rewording of it."""
    was, now = _condition(orig, context.keys), _condition(cand, context.keys)
    if was is not None and now is not None and was != now:
        return reject("roles swapped", "the condition now names the other entity")
    return None


def _owner(reading: Reading, keys: tuple[str, str], place: bool = False) -> str | None:
    """The key of the entity owning the sentence's relational noun (see :mod:`.possession`)."""
    spans = sorted((reading.found[key][0], key) for key in keys)
    which = possessor(reading.masked, spans[0][0], spans[1][0], place=place)
    return None if which is None else spans[which][1]


# The moved entity must still be described ("[X] is the first-line treatment for ..."), not
# made to act ("[X] affects a patient with ...") or be acted on ("[X] is treated with ...").
_COPULA_AFTER = re.compile(r"^\s*(?:is|are)\b", re.IGNORECASE)


_AGENT = re.compile(
    r"\b(?:is|are)\s+(?:(?:not|\w+ly)\s+)*\w+(?:ed|en)\s+(?:by|with|using|through|via)\b"
    r"|\b(?:by|with|using|through|via)\s+(?:(?:a|an|the)\s+)?$",
    re.IGNORECASE,
)


def _patient_key(orig: Reading, cand: Reading, context: Context) -> str | None:
    """The entity tied to the patient in both sentences by the same words, coming first in
    the original, while the other entity is not tied to the patient ("In a patient with [Y],
    [X] ..." / "... for a patient with [Y]"); else None."""
    for this, other in (context.keys, context.keys[::-1]):
        anchor = orig.anchor(this)
        if (
            anchor is not None
            and orig.anchor(other) is None
            and cand.anchor(this) == anchor
            and cand.anchor(other) is None
            and orig.found[this][0] < orig.found[other][0]
        ):
            return this
    return None


def _anchored_to_patient(orig: Reading, cand: Reading, context: Context) -> bool:
    """Whether a change of order keeps the roles because the patient clause names the same
    entity in both sentences: "In a patient with [Y], [X] is the first-line treatment" / "[X] is
    the first-line treatment for a patient with [Y]". The moved entity must still be described
    by a complement ("[X] is ..."), not made to act ("[X] affects a patient with [Y]") or be
    acted on ("[X] is treated with ..."); the predicate itself is checked elsewhere.
    """
    this = _patient_key(orig, cand, context)
    if this is None:
        return False
    other = context.keys[1] if this == context.keys[0] else context.keys[0]
    between = cand.between(this, other)
    person = max(between.lower().rfind(w) for w in ("patient", "person", "individual"))
    described = between[:person] if person >= 0 else between
    return bool(
        _COPULA_AFTER.match(orig.masked[orig.found[other][0][1] :])
        and _COPULA_AFTER.match(described)
        and not _AGENT.search(described)
    )


# "[X] is (not) a molecular abnormality": the complement's first two words, unless they label
# the entity that follows ("is not the anatomy [Y]")
_COMPLEMENT = re.compile(  # or set off: "[X], a molecular abnormality, ..."
    r"^\s*(?:(?:is|are)\s+(?:not\s+)?|,\s*(?=(?:a|an|the)(?:\s+[^\W\d_][\w'’-]*){1,3}\s*,))"
    r"(?:(?:a|an|the)\s+)?"
    r"([^\W\d_][\w'’-]*+)(?:\s+([^\W\d_][\w'’-]*+))?(?!\s*\x1a)",
    re.I,
)


def _type_nouns(reading: Reading, key: str) -> set[str]:
    """The generic type nouns the sentence gives the entity (stems): right before it ("the
    gene HTT"), right after it ("the HTT gene") or as its complement ("HTT is a gene")."""
    stop = reading.found[key][0][1]
    near = list(reading.frame(key))
    if near and near[-1] in ("of", "for", "with", "in", "to", "by", "from"):
        near = []  # "the morphology of [Y]" relates [Y], it does not label it
    for found in (
        RIGHT_WORD.search(reading.masked[stop:]),
        _COMPLEMENT.match(reading.masked[stop:]),
    ):
        if found is not None:
            near += [w.lower() for w in found.groups() if w]
    if near[:2] == ["gene", "product"]:
        near = near[1:]  # "the gene product [X]" is a product, not a gene
    return {stem(w) for w in near if stem(w) in TYPE_NOUNS}


def _bare_symmetric(between: str) -> set[str] | None:
    """The words of a symmetric predicate phrase ("associated with") when nothing but function
    words and negation stands before it in ``between``; else None. Such a phrase introduces
    neither entity in a role of its own, so it may introduce the other one in a rewording
    ("[X] is not a gene associated with [Y]" / "[Y] is not associated with the [X] gene"), unlike
    "[Y] is not a gene associated with [X]", which calls [Y] a gene."""
    reading = predicate_reading(between)
    if reading is None or not reading.symmetric:
        return None
    lead = between[: between.lower().find(reading.phrase.lower())]
    if any(
        w.lower() not in FUNCTION_WORDS and not NEGATION.fullmatch(w) for w in WORD.findall(lead)
    ):
        return None
    return {w.lower() for w in WORD.findall(reading.phrase)}
