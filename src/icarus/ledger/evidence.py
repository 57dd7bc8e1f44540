"""Evidence items: one retrieved document, anchored to an immutable snapshot, judged per claim."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel, Span, Unit, UtcDatetime
from icarus.ledger.figures import Figure
from icarus.ledger.judgments import ClaimJudgment, JudgeProvenance
from icarus.ledger.reputation import ReputationRecord


class SourceClass(StrEnum):
    """What kind of publisher this is. Some classes carry no corroboration weight (H6)."""

    PRIMARY_OFFICIAL = "primary_official"
    WIRE = "wire"
    NEWS = "news"
    FACT_CHECKER = "fact_checker"
    SCHOLARLY = "scholarly"
    PREPRINT_SERVER = "preprint_server"
    NGO = "ngo"
    RELEASE_SERVICE = "release_service"
    BLOG = "blog"
    AGGREGATOR = "aggregator"
    CONTENT_FARM = "content_farm"
    SATIRE = "satire"
    PLATFORM = "platform"
    OTHER = "other"


class Directness(StrEnum):
    """How close the item is to the thing it reports (D). Values live in the policy config."""

    PRIMARY_DOCUMENT = "primary_document"
    ORIGINAL_REPORTING = "original_reporting"
    SECONDARY_NAMED = "secondary_named"
    RELEASE = "release"
    OUT_OF_SCOPE = "out_of_scope"


class EvidenceRole(StrEnum):
    RESEARCH = "research"
    CITED_BY_SUBJECT = "cited_by_subject"


class Access(StrEnum):
    FULL = "full"
    PAYWALL = "paywall"
    ABSTRACT_ONLY = "abstract_only"
    SNIPPET_ONLY = "snippet_only"
    INACCESSIBLE = "inaccessible"


class C2paState(StrEnum):
    NONE = "none"
    VALID = "valid"
    TRUSTED = "trusted"
    INVALID = "invalid"


class AttributionOrigin(StrEnum):
    PARSED = "parsed"
    JUDGE = "judge"


class UpdateType(StrEnum):
    """Crossref ``update-to`` types and Retraction Watch natures, folded to what H16 acts on."""

    RETRACTION = "retraction"
    PARTIAL_RETRACTION = "partial_retraction"
    WITHDRAWAL = "withdrawal"
    REMOVAL = "removal"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    CORRECTION = "correction"
    ERRATUM = "erratum"
    CORRIGENDUM = "corrigendum"


class LookupName(StrEnum):
    RDAP = "rdap"  # H10
    SCHOLARLY_UPDATES = "scholarly_updates"  # H16: Crossref + Retraction Watch
    C2PA = "c2pa"  # H22
    ARCHIVE = "archive"  # H24


class LookupStatus(StrEnum):
    OK = "ok"
    NOT_RUN = "not_run"
    ERROR = "error"


class Snapshot(LedgerModel):
    ref: str = Field(description="Content-addressed snapshot reference, e.g. 'sha256:<hex>'.")
    archived: bool = Field(default=False, description="An archive copy stood in for a live snapshot (H24).")
    archive_url: str | None = None


class Excerpt(LedgerModel):
    span: Span = Field(description="Offsets of the excerpt in the snapshot text.")
    text: str = Field(description="Must equal the snapshot text sliced at span (G3).")


class Attribution(LedgerModel):
    """An explicit attribution to another source, by URL or by name ("according to Reuters")."""

    target_url: str | None = None
    target_name: str | None = None
    phrase: str = Field(default="", description="The words that carry the attribution.")
    origin: AttributionOrigin = AttributionOrigin.PARSED
    judge: JudgeProvenance | None = Field(default=None, description="Required when origin is 'judge'.")


class ScholarlyUpdate(LedgerModel):
    update_type: UpdateType
    source: str = Field(description="'crossref', 'retraction_watch', 'publisher_notice' or 'manual'.")
    doi: str | None = None
    noticed_at: UtcDatetime | None = None


class LookupResult(LedgerModel):
    """What an external look-up adapter observed. ``not_run`` is an honest, common answer."""

    name: LookupName
    status: LookupStatus
    provider: str
    observed_at: UtcDatetime | None = None
    domain_created_at: UtcDatetime | None = None
    updates: list[ScholarlyUpdate] = Field(default_factory=list)
    c2pa_state: C2paState | None = None
    soft_404: bool | None = None
    content_changed: bool | None = None
    excerpt_still_present: bool | None = None
    detail: str = ""


class ValidityFlags(LedgerModel):
    """Facts about the item asserted by adapters, publishers or reviewers.

    Text markers (wire lines, anonymous sourcing, correction notes, injection) are detected by the rules
    themselves from the snapshot text; these flags add what text alone cannot show.
    """

    retracted: bool = Field(default=False, description="A retraction or withdrawal reached us by any route.")
    expression_of_concern_open: bool = False
    corrected: bool = False
    corrected_at: UtcDatetime | None = None
    correction_pending: bool = False
    preprint: bool = False
    anonymous_sourcing: bool = False
    conflict_of_interest: bool = False
    self_citation: bool = Field(default=False, description="The item cites its own author as the evidence.")
    c2pa_state: C2paState = C2paState.NONE
    access: Access = Access.FULL
    live_coverage: bool = Field(default=False, description="Marked live/breaking/developing.")
    superseded: bool = Field(default=False, description="A newer release of the same series exists (H27).")


class ClaimReviewInfo(LedgerModel):
    """A schema.org ClaimReview found on the item (H8). Its rating is never inherited."""

    claim_reviewed: str
    publisher_ifcn_verified: bool
    matches_claim_ids: list[str] = Field(default_factory=list)


class ImageMatch(LedgerModel):
    """A perceptual-hash match to an indexed earlier copy of the subject's image (H23)."""

    image_id: str
    hamming_distance: int = Field(ge=0, le=64)
    copy_first_seen_at: UtcDatetime


