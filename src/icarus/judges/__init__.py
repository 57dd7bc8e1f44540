"""Typed judges: narrow questions about one evidence item, answered with provenance.

Judges propose; versioned code decides. ``protocol`` holds the questions and answers and turns answers
into ledger records; ``trained`` is the embedded default (WordLlama features, a small numpy head,
calibrated confidence; trained by ``training``, measured by ``evaluate``); ``cross_encoder`` is the
fine-tuned MiniLM judge (int8 ONNX, same calibration scheme); ``offline`` is the lexical judge
(deterministic, no weights); ``llm`` asks any OpenAI-compatible endpoint; ``quarantine`` cleans text
before a model reads it (H30); ``registry`` builds judges by versioned name.
"""

from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.llm import OpenAICompatibleJudge
from icarus.judges.offline import OfflineLexicalJudge, parse_attributions, propose_self_evidence
from icarus.judges.protocol import (
    AttributionVerdict,
    FailureReason,
    Judge,
    JudgeCall,
    JudgeRequest,
    Recorder,
    StanceVerdict,
    to_attribution,
    to_claim_judgment,
)
from icarus.judges.quarantine import Quarantined, quarantine
from icarus.judges.registry import JUDGES, JudgeConfigError, create_judge, judge_from_settings
from icarus.judges.trained import OfflineWordLlamaJudge

__all__ = [
    "JUDGES",
    "AttributionVerdict",
    "FailureReason",
    "Judge",
    "JudgeCall",
    "JudgeConfigError",
    "JudgeRequest",
    "OfflineLexicalJudge",
    "OfflineMiniLMJudge",
    "OfflineWordLlamaJudge",
    "OpenAICompatibleJudge",
    "Quarantined",
    "Recorder",
    "StanceVerdict",
    "create_judge",
    "judge_from_settings",
    "parse_attributions",
    "propose_self_evidence",
    "quarantine",
    "to_attribution",
    "to_claim_judgment",
]
