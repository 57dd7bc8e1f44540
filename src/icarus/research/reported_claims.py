"""Sentences that report a claim instead of asserting it, so an excerpt does not quote them as evidence.

A fact check or a debunking article restates the claim it examines ("A viral post claims that X", "Claim:
X", "Was X?") and then says what is true. That restatement shares every word with the claim, so an excerpt
chosen by shared words lands on it, and a judge reading it finds the claim agreed with: the article that
refutes X is filed as support for X. The source never asserted X; it quoted someone who did.

A sentence reports a claim when it is a question, when it opens with a claim label ("Claim:", "Rumor:"),
when a verb of distance attributes its content to someone ("claims that", "allegedly"), or when it
attributes its content to the places claims circulate ("posts say", "social media users said").

The rule does not apply when the claim under check is itself about what someone said ("X claimed Y", "the
minister said Y"): then a report of that statement is the evidence (``is_about_a_statement``).
"""

from __future__ import annotations

import re

__all__ = ["is_about_a_statement", "reports_a_claim"]

_TRAILING = " \t\r\n\"'\u201d\u2019)]"
_CLAIM_LABEL = re.compile(
    r"^\W*(?:the\s+)?(?:claims?|rumou?rs?|viral\s+(?:claims?|posts?)|what\s+(?:was|is)\s+claimed)\s*[:\u2013\u2014-]",
    re.IGNORECASE,
)
# Verbs by which a writer keeps a statement at arm's length: whoever the subject, the sentence reports it.
# "Alleged" as an adjective ("an alleged assault") is how news names a charge, not distance, so only the verb
# with its clause and the adverb count.
_DISTANCE = re.compile(
    r"\b(?:claim(?:s|ed|ing)?\s+(?:that|to)|alleg(?:e|es|ed|ing)\s+that|allegedly|supposedly"
    r"|(?:is|are|was|were)\s+(?:claimed|rumou?red)|rumou?red)\b",
    re.IGNORECASE,
)
# Where claims circulate, followed within a few words by a plain reporting verb ("posts say", "a viral
# video shared on Facebook claims", "social media users said").
_CIRCULATION_REPORT = re.compile(
    r"\b(?:posts?|tweets?|memes?|rumou?rs?|hoax(?:es)?|chain\s+(?:messages?|letters?)"
    r"|social\s+media|viral\s+\w+|facebook|whatsapp|instagram|tiktok)\b"
    r"(?:\W+\w+){0,6}?\W+(?:claim(?:s|ed)?|sa(?:y|ys|id)|stat(?:e|es|ed)|suggest(?:s|ed)?|insist(?:s|ed)?)\b",
    re.IGNORECASE,
)
# A claim about a statement: someone said, claimed, wrote or posted something.
_STATEMENT_VERB = re.compile(
    r"\b(?:sa(?:y|ys|id)|claim(?:s|ed)?|alleg(?:e|es|ed)|stat(?:e|es|ed)|told|tweet(?:s|ed)?|wr(?:ote|ites)"
    r"|post(?:s|ed)|quoted|announc(?:e|es|ed)|declar(?:e|es|ed))\b",
    re.IGNORECASE,
)


def reports_a_claim(sentence: str) -> bool:
    """Whether ``sentence`` reports a claim (a question, a claim label, a verb of distance, or a report of
    what posts or social media say) rather than asserting something itself. Pure."""
    if sentence.rstrip(_TRAILING).endswith("?"):
        return True
    return bool(
        _CLAIM_LABEL.search(sentence) or _DISTANCE.search(sentence) or _CIRCULATION_REPORT.search(sentence)
    )


def is_about_a_statement(claim: str) -> bool:
    """Whether ``claim`` is about what someone said, claimed or posted, so reports of statements are its
    evidence. Pure."""
    return _STATEMENT_VERB.search(claim) is not None
