"""Running checks as jobs: submit, run (first runs, rechecks, retries, corrections), dispatch, repair.

The database is the source of truth for what should run and when (``jobs``); the queue (huey) only makes
it run soon. A job is leased before it runs, and its version is recorded together with its run key in one
transaction, so a job may run twice (a worker died, a message was delivered twice) but a run never
records two versions and never half a version. The clock is injected; nothing here sleeps.

Leases are short and renewed by the worker's heartbeat (``heartbeat``) while a job runs, so the jobs of a
worker that died run again within a lease and a heartbeat. Writes are fenced: a worker records a version,
closes a job, holds a check pending for a search retry or marks it failed only while its own lease (the
job's attempt number) still holds, so a worker cut off from the database past its lease and reconnected
changes nothing that another worker now owns.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from sqlalchemy.exc import SQLAlchemyError

from icarus.jobs.announce import announce_everywhere
from icarus.jobs.inputs import CaptureFailed, CheckInput, capture_subject, validate_input
from icarus.jobs.schedule import (
    CORRECTION_PREFIX,
    FIRST_RUN,
    RECHECK_PREFIX,
    REQUESTED_PREFIX,
    SEARCH_RETRY_PREFIX,
    describe_run,
    missed_collapsed,
    recheck_slots,
    recheck_triggers,
    search_retry_slot,
    search_unavailable,
)
from icarus.ledger import CheckHistory, Ledger, PriorRun, ReputationMethod, Subject, SubjectKind
from icarus.pipeline.check import CheckOutput, CheckServices, run_check
from icarus.reputation.review import enqueue_from_result
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.settings import Settings
from icarus.store import NotFound, Reason, Store, changes
from icarus.store.service import RETRY_REASON, JobInfo, LeaseLost, ServiceStore
from icarus.store.tables import RequestState

__all__ = ["Clock", "Enqueue", "JobRunner", "RunnerConfig", "ServicesFactory", "settings_services"]

log = logging.getLogger("icarus.jobs")

Clock = Callable[[], datetime]
ServicesFactory = Callable[[str | None], CheckServices]
Enqueue = Callable[[str, str], None]
Announce = Callable[[str, int, dict[str, Any]], object]

SEARCH_UNAVAILABLE: Final = "search_unavailable"


@dataclass(frozen=True)
class RunnerConfig:
    """How long a worker may hold a job, when to retry after failures, and how many times."""

    lease: timedelta = timedelta(seconds=15)
    search_retry_minutes: tuple[int, ...] = (10, 30, 120)
    max_attempts: int = 3
    error_backoff: timedelta = timedelta(minutes=2)

    @classmethod
    def from_settings(cls, settings: Settings) -> RunnerConfig:
        return cls(
            lease=timedelta(seconds=settings.job_lease_s),
            search_retry_minutes=tuple(settings.search_retry_minutes),
            max_attempts=settings.job_max_attempts,
        )


def _utc_now() -> datetime:
    return datetime.now(UTC)


class JobRunner:
    """Everything a worker does, callable from tests with a fake clock and fake services."""

    def __init__(
        self,
        store: Store,
        services: ServicesFactory,
        *,
        config: RunnerConfig | None = None,
        clock: Clock = _utc_now,
        enqueue: Enqueue | None = None,
        settings: Settings | None = None,
        announce: Announce | None = None,
    ) -> None:
        self.settings = settings or Settings()
        # Told of every later version (recheck, correction); by default every installed announcer
        # (``jobs.announce``), among them the X bot's follow-up, which posts only where the bot answered
        # about the check and the four-label conclusion changed.
        self.announce: Announce = announce or self._announce_installed
        self.store = store
        self.service = ServiceStore(store)
        self.services = services
        self.config = config or RunnerConfig()
        self.clock = clock
        self.enqueue = enqueue
        # Queues a job handed back from a stopped worker ahead of the others, where the queue can.
        self.enqueue_first: Enqueue | None = None
        # The jobs this runner leases now (job id -> the attempt it leased), renewed by ``heartbeat``; and
        # those whose lease moved on meanwhile, whose run must stop without writing.
        self._held: dict[int, int] = {}
        self._lost: set[int] = set()
        self._held_lock = threading.Lock()
        # Jobs that failed while the database was down, so that handing them back failed too: given back
        # at the next dispatch that reaches the database, instead of waiting out their lease.
        self._unreleased: dict[int, tuple[datetime, str, int]] = {}
        self._unreleased_lock = threading.Lock()

    # --- accepting work --------------------------------------------------------------------------------

    def submit(self, request: CheckInput) -> str:
        """Accept a check and queue its first run; returns the check id. Raises ``CaptureFailed``."""
        now = self._now()
        post_id = validate_input(request, now)
        check_id = uuid.uuid4().hex
        self.service.submit(
            check_id, request.kind.value, request.stored(), policy=request.policy, post_id=post_id, now=now
        )
        self._kick(check_id, FIRST_RUN)
        return check_id

    def request_run(self, check_id: str, *, correction: bool, note: str | None) -> str:
        """Queue an extra run of a recorded check (a requested recheck or a correction); its run key."""
        self.service.request(check_id)  # NotFound for checks the service never received (e.g. `icarus check`)
        try:
            self.store.latest(check_id)
        except NotFound:  # the check exists (queued, say) but has nothing yet to recheck or correct
            state = self._request_state(check_id).value
            raise NotFound(f"check {check_id!r} has no version yet (it is {state})") from None
        prefix = CORRECTION_PREFIX if correction else REQUESTED_PREFIX
        run_key = f"{prefix}{uuid.uuid4().hex[:12]}"
        reason = Reason.CORRECTION if correction else Reason.RECHECK
        self.service.schedule(check_id, run_key, reason.value, self._now(), self._now(), note=note)
        self._kick(check_id, run_key)
        return run_key

    # --- running ---------------------------------------------------------------------------------------

    def run(self, check_id: str, run_key: str) -> str:
        """Run one job if it is runnable now; returns what happened, in a few words."""
        now = self._now()
        job = self.service.claim(check_id, run_key, now, self.config.lease)
        if job is None:
            return "not runnable (not due, finished, or held by another worker)"
        with self._held_lock:
            self._held[job.id] = job.attempts
        try:
            return self._run_leased(job, now)
        finally:
            with self._held_lock:
                self._held.pop(job.id, None)
                self._lost.discard(job.id)

    def held(self) -> dict[int, int]:
        """The jobs this runner leases now: job id -> the attempt it leased."""
        with self._held_lock:
            return dict(self._held)

    def heartbeat(self) -> list[JobInfo]:
        """Renew the leases of the jobs running here, and hand out again the jobs whose lease ran out (their
        worker stopped); returns those. Called every few seconds by the worker's heartbeat thread."""
        now = self._now()
        lost = self.service.renew(self.held(), now, self.config.lease)
        with self._held_lock:
            lost &= self._held.keys()  # not a run that finished (and closed its job) since the snapshot
            self._lost |= lost
        if lost:
            log.warning("lease moved on for job(s) %s; their runs here will record nothing", sorted(lost))
        reclaimed = self.service.reclaim_expired(now)
        for job in reclaimed:
            log.warning("job %s/%s: its worker's lease ran out; queued again", job.check_id, job.run_key)
            self._kick_first(job.check_id, job.run_key)
        return reclaimed

    def hand_back_held(self, outcome: str) -> int:
        """Give every job still running here back to the schedule, due now, and queue it (the worker is
        stopping); the runs still going will record nothing. Returns how many were handed back."""
        now = self._now()
        handed = 0
        for job_id, attempts in sorted(self.held().items()):
            with self._held_lock:
                self._lost.add(job_id)
            if self.service.hand_back(job_id, attempts, now, outcome):
                handed += 1
                job = self.service.job_by_id(job_id)
                self._kick_first(job.check_id, job.run_key)
        return handed

    def _run_leased(self, job: JobInfo, now: datetime) -> str:
        check_id, run_key = job.check_id, job.run_key
        try:
            outcome = self._execute(job, now)
        except LeaseLost as exc:
            log.warning("job %s/%s: %s; nothing recorded", check_id, run_key, exc)
            return f"lease moved on: nothing recorded ({exc})"
        except Exception as exc:  # a bug or an outage must not lose the job: retry, then give up loudly
            # The error itself (SQL, parameters, paths, a traceback) goes to the log only; what the API
            # shows of it is a sentence in words.
            attempts = self.config.max_attempts
            log.exception("job %s/%s failed (attempt %d of %d)", check_id, run_key, job.attempts, attempts)
            error = f"{type(exc).__name__}: {exc}"
            if job.attempts < attempts:
                due_at = self._now() + self.config.error_backoff * job.attempts
                detail = _retry_detail(job.attempts, attempts, due_at)
                if not self._give_back(job, due_at, detail):
                    return f"error, will retry once the database answers: {error}"
                return f"error, will retry: {error}"
            detail = _gave_up_detail(attempts)
            if not self.service.finish(job.id, self._now(), detail, attempts=job.attempts):
                return f"lease moved on: {error}"
            if self._request_state(check_id) is not RequestState.RECORDED:
                self.service.set_state(
                    check_id, RequestState.FAILED, self._now(), reason=RETRY_REASON, detail=detail
                )
            return f"gave up: {error}"
        if not self.service.finish(job.id, self._now(), outcome, attempts=job.attempts):
            return f"lease moved on before the job was closed: {outcome}"
        return outcome

    def dispatch_due(self) -> int:
        """Hand every runnable job to the queue (or run it here when there is no queue)."""
        self._give_back_pending()
        due = self.service.due(self._now())
        for job in due:
            self._kick(job.check_id, job.run_key)
        return len(due)

    def prune_events(self) -> int:
        """Delete events older than the retention setting; how many went."""
        cutoff = self._now() - timedelta(days=self.settings.event_retention_days)
        pruned = self.service.prune_events(cutoff)
        log.info("pruned %d event(s) recorded before %s", pruned, cutoff.isoformat())
        return pruned

    def repair(self) -> int:
        """Make sure every recorded check has the rechecks its latest version calls for. Idempotent."""
        added = 0
        now = self._now()
        for check_id in self.service.recorded_checks():
            try:
                latest = self.store.latest(check_id)
            except NotFound:
                continue
            added += self._plan_rechecks(check_id, latest.result(), now)
        return added

    # --- internals -------------------------------------------------------------------------------------

    def _now(self) -> datetime:
        return self.clock().astimezone(UTC).replace(microsecond=0)

    def _give_back(self, job: JobInfo, due_at: datetime, detail: str) -> bool:
        """Return a failed job to the schedule; False (and remembered) when the database cannot be reached."""
        try:
            self.service.release(job.id, due_at, detail, attempts=job.attempts, retrying_since=self._now())
        except SQLAlchemyError:
            log.warning("job %d could not be given back; retrying at the next dispatch", job.id)
            with self._unreleased_lock:
                self._unreleased[job.id] = (due_at, detail, job.attempts)
            return False
        return True

    def _give_back_pending(self) -> None:
        with self._unreleased_lock:
            pending = dict(self._unreleased)
        for job_id, (due_at, detail, attempts) in sorted(pending.items()):
            # raises while the database is still down; a job another worker has claimed since is left alone
            self.service.release(job_id, due_at, detail, attempts=attempts, retrying_since=self._now())
            with self._unreleased_lock:
                self._unreleased.pop(job_id, None)

    def _still_leased(self, job: JobInfo) -> None:
        """Stop a run whose lease moved on (the heartbeat found it taken, or the worker is stopping)."""
        with self._held_lock:
            lost = job.id in self._lost
        if lost:
            raise LeaseLost(f"job {job.id}: the lease of attempt {job.attempts} has moved on")

    def _fence(self, job: JobInfo) -> None:
        """Before a write outside the version's own transaction: raise ``LeaseLost`` unless this run's lease
        still holds in the database, extending it by a full lease. The heartbeat may not have noticed yet
        that the lease moved on (a worker cut off from the database past its lease, then reconnected)."""
        if self.service.renew({job.id: job.attempts}, self._now(), self.config.lease):
            with self._held_lock:
                self._lost.add(job.id)
            raise LeaseLost(f"job {job.id}: the lease of attempt {job.attempts} has moved on")

    def _kick(self, check_id: str, run_key: str) -> None:
        if self.enqueue is not None:
            self.enqueue(check_id, run_key)

    def _kick_first(self, check_id: str, run_key: str) -> None:
        if self.enqueue_first is not None:
            self.enqueue_first(check_id, run_key)
        else:
            self._kick(check_id, run_key)

    def _request_state(self, check_id: str) -> RequestState:
        return self.service.request(check_id).state

    def _execute(self, job: JobInfo, now: datetime) -> str:
        check_id, run_key = job.check_id, job.run_key
        done = self.service.run_version(check_id, run_key)
        if done is not None:  # recorded before the worker that ran it stopped: finish its bookkeeping
            self._after_version(check_id, done, now)
            return f"already recorded as version {done}"
        request = self.service.request(check_id)
        first_kind = run_key == FIRST_RUN or run_key.startswith(SEARCH_RETRY_PREFIX)
        if request.state is not RequestState.RECORDED:
            self.service.set_state(check_id, RequestState.RUNNING, now)
        services = self.services(request.policy)
        try:
            subject = self._subject(check_id, request.input, request.policy, first_kind, now, services)
        except CaptureFailed as exc:
            if request.state is RequestState.RECORDED:
                return f"not rechecked: {exc}"
            self._fence(job)
            self.service.set_state(check_id, RequestState.FAILED, now, reason=exc.reason, detail=exc.detail)
            return f"capture failed: {exc}"
        self.store.open_check(subject, check_id)

        def progress(message: str) -> None:
            self._still_leased(job)
            self.service.add_event(check_id, "progress", {"message": message, "run": run_key}, self._now())

        output = run_check(subject, services, now, progress=progress)
        for note in output.link_notes:  # cited links not read, and why (a refused one without its address)
            progress(note)
        if search_unavailable(note.status for note in output.provider_notes):
            held = self._search_unavailable(job, request.state, now)
            if held is not None:
                return held
        return self._record(job, subject, output, services, now)

    def _subject(
        self,
        check_id: str,
        stored_input: dict[str, Any],
        policy: str | None,
        first_kind: bool,
        now: datetime,
        services: CheckServices,
    ) -> Subject:
        """First runs capture the input; later runs recheck the subject exactly as first captured."""
        if not first_kind:
            try:
                return Ledger.model_validate(self.store.latest(check_id).ledger()).subject
            except NotFound:
                pass
        request = CheckInput.model_validate({**stored_input, "policy": policy})
        return capture_subject(request, now, self.settings, services.snapshots)

    def _search_unavailable(self, job: JobInfo, state: RequestState, now: datetime) -> str | None:
        """Hold the check pending and schedule a retry; None when the last retry has passed (record)."""
        if state is RequestState.RECORDED:
            return "search unavailable: not rechecked, the latest version stands"
        slot = search_retry_slot(job.run_key, now, self.config.search_retry_minutes)
        if slot is None:
            return None
        self._fence(job)  # a run cut off from the database past its lease must not schedule a retry
        self.service.schedule(job.check_id, slot.run_key, Reason.FIRST.value, slot.due_at, now)
        self.service.set_state(
            job.check_id,
            RequestState.PENDING,
            now,
            reason=SEARCH_UNAVAILABLE,
            detail=f"every search failed; next try at {slot.due_at.isoformat()}",
        )
        return f"{SEARCH_UNAVAILABLE}: retry {slot.run_key} at {slot.due_at.isoformat()}"

    def _record(
        self, job: JobInfo, subject: Subject, output: CheckOutput, services: CheckServices, now: datetime
    ) -> str:
        check_id = job.check_id
        history = self._history(check_id)
        ledger = output.ledger.model_copy(update={"history": history})
        # The pipeline scored a first run; a later run is scored again with its history (G6 reads it).
        result = output.result if history == CheckHistory() else score_ledger(ledger, services.policy)
        for item in ledger.evidence:
            if item.snapshot is not None:
                self.store.record_snapshot(
                    item.snapshot.ref,
                    item.url,
                    item.retrieved_at or now,
                    archived=item.snapshot.archived,
                    archive_url=item.snapshot.archive_url,
                )
        try:
            previous: dict[str, Any] | None = self.store.latest(check_id).result()
        except NotFound:
            previous = None
        why = describe_run(job.run_key, len(self.config.search_retry_minutes), job.note)
        if previous is None and search_unavailable(n.status for n in output.provider_notes):
            why += "; search still unavailable, recorded with the evidence at hand"
        summary = f"{why}: {changes.what_changed(previous, result)}"
        reason = (
            Reason.FIRST
            if previous is None
            else Reason.CORRECTION
            if job.run_key.startswith(CORRECTION_PREFIX)
            else Reason.RECHECK
        )
        ref = self.store.record_check(
            subject,
            ledger,
            result,
            reason,
            summary,
            check_id=check_id,
            run_key=job.run_key,
            guard=self.service.lease_guard(job.id, job.attempts),
        )
        self._after_version(check_id, ref.version, now)
        return (
            f"recorded version {ref.version}" if ref.created else f"already recorded as version {ref.version}"
        )

    def _after_version(self, check_id: str, version: int, now: datetime) -> None:
        stored = self.store.version(check_id, version)
        ledger = Ledger.model_validate(stored.ledger())
        subject = ledger.subject
        post_id = subject.subject_id if subject.kind is SubjectKind.X_POST else None
        recorded_at = (
            self._now()
        )  # the check was updated when its version was recorded, not when the run began
        # Once per (check, version), even when a worker died after announcing and before closing its job.
        self.service.recorded(
            check_id,
            stored.version,
            {
                "url_path": stored.url_path,
                "as_of": stored.as_of.isoformat(),
                "label": stored.label,
                "band": stored.band,
                "reason": stored.reason.value,
                "what_changed": stored.what_changed,
                "scored_with": self._scored_with(ledger, stored.policy, stored.config_hash),
            },
            recorded_at,
            post_id=post_id,
        )
        self._plan_rechecks(check_id, self.store.latest(check_id).result(), now)
        self._queue_reviews(check_id, stored.version, stored.result(), ledger)
        if stored.version > 1:
            try:
                self.announce(check_id, stored.version, stored.result())
            except Exception:  # a failed announcement must never undo or repeat a recorded version
                log.exception("announcing version %s of check %s failed", stored.version, check_id)

    def _scored_with(self, ledger: Ledger, policy: str, config_hash: str) -> dict[str, Any]:
        """What a version was scored with, as its ledger and result record it: the policy, the judges
        that answered, and how many sources' reputations were on file (the service's record files and the
        shipped ones) or only estimated (H4)."""
        judges = sorted(
            {
                f"{judgment.stance.judge.provider}@{judgment.stance.judge.version}"
                for item in ledger.evidence
                for judgment in item.judgments
            }
        )
        methods = [item.reputation.method for item in ledger.evidence]
        estimated = sum(1 for method in methods if method is ReputationMethod.HEURISTIC)
        return {
            "policy": policy,
            "config_hash": config_hash,
            "judges": judges,
            "reputation_files": [str(path) for path in self.settings.reputation_files],
            "reputation_on_file": len(methods) - estimated,
            "reputation_estimated": estimated,
        }

    def _queue_reviews(self, check_id: str, version: int, result: dict[str, Any], ledger: Ledger) -> None:
        """H4: queue the recorded version's review requests (estimates that could change its label) for a
        person. The version's ledger carries the records of the registry it was scored with. Run again for
        a version recorded before its worker stopped: a domain already pending is not queued twice. A queue
        that cannot be written is logged; the recorded version stands."""
        path = self.settings.resolved_review_queue_path
        try:
            queued = enqueue_from_result(result, ledger, path, self._now())
        except Exception:
            log.exception("review queue %s not written for version %s of check %s", path, version, check_id)
            return
        if queued:
            log.info(
                "check %s version %s: %d estimated reputation(s) queued for review in %s",
                check_id,
                version,
                len(queued),
                path,
            )

    def _announce_installed(self, check_id: str, version: int, result: dict[str, Any]) -> object:
        return announce_everywhere(check_id, version, result, self.settings)

    def _plan_rechecks(self, check_id: str, latest_result: dict[str, Any], now: datetime) -> int:
        """Schedule the remaining recheck slots while the latest version calls for them; else cancel them."""
        triggers = recheck_triggers(latest_result)
        if not triggers:
            self.service.cancel(check_id, RECHECK_PREFIX, now)
            return 0
        started = self.store.versions(check_id)[0].as_of
        offsets = load_policy(str(latest_result["policy"])).gates.recheck_offsets_minutes
        taken = {job.run_key for job in self.service.jobs(check_id)}
        added = 0
        for slot in missed_collapsed(recheck_slots(started, offsets), now, taken):
            note = "triggers: " + ", ".join(triggers)
            added += self.service.schedule(
                check_id, slot.run_key, Reason.RECHECK.value, slot.due_at, now, note
            )
        return added

    def _history(self, check_id: str) -> CheckHistory:
        """The check's earlier runs, for G6 (an ongoing claim decides only when two runs agree)."""
        try:
            timeline = self.store.versions(check_id)
        except NotFound:
            return CheckHistory()
        if not timeline:
            return CheckHistory()
        runs = []
        for entry in timeline:
            result = self.store.version(check_id, entry.version).result()
            labels = {
                str(claim["id"]): claim["scored_label"]
                for claim in result.get("claims", [])
                if "scored_label" in claim
            }
            runs.append(PriorRun(as_of=entry.as_of, scored_labels=labels))
        return CheckHistory(started_at=timeline[0].as_of, prior_runs=runs)


def _retry_detail(attempt: int, attempts: int, due_at: datetime) -> str:
    return (
        f"attempt {attempt} of {attempts} failed with an internal error (the worker's log has it); "
        f"the next attempt is at {due_at.isoformat()}"
    )


def _gave_up_detail(attempts: int) -> str:
    return f"all {attempts} attempts failed with an internal error (the worker's log has it); this run recorded nothing"


def settings_services(settings: Settings) -> ServicesFactory:
    """Services built from settings, once per thread and policy (adapters are not shared across threads)."""
    local = threading.local()

    def factory(policy: str | None) -> CheckServices:
        from icarus.pipeline.services import build_services

        cache: dict[str | None, CheckServices] = local.__dict__.setdefault("services", {})
        if policy not in cache:
            cache[policy] = build_services(settings, policy_ref=policy, record=False)
        return cache[policy]

    return factory
