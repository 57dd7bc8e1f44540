"""Subject capture: turn pasted text, a fetched page or an X mention into a ``Subject``, verbatim.

Every function here is pure: the caller supplies the fetched material and the capture time. Text is
stored exactly as received, because claim spans index it (G0); input that cannot be stored that way is
refused with ``CaptureError``. For X, the subject is the tagging reply's direct parent, or a typed
refusal saying why it is unavailable.
"""

from icarus.capture._common import MAX_CITED_LINKS, MAX_TEXT_CHARS, CaptureError
from icarus.capture.page import capture_page
from icarus.capture.text import capture_text
from icarus.capture.x_post import (
    CaptureOutcome,
    Refusal,
    RefusalReason,
    capture_x_mention,
    x_post_url,
    x_profile_url,
)

__all__ = [
    "MAX_CITED_LINKS",
    "MAX_TEXT_CHARS",
    "CaptureError",
    "CaptureOutcome",
    "Refusal",
    "RefusalReason",
    "capture_page",
    "capture_text",
    "capture_x_mention",
    "x_post_url",
    "x_profile_url",
]
