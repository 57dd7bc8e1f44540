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
    """What kind of publisher this is. Some classes carry no corroboration weight (H6).

    Weight 0 always: ``aggregator``, ``content_farm``, ``platform`` (X posts and X search results included);
    ``satire`` unless the claim is about the satire piece itself. ``preprint_server`` takes H17's preprint multiplier;
    ``release_service`` (press-release wires and newsrooms) demotes directness to the release value (H19).
    ``primary_official`` counts as a primary source in origin election.
    """

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
    """How close the item is to the thing it reports (D). Values live in the policy config.

    In icarus@1.0 and @1.1: ``primary_document`` (the record, dataset or document itself) 1.00;
    ``original_reporting``; ``secondary_named`` (secondary reporting naming its primary);
    ``release`` (a press release or release wire); ``out_of_scope`` (context only, D = 0).
    """

    PRIMARY_DOCUMENT = "primary_document"
    ORIGINAL_REPORTING = "original_reporting"
    SECONDARY_NAMED = "secondary_named"
    RELEASE = "release"
    OUT_OF_SCOPE = "out_of_scope"


class EvidenceRole(StrEnum):
    """Why the item is in the ledger.

    - ``research``: found by Icarus's own searches.
    - ``cited_by_subject``: material the subject itself cites; only such items can anchor a self-evidence
      finding (H20), and citing one that is retracted without saying so is a misstatement (H16).
    """

    RESEARCH = "research"
    CITED_BY_SUBJECT = "cited_by_subject"


class Access(StrEnum):
    """How much of the document Icarus could read (H28).

    ``full`` is unrestricted. ``paywall``, ``abstract_only`` and ``snippet_only`` cap D at the policy's limited-access value and cannot
    anchor a self-evidence finding. ``inaccessible`` takes the item out of corroboration.
    """

    FULL = "full"
    PAYWALL = "paywall"
    ABSTRACT_ONLY = "abstract_only"
    SNIPPET_ONLY = "snippet_only"
    INACCESSIBLE = "inaccessible"


class C2paState(StrEnum):
    """Content-credential (C2PA) validation state of the item's media (H22).

    ``invalid`` applies H22's multiplier to V. ``valid`` and ``trusted`` establish a provenance chain only, never the
    truth of a caption. ``none`` (no manifest, common after platform re-encoding) is neutral.
    """

    NONE = "none"
    VALID = "valid"
    TRUSTED = "trusted"
    INVALID = "invalid"


class AttributionOrigin(StrEnum):
    """Who found an attribution (H3): ``parsed`` by deterministic parsing, or proposed by a calibrated
    ``judge``. An edge that only a judge found can make an item derivative, never independent."""

    PARSED = "parsed"
    JUDGE = "judge"


class PublicationType(StrEnum):
    """What the item's own scholarly metadata says it is (H17), read from the page when it was fetched.

    ``journal_article``: published in a journal (a journal title, ISSN or periodical it is part of), so peer
    reviewed as far as the metadata can tell. ``preprint``: posted on a preprint server (arXiv, bioRxiv,
    medRxiv, SSRN, Research Square, OSF, ChemRxiv, Preprints.org) or declared a preprint. ``report``: a
    technical report or working paper. The last two take H17's preprint multiplier where H17's metadata
    part is live.
    """

    JOURNAL_ARTICLE = "journal_article"
    PREPRINT = "preprint"
    REPORT = "report"


class UpdateType(StrEnum):
    """Crossref ``update-to`` types and Retraction Watch natures, folded to what H16 acts on.

    ``retraction``, ``partial_retraction``, ``withdrawal`` and ``removal`` take V to 0 (and trigger G4);
    ``expression_of_concern`` and ``correction``, ``erratum`` and ``corrigendum`` apply their validity multipliers.
    """

    RETRACTION = "retraction"
    PARTIAL_RETRACTION = "partial_retraction"
    WITHDRAWAL = "withdrawal"
    REMOVAL = "removal"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    CORRECTION = "correction"
    ERRATUM = "erratum"
    CORRIGENDUM = "corrigendum"


