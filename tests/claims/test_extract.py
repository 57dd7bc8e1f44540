from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from icarus.capture import capture_x_mention
from icarus.claims import RELEVANCE_THRESHOLD, ClaimSet, checkworthiness, extract_claims
from icarus.ledger import (
    ClaimType,
    Derivation,
    Disposition,
    FieldName,
    Ledger,
    NotAssessedReason,
    TemporalScope,
)
from icarus.scoring.icarus.gates import g0_ineligibility
from tests.capture.conftest import load_payload
from tests.claims.helpers import CAPTURED_AT, subject_of, text_subject


def by_text(found: ClaimSet) -> dict[str, tuple[Disposition, NotAssessedReason | None]]:
    return {claim.text: (claim.disposition, claim.not_assessed) for claim in found.all}


def only(text: str) -> ClaimSet:
    found = extract_claims(text_subject(text), 5)
    assert len(found.all) == 1, [c.text for c in found.all]
    return found


def test_seed_example_joke_plus_sourced_percent_claim() -> None:
    outcome = capture_x_mention(load_payload("joke_and_claim"), CAPTURED_AT)
    assert outcome.subject is not None
    found = extract_claims(outcome.subject, 5)
    assert by_text(found) == {
        "My cat could run the treasury better lol": (Disposition.JOKE, NotAssessedReason.JOKE),
        "the national debt rose 6% in 2025, to 2.1 trillion dollars, according to the Finance Office": (
            Disposition.CHECKABLE,
            None,
        ),
    }
    [claim] = found.claims
    assert claim.claim_type is ClaimType.STATISTIC
    assert [(f.measure, f.value, f.derivation) for f in claim.figures] == [
        ("national_debt", Decimal(6), Derivation.PERCENT_CHANGE)
    ]
    # Both claims pass G0's slice check; the joke is out of scope, the % claim is eligible.
    ledger = Ledger(ledger_id="seed", as_of=CAPTURED_AT, subject=outcome.subject, claims=found.all)
    assert g0_ineligibility(claim, ledger) is None
    assert g0_ineligibility(found.not_assessed[0], ledger) == "joke"


def test_claim_text_is_the_exact_slice_of_its_field() -> None:
    outcome = capture_x_mention(load_payload("note_tweet_parent"), CAPTURED_AT)
    assert outcome.subject is not None
    found = extract_claims(outcome.subject, 3)
    note = outcome.subject.field_text(FieldName.NOTE_TWEET)
    assert note is not None
    for claim in found.all:
        assert claim.source_field is FieldName.NOTE_TWEET  # preferred over the truncated post text
        assert note[claim.span.start : claim.span.end] == claim.text
        for figure in claim.figures:
            assert figure.span is not None
            assert claim.span.start <= figure.span.start <= figure.span.end <= claim.span.end


def test_note_tweet_rendering_of_the_long_post() -> None:
    outcome = capture_x_mention(load_payload("note_tweet_parent"), CAPTURED_AT)
    assert outcome.subject is not None
    found = extract_claims(outcome.subject, 3)
    assert [c.text for c in found.claims] == [
        "Container traffic through Harbourton rose 12% in 2025, from 1.40 million to 1.57 million TEU, "
        "the port authority said on 14 January 2026",
        "the U.S. share of that traffic fell from 31% to 27%",
        "the EU share rose to 44%",
    ]
    reasons = {c.text: c.not_assessed for c in found.not_assessed}
    assert reasons["Thread on the port numbers"] is NotAssessedReason.RELEVANCE
    assert reasons["Full release"] is NotAssessedReason.RELEVANCE
    assert (
        reasons["dockworker wages rose 3.5% last year while inflation ran at 4.1%"]
        is NotAssessedReason.BUDGET
    )
    traffic = found.claims[0]
    assert traffic.event_date == date(2026, 1, 14)
    [change] = traffic.figures
    assert (change.value, change.derivation, change.operands) == (
        Decimal(12),
        Derivation.PERCENT_CHANGE,
        [Decimal("1.40"), Decimal("1.57")],
    )
    assert [(f.measure, f.value) for f in found.claims[1].figures] == [
        ("us_share_traffic", Decimal(31)),
        ("us_share_traffic", Decimal(27)),
    ]


