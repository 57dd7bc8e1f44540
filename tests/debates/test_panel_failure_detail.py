"""A research method that fails on every attempt is answered unverifiable, and what the panel publishes
says so in words: the error (which may quote a provider's message, a query or an address) goes to the log,
never into the panel's trace."""

from __future__ import annotations

import pytest

from icarus.debates.model import DebateSettings, ResearchMode, Verdict
from icarus.debates.research_runs import PANEL_FAILED, failure_explanation, failure_kind
from icarus.store import Store
from tests.debates.store_fixtures import OPERATOR, FakeClock, ScriptedResearch, make_service, segment
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store

SECRET_ERROR = "POST https://search.internal/q?key=s3cret failed: 500"


def test_a_failed_panel_publishes_a_sentence_and_logs_the_error(
    store: Store, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_claim: object) -> object:
        raise RuntimeError(SECRET_ERROR)

    research = ScriptedResearch(answers={ResearchMode.TWO_STEP: broken})  # type: ignore[dict-item]
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[ResearchMode.TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    with caplog.at_level("WARNING", logger="icarus.debates"):
        for _ in range(service.config.max_attempts - 1):
            clock.advance(hours=1)
            service.run_due()
    [panel] = service.claim_results(OPERATOR, claim.claim_id).panels
    assert panel.verdict is Verdict.UNVERIFIABLE and panel.panel is not None
    published = panel.panel.model_dump_json()
    assert panel.panel.trace["failed"] == PANEL_FAILED
    assert "s3cret" not in published and "search.internal" not in published
    assert SECRET_ERROR in caplog.text
    # in words a reader follows: no exception class, and what would settle it
    assert "RuntimeError" not in published
    assert panel.panel.explanation.startswith("This method stopped on an error on each of its")
    assert "Re-checking the claim with this method" in panel.panel.explanation


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (TimeoutError("read timed out"), "timed out"),
        (ConnectionRefusedError("refused"), "could not reach a service it needs"),
        (ValueError("bad"), "stopped on an error"),
    ],
)
def test_a_failure_is_named_by_its_kind_in_words(error: Exception, words: str) -> None:
    assert failure_kind(error) == words
    assert failure_explanation(error, 1).startswith(f"This method {words} on its one attempt,")
    assert "each of its 3 attempts" in failure_explanation(error, 3)