class LookupName(StrEnum):
    """The external look-ups an adapter may run for an evidence item.

    - ``rdap``: domain registration date (H10).
    - ``scholarly_updates``: Crossref and Retraction Watch notices for a DOI (H16).
    - ``c2pa``: content-credential validation of the item's media (H22).
    - ``archive``: an archived copy, soft-404 and drift checks (H24).
    """

    RDAP = "rdap"  # H10
    SCHOLARLY_UPDATES = "scholarly_updates"  # H16: Crossref + Retraction Watch
    C2PA = "c2pa"  # H22
    ARCHIVE = "archive"  # H24


class LookupStatus(StrEnum):
    """Outcome of one look-up.

    - ``ok``: the adapter ran; its observations are in the result and rules may act on them.
    - ``not_run``: no adapter was wired or it was skipped. An honest, ordinary answer, not an error.
    - ``error``: the adapter ran and failed; its observations are not used.
    """

    OK = "ok"
    NOT_RUN = "not_run"
    ERROR = "error"


class Snapshot(LedgerModel):
    """Where the immutable copy of the document is kept. Snapshots are content-addressed and never edited."""

    ref: str = Field(description="Content-addressed snapshot reference, e.g. 'sha256:<hex>'.")
    archived: bool = Field(default=False, description="An archive copy stood in for a live snapshot (H24).")
    archive_url: str | None = Field(
        default=None, description="Address of the archive copy, when one was used."
    )


class Excerpt(LedgerModel):
    """The passage of the evidence item that bears on the claims, kept as an exact slice (G3)."""

    span: Span = Field(description="Offsets of the excerpt in the snapshot text.")
    text: str = Field(description="Must equal the snapshot text sliced at span (G3).")


class Attribution(LedgerModel):
    """An explicit attribution to another source, by URL or by name ("according to Reuters")."""

    target_url: str | None = Field(
        default=None,
        description="Address of the credited source; matched to ledger items and artifacts (H3, H7).",
    )
    target_name: str | None = Field(
        default=None,
        description="Name of the credited source, e.g. 'Reuters'; matched to ledger publishers (H3).",
    )
    phrase: str = Field(default="", description="The words that carry the attribution.")
    origin: AttributionOrigin = Field(
        default=AttributionOrigin.PARSED, description="Whether a parser or a judge found it (H3)."
    )
    judge: JudgeProvenance | None = Field(default=None, description="Required when origin is 'judge'.")


class ScholarlyUpdate(LedgerModel):
    """One notice about a scholarly work: a retraction, expression of concern or correction (H16, G4)."""

    update_type: UpdateType = Field(description="What the notice says happened to the work.")
    source: str = Field(
        description=(
            "'crossref', 'retraction_watch', 'publisher_notice' or 'manual'. Crossref and Retraction Watch "
            "notices count only where the policy wires the H16 look-up; the others always count."
        )
    )
    doi: str | None = Field(default=None, description="DOI of the work the notice is about.")
    noticed_at: UtcDatetime | None = Field(
        default=None, description="When the notice was issued or seen, if known."
    )


class LookupResult(LedgerModel):
    """What an external look-up adapter observed. ``not_run`` is an honest, common answer.

    Only the fields that belong to ``name`` are filled. Rules use an adapter's observations only when the
    status is ``ok``, and several only where the policy has that look-up live (icarus@1.1). Publisher and
    manual notices listed in ``updates`` count whatever the status.
    """

    name: LookupName = Field(description="Which look-up this is.")
    status: LookupStatus = Field(description="ok, not_run or error; observations are used only when ok.")
    provider: str = Field(description="The adapter that answered, with its version, e.g. 'offline@1'.")
    observed_at: UtcDatetime | None = Field(
        default=None, description="When the adapter made its observation."
    )
    domain_created_at: UtcDatetime | None = Field(
        default=None,
        description="rdap: domain registration time; an earlier publication date is invalid (H10).",
    )
    updates: list[ScholarlyUpdate] = Field(
        default_factory=list, description="scholarly_updates: notices found for the item's DOI (H16)."
    )
    publication_type: PublicationType | None = Field(
        default=None,
        description="scholarly_updates: what Crossref registers the DOI as (posted-content is a preprint); H17 reads it.",
    )
    c2pa_state: C2paState | None = Field(
        default=None, description="c2pa: the validation state the adapter computed (H22)."
    )
    soft_404: bool | None = Field(
        default=None, description="archive: the page is a not-found template behind HTTP 200 (H24)."
    )
    content_changed: bool | None = Field(
        default=None, description="archive: the page's content hash changed since retrieval (H24)."
    )
    excerpt_still_present: bool | None = Field(
        default=None,
        description="archive: the excerpt is still on the changed page; false excludes the item (H24).",
    )
    detail: str = Field(
        default="", description="Free text from the adapter: an error message or why it did not run."
    )