def test_budget_keeps_the_most_checkworthy_and_ids_follow_the_text() -> None:
    text = (
        "The council met on Tuesday. Unemployment in Marrow fell to 3.1% in January 2026, the statistics "
        "office said. Marrow has 14 libraries. The new bridge cost $40 million, 25% over budget, according "
        "to the auditor."
    )
    found = extract_claims(text_subject(text), 2)
    assert [c.claim_id for c in found.all] == ["c1", "c2", "c3", "c4"]
    assert [c.claim_id for c in found.claims] == ["c2", "c4"]
    assert {c.claim_id: c.not_assessed for c in found.not_assessed} == {
        "c1": NotAssessedReason.BUDGET,
        "c3": NotAssessedReason.BUDGET,
    }
    assert all(c.not_assessed is None for c in found.claims)
    none = extract_claims(text_subject(text), 0)
    assert none.claims == [] and {c.not_assessed for c in none.not_assessed} == {NotAssessedReason.BUDGET}


def test_low_checkworthiness_is_not_assessed_for_relevance() -> None:
    found = extract_claims(text_subject("Good morning everyone! Look at this. Wow"), 5)
    assert found.claims == []
    assert {c.not_assessed for c in found.not_assessed} == {NotAssessedReason.RELEVANCE}
    assert checkworthiness("Look at this").points < RELEVANCE_THRESHOLD


def test_checkworthiness_features_are_named_and_deterministic() -> None:
    high = checkworthiness("Unemployment fell to 3.1% in January 2026, the Marrow statistics office said")
    assert high.features == (
        "number",
        "percent",
        "date",
        "named_entity",
        "comparison",
        "attribution",
        "assertion",
    )
    assert high.score == 1.0
    low = checkworthiness("I love this, what do you think?")
    assert "question" in low.features and "first_person_feeling" in low.features
    assert low.points == 0
    assert checkworthiness("Unemployment fell to 3.1%") == checkworthiness("Unemployment fell to 3.1%")


def test_max_claims_must_be_a_non_negative_integer() -> None:
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="max_claims"):
            extract_claims(text_subject("Prices rose 4% in 2025."), bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "disposition"),
    [
        ("I think the council budget is a mess.", Disposition.OPINION),
        ("Our mayor is the worst mayor in Marrow history of ideas.", Disposition.OPINION),
        ("The council should scrap the 2025 tram levy.", Disposition.OPINION),
        ("Rents in Marrow will double by 2027.", Disposition.PREDICTION),
        ("Marrow is going to run out of water in 2031.", Disposition.PREDICTION),
        ("The Marrow tram opens in 2029 with 12 stations.", Disposition.PREDICTION),
        ("Taxes went up 50% this year lol", Disposition.JOKE),
        ("Taxes went up 50% this year jk", Disposition.JOKE),
        ("Taxes went up 50% this year 😂", Disposition.JOKE),
        ("Taxes went up 50% this year, great job everyone /s", Disposition.SATIRE),
        ("Mayor resigns to become full-time goat farmer #satire", Disposition.SATIRE),
        ("You should take 4,000 mg of vitamin C a day.", Disposition.PERSONAL_ADVICE),
        ("Don't take ibuprofen if you have a fever.", Disposition.PERSONAL_ADVICE),
        ("My neighbour Dave was fined 500 dollars by the council in 2024.", Disposition.PRIVATE_INDIVIDUAL),
        ("It was the worst drought in Marrow since 1976.", Disposition.CHECKABLE),
        ("The governor said taxes will fall by 2% next year.", Disposition.CHECKABLE),
        ('Senator Ruiz said "we will cut the deficit in half" on March 3, 2025.', Disposition.CHECKABLE),
        ("The Marrow will was read out in court in 2019.", Disposition.CHECKABLE),
        ("Her will left 2 million dollars to the Marrow library in 2019.", Disposition.CHECKABLE),
        ("Unemployment in Marrow fell to 3.1% in January 2026.", Disposition.CHECKABLE),
    ],
)
def test_dispositions(text: str, disposition: Disposition) -> None:
    [claim] = only(text).all
    assert claim.disposition is disposition
    # Not "scope": the listing names the disposition, so a reader learns which kind of words it was.
    expected = None if disposition is Disposition.CHECKABLE else NotAssessedReason(disposition.value)
    assert claim.not_assessed is expected


def test_marker_only_sentence_colours_the_one_before() -> None:
    found = extract_claims(
        text_subject("Taxes went up 50% in Marrow this year. Lol. Rents fell 3% in 2025."), 5
    )
    assert by_text(found) == {
        "Taxes went up 50% in Marrow this year": (Disposition.JOKE, NotAssessedReason.JOKE),
        "Rents fell 3% in 2025": (Disposition.CHECKABLE, None),
    }
    found = extract_claims(text_subject("The moon landing was filmed in Marrow in 1969. 😂"), 5)
    assert [c.disposition for c in found.all] == [Disposition.JOKE]


