"""``stance-claim@1``: the second offline assessor, independent of the ledger-rule one.

``LedgerAssessor`` reads the provenance graph, directness, access, reputation records and dates. This
assessor reads none of them: only the stance judge's typed answers for the claim (stance, confidence,
whether the judge failed, whether hidden text was quarantined) and the claim's own words. Two assessors
that read different things can disagree, and the reconciliation (median, spread rule) is then worth
something; one built on the same facts would only echo the first.

* source provenance: 10 x the highest confidence of a usable decisive answer (support or refute, judge
  not failed, nothing quarantined); a quarantined answer speaks for a source that tried to instruct
  the judge, so it never counts here;
* corroboration: 10 x the strongest supporting answer's confidence x (1 - the strongest refuting
  answer's confidence). It never counts answers: ten copies of one story are not ten confirmations, and
  this assessor cannot see which items are copies, so it reads only the strongest of each side. An
  answer about an item the claim misstates (rule 1) does not support the claim;
* internal consistency: 10 x |support - refute| / (support + refute), summing confidences of decisive
  answers; a claim that misstates the material it cites (rule 1: H20 and the other misrepresentation
  rules) scores 0, whatever the answers say;
* specificity: from the claim's words: points per anchor (a figure, a year or month, a capitalised
  name after the first word) less points per vague word ("some", "reportedly", "about"...);
* temporal validity: from the claim's words: a claim pinned to a past year is settled; one that speaks
  of now ("currently", "today", "still") is time-sensitive; otherwise in between;
* bias signal: from the claim's words: 10 less points per loaded or absolute word and per exclamation
  mark, and less again for each quarantined answer.

Every parameter is a named constant below (the methodology page renders them), and the code hash of the
package covers them. Pure: no I/O, no clock (the as-of year comes from the ledger).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

from icarus.ledger import Stance
from icarus.scoring.lvf.assessors import (
    AssessmentRequest,
    AssessorResult,
    AssessorStatus,
    clamp_score,
)
from icarus.scoring.lvf.config import Criterion

__all__ = [
    "ABSOLUTE_OR_LOADED",
    "ANCHOR_POINTS",
    "BIAS_POINTS_PER_SIGNAL",
    "NOW_WORDS",
    "QUARANTINE_PENALTY",
    "STANCE_ASSESSOR",
    "TEMPORAL_POINTS",
    "VAGUE_POINTS",
    "VAGUE_WORDS",
    "WITHOUT_ANSWERS",
    "StanceAssessor",
]

STANCE_ASSESSOR: Final = "stance-claim@1"
TEN: Final = Decimal(10)
WITHOUT_ANSWERS: Final = Decimal(5)
"""Internal consistency when no decisive answer exists: nothing to be consistent or inconsistent with."""
ANCHOR_POINTS: Final = Decimal("2.5")
VAGUE_POINTS: Final = Decimal("1.5")
BIAS_POINTS_PER_SIGNAL: Final = Decimal(2)
QUARANTINE_PENALTY: Final = Decimal(3)
TEMPORAL_POINTS: Final = {"settled": Decimal(10), "undated": Decimal(7), "now": Decimal(4)}
VAGUE_WORDS: Final = frozenset(
    "some many several various reportedly allegedly apparently might could may perhaps about around "
    "roughly nearly approximately possibly likely".split()
)
NOW_WORDS: Final = frozenset("now currently today still presently ongoing latest".split())
ABSOLUTE_OR_LOADED: Final = frozenset(
    "always never everyone nobody everything nothing totally completely shocking outrageous disaster "
    "catastrophic destroyed destroys scandal hoax lies lying corrupt disgraceful unbelievable".split()
)
MONTHS: Final = frozenset(
    "january february march april may june july august september october november december".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.,]\d+)*%?")
_YEAR = re.compile(r"^(1[89]|20)\d\d$")


def _answers(request: AssessmentRequest) -> list[tuple[Stance, Decimal, bool]]:
    """(stance, confidence, quarantined) of every answer the stance judge gave for this claim. A support
    answer about an item the claim misstates (rule 1) is read as neutral: the claim does not say what
    that item says."""
    misstated = {m.rsplit(" on ", 1)[-1] for m in request.facts.misrepresentations if " on " in m}
    found = []
    for item in request.facts.judged:
        judgment = item.judgment_for(request.facts.claim.claim_id)
        if judgment is None or judgment.stance.failure is not None:
            continue
        answer = judgment.stance
        stance = answer.stance
        if stance is Stance.SUPPORT and item.evidence_id in misstated:
            stance = Stance.NEUTRAL
        found.append((stance, Decimal(answer.confidence), answer.quarantined))
    return found


class StanceAssessor:
    """Scores the six criteria from the stance judge's answers and the claim text alone."""

    name = STANCE_ASSESSOR

    def assess(self, request: AssessmentRequest) -> AssessorResult:
        answers = _answers(request)
        decisive = [(s, c) for s, c, q in answers if s is not Stance.NEUTRAL and not q]
        quarantined = sum(1 for _, _, q in answers if q)
        words = _WORD.findall(request.facts.claim.text)
        scores: dict[Criterion, Decimal] = {}
        notes: dict[Criterion, str] = {}

        best = max((c for _, c in decisive), default=Decimal(0))
        scores[Criterion.SOURCE_PROVENANCE] = TEN * best
        notes[Criterion.SOURCE_PROVENANCE] = f"most confident decisive answer {best}"

        support = [c for s, c in decisive if s is Stance.SUPPORT]
        refute = [c for s, c in decisive if s is Stance.REFUTE]
        strongest_support = max(support, default=Decimal(0))
        strongest_refute = max(refute, default=Decimal(0))
        scores[Criterion.CORROBORATION] = TEN * strongest_support * (1 - strongest_refute)
        notes[Criterion.CORROBORATION] = (
            f"strongest supporting answer {strongest_support}, strongest refuting {strongest_refute}"
        )

        misstated = request.facts.misrepresentations
        if misstated:
            scores[Criterion.INTERNAL_CONSISTENCY] = Decimal(0)
            notes[Criterion.INTERNAL_CONSISTENCY] = "the claim misstates what it cites: " + ", ".join(
                misstated
            )
        elif not decisive:
            scores[Criterion.INTERNAL_CONSISTENCY] = WITHOUT_ANSWERS
            notes[Criterion.INTERNAL_CONSISTENCY] = "no decisive answer"
        else:
            total = sum(support, Decimal(0)) + sum(refute, Decimal(0))
            balance = abs(sum(support, Decimal(0)) - sum(refute, Decimal(0)))
            scores[Criterion.INTERNAL_CONSISTENCY] = TEN * balance / total if total else WITHOUT_ANSWERS
            notes[Criterion.INTERNAL_CONSISTENCY] = "agreement of the decisive answers, by confidence"

        anchors, vague = _anchors(words), [w for w in words if w.lower() in VAGUE_WORDS]
        scores[Criterion.SPECIFICITY] = ANCHOR_POINTS * anchors - VAGUE_POINTS * len(vague)
        notes[Criterion.SPECIFICITY] = f"{anchors} anchor(s), {len(vague)} vague word(s)"

        when = _when(words, request.ledger.as_of.year)
        scores[Criterion.TEMPORAL_VALIDITY] = TEMPORAL_POINTS[when]
        notes[Criterion.TEMPORAL_VALIDITY] = f"the claim's words read as {when}"

        loaded = [w for w in words if w.lower() in ABSOLUTE_OR_LOADED]
        signals = len(loaded) + request.facts.claim.text.count("!")
        scores[Criterion.BIAS_SIGNAL] = (
            TEN - BIAS_POINTS_PER_SIGNAL * signals - QUARANTINE_PENALTY * quarantined
        )
        notes[Criterion.BIAS_SIGNAL] = (
            f"{signals} loaded word(s) or exclamation(s), {quarantined} quarantined"
        )

        return AssessorResult(
            assessor=self.name,
            provider="icarus",
            version="1",
            status=AssessorStatus.OK,
            scores={c: clamp_score(scores[c]) for c in Criterion},
            notes={c: notes[c] for c in Criterion},
        )


def _anchors(words: list[str]) -> int:
    count = 0
    for index, word in enumerate(words):
        if word[0].isdigit() or word.lower() in MONTHS - {"may"} or (index > 0 and word[0].isupper()):
            count += 1
    return count


def _when(words: list[str], as_of_year: int) -> str:
    lowered = {w.lower() for w in words}
    if lowered & NOW_WORDS:
        return "now"
    years = [int(w) for w in words if _YEAR.match(w)]
    if years and max(years) < as_of_year:
        return "settled"
    return "undated"