class ValidityFlags(LedgerModel):
    """Facts about the item asserted by adapters, publishers or reviewers.

    Text markers (wire lines, anonymous sourcing, correction notes, injection) are detected by the rules
    themselves from the snapshot text; these flags add what text alone cannot show.
    """

    retracted: bool = Field(
        default=False, description="A retraction or withdrawal reached us by any route: V = 0 and G4."
    )
    expression_of_concern_open: bool = Field(
        default=False,
        description="An expression of concern is open: a validity multiplier (H16), a confidence penalty, and G5.",
    )
    corrected: bool = Field(
        default=False, description="The item has been corrected: the correction multiplier on V (H25)."
    )
    corrected_at: UtcDatetime | None = Field(
        default=None, description="When the latest correction was made; recent corrections hold G5 open."
    )
    correction_pending: bool = Field(
        default=False, description="A correction is pending or under review: a confidence penalty and G5."
    )
    preprint: bool = Field(
        default=False, description="Not peer reviewed: the preprint multiplier on V (H17)."
    )
    anonymous_sourcing: bool = Field(
        default=False,
        description="Rests on anonymous sources: the anonymous-sourcing multiplier on V, and an uncertain origin if elected (H11).",
    )
    conflict_of_interest: bool = Field(
        default=False,
        description="Discloses a conflict of interest naming an interested party: the conflict-of-interest multiplier on V (H18).",
    )
    self_citation: bool = Field(
        default=False, description="The item cites its own author as the evidence: weight 0 (H6)."
    )
    c2pa_state: C2paState = Field(
        default=C2paState.NONE,
        description="C2PA state asserted outside a look-up; invalid applies H22's multiplier to V.",
    )
    access: Access = Field(
        default=Access.FULL,
        description="How much could be read: limited caps D, inaccessible excludes (H28).",
    )
    live_coverage: bool = Field(default=False, description="Marked live/breaking/developing (G6).")
    superseded: bool = Field(
        default=False, description="A newer release of the same series exists: excluded (H27)."
    )


class ClaimReviewInfo(LedgerModel):
    """A schema.org ClaimReview found on the item (H8). Its rating is never inherited."""

    claim_reviewed: str = Field(description="The ClaimReview's claimReviewed text.")
    publisher_ifcn_verified: bool = Field(
        description="The publishing fact-checker is a verified IFCN signatory; required for H8 to apply."
    )
    matches_claim_ids: list[str] = Field(
        default_factory=list, description="Ledger claims the review addresses; H8 applies only to these."
    )


class ImageMatch(LedgerModel):
    """A perceptual-hash match to an indexed earlier copy of the subject's image (H23)."""

    image_id: str = Field(description="The subject image (CapturedImage.image_id) the copy matches.")
    hamming_distance: int = Field(
        ge=0, le=64, description="pHash distance in bits out of 64; at most 8 counts as the same image (H23)."
    )
    copy_first_seen_at: UtcDatetime = Field(
        description="When the earlier copy was first seen; 48 h or more before the event refutes (H23)."
    )


