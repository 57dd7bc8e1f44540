"""What the pages are rendered from: plain data that any caller (the API, a test, a script) can build.

Nothing here reads a database or the network. ``icarus.web.store_source`` builds these from an
``icarus.store.Store``; the API may build them any other way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Protocol

__all__ = ["Links", "OtherModelResult", "RecentCheck", "RecentDebate", "ReportPage", "VersionLike"]


class VersionLike(Protocol):
    """One line of a check's timeline. ``icarus.store.TimelineEntry`` has exactly this shape."""

    @property
    def version(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def as_of(self) -> datetime: ...
    @property
    def policy(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def band(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def what_changed(self) -> str: ...


@dataclass(frozen=True)
class ReportPage:
    """Everything one report page shows.

    ``result`` is a published result (``score_ledger`` output, trace included); ``ledger`` the evidence
    ledger it was scored from, as a dict (``Ledger.model_dump(mode="json")`` or a stored version's
    ``ledger()``) or ``None`` when only the result is at hand (claims are then shown without their place
    in the post). ``versions`` is the check's timeline, oldest first; ``version`` the one shown;
    ``previous_result`` the result of the version before it, for the per-claim diff. ``other_models``
    are the version's ledger under the other models the check asked for (a collapsed section). ``source_hidden``
    (a reason, e.g. "the post was deleted") hides the post's own words (claims, context, not-assessed
    text) while the conclusions, evidence and timeline stay.
    """

    result: Mapping[str, Any]
    ledger: Mapping[str, Any] | None = None
    check_id: str | None = None
    version: int | None = None
    versions: Sequence[VersionLike] = ()
    previous_result: Mapping[str, Any] | None = None
    source_hidden: str | None = None
    other_models: Sequence[OtherModelResult] = ()


@dataclass(frozen=True)
class OtherModelResult:
    """The same ledger under another model the check was asked to be scored under: one line per claim,
    each naming the model (``shown_as``, e.g. "LEANS_SUPPORTED: 0.86 under ledger-default@0.1.0")."""

    ref: str
    family: str
    lines: Sequence[tuple[str, str]]  # (claim id, shown_as)


@dataclass(frozen=True)
class RecentCheck:
    """One row of the dashboard. ``label``/``band``/``as_of`` are those of the latest version, if any."""

    check_id: str
    status: str
    created_at: datetime
    subject_kind: str
    subject_id: str
    latest_version: int | None = None
    label: str | None = None
    band: str | None = None
    as_of: datetime | None = None
    headline: str | None = None  # the first claim's text, for people scanning the list


@dataclass(frozen=True)
class RecentDebate:
    """One debate in the dashboard's list. ``status`` says where it stands in words ("Live", "Upload
    failed"); ``tone`` is its colour family (ok | warn | bad | unk), which repeats the words."""

    debate_id: str
    title: str
    status: str
    tone: str
    claim_count: int
    created_at: datetime
    url: str


@dataclass(frozen=True)
class Links:
    """URL templates the pages link to. The defaults match ``icarus.web.routes`` and the ``/v1`` API.

    ``{check_id}``, ``{version}``, ``{ref}`` and ``{policy}`` are filled in; everything else is literal.
    """

    dashboard: str = "/"
    report: str = "/checks/{check_id}"
    version: str = "/checks/{check_id}/versions/{version}"
    version_json: str = "/v1/checks/{check_id}/versions/{version}"
    model_json: str = "/v1/checks/{check_id}/versions/{version}/models/{ref}"
    snapshot: str = "/v1/snapshots/{ref}"
    methodology: str = "/methodology/{policy}"
    events: str = "/v1/events"

    @classmethod
    def under(cls, base_url: str) -> Links:
        """The default links made absolute under ``base_url``, for a page read outside the service (a file
        written by ``icarus check --html``): its links still reach the service that publishes the rest."""
        base = base_url.rstrip("/")
        defaults = cls()
        return cls(**{f.name: base + getattr(defaults, f.name) for f in fields(cls)})

    def report_url(self, check_id: str) -> str:
        return self.report.format(check_id=check_id)

    def version_url(self, check_id: str, version: int) -> str:
        return self.version.format(check_id=check_id, version=version)

    def version_json_url(self, check_id: str, version: int) -> str:
        return self.version_json.format(check_id=check_id, version=version)

    def model_json_url(self, check_id: str, version: int, ref: str) -> str:
        return self.model_json.format(check_id=check_id, version=version, ref=ref)

    def snapshot_url(self, ref: str) -> str:
        return self.snapshot.format(ref=ref)

    def methodology_url(self, policy: str) -> str:
        return self.methodology.format(policy=policy)
