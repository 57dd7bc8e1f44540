"""What every research method shares: the claim to research, its services, its budget, and the dispatch.

A research method is a module of this package with one function::

    def research(claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter) -> Panel

``run_method`` finds the module for a ``ResearchMode`` in ``METHOD_MODULES`` (imported on first use, so a
method's dependencies load only when it runs), starts a ``BudgetMeter`` on the method's default budget (or
the one given) and returns the method's panel. A method stops as soon as the meter says a limit is hit and
still summarises what it gathered; the panel's ``trace`` names the limit (``BudgetMeter.trace``).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final, Protocol, cast

from pydantic import SecretStr

from icarus.debates.model import Panel, ResearchMode, Verdict
from icarus.fetching import ArchiveSource, SafeFetcher, SnapshotStore
from icarus.judges import Judge
from icarus.lookups import LookupRegistry
from icarus.pipeline.check import CheckServices
from icarus.reputation import Registry
from icarus.research import LocalCorpusProvider, SearchProvider
from icarus.scoring.icarus.config import PolicyConfig
from icarus.settings import Settings

__all__ = [
    "BUDGET_LIMIT_NOTES",
    "DEFAULT_BUDGETS",
    "DEFAULT_LLM_TIMEOUT_S",
    "METHOD_MODULES",
    "PAGE_COST",
    "SEARCH_COST",
    "Budget",
    "BudgetLimit",
    "BudgetMeter",
    "ClaimToResearch",
    "LlmConfig",
    "MethodUnavailable",
    "ResearchMethod",
    "ResearchServices",
    "default_budget",
    "method_for",
    "research_cost",
    "run_method",
]


@dataclass(frozen=True)
class Budget:
    """How far one method may go for one claim: searches run, pages read, link depth, wall-clock seconds."""

    max_searches: int
    max_pages: int
    max_depth: int
    max_seconds: float

    def __post_init__(self) -> None:
        if min(self.max_searches, self.max_pages, self.max_depth) < 0 or self.max_seconds < 0:
            raise ValueError(f"budget limits must not be negative: {self}")


# One search is one planned query sent to one provider. Depth is how many rounds (decompose_invest's
# follow-up) or link hops (ricochet) a method may take beyond its first search round.
TWO_STEP_BUDGET: Final = Budget(max_searches=24, max_pages=12, max_depth=0, max_seconds=60.0)
DECOMPOSE_BUDGET: Final = Budget(max_searches=48, max_pages=24, max_depth=0, max_seconds=120.0)
DECOMPOSE_INVEST_BUDGET: Final = Budget(max_searches=72, max_pages=36, max_depth=1, max_seconds=180.0)
LOCAL_BUDGET: Final = Budget(max_searches=12, max_pages=12, max_depth=0, max_seconds=30.0)
AGENTIC_BUDGET: Final = Budget(max_searches=40, max_pages=30, max_depth=6, max_seconds=240.0)
RICOCHET_BUDGET: Final = Budget(max_searches=12, max_pages=30, max_depth=3, max_seconds=240.0)

DEFAULT_BUDGETS: Final[Mapping[ResearchMode, Budget]] = MappingProxyType(
    {
        ResearchMode.TWO_STEP: TWO_STEP_BUDGET,
        ResearchMode.DECOMPOSE: DECOMPOSE_BUDGET,
        ResearchMode.DECOMPOSE_INVEST: DECOMPOSE_INVEST_BUDGET,
        ResearchMode.LOCAL: LOCAL_BUDGET,
        ResearchMode.AGENTIC: AGENTIC_BUDGET,
        ResearchMode.RICOCHET: RICOCHET_BUDGET,
    }
)
"""Each method's budget when the caller gives none."""


def default_budget(mode: ResearchMode) -> Budget:
    return DEFAULT_BUDGETS[mode]


class BudgetLimit(StrEnum):
    """Which limit stopped a method; recorded in the panel's trace as ``budget_limit``."""

    SEARCHES = "max_searches"
    PAGES = "max_pages"
    DEPTH = "max_depth"
    SECONDS = "max_seconds"


BUDGET_LIMIT_NOTES: Final[Mapping[BudgetLimit, str]] = MappingProxyType(
    {
        BudgetLimit.SEARCHES: "Research stopped at its search budget; the verdict rests on what was found.",
        BudgetLimit.PAGES: "Research stopped at its page budget; the verdict rests on what was read.",
        BudgetLimit.DEPTH: "Research stopped at its depth budget; the verdict rests on what was found.",
        BudgetLimit.SECONDS: "Research stopped at its time budget; the verdict rests on what was found.",
    }
)
"""The sentence a panel's explanation gains when a budget limit cut its research short."""


