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

from icarus.evaluation.stancesets import LabelledPair

__all__ = [
    "AUGMENT_EVERY",
    "RESTATEMENT_FRAMES",
    "changed_quantity",
    "contradict",
    "contradictions",
    "direction_paraphrases",
    "quantity_edits",
    "restatements",
]

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


# --- Quantities and directions (the cross-encoder trainer's --quantity-pairs) ------------------------------
#
# Two kinds of pair teach what a number or a direction word does, which the data above leave to chance:
#
# * quantity edits: a supporting passage that repeats one of the claim's numbers, with that number changed
#   in the passage, refutes the claim ("down 12%" against "fell 12%" supports; "down 18%" refutes);
# * direction paraphrases: a claim that moves something ("fell", "rises", "higher") restated with another
#   word for the same direction supports it ("dropped", "was down 12%"), and with a word for the other
#   direction refutes it.
#
# Years are left alone: a changed year is a different period (scope), not always a contradiction.

# A number standing alone, not part of a name such as "COVID-19", "P38" or "SARS-CoV-2".
_NUMBER_BEFORE, _NUMBER_AFTER = r"(?<![\w.,-])", r"(?![\w-]|[.,]\d)"
_NUMBER = re.compile(rf"{_NUMBER_BEFORE}(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?{_NUMBER_AFTER}")
_YEARS = range(1800, 2101)
# Shares of its own value by which a quantity is moved up: a visible change, never an absurd one.
_QUANTITY_STEPS = (0.25, 0.5, 0.75, 1.0)

_UP, _DOWN = "up", "down"
# Word forms that can stand in for one another, by grammatical form and direction.
_DIRECTION_FORMS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("past", ("rose", "increased", "grew", "climbed"), ("fell", "decreased", "dropped", "declined")),
    ("present", ("rises", "increases", "grows", "climbs"), ("falls", "decreases", "drops", "declines")),
    ("base", ("rise", "increase", "grow", "climb"), ("fall", "decrease", "drop", "decline")),
    ("ing", ("rising", "increasing", "growing", "climbing"), ("falling", "decreasing", "dropping", "declining")),
    ("participle", ("risen", "grown", "increased"), ("fallen", "dropped", "decreased")),
    ("comparative", ("higher", "greater"), ("lower", "smaller")),
)  # fmt: skip
_DIRECTION_OF: dict[str, tuple[str, str]] = {}
for _form, _ups, _downs in _DIRECTION_FORMS:
    for _word in _ups:
        _DIRECTION_OF.setdefault(_word, (_form, _UP))
    for _word in _downs:
        _DIRECTION_OF.setdefault(_word, (_form, _DOWN))
_WORDS_FOR = {(form, _UP): ups for form, ups, _ in _DIRECTION_FORMS} | {
    (form, _DOWN): downs for form, _, downs in _DIRECTION_FORMS
}
# After an article the base form is a noun ("a decrease in"): other nouns stand in, the article agreeing.
_NOUNS = {_UP: ("rise", "increase"), _DOWN: ("fall", "decrease", "drop", "decline")}
_ARTICLE_BEFORE = re.compile(r"\b(an?)\s+$", re.IGNORECASE)
# "fell 12%" can also be said "was down 12%".
_BY_AMOUNT = {_UP: "was up", _DOWN: "was down"}
_DIRECTION_WORD = re.compile(r"\b(" + "|".join(sorted(_DIRECTION_OF, key=len, reverse=True)) + r")\b", re.I)
_AMOUNT_FOLLOWS = re.compile(r"\s+(?:by\s+)?(?:about\s+|roughly\s+|nearly\s+)?\d")


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x00".join(parts).encode()).digest()


def _is_year(token: str) -> bool:
    return token.isdigit() and int(token) in _YEARS


def changed_quantity(token: str, step: float) -> str:
    """``token`` (``12``, ``46,800``, ``0.5``) moved up by ``step`` of itself, in the same notation."""
    commas = "," in token
    places = len(token.split(".")[1]) if "." in token else 0
    value = float(token.replace(",", ""))
    moved = value + max(value * step, 10.0**-places)
    return f"{moved:,.{places}f}" if commas else f"{moved:.{places}f}"


def quantity_edits(pairs: Iterable[LabelledPair]) -> list[LabelledPair]:
    """Refuting pairs made from supporting ones whose passage repeats one of the claim's numbers (not a year),
    that number changed wherever the passage states it (dataset ``augmented``)."""
    made = []
    for pair in pairs:
        if pair.label != "support":
            continue
        claimed = {t for t in _NUMBER.findall(pair.claim) if not _is_year(t)}
        shared = [t for t in _NUMBER.findall(pair.passage) if t in claimed]
        if not shared:
            continue
        token = shared[0]
        digest = _digest("quantity", pair.dataset, pair.claim, pair.passage)
        replacement = changed_quantity(token, _QUANTITY_STEPS[digest[0] % len(_QUANTITY_STEPS)])
        edited = re.sub(f"{_NUMBER_BEFORE}{re.escape(token)}{_NUMBER_AFTER}", replacement, pair.passage)
        if edited != pair.passage:
            made.append(
                LabelledPair("augmented", pair.group, pair.claim, edited, "refute", {"from": pair.dataset})
            )
    return made


def _rephrased(claim: str, match: re.Match[str], direction: str, pick: int) -> str:
    word = match.group(0)
    form, _ = _DIRECTION_OF[word.lower()]
    start = match.start()
    article = _ARTICLE_BEFORE.search(claim, 0, start) if form == "base" else None
    options = _NOUNS[direction] if article else _WORDS_FOR[(form, direction)]
    choices = [w for w in options if w != word.lower()]
    if form == "past" and _AMOUNT_FOLLOWS.match(claim, match.end()):
        choices.append(_BY_AMOUNT[direction])
    chosen = _keep_case(word, choices[pick % len(choices)])
    if article:
        start = article.start()
        chosen = _keep_case(article.group(1), "an" if chosen[0] in "aeiouAEIOU" else "a") + " " + chosen
    return claim[:start] + chosen + claim[match.end() :]


def direction_paraphrases(pairs: Iterable[LabelledPair]) -> list[LabelledPair]:
    """For every distinct claim with a direction word: the claim said with another word for the same
    direction (support) and with a word for the other direction (refute), in a reporting frame."""
    made = []
    for claim, source in dict.fromkeys((p.claim, p.dataset) for p in pairs):
        match = _DIRECTION_WORD.search(claim)
        if match is None:
            continue
        digest = _digest("direction", claim)
        _, direction = _DIRECTION_OF[match.group(0).lower()]
        other = _DOWN if direction == _UP else _UP
        frame = RESTATEMENT_FRAMES[digest[0] % len(RESTATEMENT_FRAMES)]
        for label, towards, pick in (("support", direction, digest[1]), ("refute", other, digest[2])):
            sentence = _rephrased(claim, match, towards, pick).rstrip(" .")
            passage = frame.format(claim=sentence, lowered=sentence[:1].lower() + sentence[1:])
            made.append(LabelledPair("augmented", claim, claim, passage, label, {"from": source}))
    return made
