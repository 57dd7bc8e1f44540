"""EvidenceVerify's documents: the evidence store, the claim item, the config and the verification result."""

from __future__ import annotations

import json
from decimal import Decimal
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, model_validator

from icarus.jsonlines import json_error_reason
from icarus.request_schema import only_with
from icarus.scoring.canonical import canonical_json, sha256_hex

__all__ = [
    "STORE_FORMAT",
    "ClaimItem",
    "ClaimStatus",
    "ConfidenceLevel",
    "CorroborationStatus",
    "CredibilityTier",
    "EvidenceRecord",
    "EvidenceStore",
    "EvidenceTrack",
    "EvidenceVerifyConfig",
    "FreshnessStatus",
    "InputError",
    "SocialCredibilityFlag",
    "SourceType",
    "VerificationPriority",
    "VerificationResult",
    "load_claim",
    "load_evidenceverify_config",
    "load_store",
]

STORE_FORMAT: Final = "evidenceverify-store/1"


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceType(StrEnum):
    WEB = "web"
    TWITTER = "twitter"
    ACADEMIC = "academic"
    GOVERNMENT = "government"
    OTHER = "other"


class CredibilityTier(StrEnum):
    """tier1: governments, central banks, wires; tier2: reputable outlets; tier3: blogs, press releases;
    tier4: social posts."""

    TIER1 = "tier1_authoritative"
    TIER2 = "tier2_reputable"
    TIER3 = "tier3_general"
    TIER4 = "tier4_social"


class FreshnessStatus(StrEnum):
    CURRENT = "current"
    STALE = "stale"
    TIMELESS = "timeless"


class EvidenceTrack(StrEnum):
    """``fact`` evidence can expire; ``reasoning`` never goes stale by itself."""

    FACT = "fact"
    REASONING = "reasoning"


class SocialCredibilityFlag(StrEnum):
    LIKELY_RELIABLE = "likely_reliable"
    NEEDS_VERIFICATION = "needs_verification"
    LIKELY_UNRELIABLE = "likely_unreliable"


