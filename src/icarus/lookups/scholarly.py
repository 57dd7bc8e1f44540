"""H16 live look-ups: Crossref update notices and the Retraction Watch list, for an item's DOI.

Crossref (REST API, ``GET <base>/works/<doi>``): a notice record (the retraction or correction itself)
carries ``message["update-to"]``, pointing back at the DOI it updates; the updated work carries
``message["updated-by"]`` listing the notices about it (``{"DOI", "type", "source", "updated": {...}}``).
So the notices *about* the item are its ``updated-by`` entries, plus any ``update-to`` entry that names the
item's own DOI. ``update-to`` entries naming other DOIs only say the item *is* a notice; they are reported
in the detail and never make the item retracted. When the work has no ``updated-by`` list, the adapter asks
``GET <base>/works?filter=updates:<doi>`` for notices that point at it. The work's own ``type`` is kept
as the result's ``publication_type`` for H17 (``journal-article``; ``posted-content``, Crossref's type for
preprints; ``report``).

Retraction Watch: a CSV export read once into a DOI index. Two shapes are read: the short export
(``doi,retractionwatch`` with natures joined by ``;``) and the full database export (``OriginalPaperDOI``,
``RetractionNature``, ``RetractionDate``). A "Reinstatement" nature is not an update type; it is reported
in the detail and the other notices stand.

Every adapter answers a LookupResult and never raises.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from icarus.ledger import (
    EvidenceItem,
    LookupName,
    LookupResult,
    LookupStatus,
    PublicationType,
    ScholarlyUpdate,
    UpdateType,
)
from icarus.ledger.identifiers import normalize_doi
from icarus.lookups.reachability import Reachability
from icarus.remote import parse_json, read_capped

if TYPE_CHECKING:
    import httpx

__all__ = [
    "CrossrefUpdatesLookup",
    "RetractionWatchLookup",
    "ScholarlyUpdatesLookup",
    "normalize_doi",
    "update_type",
    "work_type",
]

DEFAULT_TIMEOUT_S = 15.0

_TYPE_ALIASES: Mapping[str, UpdateType] = {
    "retraction": UpdateType.RETRACTION,
    "retracted": UpdateType.RETRACTION,
    "partial_retraction": UpdateType.PARTIAL_RETRACTION,
    "withdrawal": UpdateType.WITHDRAWAL,
    "withdrawn": UpdateType.WITHDRAWAL,
    "removal": UpdateType.REMOVAL,
    "removed": UpdateType.REMOVAL,
    "expression_of_concern": UpdateType.EXPRESSION_OF_CONCERN,
    "concern": UpdateType.EXPRESSION_OF_CONCERN,
    "correction": UpdateType.CORRECTION,
    "erratum": UpdateType.ERRATUM,
    "corrigendum": UpdateType.CORRIGENDUM,
}


def update_type(value: object) -> UpdateType | None:
    """A Crossref update type or Retraction Watch nature folded to what H16 acts on; None if it is not one."""
    if not isinstance(value, str):
        return None
    key = value.strip().lower().replace("-", "_").replace(" ", "_")
    return _TYPE_ALIASES.get(key)


def _crossref_date(value: object) -> datetime | None:
    if not isinstance(value, dict):
        return None
    stamp = value.get("date-time")
    if isinstance(stamp, str):
        try:
            parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
        except ValueError:
            pass
    parts = value.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        try:
            ymd = [int(p) for p in parts[0]] + [1, 1]
            return datetime(ymd[0], ymd[1], ymd[2], tzinfo=UTC)
        except (TypeError, ValueError):
            return None
    return None


def _dedupe(updates: Iterable[ScholarlyUpdate]) -> list[ScholarlyUpdate]:
    seen: set[tuple[str, str, str | None]] = set()
    out: list[ScholarlyUpdate] = []
    for u in updates:
        key = (u.update_type.value, u.source, u.doi)
        if key not in seen:
            seen.add(key)
            out.append(u)
    return out


# Crossref work types H17 reads (``posted-content`` is Crossref's type for preprints); others say nothing.
_WORK_TYPES: Mapping[str, PublicationType] = {
    "journal-article": PublicationType.JOURNAL_ARTICLE,
    "posted-content": PublicationType.PREPRINT,
    "report": PublicationType.REPORT,
}


def work_type(work: Mapping[str, Any]) -> PublicationType | None:
    """A Crossref work's ``type`` as H17 reads it: journal article, preprint (posted content) or report."""
    kind = work.get("type")
    return _WORK_TYPES.get(kind) if isinstance(kind, str) else None


