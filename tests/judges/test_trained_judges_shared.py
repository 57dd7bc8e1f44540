"""What both trained offline judges promise alike: the calibrated confidence reaches the ledger as given,
a passage without an excerpt is judged on its clearest sentence, and the same request gets the same answer."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.protocol import JudgeRequest, to_claim_judgment, to_confidence
from icarus.judges.trained import OfflineWordLlamaJudge
from icarus.ledger.judgments import Stance

REQUEST = JudgeRequest(
    claim_id="c1",
    claim_text="Arctic sea ice extent has declined since 1979.",
    evidence_id="e1",
    excerpt="Satellite records show that Arctic sea ice extent has declined steadily since 1979.",
)
JUDGES = pytest.mark.parametrize(
    "make_judge", [OfflineWordLlamaJudge, OfflineMiniLMJudge], ids=["wordllama", "minilm"]
)
Judge = OfflineWordLlamaJudge | OfflineMiniLMJudge


@JUDGES
def test_the_ledger_receives_the_calibrated_confidence(make_judge: type[Judge]) -> None:
    judge = make_judge()
    verdict = judge.stance(REQUEST)
    raw = json.loads(verdict.raw_answer)
    calibration = judge.weights.calibration
    top = max(raw["probabilities"].values())
    expected = to_confidence(Decimal(repr(float(calibration.confidence(top)))))
    assert raw["calibrated_confidence"] == pytest.approx(float(calibration.confidence(top)), abs=1e-6)
    assert verdict.confidence == expected
    judgment = to_claim_judgment(verdict)
    assert judgment.stance.confidence == expected
    assert (
        judgment.stance.judge is not None and judgment.stance.judge.calibration_id == verdict.calibration_id
    )


@JUDGES
def test_without_an_excerpt_the_clearest_sentence_is_judged(make_judge: type[Judge]) -> None:
    text = (
        "The museum opened in 1901. Arctic sea ice extent has declined since 1979, satellites show. "
        "Tickets cost ten euros."
    )
    verdict = make_judge().stance(REQUEST.model_copy(update={"excerpt": "", "evidence_text": text}))
    assert "satellites show" in json.loads(verdict.raw_answer)["passage"]
    assert verdict.stance is Stance.SUPPORT


@JUDGES
def test_answers_are_deterministic(make_judge: type[Judge]) -> None:
    assert make_judge().stance(REQUEST) == make_judge().stance(REQUEST)


@JUDGES
def test_the_sample_post_through_a_whole_check(make_judge: type[Judge], tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from icarus.fetching import SnapshotStore
    from icarus.pipeline.check import CheckServices, run_check
    from icarus.reputation import load_registry
    from icarus.research import LocalCorpus, LocalCorpusProvider
    from icarus.scoring.icarus.config import load_policy
    from tests.pipeline.test_check_end_to_end import EXAMPLES, sample_subject

    judge = make_judge()
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add(sorted((EXAMPLES / "sample-corpus").glob("*.html")))
    services = CheckServices(
        judge=judge,
        providers=[LocalCorpusProvider(corpus)],
        registry=load_registry(EXAMPLES / "sample-corpus" / "reputation.json"),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
        store=None,
    )
    output = run_check(sample_subject(), services, datetime(2026, 11, 20, 12, tzinfo=UTC))
    stances = {item.url.rsplit("/", 1)[-1]: item.judgments[0].stance for item in output.ledger.evidence}
    provider = judge.provenance.provider
    assert all(s.judge is not None and s.judge.provider == provider for s in stances.values())
    assert stances["northwire-halden-traffic"].stance is Stance.SUPPORT  # the wire story states the claim
    assert stances["truthbuzz-harbor-booming"].stance is Stance.REFUTE  # "did not fall"
    assert stances["council-library-hours"].stance is Stance.NEUTRAL