class VerificationPriority(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class CorroborationStatus(StrEnum):
    CORROBORATED = "corroborated"
    UNCORROBORATED = "uncorroborated"
    CONTRADICTED = "contradicted"


class ClaimStatus(StrEnum):
    UNVERIFIED = "unverified"
    VERIFIED = "verified"
    CONTESTED = "contested"
    STALE = "stale"


class ConfidenceLevel(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


_PRIORITY_BY_FLAG = {
    SocialCredibilityFlag.LIKELY_UNRELIABLE: VerificationPriority.HIGH,
    SocialCredibilityFlag.NEEDS_VERIFICATION: VerificationPriority.MEDIUM,
}


class EvidenceRecord(_Doc):
    """One evidence item in ``evidence_store.json``."""

    model_config = ConfigDict(
        json_schema_extra=only_with("social_credibility_flag", "source_type", SourceType.TWITTER.value)
    )

    evidence_id: str = Field(min_length=1)
    url: str = Field(
        min_length=1, description="Where the evidence is; different URLs are needed for independence."
    )
    publisher: str = Field(min_length=1, description="Who published it, as shown.")
    publisher_group: str | None = Field(
        default=None,
        description="The owning group; items of one group are one source. Default: the publisher.",
    )
    wire_service: str | None = Field(
        default=None,
        description="The wire (AP, Reuters, AFP...) whose story this item redistributes, if any; all items "
        "redistributing one wire are one source. Also read from wire datelines and credits in the snippet.",
    )
    source_type: SourceType
    credibility_tier: CredibilityTier
    freshness_status: FreshnessStatus = FreshnessStatus.CURRENT
    evidence_track: EvidenceTrack = EvidenceTrack.FACT
    title: str = ""
    snippet: str = Field(default="", description="The passage compared with the claim and with other items.")
    published_at: AwareDatetime | None = None
    social_credibility_flag: SocialCredibilityFlag | None = Field(
        default=None, description="Twitter items only, set at ingestion."
    )
    verification_priority: VerificationPriority | None = Field(
        default=None,
        description="Derived from the flag when absent: likely_unreliable high, needs_verification medium, else low.",
    )
    corroboration_status: CorroborationStatus | None = None
    source_reachable: bool | None = Field(
        default=None,
        description="False when the original could not be fetched again: noted as source_unreachable.",
    )

    @model_validator(mode="after")
    def _social_flag_only_on_twitter(self) -> EvidenceRecord:
        if self.social_credibility_flag is not None and self.source_type is not SourceType.TWITTER:
            raise ValueError("social_credibility_flag applies to twitter items only")
        return self

    @property
    def priority(self) -> VerificationPriority:
        if self.verification_priority is not None:
            return self.verification_priority
        if self.social_credibility_flag is None:
            return VerificationPriority.LOW
        return _PRIORITY_BY_FLAG.get(self.social_credibility_flag, VerificationPriority.LOW)


class EvidenceStore(_Doc):
    format: Literal["evidenceverify-store/1"] = STORE_FORMAT
    evidence: list[EvidenceRecord] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_ids(self) -> EvidenceStore:
        seen: set[str] = set()
        for record in self.evidence:
            if record.evidence_id in seen:
                raise ValueError(f"duplicate evidence_id {record.evidence_id!r}")
            seen.add(record.evidence_id)
        return self

    def get(self, evidence_id: str) -> EvidenceRecord | None:
        for record in self.evidence:
            if record.evidence_id == evidence_id:
                return record
        return None


class ClaimItem(_Doc):
    """The claim to verify, with the evidence ids its debater cites."""

    claim_id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    evidence_ids: list[str] = Field(default_factory=list)
    status: ClaimStatus = Field(default=ClaimStatus.UNVERIFIED, description="The claim's current status.")
    evidence_track: EvidenceTrack = EvidenceTrack.FACT
    centrality: Literal["central", "peripheral"] | None = Field(
        default=None, description="Set by whoever knows the debate; otherwise the criticality judge decides."
    )
    speaker: str | None = None


class EvidenceVerifyConfig(_Doc):
    name: str
    version: str
    published: str
    summary: str
    min_independent_sources_critical: int = Field(ge=1)
    min_sources_peripheral: int = Field(ge=1)
    reputable_tiers: frozenset[CredibilityTier]
    non_social_tiers: frozenset[CredibilityTier]
    criticality_points: int = Field(ge=0, le=100)
    stance_confidence: Decimal
    strong_independent_sources: int = Field(ge=1)
    high_confidence_sources: int = Field(ge=1)
    search_max_queries: int = Field(ge=1)
    search_hits_per_query: int = Field(ge=1)

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def config_hash(self) -> str:
        data = self.model_dump(mode="json")
        for key in ("reputable_tiers", "non_social_tiers"):
            data[key] = sorted(data[key])
        return "sha256:" + sha256_hex(canonical_json(data))


class VerificationResult(_Doc):
    """What ``icarus evidence-verify`` prints with ``--json``."""

    model: str
    config_hash: str
    claim_id: str
    previous_status: ClaimStatus
    recommended_status: ClaimStatus = Field(description="What the evidence supports before transition rules.")
    status: ClaimStatus = Field(description="The status recommendation after the allowed transitions.")
    confidence_level: ConfidenceLevel
    verification_notes: list[str]
    critical: bool
    criticality_by: str
    evidence_missing: list[str]
    source_unreachable: list[str]
    independent_sources: list[str] = Field(
        description="Independent non-social sources that agree with the claim."
    )
    disagreement: list[str] = Field(description="Points of disagreement: which item says what.")
    twitter: list[dict[str, Any]] = Field(
        description="Per twitter item: priority and updated corroboration status."
    )
    independent_search: str = Field(description="'ran', 'not run' or 'not run: <why>'.")


class InputError(ValueError):
    """A claim or store file that cannot be used, with a message a person can act on."""


def _read(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
    except RecursionError as exc:
        raise InputError(f"{what} {path} nests too deeply to read") from exc
    except ValueError as exc:  # not UTF-8, not JSON, or an integer literal too long to read
        raise InputError(f"{what} {path} is not valid JSON: {json_error_reason(exc)}") from exc


def _validate(model: type[_Doc], raw: Any, path: Path, what: str) -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:8]
        )
        raise InputError(f"{what} {path} is not valid: {problems}") from exc


def load_store(path: Path) -> EvidenceStore:
    store: EvidenceStore = _validate(EvidenceStore, _read(path, "evidence store"), path, "evidence store")
    return store


def load_claim(path: Path) -> ClaimItem:
    claim: ClaimItem = _validate(ClaimItem, _read(path, "claim"), path, "claim")
    return claim


CONFIG_FILES = {"evidenceverify@1.0": "evidenceverify-1.0.json"}
DEFAULT_EVIDENCEVERIFY = "evidenceverify@1.0"


@cache
def load_evidenceverify_config(ref: str = DEFAULT_EVIDENCEVERIFY) -> EvidenceVerifyConfig:
    if ref not in CONFIG_FILES:
        raise KeyError(f"unknown EvidenceVerify version {ref!r}; known: {', '.join(sorted(CONFIG_FILES))}")
    text = (
        resources.files("icarus.scoring.evidenceverify.configs")
        .joinpath(CONFIG_FILES[ref])
        .read_text("utf-8")
    )
    return EvidenceVerifyConfig.model_validate(json.loads(text))
