"""The claim of a statement: its negation, its strength, its direction and its core predicate.

The rules of :mod:`~quizbot.generate.rephrase.validator` that read the words of a sentence outside
its two entities (the entities already blanked out): pure functions of the masked texts and their
words, each returning ``(category, detail)`` when the candidate changes the claim, else None.

* :func:`cues_in` / :func:`negation_change`: negation cues, lexical ("not", "no need") and
  morphological ("ineffective", "absence of", "lack", "unable", "contraindicated",
  "independent of", "stop taking", "discontinue"), compared by
  parity;
* :func:`strength_change`: an added absolute, frequency word or (in a categorical statement)
  hedge, or a dropped "can"/"may";
* :func:`reversal`: an antonym or a word that reverses the claim, a remedy made a cause;
* :func:`predicate_change`: another core predicate (treat, prevent, cause, risk, feature,
  diagnose, inherit, spread).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from quizbot.generate.wording import antonym_clash

__all__ = [
    "ABSOLUTE",
    "HEDGE",
    "NEGATION",
    "Finding",
    "cues_in",
    "negation_change",
    "predicate_change",
    "reversal",
    "strength_change",
]

Finding = tuple[str, str]
_SPACES = re.compile(r"\s+")

NEGATION = re.compile(
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
      | (?:should|must|shall|ought\s+to|(?:advised|told|need|needs|have|has)
          (?:\s+for(?:\s+(?:[^\W\d_][\w'’-]*|\x1a+)){1,6}?)?\s+to)\s+avoid
        (?=\s+(?:(?:the|a|an)\s+)?\x1a)   # "should avoid [drug]", not "to avoid [disease]";
                                          # "no need for patients with [Y] to avoid [X]"
      | for(?:e)?go(?:es|ing|ne)? | dispens(?:e|es|ed|ing)\s+with
      | (?:stop|stops|stopped|stopping|ceas(?:e|es|ed|ing)|quit(?:s|ting)?)\s+(?:taking|using)
      | discontinu\w*
      | unrelated | unassociated | unaffected | unlikely | uninvolved | unconnected
      # words that deny the relation in their meaning: "spares [Y]" (does not affect it),
      # "immune to [Y]" (cannot get it), "mutually exclusive" (never occur together)
      | (?<!-)spar(?:e|es|ed|ing) | immun(?:e|ity)\s+(?:to|against|from)
      | mutually\s+exclusive | incompatible\s+with | missing
      | (?:refrain|refrains|refrained|refraining|abstain|abstains|abstained|abstaining
        |exempt)\s+from
      | independent(?:ly)?\s+of
      | rarely | seldom | hardly | barely | scarcely
      | non-\w+
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
# Absolutes: a word that turns the claim universal or exclusive ("always", "only", "every
# patient"). Hedges and modals ("may", "can", "potentially") are not compared: a careful reader
# accepts "may indicate" for "may suffer from".
ABSOLUTE = re.compile(
    r"\b(?:always|never|only|all|every|everyone|must|invariably|necessarily|exclusively|solely"
    r"|universally|guarantee[sd]?|any|should|ought)\b",
    re.IGNORECASE,
)

HEDGE = re.compile(
    r"\b(?:can|cannot|can['’]t|could|couldn['’]t|may|might|possibl[ey]|potential(?:ly)?|perhaps|probabl[ey]|likely"
    r"|sometimes|occasional(?:ly)?|some|several|often|usually|typically|commonly|frequently"
    r"|generally|rarely|seldom|likelihood|chance|unlikely|improbabl[ey])\b",
    re.IGNORECASE,
)


_MODAL = re.compile(r"\b(?:can|could|may|might)\b", re.IGNORECASE)
_ABILITY = re.compile(
    r"\b(?:enabl\w*|allow\w*|able|ability|capable|capacity|help\w*|effective)\b", re.IGNORECASE
)
# Deontic negation: "no need to take" says the same as "can avoid taking" (permission to
# omit), so that "can" is no hedge.
_NO_NEED = re.compile(
    r"\b(?:no\s+need|need\s+not|needn['’]t|(?:not|never)\s+need|unnecessary"
    r"|not\s+(?:necessary|required|needed))\b",
    re.IGNORECASE,
)
_PERMISSION = re.compile(
    r"\b(?:can|may|could|might)\s+(?:safely\s+)?(?:avoid|forgo|forego|skip|omit|dispense\s+with"
    r"|do\s+without|refrain\s+from|discontinue|stop\s+(?:taking|using))\b",
    re.IGNORECASE,
)
# Negated ability: "is not able to" / "is unable to" says what "cannot" says, no hedge
_UNABLE = re.compile(r"\b(?:(?:not|never)\s+(?:be\s+)?able|unable|incapable)\b", re.IGNORECASE)
_CANNOT = re.compile(
    r"\b(?:cannot|can\s+(?:not|never)|can['’]t|could\s+(?:not|never)|couldn['’]t)\b", re.IGNORECASE
)
# Words of risk: a statement of risk is no categorical claim, and another word of risk no hedge
_RISK = re.compile(
    r"\b(?:risks?|likelihood|chances?|probabilit(?:y|ies)|odds|(?:more|less)\s+likely)\b",
    re.IGNORECASE,
)
_FREQUENCY = re.compile(
    r"\b(?:usually|occasional(?:ly)?|sometimes|often|frequent(?:ly)?|common(?:ly)?|rare(?:ly)?"
    r"|seldom|typical(?:ly)?|generally|mostly|mainly|predominantly|regularly|invariably)\b",
    re.IGNORECASE,
)


# A conditional statement: "If [X] is affected, ...", "When a patient takes [X], ..."
_CONDITIONAL = re.compile(r"^\s*(?:if|when|whenever)\b", re.IGNORECASE)


def _absolutes(masked: str, *, generic: bool = False) -> set[str]:
    """The absolutes of ``masked``, lower-cased ("any" after a negation is a negative-polarity
    item, "cannot show any sign", not the universal "any patient"). With ``generic`` (the
    statement is a conditional), a sentence-initial "Any" restates its condition ("Any change
    in [X] may ..." for "If [X] changes, ... may ...") and is no absolute."""
    found: set[str] = set()
    for match in ABSOLUTE.finditer(masked):
        word = match.group(0).lower()
        if word == "any" and NEGATION.search(masked[: match.start()]):
            continue
        if (
            word == "all"
            and masked[: match.start()].lower().rstrip().endswith(" at")
            and NEGATION.search(masked[: match.start()])
        ):
            continue  # "does not help at all": the negation stressed, no universal
        if word == "any" and generic and not masked[: match.start()].strip():
            continue
        if word == "should" and not masked[: match.start()].strip(" ,;:"):
            continue  # sentence-initial "Should a patient have X, ...": a condition
        found.add(word)
    return found


def cues_in(masked: str) -> tuple[str, ...]:
    """The negation cues of a normalised text, lower-cased, in order.

    "nor" only counts when no cue precedes it (so "neither ... nor" is one negation). An odd
    count means the sentence states a negation.
    """
    cues: list[str] = []
    for match in NEGATION.finditer(masked):
        cue = _SPACES.sub(" ", match.group(0).lower())
        if cue == "nor" and cues:
            continue
        cues.append(cue)
    return tuple(cues)


def negation_change(orig: str, cand: str, negated: bool) -> Finding | None:
    """``negation unclear`` when the statement's parity of cues is not ``negated``,
    ``negation flipped`` when the candidate's parity differs from the statement's."""
    orig_cues, cand_cues = cues_in(orig), cues_in(cand)
    if len(orig_cues) % 2 != int(negated):
        return (
            "negation unclear",
            f"the original reads as {_polarity(orig_cues)} ({_cue_list(orig_cues)}) "
            f"but negated={negated}",
        )
    if len(cand_cues) % 2 != len(orig_cues) % 2:
        return (
            "negation flipped",
            f"the original is {_polarity(orig_cues)} ({_cue_list(orig_cues)}), "
            f"the candidate {_polarity(cand_cues)} ({_cue_list(cand_cues)})",
        )
    return None


def strength_change(orig: str, cand: str, negated: bool) -> Finding | None:
    """An absolute the statement does not have ("always", "only", "every") makes the claim
    universal or exclusive; a frequency word ("usually", "occasionally") where the statement has
    none changes how often it holds; a hedge or modal ("may", "possibly") where the statement
    has none weakens a categorical claim. A statement that already hedges may hedge otherwise ("may
    indicate" for "may suffer from", "has the potential to" for "may be able to"), but an
    affirmative one may not drop its "can"/"may" ("affects" for "can affect"). Where the statement
    says there is no need to do something, "can avoid doing it" is the same permission, no hedge;
    where it says something is not able to, "cannot" is the same inability, no hedge; where it
    speaks of a risk, another word of risk ("likelihood", "more likely") is none; where it
    is a conditional, a candidate opening with "Any" restates the condition."""
    added_words = _absolutes(cand, generic=bool(_CONDITIONAL.match(orig))) - _absolutes(orig)
    if _CANNOT.search(orig) or _UNABLE.search(orig):
        added_words.discard("never")  # "can never" says no more than "cannot"
    added = sorted(added_words)
    if added:
        return ("claim strength changed", f"adds {', '.join(map(repr, added))}")
    often = _FREQUENCY.search(cand)
    if often is not None and _FREQUENCY.search(orig) is None:
        return ("claim strength changed", f"adds a frequency ({often.group(0)!r})")
    # "can avoid taking" for "has no need to take": a permission, not a hedge
    hedged = _PERMISSION.sub(" ", cand) if _NO_NEED.search(orig) else cand
    if _UNABLE.search(orig):
        hedged = _CANNOT.sub(" ", hedged)  # "cannot treat" for "is not able to treat"
    if _RISK.search(orig):
        hedged = _RISK.sub(" ", hedged)  # "raises the likelihood of" for "increases the risk of"
    hedge = HEDGE.search(hedged)
    if hedge is not None and HEDGE.search(orig) is None:
        return ("claim strength changed", f"hedges a categorical claim ({hedge.group(0)!r})")
    if not negated and _MODAL.search(orig) and not HEDGE.search(cand) and not _ABILITY.search(cand):
        return ("claim strength changed", "drops the statement's 'can'/'may'")
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
    "cause": ("caus", "induc", "trigger", "provok", "complicat", "lead", "led", "result"),
    "risk": ("risk", "predispos", "susceptib"),
    "feature": ("feature", "present", "manifest", "sign", "symptom"),
    "diagnose": ("diagnos", "differential"),
    "inherit": ("inherit", "heredit", "passed"),
    "spread": ("spread", "metasta", "invad", "invasi", "disseminat"),
}
_CORE_NOUNS = frozenset(["treatment", "treatments", "therapy", "therapies", "management"])
# The directional predicates a candidate may only use when the statement has them (or, for a
# cause, says how one thing comes from another: "results from", "is produced by").
_DIRECTIONAL = ("treat", "prevent", "cause", "inherit", "spread")
_CAUSAL = ("result", "lead", "due", "stem", "origin", "attribut", "responsib", "produc", "caus")
# An effect or a change of one thing with another ("does not affect", "may be influenced"): a
# causal claim, so "does not result in a change of" rewords it
_EFFECTS = ("affect", "influenc", "effect", "impact", "alter")


