"""Dataset importers for the reputation registry: one pure function per dataset kind.

Each importer reads one file in its published format and returns an :class:`ImportResult`: registry entries
(method ``dataset``, ``produced_by`` = ``<kind>@<file date or sha256 prefix>``, ``version`` = the file's
sha256 prefix) plus every row it skipped, with the reason. A malformed row is skipped and counted, never
fatal; a file that is not in the expected format at all raises :class:`ImportFormatError`.

Values come from the policy's ``reputation`` section, never from this module:

- ``lin2023`` (Lin et al. 2023, ``domain_pc1.csv``): pc1 in [0, 1] is the score; tier ``other``.
- ``perennial`` (Wikipedia perennial sources): "generally reliable" -> ``generally_reliable``;
  "no consensus" -> ``no_consensus``; "generally unreliable" -> ``generally_unreliable_cap`` and
  ``RiskRating.GENERALLY_UNRELIABLE``; "deprecated" or "blacklisted" -> ``RiskRating.DEPRECATED`` (excluded
  by H5) at the same cap. A source with several statuses takes the worst.
- ``ifcn`` (IFCN signatories): tier and class ``fact_checker`` at ``ifcn_signatory``.
- ``opensources``: only the satire tag is imported (class ``satire``, which carries no weight, H6); other
  tags are skipped with that reason.
- ``misinfo-list`` (AVeriTeC): ``RiskRating.GENERALLY_UNRELIABLE`` at the cap.
- ``iffy`` (Iffy-style list, same shape as misinfo-list): ``on_iffy_index`` and the same rating and cap,
  so the cap holds even where the policy's Iffy exclusion (H5.iffy) is not live.
- ``dotgov`` (the CISA .gov registry): class and tier ``primary_official``; federal, state and tribal bodies at
  ``primary_official``, local ones at ``generally_reliable`` (:func:`import_dotgov`).
- ``universities`` (world universities list): class and tier ``scholarly`` at ``no_consensus``.

A perennial-sources row lists pages about a source on other sites beside its own domains (a catalogue
search, a YouTube channel, a Wikidata item); a URL with a query, a fragment or two or more path segments is
skipped with that reason, so those hosts are not rated for someone else's source.

Domains are normalised to the registered domain (the key :meth:`Registry.lookup` uses). A subdomain of a
shared host (``x.wordpress.com``) keeps its full name: folding it would mark the whole host.

Several datasets naming one domain are merged by :func:`icarus.reputation.merge.merge_entries` (re-exported
here): a per-field precedence in which risk flags win over baselines and can only lower a score, and nothing
raises a score above the baseline (no badge, follower count or engagement figure is read at all).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from urllib.parse import urlsplit

from icarus.jsonlines import json_error_reason
from icarus.ledger import ReputationMethod, ReputationRecord, RiskRating, SourceClass, SourceTier
from icarus.reputation.entry import RegistryEntry, source_name
from icarus.reputation.history import append_history, history_path
from icarus.reputation.merge import PRECEDENCE, RISK_ORDER, is_flag, merge_entries
from icarus.reputation.registry import dump_entries, registry_key
from icarus.scoring.icarus.config import ReputationBaseline, load_policy

__all__ = [
    "IMPORTERS",
    "KINDS",
    "PRECEDENCE",
    "ImportFormatError",
    "ImportResult",
    "RegistryUpdate",
    "Skipped",
    "cut_back",
    "import_dotgov",
    "import_file",
    "import_ifcn",
    "import_iffy",
    "import_lin2023",
    "import_misinfo_list",
    "import_opensources",
    "import_perennial",
    "import_universities",
    "merge_entries",
    "merge_registries",
    "normalise_domain",
    "update_registry",
    "write_registry",
]

DEFAULT_POLICY_REF = "icarus@1.1"
KINDS = ("lin2023", "perennial", "ifcn", "opensources", "misinfo-list", "iffy", "dotgov", "universities")

_HOST_CHARS = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$")
_FILE_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
_RISK_ORDER = RISK_ORDER


class ImportFormatError(ValueError):
    """The file is not in the expected format at all (as opposed to one malformed row)."""


@dataclass(frozen=True)
class Skipped:
    row: int
    reason: str
    raw: str = ""


@dataclass
class ImportResult:
    kind: str
    produced_by: str
    version: str
    entries: list[RegistryEntry] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def skip_reasons(self) -> Counter[str]:
        return Counter(s.reason for s in self.skipped)


def normalise_domain(raw: str) -> str:
    """The registered domain of a domain, host or URL; ``ValueError`` with the reason when there is none."""
    if not raw.strip().strip('"').strip():
        raise ValueError("empty domain")
    host = _host_of(raw)
    if not _HOST_CHARS.match(host):
        raise ValueError("not a domain name")
    return registry_key(host)


def _host_of(raw: str) -> str:
    text = raw.strip().strip('"').strip().lower()
    host = (urlsplit(text if "://" in text else f"//{text}").hostname or "").strip(".")
    return host[4:] if host.startswith("www.") else host


def _file_identity(kind: str, data: bytes, path: Path) -> tuple[str, str]:
    digest = hashlib.sha256(data).hexdigest()[:12]
    date = _FILE_DATE.search(path.name)
    return f"{kind}@{date.group(1) if date else digest}", digest


def _values(reputation: ReputationBaseline | None) -> ReputationBaseline:
    return reputation if reputation is not None else load_policy(DEFAULT_POLICY_REF).reputation


class _Builder:
    """Collects entries for one import; a repeated domain is merged (worst flag wins) and counted."""

    def __init__(self, kind: str, path: Path, recorded_at: datetime | None) -> None:
        data = path.read_bytes()
        self.text = data.decode("utf-8-sig", errors="replace")
        produced_by, version = _file_identity(kind, data, path)
        self.result = ImportResult(kind, produced_by, version)
        self.recorded_at = recorded_at
        self._by_domain: dict[str, RegistryEntry] = {}
        self._exact: set[str] = set()

    def skip(self, row: int, reason: str, raw: object = "") -> None:
        self.result.skipped.append(Skipped(row, reason, str(raw)[:200]))

    def add(
        self,
        row: int,
        raw_domain: object,
        score: Decimal,
        *,
        tier: SourceTier = SourceTier.OTHER,
        source_class: SourceClass = SourceClass.NEWS,
        risk: RiskRating | None = None,
        iffy: bool = False,
        note: str | None = None,
    ) -> None:
        if not isinstance(raw_domain, str):
            self.skip(row, "domain is not text", raw_domain)
            return
        try:
            domain = normalise_domain(raw_domain)
        except ValueError as exc:
            self.skip(row, str(exc), raw_domain)
            return
        record = ReputationRecord(
            domain=domain,
            score=score,
            tier=tier,
            method=ReputationMethod.DATASET,
            produced_by=self.result.produced_by,
            version=self.result.version,
            recorded_at=self.recorded_at,
            risk_rating=risk,
            on_iffy_index=iffy,
        )
        entry = RegistryEntry(record, source_class, note=note)
        exact = _host_of(raw_domain) == domain
        earlier = self._by_domain.get(domain)
        if earlier is not None:
            self.skip(row, "duplicate domain (merged with an earlier row)", raw_domain)
            if is_flag(earlier.record) or is_flag(record) or source_class is SourceClass.SATIRE:
                entry = _merge_same_source(earlier, entry)
            elif not exact or domain in self._exact:
                # Baseline rows: the row for the registered domain itself beats a folded subdomain row.
                entry = earlier
        if exact:
            self._exact.add(domain)
        self._by_domain[domain] = entry

    def finish(self) -> ImportResult:
        self.result.entries = sorted(self._by_domain.values(), key=lambda e: e.record.domain)
        return self.result


def _merge_same_source(a: RegistryEntry, b: RegistryEntry) -> RegistryEntry:
    worse = b if _RISK_ORDER[b.record.risk_rating] > _RISK_ORDER[a.record.risk_rating] else a
    record = worse.record.model_copy(
        update={
            "score": min(a.record.score, b.record.score),
            "on_iffy_index": a.record.on_iffy_index or b.record.on_iffy_index,
        }
    )
    satire = SourceClass.SATIRE in (a.source_class, b.source_class)
    return RegistryEntry(record, SourceClass.SATIRE if satire else worse.source_class)


def _csv_rows(text: str, required: Iterable[str]) -> csv.DictReader[str]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise ImportFormatError(f"missing column(s) {', '.join(missing)}; header is {reader.fieldnames}")
    return reader


def import_lin2023(
    path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    """Lin et al. 2023 ``domain_pc1.csv`` (columns ``domain, pc1``): pc1 in [0, 1] becomes the score."""
    b = _Builder("lin2023", path, recorded_at)
    for row_no, row in enumerate(_csv_rows(b.text, ("domain", "pc1")), start=2):
        try:
            pc1 = Decimal((row.get("pc1") or "").strip())
        except InvalidOperation:
            b.skip(row_no, "pc1 is not a number", row.get("pc1"))
            continue
        if not pc1.is_finite() or not Decimal(0) <= pc1 <= Decimal(1):
            b.skip(row_no, "pc1 outside [0, 1]", pc1)
            continue
        b.add(row_no, row.get("domain"), pc1.quantize(Decimal("0.0001")))
    return b.finish()


_PERENNIAL_STATUS = {
    "generally reliable": RiskRating.GENERALLY_RELIABLE,
    "no consensus": RiskRating.NO_CONSENSUS,
    "generally unreliable": RiskRating.GENERALLY_UNRELIABLE,
    "deprecated": RiskRating.DEPRECATED,
    "blacklisted": RiskRating.DEPRECATED,
}


def _perennial_score(rating: RiskRating, values: ReputationBaseline) -> Decimal:
    if rating is RiskRating.GENERALLY_RELIABLE:
        return values.generally_reliable
    if rating is RiskRating.NO_CONSENSUS:
        return values.no_consensus
    return values.generally_unreliable_cap


def import_perennial(
    path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    """Wikipedia perennial sources (Kudusch CSV: ``status`` and ``urls`` are JSON lists); worst status wins."""
    values = _values(reputation)
    b = _Builder("perennial", path, recorded_at)
    for row_no, row in enumerate(_csv_rows(b.text, ("status", "urls")), start=2):
        try:
            statuses = json.loads(row.get("status") or "")
            urls = json.loads(row.get("urls") or "")
        except (ValueError, RecursionError):  # not JSON, a number too long to read, or nested too deep
            b.skip(row_no, "status or urls is not a JSON list", row.get("name"))
            continue
        if not isinstance(statuses, list) or not isinstance(urls, list):
            b.skip(row_no, "status or urls is not a JSON list", row.get("name"))
            continue
        ratings = [_PERENNIAL_STATUS.get(str(s).strip().lower()) for s in statuses]
        known = [r for r in ratings if r is not None]
        if not known:
            b.skip(row_no, "no recognised status", statuses)
            continue
        if not urls:
            b.skip(row_no, "no domains listed", row.get("name"))
            continue
        rating = max(known, key=lambda r: _RISK_ORDER[r])
        for url in urls:
            if isinstance(url, str) and _names_a_page_elsewhere(url):
                b.skip(row_no, _PAGE_ELSEWHERE, url)
                continue
            b.add(row_no, url, _perennial_score(rating, values), risk=rating)
    return b.finish()


_PAGE_ELSEWHERE = (
    "a page on another site (catalogue entry, platform channel, Wikidata item), not the source's domain"
)


def _names_a_page_elsewhere(url: str) -> bool:
    """The list's ``urls`` column mixes a source's own domains with pages about it elsewhere: a library
    catalogue search, a YouTube channel, a Wikidata item, a Wikipedia edit link. Those carry a query, a
    fragment or a path of two or more segments; a source's own address has at most one (``/en``, ``/go``)."""
    text = url.strip().lower()
    parts = urlsplit(text if "://" in text else f"//{text}")
    segments = [segment for segment in parts.path.split("/") if segment]
    return bool(parts.query or parts.fragment or len(segments) >= 2)


