"""The written-down LSH band choices agree with datasketch, and cover every shipped policy."""

from __future__ import annotations

from decimal import Decimal

import pytest

from icarus.provenance.lsh import KNOWN_LSH_BANDS, datasketch_bands, lsh_bands
from icarus.scoring.icarus.config import POLICY_FILES, load_policy


@pytest.mark.parametrize(("threshold", "permutations"), sorted(KNOWN_LSH_BANDS))
def test_each_known_choice_is_datasketchs(threshold: Decimal, permutations: int) -> None:
    assert KNOWN_LSH_BANDS[threshold, permutations] == datasketch_bands(threshold, permutations)


@pytest.mark.parametrize("ref", sorted(POLICY_FILES))
def test_every_shipped_policy_has_a_known_choice(ref: str) -> None:
    settings = load_policy(ref).provenance
    assert (settings.similarity_threshold, settings.minhash_permutations) in KNOWN_LSH_BANDS


def test_an_unlisted_setting_asks_datasketch() -> None:
    assert (Decimal("0.55"), 64) not in KNOWN_LSH_BANDS
    assert lsh_bands(Decimal("0.55"), 64) == datasketch_bands(Decimal("0.55"), 64)


def test_the_same_threshold_written_with_fewer_digits_is_known() -> None:
    assert lsh_bands(Decimal("0.7"), 128) == KNOWN_LSH_BANDS[Decimal("0.70"), 128]
