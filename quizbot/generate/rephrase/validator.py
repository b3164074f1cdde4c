"""Whether an LLM's rephrasing of an instantiated statement keeps its meaning.

PretexEval asks an LLM to *rephrase* each statement made from a prototype: same meaning, new
wording. A rephrasing is only used when :func:`validate_rephrasing` accepts it; otherwise the
prototype statement is kept. The validator is lexical, pure and deterministic, and **accepts by
default after strict checks that catch corruptions** (issue 24: the earlier design, which enumerated
acceptable wordings, kept only 10.5% of real faithful rephrasings). A rejection's reason starts
with a stable category. In order:

* shape: one plain sentence (``empty``, ``newline``, ``instruction echo``, ``question``,
  ``multiple sentences``), not the original again (``unchanged``), 0.5x to 2.5x its length
  (``length changed``). A leading label and one pair of wrapping quotes are stripped first;
* ``entity missing`` / ``entity duplicated``: both entities present, whatever their case,
  articles or plural, under a listed synonym (``synonyms``) or a common lay name
  (:data:`~quizbot.generate.rephrase.lexicon.LAY_NAMES`), or with the name's words reordered and
  inflected within a few words ("complete traumatic amputation of a structure" for "Amputated
  structure, traumatic, complete"; "binding to DNA" for "DNA Binding") when no capitalised or
  medical-looking word stands among them;
* ``foreign entity``: a medical term (organ, disease noun, medical ending, or a capitalised word
  inside the sentence) the statement does not have: a swapped tail;
* ``negation flipped`` / ``negation unclear``: the parity of negation cues (:func:`negation_cues`,
  including "ineffective", "absence of", "lack", "unable", "no need", "contraindicated") differs
  from the statement's, or the statement's does not match ``negated``;
* ``roles swapped`` / ``order swapped``: the words around each entity give it a kind (agent,
  condition, product, function, site; :mod:`~quizbot.generate.rephrase.roles`) the statement
  gives only the other one ("Administration of [disease]"); or head and tail changed places with
  a predicate family read in both whose voice did not flip accordingly; or changed places with
  no evidence at all that the roles were kept;
* ``claim strength changed``: an absolute ("always", "only", "should"), a frequency word
  ("usually") or, in a statement without any, a hedge ("may") is brought in; an affirmative
  statement drops its "can"/"may". Hedges that keep the claim pass ("may indicate" for "may
  suffer from");
* ``antonym``: an opposite of a statement word, a word that reverses the claim where the
  statement has nothing of the kind ("disappearance", "protective against", "harm"), or a
  remedy made a cause (and back);
* ``predicate changed``: a core predicate (treat, prevent, cause, risk, feature, diagnose,
  inherit) other than the statement's ("used to prevent" for "used to treat");
* ``extra qualifier``: a population, time, severity, route or subtype word ("in the elderly");
* ``entity extended``: a new modifier joined to an entity ("acute gout") or the entity made the
  modifier of another noun ("insulin receptor");
* ``extra claim``: a new item joined to an entity by "and"/"or"/"but", or a clause set off after
  it ("Wilson disease, a disorder of ...").

Measured (2026-11-29) on the PretexEval authors' rephrasings (``bench/rephrase_validator.py``,
split by head): tune part 67/74 faithful accepted (90.5%), 332/333 corruptions rejected (99.7%);
held-back part, measured once after tuning: 39/49 faithful (79.6%), 247/251 corruptions and
meaning changes rejected (98.4%). On the hand-written rewordings (``bench/bench_validator.py``):
99.2% / 99.0% (tuned file), 94.4% / 92.3% (held out).

Residual risks: a claim added in words the lists do not know ("a lower mortality after",
"regulated by") passes; a role swap with no telling words around the entities and the same order
passes; the entity's loose match may take a near name for the entity.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from quizbot.generate.rephrase.entities import TOKEN, loose_span, same_root
from quizbot.generate.rephrase.lexicon import LAY_NAMES, QUALIFIERS, looks_medical
from quizbot.generate.rephrase.roles import kinds_before, role_kept, role_swap
from quizbot.generate.wording import (
    CHANGING_HEADS,
    FUNCTION_WORDS,
    NEUTRAL_VERBS,
    TYPE_NOUNS,
    antonym_clash,
    entity_regex,
    families_of,
    family_allowed,
    is_inheritance_mode,
    predicate_reading,
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
      | unable | impossible | incapable | inability | incapacity
      | ineffective(?:ly|ness)? | ineffectual | inefficacious | inactive | inadequate
      | lack(?:s|ed|ing)?
      | absent | absence
      | (?:free|devoid)\s+of
      | exclud(?:e|es|ed|ing)
      | rul(?:e|es|ed|ing)\s+out
      | contraindicat\w* | unsuitab\w* | inappropriat\w*
      | avoid(?:s|ed|ing)?\s+(?:taking|using|the\s+need)
      | unrelated | unassociated | unaffected | unlikely | uninvolved | unconnected
      | rarely | seldom | hardly | barely | scarcely
      | non-\w+
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
# Absolutes: a word that turns the claim universal or exclusive ("always", "only", "every
# patient"). Hedges and modals ("may", "can", "potentially") are not compared: a careful reader
# accepts "may indicate" for "may suffer from".
_ABSOLUTE = re.compile(
    r"\b(?:always|never|only|all|every|everyone|must|invariably|necessarily|exclusively|solely"
    r"|universally|guarantee[sd]?|any|should|ought)\b",
    re.IGNORECASE,
)
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
    names += LAY_NAMES.get(entity.casefold(), ())
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
    for key, group in entities.items():
        if not found[key]:
            span = loose_span(text, group[0])
            if span is not None:
                start, stop = span
                text = text[:start] + _MASK * (stop - start) + text[stop:]
                found[key].append(span)
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


_HEDGE = re.compile(
    r"\b(?:can|cannot|can['’]t|could|couldn['’]t|may|might|possibl[ey]|potential(?:ly)?|perhaps|probabl[ey]|likely"
    r"|sometimes|occasional(?:ly)?|some|several|often|usually|typically|commonly|frequently"
    r"|generally|rarely|seldom|likelihood|chance)\b",
    re.IGNORECASE,
)


_MODAL = re.compile(r"\b(?:can|could|may|might)\b", re.IGNORECASE)
_ABILITY = re.compile(
    r"\b(?:enabl\w*|allow\w*|able|ability|capable|capacity|help\w*|effective)\b", re.IGNORECASE
)
_FREQUENCY = re.compile(
    r"\b(?:usually|occasional(?:ly)?|sometimes|often|frequent(?:ly)?|common(?:ly)?|rare(?:ly)?"
    r"|seldom|typical(?:ly)?|generally|mostly|mainly|predominantly|regularly|invariably)\b",
    re.IGNORECASE,
)


def _absolutes(masked: str) -> set[str]:
    """The absolutes of ``masked``, lower-cased ("any" after a negation is a negative-polarity
    item, "cannot show any sign", not the universal "any patient")."""
    found: set[str] = set()
    for match in _ABSOLUTE.finditer(masked):
        word = match.group(0).lower()
        if word == "any" and _NEGATION.search(masked[: match.start()]):
            continue
        if word == "should" and not masked[: match.start()].strip(" ,;:"):
            continue  # sentence-initial "Should a patient have X, ...": a condition
        found.add(word)
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
        _check_foreign,
        _check_negation,
        _check_roles,
        _check_absolutes,
        _check_antonyms,
        _check_predicate,
        _check_qualifiers,
        _check_extension,
        _check_coordination,
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


def _kinds(reading: _Reading, key: str) -> set[str]:
    """What the words around the entity's first mention call it (see :mod:`.roles`)."""
    start, stop = reading.found[key][0]
    before = reading.masked[:start].rsplit(_MASK, 1)[-1]
    return kinds_before(before, reading.masked[stop:])


