"""The ledger format is documented, and the documentation matches the code.

Fails when a ledger field has no description, when docs/ledger-reference.md was not regenerated after a
model changed, when an example in docs/ledger.md no longer validates, when a worked number in the guide no
longer matches what the policy computes, or when a policy number is written into the guide's prose.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import pkgutil
import re
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

import icarus.ledger
from icarus.ledger import Ledger, parse_ledger
from icarus.ledger.base import LedgerModel
from icarus.ledger.reference import MODEL_ORDER, ledger_enums, ledger_models, render_reference
from icarus.scoring.icarus.config import POLICY_FILES, load_policy
from icarus.scoring.icarus.engine import score_ledger

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDE = DOCS / "ledger.md"
REFERENCE = DOCS / "ledger-reference.md"
REGENERATE = "python -m icarus.ledger.reference > docs/ledger-reference.md"
FENCE = re.compile(r"^```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MARKED = re.compile(r"^<!-- (ledger|model: (\w+)) -->\n```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)
# A worked example: `<!-- check: LEDGER_ID [with ITEM reputation from DOMAIN] [label=..] [band=..] [gate=..] -->`
# directly above a Markdown table of the numbers it states; the test scores the ledger and compares them.
CHECKED = re.compile(r"^<!-- check: ([^\n]*?) -->\n((?:\|[^\n]*\|\n)+)", re.MULTILINE)
CHECK_SPEC = re.compile(
    r"^(?P<ledger>[\w-]+)(?: with (?P<item>[\w-]+) reputation from (?P<domain>[\w.-]+))?(?P<expect>(?: \w+=\w+)*)$"
)
RESULT = re.compile(r"^<!-- result: ([\w-]+) -->\n```json\n(.*?)^```$", re.MULTILINE | re.DOTALL)
WORKED_POLICY = "icarus@1.1"
ITEM_FACTORS = ("R", "D", "V", "C", "P", "weight")


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


# --- worked examples: every number the guide computes is recomputed here --------------------------------


def _checked_examples() -> list[tuple[str, list[list[str]]]]:
    """(marker spec, table rows) of every checked worked example, header first, separator row dropped."""
    examples = []
    for spec, table in CHECKED.findall(GUIDE.read_text(encoding="utf-8")):
        rows = [[cell.strip() for cell in line.strip()[1:-1].split("|")] for line in table.splitlines()]
        examples.append((spec, [rows[0], *rows[2:]]))
    return examples


def _ledger_data(ledger_id: str) -> dict[str, Any]:
    found = [data for data in map(json.loads, _ledger_snippets()) if data["ledger_id"] == ledger_id]
    assert len(found) == 1, f"docs/ledger.md has no single <!-- ledger --> example {ledger_id!r}"
    return found[0]


def _score(data: dict[str, Any]) -> dict[str, Any]:
    return score_ledger(parse_ledger(data), load_policy(WORKED_POLICY))


def _agrees(stated: str, computed: str) -> bool:
    """A stated number agrees when the computed one, rounded to as many places as were stated, equals it."""
    value = Decimal(stated)
    places = Decimal(1).scaleb(value.as_tuple().exponent)
    return Decimal(computed).quantize(places, rounding=ROUND_HALF_UP) == value


def _check_table(header: list[str], body: list[list[str]], claim: dict[str, Any]) -> list[str]:
    """Each stated number that differs from the trace of the scored claim, described."""
    wrong: list[str] = []
    final = claim["passes"][-1]
    if header[0] == "item":
        items = {item["evidence_id"]: item for item in final["items"]}
        counted = {c["strongest"] for c in final["clusters"] if c["counted"]}
        for row in body:
            evidence_id = row[0].strip("`")
            assert evidence_id in items, f"no item {evidence_id!r} in the scored example"
            for column, cell in zip(header[1:], row[1:], strict=True):
                if column == "counted":
                    assert cell in ("yes", "no"), f"counted must be yes or no, not {cell!r}"
                    if (cell == "yes") != (evidence_id in counted):
                        wrong.append(f"{evidence_id} counted: stated {cell}")
                else:
                    assert column in ITEM_FACTORS, f"unknown column {column!r} in a checked item table"
                    computed = items[evidence_id][column]
                    if not _agrees(cell, computed):
                        wrong.append(f"{evidence_id} {column}: stated {cell}, computed {computed}")
    elif header[0] == "confidence term":
        conf = claim["confidence"]
        computed_terms = {**conf["terms"], **conf["penalties"], "score": conf["score"]}
        stated_terms = {row[0].replace(" ", "_"): row[1] for row in body}
        unstated = sorted(set(computed_terms) - set(stated_terms))
        if unstated:
            wrong.append(f"terms or penalties computed but not stated: {unstated}")
        for term, cell in stated_terms.items():
            assert term in computed_terms, f"unknown confidence term {term!r} in a checked table"
            if not _agrees(cell, computed_terms[term]):
                wrong.append(f"confidence {term}: stated {cell}, computed {computed_terms[term]}")
    else:
        pytest.fail(
            f"a checked table must start with an 'item' or 'confidence term' column, not {header[0]!r}"
        )
    return wrong


def test_the_guide_has_checked_worked_examples() -> None:
    kinds = [rows[0][0] for _, rows in _checked_examples()]
    assert kinds.count("item") >= 2 and "confidence term" in kinds
    assert len(kinds) == GUIDE.read_text(encoding="utf-8").count("<!-- check:"), "a check marker has no table"


@pytest.mark.parametrize("spec, rows", _checked_examples(), ids=lambda x: x if isinstance(x, str) else "")
def test_worked_example_numbers_match_the_policy(spec: str, rows: list[list[str]]) -> None:
    match = CHECK_SPEC.match(spec)
    assert match, f"cannot read the check marker {spec!r}"
    data = _ledger_data(match["ledger"])
    if match["item"]:
        records = [
            json.loads(body)
            for name, body in _model_snippets()
            if name == "ReputationRecord" and json.loads(body)["domain"] == match["domain"]
        ]
        assert len(records) == 1, f"no single ReputationRecord example for {match['domain']!r}"
        (item,) = [item for item in data["evidence"] if item["evidence_id"] == match["item"]]
        item["reputation"] = records[0]
    result = _score(data)
    claim = result["trace"]["claims"][0]
    wrong = _check_table(rows[0], rows[1:], claim)
    published = result["claims"][0]
    for key, value in (pair.split("=") for pair in match["expect"].split()):
        if key == "gate":
            gates = [g["gate"] for g in claim["gates"]]
            if value not in gates:
                wrong.append(f"gate {value} stated, gates computed: {gates}")
        else:
            assert key in ("label", "band"), f"unknown expectation {key!r} in {spec!r}"
            if published[key] != value:
                wrong.append(f"{key}: stated {value}, computed {published[key]}")
    assert not wrong, (
        f"docs/ledger.md, worked example {spec!r}, no longer matches {WORKED_POLICY}: "
        + "; ".join(wrong)
        + ". Update the table from `icarus score --json`, and the prose around it."
    )


def _contains(expected: Any, actual: Any) -> bool:
    """Whether an abridged copy of a result (dicts with fewer keys, lists with fewer items) matches it."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and _contains(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) <= len(actual)
            and all(_contains(e, a) for e, a in zip(expected, actual, strict=False))
        )
    return bool(expected == actual)


