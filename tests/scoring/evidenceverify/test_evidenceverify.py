"""EvidenceVerify: every row of the status table, independence, twitter rules, re-search, transitions."""

from __future__ import annotations

import itertools
import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from icarus.evidenceverify.service import evidence_verify, judge_stances
from icarus.judges.llm import OpenAICompatibleJudge
from icarus.judges.offline import OfflineLexicalJudge
from icarus.judges.protocol import AttributionVerdict, JudgeRequest, StanceVerdict
from icarus.research.excerpts import best_excerpt
from icarus.research.providers import ClaimReviewRecord, ProviderResult, SearchHit
from icarus.research.queries import PlannedQuery
from icarus.scoring.evidenceverify import (
    ALLOWED_TRANSITIONS,
    ClaimItem,
    ClaimStatus,
    ConfidenceLevel,
    EvidenceStore,
    OfflineCriticalityJudge,
    SearchOutcome,
    load_evidenceverify_config,
    stance_requests,
    transition,
    verify_claim,
)
from icarus.scoring.evidenceverify.criticality import CriticalityAnswer
from icarus.scoring.evidenceverify.models import EvidenceRecord
from icarus.scoring.evidenceverify.verify import NO_CONFIRMATION, source_key
from tests.judges.conftest import FakeServer, asked_evidence_id, fake_llm, stance_answer

__all__ = ["fake_llm"]  # the shared fake OpenAI-compatible server, used as a fixture here

CONFIG = load_evidenceverify_config()
JUDGE = OfflineLexicalJudge()
AS_OF = datetime(2026, 8, 1, tzinfo=UTC)
CLAIM = "The Halden central bank raised its policy rate to 5.25% in July 2026."
AGREES = "The Halden central bank raised its policy rate to 5.25% in July 2026, officials said."
DENIES = "The Halden central bank did not raise its policy rate in July 2026; it held it at 5.00%."
CRITICAL = CriticalityAnswer(True, "test", "test")
PERIPHERAL = CriticalityAnswer(False, "test", "test")


def rec(evidence_id: str, snippet: str = AGREES, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "evidence_id": evidence_id,
        "url": f"https://{evidence_id}.example/story",
        "publisher": f"Publisher {evidence_id}",
        "source_type": "web",
        "credibility_tier": "tier2_reputable",
        "snippet": snippet,
    }
    return base | fields


def tweet(evidence_id: str, flag: str, snippet: str = AGREES) -> dict[str, Any]:
    return rec(
        evidence_id,
        snippet,
        url=f"https://x.com/someone/status/{len(evidence_id)}",
        source_type="twitter",
        credibility_tier="tier4_social",
        social_credibility_flag=flag,
    )


def run(
    records: list[dict[str, Any]],
    ids: list[str] | None = None,
    *,
    criticality: CriticalityAnswer = CRITICAL,
    search: SearchOutcome | None = None,
    **claim: Any,
) -> Any:
    store = EvidenceStore.model_validate({"evidence": records})
    item = ClaimItem(
        claim_id="c1",
        text=CLAIM,
        evidence_ids=ids if ids is not None else [r["evidence_id"] for r in records],
        **claim,
    )
    answers = judge_stances(JUDGE, stance_requests(item, store, best_excerpt, search))
    return verify_claim(
        item, store, CONFIG, answers=answers, excerpt=best_excerpt, criticality=criticality, search=search
    )


def notes(result: Any) -> str:
    return " | ".join(result.verification_notes)


# --- step 6: the status table --------------------------------------------------------------------------


def test_two_independent_non_social_sources_agreeing_verify_a_critical_claim() -> None:
    result = run([rec("a"), rec("b")])
    assert result.status is ClaimStatus.VERIFIED and len(result.independent_sources) == 2


def test_one_source_leaves_a_critical_claim_unverified() -> None:
    result = run([rec("a")])
    assert result.status is ClaimStatus.UNVERIFIED and "a critical claim needs 2" in notes(result)


def test_a_peripheral_claim_is_verified_by_one_reputable_source_but_not_one_general_source() -> None:
    assert run([rec("a")], criticality=PERIPHERAL).status is ClaimStatus.VERIFIED
    blog = run([rec("a", credibility_tier="tier3_general")], criticality=PERIPHERAL)
    assert blog.status is ClaimStatus.UNVERIFIED and "no reputable source" in notes(blog)


def test_only_social_sources_leave_the_claim_unverified() -> None:
    result = run([tweet("t1", "likely_reliable"), tweet("t2", "likely_reliable")])
    assert result.status is ClaimStatus.UNVERIFIED and "only social sources" in notes(result)


