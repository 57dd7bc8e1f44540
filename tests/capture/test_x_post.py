from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

import pytest

from icarus.capture import CaptureError, CaptureOutcome, RefusalReason, capture_x_mention
from icarus.ledger import FieldName, Subject, SubjectKind
from tests.capture.conftest import load_payload


def captured(name: str, captured_at: datetime, **kwargs: Any) -> Subject:
    outcome = capture_x_mention(load_payload(name), captured_at, **kwargs)
    assert outcome.ok, outcome.refusal
    assert outcome.subject is not None
    return outcome.subject


def refused(payload: dict[str, Any], captured_at: datetime) -> CaptureOutcome:
    outcome = capture_x_mention(payload, captured_at)
    assert not outcome.ok
    assert outcome.subject is None and outcome.refusal is not None
    assert outcome.refusal.message.startswith("subject unavailable: ")
    return outcome


def test_subject_is_the_direct_parent_not_the_tagging_reply(captured_at: datetime) -> None:
    subject = captured("note_tweet_parent", captured_at)
    assert subject.kind is SubjectKind.X_POST
    assert subject.subject_id == "1900000000000000100"
    assert subject.is_direct_parent
    assert subject.url == "https://x.com/harbourdata/status/1900000000000000100"
    assert all("is this right" not in f.text for f in subject.fields)


def test_note_tweet_is_kept_alongside_the_truncated_text(captured_at: datetime) -> None:
    payload = load_payload("note_tweet_parent")
    parent = payload["includes"]["tweets"][0]
    subject = captured("note_tweet_parent", captured_at)
    assert subject.field_text(FieldName.POST_TEXT) == parent["text"]
    assert subject.field_text(FieldName.NOTE_TWEET) == parent["note_tweet"]["text"]
    assert {f.artifact_id for f in subject.fields} == {"1900000000000000100"}


def test_cited_links_come_from_expanded_urls_without_self_links(captured_at: datetime) -> None:
    subject = captured("note_tweet_parent", captured_at)
    # The truncated text's link points back at the post itself; the note's link is the real citation.
    assert [link.url for link in subject.cited_links] == ["https://harbourton-port.example/news/2025-volumes"]


def test_artifacts_are_post_and_author_profile(captured_at: datetime) -> None:
    subject = captured("note_tweet_parent", captured_at)
    assert subject.artifact_urls == [
        "https://x.com/harbourdata/status/1900000000000000100",
        "https://x.com/harbourdata",
    ]
    assert subject.language == "en"
    assert not subject.has_video_or_audio
    assert subject.images == []


def test_quoted_post_is_claim_wording_and_the_conversation_root_context(captured_at: datetime) -> None:
    subject = captured("quoted_parent", captured_at)
    assert subject.subject_id == "1900000000000000202"  # the subject stays the direct parent
    assert [(f.name, f.artifact_id) for f in subject.fields] == [
        (FieldName.POST_TEXT, "1900000000000000202"),
        (FieldName.QUOTED_POST, "1900000000000000150"),
    ]
    assert subject.field_text(FieldName.QUOTED_POST) == (
        "Reservoir update: levels across the Vale network stand at 38% of capacity this week. "
        "Please use water wisely."
    )
    assert [(c.name, c.artifact_id) for c in subject.context] == [
        (FieldName.POST_TEXT, "1900000000000000201")
    ]
    assert subject.artifact_urls == [
        "https://x.com/valewatch/status/1900000000000000202",
        "https://x.com/valewater/status/1900000000000000150",
        "https://x.com/valewatch",
    ]
    # The link to the quoted post is part of the subject, not a citation.
    assert [link.url for link in subject.cited_links] == [
        "https://vale-water.example/reports/reservoir-levels?utm_source=x"
    ]


def test_quoted_post_missing_from_includes_still_names_its_url(captured_at: datetime) -> None:
    payload = load_payload("quoted_parent")
    payload["includes"]["tweets"] = [
        t for t in payload["includes"]["tweets"] if t["id"] != "1900000000000000150"
    ]
    outcome = capture_x_mention(payload, captured_at)
    assert outcome.subject is not None
    assert "https://x.com/i/status/1900000000000000150" in outcome.subject.artifact_urls
    assert [c.name for c in outcome.subject.context] == [FieldName.POST_TEXT]
    assert [f.name for f in outcome.subject.fields] == [FieldName.POST_TEXT]


def test_a_quote_in_another_language_stays_context(captured_at: datetime) -> None:
    payload = load_payload("quoted_parent")
    quoted = next(t for t in payload["includes"]["tweets"] if t["id"] == "1900000000000000150")
    quoted["lang"] = "fr"
    outcome = capture_x_mention(payload, captured_at)
    assert outcome.subject is not None and outcome.subject.language == "en"
    assert [f.name for f in outcome.subject.fields] == [FieldName.POST_TEXT]
    assert [c.name for c in outcome.subject.context] == [FieldName.QUOTED_POST, FieldName.POST_TEXT]


