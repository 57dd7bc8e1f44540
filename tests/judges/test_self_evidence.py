"""H20 proposals: every finding carries the exact span and a verbatim excerpt of the cited text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from icarus.judges.offline import propose_self_evidence
from icarus.ledger.claims import MisrepresentationKind, SelfEvidenceFinding

FIXTURE = Path(__file__).parents[1] / "fixtures" / "self-evidence-misquote.json"
K = MisrepresentationKind


def proposals(claim: str, cited: str) -> list[SelfEvidenceFinding]:
    found = propose_self_evidence(claim, cited, "cited-1")
    for finding in found:
        assert finding.evidence_id == "cited-1"
        assert finding.excerpt == cited[finding.span.start : finding.span.end]
        assert finding.excerpt.strip() == finding.excerpt and finding.excerpt
    return found


@pytest.mark.parametrize(
    ("claim", "cited", "kind", "excerpt", "named"),
    [
        (
            "Compound HX-4 cuts weight gain by 40 percent.",
            "Abstract. In mice fed a high-fat diet, compound HX-4 cut weight gain by 40 percent. No humans.",
            K.DROPPED_QUALIFIER,
            "In mice fed a high-fat diet, compound HX-4 cut weight gain by 40 percent.",
            "In mice",
        ),
        (
            "Turmeric kills cancer cells.",
            "Results. Turmeric extract killed cancer cells in vitro at high doses.",
            K.DROPPED_QUALIFIER,
            "Turmeric extract killed cancer cells in vitro at high doses.",
            "in vitro",
        ),
        (
            "The drug halves migraine attacks.",
            "In a small study, the drug halved migraine attacks in 12 patients.",
            K.DROPPED_QUALIFIER,
            "In a small study, the drug halved migraine attacks in 12 patients.",
            "In a small study",
        ),
        (
            "The vaccine prevents infection.",
            "Preliminary data suggest the vaccine prevents infection.",
            K.DROPPED_QUALIFIER,
            "Preliminary data suggest the vaccine prevents infection.",
            "Preliminary",
        ),
        (
            "The scheme cuts energy bills by 30%.",
            "Households on the scheme cut energy bills by up to 30%.",
            K.DROPPED_QUALIFIER,
            "Households on the scheme cut energy bills by up to 30%.",
            "up to",
        ),
        (
            "Green tea prevents dementia.",
            "Green tea may prevent dementia, the authors wrote.",
            K.DROPPED_QUALIFIER,
            "Green tea may prevent dementia, the authors wrote.",
            "may",
        ),
        (
            "Smoking doubles asthma risk.",
            "Smoking doubles asthma risk among older adults, the survey found.",
            K.CHANGED_POPULATION,
            "Smoking doubles asthma risk among older adults, the survey found.",
            "among older adults",
        ),
    ],
    ids=["in-mice", "in-vitro", "small-study", "preliminary", "up-to", "may", "among-group"],
)
def test_dropped_qualifiers(
    claim: str, cited: str, kind: MisrepresentationKind, excerpt: str, named: str
) -> None:
    found = proposals(claim, cited)
    matching = [f for f in found if f.kind is kind]
    assert len(matching) == 1, found
    assert matching[0].excerpt == excerpt
    assert named in matching[0].note


def test_a_kept_qualifier_is_not_a_finding() -> None:
    assert proposals("In mice, HX-4 cut weight gain.", "In mice, compound HX-4 cut weight gain.") == []
    assert proposals("Green tea may prevent dementia.", "Green tea may prevent dementia.") == []


def test_reversed_direction_and_turned_around_figure() -> None:
    (reversal,) = proposals("Sales rose 40% last year.", "Intro. Sales fell 40% last year, the firm said.")
    assert reversal.kind is K.REVERSAL and reversal.excerpt == "Sales fell 40% last year, the firm said."
    (turned,) = proposals("Turnout reached 81% in the county.", "Turnout reached 18% in the county.")
    assert turned.kind is K.REVERSAL and "turned around" in turned.note


def test_overstated_figure() -> None:
    (finding,) = proposals("Sales rose 45% last year.", "Sales rose 15% last year, the company said.")
    assert finding.kind is K.OVERSTATEMENT
    assert "45%" in finding.note and "15%" in finding.note


def test_incomplete_quote_drops_a_negation() -> None:
    cited = "At the briefing the minister said the water is not safe to drink until tests finish."
    (finding,) = proposals('The minister said the water is "safe to drink".', cited)
    assert finding.kind is K.INCOMPLETE_QUOTE
    assert finding.excerpt == "not safe to drink"
    assert finding.span.start == cited.index("not safe")


def test_incomplete_quote_through_a_contraction_and_curly_quotes() -> None:
    cited = "The report says the plan won't reduce emissions before 2030."
    (finding,) = proposals("The report says the plan \u201cwill reduce emissions\u201d.", cited)
    assert finding.kind is K.INCOMPLETE_QUOTE
    assert finding.excerpt == "won't reduce emissions"


def test_faithful_quote_is_not_a_finding() -> None:
    cited = "The minister said the water is not safe to drink."
    assert proposals('The minister said the water is "not safe to drink".', cited) == []
    assert proposals('The minister said the water is not "safe to drink".', cited) == []


def test_unrelated_cited_text_yields_nothing() -> None:
    assert proposals("Compound HX-4 cuts weight gain.", "The museum reopened in May after repairs.") == []


def test_policy_fixture_in_mice_finding_is_anchored_in_the_snapshot() -> None:
    ledger = json.loads(FIXTURE.read_text())
    claim = ledger["claims"][0]["text"]
    study = next(item for item in ledger["evidence"] if item["evidence_id"] == "study")
    found = propose_self_evidence(claim, study["text"], "study")
    assert [f.kind for f in found] == [K.DROPPED_QUALIFIER]
    assert found[0].excerpt == study["text"][found[0].span.start : found[0].span.end]
    assert found[0].excerpt.startswith("In mice fed a high-fat diet")


def test_offsets_index_the_text_as_given_even_with_unusual_characters() -> None:
    cited = "Intro \u2014 caf\u00e9 \u201cnote\u201d. Regular caffeine intake may prevent gout in rats."
    found = proposals("Regular caffeine intake prevents gout.", cited)
    assert {f.kind for f in found} == {K.DROPPED_QUALIFIER}
    assert found[0].excerpt == "Regular caffeine intake may prevent gout in rats."