class BudgetMeter:
    """Counts what a method spends against its ``Budget`` and remembers the first limit it ran into.

    Ask before spending: ``can_search()`` / ``can_read_page()`` / ``can_go_deeper(depth)`` answer False once
    the limit (or the time) is reached and record which one; ``spend_search()`` / ``spend_page()`` count.
    """

    def __init__(self, budget: Budget, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget
        self._clock = clock
        self._started = clock()
        self.searches = 0
        self.pages = 0
        self.depth = 0
        self.limit_hit: BudgetLimit | None = None

    def _hit(self, limit: BudgetLimit) -> bool:
        if self.limit_hit is None:
            self.limit_hit = limit
        return False

    @property
    def elapsed_s(self) -> float:
        return self._clock() - self._started

    def seconds_left(self) -> float:
        return max(0.0, self.budget.max_seconds - self.elapsed_s)

    def out_of_time(self) -> bool:
        if self.elapsed_s >= self.budget.max_seconds:
            self._hit(BudgetLimit.SECONDS)
            return True
        return False

    def can_search(self) -> bool:
        if self.out_of_time():
            return False
        if self.searches >= self.budget.max_searches:
            return self._hit(BudgetLimit.SEARCHES)
        return True

    def spend_search(self) -> None:
        self.searches += 1

    def can_read_page(self) -> bool:
        if self.out_of_time():
            return False
        if self.pages >= self.budget.max_pages:
            return self._hit(BudgetLimit.PAGES)
        return True

    def spend_page(self) -> None:
        self.pages += 1

    def can_go_deeper(self, depth: int) -> bool:
        """Whether a round or hop at ``depth`` (0 is the first search round) is allowed; records it."""
        if self.out_of_time():
            return False
        if depth > self.budget.max_depth:
            return self._hit(BudgetLimit.DEPTH)
        self.depth = max(self.depth, depth)
        return True

    def trace(self) -> dict[str, Any]:
        """What was spent, of what, and which limit (if any) stopped the research."""
        return {
            "budget": {
                "max_searches": self.budget.max_searches,
                "max_pages": self.budget.max_pages,
                "max_depth": self.budget.max_depth,
                "max_seconds": self.budget.max_seconds,
            },
            "spent": {
                "searches": self.searches,
                "pages": self.pages,
                "depth": self.depth,
                "seconds": round(self.elapsed_s, 3),
            },
            "budget_limit": self.limit_hit.value if self.limit_hit is not None else None,
        }


SEARCH_COST: Final = 1.0
"""Research cost units of one search (one query to one provider): what a panel is billed per search."""
PAGE_COST: Final = 0.2
"""Research cost units of one page read."""

DEFAULT_LLM_TIMEOUT_S: Final = 60.0


@dataclass(frozen=True)
class LlmConfig:
    """An OpenAI-compatible endpoint a method may ask (decomposition, navigation, final text)."""

    base_url: str
    model: str
    api_key: SecretStr | None = None
    timeout_s: float = DEFAULT_LLM_TIMEOUT_S

    @classmethod
    def from_settings(cls, settings: Settings) -> LlmConfig | None:
        if not settings.llm_base_url or not settings.llm_model:
            return None
        return cls(settings.llm_base_url, settings.llm_model, settings.llm_api_key)


@dataclass(frozen=True)
class ClaimToResearch:
    """A claim as a debate hands it to a method. ``as_of`` is when the research runs (pages are read and
    scored then); ``held_at`` is when the claim was made, the debate's date (``as_of`` when None). Both
    must be timezone-aware."""

    text: str
    as_of: datetime
    language: str = "en"
    country: str | None = None
    strong_language: bool = False
    speaker: str | None = None
    held_at: datetime | None = None

    def __post_init__(self) -> None:
        for name, moment in (("as_of", self.as_of), ("held_at", self.held_at)):
            if moment is not None and (moment.tzinfo is None or moment.utcoffset() is None):
                raise ValueError(f"{name} must be timezone-aware")
        if not self.text.strip():
            raise ValueError("a claim to research needs text")

    @property
    def said_at(self) -> datetime:
        """The moment the claim speaks for: its present tense and its search date bounds read this."""
        return self.held_at if self.held_at is not None else self.as_of


@dataclass
class ResearchServices:
    """The adapters every method runs on: the same pieces a check uses (``pipeline.services``)."""

    providers: Sequence[SearchProvider]  # every main search provider, the local corpus included
    judge: Judge
    registry: Registry
    policy: PolicyConfig
    snapshots: SnapshotStore
    local_provider: SearchProvider | None = None  # the local corpus alone, for ``local``
    fetcher: SafeFetcher | None = None  # None: no network; web hits are read from their snippets
    archive: ArchiveSource | None = None
    lookups: LookupRegistry = field(default_factory=LookupRegistry)
    llm: LlmConfig | None = None  # None: every method runs its offline, rule-driven form
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def from_settings(cls, settings: Settings, *, policy_ref: str | None = None) -> ResearchServices:
        """The services a check would get from ``settings`` (nothing recorded: panels are stored by the
        debate store), plus the LLM endpoint when one is configured."""
        from icarus.pipeline.services import build_services  # heavy imports (OCR, capture) on demand only

        check = build_services(settings, policy_ref=policy_ref, record=False)
        local = next((p for p in check.providers if p.name == LocalCorpusProvider.name), None)
        return cls(
            providers=list(check.providers),
            judge=check.judge,
            registry=check.registry,
            policy=check.policy,
            snapshots=check.snapshots,
            local_provider=local,
            fetcher=check.fetcher,
            archive=check.archive,
            lookups=check.lookups,
            llm=LlmConfig.from_settings(settings),
        )

    def only_local(self) -> ResearchServices:
        """These services searching the local corpus alone and reading no network."""
        local = [self.local_provider] if self.local_provider is not None else []
        return replace(self, providers=local, fetcher=None, archive=None)

    def check_services(self, meter: BudgetMeter) -> CheckServices:
        """The pipeline's services for the evidence steps a method reuses, bounded by ``meter``'s budget."""
        return CheckServices(
            judge=self.judge,
            providers=self.providers,
            registry=self.registry,
            snapshots=self.snapshots,
            policy=self.policy,
            fetcher=self.fetcher,
            archive=self.archive,
            lookups=self.lookups,
            max_claims=1,
            max_queries=meter.budget.max_searches,
            max_documents_per_claim=meter.budget.max_pages,
            max_fetches=meter.budget.max_pages,
            max_fetch_seconds=meter.budget.max_seconds,
            max_seconds=meter.budget.max_seconds,
            clock=self.clock,
        )


class ResearchMethod(Protocol):
    """The one function a method module exports, named ``research``."""

    def __call__(self, claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter) -> Panel: ...


METHOD_MODULES: Final[Mapping[ResearchMode, str]] = MappingProxyType(
    {
        ResearchMode.TWO_STEP: "icarus.debates.research.two_step",
        ResearchMode.DECOMPOSE: "icarus.debates.research.decompose",
        ResearchMode.DECOMPOSE_INVEST: "icarus.debates.research.decompose_invest",
        ResearchMode.LOCAL: "icarus.debates.research.local",
        ResearchMode.AGENTIC: "icarus.debates.research.agentic",
        ResearchMode.RICOCHET: "icarus.debates.research.ricochet",
    }
)
"""The registration point: the module implementing each mode; each exports ``research`` (``ResearchMethod``)."""


class MethodUnavailable(RuntimeError):
    """The module for a research mode is missing or exports no ``research`` function."""

    def __init__(self, mode: ResearchMode, reason: str) -> None:
        super().__init__(f"research method {mode.value} is unavailable: {reason}")
        self.mode = mode


def method_for(mode: ResearchMode) -> ResearchMethod:
    name = METHOD_MODULES[mode]
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise MethodUnavailable(mode, f"no module {name}") from exc
    method = getattr(module, "research", None)
    if not callable(method):
        raise MethodUnavailable(mode, f"{name} exports no research function")
    return cast(ResearchMethod, method)


def run_method(
    mode: ResearchMode,
    claim: ClaimToResearch,
    services: ResearchServices,
    budget: Budget | None = None,
) -> Panel:
    """Research ``claim`` with ``mode`` within ``budget`` (the mode's default when None) and return its panel.

    The panel's ``research_mode`` is ``mode`` and its trace carries the budget spent (``BudgetMeter.trace``).
    Raises ``MethodUnavailable`` when the mode has no implementation here.
    """
    method = method_for(mode)
    meter = BudgetMeter(budget if budget is not None else default_budget(mode), services.clock)
    panel = method(claim, services, meter)
    trace = {**meter.trace(), **panel.trace}
    explanation = panel.explanation
    if meter.limit_hit is not None and panel.verdict is not Verdict.PENDING:
        explanation = f"{explanation} {BUDGET_LIMIT_NOTES[meter.limit_hit]}".strip()
    # Research that could not run (every search failed) is retried later and not billed for now.
    cost = panel.cost + (research_cost(meter) if panel.verdict is not Verdict.PENDING else 0.0)
    return panel.model_copy(
        update={"research_mode": mode, "trace": trace, "explanation": explanation, "cost": cost}
    )


def research_cost(meter: BudgetMeter) -> float:
    """The research cost units a meter's spending comes to (what a panel bills on top of any cost its
    method already put on it, such as LLM calls)."""
    return round(meter.searches * SEARCH_COST + meter.pages * PAGE_COST, 4)