def test_partial_conflict_is_contested_with_the_points_of_disagreement() -> None:
    result = run([rec("a"), rec("b"), rec("c", DENIES)])
    assert result.status is ClaimStatus.CONTESTED
    assert "c (Publisher c) contradicts the claim" in result.disagreement
    assert "a (Publisher a) supports the claim" in result.disagreement
    assert "partially" in notes(result)


def test_full_contradiction_is_contested_with_a_detailed_note() -> None:
    result = run([rec("a", DENIES), rec("b", DENIES)])
    assert result.status is ClaimStatus.CONTESTED and "fully, against the claim" in notes(result)


def test_expired_fact_track_evidence_makes_a_fact_claim_stale() -> None:
    result = run([rec("a", freshness_status="stale"), rec("b", freshness_status="stale")])
    assert result.status is ClaimStatus.STALE and "expired" in notes(result)


def test_reasoning_track_claims_never_go_stale_by_themselves() -> None:
    records = [rec("a", freshness_status="stale"), rec("b", freshness_status="stale")]
    assert run(records, evidence_track="reasoning").status is ClaimStatus.VERIFIED
    reasoning_items = [rec(i, freshness_status="stale", evidence_track="reasoning") for i in "ab"]
    assert run(reasoning_items).status is ClaimStatus.VERIFIED  # reasoning evidence does not expire


def test_an_evidence_id_missing_from_the_store_is_noted_and_caps_at_unverified() -> None:
    result = run([rec("a"), rec("b")], ids=["a", "b", "zz"])
    assert result.evidence_missing == ["zz"] and result.status is ClaimStatus.UNVERIFIED
    assert "evidence_missing" in notes(result)
    nothing = run([], ids=["zz"])
    assert nothing.status is ClaimStatus.UNVERIFIED and nothing.evidence_missing == ["zz"]


def test_an_unreachable_source_is_noted_but_not_invalidated() -> None:
    result = run([rec("a", source_reachable=False), rec("b")])
    assert result.status is ClaimStatus.VERIFIED and result.source_unreachable == ["a"]
    assert "source_unreachable" in notes(result)


# --- step 2: independence ---------------------------------------------------------------------------


def test_one_publisher_group_counts_as_one_source() -> None:
    result = run([rec("a", publisher_group="Harbor Media"), rec("b", publisher_group="Harbor Media")])
    assert result.status is ClaimStatus.UNVERIFIED and result.independent_sources == ["group:harbor-media"]


def test_wire_copy_redistributed_by_many_outlets_counts_as_one_source() -> None:
    wire = "HALDEN (Reuters) - " + AGREES
    outlets = [rec(f"o{i}", wire) for i in range(5)]
    result = run(outlets)
    assert result.independent_sources == ["wire:reuters"] and result.status is ClaimStatus.UNVERIFIED
    assert source_key(EvidenceRecord.model_validate(rec("x", wire_service="Associated Press"))) == "wire:ap"
    assert run([*outlets, rec("own")]).status is ClaimStatus.VERIFIED


def test_items_at_one_url_count_as_one_source() -> None:
    same = "https://news.example/a?utm_source=x"
    result = run([rec("a", url=same), rec("b", url="https://news.example/a")])
    assert len(result.independent_sources) == 1


# --- criticality ------------------------------------------------------------------------------------


def test_criticality_is_a_typed_judge_answer_and_the_claim_can_state_it() -> None:
    judge = OfflineCriticalityJudge()
    specific = judge.criticality(ClaimItem(claim_id="c", text=CLAIM), CONFIG)
    assert specific.critical and specific.judge == "offline-criticality@1"
    vague = judge.criticality(ClaimItem(claim_id="c", text="Things are generally fine out there."), CONFIG)
    assert not vague.critical
    marked = judge.criticality(ClaimItem(claim_id="c", text=CLAIM, centrality="peripheral"), CONFIG)
    assert not marked.critical and marked.judge == "claim"


# --- step 3: twitter --------------------------------------------------------------------------------


def test_twitter_verification_priority_follows_the_flag() -> None:
    priorities = {
        flag: EvidenceRecord.model_validate(tweet("t", flag)).priority.value
        for flag in ("likely_unreliable", "needs_verification", "likely_reliable")
    }
    assert priorities == {
        "likely_unreliable": "high",
        "needs_verification": "medium",
        "likely_reliable": "low",
    }
    with pytest.raises(ValueError, match="twitter items only"):
        EvidenceRecord.model_validate(rec("a", social_credibility_flag="likely_unreliable"))


