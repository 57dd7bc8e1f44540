"""A cited page must be about the claim's subject: it names the claim's names and one sentence of it holds
half the claim's key terms. Built from the failing cases: "Joe Biden supports the Green New Deal" cited a
property-tax page and a dementia page; a prostate-cancer claim cited a page on masks and oxygen."""

from __future__ import annotations

from pathlib import Path

from icarus.debates.model import Panel, ResearchMode, ScopeDecision
from icarus.debates.relevance import ClaimSubject, on_subject, subject_gap
from icarus.debates.research import ClaimToResearch, run_method
from icarus.debates.scope import ScopeCheck
from tests.debates.research.corpora import NEWS, NOW, Page, records, services_for, write_pages

GREEN_NEW_DEAL = "Joe Biden supports the Green New Deal"
PROSTATE = "Frequent ejaculation lowers the risk of prostate cancer"

PROPERTY_TAX = Page(
    "biden-property-tax",
    "taxdesk.example",
    "Joe Biden and the property tax",
    "Joe Biden supports raising the property tax on second homes, his campaign said. Critics of Joe Biden "
    "say the deal would hurt retirees.",
)
DEMENTIA = Page(
    "biden-dementia",
    "healthwatch.example",
    "Does Joe Biden have dementia?",
    "Claims that Joe Biden has dementia are not supported by his doctors. Joe Biden supports regular "
    "cognitive tests, the White House said.",
)
ON_THE_DEAL = Page(
    "biden-green-new-deal",
    "climatedesk.example",
    "Where Joe Biden stands on the Green New Deal",
    "Joe Biden does not support the Green New Deal as written, his campaign said, though he calls it a "
    "crucial framework.",
)
MASKS = Page(
    "masks-oxygen",
    "healthwatch.example",
    "Do masks lower your oxygen?",
    "Wearing a face mask does not lower the oxygen in your blood. Doctors say the risk is negligible, even "
    "for cancer patients.",
)
PROSTATE_STUDY = Page(
    "prostate-study",
    "medjournal.example",
    "Ejaculation frequency and prostate cancer",
    "Men who reported frequent ejaculation had a lower risk of prostate cancer in a study of 31,925 men.",
)


def researched(tmp_path: Path, claim: str, pages: list[Page]) -> Panel:
    paths = write_pages(tmp_path / "pages", pages)
    reputation = records(tmp_path, {page.domain: NEWS for page in pages})
    return run_method(
        ResearchMode.TWO_STEP, ClaimToResearch(claim, NOW), services_for(tmp_path, paths, reputation)
    )


def test_pages_on_the_speaker_but_not_the_topic_are_not_cited(tmp_path: Path) -> None:
    panel = researched(tmp_path, GREEN_NEW_DEAL, [PROPERTY_TAX, DEMENTIA, ON_THE_DEAL])
    assert [citation.url for citation in panel.sources] == [
        "https://climatedesk.example/biden-green-new-deal"
    ]
    aside = {source.url: source for source in panel.out_of_scope_sources}
    for page in (PROPERTY_TAX, DEMENTIA):
        source = aside[f"https://{page.domain}/{page.slug}"]
        assert source.scope_decision is ScopeDecision.DIFFERENT_SUBJECT
        assert source.measures == "does not name Green New Deal"


def test_a_page_sharing_scattered_words_with_the_claim_is_not_cited(tmp_path: Path) -> None:
    panel = researched(tmp_path, PROSTATE, [MASKS, PROSTATE_STUDY])
    assert [citation.url for citation in panel.sources] == ["https://medjournal.example/prostate-study"]
    [aside] = panel.out_of_scope_sources
    assert aside.url == "https://healthwatch.example/masks-oxygen"
    assert aside.scope_decision is ScopeDecision.DIFFERENT_SUBJECT
    assert aside.measures.startswith("no sentence about ")


def text_of(page: Page) -> str:
    return f"{page.title}\n{page.body}"


def test_the_claims_names_and_key_terms() -> None:
    subject = ClaimSubject.of(GREEN_NEW_DEAL)
    assert list(subject.names.values()) == ["Joe Biden", "Green New Deal"]
    assert set(subject.terms.values()) == {
        "joe",
        "biden",
        "green",
        "deal",
    }  # "supports" says nothing of a topic
    # a sentence's first word alone is grammar, not a name; a title before a name is not needed
    assert ClaimSubject.of("Unemployment fell in Ruritania in October").names == {("ruritania",): "Ruritania"}
    assert list(
        ClaimSubject.of("President Obama sent back the bust of Winston Churchill").names.values()
    ) == [
        "Obama",
        "Winston Churchill",
    ]
    assert list(ClaimSubject.of("The Bank of England cut rates.").names.values()) == ["Bank of England"]
    assert list(ClaimSubject.of("The military ruled Nigeria's government").names.values()) == ["Nigeria"]


def test_a_name_is_met_as_a_phrase_or_a_two_word_name_by_its_capitalised_last_word() -> None:
    subject = ClaimSubject.of(GREEN_NEW_DEAL)
    assert subject_gap(subject, "Biden backs the Green New Deal framework, his campaign said.") is None
    assert subject_gap(subject, "biden backs the Green New Deal") == "does not name Joe Biden"
    assert subject_gap(subject, "Joe Biden backs a new green deal") == "does not name Green New Deal"
    nigeria = ClaimSubject.of("The military ruled Nigeria for a cumulative 29 of Nigeria's 60 years")
    assert subject_gap(nigeria, "Nigerians lived under military rule for decades.") is None  # stems meet


def test_a_document_already_set_aside_keeps_its_reason_and_a_kept_one_may_lose_its_place() -> None:
    subject = ClaimSubject.of(PROSTATE)
    other_period = ScopeCheck(ScopeDecision.DIFFERENT_PERIOD, "figures for 1990")
    assert on_subject(subject, text_of(MASKS), other_period) is other_period
    kept = ScopeCheck(ScopeDecision.UNCLEAR)
    assert on_subject(subject, text_of(PROSTATE_STUDY), kept) is kept
    assert on_subject(subject, text_of(MASKS), kept).decision is ScopeDecision.DIFFERENT_SUBJECT


def test_a_part_too_short_to_have_key_terms_is_about_the_whole_claims_subject() -> None:
    part = ClaimSubject.of("it did", whole_claim=GREEN_NEW_DEAL)
    assert part == ClaimSubject.of(GREEN_NEW_DEAL)
    assert subject_gap(ClaimSubject.of("it did"), "Anything at all.") is None  # nothing to require
