"""The methodology page tells the truth about the deployment that serves it: "Live on this deployment"
says, rule part by rule part and in words, whether it acts here and why not, read from the settings and
registries actually loaded. No page shows a configuration key where words belong."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from icarus.cli import app
from icarus.lookups.plan import OFFLINE_REASON
from icarus.reports.methodology import deployment_facts, published_methodology, shipped_settings
from icarus.scoring.icarus.config import KNOWN_FEATURES, POLICY_FILES, load_policy
from icarus.scoring.icarus.deployment import DEPLOYMENT_HEADING
from icarus.scoring.icarus.feature_words import FEATURE_WORDS
from icarus.settings import Settings
from icarus.web import RecentCheck, ReportPage, create_web_router

REFS = sorted(POLICY_FILES)
DOCS = Path(__file__).parents[2] / "docs" / "methodology"


def _row(page: str, words: str) -> str:
    return next(line for line in page.splitlines() if line.startswith(f"| {words} |"))


def _page(ref: str, settings: Settings) -> str:
    return published_methodology(load_policy(ref), deployment=deployment_facts(settings))


def test_every_part_a_version_can_hold_inert_has_words() -> None:
    assert set(FEATURE_WORDS) == KNOWN_FEATURES


@pytest.mark.parametrize("ref", REFS)
def test_no_page_shows_a_bare_rule_part_key(ref: str) -> None:
    for settings in (shipped_settings(), Settings(offline=True)):
        page = _page(ref, settings)
        assert [key for key in KNOWN_FEATURES if key in page] == []


def test_1_0_lists_what_is_not_yet_live_in_words() -> None:
    page = _page("icarus@1.0", shipped_settings())
    listed = page.split("## Published but not yet live\n", 1)[1].split("\n## ", 1)[0]
    for words in FEATURE_WORDS.values():
        assert f"- {words}\n" in listed
    # a not-live part does not run here, whatever the deployment offers
    assert _row(page, FEATURE_WORDS["H10.registration"]).endswith(
        "does not run: icarus@1.0 publishes it as not yet live |"
    )
    assert "H10.registration" not in _row(page, "H10").split("|")[-2]


def test_1_2_with_the_shipped_settings_runs_every_lookup() -> None:
    page = _page("icarus@1.2", shipped_settings())
    assert "Every rule is live" not in page
    assert "runs: asks the RDAP service at https://rdap.org" in _row(page, FEATURE_WORDS["H10.registration"])
    assert "runs: asks Crossref at https://api.crossref.org" in _row(page, FEATURE_WORDS["H16.lookup"])
    assert "runs: fetches each evidence page again" in _row(page, FEATURE_WORDS["H24.drift"])
    assert "runs: validates media evidence (a fetched PDF) on this machine" in _row(
        page, FEATURE_WORDS["H22.lookup"]
    )
    assert "Lin et al. ratings" in _row(page, FEATURE_WORDS["reputation.lin2023"])


def test_1_2_offline_says_which_lookups_do_not_run_and_why() -> None:
    page = _page("icarus@1.2", Settings(offline=True))
    for feature in ("H10.registration", "H16.lookup", "H24.drift"):
        assert _row(page, FEATURE_WORDS[feature]).startswith(
            f"| {FEATURE_WORDS[feature]} | does not run: {OFFLINE_REASON}"
        )
    assert "| runs: validates media evidence" in _row(page, FEATURE_WORDS["H22.lookup"])  # local


def test_a_lookup_turned_off_on_its_own_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_OFFLINE", "0")
    monkeypatch.setenv("ICARUS_DRIFT_CHECK", "false")
    page = _page("icarus@1.1", Settings())
    assert "does not run: turned off: ICARUS_DRIFT_CHECK is false" in _row(page, FEATURE_WORDS["H24.drift"])
    assert "| runs: asks the RDAP service" in _row(page, FEATURE_WORDS["H10.registration"])


def test_the_page_reads_this_process_settings_unless_told_otherwise() -> None:
    # the test suite runs offline (tests/conftest.py): the default page says so, the shipped one does not
    here = published_methodology(load_policy("icarus@1.2"))
    assert f"does not run: {OFFLINE_REASON}" in here
    assert OFFLINE_REASON not in _page("icarus@1.2", shipped_settings())


@pytest.mark.parametrize("ref", REFS)
def test_docs_hold_the_page_for_the_shipped_settings(ref: str) -> None:
    shown = CliRunner().invoke(app, ["policy", "show", ref, "--shipped"])
    assert shown.exit_code == 0, shown.output
    assert shown.output == (DOCS / f"{ref.replace('@', '-')}.md").read_text(), (
        f"regenerate with `icarus policy show {ref} --shipped > docs/methodology/{ref.replace('@', '-')}.md`"
    )
    assert shown.output == _page(ref, shipped_settings())


def _no_report(check_id: str, version: int | None) -> ReportPage | RecentCheck:
    raise LookupError(check_id)


def test_the_web_page_shows_the_deployment_it_is_served_by() -> None:
    web = FastAPI()
    web.include_router(create_web_router(load_report=_no_report, recent_checks=list))
    html = TestClient(web).get("/methodology/icarus@1.2").text
    assert f"<h2>{DEPLOYMENT_HEADING.removeprefix('## ')}</h2>" in html
    assert "does not run: this deployment runs offline" in html