def test_twitter_corroborated_is_eligible_for_verified() -> None:
    result = run([tweet("t", "likely_reliable"), rec("a"), rec("b")])
    assert (
        result.twitter[0]["corroboration_status"] == "corroborated" and result.status is ClaimStatus.VERIFIED
    )


def test_twitter_uncorroborated_is_at_most_unverified() -> None:
    result = run([tweet("t", "needs_verification")], criticality=PERIPHERAL)
    assert result.twitter[0]["corroboration_status"] == "uncorroborated"
    assert result.status is ClaimStatus.UNVERIFIED and "twitter-only, uncorroborated" in notes(result)


def test_twitter_contradicted_is_contested_naming_the_source() -> None:
    result = run([tweet("t", "needs_verification"), rec("a", DENIES)])
    assert result.twitter[0]["corroboration_status"] == "contradicted"
    assert (
        result.status is ClaimStatus.CONTESTED
        and "twitter claim contradicted by a (Publisher a)" in notes(result)
    )


def test_twitter_likely_unreliable_and_uncorroborated_is_flagged() -> None:
    result = run([tweet("t", "likely_unreliable")], criticality=PERIPHERAL)
    assert result.status is ClaimStatus.UNVERIFIED and "flagged (suspected misinformation)" in notes(result)


def test_likely_unreliable_is_capped_unless_strong_independent_evidence_exists() -> None:
    weak = run([tweet("t", "likely_unreliable"), rec("a")], criticality=PERIPHERAL)
    assert weak.twitter[0]["corroboration_status"] == "corroborated" and weak.status is ClaimStatus.UNVERIFIED
    strong = run([tweet("t", "likely_unreliable"), rec("a"), rec("b")], criticality=PERIPHERAL)
    assert strong.status is ClaimStatus.VERIFIED


# --- step 5: independent re-search ------------------------------------------------------------------


class FakeProvider:
    """A search provider that answers every query with the same hits, recording the queries."""

    name = "fake"

    def __init__(self, hits: list[SearchHit], status: str = "ok") -> None:
        self.hits, self.status, self.queries = hits, status, []  # type: ignore[var-annotated]

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        self.queries.append(query.text)
        if self.status != "ok":
            return ProviderResult.not_run(self.name, "not configured")
        return ProviderResult.ok(self.name, self.hits[:limit])


def hit(url: str, snippet: str, publisher: str) -> SearchHit:
    domain = url.split("/")[2]
    return SearchHit(
        doc_id=url, url=url, snippet=snippet, publisher=publisher, domain=domain, provider="fake"
    )


def verify_with(provider: FakeProvider, records: list[dict[str, Any]], independent: bool = True) -> Any:
    store = EvidenceStore.model_validate({"evidence": records})
    item = ClaimItem(claim_id="c1", text=CLAIM, evidence_ids=[r["evidence_id"] for r in records])
    return evidence_verify(
        item, store, CONFIG, stance_judge=JUDGE, criticality_judge=OfflineCriticalityJudge(),
        providers=[provider], independent=independent, as_of=AS_OF,
    )  # fmt: skip


def test_independent_search_confirmation_counts_as_a_source_of_its_own() -> None:
    provider = FakeProvider([hit("https://wire.example/rate", AGREES, "Wire Example")])
    result = verify_with(provider, [rec("a")])
    assert provider.queries and result.independent_search == "ran"
    assert result.status is ClaimStatus.VERIFIED and "group:wire-example" in result.independent_sources
    assert "independent search confirms" in notes(result)


def test_a_fact_check_hit_is_not_read_as_confirming_the_claim_it_reviewed() -> None:
    # A ClaimReview search gives the reviewed claim as its snippet, not the checker's finding.
    url = "https://check.example/rate"
    review = ClaimReviewRecord(claim_text=CLAIM, url=url, textual_rating="False")
    provider = FakeProvider([hit(url, CLAIM, "Check Example").model_copy(update={"review": review})])
    result = verify_with(provider, [rec("a")])
    assert result.independent_search == "ran"
    assert "independent search confirms" not in notes(result)
    assert result.status is ClaimStatus.UNVERIFIED


def test_a_debunk_found_by_search_is_not_read_as_confirming_the_claim_it_restates() -> None:
    # A debunk restates the claim before refuting it. Read whole, the restatement is the sentence closest to
    # the claim, and judges took it for support; the judge is now given the sentence a check would quote.
    finding = "The minutes of the July meeting show the rate was left at 5.00%."
    debunk = f"Social media posts claim that {CLAIM[0].lower()}{CLAIM[1:]} {finding}"
    provider = FakeProvider([hit("https://check.example/rate", debunk, "Check Example")])
    result = verify_with(provider, [rec("a")])
    assert "independent search confirms" not in notes(result)
    assert result.status is ClaimStatus.UNVERIFIED  # one cited source, and no independent confirmation