def _result(
    provider: str,
    status: LookupStatus,
    detail: str,
    updates: list[ScholarlyUpdate] | None = None,
    publication_type: PublicationType | None = None,
) -> LookupResult:
    return LookupResult(
        name=LookupName.SCHOLARLY_UPDATES,
        status=status,
        provider=provider,
        observed_at=datetime.now(UTC),
        updates=updates or [],
        publication_type=publication_type,
        detail=detail[:300],
    )


class CrossrefUpdatesLookup:
    """Crossref update notices for an item's DOI. ``base_url`` is a parameter so tests can use a local server."""

    provider = "crossref@1"

    def __init__(
        self,
        base_url: str = "https://api.crossref.org",
        mailto: str | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        client: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.mailto = mailto
        self._reach = Reachability(f"Crossref at {self.base_url}")
        self._client = client
        self._timeout_s = timeout_s

    def _http(self) -> httpx.Client:
        """The HTTP client, made (and httpx imported) for the first request: an item without a DOI needs none."""
        if self._client is None:
            import httpx

            agent = "Icarus-lookup/1" + (f" (mailto:{self.mailto})" if self.mailto else "")
            self._client = httpx.Client(
                timeout=httpx.Timeout(self._timeout_s), follow_redirects=True, headers={"User-Agent": agent}
            )
        return self._client

    @property
    def name(self) -> LookupName:
        return LookupName.SCHOLARLY_UPDATES

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def lookup(self, item: EvidenceItem) -> LookupResult:
        try:
            return self._lookup(item)
        except Exception as exc:  # the protocol: failures are results, never exceptions
            return _result(
                self.provider, LookupStatus.ERROR, f"crossref look-up failed: {type(exc).__name__}: {exc}"
            )

    def _get_message(self, path: str, params: dict[str, str]) -> tuple[int, Any]:
        if self.mailto:
            params = {**params, "mailto": self.mailto}
        # Streamed and capped: an endless answer is a malformed reply, not a worker out of memory.
        with self._http().stream("GET", f"{self.base_url}{path}", params=params or None) as response:
            if response.status_code != 200:
                return response.status_code, None
            body = read_capped(response)
        payload = parse_json(body)  # AnswerError, a ValueError, on junk
        if not isinstance(payload, dict) or not isinstance(payload.get("message"), dict):
            raise ValueError("Crossref reply has no 'message' object")
        return 200, payload["message"]

    def _lookup(self, item: EvidenceItem) -> LookupResult:
        doi = normalize_doi(item.doi)
        if doi is None:
            return _result(self.provider, LookupStatus.NOT_RUN, "no DOI")
        down = self._reach.down()
        if down is not None:
            return _result(self.provider, LookupStatus.NOT_RUN, down)
        import httpx

        try:
            status, work = self._get_message(f"/works/{quote(doi, safe='/')}", {})
        except (httpx.TimeoutException, httpx.NetworkError) as exc:
            return _result(self.provider, LookupStatus.NOT_RUN, self._reach.failed(exc))
        except httpx.HTTPError as exc:
            return _result(
                self.provider, LookupStatus.ERROR, f"crossref request for {doi} failed: {type(exc).__name__}"
            )
        except ValueError as exc:
            return _result(self.provider, LookupStatus.ERROR, f"malformed Crossref reply for {doi}: {exc}")
        if status == 404:
            return _result(self.provider, LookupStatus.OK, f"{doi} is not registered with Crossref")
        if status != 200:
            return _result(self.provider, LookupStatus.ERROR, f"crossref answered HTTP {status} for {doi}")

        updates: list[ScholarlyUpdate] = []
        notes: list[str] = []
        updated_by = work.get("updated-by")
        for entry in updated_by if isinstance(updated_by, list) else []:
            if isinstance(entry, dict) and (kind := update_type(entry.get("type"))) is not None:
                updates.append(
                    ScholarlyUpdate(
                        update_type=kind,
                        source="crossref",
                        doi=doi,
                        noticed_at=_crossref_date(entry.get("updated")),
                    )
                )
        update_to = work.get("update-to")
        for entry in update_to if isinstance(update_to, list) else []:
            if not isinstance(entry, dict) or (kind := update_type(entry.get("type"))) is None:
                continue
            target = normalize_doi(str(entry.get("DOI", "")))
            if target == doi:
                updates.append(
                    ScholarlyUpdate(
                        update_type=kind,
                        source="crossref",
                        doi=doi,
                        noticed_at=_crossref_date(entry.get("updated")),
                    )
                )
            else:
                notes.append(f"this work is a {kind.value} notice for {target}")

        if not isinstance(updated_by, list):
            try:
                status, listing = self._get_message("/works", {"filter": f"updates:{doi}", "rows": "20"})
            except (httpx.TimeoutException, httpx.NetworkError) as exc:
                return _result(self.provider, LookupStatus.NOT_RUN, self._reach.failed(exc))
            except (httpx.HTTPError, ValueError) as exc:
                return _result(
                    self.provider,
                    LookupStatus.ERROR,
                    f"crossref notice search for {doi} failed: {type(exc).__name__}",
                )
            if status != 200:
                return _result(
                    self.provider, LookupStatus.ERROR, f"crossref notice search answered HTTP {status}"
                )
            found = listing.get("items", [])
            for notice in found if isinstance(found, list) else []:
                entries = notice.get("update-to", []) if isinstance(notice, dict) else []
                for entry in entries if isinstance(entries, list) else []:
                    if not isinstance(entry, dict) or normalize_doi(str(entry.get("DOI", ""))) != doi:
                        continue
                    if (kind := update_type(entry.get("type"))) is not None:
                        updates.append(
                            ScholarlyUpdate(
                                update_type=kind,
                                source="crossref",
                                doi=doi,
                                noticed_at=_crossref_date(entry.get("updated")),
                            )
                        )

        updates = _dedupe(updates)
        summary = ", ".join(sorted({u.update_type.value for u in updates})) or "no update notices"
        registered = work_type(work)
        if registered is not None:
            notes.append(f"registered as {work.get('type')}")
        detail = "; ".join([f"{doi}: {summary}", *notes])
        return _result(self.provider, LookupStatus.OK, detail, updates, registered)


_DOI_COLUMNS = ("doi", "originalpaperdoi")
_NATURE_COLUMNS = ("retractionwatch", "retractionnature")
_DATE_COLUMNS = ("retractiondate",)


def _rw_date(value: str | None) -> datetime | None:
    if not value or not value.strip():
        return None
    text = value.strip().split(" ")[0]
    for fmt in ("%m/%d/%Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


class RetractionWatchLookup:
    """Retraction Watch notices for an item's DOI, from a CSV export read once (lazily) and never written."""

    def __init__(self, csv_path: str | Path) -> None:
        self.csv_path = Path(csv_path)
        self._index: dict[str, list[ScholarlyUpdate]] | None = None
        self._reinstated: set[str] = set()
        self._load_error: str | None = None

    @property
    def name(self) -> LookupName:
        return LookupName.SCHOLARLY_UPDATES

    @property
    def provider(self) -> str:
        return f"retraction_watch@{self.csv_path.name}"

    def _load(self) -> dict[str, list[ScholarlyUpdate]]:
        index: dict[str, list[ScholarlyUpdate]] = {}
        with self.csv_path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = {c.strip().lower(): c for c in reader.fieldnames or []}
            doi_col = next((columns[c] for c in _DOI_COLUMNS if c in columns), None)
            nature_col = next((columns[c] for c in _NATURE_COLUMNS if c in columns), None)
            date_col = next((columns[c] for c in _DATE_COLUMNS if c in columns), None)
            if doi_col is None or nature_col is None:
                raise ValueError(f"no DOI or nature column in {sorted(columns)}")
            for row in reader:
                doi = normalize_doi(row.get(doi_col))
                if doi is None:
                    continue
                noticed = _rw_date(row.get(date_col)) if date_col else None
                for part in (row.get(nature_col) or "").split(";"):
                    if part.strip().lower() == "reinstatement":
                        self._reinstated.add(doi)
                    elif (kind := update_type(part)) is not None:
                        index.setdefault(doi, []).append(
                            ScholarlyUpdate(
                                update_type=kind, source="retraction_watch", doi=doi, noticed_at=noticed
                            )
                        )
        return {doi: _dedupe(updates) for doi, updates in index.items()}

    def lookup(self, item: EvidenceItem) -> LookupResult:
        try:
            doi = normalize_doi(item.doi)
            if doi is None:
                return _result(self.provider, LookupStatus.NOT_RUN, "no DOI")
            if self._index is None and self._load_error is None:
                try:
                    self._index = self._load()
                except (OSError, ValueError, csv.Error) as exc:
                    self._load_error = f"Retraction Watch list unreadable: {type(exc).__name__}: {exc}"
            if self._index is None:
                return _result(self.provider, LookupStatus.ERROR, self._load_error or "not loaded")
            updates = self._index.get(doi, [])
            summary = ", ".join(sorted({u.update_type.value for u in updates})) or "not on the list"
            if doi in self._reinstated:
                summary += "; a reinstatement is also recorded"
            return _result(self.provider, LookupStatus.OK, f"{doi}: {summary}", list(updates))
        except Exception as exc:  # the protocol: failures are results, never exceptions
            return _result(self.provider, LookupStatus.ERROR, f"retraction watch look-up failed: {exc}")


class ScholarlyUpdatesLookup:
    """Crossref and Retraction Watch together: one SCHOLARLY_UPDATES result with both sources' notices.

    ``ok`` when at least one source answered ok (a failed source is named in the detail); ``not_run`` when
    neither ran; ``error`` when every source that ran failed.
    """

    def __init__(
        self,
        crossref: CrossrefUpdatesLookup | None = None,
        retraction_watch: RetractionWatchLookup | None = None,
    ) -> None:
        self.sources = [s for s in (crossref, retraction_watch) if s is not None]

    @property
    def name(self) -> LookupName:
        return LookupName.SCHOLARLY_UPDATES

    @property
    def provider(self) -> str:
        return "+".join(s.provider for s in self.sources) or "scholarly@none"

    def lookup(self, item: EvidenceItem) -> LookupResult:
        try:
            if not self.sources:
                return _result(self.provider, LookupStatus.NOT_RUN, "no scholarly source configured")
            results = [source.lookup(item) for source in self.sources]
            statuses = {r.status for r in results}
            if LookupStatus.OK in statuses:
                status = LookupStatus.OK
            elif statuses == {LookupStatus.NOT_RUN}:
                status = LookupStatus.NOT_RUN
            else:
                status = LookupStatus.ERROR
            updates = _dedupe(u for r in results if r.status is LookupStatus.OK for u in r.updates)
            kind = next((r.publication_type for r in results if r.publication_type is not None), None)
            detail = " | ".join(f"{r.provider} {r.status.value}: {r.detail}" for r in results)
            return _result(self.provider, status, detail, updates, kind)
        except Exception as exc:  # the protocol: failures are results, never exceptions
            return _result(self.provider, LookupStatus.ERROR, f"scholarly look-up failed: {exc}")
