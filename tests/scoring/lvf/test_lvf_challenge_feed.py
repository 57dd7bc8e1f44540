"""Accepted challenges feed later runs: evidence through the provenance path, use marks, the old run intact."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from icarus.ledger import Access, Stance
from icarus.lvf.repository import LvfRepository
from icarus.reputation.registry import Registry
from icarus.scoring.lvf import Criterion, LvfRun, load_lvf_config, public_summary, render_run, run_lvf
from icarus.scoring.lvf.challenge_evidence import (
    REVIEW_JUDGE,
    REVIEWED_STANCE_CONFIDENCE,
    feed_challenge,
)
from icarus.scoring.lvf.challenges import ChallengeError, ChallengeState, ReviewAction, parse_submission
from icarus.scoring.lvf.engine import CHALLENGE_EVIDENCE
from icarus.scoring.lvf.record import ChallengeUse
from tests.scoring.lvf.support import FixedAssessor, all_scores, worthy_ledger

V3 = load_lvf_config("lvf@3.0")
LOOKUP = Registry().ledger_lookup  # no records on file: every submitted domain gets the heuristic estimate
E1_URL = "https://e1.example/story/e1"  # the ledger's own first item (tests.builders.item)


def evidence(
    url: str = "https://port.example/revision",
    stance: str = "refutes",
    excerpt: str = "Revised: container traffic fell 9%.",
) -> dict[str, Any]:
    return {"url": url, "excerpt": excerpt, "stance": stance}


def submission(*items: dict[str, Any], submitter: str = "sub-1") -> dict[str, Any]:
    return {
        "run_id": 1,
        "submitter": submitter,
        "reason": "The figure was revised.",
        "evidence": list(items) or [evidence()],
    }


def first_run() -> LvfRun:
    (run,) = run_lvf(worthy_ledger(), V3, [FixedAssessor(all_scores("8"))])
    return run


def later_runs(repo: LvfRepository) -> tuple[LvfRun, ...]:
    fed = [feed_challenge(a, LOOKUP) for a in repo.accepted_challenges("test-ledger")]
    return run_lvf(worthy_ledger(), V3, [FixedAssessor(all_scores("8"))], challenges=fed)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[LvfRepository]:
    with LvfRepository(tmp_path / "lvf.db", V3.challenges) as repository:
        assert repository.record_run(first_run()) == 1
        yield repository


def accept(repo: LvfRepository, raw: dict[str, Any]) -> str:
    challenge = repo.submit(parse_submission(raw, V3.challenges))
    assert repo.review(challenge, ReviewAction.ACCEPT, "rev-1", "checked") is ChallengeState.ACCEPTED
    return challenge


def test_submitted_evidence_becomes_a_snippet_only_untraceable_item_judged_by_the_review(
    repo: LvfRepository,
) -> None:
    challenge = accept(repo, submission(evidence(), evidence("https://news.example/a", "context")))
    (accepted,) = repo.accepted_challenges("test-ledger", "c1")
    fed = feed_challenge(accepted, LOOKUP)
    refuting, context = fed.items
    assert [i.evidence_id for i in fed.items] == [f"{challenge}/e1", f"{challenge}/e2"]
    assert refuting.domain == "port.example" and refuting.url == "https://port.example/revision"
    assert refuting.flags.access is Access.SNIPPET_ONLY
    assert refuting.content_sha256 is None and refuting.snapshot is None
    assert refuting.excerpt is not None and refuting.excerpt.text == refuting.text
    assert (refuting.reputation, refuting.source_class) == LOOKUP("port.example")
    (judgment,) = refuting.judgments
    assert judgment.claim_id == "c1" and judgment.stance.stance is Stance.REFUTE
    assert judgment.stance.confidence == REVIEWED_STANCE_CONFIDENCE and judgment.stance.judge == REVIEW_JUDGE
    assert context.judgments[0].stance.stance is Stance.NEUTRAL
    assert fed.evidence_hash.startswith("sha256:")


def test_an_accepted_challenge_feeds_a_later_run_and_the_old_run_never_changes(repo: LvfRepository) -> None:
    old = repo.get_run(1)
    old_json, old_text, old_public = old.run_json, render_run(old.run), public_summary(old.run)
    challenge = accept(repo, submission())
    assert [a.challenge_id for a in repo.accepted_challenges(unused_only=True)] == [challenge]

    (later,) = later_runs(repo)
    assert later.ledger_hash == old.run.ledger_hash  # the ledger as given; the challenge is named apart
    assert later.counts is not None and old.run.counts is not None
    assert later.counts.refuting_origins == old.run.counts.refuting_origins + 1 == 1
    assert later.counts.independent_origins == old.run.counts.independent_origins + 1
    ledger_scores = later.assessors[0].scores
    assert ledger_scores[Criterion.INTERNAL_CONSISTENCY] == Decimal("6.7")  # 2 supporting, 1 refuting origin
    (use,) = later.challenges
    assert use.challenge_id == challenge and use.challenged_run_id == 1
    assert use.evidence_ids == (f"{challenge}/e1",)
    assert CHALLENGE_EVIDENCE in later.limitations
    assert f"{challenge} (1 item(s))" in render_run(later)

    assert repo.record_run(later) == 2
    view = repo.challenge(challenge)
    assert view.used_by == (2,) and view.state is ChallengeState.ACCEPTED
    assert [e.kind.value for e in view.events][-1] == "used_in_run"
    assert repo.accepted_challenges(unused_only=True) == []

    stored = repo.get_run(1)
    assert stored.run_json == old_json  # byte for byte
    assert render_run(stored.run) == old_text and public_summary(stored.run) == old_public
    assert repo.get_run(2).run.challenges == later.challenges


def test_a_run_without_challenges_keeps_its_bytes_and_hash() -> None:
    run = first_run()
    assert '"challenges"' not in run.canonical_json()
    assert LvfRun.model_validate_json(run.canonical_json()).canonical_json() == run.canonical_json()
    assert "challenges" not in public_summary(run)


def test_rejected_and_pending_challenges_are_never_used(repo: LvfRepository) -> None:
    rejected = repo.submit(parse_submission(submission(submitter="a"), V3.challenges))
    repo.review(rejected, ReviewAction.REJECT, "rev-1", "off topic")
    pending = repo.submit(parse_submission(submission(submitter="b"), V3.challenges))
    repo.review(pending, ReviewAction.REQUEST_MORE_INFO, "rev-1", "which table?")
    repo.submit(parse_submission(submission(submitter="c"), V3.challenges))  # queued, not reviewed
    assert repo.accepted_challenges() == []
    (later,) = later_runs(repo)
    assert later.challenges == () and later.canonical_json() == first_run().canonical_json()

    # Even a run that claims to have read a rejected or pending challenge cannot be stored.
    for challenge in (rejected, pending):
        forged = later.model_copy(
            update={
                "challenges": (
                    ChallengeUse(
                        challenge_id=challenge, challenged_run_id=1, evidence_ids=(), evidence_hash="x"
                    ),
                )
            }
        )
        with pytest.raises(ChallengeError, match="not allowed"):
            repo.record_run(forged)
    assert [r.run_id for r in repo.runs()] == [1]  # the refused run was not stored either


def test_every_later_run_reads_an_accepted_challenge_and_each_use_is_marked_once(repo: LvfRepository) -> None:
    challenge = accept(repo, submission())
    (second,) = later_runs(repo)
    assert repo.record_run(second) == 2
    assert repo.record_run(second) == 2  # the same run again: no second record, no second mark
    fed = [feed_challenge(a, LOOKUP) for a in repo.accepted_challenges("test-ledger")]
    (third,) = run_lvf(worthy_ledger(), V3, [FixedAssessor(all_scores("6"))], challenges=fed)
    assert third.challenges == second.challenges
    assert repo.record_run(third) == 3
    assert repo.challenge(challenge).used_by == (2, 3)
    (listed,) = repo.accepted_challenges()
    assert listed.used_by == (2, 3)


def test_independence_is_counted_by_origin_not_by_submitted_article(repo: LvfRepository) -> None:
    old = repo.get_run(1).run.counts
    assert old is not None
    # A copy of an item already in the ledger, and one new source submitted in two challenges.
    accept(repo, submission(evidence(E1_URL, "supports", "Traffic at the harbor fell."), submitter="a"))
    accept(repo, submission(evidence(), submitter="b"))
    accept(repo, submission(evidence(), submitter="c"))
    (later,) = later_runs(repo)
    assert later.counts is not None and len(later.challenges) == 3
    assert later.counts.counted_items == old.counted_items + 3
    assert later.counts.supporting_origins == old.supporting_origins  # the copy joined e1's origin
    assert later.counts.refuting_origins == 1  # two submissions, one origin


def test_a_challenge_is_only_read_by_runs_of_its_own_claim_and_ledger(repo: LvfRepository) -> None:
    accept(repo, submission())
    (accepted,) = repo.accepted_challenges()
    fed = feed_challenge(accepted, LOOKUP)
    other_claim = replace(fed, claim_id="c9")
    (run,) = run_lvf(worthy_ledger(), V3, [FixedAssessor(all_scores("8"))], challenges=[other_claim])
    assert run.challenges == ()
    with pytest.raises(ValueError, match="not about ledger test-ledger"):
        run_lvf(worthy_ledger(), V3, challenges=[replace(fed, ledger_id="another-ledger")])
    (later,) = later_runs(repo)
    mismatched = later.model_copy(update={"claim_id": "c2"})
    with pytest.raises(ChallengeError, match="about claim c1"):
        repo.record_run(mismatched)