def import_ifcn(
    path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    """IFCN signatories (JSON list of ``{name, country, language, url}``): fact-checker tier and class."""
    values = _values(reputation)
    b = _Builder("ifcn", path, recorded_at)
    try:
        items = json.loads(b.text)
    except RecursionError as exc:
        raise ImportFormatError("not JSON: nested too deeply") from exc
    except ValueError as exc:  # JSONDecodeError, or an integer literal too long to read
        raise ImportFormatError(f"not JSON: {json_error_reason(exc)}") from exc
    if not isinstance(items, list):
        raise ImportFormatError("expected a JSON list of signatories")
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not item.get("url"):
            b.skip(n, "entry has no url", item)
            continue
        b.add(
            n,
            item["url"],
            values.ifcn_signatory,
            tier=SourceTier.FACT_CHECKER,
            source_class=SourceClass.FACT_CHECKER,
        )
    return b.finish()


def import_opensources(
    path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    """OpenSources ``sources.csv`` (first column the domain, then ``type, 2nd type, 3rd type``): satire only."""
    values = _values(reputation)
    b = _Builder("opensources", path, recorded_at)
    rows = list(csv.reader(io.StringIO(b.text)))
    header = [h.strip().lower() for h in rows[0]] if rows else []
    if "type" not in header:
        raise ImportFormatError(f"missing column type; header is {header}")
    tag_columns = [header.index(c) for c in ("type", "2nd type", "3rd type") if c in header]
    for row_no, fields in enumerate(rows[1:], start=2):
        if not fields or not "".join(fields).strip():
            continue
        domain = fields[0]
        tags = {fields[i].strip().lower() for i in tag_columns if i < len(fields)} - {""}
        if not tags:
            b.skip(row_no, "no tags", domain)
        elif "satire" not in tags:
            b.skip(row_no, "not tagged satire (only satire tags are imported)", domain)
        else:
            b.add(row_no, domain, values.generally_unreliable_cap, source_class=SourceClass.SATIRE)
    return b.finish()


def _domain_lines(text: str) -> Iterable[tuple[int, str]]:
    """One domain per line, or a CSV whose header names a ``domain``/``site``/``url`` column."""
    lines = text.splitlines()
    header = [h.strip().lower() for h in next(csv.reader([lines[0]]))] if lines else []
    column = next((header.index(c) for c in ("domain", "site", "url", "website") if c in header), None)
    start = 1
    if column is None:
        column, start = 0, 0
    for row_no, fields in enumerate(csv.reader(lines[start:]), start=start + 1):
        if not fields or not "".join(fields).strip() or fields[0].lstrip().startswith("#"):
            continue
        yield row_no, fields[column] if column < len(fields) else ""


def _import_list(
    kind: str, path: Path, reputation: ReputationBaseline | None, recorded_at: datetime | None, iffy: bool
) -> ImportResult:
    values = _values(reputation)
    b = _Builder(kind, path, recorded_at)
    for row_no, raw in _domain_lines(b.text):
        b.add(row_no, raw, values.generally_unreliable_cap, risk=RiskRating.GENERALLY_UNRELIABLE, iffy=iffy)
    return b.finish()


def import_misinfo_list(
    path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    """AVeriTeC ``misinfo_list.txt``: each domain a generally unreliable, capped record."""
    return _import_list("misinfo-list", path, reputation, recorded_at, iffy=False)


def import_iffy(
    path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    """An Iffy-style list (same shapes as misinfo-list): ``on_iffy_index`` and generally unreliable."""
    return _import_list("iffy", path, reputation, recorded_at, iffy=True)


_DOTGOV_NATIONAL = ("federal", "state or territory", "tribal")


def import_dotgov(
    path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    """The .gov registry (CISA ``current-full.csv``: ``Domain name, Domain type, Organization name``): every
    domain is held by a verified US government body, so class and tier ``primary_official``. Federal, state
    or territory and tribal governments take the ``primary_official`` baseline; city, county, special and
    school districts, interstate bodies (and their election offices) the ``generally_reliable`` one: official
    for their own acts, without a national statistical office's review. The owner is kept as the note."""
    values = _values(reputation)
    b = _Builder("dotgov", path, recorded_at)
    for row_no, row in enumerate(_csv_rows(b.text, ("Domain name", "Domain type")), start=2):
        kind = (row.get("Domain type") or "").strip()
        if not kind:
            b.skip(row_no, "no domain type", row.get("Domain name"))
            continue
        national = kind.lower().startswith(_DOTGOV_NATIONAL)
        owner = (row.get("Organization name") or "").strip()
        b.add(
            row_no,
            row.get("Domain name"),
            values.primary_official if national else values.generally_reliable,
            tier=SourceTier.PRIMARY_OFFICIAL,
            source_class=SourceClass.PRIMARY_OFFICIAL,
            note=f"{owner} ({kind})" if owner else kind,
        )
    return b.finish()


def import_universities(
    path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    """The world universities list (Hipo ``world_universities_and_domains.json``: ``name, domains[],
    country``): class and tier ``scholarly`` at the ``no_consensus`` baseline. The list says who holds a
    domain, not the standing of everything hosted there (student pages, personal pages, clubs), so it earns
    the middle baseline the project also gives preprint servers; a rating of the domain itself (Lin et al.)
    takes precedence for the score."""
    values = _values(reputation)
    b = _Builder("universities", path, recorded_at)
    try:
        items = json.loads(b.text)
    except RecursionError as exc:
        raise ImportFormatError("not JSON: nested too deeply") from exc
    except ValueError as exc:
        raise ImportFormatError(f"not JSON: {json_error_reason(exc)}") from exc
    if not isinstance(items, list):
        raise ImportFormatError("expected a JSON list of universities")
    for n, item in enumerate(items, start=1):
        domains = item.get("domains") if isinstance(item, dict) else None
        if not isinstance(domains, list) or not domains:
            b.skip(n, "entry has no domains", item)
            continue
        name = str(item.get("name") or "").strip()
        country = str(item.get("country") or "").strip()
        note = f"{name} ({country})" if country else name
        for domain in domains:
            b.add(
                n,
                domain,
                values.no_consensus,
                tier=SourceTier.SCHOLARLY,
                source_class=SourceClass.SCHOLARLY,
                note=note or None,
            )
    return b.finish()


Importer = Callable[[Path, ReputationBaseline | None, datetime | None], ImportResult]
IMPORTERS: dict[str, Importer] = {
    "lin2023": import_lin2023,
    "perennial": import_perennial,
    "ifcn": import_ifcn,
    "opensources": import_opensources,
    "misinfo-list": import_misinfo_list,
    "iffy": import_iffy,
    "dotgov": import_dotgov,
    "universities": import_universities,
}


def import_file(
    kind: str, path: Path, reputation: ReputationBaseline | None = None, recorded_at: datetime | None = None
) -> ImportResult:
    try:
        importer = IMPORTERS[kind]
    except KeyError:
        raise ImportFormatError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}") from None
    try:
        return importer(path, reputation, recorded_at)
    except csv.Error as exc:  # e.g. a field over csv's field size limit
        raise ImportFormatError(f"not readable as CSV: {exc}") from exc


def merge_registries(*groups: Iterable[RegistryEntry]) -> list[RegistryEntry]:
    """Merge several imports (and manual files) into one entry per domain, sorted by domain."""
    by_domain: dict[str, list[RegistryEntry]] = {}
    for group in groups:
        for entry in group:
            by_domain.setdefault(entry.record.domain, []).append(entry)
    return [merge_entries(by_domain[d]) for d in sorted(by_domain)]


@dataclass(frozen=True)
class RegistryUpdate:
    """What an import did to a registry file: the new entries, and how many domains were added, changed
    (a new record version; the old one goes to the history) or left as they were."""

    entries: list[RegistryEntry]
    replaced: list[RegistryEntry]
    added: int
    changed: int
    unchanged: int


def _content(entry: RegistryEntry) -> tuple[object, ...]:
    # What a record says, apart from when it was recorded, its version label and which release of each
    # dataset said it: a new release that says the same thing is not a new version of the record.
    said = entry.record.model_dump(mode="json", exclude={"recorded_at", "version", "produced_by"})
    datasets = sorted(source_name(part) for part in (entry.sources or (entry,)))
    return (said, datasets, entry.source_class)


def _same_row(a: RegistryEntry, b: RegistryEntry) -> bool:
    exclude = {"recorded_at"}
    same = a.record.model_dump(exclude=exclude) == b.record.model_dump(exclude=exclude)
    return same and a.source_class is b.source_class


def _next_version(version: str, taken: set[str]) -> str:
    # Same label, different content (an edited file under an unchanged name): still a new version.
    revision = 2
    while f"{version}.r{revision}" in taken:
        revision += 1
    return f"{version}.r{revision}"


def update_registry(
    existing: Iterable[RegistryEntry],
    imported: Iterable[RegistryEntry],
    taken_versions: Mapping[str, set[str]] | None = None,
) -> RegistryUpdate:
    """Fold one dataset import into a registry file's entries.

    Per domain, the import replaces that dataset's own earlier part (never adds a second copy of it) and the
    merge is redone. A domain whose record comes out the same keeps its record and version; one that changes
    gets a new version, and the record it replaces is returned in ``replaced`` for the history.
    ``taken_versions`` maps a domain to the version labels its history already holds.
    """
    current = {e.record.domain: e for e in existing}
    history = taken_versions or {}
    replaced: list[RegistryEntry] = []
    added = changed = 0
    for entry in imported:
        domain = entry.record.domain
        before = current.get(domain)
        if before is None:
            current[domain] = entry
            added += 1
            continue
        dataset = source_name(entry)
        parts = before.sources or (before,)
        kept = [part for part in parts if source_name(part) != dataset]
        # The same row imported again keeps its original part, recording time included.
        own = next((p for p in parts if source_name(p) == dataset and _same_row(p, entry)), entry)
        after = merge_entries([*kept, own])
        if _content(after) == _content(before):
            # The record says the same: it keeps its version, though a part behind it may be newer.
            current[domain] = replace(before, sources=after.sources, provenance=after.provenance)
            continue
        taken = history.get(domain, set()) | {before.record.version}
        if after.record.version in taken:
            version = _next_version(after.record.version, taken)
            after = replace(after, record=after.record.model_copy(update={"version": version}))
        replaced.append(before)
        current[domain] = after
        changed += 1
    ordered = [current[d] for d in sorted(current)]
    return RegistryUpdate(ordered, replaced, added, changed, len(ordered) - added - changed)


def write_registry(
    entries: Iterable[RegistryEntry],
    path: Path,
    replaced: Sequence[RegistryEntry] = (),
    replaced_at: datetime | None = None,
) -> None:
    """Write the JSON list :func:`icarus.reputation.load_registry` reads, and append the ``replaced`` records
    to its history, all or nothing: a failed write leaves the registry and its history as they were.

    The new list goes to a temporary file beside the registry first, where a full disk or a refused write
    shows; then the history is appended; last the temporary file is renamed over the registry (a rename
    does not fail half way). A failure after the history was touched cuts it back to its old length.
    """
    if replaced and replaced_at is None:
        raise ValueError("replaced records need the time they were replaced")
    ordered = sorted(entries, key=lambda e: e.record.domain)
    target = path.resolve()  # through a link: replace the file it names, not the link
    target.parent.mkdir(parents=True, exist_ok=True)
    history = history_path(path)
    history_size = history.stat().st_size if history.exists() else None
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(dump_entries(ordered) + "\n", encoding="utf-8")
        if target.exists():
            shutil.copymode(target, temporary)
        if replaced and replaced_at is not None:
            append_history(path, list(replaced), replaced_at)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            cut_back(history, history_size)
        raise


def cut_back(path: Path, size: int | None) -> None:
    """Return an appended-to file (a history, the review queue) to ``size`` bytes, or remove it when it did
    not exist (``None``)."""
    if size is None:
        path.unlink(missing_ok=True)
    elif path.exists() and path.stat().st_size != size:
        with path.open("r+b") as handle:
            handle.truncate(size)
