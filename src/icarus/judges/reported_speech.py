"""Claims about what someone said: evidence about the words' subject does not settle them.

"The surgeon general and the CDC both previously said masks are not effective" asserts that a statement was
made. Evidence that masks work neither supports nor refutes it; only evidence that reports (or denies) the
statement does. A stance model reads such a pair as a claim about masks, so this rule, applied to the side
calls of ``offline-minilm-fever@1``, keeps a side only where the evidence reports speech by the claim's
speaker:

* ``reported_speech(claim)`` finds the speaker of a claim of the form "<speaker> [has] [previously] said
  [that] <words>" (and "according to <speaker>, <words>"), with any verb of ``SPEECH_VERBS``; a speaker is at
  most ``MAX_SPEAKER_WORDS`` words and holds a content word;
* ``reports_speaker(speaker, evidence)`` is whether the evidence names one of the speaker's content words
  (by stem) within ``SPEAKER_WINDOW`` words of a speech verb.

A side call on a reported-speech claim whose evidence does not report the speaker becomes neutral. The rule
is lexical and cautious: it only ever turns a side into neutral.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from icarus.text import words as tx

__all__ = [
    "MAX_SPEAKER_WORDS",
    "SPEAKER_WINDOW",
    "SPEECH_VERBS",
    "ReportedSpeech",
    "reported_speech",
    "reports_speaker",
]

SPEECH_VERBS = (
    "said",
    "says",
    "say",
    "claimed",
    "claims",
    "stated",
    "states",
    "told",
    "tells",
    "announced",
    "announces",
    "admitted",
    "admits",
    "argued",
    "argues",
    "warned",
    "warns",
    "insisted",
    "insists",
    "tweeted",
    "tweets",
    "wrote",
    "writes",
    "declared",
    "declares",
    "suggested",
    "suggests",
    "asserted",
    "asserts",
    "denied",
    "denies",
    "promised",
    "promises",
    "recommended",
    "recommends",
    "advised",
    "advises",
    "posted",
    "posts",
    "called",
    "calls",
    "described",
    "describes",
    "praised",
    "praises",
    "stressed",
    "acknowledged",
    "confirmed",
    "revealed",
    "reported",
    "quoted",
    "speech",
    "statement",
    "interview",
    "remarks",
    "according",
)
MAX_SPEAKER_WORDS = 8
SPEAKER_WINDOW = 12  # words between a speaker's word and a speech verb for the evidence to report them

_VERBS = "|".join(
    v for v in SPEECH_VERBS if v not in {"speech", "statement", "interview", "remarks", "according"}
)
_ADVERBS = (
    r"(?:(?:has|have|had|once|previously|repeatedly|also|both|publicly|recently|allegedly|never|"
    r"already|earlier|falsely|openly|reportedly|even)\s+)*"
)
_SAID = re.compile(
    rf"^\s*(?P<speaker>[^,;:.!?\"“”]+?)\s+{_ADVERBS}(?P<verb>{_VERBS})\b(?:\s+that\b|\s*[:,])?\s+(?P<words>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)
_ACCORDING = re.compile(
    r"^\s*according\s+to\s+(?P<speaker>[^,]+?),\s*(?P<words>\S.*)$", re.IGNORECASE | re.DOTALL
)
_SPEECH_WORDS = frozenset(SPEECH_VERBS)


@dataclass(frozen=True, slots=True)
class ReportedSpeech:
    """A claim that ``speaker`` said ``words``; ``stems`` are the speaker's content stems."""

    speaker: str
    words: str
    stems: frozenset[str]


def reported_speech(claim: str) -> ReportedSpeech | None:
    """The speaker and the reported words of a claim about what someone said, or ``None`` (module docstring)."""
    for pattern in (_ACCORDING, _SAID):
        match = pattern.match(claim)
        if match is None:
            continue
        speaker = match.group("speaker").strip()
        words = tx.tokens(speaker)
        stems = frozenset(tx.content_stems(words))
        if not stems or len(words) > MAX_SPEAKER_WORDS:
            continue
        return ReportedSpeech(speaker, match.group("words").strip(), stems)
    return None


def _is_content(token: tx.Token) -> bool:
    return bool(tx.content_stems([token]))


def reports_speaker(speech: ReportedSpeech, evidence: str) -> bool:
    """Whether ``evidence`` names one of the speaker's content words near a speech verb (module docstring)."""
    words = tx.tokens(evidence)
    speaker_at = [i for i, t in enumerate(words) if _is_content(t) and tx.stem(t.text) in speech.stems]
    verbs_at = [i for i, t in enumerate(words) if t.text in _SPEECH_WORDS]
    return any(abs(s - v) <= SPEAKER_WINDOW for s in speaker_at for v in verbs_at)
