"""Is a document about the claim's subject at all? A page that search found is not evidence merely because
it shares a word with the claim: "Joe Biden supports the Green New Deal" is not spoken to by a page on
Biden's property-tax plan, nor a claim about prostate cancer by a page on masks and oxygen.

A document (title and text) is on the claim's subject when both hold:

* names: it names every name the claim names ("Green New Deal" as a phrase; a two-word name such as
  "Joe Biden" also by its last word written with its capital, "Biden"; a leading title such as
  "President" is not needed). A name is a run of capitalised words, less a sentence's first word
  standing alone ("Unemployment fell…") and months and weekdays, which the period check reads;
* terms: one sentence of it (or its title) holds at least ``MIN_SHARED_SHARE`` of the claim's key terms:
  its content words, less counting and reporting words (``GENERIC_WORDS``) that any topic uses. Words meet at their stems, and a stem meets a longer one it begins ("Nigeria",
  "Nigerians").

A document that fails either is set aside as ``different_subject`` (``icarus.debates.scope`` decides the
other set-aside reasons first): it is neither scored nor cited, and the panel lists it with what it lacks.
The check is pure and reads only the two texts.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Final

from icarus.debates.model import ScopeDecision
from icarus.debates.scope import ScopeCheck
from icarus.text import words as tx

__all__ = ["GENERIC_WORDS", "MIN_SHARED_SHARE", "NAME_TITLES", "ClaimSubject", "on_subject", "subject_gap"]

MIN_SHARED_SHARE: Final = 0.5
"""The share of the claim's key terms (rounded up) one sentence of a document must hold."""

GENERIC_WORDS: Final = frozenset(
    {"time", "times", "year", "years", "month", "months", "week", "weeks", "day", "days", "percent",
     "cent", "number", "numbers", "total", "least", "last", "first", "cumulative", "people", "claim",
     "claims", "support", "supports", "supported", "oppose", "opposes", "believe", "think", "want", "know",
     "make", "made", "get", "got", "go", "went", "take", "took", "way", "thing", "things", "lot", "today",
     "now", "ever", "every", "going"}
)  # fmt: skip
"""Words every topic uses: a page sharing only these with a claim is not about it."""

NAME_TITLES: Final = frozenset(
    {"president", "senator", "sen", "governor", "gov", "mayor", "minister", "prime", "mr", "mrs", "ms", "dr",
     "rep", "representative", "former", "vice", "secretary", "chancellor", "king", "queen", "sir", "general"}
)  # fmt: skip
"""Words before a person's name that a page need not repeat ("President Joe Biden" is "Joe Biden")."""

_NOT_NAMES: Final = frozenset(
    {*tx.MONTHS, "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "i"}
)
_CONNECTORS: Final = frozenset({"of", "for", "and", "the", "de", "on"})  # inside a name: "Bank of England"
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][A-Za-z]+)?")
_GAP_TERMS_SHOWN: Final = 4


@dataclass(frozen=True)
class ClaimSubject:
    """The claim's names (their words lower-cased -> the name as written) and key terms (stem -> the word
    as written)."""

    names: dict[tuple[str, ...], str]
    terms: dict[str, str]

    @classmethod
    def of(cls, text: str, whole_claim: str | None = None) -> ClaimSubject:
        """The subject of ``text``; a part of a claim too short to have key terms ("it rose") is about the
        subject of the ``whole_claim`` it was split from."""
        subject = cls(_names(text), _key_terms(text))
        if not subject.terms and whole_claim:
            return cls(_names(whole_claim), _key_terms(whole_claim))
        return subject

    @property
    def needed(self) -> int:
        return math.ceil(MIN_SHARED_SHARE * len(self.terms))


def subject_gap(subject: ClaimSubject, text: str) -> str | None:
    """None when ``text`` is about the claim's subject; else what it lacks, in words."""
    lowered = [token.text for token in tx.tokens(text)]
    missing = [written for name, written in subject.names.items() if not _names_it(name, lowered, text)]
    if missing:
        return "does not name " + ", ".join(missing)
    if not subject.terms or _best_sentence(subject, text) >= subject.needed:
        return None
    shown = list(subject.terms.values())[:_GAP_TERMS_SHOWN]
    return "no sentence about " + ", ".join(shown)


