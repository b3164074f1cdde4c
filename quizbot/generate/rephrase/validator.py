"""Optional LLM rephrasing of instantiated statements, with a conservative validator.

PretexEval asks an LLM to *rephrase* each statement made from a prototype: same meaning, same
structure, new wording. A rephrasing is only used when :func:`validate_rephrasing` accepts it;
otherwise the prototype statement is kept. The validator is lexical, pure and deterministic. It
rejects a candidate (with a reason whose text before the first ``:`` is a stable category) when:

* it is not one plain sentence: empty, a newline, a question, several sentences, an echo of the
  prompt ("Sure, here is...", "Statement:"), or less than 0.5x / more than 2.5x the original's
  length. A leading label ("Rephrased:") and one pair of quotes around everything are stripped
  first (:func:`clean_candidate`), not rejected;
* it is the original again (``unchanged``: the same text up to spacing and a final full stop;
  a change of capitals alone is a rewording);
* the head or the tail is missing (``entity missing``) or appears more often than in the
  original (``entity duplicated``). An entity is found whatever its case, with or without
  articles, singular or plural (including -itis/-itides, -us/-i, -a/-ae) and under any listed
  synonym (``synonyms``); whole words only, so "FBN12" is not "FBN1";
* the roles changed (``roles swapped`` / ``order swapped``): head and tail may change places
  only when the predicate between them reads as the same family with its voice flipped ("X
  treats Y" / "Y is treated with X", "Y is a feature of X" / "X presents with Y", "X occurs
  after Y" / "Y precedes X", "Y is the site of origin of X" / "X originates in Y", "Y is a
  feature of X" / "X has Y as one of its features") or turns symmetric ("associated with");
  or when a patient clause names the same entity in both ("In a patient with Y, X is the
  treatment" / "X is the treatment for a patient with Y", X still described by "is ...").
  A same-order candidate whose voice flipped, one that makes the patient clause's entity the
  subject of a new predicate ("A patient with Y is the treatment for X"), or one that gives an
  entity the words that introduced the other ("the gene [disease]", "a patient with [drug]";
  a bare symmetric phrase such as "associated with" may move, a type noun may not) is a role
  swap;
* the negation parity differs (``negation flipped``; cues: :func:`negation_cues`) or the
  original's parity does not match ``negated`` (``negation unclear``);
* it adds a word that changes the claim's strength (``claim strength changed``): absolutes
  ("never", "only", "any patient"), frequency words, modals ("may", "can", "should") and hedges
  ("possible", "probably", "sometimes", "several") absent from the original, compared by degree
  ("can" for "may" is fine); or, in an affirmative statement, drops the original's "can"/"may";
* it brings in the opposite of an original word (``antonym``: prevent/cause, increase/decrease,
  presence/disappearance, treat/worsen, excess/deficiency, hyper-/hypo-, suitable/unsuitable,
  a negating un-/in-/non- prefix...);
* an entity is extended (``entity extended``): a new modifier right before it ("ATP
  hydrolysis" is not "hydrolysis") or a noun after it that names something else ("insulin
  receptor");
* it brings in a predicate of another family than the original's (``predicate changed``:
  treat, prevent, cause, feature, affect, associate, risk, inherit, encode, time, diagnose;
  a weaker claim such as "associated with" for "presents with" is allowed);
* it brings in a word that is none of: a word of the original (same stem), a function word, a
  neutral word, a predicate word the original allows, or a word on the same side of an antonym
  pair as an original word (``new content``: extra claims, qualifiers, swapped names).

The vocabulary (entity forms, predicate families, voice patterns, antonyms, neutral words)
lives in :mod:`quizbot.generate.wording`. ``tests/generate/data/rewordings.jsonl`` holds
hand-written faithful and corrupted rewordings; ``bench/bench_validator.py`` prints how many
of each the validator keeps and catches.

Residual risks (the validator is conservative: any doubt means the prototype statement is kept,
which is always correct, so false rejections only cost variety):

* the vocabulary is curated for our prototypes: a faithful rewording with a word it does not
  know is rejected (``new content``), and an opposite it does not list is only caught as new
  content if the word is unknown; a known neutral word used to change the meaning slips by;
* modality is compared by degree only: "could" for "can" is accepted, and a negated original
  may drop its modal ("cannot be" -> "is not"); a hedge outside the list is new content only
  if the word is unknown;
* negation by a word outside the cue lexicon ("X is contraindicated in Y") is not counted;
* the voice patterns read the first predicate phrase between the entities (and "as one of
  its features" after them) only; an unknown phrase falls back to "same order", which rejects
  many faithful reorderings;
* parity treats double negation as affirmation ("it is not true that X cannot ..."), which is
  right logically but may read differently;
* sentence splitting is heuristic (abbreviations such as "e.g." and single initials are allowed).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from quizbot.generate.wording import (
    CHANGING_HEADS,
    FUNCTION_WORDS,
    NEUTRAL_VERBS,
    NEUTRAL_WORDS,
    TYPE_NOUNS,
    antonym_clash,
    entity_regex,
    families_of,
    family_allowed,
    is_inheritance_mode,
    predicate_reading,
    same_side,
    stem,
)

__all__ = [
    "Synonyms",
    "Verdict",
    "clean_candidate",
    "judge",
    "negation_cues",
    "normalise",
    "validate_rephrasing",
]

# --------------------------------------------------------------------------------------------
# Validator
# --------------------------------------------------------------------------------------------

MIN_LENGTH_RATIO = 0.5
MAX_LENGTH_RATIO = 2.5


@dataclass(frozen=True, slots=True)
class Verdict:
    """The validator's decision. ``reason`` is ``"<category>: <detail>"`` when rejected."""

    ok: bool
    reason: str

    @property
    def category(self) -> str:
        """The stable part of ``reason`` (before the first colon), for counting rejections."""
        return self.reason.split(":", 1)[0].strip()


