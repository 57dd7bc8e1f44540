"""Figures on evidence: a check reads what each excerpt states, and H12–H15 act on it (issue: the pipeline
once left evidence ``figures`` empty, so a page saying 410,000 against a claim of 41,000 was set aside as out
of scope, H26, instead of meeting H14).

Each case is a small local corpus in a temporary directory, checked by the real pipeline with the offline
lexical judge (the trained judge's answers are measured in tests/judges)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from icarus.capture import capture_text
from icarus.cli import app
from icarus.fetching import SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import Ledger
from icarus.pipeline.check import CheckServices, run_check
from icarus.pipeline.evidence import RetrievedDocument, build_evidence_item
from icarus.reports.replay import replay
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy
from icarus.store import Store

EXAMPLES = Path(__file__).parents[2] / "examples"
REPUTATION = EXAMPLES / "sample-corpus" / "reputation.json"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
CLAIM = "Halden harbor handled 41,000 containers in October."
runner = CliRunner()

# domain -> (site name, date): all three are on file in the sample registry; only haldenport is primary.
SITES = {
    "haldenport.example": ("Halden Port Authority", "2026-11-12T09:00:00Z"),
    "shiptrack.example": ("ShipTrack", "2026-11-13T09:00:00Z"),
    "baydaily.example": ("Bay Daily", "2026-11-14T09:00:00Z"),
}


def page(folder: Path, domain: str, slug: str, body: str) -> Path:
    site, date = SITES[domain]
    path = folder / f"{slug}.html"
    path.write_text(
        f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{site}: {slug.replace("-", " ")}</title>
<link rel="canonical" href="https://{domain}/{slug}">
<meta property="og:site_name" content="{site}">
<meta property="article:published_time" content="{date}">
</head><body><article><h1>{site}</h1><p>{body}</p></article></body></html>"""
    )
    return path


def services_for(tmp_path: Path, pages: list[Path], policy: str = "icarus@1.2") -> CheckServices:
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add(pages)
    store = Store(f"sqlite:///{tmp_path / 'icarus.db'}")
    store.open()
    return CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[LocalCorpusProvider(corpus)],
        registry=load_registry(REPUTATION),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy(policy),
        store=store,
    )


def items_by_domain(result: dict[str, Any], ledger: Ledger) -> dict[str, dict[str, Any]]:
    domains = {item.evidence_id: item.domain for item in ledger.evidence}
    items = result["trace"]["claims"][0]["passes"][-1]["items"]
    return {domains[item["evidence_id"]]: item for item in items}


