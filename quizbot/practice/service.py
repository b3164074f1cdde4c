"""Practice sessions for people: the public facade of the service a chat UI calls.

The code lives in views.py, topics.py, planning.py, feedback.py and reports.py; the design
notes below describe the whole.

A student picks a knowledge base, optionally a topic (a relation, or an organ system for
clinical-core) and a format, and answers a short series of questions one at a time; after each
answer they get the right answer and why; at the end a summary, and over time their progress.

Design
    Identity. A student is a :class:`~quizbot.domain.Respondent` of kind ``human`` named by a
    pseudonym. The pseudonym is normalised (NFKC, surrounding and repeated inner whitespace
    collapsed, case folded), so "Ada  L" and "ada l" are the same student; the first spelling
    seen is kept as the display name. At most 100 characters, no control characters.

    Items are the canonical ones. Negative tails (statements) and option sets (multiple choice)
    are drawn with the same seed as ``quizbot generate`` / ``quizbot eval --kb`` by default
    (:data:`CANONICAL_SEED`), so a student answers the very items models are evaluated on, and
    :func:`summary` can set the student against the models item by item. The session's own
    seed only chooses *which* facts and *which* variants are asked: the same seed gives the same
    session, a new seed a different one (a random seed is drawn and stored when none is given).

    Topics. A relation, or an organ system: the group of the fact's head (clinical-core's
    diseases), so preventive agents appear under "Prevention" only (see :func:`_system_of`).

    Choosing facts. Candidate facts are the KB's knowledge points (within the topic, and for
    statements only relations the prototype pool covers), in a seeded order stratified by
    relation (:func:`quizbot.generate.points.stratified`), the relations of each round shuffled
    with the session's seed so no two sessions take the topics in the same sequence. Facts the
    student has never answered come first, then facts answered but not mastered, and facts
    already mastered (every answer to them correct) last, so they are asked again only when
    nothing else is left.

    Variants. Each fact yields 16 true/false statements (8 transforms of the fact and 8 of its
    generated false counterpart). A practice session shows the answer after every question, so
    it asks *one* variant per fact: a fact whose answer was revealed is never asked again in that
    session (a second variant after the feedback would measure reading, not knowing, and would
    inflate students against models, which get no feedback). The variant is drawn by seed among
    all 16, preferring ones the student was never shown; drawing the side at random matters:
    were the fact side always asked, "affirmative sentences are true" would be a pattern to
    exploit. Multiple-choice sessions
    ask one question per (head, relation); ``mixed`` draws the kind of each question at random
    (seeded, half and half), never asking a choice
    question and statements about the same head and relation in one session.

    Review mode ("review my mistakes"). A fact needs review when the student missed it (answered
    wrongly or "I don't know") and has not answered it correctly in a later session. Each such
    fact is asked again in a variant the student did not miss: another statement variant
    (preferably one never shown to them) or another multiple-choice item of the same point (other
    options, drawn with another seed). One variant per fact, for the same reason.

    The answer key stays on the server. :class:`Question` carries an opaque question id
    (``s<session>q<position>``), the text, the options and a topic label; never the label,
    polarity, transform, lineage or the item's content hash (the hash covers the label, so with
    the public KB it could be tested against both answers). :func:`answer` accepts the question id
    (or the item id), parses what was typed with :func:`quizbot.evaluation.parse.parse_human`, and
    refuses
    input it cannot read with an :class:`~quizbot.errors.InputError` naming what to type, storing
    nothing. A second answer to the same question is refused (:class:`DuplicateError`); the first
    stands. The answer and the "session finished" mark are written in one transaction
    (:func:`storage.sessions.record_session_answer`).

    Flags. After the feedback on a question the student may flag it (:func:`flag`: wrong key,
    ambiguous, other, and a comment) for a reviewer (:mod:`quizbot.kb.review`). Only a question
    already answered can be flagged, so flagging never reveals a key. Items a reviewer retired
    are never planned into a new session.

    Numbers. Accuracy is correct / answered questions ("I don't know" counts as answered
    wrongly in accuracy, as not answered in the answer rate), from
    :func:`quizbot.analysis.metrics.compute_metrics`; every proportion carries a Wilson 95%
    interval.
    Joint accuracy per fact: the share of facts (all of whose questions in the session were
    answered) with every question right. Models are compared on the items both answered, using
    each model's newest stored answer per item from evaluation runs.

    Coming back (:mod:`quizbot.practice.resume`). A reload loses the browser's state, not the
    session: :func:`resumable_session` offers the student's newest active free-practice session
    again (k of n answered), and :func:`next_question` goes on where they left. A session with
    no answer for :data:`IDLE_TIMEOUT` (``QUIZBOT_PRACTICE_IDLE_HOURS``) is closed as
    ``abandoned`` lazily, when the student's sessions are looked up, listed (:func:`progress`) or
    a session is started; assignment sessions are never closed for idleness.

    Assignments. :func:`student_assignments` lists the ones a student may start (open now or
    later, of their cohort) with their status (:mod:`quizbot.practice.assignment_list`).
    :func:`start_assignment_session` starts (or resumes) a student's session on an
    assignment: its exact items in a per-student order (:mod:`quizbot.practice.assignments`).
    In exam mode :func:`answer` withholds the outcome, key and explanation until the last
    answer, and :func:`exam_review` gives them all at the end. An assignment's window is
    checked when a session starts and at every answer (:mod:`quizbot.practice.windows`). On a
    two-pass assignment :func:`second_pass_session` asks the items abstained on again, refusing
    "I don't know". :func:`answer` stores the time taken when given the question's
    ``shown_at``. An exam is open only to its cohort when the server knows who is asking
    (:class:`Sitter`, :mod:`quizbot.practice.seats`), and until its last answer nothing of it
    reaches its student by any other way: progress, review of mistakes, spaced review and
    summaries leave it out (:mod:`quizbot.practice.sealed`).

    Open recall (:mod:`quizbot.practice.recall`). :func:`start_recall_session` asks open
    questions ("What are the main symptoms of gout?"); :func:`answer_recall` scores the typed
    list with the models' scorer (:func:`quizbot.evaluation.recall.score_recall`), stores it like
    any answer and then says what was recalled (and by which rule), missed, true but not in the
    list, unverified and wrong, with F1 and the tier; :func:`grade_recall_entry` stores the
    student's own mark on an unverified entry (never scored). Recall assignments:
    :func:`start_recall_assignment`. Figures:
    :func:`recall_summary`, and ``Progress.recall`` (kept apart from the accuracy). Recall
    questions again (:mod:`quizbot.practice.recall_review`): :func:`start_recall_review` (the
    mistakes), :func:`start_recall_due` and :func:`recall_due_count` (spaced review, one FSRS
    card per question), :func:`resumable_recall_session` (after a reload).

    Spaced review. Every answer also updates the student's FSRS card for the fact it asks
    about (:mod:`quizbot.practice.review_queue`: the rating rule, one review per fact per day);
    :func:`due_items` lists the facts due, :func:`start_review_session` asks them.
    :func:`coverage` says how much of a KB (per organ system, per relation) a student has seen
    and how much of it is due.

Every dataclass returned has ``as_json()`` giving plain JSON types (datetimes as ISO 8601).
"""