def test_implied_claims_are_never_generated() -> None:
    found = extract_claims(text_subject("Interesting timing for that 14% pay rise. Just saying."), 5)
    assert all(c.disposition is not Disposition.IMPLIED_NEEDS_INTENT for c in found.all)
    assert [c.text for c in found.all] == ["Interesting timing for that 14% pay rise", "Just saying"]


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("BREAKING: Line 4 trains are suspended between Dockside and Elm Park.", TemporalScope.ONGOING),
        ("Wildfires are spreading across 3 counties in Marrow.", TemporalScope.ONGOING),
        ("LIVE: Marrow council votes on the 2026 budget.", TemporalScope.ONGOING),
        ("The Vale reservoir is at 38% capacity.", TemporalScope.CURRENT),
        ("Marrow now has 14 public libraries.", TemporalScope.CURRENT),
        ("The 2024 flood closed 14 schools in Marrow.", TemporalScope.HISTORICAL),
    ],
)
def test_temporal_scope(text: str, scope: TemporalScope) -> None:
    assert only(text).all[0].temporal_scope is scope


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('The minister said "we cut the deficit in half" in Marrow.', ClaimType.QUOTE),
        ("Unemployment in Marrow fell to 3.1% in 2025.", ClaimType.STATISTIC),
        ("The new bridge in Marrow cost $40 million.", ClaimType.STATISTIC),
        ("Marrow County opened its Eastside library in March.", ClaimType.EVENT),
    ],
)
def test_claim_type(text: str, kind: ClaimType) -> None:
    assert only(text).all[0].claim_type is kind


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Marrow County opened its library on 3 March 2026.", date(2026, 3, 3)),
        ("Marrow County opened its library on March 3rd, 2026.", date(2026, 3, 3)),
        ("Marrow County opened its library on 2026-03-03.", date(2026, 3, 3)),
        ("Marrow County opened its library on Sept. 9, 2025.", date(2025, 9, 9)),
        ("Marrow County opened its library in March 2026.", None),
        ("Marrow County opened its library on 03/04/2026.", None),
        ("Marrow County opened its library on 31 February 2026.", None),
    ],
)
def test_event_date_only_from_explicit_full_dates(text: str, day: date | None) -> None:
    assert only(text).all[0].event_date == day


def test_figures_rose_five_percent_from_forty_to_forty_five() -> None:
    text = "Support for the Dunmore tram extension rose 5% this year, from 40% to 45%."
    [claim] = extract_claims(text_subject(text), 5).claims
    assert claim.text == text[:-1]
    [figure] = claim.figures
    assert figure.derivation is Derivation.PERCENT_CHANGE
    assert figure.operands == [Decimal(40), Decimal(45)]
    assert (figure.value, figure.unit, figure.relative, figure.base_rate_given) == (
        Decimal(5),
        "%",
        True,
        True,
    )
    assert figure.measure == "support_dunmore_tram_extension"
    assert figure.span is not None and text[figure.span.start : figure.span.end] == "rose 5%"
    assert claim.claim_type is ClaimType.STATISTIC


def test_figures_points_falls_and_levels() -> None:
    [points] = only("Unemployment in Marrow dropped 2 percentage points from 6% to 4%.").all[0].figures
    assert (points.derivation, points.unit, points.value, points.operands, points.relative) == (
        Derivation.POINT_CHANGE,
        "pp",
        Decimal(-2),
        [Decimal(6), Decimal(4)],
        False,
    )
    [fall] = only("Crime in Marrow fell by 12.5 percent in 2024.").all[0].figures
    assert (fall.derivation, fall.value, fall.operands, fall.base_rate_given) == (
        Derivation.PERCENT_CHANGE,
        Decimal("-12.5"),
        [],
        False,
    )
    levels = only("Turnout in Marrow went from 31% to 27%.").all[0].figures
    assert [(f.value, f.derivation, f.measure) for f in levels] == [
        (Decimal(31), None, "turnout_marrow"),
        (Decimal(27), None, "turnout_marrow"),
    ]
    [share] = only("About 45% of Marrow voters back the tram plan.").all[0].figures
    assert (share.value, share.measure) == (Decimal(45), "marrow_voters_back")
    [level] = only("The Vale reservoir is at 38% capacity.").all[0].figures
    assert (level.value, level.measure, level.derivation) == (Decimal(38), "vale_reservoir", None)


def test_duplicate_wording_across_fields_is_kept_once() -> None:
    subject = subject_of(
        (FieldName.POST_TEXT, "Marrow's jobless rate hit 3.1% in January 2026."),
        (FieldName.IMAGE_TEXT, "MARROW'S JOBLESS RATE HIT 3.1% IN JANUARY 2026\nSource: Marrow Statistics"),
    )
    found = extract_claims(subject, 5)
    assert [(c.source_field, c.text) for c in found.all] == [
        (FieldName.POST_TEXT, "Marrow's jobless rate hit 3.1% in January 2026"),
        (FieldName.IMAGE_TEXT, "Source: Marrow Statistics"),
    ]


