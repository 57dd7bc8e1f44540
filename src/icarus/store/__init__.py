"""Storage: subjects, checks and append-only report versions in SQLite or PostgreSQL, with replay.

``Store(url).open()`` migrates the schema (Alembic, in code) and returns a repository with no update or
delete path for report versions. ``icarus.reports.replay.replay`` re-scores a stored version and compares its
trace byte for byte; it is not imported here, so using the store does not load the scoring engine.
"""

import icarus.store.debate_tables  # puts the debate tables on Base.metadata
import icarus.store.model_tables  # noqa: F401  (and the model-result and EvidenceVerify tables)
from icarus.store.changes import what_changed
from icarus.store.migrate import migrate
from icarus.store.repository import (
    CheckSummary,
    NotFound,
    SnapshotInfo,
    Store,
    StoreConflict,
    StoredVersion,
    TimelineEntry,
    VersionRef,
    version_path,
)
from icarus.store.tables import CheckStatus, Reason
from icarus.store.workers import WorkerInfo, WorkerRegistry

__all__ = [
    "CheckStatus",
    "CheckSummary",
    "NotFound",
    "Reason",
    "SnapshotInfo",
    "Store",
    "StoreConflict",
    "StoredVersion",
    "TimelineEntry",
    "VersionRef",
    "WorkerInfo",
    "WorkerRegistry",
    "migrate",
    "version_path",
    "what_changed",
]