from __future__ import annotations

from quizbot.practice.assignment_list import StudentAssignment, student_assignments
from quizbot.practice.assignments import (
    exam_review,
    second_pass_session,
    start_assignment_session,
)
from quizbot.practice.feedback import (
    answer,
    end_session,
    flag,
    leave_session,
    next_question,
    session_belongs_to,
    session_view,
)
from quizbot.practice.planning import (
    start_session,
    start_session_and_ask,
)
from quizbot.practice.recall import (
    DEFAULT_RECALL_LENGTH,
    answer_recall,
    grade_recall_entry,
    is_recall_session,
    next_recall_question,
    recall_aspects,
    recall_summary,
    start_recall_assignment,
    start_recall_session,
)
from quizbot.practice.recall_review import (
    recall_due_count,
    resumable_recall_session,
    start_recall_due,
    start_recall_review,
)
from quizbot.practice.reports import (
    coverage,
    progress,
    summary,
)
from quizbot.practice.resume import (
    close_idle,
    resumable_session,
)
from quizbot.practice.review_queue import (
    DueCounts,
    DueFact,
    count_due_now,
    due_counts,
    due_items,
    start_review_session,
)
from quizbot.practice.seats import Sitter
from quizbot.practice.step import (
    AnswerStep,
    answer_and_next,
)
from quizbot.practice.topics import (
    normalise_student,
    topics,
)
from quizbot.practice.views import (
    CANONICAL_SEED,
    IDLE_TIMEOUT,
    MAX_ANSWER_LENGTH,
    MAX_LENGTH,
    MAX_NAME_LENGTH,
    AnswerRecord,
    Coverage,
    Explanation,
    Feedback,
    Format,
    MeanScore,
    ModelResult,
    Option,
    OptionNote,
    Progress,
    ProgressPoint,
    Question,
    RecallAspectScore,
    RecalledEntity,
    RecallEntryNote,
    RecallFeedback,
    RecallProgress,
    RecallQuestion,
    RecallSummary,
    SessionInfo,
    SessionView,
    Summary,
    Topic,
    TopicCoverage,
    TopicProgress,
    TopicScore,
)

__all__ = [
    "CANONICAL_SEED",
    "DEFAULT_RECALL_LENGTH",
    "IDLE_TIMEOUT",
    "MAX_ANSWER_LENGTH",
    "MAX_LENGTH",
    "MAX_NAME_LENGTH",
    "AnswerRecord",
    "AnswerStep",
    "Coverage",
    "DueCounts",
    "DueFact",
    "Explanation",
    "Feedback",
    "Format",
    "MeanScore",
    "ModelResult",
    "Option",
    "OptionNote",
    "Progress",
    "ProgressPoint",
    "Question",
    "RecallAspectScore",
    "RecallEntryNote",
    "RecallFeedback",
    "RecallProgress",
    "RecallQuestion",
    "RecallSummary",
    "RecalledEntity",
    "SessionInfo",
    "SessionView",
    "Sitter",
    "StudentAssignment",
    "Summary",
    "Topic",
    "TopicCoverage",
    "TopicProgress",
    "TopicScore",
    "answer",
    "answer_and_next",
    "answer_recall",
    "close_idle",
    "count_due_now",
    "coverage",
    "due_counts",
    "due_items",
    "end_session",
    "exam_review",
    "flag",
    "grade_recall_entry",
    "is_recall_session",
    "leave_session",
    "next_question",
    "next_recall_question",
    "normalise_student",
    "progress",
    "recall_aspects",
    "recall_due_count",
    "recall_summary",
    "resumable_recall_session",
    "resumable_session",
    "second_pass_session",
    "session_belongs_to",
    "session_view",
    "start_assignment_session",
    "start_recall_assignment",
    "start_recall_due",
    "start_recall_review",
    "start_recall_session",
    "start_review_session",
    "start_session",
    "start_session_and_ask",
    "student_assignments",
    "summary",
    "topics",
]
