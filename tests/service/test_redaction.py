"""Hiding a removed post's words from a served version, keeping everything else."""

from __future__ import annotations

from typing import Any

from icarus.reports.redaction import hidden_text, redact_ledger, redact_result

LEDGER: dict[str, Any] = {
    "subject": {
        "kind": "x_post",
        "subject_id": "1",
        "fields": [{"name": "post_text", "text": "Secret words here", "artifact_id": "1"}],
        "context": [{"name": "quoted_post", "text": "quoted words", "artifact_id": "2"}],
        "images": [
            {"image_id": "m1", "url": "https://pbs.example/m1.jpg", "ocr_text": "image words", "tokens": []}
        ],
        "cited_links": [{"url": "https://example.org/source"}],
    },
    "claims": [
        {"claim_id": "c1", "text": "Secret words", "normalized": "secret words rephrased", "span": {}}
    ],
    "evidence": [{"evidence_id": "e1", "text": "evidence text stays"}],
}
RESULT: dict[str, Any] = {
    "overall": {"label": "supported", "band": "medium"},
    "claims": [{"id": "c1", "text": "Secret words", "label": "supported", "reasons": [{"code": "rule-4@1"}]}],
    "not_assessed": [{"id": "c2", "text": "opinion words", "reason": "opinion"}],
    "evidence": [{"id": "e1", "url": "https://example.org/e1"}],
}


def test_the_ledger_loses_the_posts_words_and_images_but_keeps_the_evidence() -> None:
    hidden = redact_ledger(LEDGER, "deleted")
    text = str(hidden)
    for words in ("Secret", "quoted words", "image words", "rephrased", "pbs.example"):
        assert words not in text
    assert hidden["claims"][0]["text"] == hidden_text("deleted")
    assert hidden["evidence"] == LEDGER["evidence"]
    assert hidden["subject"]["subject_id"] == "1" and hidden["source_hidden"] == "deleted"
    assert "Secret words here" in str(LEDGER)  # the stored copy is untouched


def test_the_result_keeps_verdicts_reasons_and_evidence() -> None:
    hidden = redact_result(RESULT, "protected")
    assert "Secret" not in str(hidden) and "opinion words" not in str(hidden)
    assert hidden["claims"][0]["label"] == "supported" and hidden["claims"][0]["reasons"]
    assert hidden["overall"] == RESULT["overall"] and hidden["evidence"] == RESULT["evidence"]
    assert hidden["not_assessed"][0]["reason"] == "opinion"
