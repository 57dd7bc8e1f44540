"""The research methods a debate runs on its claims, and what they share (``base``).

``run_method(mode, claim, services, budget=None)`` researches one claim with one method and returns its
``Panel``. Each method builds an Icarus evidence ledger for the claim and scores it under the configured
policy; ``icarus.scoring.icarus.panel_verdicts`` maps the result to a panel verdict.
"""

from icarus.debates.research.base import (
    DEFAULT_BUDGETS,
    METHOD_MODULES,
    Budget,
    BudgetLimit,
    BudgetMeter,
    ClaimToResearch,
    LlmConfig,
    MethodUnavailable,
    ResearchMethod,
    ResearchServices,
    default_budget,
    run_method,
)

__all__ = [
    "DEFAULT_BUDGETS",
    "METHOD_MODULES",
    "Budget",
    "BudgetLimit",
    "BudgetMeter",
    "ClaimToResearch",
    "LlmConfig",
    "MethodUnavailable",
    "ResearchMethod",
    "ResearchServices",
    "default_budget",
    "run_method",
]
