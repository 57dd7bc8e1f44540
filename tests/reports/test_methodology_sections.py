"""Every policy's methodology page carries the standing sections (limitations; corrections, deletion and
version history; the role of models and judges; the reputation sources), rendered from the config, the
settings' defaults and the registries, with no number typed into the prose."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import icarus.scoring.icarus.standing_sections as standing
from icarus.cli import app
from icarus.judges.registry import JUDGES
from icarus.ledger.assistance import AssistStep
from icarus.reports.methodology import published_methodology, service_facts
from icarus.reputation.default import sources_manifest
from icarus.scoring.icarus.catalog import ALL_ENTRIES
from icarus.scoring.icarus.config import POLICY_FILES, PolicyConfig, load_policy
from icarus.scoring.icarus.methodology import render_methodology
from icarus.scoring.icarus.standing_sections import (
    ASSIST_STEP_WORDS,
    SECTION_HEADINGS,
    render_standing_sections,
)
from icarus.settings import Settings
from icarus.web import RecentCheck, ReportPage, create_web_router

REFS = sorted(POLICY_FILES)
SOURCES_HEADING = "## Reputation sources"
CODES = {entry.code for entry in ALL_ENTRIES}
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _no_report(check_id: str, version: int | None) -> ReportPage | RecentCheck:
    raise LookupError(check_id)


def _section(page: str, heading: str) -> str:
    """The text under ``heading`` up to the next second-level heading."""
    start = page.index(heading + "\n")
    end = page.find("\n## ", start + len(heading))
    return page[start : end if end != -1 else len(page)]


@pytest.mark.parametrize("ref", REFS)
def test_policy_show_prints_every_standing_section_in_order(ref: str) -> None:
    shown = CliRunner().invoke(app, ["policy", "show", ref])
    assert shown.exit_code == 0, shown.output
    page = shown.output
    assert page == published_methodology(load_policy(ref))
    assert page.startswith(render_methodology(load_policy(ref)))
    positions = [page.index(heading + "\n") for heading in (*SECTION_HEADINGS, SOURCES_HEADING)]
    assert positions == sorted(positions)
    for source in sources_manifest():
        assert f"| {source.name}: " in _section(page, SOURCES_HEADING)


@pytest.mark.parametrize("ref", REFS)
def test_web_methodology_page_shows_every_standing_section(ref: str) -> None:
    web = FastAPI()
    web.include_router(create_web_router(load_report=_no_report, recent_checks=list))
    html = TestClient(web).get(f"/methodology/{ref}").text
    for heading in (*SECTION_HEADINGS, SOURCES_HEADING):
        assert f"<h2>{heading.removeprefix('## ')}</h2>" in html, heading
    assert "<code>offline-minilm@4</code>" in html  # the default judge, from the settings default


def test_facts_come_from_the_settings_defaults_and_the_registries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_DELETION_SWEEP_MINUTES", "5")  # a deployment's value is not the page's
    facts = service_facts()
    assert facts.deletion_sweep_minutes == Settings.model_fields["deletion_sweep_minutes"].default
    assert facts.default_offline_judge == Settings.model_fields["offline_judge"].default
    assert facts.judges == tuple(JUDGES)
    assert facts.search_retry_minutes == tuple(Settings.model_fields["search_retry_minutes"].default)
    assert facts.job_lease_s == Settings.model_fields["job_lease_s"].default


def _changed(policy: PolicyConfig) -> PolicyConfig:
    gates = policy.gates.model_copy(
        update={
            "recheck_offsets_minutes": (20, 180),
            "ocr_min_confidence": Decimal("0.85"),
            "correction_window_hours": 36,
            "ongoing_window_hours": 12,
        }
    )
    weighting = policy.weighting.model_copy(update={"neutral_below_confidence": Decimal("0.55")})
    return policy.model_copy(update={"gates": gates, "weighting": weighting})


def test_numbers_in_the_sections_follow_a_changed_config() -> None:
    policy = load_policy("icarus@1.2")
    before = render_standing_sections(policy, service_facts())
    after = render_standing_sections(_changed(policy), service_facts())
    assert "+15 min, +1 h, +6 h, +24 h" in _section(before, standing.HISTORY)
    history = _section(after, standing.HISTORY)
    assert "+20 min, +3 h" in history and "+15 min" not in history
    assert "less than 12 h ago" in history and "the last 36 h" in history
    assert "below 0.85" in _section(after, standing.LIMITATIONS)
    assert "Below 0.55 confidence" in _section(after, standing.MODELS_AND_JUDGES)


def test_numbers_in_the_sections_follow_changed_facts() -> None:
    facts = replace(
        service_facts(),
        deletion_sweep_minutes=15,
        job_lease_s=45.0,
        max_queries=7,
        search_retry_minutes=(5, 50),
        default_offline_judge="offline-lexical@1",
    )
    page = render_standing_sections(load_policy("icarus@1.2"), facts)
    assert "every 15 minutes" in page and "lease of 45 seconds" in page
    assert "at most 7 searches" in page and "5 and 50 minutes after the first failure" in page
    assert "by default `offline-lexical@1`" in page


def test_the_published_state_of_each_version_is_stated() -> None:
    old = render_standing_sections(load_policy("icarus@1.0"), service_facts())
    new = render_standing_sections(load_policy("icarus@1.1"), service_facts())
    assert "nobody reviews an estimate" in old and "queued for a person to review" not in old
    assert "queued for a person to review" in new and "nobody reviews" not in new
    assert "registration is not detected" in old and "registration is not detected" not in new


def test_every_assisted_step_is_described() -> None:
    page = render_standing_sections(load_policy("icarus@1.2"), service_facts())
    for step in AssistStep:
        assert ASSIST_STEP_WORDS[step] in page


def _values(data: Any) -> set[str]:
    """Every number a config or facts object holds, as the page writes it."""
    found: set[str] = set()
    if isinstance(data, dict):
        for value in data.values():
            found |= _values(value)
    elif isinstance(data, (list, tuple, set, frozenset)):
        for value in data:
            found |= _values(value)
    elif isinstance(data, bool):
        pass
    elif isinstance(data, Decimal):
        found.add(str(data))
    elif isinstance(data, float):
        found.add(f"{data:g}")
    elif isinstance(data, int):
        found.add(str(data))
        if data % 60 == 0:
            found.add(str(data // 60))  # recheck offsets are written in hours
    return found


@pytest.mark.parametrize("ref", REFS)
def test_every_number_in_the_sections_comes_from_config_settings_or_a_registry(ref: str) -> None:
    policy = load_policy(ref)
    facts = service_facts()
    text = render_standing_sections(policy, facts)
    for name in sorted(
        {*facts.judges, *facts.ocr_engines, facts.default_offline_judge, facts.llm_judge, policy.published},
        key=len,
    )[::-1]:
        text = text.replace(name, "")
    text = re.sub(r"\b[GH]\d+\b", lambda m: "" if m.group() in CODES else m.group(), text)
    allowed = _values(policy.model_dump()) | _values(vars(facts))
    stray = [number for number in NUMBER.findall(text) if number not in allowed]
    assert not stray, f"numbers typed into the prose: {stray}"


def test_no_string_in_the_section_source_holds_a_number_of_its_own() -> None:
    """The prose lives in the module's string literals: a digit there, outside a gate or rule code, is a
    number typed by hand. Docstrings (string statements) are not shown on the page."""
    tree = ast.parse(Path(standing.__file__).read_text(encoding="utf-8"))
    documentation = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    shown = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documentation
    ]
    typed = [text for text in shown if re.search(r"\d", re.sub(r"\b[GH]\d+\b", "", text))]
    assert typed == []
