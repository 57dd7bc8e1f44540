"""``icarus.judges`` names its public API in ``__all__`` and imports each name only when it is first read."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import icarus.judges as judges

# What importing the judge protocol alone must not load: the judges, the settings, the LLM client.
NOT_FOR_THE_PROTOCOL = ("icarus.settings", "icarus.judges.registry", "icarus.judges.cross_encoder", "openai")


def test_every_public_name_is_imported_now_or_has_a_home() -> None:
    eager = {name for name in judges.__all__ if name in vars(judges)}
    assert eager == {"Quarantined", "quarantine"}
    assert set(judges.__all__) == eager | set(judges._HOMES)


def test_quarantine_is_the_llm_packages_function() -> None:
    home = importlib.import_module("icarus.llm.quarantine")
    assert judges.quarantine is home.quarantine and judges.Quarantined is home.Quarantined


@pytest.mark.parametrize("name", sorted(judges._HOMES))
def test_each_public_name_is_its_modules_object(name: str) -> None:
    home = importlib.import_module(f"icarus.judges.{judges._HOMES[name]}")
    assert getattr(judges, name) is getattr(home, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_judge"):
        _ = judges.no_such_judge


def test_the_protocol_alone_loads_no_judge_settings_or_llm_client() -> None:
    probe = (
        f"import sys, icarus.judges.protocol\nprint(sorted(set(sys.modules) & set({NOT_FOR_THE_PROTOCOL!r})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