def test_the_judge_reads_the_quoted_sentence_with_the_whole_text_for_context() -> None:
    asked: list[JudgeRequest] = []

    class Recording:
        def stance(self, request: JudgeRequest) -> StanceVerdict:
            asked.append(request)
            return JUDGE.stance(request)

        def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
            return []

    page = f"Was it true that {CLAIM[0].lower()}{CLAIM[1:-1]}? {DENIES} Markets had expected a rise."
    store = EvidenceStore.model_validate({"evidence": [rec("a")]})
    item = ClaimItem(claim_id="c1", text=CLAIM, evidence_ids=["a"])
    evidence_verify(
        item, store, CONFIG, stance_judge=Recording(), criticality_judge=OfflineCriticalityJudge(),
        providers=[FakeProvider([hit("https://check.example/rate", page, "Check Example")])],
        independent=True, as_of=AS_OF,
    )  # fmt: skip
    searched = [r for r in asked if r.evidence_id.startswith("search-")]
    assert [(r.excerpt, r.evidence_text) for r in searched] == [(DENIES, page)]


def test_an_llm_judge_reads_the_search_hits_several_at_once(fake_llm: FakeServer) -> None:
    meeting = threading.Barrier(3, timeout=10)

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        evidence_id = asked_evidence_id(request)
        if evidence_id.startswith("search-"):
            meeting.wait()  # the three hits' questions are open at once, or the barrier breaks (fails closed)
        return stance_answer(evidence_id)

    fake_llm.answer = answer
    judge = OpenAICompatibleJudge(fake_llm.base_url, "fake-model", parallel_requests=3, max_retries=0)
    provider = FakeProvider([hit(f"https://wire{n}.example/rate", AGREES, f"Wire {n}") for n in range(3)])
    store = EvidenceStore.model_validate({"evidence": [rec("a")]})
    item = ClaimItem(claim_id="c1", text=CLAIM, evidence_ids=["a"])
    result = evidence_verify(
        item, store, CONFIG, stance_judge=judge, criticality_judge=OfflineCriticalityJudge(),
        providers=[provider], independent=True, as_of=AS_OF,
    )  # fmt: skip
    assert result.status is ClaimStatus.VERIFIED
    assert "independent search confirms" in notes(result)
    assert all(f"group:wire-{n}" in result.independent_sources for n in range(3))


def test_independent_search_ignores_the_debaters_own_citations() -> None:
    provider = FakeProvider([hit("https://a.example/story", AGREES, "Publisher a")])
    result = verify_with(provider, [rec("a")])
    assert NO_CONFIRMATION in notes(result) and result.status is ClaimStatus.UNVERIFIED


def test_independent_search_contradiction_contests() -> None:
    provider = FakeProvider([hit("https://check.example/rate", DENIES, "Check Example")])
    result = verify_with(provider, [rec("a"), rec("b")])
    assert result.status is ClaimStatus.CONTESTED and "independent search contradicts" in notes(result)


def test_no_search_results_never_reject() -> None:
    result = verify_with(FakeProvider([]), [rec("a"), rec("b")])
    assert NO_CONFIRMATION in notes(result) and result.status is ClaimStatus.VERIFIED


def test_search_that_cannot_run_is_not_run_never_evidence_against() -> None:
    result = verify_with(FakeProvider([], status="not_run"), [rec("a"), rec("b")])
    assert result.independent_search.startswith("not run") and result.status is ClaimStatus.VERIFIED


def test_high_priority_twitter_items_always_trigger_a_search() -> None:
    provider = FakeProvider([hit("https://bank.example/decision", AGREES, "Bank Example")])
    result = verify_with(provider, [tweet("t", "likely_unreliable")], independent=False)
    assert provider.queries and result.independent_search == "ran"
    assert result.twitter[0]["corroboration_status"] == "corroborated"
    quiet = FakeProvider([])
    verify_with(quiet, [tweet("t", "likely_reliable"), rec("a")], independent=False)
    assert quiet.queries == []


