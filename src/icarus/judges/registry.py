"""Judges by name. Each name carries its version; new behaviour gets a new name, never an edit.

``judge_from_settings`` picks the embedded offline judge unless both ``ICARUS_LLM_BASE_URL`` and
``ICARUS_LLM_MODEL`` are set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from icarus.judges.llm import OpenAICompatibleJudge
from icarus.judges.offline import OfflineLexicalJudge
from icarus.judges.protocol import Judge
from icarus.settings import Settings

__all__ = [
    "JUDGES",
    "OFFLINE_JUDGE",
    "OPENAI_COMPATIBLE_JUDGE",
    "JudgeConfigError",
    "JudgeFactory",
    "create_judge",
    "judge_from_settings",
]

OFFLINE_JUDGE = "offline-lexical@1"
OPENAI_COMPATIBLE_JUDGE = "openai-compatible@1"

JudgeFactory = Callable[[Settings], Judge]


class JudgeConfigError(ValueError):
    """A judge was asked for by a name that is not registered, or without the settings it needs."""


def _offline(settings: Settings) -> Judge:
    return OfflineLexicalJudge()


def _openai_compatible(settings: Settings) -> Judge:
    if not settings.llm_base_url or not settings.llm_model:
        raise JudgeConfigError(
            f"{OPENAI_COMPATIBLE_JUDGE} needs ICARUS_LLM_BASE_URL and ICARUS_LLM_MODEL to be set"
        )
    return OpenAICompatibleJudge(settings.llm_base_url, settings.llm_model, settings.llm_api_key)


JUDGES: Mapping[str, JudgeFactory] = MappingProxyType(
    {OFFLINE_JUDGE: _offline, OPENAI_COMPATIBLE_JUDGE: _openai_compatible}
)
"""Every registered judge, name → factory. Read-only; a test pins its contents."""


def create_judge(name: str, settings: Settings | None = None) -> Judge:
    """The judge registered as ``name`` (e.g. ``offline-lexical@1``), built from ``settings``."""
    factory = JUDGES.get(name)
    if factory is None:
        raise JudgeConfigError(f"no judge named {name!r}; registered: {', '.join(sorted(JUDGES))}")
    return factory(settings if settings is not None else Settings())


def judge_from_settings(settings: Settings) -> Judge:
    """The LLM judge when an endpoint and a model are configured, else the offline judge."""
    if settings.llm_base_url and settings.llm_model:
        return create_judge(OPENAI_COMPATIBLE_JUDGE, settings)
    return create_judge(OFFLINE_JUDGE, settings)
