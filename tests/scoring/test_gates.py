"""Hard gates G0-G7 and the self-evidence rule H20 that feeds rule 1."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D

import pytest

from icarus.ledger import (
    Access,
    CapturedImage,
    CheckHistory,
    CitedLink,
    Directness,
    Disposition,
    EvidenceRole,
    Excerpt,
    ExplanationDraft,
    FieldName,
    MisrepresentationKind,
    OcrToken,
    PriorRun,
    SelfEvidenceFinding,
    Span,
    TemporalScope,
    ValidityFlags,
)
from icarus.ledger.evidence import LookupName, LookupResult, LookupStatus, ScholarlyUpdate, UpdateType
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.scoring.icarus.gates import g4_retraction, g7_violations, is_load_bearing
from icarus.scoring.icarus.publish import block_publication
from icarus.scoring.labels import Label
from tests.builders import AS_OF, claim, item, ledger, subject, unique_text
from tests.scoring.scoring_support import claim_of, claim_trace, codes, gates, score

SUPPORTED = [item("a"), item("b")]


def test_two_independent_origins_are_supported() -> None:
    result = score(ledger(SUPPORTED))
    assert claim_of(result)["label"] == "supported"
    assert result["overall"]["label"] == "supported"


# --- G0 ------------------------------------------------------------------------------------------------


def test_G0_joke_is_unverifiable_and_a_sourced_claim_beside_it_is_scored() -> None:
    text = "Lol my cat runs this city. Unemployment fell to 3.9% in May."
    joke = claim("joke", "Lol my cat runs this city.", text, disposition=Disposition.JOKE)
    stat = claim("stat", "Unemployment fell to 3.9% in May.", text)
    led = ledger(
        [item("a", claim_id="stat"), item("b", claim_id="stat")], claims=[joke, stat], subject=subject(text)
    )
    result = score(led)
    assert claim_of(result, "joke")["label"] == "unverifiable"
    assert any("INELIGIBLE_DISPOSITION" in r["message"] for r in claim_of(result, "joke")["reasons"])
    assert claim_of(result, "stat")["label"] == "supported"
    assert result["overall"]["label"] == "supported"


def test_G0_claim_that_is_not_an_exact_slice_is_ineligible() -> None:
    bad = claim().model_copy(update={"text": "The city council approved the NEW transit budget on Monday."})
    result = score(ledger(SUPPORTED, claims=[bad]))
    assert claim_of(result)["label"] == "unverifiable"
    assert ("G0", "unverifiable") in gates(result)


def test_G0_not_the_direct_parent_or_not_english() -> None:
    for subj in (subject(is_direct_parent=False), subject(language="fr")):
        assert claim_of(score(ledger(SUPPORTED, subject=subj)))["label"] == "unverifiable"


def test_G0_names_the_identified_language_and_its_confidence() -> None:
    from icarus.ledger import LanguageSource

    detected = subject(language="fr", language_source=LanguageSource.DETECTED, language_confidence=D("0.94"))
    [g0] = [g for g in claim_trace(score(ledger(SUPPORTED, subject=detected)))["gates"] if g["gate"] == "G0"]
    assert g0["message"].endswith("not English (fr, identified with confidence 0.94)")


def test_G0_not_assessed_claims_are_listed_with_reason() -> None:
    from icarus.ledger import NotAssessedReason

    skipped = claim("c2", "approved the new transit budget", not_assessed=NotAssessedReason.BUDGET)
    result = score(ledger(SUPPORTED, claims=[claim(), skipped]))
    assert result["not_assessed"] == [
        {"id": "c2", "text": "approved the new transit budget", "reason": "budget"}
    ]


# --- G1 ------------------------------------------------------------------------------------------------


def test_G1_single_origin_is_unverifiable_with_rechecks() -> None:
    result = score(ledger([item("a", score="1.0", directness=Directness.PRIMARY_DOCUMENT)]))
    c = claim_of(result)
    assert c["label"] == "unverifiable"
    assert ("G1", "recheck") in gates(result)
    assert any(r["message"] == "single source, developing" for r in c["reasons"])
    assert c["recheck"]["at"] == [
        (AS_OF + timedelta(minutes=m)).isoformat().replace("+00:00", "Z") for m in (15, 60, 360, 1440)
    ]


def test_G1_does_not_fire_with_nothing_found() -> None:
    result = score(ledger([]))
    assert claim_of(result)["label"] == "unverifiable"
    assert "G1" not in codes(result)


# --- G2 ------------------------------------------------------------------------------------------------


def image_ledger(confidence: str, second: str | None = None):
    text = "Inflation hit 1.8% last year"
    token = OcrToken(
        text="1.8%", span=Span(start=14, end=18), confidence=D(confidence), second_pass_text=second
    )
    subj = subject(
        text, field=FieldName.IMAGE_TEXT, images=[CapturedImage(image_id="i1", ocr_text=text, tokens=[token])]
    )
    c = claim(text=text, source=text, field=FieldName.IMAGE_TEXT)
    return ledger(SUPPORTED, claims=[c], subject=subj)


def test_G2_uncertain_load_bearing_token_abstains() -> None:
    result = score(image_ledger("0.89"))
    assert claim_of(result)["label"] == "unverifiable"
    assert ("G2", "unverifiable") in gates(result)
    assert "text read from image" in claim_of(result)["caveats"]


def test_G2_confidence_exactly_090_is_readable() -> None:
    result = score(image_ledger("0.90"))
    assert claim_of(result)["label"] == "supported"
    assert "text read from image" in claim_of(result)["caveats"]


def test_G2_disagreeing_second_pass_abstains() -> None:
    assert claim_of(score(image_ledger("0.99", second="18%")))["label"] == "unverifiable"


def test_G2_load_bearing_tokens() -> None:
    assert all(is_load_bearing(t) for t in ("1.8%", "percent", "not", "didn't", "Reuters"))
    assert not any(is_load_bearing(t) for t in ("the", "hit", "year"))


# --- G3 ------------------------------------------------------------------------------------------------


def test_G3_unanchored_decisive_item_turns_the_label_unverifiable() -> None:
    broken = item("b").model_copy(update={"excerpt": Excerpt(span=Span(start=0, end=5), text="WRONG")})
    result = score(ledger([item("a"), broken]))
    assert claim_of(result)["label"] == "unverifiable"
    assert ("G3", "unverifiable") in gates(result)
    assert claim_of(result)["band"] == "low"


def test_G3_unanchored_item_that_does_not_matter_is_dropped_without_changing_the_label() -> None:
    broken = item("x").model_copy(update={"content_sha256": None})
    result = score(ledger([*SUPPORTED, item("c"), broken]))
    assert claim_of(result)["label"] == "supported"
    assert ("G3", "dropped") in gates(result)


def test_G3_draft_citing_an_invented_url_is_rejected_without_effect() -> None:
    draft = ExplanationDraft(claim_id="c1", text="See the source.", cited_urls=["https://invented.example/x"])
    result = score(ledger(SUPPORTED, drafts=[draft]))
    assert claim_of(result)["label"] == "supported"
    assert ("G3", "rejected_draft") in gates(result)


def test_G3_a_label_reached_only_by_dropping_unanchored_evidence_is_withheld_and_named() -> None:
    # With the unanchored item (too many hops) no rule decides; without it rule 4 would. A gate never
    # creates a decided label, and when it sets the published one it is named and the band is low.
    unanchored = item("u", hops=5, content_sha256=None, score="0.95")
    result = score(ledger([item("a"), item("b"), unanchored]))
    published = claim_of(result)
    assert (published["label"], published["band"]) == ("unverifiable", "low")
    assert ("G3", "unverifiable") in gates(result)
    passes = {p["pass"]: p["decision"]["label"] for p in claim_trace(result)["passes"]}
    assert passes == {"raw": "unverifiable", "anchored": "supported"}


# --- G4 ------------------------------------------------------------------------------------------------


def test_G4_retracted_origin_takes_the_claim_to_unverifiable() -> None:
    result = score(ledger([item("a"), item("b", flags=ValidityFlags(retracted=True))]))
    assert claim_of(result)["label"] == "unverifiable"
    assert any(r["message"] == "evidence retracted" for r in claim_of(result)["reasons"])


def _retracted(eid: str, **extra: object) -> object:
    return item(eid, flags=ValidityFlags(retracted=True), **extra)  # type: ignore[arg-type]


def _g4_passes(result: dict) -> tuple[str, str]:  # type: ignore[type-arg]
    passes = {p["pass"]: p["decision"]["label"] for p in claim_trace(result)["passes"]}
    return passes["raw"], passes["final"]


@pytest.mark.parametrize("policy", ["icarus@1.0", "icarus@1.1", "icarus@1.2"])
def test_G4_misleading_to_not_supported_publishes_not_supported(policy: str) -> None:
    # Before: one supporting origin against two refuting ones, a genuine conflict (rule 2). The supporting
    # origin is retracted: two refuting origins remain, and the recomputed ❌ is what is published.
    evidence = [_retracted("s"), item("r1", stance="refute"), item("r2", stance="refute")]
    result = score(ledger(evidence), policy)
    assert _g4_passes(result) == ("misleading", "not_supported")
    claim = claim_of(result)
    assert claim["label"] == "not_supported"
    assert {"code": "G4@1", "message": "evidence retracted"} in claim["reasons"]
    assert ("G4", "recomputed") in gates(result) and ("G4", "unverifiable") not in gates(result)
    assert claim["band"] == claim_trace(result)["confidence"]["band"]  # G4 did not cap it


def test_G4_unverifiable_to_misleading_publishes_misleading() -> None:
    # Before: one counted supporter plus a retracted weaker one (ICC 1, ratio below 0.30): ❔. Without the
    # retracted item the weak refuter meets rule 2's ratio (icarus@1.1 reads rule 2 on S and Rf alone).
    evidence = [item("s"), _retracted("s2", score="0.49"), item("r", stance="refute", score="0.37")]
    result = score(ledger(evidence), "icarus@1.1")
    assert _g4_passes(result) == ("unverifiable", "misleading")
    claim = claim_of(result)
    assert claim["label"] == "misleading"
    assert {"code": "G4@1", "message": "evidence retracted"} in claim["reasons"]
    assert ("G4", "recomputed") in gates(result)


def test_G4_supported_to_unverifiable_publishes_unverifiable_evidence_retracted_band_low() -> None:
    result = score(ledger([item("a"), _retracted("b")]))
    assert _g4_passes(result) == ("supported", "unverifiable")
    claim = claim_of(result)
    assert (claim["label"], claim["band"]) == ("unverifiable", "low")
    assert {"code": "G4@1", "message": "evidence retracted"} in claim["reasons"]
    assert ("G4", "unverifiable") in gates(result)


def test_G4_supported_to_misleading_publishes_unverifiable_since_rule_4_no_longer_holds() -> None:
    # Three supporting origins against one refuting: ✅. Retracting one supporter leaves a conflict (⚠️ by
    # rule 2); G4 turns a ✅ whose rule no longer holds into ❔, not into ⚠️.
    evidence = [item("a"), item("b"), _retracted("c"), item("r", stance="refute", score="0.62")]
    for policy in ("icarus@1.1", "icarus@1.2"):
        result = score(ledger(evidence), policy)
        assert _g4_passes(result) == ("supported", "misleading"), policy
        assert (claim_of(result)["label"], claim_of(result)["band"]) == ("unverifiable", "low")
        assert ("G4", "unverifiable") in gates(result)


def test_G4_misleading_to_supported_publishes_supported() -> None:
    evidence = [item("a"), item("b"), _retracted("r", stance="refute")]
    result = score(ledger(evidence))
    assert _g4_passes(result) == ("misleading", "supported")
    assert claim_of(result)["label"] == "supported"
    assert {"code": "G4@1", "message": "evidence retracted"} in claim_of(result)["reasons"]


_DECIDED_RULE_HELD = (Label.SUPPORTED, Label.NOT_SUPPORTED)


@pytest.mark.parametrize("before", list(Label), ids=lambda label: label.value)
@pytest.mark.parametrize("after", list(Label), ids=lambda label: label.value)
def test_G4_every_transition_follows_the_ruling(before: Label, after: Label) -> None:
    outcome = g4_retraction(before, after)
    if before is after:
        assert outcome is None
        return
    assert outcome is not None
    published, event = outcome
    assert (event.gate, event.message) == ("G4", "evidence retracted")
    if before in _DECIDED_RULE_HELD:
        # ✅/❌ whose rule 4/5 no longer holds: ❔ (a gate never flips ✅ and ❌, and never makes ⚠️).
        assert (published, event.effect) == (Label.UNVERIFIABLE, "unverifiable")
    else:
        # ⚠️ or ❔ before: the recomputed label is published as it is.
        assert (published, event.effect) == (after, "recomputed")


def test_G4_retraction_that_does_not_change_the_label_is_recomputed_only() -> None:
    result = score(ledger([*SUPPORTED, item("c", flags=ValidityFlags(retracted=True))]))
    assert claim_of(result)["label"] == "supported"
    assert ("G4", "recomputed") in gates(result)


def _retracted_paper_and_coverage(*, paper_judged: bool) -> list:  # type: ignore[type-arg]
    """A retracted paper (oldest), coverage linking to it, and one unrelated report; both reports support."""
    paper = item(
        "paper",
        published_at=AS_OF - timedelta(days=30),
        flags=ValidityFlags(retracted=True),
        **({} if paper_judged else {"judgments": []}),
    )
    coverage = item("cov", links=["https://paper.example/story/paper"])
    return [paper, coverage, item("other")]


@pytest.mark.parametrize("paper_judged", [True, False], ids=["judged", "not-judged"])
def test_G4_a_retracted_origin_takes_its_coverage_down_whether_or_not_it_is_judged(
    paper_judged: bool,
) -> None:
    # The paper is judged only for another claim in the second case: it still elects as the cluster's origin.
    result = score(ledger(_retracted_paper_and_coverage(paper_judged=paper_judged)))
    assert claim_of(result)["label"] == "unverifiable"
    final = claim_trace(result)["passes"][-1]
    [cluster] = [c for c in final["clusters"] if "cov" in c["members"]]
    assert cluster["origin"] == "paper" and not cluster["counted"]


def test_an_unjudged_origin_that_relies_on_anonymous_sources_makes_the_election_uncertain() -> None:
    anonymous = "Officials, speaking on condition of anonymity, described the plan. " + unique_text("anon")
    origin = item("anon", text=anonymous, published_at=AS_OF - timedelta(days=9), judgments=[])
    coverage = item("cov", links=["https://anon.example/story/anon"])
    final = claim_trace(score(ledger([origin, coverage, item("other")])))["passes"][-1]
    [cluster] = [c for c in final["clusters"] if "cov" in c["members"]]
    assert cluster["origin"] == "anon" and cluster["origin_uncertain"]


# --- G5 / G6 -------------------------------------------------------------------------------------------


def test_G5_open_expression_of_concern_caps_band_and_schedules_rechecks() -> None:
    concern = item(
        "a",
        score="1.0",
        directness=Directness.PRIMARY_DOCUMENT,
        confidence="1.00",
        flags=ValidityFlags(expression_of_concern_open=True),
    )  # weight 0.50: still counted
    led = ledger([concern, item("b"), item("c")])
    result = score(led)
    c = claim_of(result)
    assert c["band"] in ("medium", "low")
    assert "G5" in c["recheck"]["triggers"]


def test_G5_correction_older_than_24_hours_does_not_hold() -> None:
    old = item("a", flags=ValidityFlags(corrected=True, corrected_at=AS_OF - timedelta(hours=24)))
    assert ("G5", "band_cap") not in gates(score(ledger([old, item("b")])))
    recent = item(
        "a", flags=ValidityFlags(corrected=True, corrected_at=AS_OF - timedelta(hours=23, minutes=59))
    )
    assert ("G5", "band_cap") in gates(score(ledger([recent, item("b")])))


def test_G5_an_update_within_24_hours_holds_like_a_correction() -> None:
    recent = item("a", updated_at=AS_OF - timedelta(hours=23, minutes=59))
    result = score(ledger([recent, item("b")]))
    assert ("G5", "band_cap") in gates(result)
    assert "a was updated within the correction window" in str(claim_trace(result)["gates"])
    older = item("a", updated_at=AS_OF - timedelta(hours=24))
    assert ("G5", "band_cap") not in gates(score(ledger([older, item("b")])))


def _changed_page(hours_ago: float) -> LookupResult:
    return LookupResult(
        name=LookupName.ARCHIVE,
        status=LookupStatus.OK,
        provider="archive@1",
        observed_at=AS_OF - timedelta(hours=hours_ago),
        content_changed=True,
        excerpt_still_present=True,
    )


def test_G5_a_content_change_seen_within_24_hours_holds_where_drift_is_live() -> None:
    changed = item("a", lookups=[_changed_page(1)])
    assert ("G5", "band_cap") in gates(score(ledger([changed, item("b")]), "icarus@1.1"))
    assert ("G5", "band_cap") not in gates(
        score(ledger([changed, item("b")]), "icarus@1.0")
    )  # H24 drift inert
    stale = item("a", lookups=[_changed_page(25)])
    assert ("G5", "band_cap") not in gates(score(ledger([stale, item("b")]), "icarus@1.1"))


def test_G5_and_the_penalty_follow_an_expression_of_concern_from_the_lookup() -> None:
    concern = LookupResult(
        name=LookupName.SCHOLARLY_UPDATES,
        status=LookupStatus.OK,
        provider="crossref@1",
        updates=[ScholarlyUpdate(update_type=UpdateType.EXPRESSION_OF_CONCERN, source="crossref")],
    )
    paper = item(
        "a", score="1.0", directness=Directness.PRIMARY_DOCUMENT, confidence="1.00", lookups=[concern]
    )
    live = score(ledger([paper, item("b"), item("c")]), "icarus@1.1")
    assert ("G5", "band_cap") in gates(live)
    assert "open_correction" in claim_trace(live)["confidence"]["penalties"]
    inert = score(ledger([paper, item("b"), item("c")]), "icarus@1.0")  # the Crossref look-up is not wired
    assert ("G5", "band_cap") not in gates(inert)


def ongoing_claim():
    return claim(temporal_scope=TemporalScope.ONGOING, event_started_at=AS_OF - timedelta(hours=2))


def test_G6_first_version_of_an_ongoing_story_is_unverifiable() -> None:
    result = score(ledger(SUPPORTED, claims=[ongoing_claim()]))
    assert claim_of(result)["label"] == "unverifiable"
    assert claim_of(result)["scored_label"] == "supported"
    assert any(r["message"].startswith("developing, as of ") for r in claim_of(result)["reasons"])


def test_G6_publishes_after_two_agreeing_runs_capped_at_medium() -> None:
    started = AS_OF - timedelta(minutes=60)
    history = CheckHistory(
        started_at=started,
        prior_runs=[PriorRun(as_of=started + timedelta(minutes=15), scored_labels={"c1": "supported"})],
    )
    result = score(ledger(SUPPORTED, claims=[ongoing_claim()], history=history))
    assert claim_of(result)["label"] == "supported"
    assert claim_of(result)["band"] in ("medium", "low")


def test_G6_disagreeing_previous_run_keeps_holding() -> None:
    started = AS_OF - timedelta(minutes=60)
    history = CheckHistory(
        started_at=started,
        prior_runs=[PriorRun(as_of=started + timedelta(minutes=15), scored_labels={"c1": "unverifiable"})],
    )
    assert (
        claim_of(score(ledger(SUPPORTED, claims=[ongoing_claim()], history=history)))["label"]
        == "unverifiable"
    )


def _recheck(result: dict) -> list[str]:  # type: ignore[type-arg]
    return claim_of(result)["recheck"]["triggers"]


def test_G6_window_boundary_an_event_begun_exactly_the_window_ago_is_no_longer_ongoing() -> None:
    hours = load_policy("icarus@1.1").gates.ongoing_window_hours
    inside = claim(
        temporal_scope=TemporalScope.ONGOING, event_started_at=AS_OF - timedelta(hours=hours, seconds=-1)
    )
    assert claim_of(score(ledger(SUPPORTED, claims=[inside])))["label"] == "unverifiable"
    at_edge = claim(temporal_scope=TemporalScope.ONGOING, event_started_at=AS_OF - timedelta(hours=hours))
    result = score(ledger(SUPPORTED, claims=[at_edge]))
    assert claim_of(result)["label"] == "supported"
    assert _recheck(result) == ["ongoing"]  # the wording still schedules rechecks


def test_G6_an_official_concluding_statement_ends_the_ongoing_situation() -> None:
    ended = claim(
        temporal_scope=TemporalScope.ONGOING,
        event_started_at=AS_OF - timedelta(hours=2),
        event_concluded=True,
    )
    assert claim_of(score(ledger(SUPPORTED, claims=[ended])))["label"] == "supported"


@pytest.mark.parametrize("scope", [TemporalScope.HISTORICAL, TemporalScope.CURRENT, TemporalScope.ONGOING])
def test_G6_a_counted_item_with_live_markers_holds_the_first_version_whatever_the_wording(
    scope: TemporalScope,
) -> None:
    live = [item("a", flags=ValidityFlags(live_coverage=True)), item("b")]
    result = score(ledger(live, claims=[claim(temporal_scope=scope)]))
    assert claim_of(result)["label"] == "unverifiable"
    assert claim_of(result)["scored_label"] == "supported"
    assert "G6" in _recheck(result)


def test_G6_a_past_tense_claim_about_an_incident_that_began_an_hour_ago_is_a_developing_story() -> None:
    incident = claim(temporal_scope=TemporalScope.HISTORICAL, event_started_at=AS_OF - timedelta(hours=1))
    result = score(ledger(SUPPORTED, claims=[incident]))
    assert claim_of(result)["label"] == "unverifiable"
    assert any(r["message"].startswith("developing, as of ") for r in claim_of(result)["reasons"])


def test_G6_ongoing_wording_alone_schedules_rechecks_but_does_not_hold_the_label() -> None:
    result = score(ledger(SUPPORTED, claims=[claim(temporal_scope=TemporalScope.ONGOING)]))
    assert claim_of(result)["label"] == "supported"
    assert _recheck(result) == ["ongoing"]


# --- G7 ------------------------------------------------------------------------------------------------


def test_G7_overall_that_is_not_the_most_adverse_claim_is_blocked() -> None:
    policy = load_policy("icarus@1.1")
    led = ledger(SUPPORTED)
    result = score_ledger(led, policy)
    mutated = {**result, "claims": [{**result["claims"][0], "label": "not_supported"}]}
    problems = g7_violations(mutated, led, policy)
    assert problems == ["overall label is not the most adverse decided claim"]
    blocked = block_publication(mutated, problems)
    assert blocked["overall"]["label"] == "unverifiable"
    assert blocked["overall"]["reasons"][0]["message"].startswith("check could not be completed")


def test_G7_band_above_what_the_score_earns_is_blocked() -> None:
    policy = load_policy("icarus@1.1")
    led = ledger([item("a")])  # one origin: a low score
    result = score_ledger(led, policy)
    low_score = {"c1": D(claim_trace(result)["confidence"]["score"])}
    assert g7_violations(result, led, policy, low_score) == []
    mutated = {**result, "claims": [{**result["claims"][0], "band": "high"}]}
    assert g7_violations(mutated, led, policy, low_score) == [
        "claim c1: band high is above what its score earns"
    ]


def test_G7_unknown_label_is_blocked() -> None:
    policy = load_policy("icarus@1.1")
    led = ledger(SUPPORTED)
    result = score_ledger(led, policy)
    mutated = {**result, "claims": [{**result["claims"][0], "label": "true"}]}
    assert g7_violations(mutated, led, policy)


def test_G7_draft_about_honesty_blocks_the_version() -> None:
    draft = ExplanationDraft(claim_id="c1", text="The author is lying about the budget.")
    result = score(ledger(SUPPORTED, drafts=[draft]))
    assert result["overall"]["label"] == "unverifiable"
    assert result["blocked"]["gate"] == "G7"


# --- H20 (rule 1) --------------------------------------------------------------------------------------

STUDY_TEXT = "In mice, the compound reduced tumour growth by 40 percent over six weeks."


def self_evidence_ledger(
    excerpt: str, start: int, role: EvidenceRole = EvidenceRole.CITED_BY_SUBJECT, access: Access = Access.FULL
):
    post = "New compound reduces tumour growth by 40 percent https://journal.example/study"
    study = item("s", text=STUDY_TEXT, role=role, flags=ValidityFlags(access=access))
    finding = SelfEvidenceFinding(
        kind=MisrepresentationKind.DROPPED_QUALIFIER,
        evidence_id="s",
        span=Span(start=start, end=start + len(excerpt)),
        excerpt=excerpt,
    )
    c = claim(text="New compound reduces tumour growth by 40 percent", source=post, self_evidence=[finding])
    subj = subject(post, cited_links=[CitedLink(url=study.url, evidence_id="s")])
    return ledger([study, item("a"), item("b")], claims=[c], subject=subj)


def test_H20_verified_dropped_qualifier_is_misleading_with_a_verbatim_excerpt() -> None:
    result = score(self_evidence_ledger("In mice", 0))
    c = claim_of(result)
    assert c["label"] == "misleading"
    assert any(r["code"] == "H20@1" and "\u201cIn mice\u201d" in r["message"] for r in c["reasons"])


def test_H20_excerpt_not_in_the_snapshot_is_rejected() -> None:
    result = score(self_evidence_ledger("In rats", 0))
    assert claim_of(result)["label"] == "supported"
    assert claim_trace(result)["self_evidence"]["rejected"]


def test_H20_material_not_cited_by_the_post_cannot_anchor() -> None:
    led = self_evidence_ledger("In mice", 0, role=EvidenceRole.RESEARCH)
    led = led.model_copy(update={"subject": subject(led.subject.fields[0].text)})
    assert claim_of(score(led))["label"] == "supported"


def test_H28_paywalled_snapshot_cannot_anchor_H20() -> None:
    assert claim_of(score(self_evidence_ledger("In mice", 0, access=Access.PAYWALL)))["label"] == "supported"


def test_H16_citing_a_retracted_paper_without_saying_so_is_misleading() -> None:
    post = "A landmark study proves the compound works https://journal.example/study"
    study = item("s", role=EvidenceRole.CITED_BY_SUBJECT, flags=ValidityFlags(retracted=True))
    c = claim(text="A landmark study proves the compound works", source=post)
    result = score(ledger([study, item("a"), item("b")], claims=[c], subject=subject(post)))
    assert claim_of(result)["label"] == "misleading"
    assert "H16" in codes(result)


def test_overall_is_the_most_adverse_decided_claim() -> None:
    text = "Claim one is here. Claim two is here."
    one = claim("one", "Claim one is here.", text)
    two = claim("two", "Claim two is here.", text)
    evidence = [
        item("a", claim_id="one"),
        item("b", claim_id="one"),
        item("c", claim_id="two", stance="refute"),
        item("d", claim_id="two", stance="refute"),
    ]
    result = score(ledger(evidence, claims=[one, two], subject=subject(text)))
    assert claim_of(result, "one")["label"] == "supported"
    assert claim_of(result, "two")["label"] == "not_supported"
    assert result["overall"]["label"] == "not_supported"


def test_unverifiable_claim_never_overwrites_a_decided_one() -> None:
    text = "Claim one is here. Claim two is here."
    evidence = [item("a", claim_id="one"), item("b", claim_id="one")]
    result = score(
        ledger(
            evidence,
            claims=[claim("one", "Claim one is here.", text), claim("two", "Claim two is here.", text)],
            subject=subject(text),
        )
    )
    assert result["overall"]["label"] == "supported"


def test_G2_a_second_pass_reading_a_negation_makes_an_ordinary_word_load_bearing() -> None:
    text = "The bridge is now open"
    token = OcrToken(text="now", span=Span(start=14, end=17), confidence=D("0.99"), second_pass_text="not")
    subj = subject(
        text, field=FieldName.IMAGE_TEXT, images=[CapturedImage(image_id="i1", ocr_text=text, tokens=[token])]
    )
    led = ledger(SUPPORTED, claims=[claim(text=text, source=text, field=FieldName.IMAGE_TEXT)], subject=subj)
    assert ("G2", "unverifiable") in gates(score(led))
