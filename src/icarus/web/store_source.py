"""Report pages read from an ``icarus.store.Store``: the ``load_report`` callable the router takes."""

from __future__ import annotations

from icarus.store import Store
from icarus.web.model import RecentCheck, ReportPage
from icarus.web.routes import ReportLoader

__all__ = ["store_report_loader"]


def store_report_loader(store: Store) -> ReportLoader:
    """``load_report`` for ``create_web_router``: the version asked for (latest when ``None``), the check's
    timeline and the previous version's result; a check with no version yet gives its ``RecentCheck``."""

    def load(check_id: str, version: int | None) -> ReportPage | RecentCheck:
        if version is None:
            summary = store.check(check_id)  # NotFound for an unknown check
            if summary.latest_version is None:
                return RecentCheck(
                    check_id=summary.check_id,
                    status=str(summary.status),
                    created_at=summary.created_at,
                    subject_kind=summary.subject_kind,
                    subject_id=summary.subject_id,
                )
            version = summary.latest_version
        stored = store.version(check_id, version)
        previous = store.version(check_id, version - 1).result() if version > 1 else None
        return ReportPage(
            result=stored.result(),
            ledger=stored.ledger(),
            check_id=check_id,
            version=stored.version,
            versions=store.versions(check_id),
            previous_result=previous,
        )

    return load