def reversal(had: list[str], words: list[str]) -> Finding | None:
    """The candidate brings in the opposite of a statement word (see
    :func:`~quizbot.generate.wording.antonym_clash`), a word that reverses the claim where the
    statement has nothing of the kind (``_REVERSALS``), or a cause where the statement speaks
    of a remedy ("can cause" for "may treat")."""
    # a negation cue ("unrelated", "absent") counts by parity, not as an opposite
    clash = antonym_clash(had, [w for w in words if not NEGATION.fullmatch(w)])
    if clash is not None:
        return ("antonym", f"{clash[1]!r} opposes the original's {clash[0]!r}")
    for word in words:
        if word in had:
            continue
        for brought, allowed in _REVERSALS:
            if word.startswith(brought) and not any(w.startswith(brought + allowed) for w in had):
                return ("antonym", f"{word!r} reverses the statement")
        if (
            word.startswith(_CAUSE)
            and any(w.startswith(_REMEDY) for w in had)
            and not any(w.startswith(_CAUSE) for w in had)
        ):
            return ("antonym", f"{word!r} makes a remedy a cause")
        if (
            word.startswith(_REMEDY)
            and any(w.startswith(_CAUSE) for w in had)
            and not any(w.startswith(_REMEDY) for w in had)
        ):
            return ("antonym", f"{word!r} makes a cause a remedy")
    return None


