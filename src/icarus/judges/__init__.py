"""Typed judges: narrow questions about one evidence item, answered with provenance.

Judges propose; versioned code decides. ``protocol`` holds the questions and answers and turns answers
into ledger records; ``cross_encoder`` is the embedded default (a fine-tuned MiniLM read as int8 ONNX,
calibrated confidence); ``trained`` is the WordLlama judge (static embeddings, a small numpy head, the same
calibration scheme), both trained by ``icarus_training`` and measured by ``icarus.evaluation.stance_judges``; ``offline`` is the lexical judge
(deterministic, no weights); ``llm`` asks any OpenAI-compatible endpoint; ``parallel`` puts many requests to
one judge at once; ``registry`` builds judges by versioned name. ``quarantine`` (H30) is
``icarus.llm.quarantine``'s, named here too.
"""

from importlib import import_module
from typing import TYPE_CHECKING

# H30's quarantine lives with every other model call (``icarus.llm``); the judges' public names keep it. It
# is small (regular expressions, no model).
from icarus.llm.quarantine import Quarantined, quarantine

if TYPE_CHECKING:
    from icarus.judges.cross_encoder import OfflineMiniLMJudge
    from icarus.judges.llm import OpenAICompatibleJudge
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


# Where each public name lives. They are imported on first use, so that importing one judge module (the
# protocol, say) does not load every judge, the settings and the openai client (about a second at start-up).
_HOMES = {
    "OfflineMiniLMJudge": "cross_encoder",
    "OpenAICompatibleJudge": "llm",
    "OfflineLexicalJudge": "offline",
    "parse_attributions": "offline",
    "propose_self_evidence": "offline",
    "ParallelJudge": "parallel",
    "judge_all": "parallel",
    "AttributionVerdict": "protocol",
    "FailureReason": "protocol",
    "Judge": "protocol",
    "JudgeCall": "protocol",
    "JudgeRequest": "protocol",
    "Recorder": "protocol",
    "StanceVerdict": "protocol",
    "to_attribution": "protocol",
    "to_claim_judgment": "protocol",
    "JUDGES": "registry",
    "JudgeConfigError": "registry",
    "create_judge": "registry",
    "judge_from_settings": "registry",
    "OfflineWordLlamaJudge": "trained",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
