"""The one mapping the scoring core gains: label → panel verdict, and how a decomposed claim's parts
combine (the truth table of ``combine_parts``)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from icarus.debates.model import Verdict
from icarus.scoring.icarus.panel_verdicts import (
    BAND_CONFIDENCE,
    PanelVerdictName,
    combine_parts,
    panel_confidence,
    verdict_for_label,
)
from icarus.scoring.labels import Band, Label

HIGH = Decimal("0.8")


@pytest.mark.parametrize(
    ("label", "verdict"),
    [
        (Label.SUPPORTED, "true"),
        (Label.NOT_SUPPORTED, "false"),
        (Label.MISLEADING, "misleading"),
        (Label.UNVERIFIABLE, "unverifiable"),
    ],
)
def test_each_label_maps_to_its_verdict(label: Label, verdict: str) -> None:
    assert verdict_for_label(label.value) == verdict
    assert Verdict(verdict_for_label(label.value))  # every name is a debate verdict


def test_an_unknown_label_is_refused() -> None:
    with pytest.raises(ValueError):
        verdict_for_label("pending")


@pytest.mark.parametrize(
    ("parts", "combined"),
    [
        (["true", "true"], "true"),
        (["false", "false"], "false"),
        (["misleading"], "misleading"),
        (["true", "false"], "partially_true"),
        (["true", "misleading"], "partially_true"),
        (["partially_true", "false"], "partially_true"),
        (["false", "misleading"], "false"),
        (["true", "true", "unverifiable"], "true"),  # two of three decided: a strict majority
        (["true", "false", "unverifiable"], "partially_true"),
        (["true", "unverifiable"], "unverifiable"),  # one of two is not a majority
        (["unverifiable", "unverifiable"], "unverifiable"),
        ([], "unverifiable"),
    ],
)
def test_parts_combine_by_the_documented_rule(parts: list[PanelVerdictName], combined: str) -> None:
    verdict, _ = combine_parts([(part, HIGH) for part in parts])
    assert verdict == combined


def test_the_combined_confidence_is_scaled_by_the_share_decided() -> None:
    assert combine_parts([("true", Decimal("0.9")), ("true", Decimal("0.7"))])[1] == Decimal("0.8")
    _, scaled = combine_parts(
        [("true", Decimal("0.9")), ("true", Decimal("0.9")), ("unverifiable", Decimal(0))]
    )
    assert scaled == Decimal("0.6")
    assert combine_parts([("true", HIGH), ("unverifiable", HIGH)])[1] == 0


def test_confidence_comes_from_the_score_else_the_band() -> None:
    assert panel_confidence("0.714681", "high") == Decimal("0.714681")
    assert panel_confidence("1.5", None) == 1
    assert panel_confidence(None, "low") == BAND_CONFIDENCE[Band.LOW]
    assert panel_confidence(None, None) == 0
