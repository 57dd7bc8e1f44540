"""EvidenceVerify: cross-source verification of one debate claim against an evidence store.

The six steps are pure (``verify``); the independent search (``search``) and the CLI (``cli``) are adapters.
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
from icarus.scoring.evidenceverify.service import evidence_verify
from icarus.scoring.evidenceverify.verify import ALLOWED_TRANSITIONS, SearchOutcome, transition, verify_claim

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
    "VerificationResult",
    "evidence_verify",
    "load_claim",
    "load_evidenceverify_config",
    "load_store",
    "transition",
    "verify_claim",
]