def _core(words: Iterable[str], *, nouns: bool = False) -> set[str]:
    return {
        family
        for word in words
        if nouns or word not in _CORE_NOUNS
        for family, prefixes in _CORE.items()
        if word.startswith(prefixes)
    }


_PERSONS = frozenset(
    [
        "patient",
        "patients",
        "person",
        "persons",
        "people",
        "individual",
        "individuals",
        "someone",
        "anyone",
        "those",
        "subject",
        "subjects",
    ]
)


def predicate_change(
    orig: str, had: Sequence[str], words: Sequence[str], *, inherits: bool
) -> Finding | None:
    """A core predicate (treat, prevent, cause, risk, feature, diagnose) the statement does not
    have, where it has another one ("used to prevent" for "used to treat"); or, where it has
    none, a directional one (treat, prevent, cause: "is prevented through" for "is passed down
    through"). A noun such as "treatment" is neutral, and so is "diagnosed" after a person ("a
    patient diagnosed with [Y]" is a patient who has [Y])."""
    was = _core(had, nouns=True)
    if inherits:
        was.add("inherit")  # "follows X-linked inheritance" = "is inherited in an X-linked ..."
    if not was and any(w.startswith(_CAUSAL + _EFFECTS) for w in had):
        was = {"cause"}
    if not was and re.search(r"\b(?:drug|medication|candidate\s+for)\b", orig, re.I):
        was = {"treat"}  # "a suitable drug to give", "a candidate for treatment with"
    for index, word in enumerate(words):
        if word.startswith("diagnos") and _PERSONS & set(words[max(0, index - 3) : index]):
            continue  # "a patient diagnosed with [Y]" has [Y]: no claim of diagnosis
        added = _core([word]) - was
        if not was:
            added &= set(_DIRECTIONAL)
        if added:
            return ("predicate changed", f"{word!r} is not the statement's {'/'.join(sorted(was))}")
    return None


def _polarity(cues: tuple[str, ...]) -> str:
    return "negated" if len(cues) % 2 else "affirmative"


def _cue_list(cues: tuple[str, ...]) -> str:
    return ", ".join(cues) if cues else "no negation cue"
