"""Judges by name. Each name carries its version; new behaviour gets a new name, never an edit.

``judge_from_settings`` picks the offline judge named by ``ICARUS_OFFLINE_JUDGE`` (``DEFAULT_OFFLINE_JUDGE``
unless set) unless both ``ICARUS_LLM_BASE_URL`` and ``ICARUS_LLM_MODEL`` are set. The default is the
fine-tuned cross-encoder, which beats the embedding and lexical judges on the held-out pairs of the sets the
targets are set on (docs/evaluation.md, "Stance judges"), in its second version: the same model with the
claim's figures and their directions read by rule (``figures``). The older judges stay registered under
their names. ``offline-minilm@3`` is ``offline-minilm@2`` with per-side confidence floors under which a
side call is answered neutral (``judges.thresholded``), chosen for verdict precision on a held-out set;
``offline-minilm@4`` adds a relevance gate: side calls on passages not about the claim's subject are
answered neutral (``judges.relevance``). ``offline-minilm@5``, the default, keeps ``offline-minilm@4``'s side
calls only where ``offline-wordllama@1`` takes the same side (``judges.agreement``); it was chosen by
``icarus_training.default_judge`` on the tune halves of every verdict set, precision on every set first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from icarus.judges.cascade import OfflineCascadeJudge
from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.fever_minilm import FeverMiniLMJudge
from icarus.judges.offline import OfflineLexicalJudge
from icarus.judges.packaged import WeightsError
from icarus.judges.protocol import Judge
from icarus.judges.relevance import RelevanceJudge
from icarus.judges.thresholded import ThresholdedJudge
from icarus.judges.trained import OfflineWordLlamaJudge
from icarus.settings import Settings

__all__ = [
    "CASCADE_JUDGE",
    "DEFAULT_OFFLINE_JUDGE",
    "JUDGES",
    "JUDGE_ROLES",
    "LEXICAL_JUDGE",
    "MINILM_AGREEMENT_JUDGE",
    "MINILM_FEVER_JUDGE",
    "MINILM_FIGURES_JUDGE",
    "MINILM_JUDGE",
    "MINILM_RELEVANCE_JUDGE",
    "MINILM_THRESHOLDED_JUDGE",
    "OFFLINE_JUDGE",
    "OPENAI_COMPATIBLE_JUDGE",
    "WORDLLAMA_JUDGE",
    "JudgeConfigError",
    "JudgeFactory",
    "create_judge",
    "judge_from_settings",
]

LEXICAL_JUDGE = "offline-lexical@1"
WORDLLAMA_JUDGE = "offline-wordllama@1"
MINILM_JUDGE = "offline-minilm@1"
MINILM_FIGURES_JUDGE = "offline-minilm@2"
MINILM_THRESHOLDED_JUDGE = "offline-minilm@3"
MINILM_RELEVANCE_JUDGE = "offline-minilm@4"
MINILM_AGREEMENT_JUDGE = "offline-minilm@5"
MINILM_FEVER_JUDGE = "offline-minilm-fever@1"
CASCADE_JUDGE = "offline-cascade@1"
OPENAI_COMPATIBLE_JUDGE = "openai-compatible@1"
DEFAULT_OFFLINE_JUDGE = MINILM_AGREEMENT_JUDGE
OFFLINE_JUDGE = DEFAULT_OFFLINE_JUDGE
"""The offline judge used when no LLM endpoint is configured (kept under its older name for callers)."""

JudgeFactory = Callable[[Settings], Judge]


class JudgeConfigError(ValueError):
    """A judge was asked for by a name that is not registered, or without the settings it needs."""


def _lexical(settings: Settings) -> Judge:
    return OfflineLexicalJudge()


def _wordllama(settings: Settings) -> Judge:
    return OfflineWordLlamaJudge()


def _minilm(settings: Settings) -> Judge:
    return OfflineMiniLMJudge()


def _minilm_figures(settings: Settings) -> Judge:
    return OfflineMiniLMJudge(read_figures=True)


def _minilm_thresholded(settings: Settings) -> Judge:
    return ThresholdedJudge()


def _minilm_relevance(settings: Settings) -> Judge:
    return RelevanceJudge()


def _minilm_agreement(settings: Settings) -> Judge:
    from icarus.judges.agreement import AgreementJudge

    return AgreementJudge()


def _minilm_fever(settings: Settings) -> Judge:
    return FeverMiniLMJudge()


def _cascade(settings: Settings) -> Judge:
    return OfflineCascadeJudge()


def _openai_compatible(settings: Settings) -> Judge:
    if not settings.llm_base_url or not settings.llm_model:
        raise JudgeConfigError(
            f"{OPENAI_COMPATIBLE_JUDGE} needs ICARUS_LLM_BASE_URL and ICARUS_LLM_MODEL to be set"
        )
    # imported here: the openai client takes about a second to import, and offline judges never need it
    from icarus.judges.llm import OpenAICompatibleJudge

    return OpenAICompatibleJudge(
        settings.llm_base_url,
        settings.llm_model,
        settings.llm_api_key,
        parallel_requests=settings.llm_parallel_requests,
    )


JUDGES: Mapping[str, JudgeFactory] = MappingProxyType(
    {
        LEXICAL_JUDGE: _lexical,
        WORDLLAMA_JUDGE: _wordllama,
        MINILM_JUDGE: _minilm,
        MINILM_FIGURES_JUDGE: _minilm_figures,
        MINILM_THRESHOLDED_JUDGE: _minilm_thresholded,
        MINILM_RELEVANCE_JUDGE: _minilm_relevance,
        MINILM_AGREEMENT_JUDGE: _minilm_agreement,
        MINILM_FEVER_JUDGE: _minilm_fever,
        CASCADE_JUDGE: _cascade,
        OPENAI_COMPATIBLE_JUDGE: _openai_compatible,
    }
)
"""Every registered judge, name → factory. Read-only; a test pins its contents."""

CURRENT = "the default offline judge"
JUDGE_ROLES: Mapping[str, str] = MappingProxyType(
    {
        LEXICAL_JUDGE: f"superseded by {MINILM_JUDGE}; the dependency-free fallback",
        WORDLLAMA_JUDGE: f"the second judge that {MINILM_AGREEMENT_JUDGE}'s side calls must agree with",
        MINILM_JUDGE: f"superseded by {MINILM_FIGURES_JUDGE}",
        MINILM_FIGURES_JUDGE: f"superseded by {MINILM_THRESHOLDED_JUDGE}; the model every later MiniLM judge wraps",
        MINILM_THRESHOLDED_JUDGE: f"superseded by {MINILM_RELEVANCE_JUDGE}",
        MINILM_RELEVANCE_JUDGE: f"superseded by {MINILM_AGREEMENT_JUDGE}",
        MINILM_AGREEMENT_JUDGE: CURRENT,
        MINILM_FEVER_JUDGE: "trained on FEVER first; measured, not chosen by selection rule 2",
        CASCADE_JUDGE: "screened as a fast option; not chosen",
        OPENAI_COMPATIBLE_JUDGE: "asks a configured language model; used when an endpoint is set",
    }
)
"""Where each registered judge stands, in words; the methodology page lists them. Old judges stay registered
so that every stored version still replays with the judge that made it."""


def create_judge(name: str, settings: Settings | None = None) -> Judge:
    """The judge registered as ``name`` (e.g. ``offline-lexical@1``), built from ``settings``. Weights that
    cannot be used (missing, replaced, or computed differently on this machine) are a ``JudgeConfigError``
    naming the judge."""
    factory = JUDGES.get(name)
    if factory is None:
        raise JudgeConfigError(f"no judge named {name!r}; registered: {', '.join(sorted(JUDGES))}")
    try:
        return factory(settings if settings is not None else Settings())
    except WeightsError as exc:
        raise JudgeConfigError(f"judge {name} cannot be used: {exc}") from exc


def judge_from_settings(settings: Settings) -> Judge:
    """The LLM judge when an endpoint and a model are configured, else the configured offline judge."""
    if settings.llm_base_url and settings.llm_model:
        return create_judge(OPENAI_COMPATIBLE_JUDGE, settings)
    return create_judge(settings.offline_judge, settings)