_ACCEPTED = Verdict(True, "accepted")

_SPACES = re.compile(r"\s+")
_LABEL = re.compile(
    r"^\s*(?:rephrased|rewritten|rewrite|reworded|restated|paraphrased?|answer|output)"
    r"(?:\s+(?:statement|sentence|version|text))?\s*:\s*",
    re.IGNORECASE,
)
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "`": "`"}
_ECHO_START = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|absolutely|here(?:'s|’s|\s+is|\s+are)|as an ai"
    r"|i\s+(?:cannot|can't|will|would|am|have))\b",
    re.IGNORECASE,
)
_ECHO_ANYWHERE = re.compile(
    r"\b(?:statement|rewritten|rephrased|paraphrased?|rewrite)\s*:", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"(\S*?)([.!?]+)[\"'”’)\]]*\s+(?=\S)")
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "etc",
        "vs",
        "approx",
        "cf",
        "dr",
        "st",
        "mr",
        "mrs",
        "ms",
        "no",
        "fig",
        "al",
        "spp",
        "sp",
        "var",
        "ssp",
        "incl",
        "resp",
        "ca",
        "mg",
        "ml",
    ]
)

_NEGATION = re.compile(
    r"""\b(?:
        not | no | never | cannot | none | nobody | nothing | nowhere | neither | nor | without
      | \w+n['’]t                                  # doesn't, can't, won't, isn't ...
      | fail(?:s|ed|ing)?\s+to
      | unable | impossible | incapable
      | lack(?:s|ed|ing)?
      | absent | absence
      | (?:free|devoid)\s+of
      | exclud(?:e|es|ed|ing)
      | rul(?:e|es|ed|ing)\s+out
      | unrelated | unassociated | unaffected | unlikely
      | rarely | seldom | hardly | barely | scarcely
      | non-\w+
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
_STRENGTH = re.compile(
    r"""\b(?:
        always | all | every | everyone | each | only | must | guarantee[sd]? | invariably
      | necessarily | certainly | definitely | undoubtedly | exclusively | solely | universally
      | never | ever | any
      | usually | typically | commonly | mostly | mainly | primarily | predominantly | often
      | frequently | generally
      | rarely | seldom | hardly | barely | scarcely | unlikely
      | should | ought
      | can | could | may | might | cannot | can['’]t | couldn['’]t | mightn['’]t
      | possibl[ey] | potential(?:ly)? | perhaps | conceivabl[ey] | plausibl[ey]
      | probabl[ey] | presumabl[ey] | likely | likelihood | occasional(?:ly)? | sometimes
      | some | several
      | certain
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
# Words of one degree of claim strength, compared as one: "can" for "may" is faithful, but a
# possibility modal or hedge where the original has none (or none left, in an affirmative
# original: "can cause" -> "causes") changes what is claimed.
_STRENGTH_CLASS = {
    **dict.fromkeys(
        ["can", "could", "may", "might", "cannot", "can't", "couldn't", "mightn't"], "<modal>"
    ),
    **dict.fromkeys(["possible", "possibly", "potential", "potentially", "perhaps"], "<possible>"),
    **dict.fromkeys(["conceivable", "conceivably", "plausible", "plausibly"], "<possible>"),
    **dict.fromkeys(["probable", "probably", "presumable", "presumably"], "<probable>"),
    **dict.fromkeys(["occasional", "occasionally", "sometimes"], "<sometimes>"),
    **dict.fromkeys(["likely", "likelihood"], "<likely>"),
    **dict.fromkeys(["must", "should", "ought"], "<obligation>"),
}
# "any" after a negation is a negative-polarity item ("cannot show any sign" = "shows no sign"),
# not the universal quantifier of "any patient acquires".
_ANY = "any"
_MASK = "\x1a"

Synonyms = Mapping[str, Sequence[str]]


def normalise(text: str) -> str:
    """``text`` in NFKC with runs of whitespace made one space, stripped."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def _names(entity: str, synonyms: Synonyms | None) -> tuple[str, ...]:
    """``entity`` and its listed synonyms (looked up as written, then case-folded)."""
    names = [entity]
    if synonyms:
        others = synonyms.get(entity)
        if others is None:
            folded = entity.casefold()
            others = next((v for k, v in synonyms.items() if k.casefold() == folded), ())
        names += [normalise(name) for name in others if normalise(name)]
    return tuple(dict.fromkeys(names))


def _mask_entities(
    text: str, entities: Mapping[str, tuple[str, ...]]
) -> tuple[str, dict[str, list[tuple[int, int]]]]:
    """Blank out every name of every entity, longest name first (so one inside another, such
    as a head inside a synonym of the tail, is not found twice).

    ``entities`` maps a key to the entity's names. Returns the masked text and, per key, the
    spans of its mentions in order.
    """
    names = sorted(
        ((key, name) for key, group in entities.items() for name in group),
        key=lambda kn: -len(kn[1]),
    )
    found: dict[str, list[tuple[int, int]]] = {key: [] for key in entities}
    for key, name in names:
        spans = [m.span() for m in entity_regex(name).finditer(text)]
        for start, stop in reversed(spans):
            text = text[:start] + _MASK * (stop - start) + text[stop:]
        found[key] += spans
    for spans in found.values():
        spans.sort()
    return text, found


def _plain_mask(mask: Iterable[str]) -> dict[str, tuple[str, ...]]:
    groups: dict[str, tuple[str, ...]] = {}
    for entity in mask:
        norm = normalise(entity)
        if norm:
            groups.setdefault(norm.casefold(), (norm,))
    return groups


def negation_cues(text: str, *, mask: Iterable[str] = ()) -> tuple[str, ...]:
    """The negation cues in ``text``, lower-cased, ignoring any inside the ``mask`` entities.

    "nor" only counts when no cue precedes it (so "neither ... nor" is one negation). An odd
    count means the sentence states a negation.
    """
    masked, _ = _mask_entities(normalise(text), _plain_mask(mask))
    cues: list[str] = []
    for match in _NEGATION.finditer(masked):
        cue = _SPACES.sub(" ", match.group(0).lower())
        if cue == "nor" and cues:
            continue
        cues.append(cue)
    return tuple(cues)


def _strength_words(masked: str) -> set[str]:
    """The claim-strength words of ``masked``, one key per degree (see ``_STRENGTH_CLASS``)."""
    found: set[str] = set()
    for match in _STRENGTH.finditer(masked):
        word = match.group(0).lower().replace("’", "'")
        before = masked[: match.start()]
        if word == _ANY and _NEGATION.search(before):
            continue
        if word == "should" and not before.rstrip(" ,;:").strip():
            continue  # sentence-initial "Should a patient have X, ...": a condition
        found.add(_STRENGTH_CLASS.get(word, word))
    return found


def _loose_quote(inner: str, quotes: set[str]) -> bool:
    """True if a quote character in ``inner`` is not an apostrophe between two letters."""
    for i, char in enumerate(inner):
        if char in quotes and not (
            0 < i < len(inner) - 1 and inner[i - 1].isalnum() and inner[i + 1].isalnum()
        ):
            return True
    return False


def _strip_quotes(text: str) -> str:
    if len(text) < 2 or text[0] not in _QUOTES:
        return text
    close = _QUOTES[text[0]]
    body, trail = text, ""
    if body[-1] in ".!?" and body[-2] == close:
        body, trail = body[:-1], body[-1]
    if len(body) < 2 or body[-1] != close:
        return text
    inner = body[1:-1]
    if _loose_quote(inner, {text[0], close}):
        return text  # quotes inside: not a single pair around everything
    inner = inner.strip()
    if trail and not inner.endswith((".", "!", "?")):
        inner += trail
    return inner


def clean_candidate(candidate: str) -> str:
    """Strip whitespace, one leading label ("Rephrased:") and one pair of wrapping quotes."""
    text = candidate.strip()
    text = _LABEL.sub("", text, count=1).strip()
    text = _strip_quotes(text)
    return re.sub(r"[ \t]+", " ", text).strip()


def validate_rephrasing(
    original: str,
    candidate: str,
    *,
    head: str,
    tail: str,
    negated: bool,
    synonyms: Mapping[str, Sequence[str]] | None = None,
) -> Verdict:
    """Whether ``candidate`` is a safe rephrasing of ``original`` (see the module docstring).

    ``head`` and ``tail`` are the entity names inserted into the prototype; ``negated`` is
    ``Transform.negated`` of the statement's variant (the sentence states a negation).
    ``synonyms`` maps an entity name to other names of the same entity (a KB's
    ``Lexicon.synonyms``); a candidate may use any of them in place of the name.
    """
    return judge(
        original,
        clean_candidate(candidate),
        head=head,
        tail=tail,
        negated=negated,
        synonyms=synonyms,
    )


def _reject(category: str, detail: str) -> Verdict:
    return Verdict(False, f"{category}: {detail}")


_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]]")


_PERSON_STEMS = frozenset(
    stem(w) for w in ["patient", "patients", "person", "people", "individual", "someone", "subject"]
)


@dataclass(frozen=True, slots=True)
class _Reading:
    """A sentence normalised, with its entities blanked out and the spans of their mentions."""

    raw: str
    text: str
    masked: str
    found: dict[str, list[tuple[int, int]]]

    @classmethod
    def of(cls, sentence: str, entities: Mapping[str, tuple[str, ...]]) -> _Reading:
        text = normalise(sentence)
        masked, found = _mask_entities(text, entities)
        return cls(sentence, text, masked, found)

    @property
    def words(self) -> list[str]:
        """The words outside the entities, lower-cased."""
        return [w.lower() for w in _WORD.findall(self.masked)]

    def between(self, first: str, second: str) -> str:
        """The text between the first mentions of two entities (keys), whichever comes first."""
        spans = sorted((self.found[first][0], self.found[second][0]))
        return self.masked[spans[0][1] : spans[1][0]]

    def after(self, first: str, second: str) -> str:
        """The text after the later of the two entities' first mentions."""
        return self.masked[max(self.found[first][0], self.found[second][0])[1] :]

    def anchor(self, key: str) -> tuple[str, ...] | None:
        """The words tying the entity's first mention to a patient, stemmed and without
        function words ("In a patient with [Y]" -> (), "a patient whose blood cultures grow
        [Y]" -> ("blood", "cultur", "grow")), or None when no person noun stands at most four
        words before it in its clause with no other entity in between."""
        before = _CLAUSE_BREAK.split(self.masked[: self.found[key][0][0]])[-1]
        before = before.rsplit(_MASK, 1)[-1]
        words = [w.lower() for w in _WORD.findall(before)]
        for back in range(1, min(len(words), 5) + 1):
            if stem(words[-back]) in _PERSON_STEMS:
                tail = words[len(words) - back + 1 :]
                return tuple(stem(w) for w in tail if w not in FUNCTION_WORDS)
        return None

    def frame(self, key: str) -> tuple[str, ...]:
        """Up to two words right before the entity's first mention, within its clause,
        articles left out: what the sentence calls the entity ("the gene", "patient with")."""
        before = _CLAUSE_BREAK.split(self.masked[: self.found[key][0][0]])[-1]
        words = [w.lower() for w in _WORD.findall(before) if w.lower() not in ("a", "an", "the")]
        return tuple(words[-2:])


@dataclass(frozen=True, slots=True)
class _Context:
    """What every check may need besides the two readings."""

    keys: tuple[str, str]  # head and tail keys (case-folded names)
    names: tuple[str, str]  # head and tail as given, normalised
    negated: bool


_Check = Callable[[_Reading, _Reading, _Context], Verdict | None]


def judge(
    original: str,
    text: str,
    *,
    head: str,
    tail: str,
    negated: bool,
    synonyms: Synonyms | None = None,
) -> Verdict:
    """:func:`validate_rephrasing` for a candidate already cleaned by :func:`clean_candidate`."""
    names = (normalise(head), normalise(tail))
    if not all(names):
        raise ValueError("head and tail must be non-empty")
    keys = (names[0].casefold(), names[1].casefold())
    groups: dict[str, tuple[str, ...]] = {}
    for key, name in zip(keys, names, strict=True):
        groups[key] = tuple(dict.fromkeys(groups.get(key, ()) + _names(name, synonyms)))
    orig, cand = _Reading.of(original, groups), _Reading.of(text, groups)
    context = _Context(keys, names, negated)
    checks: tuple[_Check, ...] = (
        _check_shape,
        _check_size,
        _check_sentences,
        _check_entities,
        _check_roles,
        _check_negation,
        _check_strength,
        _check_antonyms,
        _check_extension,
        _check_predicate,
        _check_content,
    )
    for check in checks:
        verdict = check(orig, cand, context)
        if verdict is not None:
            return verdict
    return _ACCEPTED


def _check_shape(orig: _Reading, cand: _Reading, _c: _Context) -> Verdict | None:
    text = cand.text
    if not text:
        return _reject("empty", "no text")
    if any(char in cand.raw for char in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"):
        return _reject("newline", "more than one line")
    if _ECHO_START.match(text) or _ECHO_ANYWHERE.search(text):
        return _reject("instruction echo", f"looks like a reply, not a statement: {text[:40]!r}")
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] == _QUOTES[text[0]]:
        return _reject("instruction echo", "the text is wrapped in quotes")
    return None


def _check_size(orig: _Reading, cand: _Reading, _c: _Context) -> Verdict | None:
    # Case counts: a rewording that only changes capitals is a (faithful) rewording.
    if cand.text.rstrip(".!") == orig.text.rstrip(".!"):
        return _reject("unchanged", "same text as the original")
    ratio = len(cand.text) / max(1, len(orig.text))
    if not MIN_LENGTH_RATIO <= ratio <= MAX_LENGTH_RATIO:
        return _reject("length changed", f"{ratio:.2f}x the original's length")
    return None


def _check_sentences(_o: _Reading, cand: _Reading, _c: _Context) -> Verdict | None:
    if "?" in cand.masked:
        return _reject("question", "the candidate asks a question")
    for match in _SENTENCE_END.finditer(cand.masked):
        word, punct = match.group(1).lower(), match.group(2)
        if (
            "!" not in punct
            and _MASK not in word
            and ((len(word) == 1 and word.isalpha()) or word.rstrip(".") in _ABBREVIATIONS)
        ):
            continue  # an initial ("E. coli") or an abbreviation ("e.g.")
        return _reject("multiple sentences", "more than one sentence")
    return None


def _check_entities(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    for role, key, entity in zip(("head", "tail"), context.keys, context.names, strict=True):
        in_orig, in_cand = orig.found[key], cand.found[key]
        if not in_orig:
            return _reject("entity missing", f"the original statement lacks the {role} {entity!r}")
        if not in_cand:
            return _reject("entity missing", f"the {role} {entity!r} is missing or altered")
        if len(in_cand) > len(in_orig):
            return _reject(
                "entity duplicated",
                f"the {role} {entity!r} appears {len(in_cand)} times (original: {len(in_orig)})",
            )
    return None


_LEFT_WORD = re.compile(r"([^\W\d_][\w'’-]*) $")
_RIGHT_WORD = re.compile(r"^ ([^\W\d_][\w'’-]*)")


def _check_extension(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    """An entity is *extended* when the candidate joins a new modifier to it ("ATP
    hydrolysis" for "hydrolysis", "chronic gout" for "gout") or makes it the modifier of a
    noun that names something else ("insulin receptor"). The word right before a mention (a
    single space away) may be a function word, a word of the original, a predicate or neutral
    verb, or a generic type noun ("the gene FBN1"); the word right after may be anything but
    one of :data:`~quizbot.generate.wording.CHANGING_HEADS`, unless the original has it too.
    """
    allowed = {stem(w) for w in orig.words}
    for role, key, entity in zip(("head", "tail"), context.keys, context.names, strict=True):
        for start, stop in cand.found[key]:
            left = _LEFT_WORD.search(cand.masked[:start])
            if left is not None and not _joinable(left.group(1).lower(), allowed):
                return _reject(
                    "entity extended",
                    f"{left.group(1)!r} is joined to the {role} {entity!r}",
                )
            right = _RIGHT_WORD.search(cand.masked[stop:])
            if (
                right is not None
                and right.group(1).lower() in CHANGING_HEADS
                and stem(right.group(1)) not in allowed
            ):
                return _reject(
                    "entity extended",
                    f"the {role} {entity!r} now qualifies {right.group(1)!r}",
                )
    return None


def _joinable(word: str, allowed: set[str]) -> bool:
    return (
        word in FUNCTION_WORDS
        or bool(_NEGATION.fullmatch(word))
        or bool(_STRENGTH.fullmatch(word))  # "only X": judged as a change of strength
        or stem(word) in allowed
        or stem(word) in NEUTRAL_VERBS
        or stem(word) in TYPE_NOUNS
        or bool(families_of([word]))
    )


def _check_roles(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    """Head and tail keep their roles.

    The order of the two entities may change only when the predicate between them says the
    roles are recoverable: both sentences read as the same predicate family
    (:func:`~quizbot.generate.wording.predicate_reading`) and the order changed exactly when the
    voice did ("X treats Y" / "Y is treated with X"), or the family is symmetric ("associated
    with"). With the same order, a reading whose voice flipped swaps the roles ("X is treated
    with Y"). Otherwise the old rule holds: same order. Last, a candidate may not give one
    entity the words the original used to introduce the other ("the gene [disease]").
    """
    head, tail = context.keys
    if head == tail:
        return None
    orig_first = orig.found[head][0] < orig.found[tail][0]
    cand_first = cand.found[head][0] < cand.found[tail][0]
    swapped = orig_first != cand_first
    was = predicate_reading(orig.between(head, tail), orig.after(head, tail))
    now = predicate_reading(cand.between(head, tail), cand.after(head, tail))
    weaker = (
        was is not None
        and now is not None
        and now.symmetric
        and family_allowed(now.family, {was.family})
    )
    if weaker:
        pass  # "X is a feature of Y" -> "Y is associated with X": no roles left to swap
    elif was is not None and now is not None and was.family == now.family:
        if not was.symmetric and (was.flip != now.flip) != swapped:
            return _reject(
                "roles swapped",
                f"{was.phrase!r} became {now.phrase!r} "
                + ("with head and tail swapped" if swapped else "with head and tail in place"),
            )
    elif swapped and not _anchored_to_patient(orig, cand, context):
        return _reject("order swapped", "head and tail appear in the opposite order")
    elif (
        was is None
        and now is not None
        and not now.symmetric
        and not swapped
        and _patient_key(orig, orig, context) is not None
        and _CLAUSE_BREAK.search(orig.between(head, tail))
        and not _CLAUSE_BREAK.search(cand.between(head, tail))
    ):
        # "In a patient with [Y], [X] is the treatment": the patient clause names [Y], the
        # predicate applies to [X]; "A patient with [Y] is the treatment for [X]" makes [Y]
        # its subject.
        return _reject("roles swapped", f"{now.phrase!r} now has the patient's entity first")
    bare = None
    if (weaker or swapped) and all(
        _type_nouns(cand, key) <= _type_nouns(orig, key) for key in context.keys
    ):
        bare = _bare_symmetric(cand.between(head, tail))
    for this, other in ((head, tail), (tail, head)):
        frame = cand.frame(this)
        if (
            frame
            and frame == orig.frame(other)
            and frame != orig.frame(this)
            and any(w not in FUNCTION_WORDS for w in frame)
            and not (bare and set(frame) <= bare)
        ):
            return _reject(
                "roles swapped",
                f"{' '.join(frame)!r} now introduces the other entity",
            )
    return None


# The moved entity must still be described ("[X] is the first-line treatment for ..."), not
# made to act ("[X] affects a patient with ...") or be acted on ("[X] is treated with ...").
_COPULA_AFTER = re.compile(r"^\s*(?:is|are)\b", re.IGNORECASE)
_AGENT = re.compile(
    r"\b(?:is|are)\s+(?:(?:not|\w+ly)\s+)*\w+(?:ed|en)\s+(?:by|with|using|through|via)\b"
    r"|\b(?:by|with|using|through|via)\s+(?:(?:a|an|the)\s+)?$",
    re.IGNORECASE,
)


def _patient_key(orig: _Reading, cand: _Reading, context: _Context) -> str | None:
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


def _anchored_to_patient(orig: _Reading, cand: _Reading, context: _Context) -> bool:
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


_COMPLEMENT = re.compile(
    r"^\s*(?:is|are)\s+(?:not\s+)?(?:(?:a|an|the)\s+)?([^\W\d_][\w'’-]*)", re.I
)


def _type_nouns(reading: _Reading, key: str) -> set[str]:
    """The generic type nouns the sentence gives the entity (stems): right before it ("the
    gene HTT"), right after it ("the HTT gene") or as its complement ("HTT is a gene")."""
    stop = reading.found[key][0][1]
    near = list(reading.frame(key))
    for found in (
        _RIGHT_WORD.search(reading.masked[stop:]),
        _COMPLEMENT.match(reading.masked[stop:]),
    ):
        if found is not None:
            near.append(found.group(1).lower())
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
        w.lower() not in FUNCTION_WORDS and not _NEGATION.fullmatch(w) for w in _WORD.findall(lead)
    ):
        return None
    return {w.lower() for w in _WORD.findall(reading.phrase)}


def _check_negation(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    orig_cues, cand_cues = negation_cues(orig.masked), negation_cues(cand.masked)
    if len(orig_cues) % 2 != int(context.negated):
        return _reject(
            "negation unclear",
            f"the original reads as {_polarity(orig_cues)} ({_cue_list(orig_cues)}) "
            f"but negated={context.negated}",
        )
    if len(cand_cues) % 2 != len(orig_cues) % 2:
        return _reject(
            "negation flipped",
            f"the original is {_polarity(orig_cues)} ({_cue_list(orig_cues)}), "
            f"the candidate {_polarity(cand_cues)} ({_cue_list(cand_cues)})",
        )
    return None


def _check_strength(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    """A hedge, modal, frequency word or absolute the original does not have changes the
    claim's strength ("may be caused by", "one possible diagnosis", "never", "any patient");
    so does dropping the original's possibility modal from an affirmative statement ("can
    affect" -> "affects"). A negated one may drop it ("cannot be" -> "is not")."""
    was, now = _strength_words(orig.masked), _strength_words(cand.masked)
    added = sorted(now - was)
    if added:
        return _reject("claim strength changed", f"adds {', '.join(map(repr, added))}")
    if not context.negated and "<modal>" in was and "<modal>" not in now:
        return _reject("claim strength changed", "drops the original's 'can'/'may'")
    return None


def _check_antonyms(orig: _Reading, cand: _Reading, _c: _Context) -> Verdict | None:
    clash = antonym_clash(orig.words, cand.words)
    if clash is not None:
        return _reject("antonym", f"{clash[1]!r} opposes the original's {clash[0]!r}")
    return None


def _check_predicate(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    was = families_of(orig.words, implied=True)
    if any(map(is_inheritance_mode, context.names)):
        was.add("inherit")  # "follows X-linked inheritance" = "is inherited in an X-linked ..."
    for word in cand.words:
        for family in families_of([word]):
            if not family_allowed(family, was):
                return _reject(
                    "predicate changed",
                    f"{word!r} brings in a {family} predicate "
                    f"(the original's: {', '.join(sorted(was)) or 'none known'})",
                )
    return None


def _check_content(orig: _Reading, cand: _Reading, _c: _Context) -> Verdict | None:
    """Every word the candidate brings in is a function word, a word of the original (same
    stem), a neutral word of the vocabulary or a word of a predicate the original allows:
    anything else is new content (an extra claim, a new qualifier) and is rejected."""
    known = {stem(w) for w in orig.words}
    for word in cand.words:
        if (
            word in FUNCTION_WORDS
            or _NEGATION.fullmatch(word)
            or stem(word) in known
            or stem(word) in NEUTRAL_WORDS
            or families_of([word])
            or same_side(word, orig.words)
        ):
            continue
        return _reject("new content", f"{word!r} is not in the original")
    return None


def _polarity(cues: tuple[str, ...]) -> str:
    return "negated" if len(cues) % 2 else "affirmative"


def _cue_list(cues: tuple[str, ...]) -> str:
    return ", ".join(cues) if cues else "no negation cue"