class EvidenceItem(LedgerModel):
    evidence_id: str = Field(description="Server-assigned identifier; models cite only these (G3).")
    url: str
    rel_canonical: str | None = Field(default=None, description="The page's rel=canonical link (H1).")
    og_url: str | None = Field(default=None, description="The page's og:url (H1).")
    publisher: str
    domain: str
    title: str | None = None
    byline: str | None = None
    published_at: UtcDatetime | None = None
    updated_at: UtcDatetime | None = None
    event_date: date | None = None
    retrieved_at: UtcDatetime | None = Field(default=None, description="When Icarus fetched it; stands in for a missing date.")
    content_sha256: str | None = Field(default=None, description="SHA-256 of the snapshot bytes (G3).")
    snapshot: Snapshot | None = None
    text: str = Field(default="", description="Text extracted from the snapshot.")
    excerpt: Excerpt | None = None
    reputation: ReputationRecord
    source_class: SourceClass = SourceClass.NEWS
    directness: Directness = Directness.ORIGINAL_REPORTING
    role: EvidenceRole = EvidenceRole.RESEARCH
    flags: ValidityFlags = Field(default_factory=ValidityFlags)
    lookups: list[LookupResult] = Field(default_factory=list)
    doi: str | None = None
    container_title: str | None = None
    issn: str | None = None
    links: list[str] = Field(default_factory=list, description="Outbound links parsed from the page.")
    attributions: list[Attribution] = Field(default_factory=list)
    judgments: list[ClaimJudgment] = Field(default_factory=list)
    figures: list[Figure] = Field(default_factory=list)
    claim_review: ClaimReviewInfo | None = None
    image_match: ImageMatch | None = None
    stance_strength: Unit | None = Field(default=None, description="Reserved for ledger-model mappings.")

    def judgment_for(self, claim_id: str) -> ClaimJudgment | None:
        for judgment in self.judgments:
            if judgment.claim_id == claim_id:
                return judgment
        return None

    def lookup(self, name: LookupName) -> LookupResult | None:
        for result in self.lookups:
            if result.name == name:
                return result
        return None
