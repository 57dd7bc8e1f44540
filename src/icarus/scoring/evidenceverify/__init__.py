"""EvidenceVerify: cross-source verification of one debate claim against an evidence store.

The six steps are pure (``verify``): they read the stance judge's answers, never the judge. Asking the
judge, the independent search, the run around them and the CLI are the front door, ``icarus.evidenceverify``.
"""

from icarus.scoring.evidenceverify.criticality import CriticalityAnswer, OfflineCriticalityJudge
from icarus.scoring.evidenceverify.models import (
    ClaimItem,
    ClaimStatus,
    ConfidenceLevel,
    EvidenceRecord,
    EvidenceStore,
    EvidenceVerifyConfig,
    VerificationResult,
    load_claim,
    load_evidenceverify_config,
    load_store,
)
from icarus.scoring.evidenceverify.verify import (
    ALLOWED_TRANSITIONS,
    SearchOutcome,
    StanceAnswers,
    stance_requests,
    transition,
    verify_claim,
)

__all__ = [
    "ALLOWED_TRANSITIONS",
    "ClaimItem",
    "ClaimStatus",
    "ConfidenceLevel",
    "CriticalityAnswer",
    "EvidenceRecord",
    "EvidenceStore",
    "EvidenceVerifyConfig",
    "OfflineCriticalityJudge",
    "SearchOutcome",
    "StanceAnswers",
    "VerificationResult",
    "load_claim",
    "load_evidenceverify_config",
    "load_store",
    "stance_requests",
    "transition",
    "verify_claim",
]