def test_a_parent_of_undetermined_language_takes_the_quotes(captured_at: datetime) -> None:
    payload = load_payload("quoted_parent")
    parent = next(t for t in payload["includes"]["tweets"] if t["id"] == "1900000000000000202")
    parent["lang"] = "und"
    outcome = capture_x_mention(payload, captured_at)
    assert outcome.subject is not None and outcome.subject.language == "en"
    assert FieldName.QUOTED_POST in [f.name for f in outcome.subject.fields]


def test_photos_become_images_without_ocr(captured_at: datetime) -> None:
    subject = captured("image_parent", captured_at)
    assert [(i.image_id, i.url) for i in subject.images] == [
        ("3_1900000000000000901", "https://pbs.twimg.com/media/Gx1AbCdEfGh.jpg"),
        ("3_1900000000000000902", "https://pbs.twimg.com/media/Gx2IjKlMnOp.png"),
    ]
    assert all(i.ocr_text == "" and i.tokens == [] for i in subject.images)
    assert not subject.has_video_or_audio
    assert subject.cited_links == []  # the only link is the photo's own


def test_video_or_gif_marks_the_subject(captured_at: datetime) -> None:
    subject = captured("video_parent", captured_at)
    assert subject.has_video_or_audio
    assert subject.images == []


def test_gif_alone_marks_the_subject(captured_at: datetime) -> None:
    payload = load_payload("video_parent")
    payload["includes"]["tweets"][0]["attachments"]["media_keys"] = ["16_1900000000000000904"]
    outcome = capture_x_mention(payload, captured_at)
    assert outcome.subject is not None and outcome.subject.has_video_or_audio


def test_language_comes_from_lang(captured_at: datetime) -> None:
    assert captured("non_english_parent", captured_at).language == "es"
    payload = load_payload("non_english_parent")
    del payload["includes"]["tweets"][0]["lang"]
    outcome = capture_x_mention(payload, captured_at)
    assert outcome.subject is not None and outcome.subject.language == "und"


def test_parent_that_is_itself_a_reply_is_still_the_subject(captured_at: datetime) -> None:
    subject = captured("reply_chain", captured_at)
    assert subject.subject_id == "1900000000000000803"
    assert (subject.field_text(FieldName.POST_TEXT) or "").startswith("@floodtalk")
    # The conversation root is context; the grandparent (not in the payload) is not guessed at.
    assert [(c.name, c.artifact_id) for c in subject.context] == [
        (FieldName.POST_TEXT, "1900000000000000801")
    ]
    assert subject.artifact_urls == [
        "https://x.com/riverpolicy/status/1900000000000000803",
        "https://x.com/riverpolicy",
    ]


def test_unknown_author_uses_id_urls(captured_at: datetime) -> None:
    payload = load_payload("reply_chain")
    payload["includes"]["users"] = []
    outcome = capture_x_mention(payload, captured_at)
    assert outcome.subject is not None
    assert outcome.subject.artifact_urls == [
        "https://x.com/i/status/1900000000000000803",
        "https://x.com/i/user/5000000000000000072",
    ]


def test_search_payload_needs_the_mention_named(captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="mention_id"):
        capture_x_mention(load_payload("search_recent"), captured_at)
    subject = captured("search_recent", captured_at, mention_id="1900000000000001102")
    assert subject.subject_id == "1900000000000001101"
    with pytest.raises(CaptureError, match="not in data"):
        capture_x_mention(load_payload("search_recent"), captured_at, mention_id="1")
    outcome = capture_x_mention(load_payload("search_recent"), captured_at, mention_id="1900000000000001202")
    assert outcome.refusal is not None and outcome.refusal.reason is RefusalReason.NO_PARENT


def test_deleted_parent_is_refused(captured_at: datetime) -> None:
    outcome = refused(load_payload("deleted_parent"), captured_at)
    assert outcome.refusal is not None
    assert outcome.refusal.reason is RefusalReason.PARENT_DELETED
    assert outcome.refusal.post_id == "1900000000000000501"
    assert "Could not find tweet" in outcome.refusal.detail


def test_protected_parent_is_refused(captured_at: datetime) -> None:
    outcome = refused(load_payload("protected_parent"), captured_at)
    assert outcome.refusal is not None and outcome.refusal.reason is RefusalReason.PARENT_PROTECTED


def test_parent_by_a_protected_author_is_refused(captured_at: datetime) -> None:
    payload = load_payload("note_tweet_parent")
    payload["includes"]["users"][0]["protected"] = True
    outcome = refused(payload, captured_at)
    assert outcome.refusal is not None and outcome.refusal.reason is RefusalReason.PARENT_PROTECTED


def test_other_x_problems_with_the_parent_are_refused(captured_at: datetime) -> None:
    payload = load_payload("deleted_parent")
    payload["errors"][0].update(
        title="Forbidden", type="https://api.twitter.com/2/problems/resource-unavailable"
    )
    outcome = refused(payload, captured_at)
    assert outcome.refusal is not None and outcome.refusal.reason is RefusalReason.PARENT_UNAVAILABLE


