"""A post that quotes another: the quote's words are claims, marked as the quote's; the subject stays the post."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from icarus.capture import capture_x_mention
from icarus.fetching import SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import FieldName
from icarus.pipeline.check import CheckServices, run_check
from icarus.reputation import Registry
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import QUOTED_POST_CAVEAT
from tests.capture.conftest import load_payload

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
QUOTED_ID = "1900000000000000150"


def test_claims_from_the_quoted_post_are_checked_and_marked(tmp_path: Path) -> None:
    outcome = capture_x_mention(load_payload("quoted_parent"), NOW)
    assert outcome.subject is not None
    services = CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[],
        registry=Registry(),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
    )
    output = run_check(outcome.subject, services, NOW)
    assert output.ledger.subject.subject_id == "1900000000000000202"  # the post that quotes, not the quote
    by_field = {c.claim_id: c.source_field for c in output.ledger.claims}
    published = {c["id"]: c for c in output.result["claims"]}
    quoted = [i for i in published if by_field[i] is FieldName.QUOTED_POST]
    own = [i for i in published if by_field[i] is FieldName.POST_TEXT]
    assert [published[i]["text"] for i in quoted] == [
        "Reservoir update: levels across the Vale network stand at 38% of capacity this week"
    ]
    assert own, "the post's own claim is still checked"
    assert all(QUOTED_POST_CAVEAT in published[i]["caveats"] for i in quoted)
    assert all(QUOTED_POST_CAVEAT not in published[i]["caveats"] for i in own)