def harbor_pages(folder: Path, primary: str, shiptrack: str, baydaily: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [
        page(folder, "haldenport.example", "october-statistics", f"Halden harbor handled {primary} containers "
             "in October, the Halden Port Authority said in its monthly statistics."),
        page(folder, "shiptrack.example", "october-count", f"Our vessel tracking shows Halden harbor handled "
             f"{shiptrack} containers in October."),
        page(folder, "baydaily.example", "busy-docks", f"Halden harbor handled {baydaily} containers in "
             "October, dock workers told Bay Daily."),
    ]  # fmt: skip


# --- H14 ---------------------------------------------------------------------------------------------------


def test_H14_not_H26_when_a_page_states_ten_times_the_claims_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit's case through ``icarus check``: the 410,000 page meets H14 (excluded against the primary
    source that says 41,000), not H26; the two pages that say 41,000 still carry the claim."""
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@1")
    pages = harbor_pages(tmp_path / "pages", "41,000", "41,000", "410,000")
    assert runner.invoke(app, ["corpus", "add", *map(str, pages)]).exit_code == 0
    checked = runner.invoke(app, ["check", CLAIM, "--reputation", str(REPUTATION), "--json"])
    assert checked.exit_code == 0, checked.output
    result = json.loads(checked.stdout)
    claim = result["claims"][0]
    assert claim["label"] == "supported"
    assert any(reason["code"] == "H14@1" for reason in claim["reasons"])
    assert not any(reason["code"] == "H26@1" for reason in claim["reasons"])
    items = result["trace"]["claims"][0]["passes"][-1]["items"]
    excluded = [item for item in items if item["excluded_by"]]
    assert [e["excluded_by"] for e in excluded] == [
        [{"rule": "H14", "reason": "order-of-magnitude conflict with a primary source"}]
    ]
    assert all("H14" in item["flags"] and "H26" not in item["flags"] for item in items)
    assert all(Decimal(item["V"]) == Decimal("0.93") for item in items)
    check_id = checked.stderr.split("recorded as /checks/")[1].split("/")[0]
    replayed = runner.invoke(app, ["replay", check_id])
    assert replayed.exit_code == 0 and "identical" in replayed.output


def test_H14_a_primary_source_ten_times_the_claim_takes_the_others_out(tmp_path: Path) -> None:
    """Before, H26 set the primary source aside and the two pages agreeing with the claim made it ✅."""
    pages = harbor_pages(tmp_path / "pages", "410,000", "41,000", "41,000")
    services = services_for(tmp_path, pages)
    output = run_check(capture_text(CLAIM, NOW), services, NOW)
    items = items_by_domain(output.result, output.ledger)
    assert items["haldenport.example"]["excluded_by"] == []
    for domain in ("shiptrack.example", "baydaily.example"):
        assert (
            items[domain]["excluded_by"][0]["reason"] == "order-of-magnitude conflict with a primary source"
        )
    assert output.result["claims"][0]["label"] != "supported"


@pytest.mark.parametrize(("other", "fires"), [("409,000", False), ("410,000", True)])
def test_H14_boundary_is_a_ratio_of_ten(tmp_path: Path, other: str, fires: bool) -> None:
    pages = harbor_pages(tmp_path / "pages", "41,000", "41,000", other)
    output = run_check(capture_text(CLAIM, NOW), services_for(tmp_path, pages), NOW)
    baydaily = items_by_domain(output.result, output.ledger)["baydaily.example"]
    assert ("H14" in baydaily["flags"]) is fires
    assert ("H26" in baydaily["flags"]) is not fires  # just under ten apart: another quantity, as before


def test_H14_is_not_live_under_icarus_1_0(tmp_path: Path) -> None:
    pages = harbor_pages(tmp_path / "pages", "41,000", "41,000", "410,000")
    output = run_check(capture_text(CLAIM, NOW), services_for(tmp_path, pages, "icarus@1.0"), NOW)
    baydaily = items_by_domain(output.result, output.ledger)["baydaily.example"]
    assert "H14" not in baydaily["flags"] and "H26" in baydaily["flags"]


def test_an_old_version_without_evidence_figures_replays_as_it_was(tmp_path: Path) -> None:
    """A version stored before evidence figures were read has none; replay scores the stored ledger, so it
    reproduces the old result (H26 on the 410,000 page), byte for byte."""
    pages = harbor_pages(tmp_path / "pages", "41,000", "41,000", "410,000")
    services = services_for(tmp_path, pages)
    subject = capture_text(CLAIM, NOW)
    output = run_check(subject, services, NOW)
    old = output.ledger.model_copy(
        update={"evidence": [item.model_copy(update={"figures": []}) for item in output.ledger.evidence]}
    )
    from icarus.scoring.icarus.engine import score_ledger

    old_result = score_ledger(old, services.policy)
    assert services.store is not None
    stored = services.store.record_check(subject, old, old_result, reason="first")
    assert "H26" in items_by_domain(old_result, old)["baydaily.example"]["flags"]
    outcome = replay(services.store, stored.check_id, stored.version, services.snapshots)
    assert outcome.identical, outcome.diff


# --- what an excerpt states ----------------------------------------------------------------------------------


def build(text: str) -> list[tuple[str, Decimal, str]]:
    document = RetrievedDocument("https://baydaily.example/a", "a", text, "Bay Daily", None)
    item = build_evidence_item(document, text, load_registry(REPUTATION), "sha256:" + "0" * 64, NOW)
    for figure in item.figures:  # spans are offsets into the item's text
        assert figure.span is not None and item.excerpt is not None
        assert item.excerpt.span.start <= figure.span.start < figure.span.end <= item.excerpt.span.end
    return [(f.measure, f.value, f.unit) for f in item.figures]


def test_digits_of_names_and_codes_are_not_evidence_figures() -> None:
    read = build("COVID-19 cases in the G7 reached 410,000 people, and the F-35 fleet grew to 450 jets.")
    assert [(value, unit) for _, value, unit in read] == [(Decimal(410000), "people"), (Decimal(450), "jet")]


def test_scale_words_currency_and_years_in_evidence() -> None:
    read = build("In 2019 the port handled 1.5 million tonnes and spent $3.2bn over 10 years.")
    assert [(value, unit) for _, value, unit in read] == [
        (Decimal("1500000.0"), "tonne"),
        (Decimal("3.2E9"), "$"),
    ]


# --- H12, H13, H15 on real excerpts -------------------------------------------------------------------------


def checked(tmp_path: Path, claim: str, body: str) -> tuple[dict[str, Any], dict[str, Any]]:
    pages = [page(tmp_path, "haldenport.example", "release", body)]
    output = run_check(capture_text(claim, NOW), services_for(tmp_path, pages), NOW)
    assert output.ledger.evidence and output.ledger.evidence[0].figures
    return output.result, items_by_domain(output.result, output.ledger)["haldenport.example"]


@pytest.mark.parametrize(("stated", "fires"), [("5", True), ("12.5", False)])
def test_H12_evidence_that_calls_a_five_point_rise_five_percent(
    tmp_path: Path, stated: str, fires: bool
) -> None:
    body = f"Support for the Halden ferry plan rose {stated}% from 40% to 45% in October, the authority said."
    _, item = checked(tmp_path, "Support for the Halden ferry plan rose in October.", body)
    assert ("H12" in item["flags"]) is fires
    assert Decimal(item["V"]) == (Decimal("0.93") if fires else 1)


def test_H12_a_post_that_calls_the_evidence_five_points_five_percent_is_misleading(tmp_path: Path) -> None:
    """The post's "rose 5%" against the excerpt's levels 40% -> 45% (a 12.5% rise): rule 1 ⚠️."""
    body = "Support for the Halden ferry plan rose 12.5% from 40% to 45% in October, the authority said."
    result, _ = checked(tmp_path, "Support for the Halden ferry plan rose 5% in October.", body)
    claim = result["claims"][0]
    assert claim["label"] == "misleading"
    assert any(reason["code"].startswith("H12") for reason in claim["reasons"])


@pytest.mark.parametrize(("stated", "fires"), [("12.56", False), ("12.6", True)])
def test_H13_a_change_that_does_not_follow_from_its_levels(tmp_path: Path, stated: str, fires: bool) -> None:
    """From $3.2bn to $2.8bn is −12.5%; the tolerance is max(0.5% of the stated value, half its last unit):
    0.0628 for 12.56 (off by 0.06), 0.063 for 12.6 (off by 0.1)."""
    body = f"Halden port revenue fell {stated}% from $3.2bn to $2.8bn in 2025, the authority said."
    _, item = checked(tmp_path, "Halden port revenue fell in 2025.", body)
    assert ("H13" in item["flags"]) is fires


@pytest.mark.parametrize(
    ("body", "fires"),
    [
        ("Container traffic at Halden harbor fell 12% in October, the authority said.", True),
        ("Container traffic at Halden harbor fell 12% from 50,000 to 44,000 containers in October.", False),
    ],
)
def test_H15_a_relative_change_without_its_base(tmp_path: Path, body: str, fires: bool) -> None:
    _, item = checked(tmp_path, "Container traffic at Halden harbor fell in October.", body)
    assert ("H15" in item["flags"]) is fires
