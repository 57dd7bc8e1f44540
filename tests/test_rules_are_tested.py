"""Every gate and validity rule in the catalogue has at least one test named after it."""

from __future__ import annotations

import re
from pathlib import Path

from icarus.scoring.icarus.catalog import ALL_ENTRIES

TESTS = Path(__file__).parent


def test_every_rule_and_gate_has_a_named_test() -> None:
    names = set()
    for path in TESTS.rglob("test_*.py"):
        names.update(re.findall(r"def (test_\w+)", path.read_text()))
    missing = [e.code for e in ALL_ENTRIES if not any(re.search(rf"_{e.code}_", f"_{n[5:]}") for n in names)]
    assert missing == []