class EvidenceItem(LedgerModel):
    """One retrieved document, anchored to an immutable snapshot, with everything the rules read about it.

    Research (or capture, for material the subject cites) fetches and snapshots it and assigns its id;
    extraction fills text, metadata, links and figures; judges add per-claim judgments; the reputation
    registry supplies the record; look-up adapters and reviewers add flags and look-up results.
    """

    evidence_id: str = Field(description="Server-assigned identifier; models cite only these (G3).")
    url: str = Field(
        description="The address the item was fetched from; canonicalised before clustering (H1)."
    )
    rel_canonical: str | None = Field(default=None, description="The page's rel=canonical link (H1).")
    og_url: str | None = Field(default=None, description="The page's og:url (H1).")
    publisher: str = Field(
        description="Publisher name as shown; attribution phrases are matched against it (H3)."
    )
    domain: str = Field(
        description="Host the item came from; wire, release and preprint hosts are known by it."
    )
    title: str | None = Field(
        default=None, description="Headline; read for correction, live and not-found markers (H25, G6, H24)."
    )
    byline: str | None = Field(default=None, description="Author line; a wire byline marks a pickup (H2).")
    published_at: UtcDatetime | None = Field(
        default=None, description="Publication time from the page; drives origin election. Future dates: H10."
    )
    updated_at: UtcDatetime | None = Field(
        default=None,
        description="Last-updated time from the page; dates a correction found in its text (G5).",
    )
    event_date: date | None = Field(
        default=None,
        description="Date of the event the item reports; compared with publication and claim (H9).",
    )
    retrieved_at: UtcDatetime | None = Field(
        default=None,
        description="When Icarus fetched it; stands in for a missing publication date (election, H10).",
    )
    content_sha256: str | None = Field(
        default=None, description="SHA-256 (hex) of the snapshot bytes; required to anchor (G3)."
    )
    snapshot: Snapshot | None = Field(default=None, description="Where the immutable snapshot is stored.")
    text: str = Field(
        default="", description="Text extracted from the snapshot; spans index it, marker rules read it."
    )
    excerpt: Excerpt | None = Field(
        default=None, description="The passage that bears on the claims; an exact slice of text (G3)."
    )
    reputation: ReputationRecord = Field(
        description="The source's reputation record as it stood when scored (R)."
    )
    source_class: SourceClass = Field(
        default=SourceClass.NEWS, description="Kind of publisher; some classes weigh nothing (H6)."
    )
    directness: Directness = Field(
        default=Directness.ORIGINAL_REPORTING, description="How close the item is to what it reports (D)."
    )
    role: EvidenceRole = Field(
        default=EvidenceRole.RESEARCH, description="Found by research, or material the subject cites (H20)."
    )
    flags: ValidityFlags = Field(
        default_factory=ValidityFlags,
        description="Validity facts from adapters, publishers or reviewers (V).",
    )
    lookups: list[LookupResult] = Field(
        default_factory=list,
        description="External look-up results, one per look-up name (H10, H16, H22, H24).",
    )
    doi: str | None = Field(
        default=None,
        description="DOI of a scholarly item; keys the H16 look-up. Alone it does not make a journal article (H17).",
    )
    container_title: str | None = Field(
        default=None,
        description="Journal title from the metadata; journal metadata: preprint wording is then not read (H17).",
    )
    issn: str | None = Field(
        default=None,
        description="ISSN from the metadata; journal metadata: preprint wording is then not read (H17).",
    )
    publication_type: PublicationType | None = Field(
        default=None,
        description="Journal article, preprint or report, as the page's scholarly metadata says (H17).",
    )
    links: list[str] = Field(
        default_factory=list, description="Outbound links parsed from the page; citation edges (H3, H7)."
    )
    attributions: list[Attribution] = Field(
        default_factory=list, description="Explicit credits to other sources, parsed or judged (H3)."
    )
    judgments: list[ClaimJudgment] = Field(
        default_factory=list,
        description="Judge answers about this item, one per claim it was judged against.",
    )
    figures: list[Figure] = Field(
        default_factory=list, description="Numbers the item states, in recomputable form (H12–H15)."
    )
    claim_review: ClaimReviewInfo | None = Field(
        default=None, description="A ClaimReview found on the item (H8)."
    )
    image_match: ImageMatch | None = Field(
        default=None, description="An earlier copy of the subject's image that this item shows (H23)."
    )
    stance_strength: Unit | None = Field(
        default=None, description="Reserved for ledger-model mappings; the icarus policies do not read it."
    )

    def judgment_for(self, claim_id: str) -> ClaimJudgment | None:
        """The judgment this item carries for ``claim_id``, or None if it was not judged against it."""
        for judgment in self.judgments:
            if judgment.claim_id == claim_id:
                return judgment
        return None

    def lookup(self, name: LookupName) -> LookupResult | None:
        """This item's result for look-up ``name``, or None if none is recorded."""
        for result in self.lookups:
            if result.name == name:
                return result
        return None
