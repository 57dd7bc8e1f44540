"""The H4 review queue: estimated reputations that could change a label, waiting for a person.

Under icarus@1.1 a scored claim carries ``review_requests`` when an estimated (heuristic) reputation could
flip its label. :func:`enqueue_from_result` appends one queue item per request to a JSON-lines file (default
``Settings().resolved_review_queue_path``, ``<data dir>/review-queue.jsonl``); every path that scores
(``icarus check``, the worker, the X bot, and on request ``icarus score`` and ``icarus eval``) calls it. The
file is append-only: an item is never edited; a review appends a resolution line that resolves every pending
item for that domain. Writers on one machine (several worker processes and threads, the X bot, a review)
take an exclusive lock on ``<queue>.lock`` around each append, and around the read that decides what is
new, so two checks never queue one domain twice and a failed write is cut back without touching a line
another writer added.

:func:`accept` (the reviewer keeps the estimated score) and :func:`override` (a different score) write a
new *manual* record version to a registry file. The version is one more than the highest manual version of
that domain on file (registry file or its history); the record it replaces is appended to the history
sidecar ``<registry>.history.jsonl`` first, so no version is ever lost. The record is filed before the
queue item is resolved; when the resolution line cannot be written, a re-run of the same review recognises
the filed version and only resolves the item. Malformed queue lines are reported
(:attr:`QueueState.problems`), never fatal.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from icarus.jsonlines import json_error_reason
from icarus.ledger import Ledger, ReputationMethod, ReputationRecord, SourceClass, SourceTier
from icarus.reputation.history import history_path, read_history
from icarus.reputation.importers import cut_back, write_registry
from icarus.reputation.registry import (
    RegistryEntry,
    RegistryFileError,
    domain_of,
    load_registry,
    registry_key,
)
from icarus.settings import Settings

__all__ = [
    "QueueItem",
    "QueueState",
    "ReviewError",
    "accept",
    "default_queue_path",
    "enqueue_from_result",
    "history_path",
    "lock_path",
    "override",
    "pending",
    "read_queue",
]

REQUEST = "request"
RESOLUTION = "resolution"

if sys.platform == "win32":
    import msvcrt

    def _lock_exclusive(descriptor: int) -> None:
        msvcrt.locking(descriptor, msvcrt.LK_LOCK, 1)  # the lock file's first byte; waits, then OSError

else:
    import fcntl

    def _lock_exclusive(descriptor: int) -> None:
        fcntl.flock(descriptor, fcntl.LOCK_EX)


class ReviewError(ValueError):
    """A review that cannot be applied (no pending item for the domain, wrong command for the score)."""


@dataclass(frozen=True)
class QueueItem:
    domain: str
    evidence_id: str
    claim_id: str
    cluster_id: str
    ledger_id: str
    reason: str
    estimate: ReputationRecord
    source_class: SourceClass
    queued_at: datetime

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.ledger_id, self.claim_id, self.evidence_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": REQUEST,
            "domain": self.domain,
            "evidence_id": self.evidence_id,
            "claim_id": self.claim_id,
            "cluster_id": self.cluster_id,
            "ledger_id": self.ledger_id,
            "reason": self.reason,
            "estimate": self.estimate.model_dump(mode="json"),
            "source_class": self.source_class.value,
            "queued_at": self.queued_at.isoformat(),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> QueueItem:
        return cls(
            domain=str(raw["domain"]),
            evidence_id=str(raw["evidence_id"]),
            claim_id=str(raw["claim_id"]),
            cluster_id=str(raw["cluster_id"]),
            ledger_id=str(raw["ledger_id"]),
            reason=str(raw["reason"]),
            estimate=ReputationRecord.model_validate(raw["estimate"]),
            source_class=SourceClass(str(raw["source_class"])),
            queued_at=_aware(datetime.fromisoformat(str(raw["queued_at"]))),
        )


@dataclass
class QueueState:
    """The queue as read: items still pending, items resolved (with their resolution), unreadable lines."""

    pending: list[QueueItem] = field(default_factory=list)
    resolved: list[tuple[QueueItem, dict[str, Any]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def default_queue_path() -> Path:
    return Settings().resolved_review_queue_path


def lock_path(queue_path: Path) -> Path:
    """The file whose exclusive lock every writer of ``queue_path`` holds while it appends."""
    return queue_path.with_name(queue_path.name + ".lock")


@contextlib.contextmanager
def _locked(queue_path: Path) -> Iterator[None]:
    """Hold the queue's write lock (``flock`` on ``<queue>.lock``; a byte lock on Windows): one writer at a
    time, across threads and processes on this machine. Not re-entrant: code holding it appends with :func:`_append_held`."""
    queue_path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(lock_path(queue_path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _lock_exclusive(descriptor)
        yield
    finally:
        os.close(descriptor)  # closing the descriptor releases the lock


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _append(path: Path, lines: list[dict[str, Any]]) -> None:
    """Append ``lines`` under the queue's lock."""
    if not lines:
        return
    with _locked(path):
        _append_held(path, lines)