def test_abridged_results_in_the_guide_match_scoring() -> None:
    shown = RESULT.findall(GUIDE.read_text(encoding="utf-8"))
    assert shown, "docs/ledger.md shows no <!-- result: LEDGER_ID --> example"
    for ledger_id, body in shown:
        excerpt = json.loads(body)
        result = score_ledger(parse_ledger(_ledger_data(ledger_id)), load_policy(excerpt["policy"]))
        assert _contains(excerpt, result), f"the abridged result of {ledger_id} no longer matches scoring"


@pytest.mark.parametrize("dropped", ["ev-county", "ev-gazette"])
def test_example_1_with_one_origin_is_single_source(dropped: str) -> None:
    """The guide: drop either item of Example 1 and the claim is ❔ "single source, developing" (G1)."""
    data = _ledger_data("example-library-opening")
    data["evidence"] = [item for item in data["evidence"] if item["evidence_id"] != dropped]
    result = _score(data)
    assert result["claims"][0]["label"] == "unverifiable"
    assert [g["message"] for g in result["trace"]["claims"][0]["gates"] if g["gate"] == "G1"] == [
        "single source, developing"
    ]


# --- policy numbers live in the policy config, never in the guide's prose --------------------------------


def _prose_lines() -> list[tuple[int, str]]:
    """Numbered lines of the guide outside fenced blocks and checked tables, without comments or inline code."""
    text = GUIDE.read_text(encoding="utf-8")
    hidden: set[int] = set()
    for pattern in (re.compile(r"^```.*?^```$", re.MULTILINE | re.DOTALL), CHECKED):
        for match in pattern.finditer(text):
            first = text.count("\n", 0, match.start()) + 1
            hidden.update(range(first, first + match.group(0).count("\n") + 1))
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        if number not in hidden:
            lines.append((number, re.sub(r"<!--.*?-->|`[^`]*`", "", line)))
    return lines


def _policy_decimals() -> set[Decimal]:
    def walk(value: Any) -> set[Decimal]:
        if isinstance(value, Decimal):
            return {value}
        if isinstance(value, dict):
            return set().union(*map(walk, value.values())) if value else set()
        return set()

    return set().union(*(walk(load_policy(ref).model_dump()) for ref in POLICY_FILES))


def test_no_multiplier_is_written_outside_a_checked_example() -> None:
    found = [(n, line) for n, line in _prose_lines() if re.search(r"×\s*0\.\d", line)]
    assert not found, (
        "docs/ledger.md writes a policy multiplier in prose; describe it and point to "
        f"`icarus policy show {WORKED_POLICY}`, or put worked numbers in a checked table: {found}"
    )


def test_no_policy_value_is_written_in_prose() -> None:
    values = _policy_decimals()
    found = [
        (n, number)
        for n, line in _prose_lines()
        for number in re.findall(r"(?<![\w.])\d+\.\d+(?![\w.])", line)
        if Decimal(number) in values
    ]
    assert not found, (
        "docs/ledger.md repeats a policy number in prose; describe it and point to "
        f"`icarus policy show {WORKED_POLICY}`, or put worked numbers in a checked table: {found}"
    )
