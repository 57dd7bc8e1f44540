"""The judge registry: names carry versions; settings pick offline unless an endpoint is configured."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.llm import OpenAICompatibleJudge
from icarus.judges.offline import OfflineLexicalJudge
from icarus.judges.registry import (
    DEFAULT_OFFLINE_JUDGE,
    JUDGES,
    JudgeConfigError,
    create_judge,
    judge_from_settings,
)
from icarus.judges.trained import OfflineWordLlamaJudge
from icarus.settings import Settings


def test_registry_contents_are_pinned() -> None:
    assert sorted(JUDGES) == [
        "offline-cascade@1",
        "offline-lexical@1",
        "offline-minilm-fever@1",
        "offline-minilm@1",
        "offline-minilm@2",
        "offline-minilm@3",
        "offline-minilm@4",
        "offline-minilm@5",
        "offline-wordllama@1",
        "openai-compatible@1",
    ]
    with pytest.raises(TypeError):
        JUDGES["x@1"] = JUDGES["offline-lexical@1"]  # type: ignore[index]


def test_every_judge_says_where_it_stands_and_only_the_default_is_current() -> None:
    import re

    from icarus.judges.registry import CURRENT, DEFAULT_OFFLINE_JUDGE, JUDGE_ROLES

    assert set(JUDGE_ROLES) == set(JUDGES)
    assert [name for name, role in JUDGE_ROLES.items() if role == CURRENT] == [DEFAULT_OFFLINE_JUDGE]
    for name, role in JUDGE_ROLES.items():
        for successor in re.findall(r"superseded by (\S+?)(?:;|$)", role):
            assert successor in JUDGES and successor != name


def test_the_methodology_page_marks_superseded_judges() -> None:
    from icarus.reports.methodology import service_facts
    from icarus.scoring.icarus.config import load_policy
    from icarus.scoring.icarus.standing_sections import render_standing_sections

    text = render_standing_sections(load_policy("icarus@1.2"), service_facts())
    assert "`offline-minilm@4` (superseded by offline-minilm@5)" in text
    assert "`offline-minilm@5` (the default offline judge)" in text


def test_by_default_the_gated_cross_encoder_judges_where_the_embedding_judge_agrees() -> None:
    from icarus.judges.agreement import AgreementJudge
    from icarus.judges.relevance import RelevanceJudge

    for settings in (
        Settings(llm_base_url=None, llm_model=None),
        Settings(llm_base_url="http://127.0.0.1:1/v1"),
    ):
        judge = judge_from_settings(settings)
        assert isinstance(judge, AgreementJudge)
        assert isinstance(judge.first, RelevanceJudge)
        assert isinstance(judge.first.base, OfflineMiniLMJudge)
        assert isinstance(judge.second, OfflineWordLlamaJudge)


def test_llm_when_endpoint_and_model_are_set() -> None:
    settings = Settings(
        llm_base_url="http://127.0.0.1:1/v1", llm_model="m-1", llm_api_key=SecretStr("k-secret")
    )
    judge = judge_from_settings(settings)
    assert isinstance(judge, OpenAICompatibleJudge)
    assert judge.model == "m-1" and judge.base_url == "http://127.0.0.1:1/v1"
    assert "k-secret" not in repr(judge)


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICARUS_LLM_BASE_URL", "http://127.0.0.1:2/v1")
    monkeypatch.setenv("ICARUS_LLM_MODEL", "env-model")
    judge = judge_from_settings(Settings())
    assert isinstance(judge, OpenAICompatibleJudge) and judge.model == "env-model"


def test_unknown_name_and_missing_settings_are_clear_errors() -> None:
    with pytest.raises(JudgeConfigError, match="offline-lexical@1"):
        create_judge("offline-lexical@2")
    with pytest.raises(JudgeConfigError, match="ICARUS_LLM_MODEL"):
        create_judge("openai-compatible@1", Settings(llm_base_url=None, llm_model=None))
    assert isinstance(create_judge("offline-lexical@1"), OfflineLexicalJudge)
    assert isinstance(create_judge("offline-wordllama@1"), OfflineWordLlamaJudge)


def test_the_offline_judge_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from icarus.judges.registry import DEFAULT_OFFLINE_JUDGE

    assert Settings().offline_judge == DEFAULT_OFFLINE_JUDGE == "offline-minilm@5"
    assert judge_from_settings(Settings()).provenance.version == "5"  # type: ignore[attr-defined]
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@1")
    assert isinstance(judge_from_settings(Settings()), OfflineLexicalJudge)
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", "offline-lexical@7")
    with pytest.raises(JudgeConfigError, match="no judge named"):
        judge_from_settings(Settings())


def test_unusable_weights_are_a_clear_error_naming_the_judge(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import icarus.judges.cross_encoder as cross_encoder
    from icarus.cli import app
    from icarus.judges.packaged import WeightsError

    def refused() -> None:
        raise WeightsError("offline-minilm-1: this machine's onnxruntime computes the model differently")

    monkeypatch.setattr(cross_encoder, "_shared", refused)
    with pytest.raises(JudgeConfigError, match=r"judge offline-minilm@2 cannot be used: .*differently"):
        create_judge("offline-minilm@2")
    monkeypatch.setenv("ICARUS_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["check", "Traffic fell 12% in October."])
    assert result.exit_code == 2
    assert f"error: judge {DEFAULT_OFFLINE_JUDGE} cannot be used" in result.output
    assert isinstance(create_judge("offline-lexical@1"), OfflineLexicalJudge)  # the way out still works