def test_independent_search_through_the_local_corpus(tmp_path: Any) -> None:
    from icarus.research.corpus import LocalCorpus, LocalCorpusProvider

    page = tmp_path / "bank.txt"
    page.write_text(AGREES + " The decision was announced by the Board.\n")
    with LocalCorpus(tmp_path / "corpus.db") as corpus:
        corpus.add([page])
        result = verify_with(LocalCorpusProvider(corpus), [rec("a")])  # type: ignore[arg-type]
    assert result.independent_search == "ran" and result.status is ClaimStatus.VERIFIED


# --- transitions and confidence -----------------------------------------------------------------------


@pytest.mark.parametrize(("previous", "recommended"), list(itertools.product(ClaimStatus, ClaimStatus)))
def test_every_status_transition(previous: ClaimStatus, recommended: ClaimStatus) -> None:
    allowed = {
        ("unverified", "verified"), ("unverified", "contested"), ("unverified", "stale"),
        ("verified", "contested"), ("verified", "stale"),
        ("contested", "verified"), ("contested", "stale"),
        ("stale", "verified"),
    }  # fmt: skip
    expected = (
        recommended if previous is recommended or (previous.value, recommended.value) in allowed else previous
    )
    assert transition(previous, recommended) is expected
    assert (recommended in ALLOWED_TRANSITIONS[previous]) == ((previous.value, recommended.value) in allowed)


def test_a_refused_transition_keeps_the_status_and_says_why() -> None:
    result = run([rec("a")], status="verified")
    assert result.recommended_status is ClaimStatus.UNVERIFIED and result.status is ClaimStatus.VERIFIED
    assert "not an allowed transition" in notes(result) and result.confidence_level is ConfidenceLevel.LOW
    stale_to_contested = run([rec("a"), rec("b", DENIES)], status="stale")
    assert stale_to_contested.status is ClaimStatus.STALE


def test_confidence_levels() -> None:
    assert run([rec("a"), rec("b")]).confidence_level is ConfidenceLevel.MEDIUM
    assert run([rec("a"), rec("b"), rec("c")]).confidence_level is ConfidenceLevel.HIGH
    assert (
        run([rec("a", credibility_tier="tier1_authoritative"), rec("b")]).confidence_level
        is ConfidenceLevel.HIGH
    )
    assert run([rec("a"), rec("b"), rec("c")], ids=["a", "b", "c"]).confidence_level is ConfidenceLevel.HIGH
    assert (
        run([rec("a"), rec("b"), rec("c", source_reachable=False)]).confidence_level is ConfidenceLevel.MEDIUM
    )
    assert run([rec("a"), rec("b", DENIES)]).confidence_level is ConfidenceLevel.MEDIUM
    assert (
        run([rec("a"), rec("b", DENIES, credibility_tier="tier3_general")]).confidence_level
        is ConfidenceLevel.LOW
    )
    assert run([rec("a")]).confidence_level is ConfidenceLevel.LOW


def test_verification_is_deterministic() -> None:
    records = [
        rec("a"),
        rec("b", DENIES),
        tweet("t", "needs_verification"),
        rec("c", freshness_status="stale"),
    ]
    assert run(records).model_dump_json() == run(records).model_dump_json()


# --- the answers the six steps read ---------------------------------------------------------------------


def test_the_questions_are_each_counted_record_once_then_each_search_hit() -> None:
    records = [rec("a"), rec("old", freshness_status="stale"), rec("blank", snippet="", title="")]
    store = EvidenceStore.model_validate({"evidence": records})
    item = ClaimItem(claim_id="c1", text=CLAIM, evidence_ids=["a", "old", "a", "blank", "gone"])
    search = SearchOutcome(ran=True, hits=(hit("https://w.example/rate", AGREES, "W"),))
    asked = stance_requests(item, store, best_excerpt, search)
    assert [r.evidence_id for r in asked] == ["a", "search-1"]  # expired, empty and missing ones: no question
    every = stance_requests(item, store, best_excerpt, search, every_record=True)
    assert [r.evidence_id for r in every] == ["a", "old", "search-1"]  # the inputs document states "old" too
    assert stance_requests(item, store, best_excerpt, SearchOutcome(ran=False)) == asked[:1]


def test_a_question_the_front_door_did_not_ask_is_an_error_not_a_neutral_reading() -> None:
    store = EvidenceStore.model_validate({"evidence": [rec("a"), rec("b")]})
    item = ClaimItem(claim_id="c1", text=CLAIM, evidence_ids=["a", "b"])
    answers = judge_stances(JUDGE, stance_requests(item, store, best_excerpt, None)[:1])
    with pytest.raises(LookupError, match="no stance answer for b on c1"):
        verify_claim(
            item, store, CONFIG, answers=answers, excerpt=best_excerpt, criticality=CRITICAL, search=None
        )
