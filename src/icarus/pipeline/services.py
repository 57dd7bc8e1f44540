"""Build a check's services from settings: the embedded default unless something else is configured."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from icarus.capture import capture_page
from icarus.capture.ocr import RapidOcrEngine
from icarus.capture.ocr_scale import RescaledEngine
from icarus.fetching import SafeFetcher, SnapshotStore, WaybackArchive
from icarus.judges import Judge, judge_from_settings
from icarus.ledger import Subject
from icarus.llm.assist import assist_from_settings
from icarus.lookups import registry_from_settings
from icarus.pipeline.check import CheckServices, fetch_page
from icarus.reputation.manual import default_registry
from icarus.research import configured_providers
from icarus.scoring.icarus.config import load_policy
from icarus.settings import Settings
from icarus.store import Store


def build_services(
    settings: Settings,
    *,
    policy_ref: str | None = None,
    reputation_files: Sequence[Path] = (),
    record: bool = True,
    judge: Callable[[], Judge] | None = None,
) -> CheckServices:
    """The services of one check. Its registry loads ``settings.reputation_files`` and then
    ``reputation_files`` (``icarus check --reputation``), in that order. ``judge``: gives the judge when one
    is already being built (``judges.background``); otherwise ``judge_from_settings`` builds it here."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = None
    if record:
        store = Store(settings.resolved_database_url)
        store.open()
    fetcher = SafeFetcher() if settings.fetch_cited_links else None
    archive_url = settings.resolved_archive_url  # none offline
    archive = WaybackArchive(archive_url, fetcher) if archive_url and fetcher else None
    snapshots = SnapshotStore(settings.data_dir / "snapshots")
    policy = load_policy(policy_ref or settings.policy)
    ocr = RapidOcrEngine()
    return CheckServices(
        judge=judge() if judge is not None else judge_from_settings(settings),
        providers=configured_providers(settings),
        registry=default_registry(*settings.reputation_files, *reputation_files),
        snapshots=snapshots,
        policy=policy,
        store=store,
        fetcher=fetcher,
        archive=archive,
        lookups=registry_from_settings(settings, snapshots, fetcher=fetcher, archive=archive, policy=policy),
        ocr=ocr,
        # G2's second reading: the same engine on the image redrawn at another scale (capture/ocr_scale.py).
        second_ocr=RescaledEngine(ocr),
        max_claims=settings.check_max_claims,
        max_queries=settings.check_max_queries,
        max_fetches=settings.check_max_fetches,
        max_fetch_seconds=settings.check_max_seconds,
        max_seconds=settings.check_max_seconds,
        assist=assist_from_settings(settings),
    )


def check_reputation_files(settings: Settings) -> None:
    """Read ``ICARUS_REPUTATION_FILES`` once, so that a process that will run checks (the worker, the X
    bot) refuses to start on a file it cannot read instead of failing every check. Raises
    ``RegistryFileError`` naming the file."""
    default_registry(*settings.reputation_files)


def capture_web_page(url: str, fetcher: SafeFetcher, snapshots: SnapshotStore) -> tuple[Subject, str]:
    """Fetch a URL under the SSRF guard, snapshot it and capture its text as the subject."""
    captured, page = fetch_page(url, fetcher, snapshots)
    subject = capture_page(url, page.text, page.title, captured.meta.fetched_at, page.links)
    return subject, captured.ref
