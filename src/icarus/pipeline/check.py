"""One check, end to end: claims -> research -> judges -> ledger -> policy -> stored report version.

The services are passed in, so the embedded default (local corpus, offline judge, SQLite) and the scaled-up
configuration (web providers, an LLM endpoint, PostgreSQL) run the same code. The clock is a parameter.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from icarus.capture import CaptureError
from icarus.capture.ocr import OcrEngine, OcrEngineError, attach_image_text, read_image
from icarus.claims.implied import checked_text
from icarus.claims.proposals import find_claims
from icarus.claims.satire import admit_satire_about_itself
from icarus.fetching import (
    ArchiveSource,
    BlockedURL,
    Capture,
    ExtractedPage,
    ExtractionError,
    FetchBudget,
    FetchError,
    SafeFetcher,
    SnapshotStore,
    capture_url,
    extract_page,
)
from icarus.judges import (
    Judge,
    JudgeRequest,
    judge_all,
    propose_self_evidence,
    to_attribution,
    to_claim_judgment,
)
from icarus.ledger import (
    Access,
    CapturedImage,
    Claim,
    ClaimJudgment,
    EvidenceItem,
    EvidenceRole,
    Ledger,
    ModelStep,
    QueryPlan,
    Subject,
)
from icarus.llm.assist import ModelAssist
from icarus.lookups import LookupRegistry, enrich
from icarus.pipeline.evidence import RetrievedDocument, build_evidence_item, evidence_id_for
from icarus.pipeline.recycled_media import with_recycled_images
from icarus.reports.drafts import attach_drafts
from icarus.reputation import Registry
from icarus.research import PlannedQuery, ProviderResult, SearchHit, SearchProvider
from icarus.research.query_plans import plan_for_claim
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.engine import score_ledger
from icarus.store import Store, VersionRef

Progress = Callable[[str], None]
DOCUMENTS_PER_QUERY = 10
_UNREADABLE = "no text to judge (page unreadable, no snippet)"
_UNREADABLE_REVIEW = (
    "fact check page unreadable; its search result holds only the claim it reviewed, which is not evidence"
)


@dataclass
class CheckServices:
    """The adapters one check runs on."""

    judge: Judge
    providers: Sequence[SearchProvider]
    registry: Registry
    snapshots: SnapshotStore
    policy: PolicyConfig
    store: Store | None = None
    fetcher: SafeFetcher | None = None  # None: no network; the subject's links are noted as not fetched
    archive: ArchiveSource | None = None  # stands in, labelled archived, when a page cannot be fetched (H24)
    ocr: OcrEngine | None = None  # None: attached images are not read
    second_ocr: OcrEngine | None = None
    lookups: LookupRegistry = field(
        default_factory=LookupRegistry
    )  # offline default: every look-up "not run"
    max_claims: int = 5
    max_queries: int = 24
    max_documents_per_claim: int = 12
    max_fetches: int = 40
    max_fetch_seconds: float = 120.0
    max_seconds: float = 120.0  # the whole check's time budget; searches past it are not run
    clock: Callable[[], float] = time.monotonic
    assist: ModelAssist | None = None  # None: no model proposes spans, implied claims, queries or drafts


@dataclass
class ProviderNote:
    provider: str
    query_kind: str
    status: str
    detail: str


@dataclass
class CheckOutput:
    subject: Subject
    ledger: Ledger
    result: dict[str, Any]
    version: VersionRef | None
    provider_notes: list[ProviderNote] = field(default_factory=list)
    link_notes: list[str] = field(default_factory=list)


def run_check(
    subject: Subject, services: CheckServices, now: datetime, progress: Progress | None = None
) -> CheckOutput:
    """Check every selected claim of ``subject`` as of ``now`` and record the result as a report version."""
    say = progress or (lambda _message: None)
    deadline = services.clock() + services.max_seconds
    link_notes: list[str] = []
    budget = FetchBudget(services.max_fetches, services.max_fetch_seconds)
    subject = _read_images(subject, services, budget, link_notes, say)
    say("finding claims")
    claim_set = find_claims(subject, services.max_claims, services.assist)
    return _check_claims(
        subject,
        claim_set.claims,
        claim_set.not_assessed,
        services,
        now,
        say,
        deadline,
        budget,
        link_notes,
        list(claim_set.steps),
    )


def check_claims(
    subject: Subject,
    claims: Sequence[Claim],
    services: CheckServices,
    now: datetime,
    progress: Progress | None = None,
) -> CheckOutput:
    """``run_check`` for claims already chosen (no extraction, no image reading): research, judge, score
    and record them as a check of ``subject`` does. The evaluation harness checks a dataset's claim this
    way, each as one whole claim."""
    say = progress or (lambda _message: None)
    deadline = services.clock() + services.max_seconds
    budget = FetchBudget(services.max_fetches, services.max_fetch_seconds)
    return _check_claims(subject, list(claims), [], services, now, say, deadline, budget, [])


def _check_claims(
    subject: Subject,
    selected: list[Claim],
    not_assessed: list[Claim],
    services: CheckServices,
    now: datetime,
    say: Progress,
    deadline: float,
    budget: FetchBudget,
    link_notes: list[str],
    steps: list[ModelStep] | None = None,
) -> CheckOutput:
    notes: list[ProviderNote] = []
    steps = list(steps or [])
    plans: list[QueryPlan] = []
    found: dict[str, EvidenceItem] = {}
    retrieved_for: dict[str, list[Claim]] = {}
    per_claim_budget = max(1, services.max_queries // max(1, len(selected)))

    say("reading what the post cites")
    cited = _cited_material(subject, services, now, link_notes, budget)
    claims = [_with_self_evidence(claim, cited) for claim in selected]
    for cited_item in cited:
        found[cited_item.evidence_id] = cited_item
        retrieved_for[cited_item.evidence_id] = list(claims)

    for claim in claims:
        say(f"researching: {claim.text[:60]}")
        hits = _research(claim, services, now, per_claim_budget, notes, deadline, plans, steps)
        for hit in hits[: services.max_documents_per_claim]:
            evidence_id = evidence_id_for(hit.url)
            if evidence_id not in found:
                item = _evidence_from_hit(hit, claim, services, now, budget)
                if item is None:
                    link_notes.append(f"{hit.url}: {_UNREADABLE_REVIEW if hit.review else _UNREADABLE}")
                    continue
                found[evidence_id] = item
            retrieved_for.setdefault(evidence_id, []).append(claim)

    say(f"judging {len(found)} evidence items")
    evidence = judge_all(
        services.judge,
        lambda judge, item: judge_evidence(item, retrieved_for[item.evidence_id], judge),
        list(found.values()),
    )
    evidence = admit_satire_about_itself(evidence, claims)
    evidence = with_recycled_images(
        subject,
        claims,
        evidence,
        services,
        lambda item, image_claims: judge_evidence(item, image_claims, services.judge),
        now,
        budget,
        link_notes,
    )
    ledger = Ledger(
        ledger_id=_ledger_id(subject, now),
        as_of=now,
        subject=subject,
        claims=[*claims, *not_assessed],
        evidence=sorted(evidence, key=lambda item: item.evidence_id),
        query_plans=plans,
        model_steps=steps,
    )
    say("looking up registrations and retraction notices")
    ledger = enrich(ledger, services.lookups, services.policy)
    say("scoring")
    result = score_ledger(ledger, services.policy)
    ledger, result = attach_drafts(ledger, result, services.assist, services.policy)
    version = None
    if services.store is not None:
        say("recording the report version")
        for item in ledger.evidence:
            if item.snapshot is not None:
                services.store.record_snapshot(
                    item.snapshot.ref,
                    item.url,
                    item.retrieved_at or now,
                    archived=item.snapshot.archived,
                    archive_url=item.snapshot.archive_url,
                )
        version = services.store.record_check(subject, ledger, result, reason="first")
    return CheckOutput(subject, ledger, result, version, notes, link_notes)


def _read_images(
    subject: Subject, services: CheckServices, budget: FetchBudget, notes: list[str], say: Progress
) -> Subject:
    """Read the text of attached still images (labelled "text read from image" in the report). Images that
    cannot be fetched or read are noted; their text is simply absent."""
    pending = [image for image in subject.images if image.url and not image.ocr_text]
    if not pending:
        return subject
    if services.fetcher is None or services.ocr is None:
        notes.extend(f"{image.url}: image not read (no network or OCR configured)" for image in pending)
        return subject
    second = (
        services.second_ocr if services.second_ocr is not None and services.second_ocr.available() else None
    )
    readings: list[CapturedImage] = []
    for image in pending:
        assert image.url is not None
        say(f"reading image {image.image_id}")
        try:
            captured = capture_url(
                image.url,
                fetcher=services.fetcher,
                store=services.snapshots,
                archive=services.archive,
                budget=budget,
            )
            readings.append(read_image(captured.result.body, image.image_id, image.url, services.ocr, second))
        except (FetchError, CaptureError, OcrEngineError) as exc:
            notes.append(f"{image.url}: {exc}")
    return attach_image_text(subject, readings) if readings else subject


def fetch_page(
    url: str,
    fetcher: SafeFetcher,
    snapshots: SnapshotStore,
    *,
    archive: ArchiveSource | None = None,
    budget: FetchBudget | None = None,
) -> tuple[Capture, ExtractedPage]:
    """Fetch and snapshot ``url`` (an archive copy standing in if configured) and extract its text.
    Raises ``FetchError`` or ``ExtractionError``."""
    captured = capture_url(url, fetcher=fetcher, store=snapshots, archive=archive, budget=budget)
    page = extract_page(captured.result.body, captured.result.content_type, captured.result.final_url)
    return captured, page


def _cited_material(
    subject: Subject, services: CheckServices, now: datetime, notes: list[str], budget: FetchBudget
) -> list[EvidenceItem]:
    """Snapshot every page the subject links (self-evidence comes first). Without a fetcher, or when a
    fetch fails, the link is noted and contributes nothing."""
    items: list[EvidenceItem] = []
    if not subject.cited_links:
        return items
    if services.fetcher is None:
        notes.extend(f"{link.url}: not fetched (no network configured)" for link in subject.cited_links)
        return items
    for position, link in enumerate(subject.cited_links, start=1):
        try:
            captured, page = fetch_page(
                link.url, services.fetcher, services.snapshots, archive=services.archive, budget=budget
            )
        except BlockedURL:
            notes.append(refused_link_note(position, len(subject.cited_links)))
            continue
        except (FetchError, ExtractionError) as exc:
            notes.append(f"{link.url}: {exc}")
            continue
        document = RetrievedDocument(
            url=link.url,
            title=page.title or "",
            text=page.text,
            publisher=page.publisher or "",
            published_at=page.published_at,
            links=page.links,
            scholarly=page.scholarly,
        )
        items.append(
            build_evidence_item(
                document,
                "",
                services.registry,
                captured.ref,
                now,
                EvidenceRole.CITED_BY_SUBJECT,
                page.links,
                archived=captured.meta.archived,
            )
        )
    return items


def refused_link_note(position: int, count: int) -> str:
    """What a check says about a cited link the fetch guard refused. It names the link by its place in
    the post only: neither the address nor what the guard found when it looked (a private address a name
    resolved to) is repeated, so the note cannot be used to probe the network the check runs in."""
    return (
        f"cited link {position} of {count} not read: the fetch guard refused it "
        "(only public http(s) addresses are fetched)"
    )


def _with_self_evidence(claim: Claim, cited: list[EvidenceItem]) -> Claim:
    """Attach proposed misrepresentations of the cited material; the scorer verifies each one (H20)."""
    findings = [f for item in cited for f in propose_self_evidence(claim.text, item.text, item.evidence_id)]
    return (
        claim.model_copy(update={"self_evidence": [*claim.self_evidence, *findings]}) if findings else claim
    )


def _ledger_id(subject: Subject, now: datetime) -> str:
    digest = hashlib.sha256(f"{subject.kind}:{subject.subject_id}:{now.isoformat()}".encode()).hexdigest()
    return f"check-{digest[:16]}"


def _research(
    claim: Claim,
    services: CheckServices,
    now: datetime,
    budget: int,
    notes: list[ProviderNote],
    deadline: float,
    plans: list[QueryPlan] | None = None,
    steps: list[ModelStep] | None = None,
) -> list[SearchHit]:
    """Every planned query on every provider; hits deduplicated by URL, best-ranked first.

    A provider that fails is noted as not run for this check and contributes nothing: a failed search is
    never evidence against a claim. Once the check's time budget is spent, the remaining searches are noted
    as not run and skipped.
    """
    ranked: dict[str, tuple[int, SearchHit]] = {}
    order = 0
    planned = plan_for_claim(claim, now, budget, services.assist)
    if plans is not None:
        plans.append(planned.plan)
    if steps is not None and planned.step is not None:
        steps.append(planned.step)
    for query in planned.queries:
        for provider in services.providers:
            if services.clock() >= deadline:
                name = getattr(provider, "name", type(provider).__name__)
                notes.append(ProviderNote(name, query.kind.value, "not_run", "check time budget spent"))
                continue
            result = _search(provider, query)
            notes.append(ProviderNote(result.provider, query.kind.value, result.status.value, result.detail))
            for hit in result.hits:
                if hit.url not in ranked:
                    ranked[hit.url] = (order, hit)
                    order += 1
    return [hit for _, hit in sorted(ranked.values(), key=lambda pair: pair[0])]


def _search(provider: SearchProvider, query: PlannedQuery) -> ProviderResult:
    try:
        return provider.search(query, DOCUMENTS_PER_QUERY)
    except Exception as exc:  # a provider must not take the check down with it
        return ProviderResult.error(
            getattr(provider, "name", type(provider).__name__), f"{type(exc).__name__}: {exc}"
        )


def _evidence_from_hit(
    hit: SearchHit, claim: Claim, services: CheckServices, now: datetime, budget: FetchBudget
) -> EvidenceItem | None:
    """An evidence item for a search hit. A hit without the document's text (a web search result) is
    fetched and snapshotted; if that cannot be done, the engine's snippet stands in and the item is marked
    snippet-only, which caps its directness (H28). None when there is nothing to judge, which is always the
    case for a fact check whose page cannot be read (``SearchHit.quotable_snippet``)."""
    if not hit.text and services.fetcher is not None:
        try:
            captured, page = fetch_page(
                hit.url, services.fetcher, services.snapshots, archive=services.archive, budget=budget
            )
        except (FetchError, ExtractionError):
            pass
        else:
            document = RetrievedDocument(
                url=hit.url,
                title=page.title or hit.title,
                text=page.text,
                publisher=page.publisher or hit.publisher,
                published_at=page.published_at or hit.published_at,
                links=page.links,
                scholarly=page.scholarly,
            )
            return build_evidence_item(
                document,
                claim.text,
                services.registry,
                captured.ref,
                now,
                EvidenceRole.RESEARCH,
                page.links,
                archived=captured.meta.archived,
            )
    text = hit.text or hit.quotable_snippet
    if not text.strip():
        return None  # nothing to anchor an excerpt in: not evidence (G3 would drop it anyway)
    document = RetrievedDocument(
        url=hit.url,
        title=hit.title,
        text=text,
        publisher=hit.publisher,
        published_at=hit.published_at,
        scholarly=hit.scholarly,
    )
    ref = services.snapshots.put(
        text.encode("utf-8"),
        {
            "url": hit.url,
            "final_url": hit.url,
            "content_type": "text/plain; charset=utf-8",
            "fetched_at": now,
        },
    )
    item = build_evidence_item(document, claim.text, services.registry, ref, now, EvidenceRole.RESEARCH)
    if not hit.text:
        item = item.model_copy(
            update={"flags": item.flags.model_copy(update={"access": Access.SNIPPET_ONLY})}
        )
    return item


def search_with(provider: SearchProvider, query: PlannedQuery) -> ProviderResult:
    """One query on one provider, as a check runs it: a provider that raises answers ``error``."""
    return _search(provider, query)


def evidence_from_hit(
    hit: SearchHit, claim: Claim, services: CheckServices, now: datetime, budget: FetchBudget
) -> EvidenceItem | None:
    """The evidence item a check makes of one search hit (fetched page, else its snippet); None when there
    is nothing to judge. Other front doors (the debate research methods) read hits this way."""
    return _evidence_from_hit(hit, claim, services, now, budget)


def judge_evidence(item: EvidenceItem, claims: Sequence[Claim], judge: Judge) -> EvidenceItem:
    """Ask the judge about the item against every claim it was retrieved for: one stance judgment per
    claim, and the item's attributions once. Checks and the evaluation harness both build ledgers this way."""
    judgments: list[ClaimJudgment] = []
    attributions = list(item.attributions)
    excerpt = item.excerpt.text if item.excerpt else ""
    seen: set[str] = set()
    for claim in claims:
        if claim.claim_id in seen:
            continue
        seen.add(claim.claim_id)
        request = JudgeRequest(
            claim_id=claim.claim_id,
            claim_text=checked_text(claim),
            evidence_id=item.evidence_id,
            excerpt=excerpt,
            evidence_text=item.text,
        )
        judgments.append(to_claim_judgment(judge.stance(request)))
        if len(seen) == 1:
            attributions.extend(to_attribution(verdict) for verdict in judge.attribution(request))
    return item.model_copy(update={"judgments": judgments, "attributions": attributions})
