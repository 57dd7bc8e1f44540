"""The ledger format is documented, and the documentation matches the code.

Fails when a ledger field has no description, when docs/ledger-reference.md was not regenerated after a
model changed, or when an example in docs/ledger.md no longer validates.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import pkgutil
import re
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

import icarus.ledger
from icarus.ledger import Ledger, parse_ledger
from icarus.ledger.base import LedgerModel
from icarus.ledger.reference import MODEL_ORDER, ledger_enums, ledger_models, render_reference

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDE = DOCS / "ledger.md"
REFERENCE = DOCS / "ledger-reference.md"
REGENERATE = "python -m icarus.ledger.reference > docs/ledger-reference.md"
FENCE = re.compile(r"^```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MARKED = re.compile(r"^<!-- (ledger|model: (\w+)) -->\n```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _ledger_classes() -> tuple[list[type[LedgerModel]], list[type[Enum]]]:
    """Every model and enumeration defined anywhere in the icarus.ledger package."""
    models: list[type[LedgerModel]] = []
    enums: list[type[Enum]] = []
    for info in pkgutil.iter_modules(icarus.ledger.__path__, "icarus.ledger."):
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if value.__module__ != module.__name__:
                continue
            if issubclass(value, LedgerModel) and value is not LedgerModel:
                models.append(value)
            elif issubclass(value, Enum):
                enums.append(value)
    return models, enums


MODELS, ENUMS = _ledger_classes()


def _snippets() -> list[tuple[str, str, str]]:
    return [(kind, model, body) for kind, model, body in MARKED.findall(GUIDE.read_text(encoding="utf-8"))]


def _ledger_snippets() -> list[str]:
    return [body for kind, _, body in _snippets() if kind == "ledger"]


def _model_snippets() -> list[tuple[str, str]]:
    return [(model, body) for kind, model, body in _snippets() if kind != "ledger"]


def test_the_package_has_models_and_enums_to_document() -> None:
    assert Ledger in MODELS
    assert len(MODELS) >= 20 and len(ENUMS) >= 15


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_field_has_a_description(model: type[LedgerModel]) -> None:
    missing = [name for name, field in model.model_fields.items() if not (field.description or "").strip()]
    assert not missing, f"{model.__name__}: fields without a description: {missing}"


@pytest.mark.parametrize("kind", [*MODELS, *ENUMS], ids=lambda k: k.__name__)
def test_every_model_and_enum_has_a_docstring(kind: type) -> None:
    doc = kind.__dict__.get("__doc__")
    assert isinstance(doc, str) and doc.strip(), f"{kind.__name__} has no docstring"


def test_reference_page_is_up_to_date() -> None:
    assert REFERENCE.read_text(encoding="utf-8") == render_reference(), (
        f"docs/ledger-reference.md is stale; regenerate it with `{REGENERATE}`"
    )


def test_reference_covers_every_model_and_enum_in_reading_order() -> None:
    unplaced = [m.__name__ for m in MODELS if m not in MODEL_ORDER]
    assert not unplaced, f"add {unplaced} to MODEL_ORDER in icarus/ledger/reference.py"
    assert set(ledger_models()) == set(MODELS), "every ledger model must be reachable from Ledger"
    assert ledger_models()[0] is Ledger
    assert set(ledger_enums()) == set(ENUMS), "every ledger enumeration must be used by a field"
    page = render_reference()
    for kind in [*MODELS, *ENUMS]:
        assert f"\n### {kind.__name__}\n" in page


def test_every_model_is_named_in_the_guide_or_the_reference() -> None:
    text = GUIDE.read_text(encoding="utf-8") + REFERENCE.read_text(encoding="utf-8")
    missing = [m.__name__ for m in MODELS if not re.search(rf"\b{m.__name__}\b", text)]
    assert not missing


def test_the_guide_links_the_reference() -> None:
    assert "(ledger-reference.md)" in GUIDE.read_text(encoding="utf-8")


def test_guide_has_the_worked_examples() -> None:
    ledgers = [json.loads(body) for body in _ledger_snippets()]
    assert len(ledgers) >= 3
    assert any(len(doc["claims"]) == 1 and len(doc["evidence"]) == 2 for doc in ledgers)
    assert any(claim.get("self_evidence") for doc in ledgers for claim in doc["claims"])
    assert any(
        figure.get("derivation")
        for doc in ledgers
        for claim in doc["claims"]
        for figure in claim.get("figures", [])
    )


@pytest.mark.parametrize("body", _ledger_snippets(), ids=lambda body: json.loads(body)["ledger_id"])
def test_guide_ledger_example_validates(body: str) -> None:
    parse_ledger(json.loads(body), source="docs/ledger.md example")


@pytest.mark.parametrize("body", _ledger_snippets(), ids=lambda body: json.loads(body)["ledger_id"])
def test_guide_ledger_example_is_anchored_verbatim(body: str) -> None:
    """The examples obey what scoring checks later: exact claim (G0), excerpt (G3), finding (H20) slices."""
    ledger = parse_ledger(json.loads(body))
    items = {item.evidence_id: item for item in ledger.evidence}
    for claim in ledger.claims:
        source = ledger.subject.field_text(claim.source_field)
        assert source is not None and claim.span.slice(source) == claim.text, claim.claim_id
        for finding in claim.self_evidence:
            assert finding.span.slice(items[finding.evidence_id].text) == finding.excerpt
    for item in ledger.evidence:
        assert item.excerpt is not None and item.excerpt.span.slice(item.text) == item.excerpt.text
        assert item.content_sha256 == hashlib.sha256(item.text.encode()).hexdigest()


def test_guide_model_examples_validate() -> None:
    snippets = _model_snippets()
    assert snippets, "docs/ledger.md has no <!-- model: Name --> examples"
    models: dict[str, Any] = {m.__name__: m for m in MODELS}
    for name, body in snippets:
        assert name in models, f"docs/ledger.md marks an example with unknown model {name!r}"
        models[name].model_validate(json.loads(body))


def test_every_json_block_in_the_guide_is_json() -> None:
    for body in FENCE.findall(GUIDE.read_text(encoding="utf-8")):
        json.loads(body)
