"""Reputation records by registered domain, with the heuristic estimate as the fallback.

A :class:`Registry` is a stack of layers (each a mapping of domain to entry) and suffix rules. A domain named
by several layers gets the per-field merge of :mod:`icarus.reputation.merge`; a domain under a rule's suffix
gets the rule's record, merged with any record on file for the domain itself. Only a domain that neither a
layer nor a rule names gets the heuristic estimate.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import TypeAdapter, ValidationError

from icarus.ledger import ReputationRecord, SourceClass
from icarus.provenance.canonical import registered_domain
from icarus.reputation.entry import RegistryEntry
from icarus.reputation.heuristic import estimate
from icarus.reputation.merge import merge_entries, merge_layers

__all__ = [
    "SHARED_HOSTS",
    "LayeredEntries",
    "Registry",
    "RegistryEntry",
    "RegistryFileError",
    "SuffixRule",
    "domain_of",
    "dump_entries",
    "file_layer",
    "layered_registry",
    "load_registry",
    "read_entries",
    "registry_key",
]


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


@dataclass(frozen=True)
class SuffixRule:
    """A record for every domain under a suffix whose registration policy restricts who may hold a name
    (``int``, ``mil``, ``gov.uk``): ``entry`` is the record template, filed under the matched domain."""

    suffix: str
    entry: RegistryEntry

    def matches(self, domain: str) -> bool:
        return domain == self.suffix or domain.endswith("." + self.suffix)

    def for_domain(self, domain: str) -> RegistryEntry:
        record = self.entry.record.model_copy(update={"domain": domain})
        return RegistryEntry(record, self.entry.source_class, note=self.entry.note)


class LayeredEntries(Mapping[str, RegistryEntry]):
    """Entries of several layers, earliest first, merged per domain on first access (then cached)."""

    def __init__(self, layers: Sequence[Mapping[str, RegistryEntry]]) -> None:
        self.layers = tuple(layers)
        self._cache: dict[str, RegistryEntry] = {}
        self._keys: list[str] | None = None

    def __getitem__(self, domain: str) -> RegistryEntry:
        cached = self._cache.get(domain)
        if cached is not None:
            return cached
        found = [layer[domain] for layer in self.layers if domain in layer]
        if not found:
            raise KeyError(domain)
        if len(found) == 1 and (not found[0].sources or found[0].provenance is not None):
            entry = found[0]
        else:
            entry = merge_layers(found)
        self._cache[domain] = entry
        return entry

    def __contains__(self, domain: object) -> bool:
        return any(domain in layer for layer in self.layers)

    def _all_keys(self) -> list[str]:
        if self._keys is None:
            if len(self.layers) == 1:
                self._keys = list(self.layers[0])
            else:
                seen: dict[str, None] = {}
                for layer in self.layers:
                    seen.update(dict.fromkeys(layer))
                self._keys = list(seen)
        return self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._all_keys())

    def __len__(self) -> int:
        return len(self._all_keys())


@dataclass
class Registry:
    entries: Mapping[str, RegistryEntry] = field(default_factory=dict)
    rules: Sequence[SuffixRule] = ()
    _found: dict[str, RegistryEntry | None] = field(default_factory=dict, repr=False, compare=False)

    def find(self, host_or_url: str) -> RegistryEntry | None:
        """The entry on file for the registered domain (a record, a rule, or both merged); None if neither."""
        domain = domain_of(host_or_url)
        if domain in self._found:
            return self._found[domain]
        known = self.entries.get(domain)
        rule = next((r for r in self._rules_by_length() if r.matches(domain)), None)
        if rule is not None:
            ruled = rule.for_domain(domain)
            known = ruled if known is None else merge_layers([ruled, known])
        self._found[domain] = known
        return known

    def _rules_by_length(self) -> Sequence[SuffixRule]:
        # The most specific suffix first: gov.uk before uk.
        return sorted(self.rules, key=lambda r: -len(r.suffix)) if len(self.rules) > 1 else self.rules

    def on_file(self, host_or_url: str) -> bool:
        return self.find(host_or_url) is not None

    def lookup(self, host_or_url: str) -> RegistryEntry:
        """The record on file for the registered domain, or a labelled heuristic estimate."""
        known = self.find(host_or_url)
        if known is not None:
            return known
        domain = domain_of(host_or_url)
        record = estimate(domain)
        source_class = (
            SourceClass.PRIMARY_OFFICIAL if record.tier.value == "primary_official" else SourceClass.NEWS
        )
        return RegistryEntry(record, source_class)

    def ledger_lookup(self, host_or_url: str) -> tuple[ReputationRecord, SourceClass]:
        """``lookup`` as the ledger types an evidence item carries: the record and the source class."""
        entry = self.lookup(host_or_url)
        return entry.record, entry.source_class


def read_entries(path: Path) -> list[RegistryEntry]:
    """The entries of one registry file as written, in file order (the per-domain merge not redone)."""
    try:
        raw = _ENTRY_FILE.validate_json(path.read_bytes())
        return [_entry(item) for item in raw]
    except (OSError, ValidationError, KeyError, ValueError) as exc:
        raise RegistryFileError(f"reputation file {path}: {_problem(exc)}") from exc


def file_layer(path: Path) -> dict[str, RegistryEntry]:
    """One registry file as a layer: a domain listed twice in the file is merged, not overwritten."""
    layer: dict[str, RegistryEntry] = {}
    for entry in read_entries(path):
        domain = entry.record.domain
        layer[domain] = entry if domain not in layer else merge_entries([layer[domain], entry])
    return layer


def load_registry(*paths: Path) -> Registry:
    """Read JSON lists of ``{"record": ReputationRecord, "source_class": ...}`` entries; each file is a layer
    over the ones before it, merged per field (:mod:`icarus.reputation.merge`)."""
    return layered_registry([file_layer(path) for path in paths])


def layered_registry(
    layers: Sequence[Mapping[str, RegistryEntry]], rules: Sequence[SuffixRule] = ()
) -> Registry:
    return Registry(LayeredEntries(layers), tuple(rules))


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
    note = item.get("note")
    if note is not None and not isinstance(note, str):
        raise ValueError(f"{record.domain}: note must be text")
    sources = tuple(_entry(source) for source in raw_sources)
    entry = RegistryEntry(record, source_class, sources, note)
    if not sources:
        return entry
    # The file's field_sources are for readers: the merge is redone. A record the merge still gives keeps its
    # version (an import may have numbered it .rN); one merged by an older precedence is merged anew.
    merged = merge_entries(sources)
    if _says(merged) == _says(entry):
        return replace(entry, provenance=merged.provenance)
    return merged


def _says(entry: RegistryEntry) -> tuple[object, ...]:
    r = entry.record
    return (r.score, r.tier, r.risk_rating, r.on_iffy_index, entry.source_class)


def _json(entry: RegistryEntry) -> dict[str, object]:
    data: dict[str, object] = {
        "record": entry.record.model_dump(mode="json"),
        "source_class": entry.source_class.value,
    }
    if entry.note:
        data["note"] = entry.note
    if entry.sources:
        data["field_sources"] = entry.field_sources
        data["sources"] = [_json(source) for source in entry.sources]
    return data


def dump_entries(entries: list[RegistryEntry]) -> str:
    return json.dumps([_json(e) for e in entries], indent=2)
