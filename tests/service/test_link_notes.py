"""A cited link the fetch guard refuses is said in the check's events, without its address."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from icarus.fetching import SafeFetcher
from icarus.jobs.inputs import CheckInput
from icarus.jobs.runner import JobRunner
from icarus.pipeline.check import CheckServices, refused_link_note
from tests.service.conftest import FakeClock, Providers, make_services


def test_a_refused_cited_link_is_in_the_events_without_its_address(
    runner: JobRunner, tmp_path: Path, providers: Providers, clock: FakeClock
) -> None:
    base = make_services(tmp_path, providers)
    fetcher = SafeFetcher()

    def with_fetcher(policy: str | None) -> CheckServices:
        services: CheckServices = replace(base(policy), fetcher=fetcher)
        return services

    runner.services = with_fetcher
    check_id = runner.submit(
        CheckInput(text="The budget doubled, see http://169.254.169.254/latest/meta-data/")
    )
    try:
        assert runner.run(check_id, "first") == "recorded version 1"
    finally:
        fetcher.close()
    messages = [e.data.get("message", "") for e in runner.service.events(check_id) if e.kind == "progress"]
    assert refused_link_note(1, 1) in messages
    assert not any("169.254" in message for message in messages)


def test_the_report_page_says_a_cited_link_was_not_read_without_its_address(
    runner: JobRunner, tmp_path: Path, providers: Providers
) -> None:
    from icarus.web import ReportPage, render_report_page

    base = make_services(tmp_path, providers)
    fetcher = SafeFetcher()
    runner.services = lambda policy: replace(base(policy), fetcher=fetcher)
    check_id = runner.submit(
        CheckInput(text="The budget doubled, see http://169.254.169.254/latest/meta-data/")
    )
    try:
        runner.run(check_id, "first")
    finally:
        fetcher.close()
    stored = runner.store.latest(check_id)
    page = render_report_page(ReportPage(result=stored.result(), ledger=stored.ledger()))
    assert "The post cites 1 link; 1 of them could not be read" in page
    assert "refused by the fetch guard" in page
