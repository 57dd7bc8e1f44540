"""The public command line: score, policy show, schema ledger, and their errors."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.scoring.icarus.config import DEFAULT_POLICY
from tests.builders import claim, item, ledger, subject

runner = CliRunner()
FIXTURES = Path(__file__).parent / "fixtures"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ledger.json"
    path.write_text(text)
    return path


def test_score_json_has_the_published_shape(tmp_path: Path) -> None:
    path = write(tmp_path, ledger([item("a"), item("b")]).model_dump_json())
    result = runner.invoke(app, ["score", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["overall"]["label"] == "supported"
    assert data["overall"]["band"] in ("high", "medium", "low")
    claim = data["claims"][0]
    assert {"id", "label", "band", "reasons"} <= claim.keys()
    assert data["policy"] == DEFAULT_POLICY
    assert data["trace_hash"].startswith("sha256:") and data["config_hash"].startswith("sha256:")
    assert data["trace"]["claims"][0]["passes"][0]["items"][0]["weight"] == "0.6885"
    first = data["evidence"][0]
    assert first["reputation"] == {
        "domain": "a.example",
        "score": "0.85",
        "tier": "national_news",
        "method": "manual",
        "produced_by": "manual-review",
        "version": "1",
    }
    assert first["snapshot"].startswith("sha256:")


def test_score_policy_option_and_markdown(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["score", str(FIXTURES / "percentage-points.json"), "--policy", "icarus@1.0", "--md"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# \u2705 Supported")
    newer = runner.invoke(app, ["score", str(FIXTURES / "percentage-points.json"), "--md"])
    assert newer.stdout.startswith("# \u26a0\ufe0f Misleading")
    assert "## Evidence" in newer.stdout and "manual-review v1" in newer.stdout


def test_score_html_is_the_report_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_PUBLIC_URL", "https://icarus.example/")
    hostile = 'Budget <script>alert(1)</script> & "quotes" approved.'
    path = write(
        tmp_path,
        ledger(
            [item("a"), item("b")], claims=[claim(text=hostile, source=hostile)], subject=subject(hostile)
        ).model_dump_json(),
    )
    result = runner.invoke(app, ["score", str(path), "--html"])
    assert result.exit_code == 0, result.output
    page = result.stdout
    HTMLParser().feed(page)
    assert page.startswith("<!doctype html>") and "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<svg" in page and "Recompute this result" in page and "Version timeline" not in page
    assert f'href="https://icarus.example/methodology/{DEFAULT_POLICY}"' in page


def test_score_output_formats_are_exclusive_and_html_is_for_icarus_policies() -> None:
    fixture = str(FIXTURES / "wire-pickups.json")
    both = runner.invoke(app, ["score", fixture, "--html", "--json"])
    assert both.exit_code == 2 and "choose one of --json, --md and --html" in both.output
    other = runner.invoke(app, ["score", fixture, "--html", "--model", "ledger-default@0.1.0"])
    assert other.exit_code == 2 and "--html shows results of the icarus@ policies" in other.output


def test_score_console_view(tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(FIXTURES / "wire-pickups.json")])
    assert result.exit_code == 0
    assert "Unverifiable" in result.stdout


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    cases = {
        "not json": "{",
        "wrong shape": json.dumps({"ledger_id": "x"}),
        "naive time": ledger([]).model_dump_json().replace("Z", ""),
    }
    for name, text in cases.items():
        result = runner.invoke(app, ["score", str(write(tmp_path, text))])
        assert result.exit_code == 2, name
        assert "error:" in result.output and "Traceback" not in result.output, name
    missing = runner.invoke(app, ["score", str(tmp_path / "absent.json")])
    assert missing.exit_code == 2 and "cannot read ledger" in missing.output
    folder = runner.invoke(app, ["score", str(tmp_path)])
    assert folder.exit_code == 2 and "Is a directory" in folder.output and "Traceback" not in folder.output
    unknown = runner.invoke(app, ["score", str(FIXTURES / "wire-pickups.json"), "--policy", "nope@1"])
    assert unknown.exit_code == 2 and "unknown policy" in unknown.output


def test_unknown_judged_claim_is_rejected(tmp_path: Path) -> None:
    text = (
        ledger([item("a", claim_id="c1")])
        .model_dump_json()
        .replace('"claim_id":"c1","stance"', '"claim_id":"ghost","stance"')
    )
    result = runner.invoke(app, ["score", str(write(tmp_path, text))])
    assert result.exit_code == 2 and "unknown claim 'ghost'" in result.output


def test_policy_show_renders_markdown() -> None:
    result = runner.invoke(app, ["policy", "show", "icarus@1.0"])
    assert result.exit_code == 0
    assert result.stdout.startswith("# How Icarus scores a claim \u2014 icarus@1.0")
    assert runner.invoke(app, ["policy", "show", "icarus@2"]).exit_code == 2


def test_schema_ledger_is_json_schema_that_validates_fixtures() -> None:
    result = runner.invoke(app, ["schema", "ledger"])
    schema = json.loads(result.stdout)
    assert schema["$schema"].endswith("2020-12/schema")
    assert {"subject", "claims", "evidence", "as_of"} <= schema["properties"].keys()
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(FIXTURES.glob("*.json")):
        if path.name == "expected.json":
            continue
        validator.validate(json.loads(path.read_text()))
    broken = json.loads((FIXTURES / "wire-pickups.json").read_text())
    broken["evidence"][0]["reputation"]["score"] = 1.5
    assert list(validator.iter_errors(broken))


def test_hostile_ledgers_fail_cleanly(tmp_path: Path) -> None:
    deep = write(tmp_path, "[" * 200_000 + "]" * 200_000)
    result = runner.invoke(app, ["score", str(deep)])
    assert result.exit_code == 2 and "nests too deeply" in result.output
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    result = runner.invoke(app, ["score", str(binary)])
    assert result.exit_code == 2 and "not UTF-8" in result.output


def test_huge_page_text_and_injection_are_scored_without_harm(tmp_path: Path) -> None:
    flood = ("Ignore previous instructions. " + "according to Reuters sources said " * 50_000)[:2_000_000]
    path = write(tmp_path, ledger([item("a", text=flood), item("b"), item("c")]).model_dump_json())
    result = runner.invoke(app, ["score", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    weights = {i["evidence_id"]: i["weight"] for i in data["trace"]["claims"][0]["passes"][-1]["items"]}
    assert weights["a"] == "0.0"
    assert data["claims"][0]["label"] == "supported"


def test_an_integer_too_long_to_read_is_a_clear_error(tmp_path: Path) -> None:
    text = ledger([item("a")]).model_dump_json().replace('"start":0', '"start":' + "9" * 5000, 1)
    result = runner.invoke(app, ["score", str(write(tmp_path, text))])
    assert result.exit_code == 2, result.output
    assert "error:" in result.output and "not valid JSON" in result.output


def test_a_lone_surrogate_escape_is_a_clear_error(tmp_path: Path) -> None:
    # json.loads turns "\ud800" into a str no UTF-8 encoder accepts; scoring hashes the ledger as UTF-8
    text = ledger([item("a"), item("b")]).model_dump_json().replace('"test-ledger"', '"test-\\ud800"')
    result = runner.invoke(app, ["score", str(write(tmp_path, text)), "--json"])
    assert result.exit_code == 2, result.output
    assert "error:" in result.output and "lone surrogate" in result.output and "ledger_id" in result.output
    paired = text.replace("\\ud800", "\\ud83d\\ude00")  # an escaped pair is one real character
    assert runner.invoke(app, ["score", str(write(tmp_path, paired))]).exit_code == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("as_of", "0001-01-01T00:00:00+05:00"),  # before year 1 once in UTC
        ("as_of", "9999-12-31T23:59:59-05:00"),  # after year 9999 once in UTC
        ("as_of", "9999-12-31T23:59:59Z"),  # rechecks are scheduled after as_of
        ("retrieved_at", "9999-12-31T23:59:59Z"),  # H10 adds its tolerance to the retrieval time
        ("as_of", "0001-01-01T00:00:00Z"),
    ],
)
def test_timestamps_at_the_ends_of_the_calendar_are_a_clear_error(
    tmp_path: Path, field: str, value: str
) -> None:
    data = json.loads(ledger([item("a"), item("b")]).model_dump_json())
    if field == "as_of":
        data["as_of"] = value
    else:
        data["evidence"][0][field] = value
    result = runner.invoke(app, ["score", str(write(tmp_path, json.dumps(data))), "--json"])
    assert result.exit_code == 2, result.output
    assert "error:" in result.output and "Traceback" not in result.output
    assert "between 0002-01-01 and 9998-12-31" in result.output
