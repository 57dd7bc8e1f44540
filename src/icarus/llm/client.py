"""What every OpenAI-compatible call shares: the default timeout, what reading a malformed answer raises,
and the hash that records exactly what a model was shown.

No client is built here (the ``openai`` package is imported by the callers that send), so that the judge
protocol and the ledger code can hash a prompt without loading it.
"""

from __future__ import annotations

import hashlib
import json

__all__ = ["DEFAULT_TIMEOUT_S", "UNREADABLE_COMPLETION", "prompt_hash"]

DEFAULT_TIMEOUT_S = 60.0
"""Seconds one model call may take before it counts as failed."""

UNREADABLE_COMPLETION = (LookupError, ValueError, AttributeError, TypeError, RecursionError)
"""What reading an endpoint's answer raises when it is no completion: no choices (IndexError), an error
object sent with status 200 (``choices`` null: TypeError), a message of the wrong type (AttributeError), a
body that is not JSON (ValueError) or is nested deeper than the SDK's json parser goes (RecursionError)."""


def prompt_hash(payload: object) -> str:
    """SHA-256 (hex) of ``payload`` as canonical JSON: the same prompt always hashes the same."""
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
