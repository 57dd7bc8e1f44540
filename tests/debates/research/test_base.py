"""The shared method interface: budgets and their meter, the claim, services from settings, dispatch."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from types import MappingProxyType

import pytest

from icarus.debates.model import ResearchMode
from icarus.debates.research import (
    DEFAULT_BUDGETS,
    Budget,
    BudgetLimit,
    BudgetMeter,
    ClaimToResearch,
    LlmConfig,
    MethodUnavailable,
    ResearchServices,
    base,
    run_method,
)
from icarus.research import LocalCorpus
from icarus.settings import Settings
from tests.debates.research.corpora import NOW, SAMPLE


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_every_mode_has_a_default_budget_and_a_module() -> None:
    assert set(DEFAULT_BUDGETS) == set(ResearchMode) == set(base.METHOD_MODULES)


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError):
        Budget(max_searches=-1, max_pages=1, max_depth=0, max_seconds=1)


def test_the_meter_allows_exactly_the_budget_and_names_the_first_limit_hit() -> None:
    meter = BudgetMeter(Budget(max_searches=2, max_pages=1, max_depth=1, max_seconds=10), Clock())
    for _ in range(2):
        assert meter.can_search()
        meter.spend_search()
    assert not meter.can_search()
    assert meter.limit_hit is BudgetLimit.SEARCHES
    assert meter.can_read_page()
    meter.spend_page()
    assert not meter.can_read_page()
    assert meter.limit_hit is BudgetLimit.SEARCHES  # the first limit hit is the one reported
    trace = meter.trace()
    assert trace["spent"]["searches"] == 2 and trace["spent"]["pages"] == 1
    assert trace["budget_limit"] == "max_searches"


def test_depth_is_allowed_up_to_the_limit() -> None:
    meter = BudgetMeter(Budget(max_searches=1, max_pages=1, max_depth=1, max_seconds=10), Clock())
    assert meter.can_go_deeper(0) and meter.can_go_deeper(1)
    assert not meter.can_go_deeper(2)
    assert meter.limit_hit is BudgetLimit.DEPTH and meter.depth == 1


def test_time_runs_out_at_the_limit_not_before() -> None:
    clock = Clock()
    meter = BudgetMeter(Budget(max_searches=9, max_pages=9, max_depth=9, max_seconds=5), clock)
    clock.now += 4.999
    assert meter.can_search()
    clock.now += 0.001
    assert not meter.can_search()
    assert meter.limit_hit is BudgetLimit.SECONDS
    assert meter.seconds_left() == 0


def test_a_claim_needs_text_and_an_aware_time() -> None:
    with pytest.raises(ValueError):
        ClaimToResearch("a claim", datetime(2026, 11, 20))
    with pytest.raises(ValueError):
        ClaimToResearch("  ", NOW)


def test_a_mode_without_its_module_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = dict(base.METHOD_MODULES) | {ResearchMode.RICOCHET: "icarus.debates.research.not_there"}
    monkeypatch.setattr(base, "METHOD_MODULES", MappingProxyType(missing))
    with pytest.raises(MethodUnavailable, match="ricochet"):
        run_method(ResearchMode.RICOCHET, ClaimToResearch("x", NOW), None)  # type: ignore[arg-type]


def test_services_from_settings_reuse_the_check_pieces(tmp_path: Path) -> None:
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add(sorted(SAMPLE.glob("*.html")))
    corpus.close()
    settings = Settings(
        data_dir=tmp_path,
        corpus_path=tmp_path / "corpus.db",
        offline_judge="offline-lexical@1",
        llm_base_url="http://127.0.0.1:9/v1",
        llm_model="tiny",
    )
    services = ResearchServices.from_settings(settings.model_copy(update={"llm_base_url": None}))
    assert services.local_provider is not None and services.local_provider.name == "local_corpus"
    assert services.providers[0] is services.local_provider
    assert services.llm is None
    assert services.only_local().providers == [services.local_provider]
    assert LlmConfig.from_settings(settings) == LlmConfig("http://127.0.0.1:9/v1", "tiny", None)