def _append_held(path: Path, lines: list[dict[str, Any]]) -> None:
    """Append ``lines``, all or none, while holding the lock: a failed write (a full disk) is cut back, so
    no half line is left for the next append to run on into (the lock makes sure nobody appended since)."""
    if not lines:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    size = path.stat().st_size if path.exists() else None
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    except BaseException:
        with contextlib.suppress(OSError):
            cut_back(path, size)
        raise


def read_queue(queue_path: Path) -> QueueState:
    """Replay the append-only queue. A line that cannot be read is reported in ``problems`` and skipped."""
    state = QueueState()
    if not queue_path.exists():
        return state
    open_items: dict[tuple[str, str, str], QueueItem] = {}
    for number, text in enumerate(queue_path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
            if not isinstance(raw, dict):
                raise ValueError("not a JSON object")
            kind = raw.get("kind")
            if kind == REQUEST:
                queued = QueueItem.from_json(raw)
                open_items.setdefault(queued.key, queued)
            elif kind == RESOLUTION:
                domain = str(raw["domain"])
                for key, queued in list(open_items.items()):
                    if queued.domain == domain:
                        state.resolved.append((queued, raw))
                        del open_items[key]
            else:
                raise ValueError(f"unknown kind {kind!r}")
        except (ValueError, KeyError, TypeError, ValidationError, RecursionError) as exc:
            # RecursionError: JSON nested deeper than the parser goes; ValueError covers an over-long integer
            first = json_error_reason(exc).splitlines()[0] if str(exc) else type(exc).__name__
            state.problems.append(f"{queue_path}:{number}: malformed queue line skipped ({first})")
    state.pending = list(open_items.values())
    return state


@dataclass
class _ReadSoFar:
    """How far this process has read one queue file, and the domains pending at that point."""

    identity: tuple[int, int]  # (device, inode): a file replaced under the same name is read again whole
    offset: int
    domains: dict[str, int]  # domain -> pending items for it


_read_so_far: dict[Path, _ReadSoFar] = {}


def _pending_domains(queue_path: Path) -> dict[str, int]:
    """The domains with a pending item, reading only what was appended since this process last looked (the
    queue is append-only; a worker that enqueues after every check would otherwise replay the whole file
    each time). Call it holding the lock. Lines are judged exactly as ``read_queue`` judges them."""
    key = queue_path.resolve()
    if not queue_path.exists():
        _read_so_far.pop(key, None)
        return {}
    status = queue_path.stat()
    identity = (status.st_dev, status.st_ino)
    known = _read_so_far.get(key)
    if known is None or known.identity != identity or status.st_size < known.offset:
        known = _read_so_far[key] = _ReadSoFar(identity, 0, {})
    with queue_path.open("rb") as handle:
        handle.seek(known.offset)
        appended = handle.read()
    complete = appended[: appended.rfind(b"\n") + 1]  # a line still being written is read next time
    for text in complete.decode("utf-8").splitlines():
        try:
            raw = json.loads(text) if text.strip() else None
            if not isinstance(raw, dict):
                continue
            if raw.get("kind") == REQUEST:
                domain = QueueItem.from_json(raw).domain
                known.domains[domain] = known.domains.get(domain, 0) + 1
            elif raw.get("kind") == RESOLUTION:
                known.domains.pop(str(raw["domain"]), None)
        except (ValueError, KeyError, TypeError, ValidationError, RecursionError):
            continue  # read_queue reports it; it is not pending
    known.offset += len(complete)
    return known.domains


def pending(queue_path: Path) -> list[QueueItem]:
    """Items not yet resolved, in the order they were queued."""
    return read_queue(queue_path).pending


def enqueue_from_result(
    result: Mapping[str, Any], ledger: Ledger, queue_path: Path, now: datetime | None = None
) -> list[QueueItem]:
    """Append one item per review request in a scored result; the items appended.

    ``ledger`` is the ledger ``result`` was scored from: its evidence carries the reputation records of the
    registry that scoring used, and the estimate queued is that record. A person reviews a domain, not a
    check: a domain that already has a pending item is not queued again, however many checks (or claims,
    or processes at once) ask for it. A result with no requests neither reads nor locks the queue.
    """
    moment = _aware(now or datetime.now(UTC))
    evidence = {e.evidence_id: e for e in ledger.evidence}
    wanted: list[QueueItem] = []
    for claim in result.get("claims", []):
        for request in claim.get("review_requests", []):
            source = evidence.get(str(request["evidence_id"]))
            if source is None:
                raise ReviewError(f"review request names evidence {request['evidence_id']!r}, not in ledger")
            wanted.append(
                QueueItem(
                    domain=registry_key(source.reputation.domain or source.domain),
                    evidence_id=source.evidence_id,
                    claim_id=str(claim["id"]),
                    cluster_id=str(request.get("cluster_id", "")),
                    ledger_id=ledger.ledger_id,
                    reason=str(request.get("reason", "")),
                    estimate=source.reputation,
                    source_class=source.source_class,
                    queued_at=moment,
                )
            )
    if not wanted:
        return []
    with _locked(queue_path):  # what is pending and what is appended, as one step
        already = set(_pending_domains(queue_path))
        added: list[QueueItem] = []
        for queued in wanted:
            if queued.domain not in already:
                already.add(queued.domain)
                added.append(queued)
        _append_held(queue_path, [i.to_json() for i in added])
    return added


def _manual_versions(domain: str, registry_out: Path) -> list[int]:
    versions: list[int] = []
    records: list[ReputationRecord] = []
    if registry_out.exists():
        current = load_registry(registry_out).entries.get(domain)
        if current is not None:
            records.append(current.record)
    records.extend(replaced.record for replaced in read_history(registry_out, domain))
    for record in records:
        if record.domain == domain and record.method is ReputationMethod.MANUAL and record.version.isdigit():
            versions.append(int(record.version))
    return versions


def _filed_unresolved(
    existing: list[RegistryEntry], decided: RegistryEntry, queue: QueueState, registry_out: Path
) -> RegistryEntry | None:
    """The domain's registry entry when an earlier run of this same review filed it and then failed to mark
    the queue item resolved (the registry is written first, the resolution line after): that entry is this
    decision (same reviewer, score, tier and class) and no resolution in the queue names its version.
    Filing again would add a second version for one decision."""
    new = decided.record
    resolved = {
        str(raw.get("version"))
        for item, raw in queue.resolved
        if item.domain == new.domain and raw.get("registry") == str(registry_out)
    }
    for entry in existing:
        old = entry.record
        if (
            old.domain == new.domain
            and old.method is ReputationMethod.MANUAL
            and (old.produced_by, old.score, old.tier) == (new.produced_by, new.score, new.tier)
            and entry.source_class is decided.source_class
            and old.version not in resolved
        ):
            return entry
    return None


def _resolve(
    action: str,
    queue_path: Path,
    domain: str,
    score: Decimal | None,
    tier: SourceTier | None,
    reviewer_role: str,
    registry_out: Path,
    now: datetime | None,
) -> RegistryEntry:
    key = domain_of(domain)
    queue = read_queue(queue_path)
    items = [i for i in queue.pending if i.domain == key]
    if not items:
        raise ReviewError(f"no pending review for domain {key!r} in {queue_path}")
    role = reviewer_role.strip()
    if not role:
        raise ReviewError("a review needs a reviewer role (--reviewer)")
    estimate = items[0].estimate
    chosen = estimate.score if score is None else score
    if action == "accept" and chosen != estimate.score:
        raise ReviewError(
            f"accept keeps the estimate {estimate.score} for {key}; use override for score {chosen}"
        )
    if action == "override" and chosen == estimate.score:
        raise ReviewError(f"override needs a score other than the estimate {estimate.score}; use accept")
    moment = _aware(now or datetime.now(UTC))
    try:
        existing = list(load_registry(registry_out).entries.values()) if registry_out.exists() else []
        version = max(_manual_versions(key, registry_out), default=0) + 1
        record = ReputationRecord(
            domain=key,
            score=chosen,
            tier=tier or estimate.tier,
            method=ReputationMethod.MANUAL,
            produced_by=f"reviewer:{role}",
            version=str(version),
            recorded_at=moment,
        )
    except ValidationError as exc:
        raise ReviewError(f"invalid review for {key}: {exc.errors()[0]['msg']}") from exc
    except RegistryFileError as exc:
        raise ReviewError(str(exc)) from exc
    entry = RegistryEntry(record, items[0].source_class)
    filed = _filed_unresolved(existing, entry, queue, registry_out)
    if filed is not None:
        entry, record = filed, filed.record  # resolve the item with the version already filed
    else:
        replaced = [e for e in existing if e.record.domain == key]
        write_registry(
            [*(e for e in existing if e.record.domain != key), entry], registry_out, replaced, moment
        )
    _append(
        queue_path,
        [
            {
                "kind": RESOLUTION,
                "domain": key,
                "action": action,
                "score": str(chosen),
                "tier": record.tier.value,
                "reviewer": role,
                "version": record.version,
                "registry": str(registry_out),
                "resolved_at": moment.isoformat(),
            }
        ],
    )
    return entry


def accept(
    queue_path: Path,
    domain: str,
    score: Decimal | None,
    tier: SourceTier | None,
    reviewer_role: str,
    registry_out: Path,
    now: datetime | None = None,
) -> RegistryEntry:
    """Keep the estimated score: a new manual record version for the domain, and the queue item resolved."""
    return _resolve("accept", queue_path, domain, score, tier, reviewer_role, registry_out, now)


def override(
    queue_path: Path,
    domain: str,
    score: Decimal,
    tier: SourceTier | None,
    reviewer_role: str,
    registry_out: Path,
    now: datetime | None = None,
) -> RegistryEntry:
    """Replace the estimate with a reviewed score: a new manual record version, and the item resolved."""
    return _resolve("override", queue_path, domain, score, tier, reviewer_role, registry_out, now)
