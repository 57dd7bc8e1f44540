"""Contradictions made from supporting pairs, so the head learns what a "not" or a "fell" does.

Few labelled refutations state the opposite outright; most public refuting sentences disagree in other
ways. Static embeddings barely move when a "not" is added, so without examples the head would read
"traffic did not fall" as support for "traffic fell". From every ``AUGMENT_EVERY``-th supporting training
pair (chosen by a hash, not by order), one refuting pair is made by editing the passage:

* negation: the first auxiliary or modal verb gets a "not" ("has risen" → "has not risen");
  a passage that already negates loses its "not" instead;
* reversal: the first word with an antonym in the lexical judge's list is swapped for it ("rose" → "fell").

Restatements teach the other end of the scale: a passage that says what the claim says supports it. From
every ``AUGMENT_EVERY``-th distinct training claim, the claim restated in a reporting frame
(``RESTATEMENT_FRAMES``) is a supporting pair and the claim contradicted as above a refuting one.

Only training pairs are augmented; validation and test hold real data only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from icarus.judges.stancesets import LabelledPair

__all__ = ["AUGMENT_EVERY", "RESTATEMENT_FRAMES", "contradict", "contradictions", "restatements"]

AUGMENT_EVERY = 2
RESTATEMENT_FRAMES = (
    "{claim}",
    "{claim}, the report said.",
    "Officials confirmed that {lowered}",
    "It is true that {lowered}",
)
_AUXILIARY = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|should|may|might|must|does|do|did)\b(?! not\b)",
    re.IGNORECASE,
)
_NOT = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|should|does|do|did) not\b", re.IGNORECASE
)
_CONTRACTED = re.compile(r"\b(is|are|was|were|has|have|had|does|do|did)n't\b", re.IGNORECASE)
_OPPOSITES: dict[str, str] = {}
for _a, _b in (
    ("rise", "fall"), ("rises", "falls"), ("rose", "fell"), ("risen", "fallen"), ("rising", "falling"),
    ("increase", "decrease"), ("increases", "decreases"), ("increased", "decreased"),
    ("increasing", "decreasing"), ("higher", "lower"), ("more", "less"), ("larger", "smaller"),
    ("warmer", "cooler"), ("warming", "cooling"), ("gain", "loss"), ("grew", "shrank"), ("grow", "shrink"),
    ("above", "below"), ("positive", "negative"), ("reduces", "increases"), ("reduced", "increased"),
    ("improves", "worsens"), ("improved", "worsened"), ("safe", "unsafe"), ("effective", "ineffective"),
    ("accelerated", "slowed"), ("expanded", "contracted"), ("strengthened", "weakened"),
    ("approved", "rejected"), ("won", "lost"), ("true", "false"), ("present", "absent"),
):  # fmt: skip
    _OPPOSITES[_a], _OPPOSITES[_b] = _b, _a
_OPPOSITE = re.compile(r"\b(" + "|".join(sorted(_OPPOSITES, key=len, reverse=True)) + r")\b", re.IGNORECASE)


def _chosen(pair: LabelledPair) -> bool:
    digest = hashlib.sha256(f"augment\x00{pair.dataset}\x00{pair.claim}\x00{pair.passage}".encode()).digest()
    return digest[0] % AUGMENT_EVERY == 0


def _keep_case(original: str, replacement: str) -> str:
    return replacement.capitalize() if original[:1].isupper() else replacement


def contradict(passage: str, use_reversal: bool) -> str | None:
    """The passage made to say the opposite, or None when no edit applies."""
    if use_reversal and (match := _OPPOSITE.search(passage)):
        word = match.group(0)
        swapped = _keep_case(word, _OPPOSITES[word.lower()])
        return passage[: match.start()] + swapped + passage[match.end() :]
    if match := _NOT.search(passage):
        return passage[: match.end(1)] + passage[match.end() :]
    if match := _CONTRACTED.search(passage):
        return passage[: match.start()] + match.group(1) + passage[match.end() :]
    if match := _AUXILIARY.search(passage):
        return passage[: match.end()] + " not" + passage[match.end() :]
    return None


def contradictions(pairs: Iterable[LabelledPair]) -> list[LabelledPair]:
    """Refuting pairs made from a hashed half of the supporting ones (dataset ``augmented``)."""
    made = []
    for pair in pairs:
        if pair.label != "support" or not _chosen(pair):
            continue
        reversal = hashlib.sha256(pair.passage.encode()).digest()[1] % 2 == 0
        edited = contradict(pair.passage, reversal) or contradict(pair.passage, not reversal)
        if edited is not None and edited != pair.passage:
            made.append(
                LabelledPair("augmented", pair.group, pair.claim, edited, "refute", {"from": pair.dataset})
            )
    return made


def restatements(pairs: Iterable[LabelledPair]) -> list[LabelledPair]:
    """A supporting restatement and, where an edit applies, a refuting contradiction of a hashed half of the
    distinct claims (dataset ``augmented``)."""
    made = []
    for claim, source in dict.fromkeys((p.claim, p.dataset) for p in pairs):
        digest = hashlib.sha256(f"restate\x00{claim}".encode()).digest()
        if digest[0] % AUGMENT_EVERY:
            continue
        frame = RESTATEMENT_FRAMES[digest[1] % len(RESTATEMENT_FRAMES)]
        sentence = claim.rstrip(" .")
        restated = frame.format(claim=sentence, lowered=sentence[:1].lower() + sentence[1:])
        made.append(LabelledPair("augmented", claim, claim, restated, "support", {"from": source}))
        contradicted = contradict(claim, digest[2] % 2 == 0) or contradict(claim, digest[2] % 2 == 1)
        if contradicted is not None and contradicted != claim:
            made.append(LabelledPair("augmented", claim, claim, contradicted, "refute", {"from": source}))
    return made
