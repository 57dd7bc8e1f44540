"""An evaluation gives the same numbers whether its judge answers many requests at once or one at a time:
the default cross-encoder, made to build its twin session for a small set, against the same judge hidden
behind a wrapper that does not opt in to parallel requests."""

from __future__ import annotations

from pathlib import Path

import pytest

from icarus.evaluation import climate_fever
from icarus.evaluation.runner import run_evaluation
from icarus.judges import OfflineMiniLMJudge, cross_encoder
from icarus.judges.cross_encoder import PROBE_PAIRS
from icarus.judges.parallel import ParallelJudge
from icarus.judges.protocol import AttributionVerdict, JudgeRequest, StanceVerdict
from icarus.reputation.manual import default_registry
from icarus.scoring.icarus.config import load_policy
from tests.evaluation.test_loaders import write_lines

SENTENCES = [
    "Global mean surface temperature has risen by about 1.1 degrees Celsius since the late 19th century.",
    "Arctic sea ice extent has declined in every season since satellite records began in 1979.",
    "Some regions have cooled slightly over the same period.",
    "The glacier advanced for a decade before it began to retreat.",
    "Sea level has risen by about 20 centimetres since 1900.",
]  # fmt: skip


def _row(number: int, claim: str, label: str) -> dict[str, object]:
    labels = ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "NOT_ENOUGH_INFO", "SUPPORTS"]
    return {
        "claim_id": str(number),
        "claim": claim,
        "claim_label": label,
        "evidences": [
            {
                "evidence_id": f"Article {n}:{number}",
                "evidence_label": labels[(number + n) % len(labels)],
                "article": f"Article {n}",
                "evidence": sentence,
                "entropy": 0.0,
                "votes": [labels[(number + n) % len(labels)]],
            }
            for n, sentence in enumerate(SENTENCES)
        ],
    }


class OneAtATime:
    """The same judge, without ``parallel_worker``: asked one request at a time."""

    def __init__(self, judge: OfflineMiniLMJudge) -> None:
        self.judge = judge

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        return self.judge.stance(request)

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return self.judge.attribution(request)


TIMINGS = ("seconds", "seconds_per_claim", "claim_seconds_p50")


def test_evaluation_numbers_do_not_depend_on_judging_many_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cross_encoder, "usable_cores", lambda: 2)
    monkeypatch.setattr(cross_encoder, "TWIN_WORTH_PAIRS", 2)  # a small set, so build the twin anyway
    claims = [claim for claim, _ in PROBE_PAIRS] + ["Arctic sea ice has grown since 1979."]
    rows = [
        _row(n, claim, ["SUPPORTS", "REFUTES", "DISPUTED", "NOT_ENOUGH_INFO"][n % 4])
        for n, claim in enumerate(claims)
    ]
    evalset = climate_fever.load(write_lines(tmp_path / climate_fever.FILE, rows), None, None)
    policy, registry = load_policy("icarus@1.1"), default_registry()

    parallel = OfflineMiniLMJudge(read_figures=True)
    many = run_evaluation(evalset, parallel, "offline-minilm@2", policy, registry).summary()
    assert parallel._worker is not None  # the twin did the judging
    serial = OneAtATime(OfflineMiniLMJudge(read_figures=True))
    assert not isinstance(serial, ParallelJudge)
    one = run_evaluation(evalset, serial, "offline-minilm@2", policy, registry).summary()
    for summary in (many, one):
        for timing in TIMINGS:
            summary.pop(timing)
    assert many == one
    assert many["n"] == len(claims) and many["stance_n"] == len(claims) * len(SENTENCES)