def test_transcript_of_a_video_subject_is_out_of_scope() -> None:
    subject = subject_of(
        (FieldName.POST_TEXT, "Senator Ruiz on the deficit in Marrow, 14 May 2025."),
        (FieldName.TRANSCRIPT, "We cut the Marrow deficit in half in 2024."),
        video=True,
    )
    found = extract_claims(subject, 5)
    assert [(c.source_field, c.not_assessed) for c in found.all] == [
        (FieldName.POST_TEXT, None),
        (FieldName.TRANSCRIPT, NotAssessedReason.SCOPE),
    ]


def test_language_scope() -> None:
    spanish = capture_x_mention(load_payload("non_english_parent"), CAPTURED_AT).subject
    assert spanish is not None
    found = extract_claims(spanish, 5)
    assert found.claims == [] and {c.not_assessed for c in found.not_assessed} == {NotAssessedReason.SCOPE}
    # X's "no linguistic content" tags keep image text in play for a later language check.
    undetermined = subject_of(
        (FieldName.IMAGE_TEXT, "Unemployment in Marrow fell to 3.1% in 2025."), language="qme"
    )
    assert len(extract_claims(undetermined, 5).claims) == 1


def test_normalized_search_text() -> None:
    [claim] = only("@desk The “Vale” reservoir is at 38%\u00a0capacity #drought https://t.co/x").all
    assert claim.text == "The “Vale” reservoir is at 38%\u00a0capacity"
    assert claim.normalized == 'the "vale" reservoir is at 38% capacity'


def test_extraction_is_deterministic() -> None:
    outcome = capture_x_mention(load_payload("note_tweet_parent"), CAPTURED_AT)
    assert outcome.subject is not None
    assert extract_claims(outcome.subject, 2) == extract_claims(outcome.subject, 2)


@pytest.mark.parametrize(
    "text",
    [
        "Rates\x00 rose\x07 by\x1b[31m 4% in Marrow.\x7f Then\u2028they fell.",
        "\u202eRates rose 4% in Marrow.\u202c \u200f\u05d4\u05de\u05d7\u05d9\u05e8\u05d9\u05dd"
        " \u05e2\u05dc\u05d5 4%.",
        "😂😂😂 🇺🇸 👨‍👩‍👧 Rates rose 4% in Marrow 📈📈 #econ",
        "e\u0301\u0301\u0301 " * 2000,
        '"""""((((]]]]... ??? !!! … .. . , ; : — @ # % $ 1/ 2. (3/4)',
        "Dr. " * 5000,
    ],
)
def test_hostile_text_never_crashes(text: str) -> None:
    subject = text_subject(text)
    found = extract_claims(subject, 3)
    for claim in found.all:
        assert text[claim.span.start : claim.span.end] == claim.text


def test_only_the_first_field_of_a_name_is_read() -> None:
    subject = subject_of(
        (FieldName.POST_TEXT, "Rents in Marrow fell 3% in 2025."),
        (FieldName.POST_TEXT, "Wages in Marrow rose 4% in 2025."),
    )
    assert [c.text for c in extract_claims(subject, 5).all] == ["Rents in Marrow fell 3% in 2025"]


def test_language_and_media_stay_scope() -> None:
    foreign = text_subject("Unemployment in Marrow fell to 3.1% in January 2026.").model_copy(
        update={"language": "de"}
    )
    [claim] = extract_claims(foreign, 5).all
    assert claim.disposition is Disposition.CHECKABLE and claim.not_assessed is NotAssessedReason.SCOPE


@pytest.mark.parametrize(
    "text",
    [
        "Congress voted to ban Mondays, says satirical site The Onion.",
        "According to the satirical website The Onion, the moon landing was filmed in Ohio.",
        "The Onion, a satirical newspaper, reported that Congress banned Mondays in 2024.",
    ],
)
def test_a_claim_credited_to_a_satirical_source_is_about_the_satire(text: str) -> None:
    # What the satire published is checkable (the satire's own piece is admissible, H6); it is read as a
    # claim about what a source said, never as the event it describes.
    [claim] = only(text).all
    assert claim.disposition is Disposition.CHECKABLE and claim.not_assessed is None
    assert claim.claim_type is ClaimType.QUOTE


def test_satire_marked_by_the_author_is_not_assessed_as_satire() -> None:
    [claim] = only("Congress voted to ban Mondays #satire").all
    assert claim.not_assessed is NotAssessedReason.SATIRE
