"""A whole check with a model configured: every assisted step recorded in the ledger, the validated plan is
the one that ran, drafts published or replaced, and the stored version replays byte for byte."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from icarus.capture import capture_text
from icarus.fetching import SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import AssistOutcome, AssistStep
from icarus.llm.assist import ModelAssist
from icarus.pipeline.check import CheckServices, run_check
from icarus.reports.render import render_markdown
from icarus.reports.replay import replay
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider, PlannedQuery, ProviderResult
from icarus.scoring.icarus.config import load_policy
from icarus.store import Store
from tests.assist.conftest import FakeServer, route, user_text

EXAMPLES = Path(__file__).parents[2] / "examples" / "sample-corpus"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
POST = (
    "Container traffic at Halden harbor fell 12% in October. "
    "The Halden council voted on Monday to extend library opening hours to 9 pm."
)
FIRST = "Container traffic at Halden harbor fell 12% in October"


@dataclass
class Recording:
    inner: LocalCorpusProvider
    name: str = "local"
    seen: list[PlannedQuery] = field(default_factory=list)

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        self.seen.append(query)
        return self.inner.search(query, limit)


@pytest.fixture
def provider(tmp_path: Path) -> Recording:
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add(sorted(EXAMPLES.glob("*.html")))
    return Recording(LocalCorpusProvider(corpus))


def services(tmp_path: Path, provider: Recording, assist: ModelAssist | None) -> CheckServices:
    store = Store(f"sqlite:///{tmp_path / 'icarus.db'}")
    store.open()
    return CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[provider],
        registry=load_registry(EXAMPLES / "reputation.json"),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
        store=store,
        assist=assist,
    )


def cite_first_evidence(request: dict[str, Any]) -> dict[str, Any]:
    """A draft that cites the first evidence it was given as context, quoting its opening words."""
    text = user_text(request)
    claim_id = re.search(r"Claim id: (\S+)", text).group(1)  # type: ignore[union-attr]
    found = re.search(r"Evidence id: (\S+)\n\nBEGIN DATA \w+ \([^)]*\)\n(.{1,60}?)\s", text, re.DOTALL)
    if found is None:
        return {"claim_id": claim_id, "text": "No evidence was found.", "citations": []}
    evidence_id, quote = found.group(1), found.group(2)
    return {
        "claim_id": claim_id,
        "text": f"The closest evidence found is [{evidence_id}].",
        "citations": [{"evidence_id": evidence_id, "quote": quote, "side": "context"}],
    }


ANSWERS: dict[str, Any] = {
    "claim_spans": {
        "claims": [
            {"field": "plain_text", "quote": FIRST, "search_text": "Halden harbor container traffic October"},
            {
                "field": "plain_text",
                "quote": "The council voted",
                "search_text": "council",
            },  # not in the text
        ]
    },
    "query_plan": {
        "queries": [
            {
                "kind": "close_wording",
                "text": "Halden harbor container traffic",
                "any_of": [],
                "since": None,
                "until": None,
            },
            {
                "kind": "refutation",
                "text": "Halden harbor twitter.com",
                "any_of": [],
                "since": None,
                "until": None,
            },
        ]
    },
    "explanation_draft": cite_first_evidence,
}


def test_every_step_is_recorded_and_the_validated_plan_is_what_ran(
    tmp_path: Path, provider: Recording, fake_llm: FakeServer, assist: ModelAssist
) -> None:
    route(fake_llm, ANSWERS)
    output = run_check(capture_text(POST, NOW), services(tmp_path, provider, assist), NOW)
    ledger = output.ledger
    steps = {(s.step, s.claim_id): s for s in ledger.model_steps}
    spans = steps[(AssistStep.CLAIM_SPANS, None)]
    assert spans.outcome is AssistOutcome.PARTLY_ACCEPTED
    assert spans.rejected == ["claim 2: its quote is not in plain_text"]
    assert [c.text for c in ledger.claims] == [FIRST]
    assert ledger.claims[0].normalized == "Halden harbor container traffic October"
    assert (AssistStep.IMPLIED_CLAIMS, None) in steps
    plan_step = steps[(AssistStep.QUERY_PLAN, "c1")]
    assert plan_step.rejected == ["search 2: it names X/Twitter or uses a site: operator"]
    [plan] = ledger.query_plans
    ran = [(q.kind.value, q.text, list(q.any_of), q.since, q.until) for q in provider.seen]
    assert [(s.kind, s.text, s.any_of, s.since, s.until) for s in plan.searches] == ran
    assert plan.searches[0].proposed_by == "model" and {s.proposed_by for s in plan.searches[1:]} == {
        "planner"
    }
    assert not any("twitter" in q.text for q in provider.seen)
    draft_step = steps[(AssistStep.EXPLANATION_DRAFT, "c1")]
    assert draft_step.outcome is AssistOutcome.ACCEPTED, draft_step.rejected
    [draft] = ledger.drafts
    assert draft.cited_evidence_ids and draft.cited_evidence_ids[0] in {
        e.evidence_id for e in ledger.evidence
    }
    # What was stored is the ledger's own score: a replay reproduces it.
    assert output.version is not None
    store = services(tmp_path, provider, None).store
    assert store is not None
    outcome = replay(store, output.version.check_id)
    assert outcome.identical, outcome.diff + outcome.problems
    markdown = render_markdown(output.result, ledger)
    assert draft.text in markdown and "Searches run:" in markdown and "proposed by a model" in markdown


def test_a_failing_endpoint_leaves_the_offline_check(
    tmp_path: Path, provider: Recording, fake_llm: FakeServer
) -> None:
    # Nothing answers: every step fails closed and the check is what it is offline.
    down = ModelAssist(fake_llm.base_url, "fake-model", max_retries=0, timeout=5)
    with_model = run_check(capture_text(POST, NOW), services(tmp_path / "a", provider, down), NOW)
    offline = run_check(capture_text(POST, NOW), services(tmp_path / "b", provider, None), NOW)
    assert with_model.result["claims"] == offline.result["claims"]
    assert with_model.result["overall"] == offline.result["overall"]
    assert {s.outcome for s in with_model.ledger.model_steps} == {AssistOutcome.FAILED}
    assert offline.ledger.model_steps == [] and offline.ledger.drafts == []
    assert [p.searches for p in with_model.ledger.query_plans] == [
        p.searches for p in offline.ledger.query_plans
    ]