_LEFT_WORD = re.compile(r"([^\W\d_][\w'’-]*) $")
# Words a rewording may put right before an entity without making it a subtype: its state
# ("impaired hydrolysis" for "hydrolysis is affected"), what it is ("the enzyme X") or a verb.
_STATE_WORDS = frozenset(
    [
        "impaired",
        "aberrant",
        "abnormal",
        "altered",
        "affected",
        "reduced",
        "decreased",
        "diminished",
        "defective",
        "dysfunctional",
        "enzyme",
        "enzymes",
        "require",
        "requires",
        "required",
        "requiring",
        "need",
        "needs",
        "taking",
        "administering",
        "administer",
        "prescribing",
        "using",
        "receiving",
        "avoid",
        "avoiding",
        "avert",
    ]
)


def _check_extension(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    """An entity is *extended* when the candidate joins a new modifier to it ("acute gout" for
    "gout", "massive pulmonary embolism") or makes it the modifier of a noun that names something
    else ("insulin receptor"). The word right before a mention (a single space away) may be a
    function word, a negation or absolute, a word of the statement (same stem), a generic type
    noun ("the gene FBN1"), a predicate or neutral verb, or a state word ("impaired"); the word
    right after may be anything but one of :data:`~quizbot.generate.wording.CHANGING_HEADS`,
    unless the statement has it too."""
    allowed = {stem(w) for w in orig.words}
    if re.search(r"\bgene\s+products?\b", orig.masked, re.IGNORECASE):
        allowed |= {"protein", "enzyme"}  # "the protein X" for "the gene product X"
    for role, key, entity in zip(("head", "tail"), context.keys, context.names, strict=True):
        for start, stop in cand.found[key]:
            left = _LEFT_WORD.search(cand.masked[:start])
            if left is not None and not _joinable(left.group(1).lower(), allowed):
                return _reject(
                    "entity extended", f"{left.group(1)!r} is joined to the {role} {entity!r}"
                )
            right = _RIGHT_WORD.search(cand.masked[stop:])
            if (
                right is not None
                and right.group(1).lower() in CHANGING_HEADS
                and stem(right.group(1)) not in allowed
            ):
                return _reject(
                    "entity extended", f"the {role} {entity!r} now qualifies {right.group(1)!r}"
                )
    return None


def _joinable(word: str, allowed: set[str]) -> bool:
    return (
        word in FUNCTION_WORDS
        or word in _STATE_WORDS
        or bool(_NEGATION.fullmatch(word))
        or bool(_ABSOLUTE.fullmatch(word))
        or stem(word) in allowed
        or stem(word) in NEUTRAL_VERBS
        or stem(word) in TYPE_NOUNS
        or bool(families_of([word]))
    )


_COORDINATED = re.compile(
    r"^\s*,?\s*(?:and|or|but|as\s+well\s+as|plus|along\s+with)\s+(?:(?:a|an|the)\s+)?"
    r"([^\W\d_][\w'’-]*)",
    re.IGNORECASE,
)


_APPOSITION = re.compile(
    r"^\s*,\s*(?:(?:a|an|transmitted|caused|known)\b[^,]*,|(?:which|who|whose)\b)", re.I
)


def _check_coordination(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    """A new item joined to an entity ("... productive cough and haemoptysis", "tension headache
    and lupus", "..., but rheumatic fever is") is a claim about something else: the word after
    "and"/"or"/"but" must be one the statement has, a function word or a neutral verb. A clause
    set off after an entity ("Wilson disease, a disorder of ...") adds a claim too."""
    known = {stem(w) for w in TOKEN.findall(orig.text.lower())}
    for role, key, entity in zip(("head", "tail"), context.keys, context.names, strict=True):
        for _start, stop in cand.found[key]:
            if _APPOSITION.match(cand.masked[stop:]) and not _APPOSITION.match(
                orig.masked[orig.found[key][0][1] :]
            ):
                return _reject("extra claim", f"a clause describes the {role} {entity!r}")
            joined = _COORDINATED.match(cand.masked[stop:])
            if joined is None:
                continue
            word = joined.group(1).lower()
            if word in FUNCTION_WORDS or stem(word) in known or stem(word) in NEUTRAL_VERBS:
                continue
            return _reject("extra claim", f"{word!r} is joined to the {role} {entity!r}")
    return None


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
    kind = role_swap(
        (_kinds(orig, head), _kinds(orig, tail)), (_kinds(cand, head), _kinds(cand, tail))
    )
    if kind is not None:
        return _reject("roles swapped", f"the candidate gives the other entity the {kind} role")
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
    elif (
        swapped
        and not _anchored_to_patient(orig, cand, context)
        and not role_kept(
            (_kinds(orig, head), _kinds(orig, tail)), (_kinds(cand, head), _kinds(cand, tail))
        )
    ):
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


_RIGHT_WORD = re.compile(r"^ ([^\W\d_][\w'’-]*)")
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


def _check_foreign(orig: _Reading, cand: _Reading, _c: _Context) -> Verdict | None:
    """A medical term the statement does not have (outside the two entities) is a foreign
    entity: a tail swapped for another disease, organ or drug, or a claim about something else.
    A term is medical when :func:`~quizbot.generate.rephrase.lexicon.looks_medical` says so or
    when it is capitalised inside the sentence (entity names are written that way)."""
    known = {w.lower() for w in TOKEN.findall(orig.text)}
    known_stems = {stem(w) for w in known}
    for index, match in enumerate(TOKEN.finditer(cand.masked)):
        word = match.group(0)
        lower = word.lower()
        if lower in known or stem(lower) in known_stems or lower in FUNCTION_WORDS:
            continue
        if any(same_root(lower, w) for w in known if len(w) >= 6):
            continue
        capital = word[:1].isupper() and index > 0 and stem(lower) not in TYPE_NOUNS
        if looks_medical(lower) or capital:
            return _reject("foreign entity", f"{word!r} is not in the statement")
    return None


def _check_absolutes(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    """An absolute the statement does not have ("always", "only", "every") makes the claim
    universal or exclusive; a frequency word ("usually", "occasionally") where the statement has
    none changes how often it holds; a hedge or modal ("may", "possibly") where the statement
    has none weakens a categorical claim. A statement that already hedges may hedge otherwise ("may
    indicate" for "may suffer from", "has the potential to" for "may be able to"), but an
    affirmative one may not drop its "can"/"may" ("affects" for "can affect")."""
    added = sorted(_absolutes(cand.masked) - _absolutes(orig.masked))
    if added:
        return _reject("claim strength changed", f"adds {', '.join(map(repr, added))}")
    often = _FREQUENCY.search(cand.masked)
    if often is not None and _FREQUENCY.search(orig.masked) is None:
        return _reject("claim strength changed", f"adds a frequency ({often.group(0)!r})")
    hedge = _HEDGE.search(cand.masked)
    if hedge is not None and _HEDGE.search(orig.masked) is None:
        return _reject("claim strength changed", f"hedges a categorical claim ({hedge.group(0)!r})")
    if (
        not context.negated
        and _MODAL.search(orig.masked)
        and not _HEDGE.search(cand.masked)
        and not _ABILITY.search(cand.masked)
    ):
        return _reject("claim strength changed", "drops the statement's 'can'/'may'")
    return None


# Words that reverse or invert a claim, each with the words of the statement that make it
# faithful: "protective against" for "prevents" is a rewording, for "is associated with" an
# opposite; "disappearance" where the statement speaks of no such thing reverses it.
_REVERSALS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("disappear", "vanish"), ("disappear", "vanish", "absen", "resol", "loss")),
    (("protect",), ("prevent", "protect", "prophyla", "avert")),
    (("susceptib", "vulnerab"), ("susceptib", "vulnerab", "risk", "predispos")),
    (("harm", "worsen", "aggravat", "exacerbat", "deteriorat", "detriment"), ()),
    (("resist",), ()),
    (
        ("relie", "allevia", "soothe", "eas"),
        ("treat", "relie", "allevia", "cure", "therap", "manag"),
    ),
    (("rare", "uncommon", "infrequent", "unusual", "atypical", "seldom"), ()),
    (("recover", "heal"), ("recover", "heal", "treat", "cure", "resol")),
    (("opposit", "revers", "counteract", "inverse", "contrary", "antagoni"), ()),
    (
        ("increas", "elevat", "enhanc", "boost", "rais", "augment"),
        ("increas", "elevat", "enhanc", "rais", "boost", "high", "more", "greater", "augment"),
    ),
    (
        ("decreas", "reduc", "diminish", "declin", "lower"),
        ("decreas", "reduc", "diminish", "lower", "less", "declin", "drop", "impair", "affect"),
    ),
)
_CAUSE = ("caus", "induc", "trigger", "provok", "result", "lead")
_REMEDY = ("treat", "prevent", "cure", "therap", "reliev", "manag", "protect", "prophyla")
# The core predicates a careful reader never takes for one another: "used to treat" is not
# "used to prevent", "a candidate for treatment with" is not "at risk from".
_CORE: dict[str, tuple[str, ...]] = {
    "treat": ("treat", "cure", "cures", "cured", "curing", "manag", "therap", "suitable drug"),
    "prevent": ("prevent", "prophyla", "avert", "protect", "inhibit", "suppress"),
    "cause": ("caus", "induc", "trigger", "provok", "complicat"),
    "risk": ("risk", "predispos", "susceptib"),
    "feature": ("feature", "present", "manifest", "sign", "symptom"),
    "diagnose": ("diagnos", "differential"),
    "inherit": ("inherit", "heredit", "passed"),
}
_CORE_NOUNS = frozenset(["treatment", "treatments", "therapy", "therapies", "management"])
# The directional predicates a candidate may only use when the statement has them (or, for a
# cause, says how one thing comes from another: "results from", "is produced by").
_DIRECTIONAL = ("treat", "prevent", "cause", "inherit")
_CAUSAL = ("result", "lead", "due", "stem", "origin", "attribut", "responsib", "produc", "caus")


def _check_antonyms(orig: _Reading, cand: _Reading, _c: _Context) -> Verdict | None:
    """The candidate brings in the opposite of a statement word (see
    :func:`~quizbot.generate.wording.antonym_clash`), a word that reverses the claim where the
    statement has nothing of the kind (``_REVERSALS``), or a cause where the statement speaks
    of a remedy ("can cause" for "may treat")."""
    clash = antonym_clash(orig.words, cand.words)
    if clash is not None:
        return _reject("antonym", f"{clash[1]!r} opposes the original's {clash[0]!r}")
    had = orig.words
    for word in cand.words:
        if word in had:
            continue
        for brought, allowed in _REVERSALS:
            if word.startswith(brought) and not any(w.startswith(brought + allowed) for w in had):
                return _reject("antonym", f"{word!r} reverses the statement")
        if (
            word.startswith(_CAUSE)
            and any(w.startswith(_REMEDY) for w in had)
            and not any(w.startswith(_CAUSE) for w in had)
        ):
            return _reject("antonym", f"{word!r} makes a remedy a cause")
        if (
            word.startswith(_REMEDY)
            and any(w.startswith(_CAUSE) for w in had)
            and not any(w.startswith(_REMEDY) for w in had)
        ):
            return _reject("antonym", f"{word!r} makes a cause a remedy")
    return None


def _core(words: Iterable[str], *, nouns: bool = False) -> set[str]:
    return {
        family
        for word in words
        if nouns or word not in _CORE_NOUNS
        for family, prefixes in _CORE.items()
        if word.startswith(prefixes)
    }


def _check_predicate(orig: _Reading, cand: _Reading, context: _Context) -> Verdict | None:
    """A core predicate (treat, prevent, cause, risk, feature, diagnose) the statement does not
    have, where it has another one ("used to prevent" for "used to treat"); or, where it has
    none, a directional one (treat, prevent, cause: "is prevented through" for "is passed down
    through"). A noun such as "treatment" is neutral."""
    was = _core(orig.words, nouns=True)
    if any(map(is_inheritance_mode, context.names)):
        was.add("inherit")  # "follows X-linked inheritance" = "is inherited in an X-linked ..."
    if not was and any(w.startswith(_CAUSAL) for w in orig.words):
        was = {"cause"}
    if not was and re.search(r"\b(?:drug|medication|candidate\s+for)\b", orig.masked, re.I):
        was = {"treat"}  # "a suitable drug to give", "a candidate for treatment with"
    for word in cand.words:
        added = _core([word]) - was
        if not was:
            added &= set(_DIRECTIONAL)
        if added:
            return _reject(
                "predicate changed", f"{word!r} is not the statement's {'/'.join(sorted(was))}"
            )
    return None


def _check_qualifiers(orig: _Reading, cand: _Reading, _c: _Context) -> Verdict | None:
    """A qualifier the statement does not have narrows the claim to a population, time,
    severity, route or subtype ("in the elderly", "acute gout", "for six weeks")."""
    known = {w.lower() for w in TOKEN.findall(orig.text)}
    for word in cand.words:
        if word in QUALIFIERS and word not in known:
            return _reject("extra qualifier", f"{word!r} narrows the claim")
    return None


def _polarity(cues: tuple[str, ...]) -> str:
    return "negated" if len(cues) % 2 else "affirmative"


def _cue_list(cues: tuple[str, ...]) -> str:
    return ", ".join(cues) if cues else "no negation cue"
