"""Each version's event says what it was scored with: policy, judges, reputation on file or estimated."""

from __future__ import annotations

from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from tests.service.conftest import sample_payload


def test_the_version_event_says_what_the_version_was_scored_with(runner: JobRunner) -> None:
    check_id = runner.submit(CheckInput(payload=sample_payload()))
    assert runner.run(check_id, "first") == "recorded version 1"
    [event] = [e for e in runner.service.events(check_id) if e.kind == "version"]
    scored_with = event.data["scored_with"]
    stored = runner.store.latest(check_id)
    assert (scored_with["policy"], scored_with["config_hash"]) == (stored.policy, stored.config_hash)
    assert scored_with["judges"] and all(j.startswith("offline-lexical@") for j in scored_with["judges"])
    assert scored_with["reputation_on_file"] >= 1  # the sample corpus's records, as `icarus check` loads them
    evidence = stored.ledger()["evidence"]
    assert scored_with["reputation_on_file"] + scored_with["reputation_estimated"] == len(evidence)
