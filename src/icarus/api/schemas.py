"""The API's response shapes (request shapes live with the jobs: ``icarus.jobs.inputs.CheckInput``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field

from icarus.store.engine import storable

__all__ = [
    "CheckAccepted",
    "CheckList",
    "CheckStatusOut",
    "CorrectionIn",
    "Diagnostics",
    "PolicyOut",
    "PolicySummary",
    "RecheckIn",
    "RemovalIn",
    "RunAccepted",
    "ScheduledRun",
    "SnapshotOut",
    "TimelineOut",
    "VersionEntry",
    "VersionOut",
]


class CheckAccepted(BaseModel):
    id: str = Field(description="The check id; every other endpoint takes it.")
    state: str = Field(description="`queued` on acceptance.")
    links: dict[str, str] = Field(description="Where to read its status, report, page and event stream.")


class CheckStatusOut(BaseModel):
    id: str
    state: str = Field(description="queued, running, retrying, recorded, pending or failed.")
    state_reason: str | None = Field(
        description="Why retrying, pending or failed, e.g. `error`, `search_unavailable`."
    )
    detail: str | None = Field(description="A sentence saying why the check failed or waits.")
    input_kind: str = Field(description="text, url, post or payload.")
    post_id: str | None = Field(description="The X post the check is about, once known.")
    submitted_at: datetime
    updated_at: datetime
    latest_version: int | None
    label: str | None = Field(description="The latest version's overall label.")
    band: str | None
    next_run_at: datetime | None = Field(description="When the next scheduled run (recheck or retry) is due.")
    source_hidden: str | None = Field(description="Set when the source post was deleted or protected.")
    links: dict[str, str]


class CheckList(BaseModel):
    checks: list[CheckStatusOut]


class VersionEntry(BaseModel):
    version: int
    url: str = Field(description="The version's own page; it never changes.")
    created_at: datetime
    as_of: datetime
    policy: str
    label: str
    band: str
    reason: str = Field(description="first, recheck or correction.")
    what_changed: str = Field(description="What changed since the previous version, and why this one exists.")
    trace_hash: str


class ScheduledRun(BaseModel):
    run_key: str
    reason: str
    due_at: datetime
    state: str
    note: str | None
    outcome: str | None


class TimelineOut(BaseModel):
    id: str
    versions: list[VersionEntry]
    runs: list[ScheduledRun] = Field(
        description="Every run: done, scheduled (rechecks, retries) or cancelled."
    )


class VersionOut(BaseModel):
    id: str
    version: int
    url: str
    created_at: datetime
    as_of: datetime
    policy: str
    config_hash: str
    code_hash: str
    ledger_hash: str
    trace_hash: str
    label: str
    band: str
    reason: str
    what_changed: str
    source_hidden: str | None
    result: dict[str, Any] = Field(description="The published result, trace included.")


class SnapshotOut(BaseModel):
    ref: str
    url: str
    content_type: str | None
    fetched_at: datetime
    archived: bool
    archive_url: str | None


class PolicySummary(BaseModel):
    ref: str
    config_hash: str


class PolicyOut(BaseModel):
    ref: str
    config_hash: str
    methodology_markdown: str = Field(description="The methodology page, rendered from the config.")
    config: dict[str, Any]


# A NUL in a note is kept as U+FFFD, as the store keeps it in every other text (icarus.store.engine).
Note = Annotated[str, Field(max_length=2000), AfterValidator(storable)]


class RecheckIn(BaseModel):
    note: Note | None = Field(default=None, description="Why a recheck is wanted.")


class CorrectionIn(BaseModel):
    note: Note = Field(min_length=1, description="What is being corrected and why.")


class RunAccepted(BaseModel):
    id: str
    run_key: str


class RemovalIn(BaseModel):
    post_id: str = Field(pattern=r"^[0-9]{1,25}$", description="The X post found deleted or protected.")
    reason: str = Field(pattern=r"^(deleted|protected)$")


class WorkerOut(BaseModel):
    name: str = Field(description="host:pid:suffix of the worker process.")
    host: str
    pid: int
    started_at: datetime
    last_heartbeat: datetime
    seconds_since_heartbeat: float
    alive: bool = Field(description="It beat within three heartbeat intervals and has not stopped.")
    jobs_held: int
    stopped_at: datetime | None = None


class Diagnostics(BaseModel):
    database: str
    queue: str
    requests: dict[str, int]
    jobs: dict[str, int]
    due_now: int
    last_event_id: int
    reputation_files: list[str] = Field(
        default_factory=list, description="ICARUS_REPUTATION_FILES: the record files checks load."
    )
    review_queue: str = Field(default="", description="The H4 review queue file checks fill.")
    review_pending: int | None = Field(
        default=None, description="Items in the review queue waiting for a person; null if unreadable."
    )
    policy: str = Field(
        default="", description="ICARUS_POLICY: the policy a check without one is scored under."
    )
    judge: str = Field(default="", description="The judge checks use (ICARUS_LLM_* or ICARUS_OFFLINE_JUDGE).")
    workers: list[WorkerOut] = Field(
        default_factory=list, description="Worker processes, most recent heartbeat first."
    )
