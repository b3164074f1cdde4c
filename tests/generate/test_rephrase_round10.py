"""The tenth round's rules (issue 24): a candidate that is all entity names, the outcome of "the
likelihood that", "can never" for an impossibility, people and everyday verbs of a relation in
the closed world, and the direction of "comes from" and "is behind". Every sentence is written for
these tests (none is from a data set); each rule is paired with a corruption it must still reject.
"""

from __future__ import annotations

import pytest

from tests.helpers.rephrase import verdict_of

EFFECT = "aspirin has physiologic effect of Decreased Platelet Aggregation ."
RISK = (
    "If a patient suffers from Gout, then the likelihood of he/she suffering from Kidney Stones "
    "is higher."
)
CANNOT = "Hyperkalemia cannot be caused by spironolactone."
UNABLE = "spironolactone is not able to treat Hypertension ."
WISH = "If a patient wishes to prevent Cholera, he/she should take doxycycline."
TREATED = "Cholera may be treated by doxycycline"
UNASSOCIATED = "The disease Gout is not associated with disease Psoriasis ."
UNAFFECTED = (
    "A decrease in the production of Insulin Receptor does not affect the functionality of "
    "Tyrosine Kinase."
)
GENE = "The gene product Chloride Anion Exchanger is encoded by the gene SLC26A3 Gene."
RATE = "metoprolol has physiologic effect of Decreased Heart Rate ."
NO_EFFECT = "Taking doxycycline have no effect on treating Cholera."
SHOULD = "If a patient suffers from Cholera, he/she should take doxycycline."
CAUSED = "A change of Glycolysis is not caused by the reduction in the production of Hexokinase 2."


@pytest.mark.parametrize(
    ("statement", "candidate", "head", "tail", "expected"),
    [
        # nothing but the two entities and a verb that is part of the tail: no words left to
        # compare (it used to raise ValueError in the degree check and stop a generation)
        (
            EFFECT,
            "Aspirin decreases platelet aggregation.",
            "aspirin",
            "Decreased Platelet Aggregation",
            "accepted",
        ),
        (
            EFFECT,
            "Aspirin increases platelet aggregation.",
            "aspirin",
            "Decreased Platelet Aggregation",
            "entity missing",
        ),
        # "the likelihood that" leads to the risk's outcome
        (
            RISK,
            "Having gout increases the likelihood that a patient develops kidney stones.",
            "Gout",
            "Kidney Stones",
            "accepted",
        ),
        (
            RISK,
            "The presence of kidney stones increases the likelihood that a patient suffers "
            "from gout.",
            "Gout",
            "Kidney Stones",
            "roles swapped",
        ),
        # "can never" says no more than "cannot" or "is not able to"
        (
            CANNOT,
            "Hyperkalemia can never be caused by spironolactone.",
            "spironolactone",
            "Hyperkalemia",
            "accepted",
        ),
        (
            UNABLE,
            "Spironolactone can never treat hypertension.",
            "spironolactone",
            "Hypertension",
            "accepted",
        ),
        # but "never" is still an absolute where the statement only denies
        (
            "Hyperkalemia is not caused by spironolactone.",
            "Hyperkalemia is never caused by spironolactone.",
            "spironolactone",
            "Hyperkalemia",
            "claim strength changed",
        ),
        # people and everyday verbs of the statement's relation (closed world)
        (
            WISH,
            "Anyone who wants to prevent cholera should take doxycycline.",
            "doxycycline",
            "Cholera",
            "accepted",
        ),
        (
            WISH,
            "People who want to avoid getting cholera should take doxycycline.",
            "doxycycline",
            "Cholera",
            "accepted",
        ),
        (
            TREATED,
            "Doctors may treat cholera with doxycycline.",
            "doxycycline",
            "Cholera",
            "accepted",
        ),
        (
            UNABLE,
            "Spironolactone does not work as a treatment for hypertension.",
            "spironolactone",
            "Hypertension",
            "accepted",
        ),
        (
            UNASSOCIATED,
            "Psoriasis shows no association with gout.",
            "Gout",
            "Psoriasis",
            "accepted",
        ),
        (UNASSOCIATED, "Psoriasis has no link to gout.", "Gout", "Psoriasis", "accepted"),
        (
            UNAFFECTED,
            "Tyrosine kinase activity stays unaffected when insulin receptor production goes down.",
            "Insulin Receptor",
            "Tyrosine Kinase",
            "accepted",
        ),
        # the same words do not let an unlisted verb through
        (
            TREATED,
            "Doctors may worsen cholera with doxycycline.",
            "doxycycline",
            "Cholera",
            "antonym",
        ),
        (
            WISH,
            "Anyone who wants to prevent cholera should shun doxycycline.",
            "doxycycline",
            "Cholera",
            "predicate changed",
        ),
        # "comes from" names the cause last, "is behind" first
        (
            CAUSED,
            "A change in glycolysis does not come from reduced hexokinase 2 production.",
            "Hexokinase 2",
            "Glycolysis",
            "accepted",
        ),
        (
            CAUSED,
            "A change in hexokinase 2 production does not come from reduced glycolysis.",
            "Hexokinase 2",
            "Glycolysis",
            "roles swapped",
        ),
        (
            CAUSED,
            "Reduced hexokinase 2 production is not behind changes in glycolysis.",
            "Hexokinase 2",
            "Glycolysis",
            "accepted",
        ),
        (
            CAUSED,
            "Reduced glycolysis is not behind changes in hexokinase 2 production.",
            "Hexokinase 2",
            "Glycolysis",
            "roles swapped",
        ),
        # a gene symbol one digit off is another gene, whatever letters it shares
        (
            GENE,
            "Chloride anion exchanger is the product encoded by the SLC26A3 gene.",
            "SLC26A3 Gene",
            "Chloride Anion Exchanger",
            "accepted",
        ),
        (
            GENE,
            "Chloride anion exchanger is the product encoded by the SLC26A2 gene.",
            "SLC26A3 Gene",
            "Chloride Anion Exchanger",
            "entity missing",
        ),
        # a change named by its direction: another word of the same direction, never the other
        (
            RATE,
            "Metoprolol lowers the heart rate.",
            "metoprolol",
            "Decreased Heart Rate",
            "accepted",
        ),
        (
            RATE,
            "Metoprolol leads to a reduced heart rate.",
            "metoprolol",
            "Decreased Heart Rate",
            "accepted",
        ),
        (
            RATE,
            "Metoprolol raises the heart rate.",
            "metoprolol",
            "Decreased Heart Rate",
            "entity missing",
        ),
        (
            RATE,
            "Metoprolol leads to an elevated heart rate.",
            "metoprolol",
            "Decreased Heart Rate",
            "entity missing",
        ),
        # "not ... at all" stresses the negation; "all patients" is still a universal
        (
            NO_EFFECT,
            "Doxycycline does not help at all in treating cholera.",
            "doxycycline",
            "Cholera",
            "accepted",
        ),
        (
            TREATED,
            "Cholera may be treated by doxycycline in all patients.",
            "doxycycline",
            "Cholera",
            "claim strength changed",
        ),
        (
            SHOULD,
            "If you have cholera, you should take doxycycline.",
            "doxycycline",
            "Cholera",
            "accepted",
        ),
    ],
)
def test_tenth_round(statement: str, candidate: str, head: str, tail: str, expected: str) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected
