"""docs/ledger-models.md: its examples validate, and it names every model and writes no config number."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from icarus.ledger import LedgerClaim, LedgerLink
from icarus.scoring.ledger.config import CONFIG_FILES, load_config
from icarus.scoring.ledger.mapping import RELEVANCE_THRESHOLDS

PAGE = Path(__file__).resolve().parents[3] / "docs" / "ledger-models.md"
EXAMPLE = re.compile(r"^<!-- model: (\w+) -->\n```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MODELS = {"LedgerLink": LedgerLink, "LedgerClaim": LedgerClaim}


def test_examples_validate() -> None:
    found = EXAMPLE.findall(PAGE.read_text(encoding="utf-8"))
    assert {name for name, _ in found} == set(MODELS)
    for name, body in found:
        MODELS[name].model_validate(json.loads(body))


def test_every_model_is_named() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for ref in CONFIG_FILES:
        name, version = ref.split("@")
        assert name in text and version in text


def _numbers(value: object) -> set[Decimal]:
    if isinstance(value, dict):
        return set().union(*(_numbers(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_numbers(v) for v in value)) if value else set()
    if isinstance(value, str) and re.fullmatch(r"\d+\.\d+", value):
        return {Decimal(value)}
    return set()


@pytest.mark.parametrize("ref", sorted(CONFIG_FILES))
def test_no_config_number_is_written_in_prose(ref: str) -> None:
    values = _numbers(load_config(ref).canonical()) | {t for t, _ in RELEVANCE_THRESHOLDS}
    prose = re.sub(r"```.*?```", "", PAGE.read_text(encoding="utf-8"), flags=re.DOTALL)
    prose = prose.replace("0.86 under ledger-default@0.1.0", "")  # the display format, not a config value
    written = {Decimal(n) for n in re.findall(r"(?<![\w.@])\d+\.\d+(?![\w.])", prose)}
    assert not written & values, f"docs/ledger-models.md repeats config numbers: {sorted(written & values)}"


def test_the_golden_examples_table_is_rendered_from_the_data_the_tests_read() -> None:
    from icarus.scoring.ledger.golden import golden_cases, golden_markdown

    block = re.search(
        r"<!-- golden-examples:[^\n]*-->\n(.*?)<!-- /golden-examples -->", PAGE.read_text("utf-8"), re.S
    )
    assert block is not None
    assert block.group(1).splitlines() == golden_markdown()
    for case in golden_cases():
        row = next(line for line in golden_markdown() if line.startswith(f"| {case.case} |"))
        assert case.model in row and f"`{case.expected['state']}`" in row
