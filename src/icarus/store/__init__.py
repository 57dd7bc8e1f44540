"""Storage: subjects, checks and append-only report versions in SQLite or PostgreSQL, with replay.

``Store(url).open()`` migrates the schema (Alembic, in code) and returns a repository with no update or
delete path for report versions. ``icarus.reports.replay.replay`` re-scores a stored version and compares its
trace byte for byte; it is not imported here, so using the store does not load the scoring engine. Nor are
the debate, model-result and EvidenceVerify tables (``debate_tables``, ``model_tables``): the code that uses
them imports them, and so does the Alembic environment, which compares revisions with ``Base.metadata``;
declaring them cost every ``icarus check`` a few hundredths of a second.
"""

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
