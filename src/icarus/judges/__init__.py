"""Typed judges: narrow questions about one evidence item, answered with provenance.

Judges propose; versioned code decides. ``protocol`` holds the questions and answers and turns answers
into ledger records; ``cross_encoder`` is the embedded default (a fine-tuned MiniLM read as int8 ONNX,
calibrated confidence); ``trained`` is the WordLlama judge (static embeddings, a small numpy head, the same
calibration scheme), both trained by ``icarus_training`` and measured by ``evaluate``; ``offline`` is the lexical judge
(deterministic, no weights); ``llm`` asks any OpenAI-compatible endpoint; ``parallel`` puts many requests to
one judge at once; ``quarantine`` cleans text before a model reads it (H30); ``registry`` builds judges by
versioned name.
"""

from typing import TYPE_CHECKING

from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.offline import OfflineLexicalJudge, parse_attributions, propose_self_evidence
from icarus.judges.parallel import ParallelJudge, judge_all
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

if TYPE_CHECKING:
    from icarus.judges.llm import OpenAICompatibleJudge

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
    "ParallelJudge",
    "Quarantined",
    "Recorder",
    "StanceVerdict",
    "create_judge",
    "judge_all",
    "judge_from_settings",
    "parse_attributions",
    "propose_self_evidence",
    "quarantine",
    "to_attribution",
    "to_claim_judgment",
]


def __getattr__(name: str) -> object:
    # The LLM judge is imported on first use: the openai client takes about a second to import, and a run
    # on the offline judges never needs it.
    if name == "OpenAICompatibleJudge":
        from icarus.judges.llm import OpenAICompatibleJudge

        return OpenAICompatibleJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