def test_parent_absent_without_an_error_is_refused(captured_at: datetime) -> None:
    payload = load_payload("note_tweet_parent")
    payload["includes"]["tweets"] = []
    outcome = refused(payload, captured_at)
    assert outcome.refusal is not None and outcome.refusal.reason is RefusalReason.PARENT_MISSING
    assert "expansions=referenced_tweets.id" in outcome.refusal.detail


def test_mention_that_replies_to_nothing_is_refused(captured_at: datetime) -> None:
    outcome = refused(load_payload("no_parent"), captured_at)
    assert outcome.refusal is not None and outcome.refusal.reason is RefusalReason.NO_PARENT


def test_quote_only_mention_is_refused_not_switched_to_the_quoted_post(captured_at: datetime) -> None:
    payload = load_payload("no_parent")
    payload["data"]["referenced_tweets"] = [{"type": "quoted", "id": "1900000000000000150"}]
    outcome = refused(payload, captured_at)
    assert outcome.refusal is not None and outcome.refusal.reason is RefusalReason.NO_PARENT


def test_payload_with_only_errors_is_a_mention_refusal(captured_at: datetime) -> None:
    payload = {"errors": load_payload("deleted_parent")["errors"]}
    outcome = refused(payload, captured_at)
    assert outcome.refusal is not None and outcome.refusal.reason is RefusalReason.MENTION_UNAVAILABLE


def test_outcome_holds_exactly_one_of_subject_and_refusal() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        CaptureOutcome()


def _break(path: list[str | int], value: Any) -> dict[str, Any]:
    payload = copy.deepcopy(load_payload("quoted_parent"))
    target: Any = payload
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return payload


_DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "names"),
    [
        (["data", "id"], _DELETE, "data"),
        (["data", "text"], 42, "text"),
        (["data", "referenced_tweets"], "replied_to", "referenced_tweets"),
        (["data", "referenced_tweets", 0, "id"], "../../etc/passwd", "referenced_tweets.0.id"),
        (["includes", "tweets", 0, "id"], 1900000000000000202, "includes.tweets.0.id"),
        (["includes", "media"], {"media_key": "3_1"}, "includes.media"),
        (["includes", "users", 0, "protected"], "maybe", "includes.users.0.protected"),
        (["errors"], "boom", "errors"),
    ],
)
def test_malformed_payloads_name_the_problem(
    path: list[str | int], value: Any, names: str, captured_at: datetime
) -> None:
    with pytest.raises(CaptureError, match="malformed X payload") as info:
        capture_x_mention(_break(path, value), captured_at)
    assert names in str(info.value)


@pytest.mark.parametrize("payload", [{}, {"data": []}, {"data": None}])
def test_empty_payloads_are_malformed(payload: dict[str, Any], captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="no post"):
        capture_x_mention(payload, captured_at)


def test_non_object_payload_is_refused(captured_at: datetime) -> None:
    with pytest.raises(CaptureError, match="JSON object"):
        capture_x_mention(["not", "a", "payload"], captured_at)  # type: ignore[arg-type]


def test_media_missing_from_includes_is_an_incomplete_payload(captured_at: datetime) -> None:
    payload = load_payload("video_parent")
    payload["includes"]["media"] = []
    with pytest.raises(CaptureError, match=r"includes\.media"):
        capture_x_mention(payload, captured_at)


def test_self_reply_is_malformed(captured_at: datetime) -> None:
    payload = load_payload("no_parent")
    payload["data"]["referenced_tweets"] = [{"type": "replied_to", "id": payload["data"]["id"]}]
    with pytest.raises(CaptureError, match="replies to itself"):
        capture_x_mention(payload, captured_at)


def test_oversized_parent_text_is_refused(captured_at: datetime) -> None:
    payload = load_payload("note_tweet_parent")
    payload["includes"]["tweets"][0]["note_tweet"]["text"] = "x" * (10 * 1024 * 1024)
    with pytest.raises(CaptureError, match="limit"):
        capture_x_mention(payload, captured_at)


def test_hostile_parent_text_is_kept_verbatim(captured_at: datetime) -> None:
    payload = load_payload("note_tweet_parent")
    hostile = "\u202e\x00Debt rose 6%\u200f 😂👨‍👩‍👧 &amp; \x1b[2J"
    payload["includes"]["tweets"][0]["text"] = hostile
    payload["includes"]["tweets"][0].pop("note_tweet")
    outcome = capture_x_mention(payload, captured_at)
    assert outcome.subject is not None
    assert outcome.subject.field_text(FieldName.POST_TEXT) == hostile


def test_unknown_api_fields_are_allowed(captured_at: datetime) -> None:
    payload = load_payload("joke_and_claim")
    payload["includes"]["tweets"][0]["public_metrics"] = {"like_count": 3}
    payload["matching_rules"] = [{"id": "1", "tag": "mentions"}]
    assert capture_x_mention(payload, captured_at).ok


def test_naive_capture_time_is_refused() -> None:
    with pytest.raises(CaptureError, match="time zone"):
        capture_x_mention(load_payload("joke_and_claim"), datetime(2026, 2, 10, 15, 0))
