"""The corroboration block: independent confirmations by relay, originator and domain; an official source
alone suffices; one extra search, then a confidence cap; FIGURES FOUND when values differ."""

from __future__ import annotations

from pathlib import Path

from icarus.debates.corroboration import SINGLE_SOURCE_CONFIDENCE_CAP, LoadBearing
from icarus.debates.model import ResearchMode, Verdict
from icarus.debates.research import ClaimToResearch, run_method
from tests.debates.research.corpora import NEWS, NOW, OFFICIAL, WIRE, Page, records, services_for, write_pages

CLAIM = ClaimToResearch("The unemployment rate in Ruritania fell to 7.5% in October", NOW)
WIRE_STORY = (
    "RURITANIA (Ruri Wire) - The unemployment rate in Ruritania fell to 7.5% in October, according to the "
    "National Statistics Office, which cited hiring in construction and tourism."
)


def relays_only(tmp_path: Path) -> list[Page]:
    return [
        Page(
            "wire-jobs",
            "ruriwire.example",
            "Ruritania unemployment rate falls to 7.5% in October",
            WIRE_STORY,
        ),
        Page("jobs-falls", "dailyone.example", "Jobless rate falls in Ruritania", WIRE_STORY),
        Page("jobs-down", "dailytwo.example", "Ruritania unemployment down to 7.5%", WIRE_STORY),
    ]


def test_relays_of_one_wire_story_are_one_confirmation(tmp_path: Path) -> None:
    pages = write_pages(tmp_path / "pages", relays_only(tmp_path))
    reputation = records(
        tmp_path, {"ruriwire.example": WIRE, "dailyone.example": NEWS, "dailytwo.example": NEWS}
    )
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, services_for(tmp_path, pages, reputation))
    block = panel.corroboration
    assert block is not None
    assert block.element == "7.5%"
    assert len(block.confirming) == 3
    assert block.independent_confirmations == 1
    assert not block.official_source and not block.sufficient
    assert block.searched  # the one extra corroboration search ran
    assert any(search["round"] == 1 for search in panel.trace["searches"])
    for entry in block.confirming:  # provenance-safe metadata only
        assert set(entry.model_dump()) == {"url", "domain", "value", "published"}


def test_reports_crediting_one_originator_are_one_confirmation(tmp_path: Path) -> None:
    # Worded differently (no copy group), but both credit the statistics office.
    pages = write_pages(
        tmp_path / "pages",
        [
            Page(
                "jobs-one",
                "dailyone.example",
                "Jobless rate falls in Ruritania",
                "Hiring in construction pushed the unemployment rate in Ruritania down to 7.5% in October, "
                "according to the National Statistics Office.",
            ),
            Page(
                "jobs-two",
                "dailytwo.example",
                "Ruritania unemployment down to 7.5%",
                "The unemployment rate in Ruritania fell to 7.5% in October as tourism jobs returned, "
                "according to the National Statistics Office.",
            ),
        ],
    )
    reputation = records(tmp_path, {"dailyone.example": NEWS, "dailytwo.example": NEWS})
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, services_for(tmp_path, pages, reputation))
    block = panel.corroboration
    assert block is not None
    assert len(block.confirming) == 2
    assert block.independent_confirmations == 1
    assert block.searched


def test_one_publisher_domain_is_one_confirmation_and_caps_a_true_verdict(tmp_path: Path) -> None:
    # Two original reports on one site: the scorer counts two origins, corroboration one publisher.
    pages = write_pages(
        tmp_path / "pages",
        [
            Page(
                "jobs-one",
                "dailyone.example",
                "Jobless rate falls in Ruritania",
                "Our reporters counted hiring notices all month: the unemployment rate in Ruritania fell to "
                "7.5% in October.",
            ),
            Page(
                "jobs-two",
                "dailyone.example",
                "Ruritania unemployment down to 7.5%",
                "The unemployment rate in Ruritania fell to 7.5% in October as tourism jobs returned to the "
                "coast, our survey of hotels shows.",
            ),
        ],
    )
    panel = run_method(
        ResearchMode.TWO_STEP,
        CLAIM,
        services_for(tmp_path, pages, records(tmp_path, {"dailyone.example": NEWS})),
    )
    block = panel.corroboration
    assert block is not None
    assert len(block.confirming) == 2
    assert block.independent_confirmations == 1
    assert block.searched  # one extra corroboration search ran, and found nothing new
    assert panel.verdict is Verdict.TRUE  # the verdict is kept ...
    assert block.capped  # ... its confidence capped, and the explanation says why
    assert panel.confidence <= SINGLE_SOURCE_CONFIDENCE_CAP
    assert "Only one independent document confirms 7.5%" in panel.explanation


