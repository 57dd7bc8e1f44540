"""Hide a removed post's words and images from a stored version as it is served; keep everything else.

When the source post is deleted or protected, what Icarus redistributed from it (the captured text, the
claims sliced verbatim from it, text read from its images, the images themselves) is withheld. The
verdicts, reasons, evidence, hashes and timeline stay exactly as recorded, so the report still says what
was concluded and why. The stored version is not touched; these functions return redacted copies.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["hidden_text", "redact_ledger", "redact_result"]


def hidden_text(reason: str) -> str:
    return f"[hidden: the source post was {reason}]"


def redact_result(result: Mapping[str, Any], reason: str) -> dict[str, Any]:
    """A published result with every claim's text (a verbatim span of the post) replaced by a notice."""
    redacted = copy.deepcopy(dict(result))
    for section in ("claims", "not_assessed"):
        for entry in redacted.get(section) or []:
            if isinstance(entry, dict) and "text" in entry:
                entry["text"] = hidden_text(reason)
            if isinstance(entry, dict) and isinstance(entry.get("implied"), dict):
                entry["implied"]["statement"] = hidden_text(reason)  # it restates the post's words
    redacted["source_hidden"] = reason
    return redacted


def redact_ledger(ledger: Mapping[str, Any], reason: str) -> dict[str, Any]:
    """A ledger with the subject's captured text, context and images withheld, and claim texts hidden."""
    redacted = copy.deepcopy(dict(ledger))
    notice = hidden_text(reason)
    subject = redacted.get("subject")
    if isinstance(subject, dict):
        for key in ("fields", "context"):
            for captured in subject.get(key) or []:
                if isinstance(captured, dict):
                    captured["text"] = notice
        subject["images"] = [
            {"image_id": image.get("image_id"), "ocr_text": notice, "tokens": []}
            for image in subject.get("images") or []
            if isinstance(image, dict)
        ]
    for claim in redacted.get("claims") or []:
        if isinstance(claim, dict):
            if "text" in claim:
                claim["text"] = notice
            if claim.get("normalized"):
                claim["normalized"] = notice  # a rewording of the post's words is still its words
            implication = claim.get("implication")
            if isinstance(implication, dict) and implication.get("statement"):
                implication["statement"] = notice  # so is what they imply
    redacted["source_hidden"] = reason
    return redacted
