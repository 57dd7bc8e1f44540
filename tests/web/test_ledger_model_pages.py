"""A ledger model's page: every number that differs from the model released beside it, side by side, and
the golden examples answered by that model."""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from icarus.scoring.ledger.config import CONFIG_FILES
from icarus.scoring.ledger.golden import golden_cases
from icarus.web import RecentCheck, ReportPage, create_web_router


def _no_report(check_id: str, version: int | None) -> ReportPage | RecentCheck:
    raise LookupError(check_id)


@pytest.fixture(scope="module")
def pages() -> TestClient:
    app = FastAPI()
    app.include_router(create_web_router(load_report=_no_report, recent_checks=list))
    return TestClient(app)


def raw_config(ref: str) -> dict[str, Any]:
    text = resources.files("icarus.scoring.ledger.configs").joinpath(CONFIG_FILES[ref]).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def numbers(value: Any, path: str = "") -> dict[str, str]:
    """Every number in a config file (decimals are strings there, counts integers), by dotted path."""
    if isinstance(value, dict):
        return {
            k: v for key, item in value.items() for k, v in numbers(item, f"{path}.{key}".lstrip(".")).items()
        }
    if isinstance(value, bool) or not isinstance(value, int | str):
        return {}
    if isinstance(value, int) or re.fullmatch(r"-?\d+(\.\d+)?", value):
        return {path: str(value)}
    return {}


def row_of(page: str, setting: str) -> str | None:
    found = re.search(rf"<tr>\s*<td><code>{re.escape(setting)}</code></td>(.*?)</tr>", page, re.S)
    return None if found is None else found.group(1)


def beside(ref: str) -> str:
    name, version = ref.split("@")
    other = "ledger-default" if name == "ledger-strict" else "ledger-strict"
    return f"{other}@{version}"


@pytest.mark.parametrize("ref", sorted(CONFIG_FILES))
def test_the_page_shows_every_number_that_differs_from_the_model_beside_it(
    pages: TestClient, ref: str
) -> None:
    page = html.unescape(pages.get(f"/methodology/{ref}").text)
    other = beside(ref)
    assert f"Where it differs from {other}, released beside it" in page
    mine, theirs = numbers(raw_config(ref)), numbers(raw_config(other))
    differing = {path for path in mine.keys() | theirs.keys() if mine.get(path) != theirs.get(path)}
    assert differing, "the two released models are expected to differ"
    for path in differing:
        row = row_of(page, path)
        assert row is not None, f"{path} differs from {other} but is not in the side-by-side"
        cells = re.findall(r"<td>(.*?)</td>", row, re.S)
        for value, cell in zip((mine.get(path), theirs.get(path)), cells, strict=True):
            assert (value or "not declared") in cell, (path, value, cell)
    # A number both models share is not listed.
    assert row_of(page, "relevance_weight.DIRECT") is None


def test_the_strict_page_names_expert_analysis_and_the_causal_prior(pages: TestClient) -> None:
    page = html.unescape(pages.get("/methodology/ledger-strict@0.1.0").text)
    cells = re.findall(r"<td>(.*?)</td>", row_of(page, "observation_weight.EXPERT_ANALYSIS") or "", re.S)
    assert cells == ["<code>0.0</code>", "<code>0.3</code>"]
    causal = re.findall(r"<td>(.*?)</td>", row_of(page, "prior.CAUSAL") or "", re.S)
    assert causal == ["<code>not declared</code>", "<code>0.35</code>"]
    scored = re.findall(r"<td>(.*?)</td>", row_of(page, "scored_types.CAUSAL") or "", re.S)
    assert scored == ["<code>no</code>", "<code>yes</code>"]


@pytest.mark.parametrize("case", golden_cases(), ids=lambda case: case.case)
def test_a_golden_example_appears_on_its_models_page(pages: TestClient, case: Any) -> None:
    page = html.unescape(pages.get(f"/methodology/{case.model}").text)
    row = re.search(rf"<tr>\s*<td>{case.case}</td>(.*?)</tr>", page, re.S)
    assert row is not None, f"{case.case} is not on {case.model}'s page"
    assert "(this model)" in row.group(1)
    for value in (case.expected["evidence_sum"], case.expected["probability"], case.expected["state"]):
        if value is not None:
            assert f"<code>{value}</code>" in row.group(1)


def test_another_model_shows_its_own_answer_to_a_case_published_elsewhere(pages: TestClient) -> None:
    # G6 is published for strict (expert analysis weighs nothing); the default model weighs it and scores.
    page = html.unescape(pages.get("/methodology/ledger-default@0.1.0").text)
    row = re.search(r"<tr>\s*<td>G6</td>(.*?)</tr>", page, re.S)
    assert row is not None and "(this model)" not in row.group(1)
    assert "INSUFFICIENT_EVIDENCE" not in row.group(1) and "<code>UNRESOLVED</code>" in row.group(1)
