"""`icarus check` end to end on the embedded default: sample corpus, offline judge, SQLite store."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.capture import capture_text, capture_x_mention
from icarus.cli import app
from icarus.fetching import SnapshotStore
from icarus.judges import create_judge
from icarus.pipeline.check import CheckServices, run_check
from icarus.reports.replay import replay
from icarus.reputation import Registry, load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import DEFAULT_POLICY, load_policy
from icarus.store import Store

EXAMPLES = Path(__file__).parents[2] / "examples"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
runner = CliRunner()


@pytest.fixture
def services(tmp_path: Path) -> CheckServices:
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add(sorted((EXAMPLES / "sample-corpus").glob("*.html")))
    store = Store(f"sqlite:///{tmp_path / 'icarus.db'}")
    store.open()
    return CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[LocalCorpusProvider(corpus)],
        registry=load_registry(EXAMPLES / "sample-corpus" / "reputation.json"),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
        store=store,
    )


def sample_subject():
    payload = json.loads((EXAMPLES / "sample-post.json").read_text())
    outcome = capture_x_mention(payload, NOW)
    assert outcome.subject is not None
    return outcome.subject


def test_sample_post_is_supported_by_two_independent_origins(services: CheckServices) -> None:
    output = run_check(sample_subject(), services, NOW)
    result = output.result
    assert result["overall"]["label"] == "supported"
    totals = result["trace"]["claims"][0]["passes"][-1]["totals"]
    assert totals["icc_support"] == 2
    clusters = result["trace"]["claims"][0]["passes"][-1]["clusters"]
    wire_cluster = next(c for c in clusters if len(c["members"]) >= 3)
    assert wire_cluster["counted"]  # the wire story and its pickups count once, with the port's own release
    assert [c["reason"] for c in result["not_assessed"]]  # the opinion half of the post is listed
    for item in output.ledger.evidence:  # every item is anchored: an exact excerpt of its snapshot (G3)
        assert (
            item.excerpt is not None
            and item.text[item.excerpt.span.start : item.excerpt.span.end] == item.excerpt.text
        )
        assert services.snapshots.get(item.snapshot.ref if item.snapshot else "").decode() == item.text


def test_the_stored_version_replays_byte_identical(services: CheckServices) -> None:
    output = run_check(sample_subject(), services, NOW)
    assert output.version is not None
    assert services.store is not None
    for item in output.ledger.evidence:  # every snapshot is recorded with the address it came from
        assert item.snapshot is not None
        assert item.url in {info.url for info in services.store.snapshots(item.snapshot.ref)}
    outcome = replay(services.store, output.version.check_id, output.version.version, services.snapshots)
    assert outcome.identical, outcome.diff


def test_replay_notices_a_missing_or_altered_snapshot(services: CheckServices, tmp_path: Path) -> None:
    output = run_check(sample_subject(), services, NOW)
    assert output.version is not None and services.store is not None
    elsewhere = SnapshotStore(tmp_path / "empty-snapshots")
    outcome = replay(services.store, output.version.check_id, output.version.version, elsewhere)
    assert not outcome.identical
    assert any("no snapshot" in problem for problem in outcome.problems)


def test_finding_nothing_is_unverifiable(services: CheckServices) -> None:
    subject = capture_text("The lighthouse on Pellow Point was painted blue in 1911.", NOW)
    result = run_check(subject, services, NOW).result
    assert result["overall"]["label"] == "unverifiable"


def test_a_failing_provider_is_not_run_never_evidence(services: CheckServices) -> None:
    class Broken:
        name = "broken"

        def search(self, query, limit):  # type: ignore[no-untyped-def]
            raise TimeoutError("search backend down")

    services.providers = [Broken()]
    output = run_check(sample_subject(), services, NOW)
    assert output.result["overall"]["label"] == "unverifiable"
    assert {n.status for n in output.provider_notes} == {"error"}


def test_unknown_domains_are_estimated_and_cannot_carry_a_verdict(services: CheckServices) -> None:
    services.registry = Registry()
    result = run_check(sample_subject(), services, NOW).result
    assert result["overall"]["label"] == "unverifiable"
    assert "reputation estimated, not on file" in result["claims"][0]["caveats"]


def test_check_command_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)  # the embedded default: SQLite in the data dir
    # the outcomes below are the lexical judge's; the default trained judge is measured in tests/judges
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@1")
    added = runner.invoke(
        app, ["corpus", "add", *map(str, sorted((EXAMPLES / "sample-corpus").glob("*.html")))]
    )
    assert added.exit_code == 0, added.output
    args = [
        "check",
        "--post",
        str(EXAMPLES / "sample-post.json"),
        "--reputation",
        str(EXAMPLES / "sample-corpus" / "reputation.json"),
        "--json",
    ]
    checked = runner.invoke(app, args)
    assert checked.exit_code == 0, checked.output
    result = json.loads(checked.stdout)
    assert result["overall"]["label"] == "supported"
    assert "recorded as /checks/" in checked.stderr
    check_id = checked.stderr.split("recorded as /checks/")[1].split("/")[0]
    replayed = runner.invoke(app, ["replay", check_id])
    assert replayed.exit_code == 0, replayed.output
    assert "identical" in replayed.output


def test_check_html_is_the_report_page_with_links_to_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@1")
    monkeypatch.setenv("ICARUS_PUBLIC_URL", "https://icarus.example")
    corpus = sorted((EXAMPLES / "sample-corpus").glob("*.html"))
    assert runner.invoke(app, ["corpus", "add", *map(str, corpus)]).exit_code == 0
    reputation = str(EXAMPLES / "sample-corpus" / "reputation.json")
    checked = runner.invoke(
        app, ["check", "--post", str(EXAMPLES / "sample-post.json"), "--reputation", reputation, "--html"]
    )
    assert checked.exit_code == 0, checked.output
    page = checked.stdout
    check_id = checked.stderr.split("recorded as /checks/")[1].split("/")[0]
    HTMLParser().feed(page)
    assert page.startswith("<!doctype html>") and "<script" not in page
    # the same page the service serves: provenance picture, evidence by origin, timeline, hashes
    assert "<svg" in page and "Evidence by independent origin" in page
    assert "Version timeline" in page and "Recompute this result" in page
    assert "Container traffic at Halden harbor" in page
    assert f'href="https://icarus.example/methodology/{DEFAULT_POLICY}"' in page
    assert f'href="https://icarus.example/v1/checks/{check_id}/versions/1"' in page


def test_check_command_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    assert runner.invoke(app, ["check"]).exit_code == 2
    bad = tmp_path / "post.json"
    bad.write_text("{not json")
    result = runner.invoke(app, ["check", "--post", str(bad)])
    assert result.exit_code == 2 and "cannot read X payload" in result.output
    orphan = tmp_path / "orphan.json"
    orphan.write_text(
        json.dumps(
            {
                "data": {
                    "id": "2",
                    "text": "@IcarusCheck ?",
                    "referenced_tweets": [{"type": "replied_to", "id": "1"}],
                }
            }
        )
    )
    result = runner.invoke(app, ["check", "--post", str(orphan)])
    assert result.exit_code == 2 and "no subject to check" in result.output
    blocked = runner.invoke(app, ["check", "http://169.254.169.254/latest/meta-data/"])
    assert blocked.exit_code == 2 and "error:" in blocked.output


def test_hostile_post_and_reputation_files_are_one_line_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    hostile = {"deep.json": "[" * 100_000 + "]" * 100_000, "long-number.json": '{"a": ' + "9" * 5000 + "}"}
    for name, text in hostile.items():
        path = tmp_path / name
        path.write_text(text)
        result = runner.invoke(app, ["check", "--post", str(path)])
        assert result.exit_code == 2 and "cannot read X payload" in result.output, name
        as_reputation = runner.invoke(app, ["check", "Unemployment fell in May.", "--reputation", str(path)])
        assert as_reputation.exit_code == 2 and "reputation file" in as_reputation.output, name
        assert as_reputation.output.strip().count("\n") == 0, as_reputation.output
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    result = runner.invoke(app, ["check", "Unemployment fell in May.", "--reputation", str(broken)])
    assert result.exit_code == 2 and result.output.strip().count("\n") == 0, result.output
    assert "pydantic" not in result.output  # no library boilerplate, just what is wrong and where


def test_post_id_needs_a_bearer_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    monkeypatch.delenv("ICARUS_X_BEARER_TOKEN", raising=False)
    result = runner.invoke(app, ["check", "--post-id", "1860000000000000002"])
    assert result.exit_code == 2 and "ICARUS_X_BEARER_TOKEN" in result.output
    both = runner.invoke(app, ["check", "some text", "--post-id", "1"])
    assert both.exit_code == 2 and "give one of" in both.output


def test_a_spent_time_budget_skips_the_remaining_searches(services: CheckServices) -> None:
    ticks = iter(range(0, 10_000, 100))  # every reading of the clock is 100 s later
    services.clock = lambda: float(next(ticks))
    services.max_seconds = 250.0
    output = run_check(sample_subject(), services, NOW)
    statuses = [note.status for note in output.provider_notes]
    assert statuses[:2] == ["ok", "ok"]  # searches while the budget lasted
    assert statuses[2:] and set(statuses[2:]) == {"not_run"}
    assert {n.detail for n in output.provider_notes[2:]} == {"check time budget spent"}


DEBUNK_PAGE = """<!doctype html><html><head><title>Was the Eiffel Tower sold for scrap? | Example Checks</title>
</head><body><article>
<h1>Was the Eiffel Tower sold for scrap in 1925?</h1>
<p>Claim: The Eiffel Tower was sold for scrap in 1925. Rating: False.</p>
<p>The Eiffel Tower was never sold for scrap; in 1925 a con man only pretended to sell it to a dealer.</p>
</article></body></html>"""


def test_a_debunk_found_by_research_is_judged_a_refutation(tmp_path: Path) -> None:
    page = tmp_path / "debunk.html"
    page.write_text(DEBUNK_PAGE, encoding="utf-8")
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add([page])
    services = CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[LocalCorpusProvider(corpus)],
        registry=Registry(),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
    )
    output = run_check(capture_text("The Eiffel Tower was sold for scrap in 1925.", NOW), services, NOW)
    [item] = output.ledger.evidence
    assert item.excerpt is not None
    assert item.excerpt.text.startswith("The Eiffel Tower was never sold for scrap")  # not "Claim: …"
    [judgment] = item.judgments
    assert judgment.stance.stance.value == "refute"
