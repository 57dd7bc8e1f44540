"""Policy configs: immutable, hashed, two versions from one code path, methodology rendered from config."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from pydantic import ValidationError

from icarus.reports.methodology import published_methodology
from icarus.scoring.icarus.catalog import ALL_ENTRIES, GATES, RULES
from icarus.scoring.icarus.config import KNOWN_FEATURES, POLICY_FILES, UnknownPolicyError, load_policy
from icarus.scoring.icarus.feature_words import FEATURE_WORDS
from icarus.scoring.icarus.methodology import render_methodology


def test_both_versions_load_with_distinct_stable_hashes() -> None:
    one, two = load_policy("icarus@1.0"), load_policy("icarus@1.1")
    assert one.config_hash != two.config_hash
    assert one.config_hash == load_policy("icarus@1.0").model_copy().config_hash
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", one.config_hash)


def test_version_1_0_holds_every_not_yet_live_part_inert_and_1_1_none() -> None:
    assert load_policy("icarus@1.0").inert == KNOWN_FEATURES
    assert load_policy("icarus@1.1").inert == frozenset()


def test_the_versions_differ_only_in_what_is_live() -> None:
    one = load_policy("icarus@1.0").canonical()
    two = load_policy("icarus@1.1").canonical()
    differing = {k for k in one if one[k] != two[k]}
    assert differing == {"version", "summary", "inert"}


def test_config_is_immutable() -> None:
    policy = load_policy("icarus@1.1")
    with pytest.raises(ValidationError):
        policy.weighting.counting_threshold = Decimal("0.1")  # type: ignore[misc]


def test_seed_values_are_as_published() -> None:
    p = load_policy("icarus@1.0")
    assert p.weighting.counting_threshold == Decimal("0.45")
    assert p.weighting.estimated_reputation_discount == Decimal("0.60")
    assert (p.validity.retracted, p.validity.expression_of_concern, p.validity.corrected) == (
        0,
        Decimal("0.5"),
        Decimal("0.8"),
    )
    assert p.validity.statistical_flag == Decimal("0.93") and p.validity.c2pa_invalid == Decimal("0.3")
    assert (p.bands.high, p.bands.medium) == (Decimal("0.70"), Decimal("0.45"))
    assert p.gates.recheck_offsets_minutes == (15, 60, 360, 1440)


def test_unknown_policy_and_unknown_feature_are_clear_errors() -> None:
    with pytest.raises(UnknownPolicyError, match=r"known: icarus@1\.0, icarus@1\.1"):
        load_policy("icarus@9.9")
    with pytest.raises(KeyError):
        load_policy("icarus@1.1").live("H99.nothing")


def test_every_gate_and_rule_is_catalogued_once() -> None:
    assert [e.code for e in GATES] == [f"G{i}" for i in range(8)]
    assert [e.code for e in RULES] == [f"H{i}" for i in range(1, 31)]
    features = {f for e in ALL_ENTRIES for f in e.features}
    assert features <= KNOWN_FEATURES


@pytest.mark.parametrize("ref", sorted(POLICY_FILES))
def test_methodology_mentions_every_rule_and_reads_numbers_from_config(ref: str) -> None:
    page = render_methodology(load_policy(ref))
    for entry in ALL_ENTRIES:
        assert f"| {entry.code} |" in page
    assert "{" not in page  # every placeholder was filled from the config
    assert load_policy(ref).config_hash in page


def test_methodology_follows_a_changed_number() -> None:
    policy = load_policy("icarus@1.1")
    changed = policy.model_copy(
        update={"weighting": policy.weighting.model_copy(update={"counting_threshold": Decimal("0.55")})}
    )
    assert "0.55" in render_methodology(changed)
    assert "at least 0.45" in render_methodology(policy)
    assert "at least 0.45" not in render_methodology(changed)


def test_not_yet_live_parts_are_listed_only_for_1_0() -> None:
    assert f"- {FEATURE_WORDS['H12.force_misleading']}\n" in render_methodology(load_policy("icarus@1.0"))
    assert "Every rule part is live under this version" in render_methodology(load_policy("icarus@1.1"))


@pytest.mark.parametrize("ref", sorted(POLICY_FILES))
def test_published_methodology_pages_are_up_to_date(ref: str) -> None:
    from pathlib import Path

    from icarus.reports.methodology import deployment_facts, shipped_settings

    page = Path(__file__).parents[1] / "docs" / "methodology" / f"{ref.replace('@', '-')}.md"
    shipped = published_methodology(load_policy(ref), deployment=deployment_facts(shipped_settings()))
    assert page.read_text() == shipped, "regenerate with `icarus policy show --shipped`"


@pytest.mark.parametrize("ref", sorted(POLICY_FILES))
def test_published_methodology_lists_every_reputation_source_with_its_version(ref: str) -> None:
    from icarus.reputation.default import sources_manifest

    page = published_methodology(load_policy(ref))
    assert page.startswith(render_methodology(load_policy(ref)))
    for source in sources_manifest():
        row = next(line for line in page.splitlines() if line.startswith(f"| {source.name}: "))
        assert f"| {source.version} |" in row
        assert source.licence.replace("|", "/") in row


def test_the_catalogue_types_no_duration_it_should_read_from_the_config() -> None:
    # "+24 h" once sat in G6's wording while the gate read the window from the config
    typed = re.compile(r"\d+\s*(?:h|min|minutes?|hours?|days?)\b")
    for entry in ALL_ENTRIES:
        for wording in (entry.trigger, entry.effect):
            assert not typed.search(re.sub(r"\{[^}]*\}", "", wording)), f"{entry.code}: {wording}"


def test_the_g6_band_cap_in_prose_follows_the_configured_window() -> None:
    policy = load_policy("icarus@1.2")
    changed = policy.model_copy(
        update={"gates": policy.gates.model_copy(update={"ongoing_window_hours": 36})}
    )
    (row,) = [line for line in render_methodology(changed).splitlines() if line.startswith("| G6 |")]
    assert "band at most medium until 36 h after the event began" in row
