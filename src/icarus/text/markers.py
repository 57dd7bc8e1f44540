"""Word lists and patterns that more than one floor reads: the scoring rules (H30, G2), the quarantine
before every model call, and the judges' negation test. Defined once, here, below all of them."""

from __future__ import annotations

import re

__all__ = ["INSTRUCTION_INJECTION", "NEGATION_WORDS"]

# H30: text addressed to an AI model.
INSTRUCTION_INJECTION = re.compile(
    r"(?:ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) (?:instructions|prompts?)|"
    r"disregard (?:all |any )?(?:previous|prior|above) (?:instructions|prompts?)|"
    r"\byou are (?:now )?(?:an? )?(?:ai|language model|assistant|chatgpt)\b|"
    r"\b(?:system|developer) prompt\b|\bas an ai (?:model|assistant)\b|"
    r"(?:respond|answer|reply) (?:only )?with [\"']?(?:true|supported|refuted|false)[\"']?|"
    r"<\s*/?\s*(?:system|assistant|instructions?)\s*>)",
    re.IGNORECASE,
)

# Words that negate what follows (G2 reads an OCR token among them as load-bearing; the judges'
# ``is_negation``).
NEGATION_WORDS: frozenset[str] = frozenset(
    {
        "no",
        "not",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "without",
        "n't",
        "cannot",
        "didn't",
        "doesn't",
        "isn't",
        "wasn't",
        "won't",
        "don't",
        "aren't",
        "weren't",
    }
)
