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

Domains are normalised to the registered domain (the key :meth:`Registry.lookup` uses). A subdomain of a
shared host (``x.wordpress.com``) keeps its full name: folding it would mark the whole host.

Merge rule (:func:`merge_entries`), when several datasets name one domain:

1. The *baseline* score comes from the highest-precedence entry without a risk flag (manual review, then
   ``perennial``, ``ifcn``, ``lin2023``, ``opensources``, ``misinfo-list``, ``iffy``); class and record
   metadata from the highest-precedence entry; a tier other than ``other`` from the highest-precedence entry
   that has one.
2. Risk flags win over baselines: the worst risk rating of any entry is kept, ``on_iffy_index`` if any entry
   has it, a ``satire`` class if any entry says so, and the score is the *minimum* of the baseline and the
   score of every entry that carries a flag (no consensus, generally unreliable, deprecated, Iffy).
3. Nothing raises a score above the baseline: no badge, follower count or engagement figure is read at all.
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
from icarus.reputation.history import append_history, history_path
from icarus.reputation.registry import RegistryEntry, dump_entries, registry_key
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
    "import_file",
    "import_ifcn",
    "import_iffy",
    "import_lin2023",
    "import_misinfo_list",
    "import_opensources",
    "import_perennial",
    "merge_entries",
    "merge_registries",
    "normalise_domain",
    "update_registry",
    "write_registry",
]

DEFAULT_POLICY_REF = "icarus@1.1"
PRECEDENCE = ("manual", "perennial", "ifcn", "lin2023", "opensources", "misinfo-list", "iffy")
KINDS = PRECEDENCE[1:]

_HOST_CHARS = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$")
_FILE_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
_RISK_ORDER = {
    None: 0,
    RiskRating.GENERALLY_RELIABLE: 0,
    RiskRating.NO_CONSENSUS: 1,
    RiskRating.GENERALLY_UNRELIABLE: 2,
    RiskRating.DEPRECATED: 3,
}


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
        entry = RegistryEntry(record, source_class)
        exact = _host_of(raw_domain) == domain
        earlier = self._by_domain.get(domain)
        if earlier is not None:
            self.skip(row, "duplicate domain (merged with an earlier row)", raw_domain)
            if _is_flag(earlier.record) or _is_flag(record) or source_class is SourceClass.SATIRE:
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
            b.add(row_no, url, _perennial_score(rating, values), risk=rating)
    return b.finish()


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


Importer = Callable[[Path, ReputationBaseline | None, datetime | None], ImportResult]
IMPORTERS: dict[str, Importer] = {
    "lin2023": import_lin2023,
    "perennial": import_perennial,
    "ifcn": import_ifcn,
    "opensources": import_opensources,
    "misinfo-list": import_misinfo_list,
    "iffy": import_iffy,
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


def _source_of(entry: RegistryEntry) -> str:
    if entry.record.method is ReputationMethod.MANUAL:
        return "manual"
    return entry.record.produced_by.split("@", 1)[0]


def _rank(entry: RegistryEntry) -> int:
    source = _source_of(entry)
    return PRECEDENCE.index(source) if source in PRECEDENCE else len(PRECEDENCE)


def _is_flag(record: ReputationRecord) -> bool:
    return record.on_iffy_index or _RISK_ORDER[record.risk_rating] > 0


def merge_entries(entries: Iterable[RegistryEntry]) -> RegistryEntry:
    """Combine the entries several sources hold for one domain by the documented precedence (module doc).

    An entry that is itself a merge contributes its own sources, so merging again never counts one twice.
    """
    ranked = sorted((part for e in entries for part in (e.sources or (e,))), key=_rank)
    if not ranked:
        raise ValueError("nothing to merge")
    if len(ranked) == 1:
        return ranked[0]
    base = ranked[0]
    # A flagged entry's score is a ceiling, never a baseline: the baseline is the first unflagged entry.
    baseline = next((e for e in ranked if not _is_flag(e.record)), base)
    score = min([baseline.record.score, *(e.record.score for e in ranked if _is_flag(e.record))])
    worst = max(ranked, key=lambda e: _RISK_ORDER[e.record.risk_rating]).record.risk_rating
    risk = worst if _RISK_ORDER[worst] > 0 else base.record.risk_rating
    tier = next((e.record.tier for e in ranked if e.record.tier is not SourceTier.OTHER), SourceTier.OTHER)
    classes = [e.source_class for e in ranked]
    source_class = SourceClass.SATIRE if SourceClass.SATIRE in classes else base.source_class
    if source_class is SourceClass.NEWS:
        source_class = next((c for c in classes if c is not SourceClass.NEWS), SourceClass.NEWS)
    produced_by = " + ".join(e.record.produced_by for e in ranked)
    version = hashlib.sha256(
        "|".join(f"{e.record.produced_by}:{e.record.version}" for e in ranked).encode()
    ).hexdigest()[:12]
    record = base.record.model_copy(
        update={
            "score": score,
            "tier": tier,
            "risk_rating": risk,
            "on_iffy_index": any(e.record.on_iffy_index for e in ranked),
            "produced_by": produced_by,
            "version": version,
        }
    )
    return replace(base, record=record, source_class=source_class, sources=tuple(ranked))


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
    datasets = sorted(_source_of(part) for part in (entry.sources or (entry,)))
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
        dataset = _source_of(entry)
        parts = before.sources or (before,)
        kept = [part for part in parts if _source_of(part) != dataset]
        # The same row imported again keeps its original part, recording time included.
        own = next((p for p in parts if _source_of(p) == dataset and _same_row(p, entry)), entry)
        after = merge_entries([*kept, own])
        if _content(after) == _content(before):
            # The record says the same: it keeps its version, though a part behind it may be newer.
            current[domain] = replace(before, sources=after.sources)
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
