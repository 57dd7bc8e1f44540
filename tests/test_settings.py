"""Settings: read from the environment, documented, secrets never shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from icarus.settings import Settings, render_settings_reference


def test_settings_reference_is_up_to_date() -> None:
    page = (Path(__file__).parents[1] / "docs" / "settings.md").read_text()
    assert page == render_settings_reference(), (
        "regenerate with: python -m icarus.settings > docs/settings.md"
    )


def test_every_setting_is_described() -> None:
    assert all(field.description for field in Settings.model_fields.values())


def test_environment_overrides_and_secrets_stay_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_DATA_DIR", "/tmp/icarus-x")
    monkeypatch.delenv("ICARUS_DATABASE_URL", raising=False)
    monkeypatch.setenv("ICARUS_LLM_API_KEY", "sk-very-secret")
    settings = Settings()
    assert settings.resolved_database_url == "sqlite:////tmp/icarus-x/icarus.db"
    assert "sk-very-secret" not in repr(settings) and "sk-very-secret" not in str(settings.model_dump())