def on_subject(subject: ClaimSubject, text: str, check: ScopeCheck) -> ScopeCheck:
    """``check`` (the scope decision), or ``different_subject`` when a document it would keep is not about
    the claim's subject. A document already set aside keeps its more specific reason."""
    if not check.kept:
        return check
    gap = subject_gap(subject, text)
    return check if gap is None else ScopeCheck(ScopeDecision.DIFFERENT_SUBJECT, gap)


def _names(text: str) -> dict[tuple[str, ...], str]:
    names: dict[tuple[str, ...], str] = {}
    run: list[str] = []  # the current run of capitalised words, connectors inside it
    opens = False  # whether the run starts a sentence
    previous_end: int | None = None
    for match in _WORD.finditer(text):
        word = match.group(0)
        adjacent = previous_end is not None and text[previous_end : match.start()].isspace()
        previous_end = match.end()
        if run and adjacent and (word[0].isupper() or word in _CONNECTORS):
            run.append(word)
            continue
        _keep_name(run, opens, names)
        run = [word] if word[0].isupper() else []
        opens = bool(run) and _opens_sentence(text, match.start())
    _keep_name(run, opens, names)
    return names


def _keep_name(run: list[str], opens: bool, names: dict[tuple[str, ...], str]) -> None:
    """Add the name a run of capitalised words makes, if it makes one."""
    while run and run[-1] in _CONNECTORS:
        run = run[:-1]
    if opens and len(run) == 1:
        return  # a sentence's first word alone is capitalised by grammar, not as a name
    words = [_possessive(word) for word in run]
    while words and (words[0].lower() in tx.STOPWORDS or words[0].lower() in NAME_TITLES):
        words = words[1:]
    if not words or all(word.lower() in _NOT_NAMES for word in words):
        return
    names.setdefault(tuple(word.lower() for word in words), " ".join(words))


def _opens_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\"'“‘(")
    return not before or before[-1] in ".!?:;\n"


def _possessive(word: str) -> str:
    return re.sub(r"['’]s$", "", word)


def _names_it(name: tuple[str, ...], lowered: list[str], text: str) -> bool:
    """Whether the document's words hold ``name`` as a phrase, or, for a two-word name, its last word
    written with its capital ("Biden")."""
    size = len(name)
    for index in range(len(lowered) - size + 1):
        if all(_meets(lowered[index + offset], word) for offset, word in enumerate(name)):
            return True
    if size == 2 and len(name[1]) > 2:
        return re.search(r"\b" + re.escape(name[1].capitalize()), text) is not None
    return False


def _meets(written: str, word: str) -> bool:
    return _possessive(written).startswith(word)


def _key_terms(text: str) -> dict[str, str]:
    terms: dict[str, str] = {}
    for token in tx.tokens(text):
        word = token.text
        if word in tx.STOPWORDS or word in GENERIC_WORDS or word[0].isdigit() or len(word) < 3:
            continue
        if tx.is_negation(word):
            continue
        terms.setdefault(tx.stem(_possessive(word)), word)
    return terms


def _best_sentence(subject: ClaimSubject, text: str) -> int:
    """The most key terms any one sentence of ``text`` (the title is one) holds. A sentence, not the page:
    a page on masks that says "lower" in one sentence and "risk" and "cancer" in another is not about
    lowering the risk of cancer."""
    best = 0
    for start, end in tx.sentence_spans(text):
        stems = {tx.stem(_possessive(token.text)) for token in tx.tokens(text[start:end])}
        held = sum(1 for term in subject.terms if any(_stem_meets(stem, term) for stem in stems))
        best = max(best, held)
        if best >= subject.needed:
            break
    return best


def _stem_meets(stem: str, term: str) -> bool:
    """Whether two stems meet: "nigerian" and "nigeria" do, either way round; a short stem meets only
    itself."""
    if stem == term:
        return True
    shorter, longer = sorted((stem, term), key=len)
    return len(shorter) >= 5 and longer.startswith(shorter)
