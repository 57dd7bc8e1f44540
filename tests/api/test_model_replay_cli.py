"""``icarus replay CHECK/VERSION --model REF``: a stored version replayed under another model."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from icarus.reports.replay_cli import EXIT_IDENTICAL, EXIT_NOT_FOUND, app
from tests.api.conftest import Site

runner = CliRunner()


def test_replay_under_a_model_the_check_was_served_under(site: Site, tmp_path: Path) -> None:
    check_id = site.recorded_check()
    url = str(site.runner.store.engine.url)
    never = runner.invoke(app, [f"{check_id}/1", "--model", "ledger-strict@0.2.0", "--database-url", url])
    assert never.exit_code == EXIT_NOT_FOUND and "never scored under ledger-strict@0.2.0" in never.output
    site.client.get(f"/v1/checks/{check_id}/models", params={"models": "ledger-strict@0.2.0"})
    same = runner.invoke(app, [f"{check_id}/1", "--model", "ledger-strict@0.2.0", "--database-url", url])
    assert same.exit_code == EXIT_IDENTICAL, same.output
    assert same.output.startswith(f"identical: {check_id}/1 sha256:")
    unknown = runner.invoke(app, [f"{check_id}/1", "--model", "nope@1", "--database-url", url])
    assert unknown.exit_code == EXIT_NOT_FOUND and "unknown model" in unknown.output
