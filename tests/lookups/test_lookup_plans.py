"""Which look-ups run: all of them by default (a deployment with network wants their answers), none that
needs the network when offline (``ICARUS_OFFLINE`` or ``icarus check --offline``), and each one off on its
own setting. A look-up that does not run says why on every item."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.ledger import LookupName, LookupStatus
from icarus.lookups import registry_from_settings
from icarus.lookups.plan import OFFLINE_REASON, lookup_plans
from icarus.settings import Settings
from tests.builders import item

NETWORK = (LookupName.RDAP, LookupName.SCHOLARLY_UPDATES, LookupName.ARCHIVE)
ROOT = Path(__file__).parents[2]


def _runs(settings: Settings) -> dict[LookupName, bool]:
    return {name: plan.runs for name, plan in lookup_plans(settings).items()}


def test_every_lookup_runs_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ICARUS_OFFLINE")  # the test suite's own switch (tests/conftest.py)
    defaults = Settings()
    assert defaults.offline is False
    assert _runs(defaults) == dict.fromkeys(LookupName, True)
    assert defaults.rdap_url == "https://rdap.org" and defaults.crossref_url == "https://api.crossref.org"
    assert defaults.drift_check and defaults.resolved_archive_url == "https://web.archive.org"


def test_the_test_suite_itself_runs_offline() -> None:
    assert Settings().offline is True
    assert not any(_runs(Settings())[name] for name in NETWORK)


@pytest.mark.parametrize("value", ["1", "true"])
def test_offline_turns_off_every_network_lookup_and_keeps_local_ones(
    monkeypatch: pytest.MonkeyPatch, value: str, tmp_path: Path
) -> None:
    monkeypatch.setenv("ICARUS_OFFLINE", value)
    monkeypatch.setenv("ICARUS_RETRACTION_WATCH_CSV", str(tmp_path / "rw.csv"))
    settings = Settings()
    plans = lookup_plans(settings)
    for name in (LookupName.RDAP, LookupName.ARCHIVE):
        assert not plans[name].runs and plans[name].detail == OFFLINE_REASON
    # a Retraction Watch file is on this machine: it still runs, Crossref does not
    assert plans[LookupName.SCHOLARLY_UPDATES].runs
    assert "Crossref" not in plans[LookupName.SCHOLARLY_UPDATES].detail
    assert plans[LookupName.C2PA].runs
    assert settings.resolved_archive_url is None


@pytest.mark.parametrize(
    ("variable", "value", "name", "reason"),
    [
        ("ICARUS_RDAP_URL", "", LookupName.RDAP, "ICARUS_RDAP_URL is empty"),
        ("ICARUS_CROSSREF_URL", "", LookupName.SCHOLARLY_UPDATES, "ICARUS_CROSSREF_URL is empty"),
        ("ICARUS_C2PA_VALIDATION", "false", LookupName.C2PA, "ICARUS_C2PA_VALIDATION is false"),
        ("ICARUS_DRIFT_CHECK", "false", LookupName.ARCHIVE, "ICARUS_DRIFT_CHECK is false"),
    ],
)
def test_each_lookup_has_its_own_switch(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, name: LookupName, reason: str
) -> None:
    monkeypatch.setenv("ICARUS_OFFLINE", "0")
    monkeypatch.setenv(variable, value)
    plans = lookup_plans(Settings())
    assert not plans[name].runs and reason in plans[name].detail
    assert all(plan.runs for other, plan in plans.items() if other is not name)


def test_a_lookup_that_does_not_run_says_why_on_the_item(tmp_path: Path) -> None:
    registry = registry_from_settings(Settings(data_dir=tmp_path, offline=True))
    result = registry.adapter(LookupName.RDAP).lookup(item("a", domain="example.com"))
    assert result.status is LookupStatus.NOT_RUN and result.detail == f"not run: {OFFLINE_REASON}"


def test_check_offline_turns_the_network_lookups_off_for_that_check(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Settings] = []

    def record(*_args: object, settings: Settings, **_kwargs: object) -> None:
        seen.append(settings)

    monkeypatch.setenv("ICARUS_OFFLINE", "0")
    monkeypatch.setattr("icarus.pipeline.cli.run_check_command", record)
    for args in (["check", "Exports rose 4%."], ["check", "Exports rose 4%.", "--offline"]):
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
    assert [s.offline for s in seen] == [False, True]
    assert not any(plan.runs for name, plan in lookup_plans(seen[1]).items() if name in NETWORK)


def test_every_lookup_on_imports_no_http_client_until_a_request_is_due(tmp_path: Path) -> None:
    # icarus check's start-up (README, "Command-line start-up"): adapters are built on first use, and their
    # HTTP client with the first request; the sample corpus (reserved .example names, no DOI) sends none
    code = (
        "import sys, json\n"
        "from icarus.settings import Settings\n"
        "from icarus.lookups import enrich, registry_from_settings\n"
        "from icarus.scoring.icarus.config import load_policy\n"
        "from tests.builders import item, ledger\n"
        f"registry = registry_from_settings(Settings(data_dir={str(tmp_path)!r}, offline=False))\n"
        "built = 'icarus.lookups.rdap' in sys.modules\n"
        "enriched = enrich(ledger([item('a', domain='northwire.example')]), registry, load_policy('icarus@1.2'))\n"
        "statuses = sorted(r.status.value for r in enriched.evidence[0].lookups)\n"
        "print(json.dumps([built, 'httpx' in sys.modules, statuses]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    built, httpx_loaded, statuses = json.loads(done.stdout.strip().splitlines()[-1])
    assert (built, httpx_loaded) == (False, False)
    assert len(statuses) == len(LookupName)  # every look-up answered, none had to send a request
