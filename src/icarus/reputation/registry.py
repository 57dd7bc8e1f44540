"""Reviewed reputation records by registered domain, with the heuristic estimate as the fallback."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import TypeAdapter, ValidationError

from icarus.ledger import ReputationRecord, SourceClass
from icarus.provenance.canonical import registered_domain
from icarus.reputation.heuristic import estimate


@dataclass(frozen=True)
class RegistryEntry:
    record: ReputationRecord
    source_class: SourceClass
    sources: tuple[RegistryEntry, ...] = ()
    """When several datasets name the domain: each one's own entry, from which ``record`` was merged. A later
    import of one of those datasets replaces its own part and the merge is redone, so nothing is counted twice."""


class RegistryFileError(ValueError):
    pass


_ENTRY_FILE = TypeAdapter(list[dict[str, object]])


# Hosts where anyone can publish under a subdomain: a listed subdomain says nothing about the host.
SHARED_HOSTS = frozenset(
    {
        "wordpress.com",
        "blogspot.com",
        "medium.com",
        "substack.com",
        "tumblr.com",
        "weebly.com",
        "wixsite.com",
        "github.io",
        "livejournal.com",
        "typepad.com",
        "squarespace.com",
        "webs.com",
        "jimdo.com",
        "blogger.com",
        "over-blog.com",
        "wikia.com",
        "fandom.com",
        "google.com",
        "facebook.com",
    }
)


def registry_key(host: str) -> str:
    """The name a record is filed under: the registered domain, or the whole host on a shared host."""
    host = host.lower().strip(".").removeprefix("www.")
    domain = registered_domain(host)
    return host if domain != host and domain in SHARED_HOSTS else domain


def domain_of(host_or_url: str) -> str:
    """The registry key of a host or a URL (see ``registry_key``)."""
    host = urlsplit(host_or_url).hostname if "://" in host_or_url else host_or_url
    return registry_key(host or host_or_url)


@dataclass
class Registry:
    entries: dict[str, RegistryEntry] = field(default_factory=dict)

    def lookup(self, host_or_url: str) -> RegistryEntry:
        """The record on file for the registered domain, or a labelled heuristic estimate."""
        domain = domain_of(host_or_url)
        known = self.entries.get(domain)
        if known is not None:
            return known
        record = estimate(domain)
        source_class = (
            SourceClass.PRIMARY_OFFICIAL if record.tier.value == "primary_official" else SourceClass.NEWS
        )
        return RegistryEntry(record, source_class)


def load_registry(*paths: Path) -> Registry:
    """Read JSON lists of ``{"record": ReputationRecord, "source_class": ...}`` entries; later files win."""
    entries: dict[str, RegistryEntry] = {}
    for path in paths:
        try:
            raw = _ENTRY_FILE.validate_json(path.read_bytes())
            for item in raw:
                entry = _entry(item)
                entries[entry.record.domain] = entry
        except (OSError, ValidationError, KeyError, ValueError) as exc:
            raise RegistryFileError(f"reputation file {path}: {_problem(exc)}") from exc
    return Registry(entries)


def _problem(exc: Exception) -> str:
    """One line saying what is wrong: pydantic's own text spans lines and adds a link to its docs."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return f"{where + ': ' if where else ''}{first['msg']}{more}"
    if isinstance(exc, KeyError):
        return f"an entry has no {exc.args[0]!r}"
    return str(exc)


def _entry(item: dict[str, object]) -> RegistryEntry:
    record = ReputationRecord.model_validate(item["record"])
    source_class = SourceClass(str(item.get("source_class", SourceClass.NEWS.value)))
    raw_sources = item.get("sources", [])
    if not isinstance(raw_sources, list) or not all(isinstance(source, dict) for source in raw_sources):
        raise ValueError(f"{record.domain}: sources must be a list of entries")
    sources = tuple(_entry(source) for source in raw_sources)
    return RegistryEntry(record, source_class, sources)


def _json(entry: RegistryEntry) -> dict[str, object]:
    data: dict[str, object] = {
        "record": entry.record.model_dump(mode="json"),
        "source_class": entry.source_class.value,
    }
    if entry.sources:
        data["sources"] = [_json(source) for source in entry.sources]
    return data


def dump_entries(entries: list[RegistryEntry]) -> str:
    return json.dumps([_json(e) for e in entries], indent=2)
