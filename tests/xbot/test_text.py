"""Reply wording: the four labels in words, a link, and never over X's limit."""

from __future__ import annotations

import pytest

from icarus.capture.x_post import Refusal, RefusalReason
from icarus.xbot.text import (
    LINK_CHARS,
    MAX_POST_CHARS,
    Conclusion,
    conclusion_reply,
    follow_up_reply,
    post_length,
    refusal_reply,
)

LINK = "https://icarus.example/checks/" + "a" * 32


def test_conclusion_names_label_band_claims_and_time() -> None:
    text = conclusion_reply(Conclusion("misleading", "medium", "2026-11-20T12:00:00Z", 2), LINK)
    assert text == (
        "\u26a0\ufe0f Misleading or missing context (confidence medium), 2 claims checked, "
        f"as of 2026-11-20 12:00 UTC. Evidence and reasons: {LINK}"
    )


def test_no_claim_found_says_so() -> None:
    text = conclusion_reply(Conclusion("unverifiable", "low", "2026-11-20T12:00:00Z", 0), LINK)
    assert text.startswith("\u2754 Unverifiable (confidence low): no checkable factual claim found.")


def test_follow_up_says_what_it_was_and_what_it_is() -> None:
    text = follow_up_reply("supported", Conclusion("not_supported", "high", "2026-11-21T12:00:00Z", 1), LINK)
    assert text.startswith("Update as of 2026-11-21 12:00 UTC: now \u274c Not supported by evidence")
    assert "was \u2705 Supported" in text and text.endswith(LINK)


def test_links_count_as_23_and_long_text_is_cut_before_the_link() -> None:
    assert post_length(f"abc {LINK}", LINK) == 4 + LINK_CHARS
    long_link = "https://icarus.example/" + "x" * 400
    text = conclusion_reply(Conclusion("supported", "high", "2026-11-20T12:00:00Z", 1), long_link)
    assert text.endswith(long_link) and post_length(text, long_link) <= MAX_POST_CHARS


@pytest.mark.parametrize("reason", list(RefusalReason))
def test_every_refusal_has_words(reason: RefusalReason) -> None:
    text = refusal_reply(Refusal(reason=reason, detail="x"))
    assert text.startswith("I can't check this: ") and len(text) < MAX_POST_CHARS