def test_an_official_statistical_source_is_sufficient_on_its_own(tmp_path: Path) -> None:
    official = Page(
        "labour-october",
        "stats.example",
        "Labour force survey: October",
        "The National Statistics Office publishes its labour force survey. The unemployment rate in Ruritania "
        "fell to 7.5% in October, from 7.9% in September.",
        site="National Statistics Office",
    )
    pages = write_pages(tmp_path / "pages", [official])
    panel = run_method(
        ResearchMode.TWO_STEP,
        CLAIM,
        services_for(tmp_path, pages, records(tmp_path, {"stats.example": OFFICIAL})),
    )
    block = panel.corroboration
    assert block is not None
    assert block.independent_confirmations == 1
    assert block.official_source and block.sufficient
    assert not block.searched and not block.capped
    assert "Only one independent document" not in panel.explanation


def test_two_independent_origins_are_two_confirmations(tmp_path: Path) -> None:
    own = Page(
        "survey",
        "jobsdata.example",
        "Our hiring survey",
        "Our own survey of 4,000 employers finds the unemployment rate in Ruritania fell to 7.5% in October.",
    )
    pages = write_pages(tmp_path / "pages", [*relays_only(tmp_path), own])
    reputation = records(
        tmp_path,
        {
            "ruriwire.example": WIRE,
            "dailyone.example": NEWS,
            "dailytwo.example": NEWS,
            "jobsdata.example": NEWS,
        },
    )
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, services_for(tmp_path, pages, reputation))
    block = panel.corroboration
    assert block is not None
    assert block.independent_confirmations == 2
    assert block.sufficient and not block.searched and not block.capped


def test_differing_values_are_listed_as_figures_found(tmp_path: Path) -> None:
    other = Page(
        "jobs-estimate",
        "otherpaper.example",
        "Ruritania unemployment estimate",
        "Our estimate: the unemployment rate in Ruritania fell to 8.1% in October, not lower.",
    )
    pages = write_pages(tmp_path / "pages", [*relays_only(tmp_path), other])
    reputation = records(
        tmp_path,
        {
            "ruriwire.example": WIRE,
            "dailyone.example": NEWS,
            "dailytwo.example": NEWS,
            "otherpaper.example": NEWS,
        },
    )
    panel = run_method(ResearchMode.TWO_STEP, CLAIM, services_for(tmp_path, pages, reputation))
    assert {entry.value for entry in panel.figures_found} == {"7.5%", "8.1%"}
    assert "FIGURES FOUND" in panel.explanation
    assert "8.1% (otherpaper.example)" in panel.explanation
    assert panel.corroboration is not None
    assert [entry.domain for entry in panel.corroboration.contradicting] == ["otherpaper.example"]


def test_a_bare_number_does_not_state_a_percentage() -> None:
    element = LoadBearing.of("Traffic fell 20% in October")
    assert element.element == "20%"
    assert not element.stated_in("Published 2026-11-14 at 13:20, traffic fell sharply.")
    assert element.stated_in("Traffic fell 20 percent in October.")
    assert element.other_value_in("Traffic fell 12% in October.") == "12%"


def test_a_disease_name_is_not_a_competing_figure(tmp_path: Path) -> None:
    # The failing case: "COVID-19" was read as the figure 19, listed under FIGURES FOUND against the claim's.
    element = LoadBearing.of("Lagos recorded 1,200 deaths from COVID-19 in 2020")
    assert (element.element, element.unit) == ("1,200", "death")
    assert element.other_value_in("COVID-19 deaths: Lagos recorded 1,450 deaths in 2020.") == "1,450"
    assert LoadBearing.of("COVID-19 vaccines are safe").value is None  # a named fact, no figure
    claim = ClaimToResearch("Lagos recorded 1,200 deaths from COVID-19 in 2020", NOW)
    pages = [
        Page("lagos-one", "dailyone.example", "Lagos COVID-19 toll", "Lagos recorded 1,200 deaths from "
             "COVID-19 in 2020, the state health ministry said."),
        Page("lagos-two", "dailytwo.example", "COVID-19 deaths in Lagos", "COVID-19 deaths: Lagos recorded "
             "1,450 deaths in 2020, by our count of hospital records."),
    ]  # fmt: skip
    reputation = records(tmp_path, {"dailyone.example": NEWS, "dailytwo.example": NEWS})
    panel = run_method(
        ResearchMode.TWO_STEP,
        claim,
        services_for(tmp_path, write_pages(tmp_path / "pages", pages), reputation),
    )
    assert {entry.value for entry in panel.figures_found} == {"1,200", "1,450"}
    assert "19 (" not in panel.explanation
