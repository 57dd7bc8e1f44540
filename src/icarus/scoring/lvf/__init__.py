"""LVF v3.0: a checkworthiness gate, six criteria scored by independent assessors, four components.

Pure scoring: ``config``, ``facts``, ``assessors``, ``formula``, ``engine`` and ``record``, with the challenge
rules (``challenges``, ``challenge_evidence``) and the methodology page. The LLM assessor, the store of runs
and challenges and the CLI are the front door, ``icarus.lvf``.
"""

from icarus.scoring.lvf.assessors import (
    LEDGER_ASSESSOR,
    AssessmentRequest,
    Assessor,
    AssessorResult,
    LedgerAssessor,
)
from icarus.scoring.lvf.config import DEFAULT_LVF, Component, Criterion, LvfConfig, load_lvf_config
from icarus.scoring.lvf.engine import run_lvf
from icarus.scoring.lvf.formula import Band, LvfLabel
from icarus.scoring.lvf.record import LvfRun, RunStatus, public_summary, recompute_score, render_run

__all__ = [
    "DEFAULT_LVF",
    "LEDGER_ASSESSOR",
    "AssessmentRequest",
    "Assessor",
    "AssessorResult",
    "Band",
    "Component",
    "Criterion",
    "LedgerAssessor",
    "LvfConfig",
    "LvfLabel",
    "LvfRun",
    "RunStatus",
    "load_lvf_config",
    "public_summary",
    "recompute_score",
    "render_run",
    "run_lvf",
]
