"""The adversarial fixture ledgers in tests/fixtures, each scored under every shipped policy version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from icarus.ledger import load_ledger
from icarus.scoring.icarus.config import POLICY_FILES
from tests.scoring.scoring_support import claim_trace, codes, final_pass, score

FIXTURES = Path(__file__).parents[1] / "fixtures"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
BAND_RANK = {"low": 0, "medium": 1, "high": 2}


@pytest.mark.parametrize("policy", sorted(POLICY_FILES))
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_outcome(name: str, policy: str) -> None:
    expected = EXPECTED[name]
    result = score(load_ledger(FIXTURES / f"{name}.json"), policy)
    claim = result["claims"][0]
    assert claim["label"] == expected[policy], claim["reasons"]
    assert result["overall"]["label"] == expected[policy]
    fired = codes(result) | {g["gate"] for g in claim_trace(result)["gates"]}
    for code in expected["must_fire"]:
        assert code in fired, f"{code} did not fire on {name}: {sorted(fired)}"
    if "icc" in expected:
        totals = final_pass(result)["totals"]
        assert max(totals["icc_support"], totals["icc_refute"]) == expected["icc"]
    if expected.get("cycle"):
        assert any(c["in_cycle"] for c in final_pass(result)["clusters"])
    if "max_band" in expected:
        assert BAND_RANK[claim["band"]] <= BAND_RANK[expected["max_band"]]
    listed = [b["code"] for b in claim["blockers"]]
    for code in expected.get("must_block", []):
        assert code in listed, f"{code} not listed on {name}: {listed}"
    if claim["label"] != "unverifiable" and claim["band"] == "high":
        assert listed == []
    else:
        assert listed, f"{name} is {claim['label']} ({claim['band']}) with no blocker"


def test_fixture_and_example_files_match_their_builder() -> None:
    from tests.fixtures.build_fixtures import EXAMPLES, EXAMPLES_DIR, serialise
    from tests.fixtures.build_fixtures import FIXTURES as BUILDERS

    for name, (build, _) in BUILDERS.items():
        text = serialise(build())
        assert (FIXTURES / f"{name}.json").read_text() == text, name
        if name in EXAMPLES:
            assert (EXAMPLES_DIR / f"{name}.json").read_text() == text, name
