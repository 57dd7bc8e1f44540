"""The shipped default registry: records built from public lists, and rules from registration policies.

``data/default-registry.json`` is written by ``icarus registry build`` (:func:`build_document`) from the
datasets in :data:`DATASETS` and the suffix rules in :data:`RULES`, and read once per process
(:func:`shipped_default`). It stores each source's own values per domain (a *part*); the per-field merge of
:mod:`icarus.reputation.merge` runs when a domain is first looked up, so the shipped records, the shipped
manual records and any ``--reputation`` file all combine by the same precedence. Parsing the file is one
``json.loads``; no record is validated until it is asked for.

Scores, tiers and classes come from the policy's ``reputation`` baselines (:data:`POLICY_REF`):

- Lin et al. 2023 (``domain_pc1.csv``): pc1 as the score; perennial sources: the status baselines and risk
  ratings; IFCN signatories: fact-checker at ``ifcn_signatory``; OpenSources: the satire class; the AVeriTeC
  misinformation list: generally unreliable at the cap (see :mod:`icarus.reputation.importers`).
- the .gov registry: ``primary_official`` class and tier; federal, state and tribal governments at
  ``primary_official``, local bodies at ``generally_reliable``.
- the world universities list: ``scholarly`` class and tier at ``no_consensus``.
- suffix rules (:data:`RULES`): a suffix whose registry admits only one kind of holder. ``international``
  (``int``) and ``military`` (``mil``) and ``national_government`` (a suffix for one central government's
  bodies) give ``primary_official`` at ``primary_official``; ``government`` (a suffix shared by central,
  regional and local bodies, which the name cannot tell apart) gives ``primary_official`` at
  ``generally_reliable``, the value of a local .gov body; ``academic`` gives ``scholarly`` at ``no_consensus``,
  as the universities list does.
"""

from __future__ import annotations

import hashlib
import json
import os
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from icarus.ledger import ReputationMethod, ReputationRecord, RiskRating, SourceClass, SourceTier
from icarus.reputation.entry import RegistryEntry
from icarus.reputation.importers import import_file
from icarus.reputation.merge import merge_entries, rank
from icarus.reputation.registry import RegistryFileError, SuffixRule
from icarus.scoring.icarus.config import ReputationBaseline, load_policy

__all__ = [
    "DATASETS",
    "DEFAULT_RESOURCE",
    "FORMAT",
    "POLICY_REF",
    "RULES",
    "RULE_SOURCES",
    "DatasetSpec",
    "DefaultRegistry",
    "RuleSpec",
    "SourceInfo",
    "build_document",
    "datasets_folder",
    "default_path",
    "missing_datasets",
    "render_document",
    "render_rules_markdown",
    "render_sources_markdown",
    "shipped_default",
    "sources_manifest",
]

DEFAULT_RESOURCE = "data/default-registry.json"
FORMAT = "icarus-default-registry/1"
POLICY_REF = "icarus@1.1"
RULE_SOURCES = {"gov-registration": "government", "edu-registration": "academic"}
"""The two rule sources: suffixes for government bodies, and suffixes for academic institutions. They rank
apart in the merge (:data:`icarus.reputation.merge.PRECEDENCE`): a government suffix's baseline comes before
a news-quality rating; an academic suffix's comes after the domain's own rating."""


@dataclass(frozen=True)
class DatasetSpec:
    kind: str
    path: str
    title: str
    origin: str
    licence: str


DATASETS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        "lin2023",
        "domain-quality-ratings/domain_pc1.csv",
        "Lin et al. 2023 domain quality ratings (PNAS Nexus), aggregate pc1 only",
        "hauselin/domain-quality-ratings@5671d57e545e48225ef2cbf559a6ab7f8f77a9de data/domain_pc1.csv",
        "no licence file; the authors' README says 'Feel free to reuse the data' and asks for a citation",
    ),
    DatasetSpec(
        "perennial",
        "wikipedia-perennial-sources/perennial-sources_kudusch_2021-03-17.csv",
        "Wikipedia perennial sources (Kudusch export of 2021-03-17)",
        "Kudusch/wikipedia-perennial-sources@1a7c0c2d7bfc5346c8272598299382e674725972",
        "CC BY-SA 3.0 (the export's README; the content is Wikipedia's)",
    ),
    DatasetSpec(
        "ifcn",
        "ifcn-signatories/tub_white_list_2020.json",
        "IFCN signatories as of about 2020",
        "TUB-NLP-OpenData/intelligent_crawler@b6530685e94b0b15b2c05ff2e323f82dbb3673a5",
        "none stated (a hand-copied list of the public IFCN signatory directory)",
    ),
    DatasetSpec(
        "opensources",
        "opensources/sources.csv",
        "OpenSources (2017), satire tags only",
        "OpenSourcesGroup/opensources@2fb428d0e132baae5ed8ab034d4eafbe9dc77cbb",
        "LGPL-3.0 (the repository's LICENSE)",
    ),
    DatasetSpec(
        "misinfo-list",
        "averitec/misinfo_list.txt",
        "AVeriTeC misinformation and satire domain list",
        "MichSchli/AVeriTeC@7c62d1ec8df3fb560d6efe2b85fa191135636f81 data/misinfo_list.txt",
        "CC BY-NC 4.0 (the AVeriTeC README): non-commercial use only",
    ),
    DatasetSpec(
        "dotgov",
        "official-domains/dotgov-current-full.csv",
        "The .gov registry with owning organisations (CISA)",
        "cisagov/dotgov-data@4ee64196503d34bcaff8b508444b0f7552f97d71 current-full.csv",
        "CC0 1.0",
    ),
    DatasetSpec(
        "universities",
        "official-domains/world_universities_and_domains.json",
        "World universities and their domains (Hipo)",
        "Hipo/university-domains-list@bb07faf064e1c68be9b26fb71de31f01e361f974",
        "MIT",
    ),
)


@dataclass(frozen=True)
class RuleSpec:
    suffix: str
    kind: str
    why: str


# kind -> (source class and tier, the ReputationBaseline field giving the score)
RULE_KINDS: dict[str, tuple[SourceClass, SourceTier, str]] = {
    "international": (SourceClass.PRIMARY_OFFICIAL, SourceTier.PRIMARY_OFFICIAL, "primary_official"),
    "military": (SourceClass.PRIMARY_OFFICIAL, SourceTier.PRIMARY_OFFICIAL, "primary_official"),
    "national_government": (SourceClass.PRIMARY_OFFICIAL, SourceTier.PRIMARY_OFFICIAL, "primary_official"),
    "government": (SourceClass.PRIMARY_OFFICIAL, SourceTier.PRIMARY_OFFICIAL, "generally_reliable"),
    "academic": (SourceClass.SCHOLARLY, SourceTier.SCHOLARLY, "no_consensus"),
}

RULES: tuple[RuleSpec, ...] = (
    RuleSpec("int", "international", "IANA delegates .int only to organisations set up by treaty between governments"),
    RuleSpec("mil", "military", ".mil is reserved to the US Department of Defense and its components"),
    RuleSpec("gc.ca", "national_government", "gc.ca names are assigned only to Government of Canada (federal) institutions; provinces use their own"),
    RuleSpec("go.jp", "national_government", "JPRS registers go.jp only for central government ministries and agencies; local governments use lg.jp"),
    RuleSpec("gouv.fr", "national_government", "gouv.fr is the French State's domain; its names go to ministries and State services"),
    RuleSpec("bund.de", "national_government", "bund.de is held by the German federal administration, which assigns its subdomains to federal bodies"),
    RuleSpec("admin.ch", "national_government", "admin.ch is held by the Swiss federal administration for its own offices"),
    RuleSpec("gov.ie", "national_government", "gov.ie is held by the Government of Ireland for its departments and offices"),
    RuleSpec("gov.sg", "national_government", "gov.sg is restricted to Singapore government bodies (a single level of government)"),
    RuleSpec("gov.uk", "government", "gov.uk is restricted to UK public-sector bodies, central and local, approved by the government's naming service"),
    RuleSpec("gov.au", "government", "gov.au is restricted to Australian federal, state, territory and local government bodies"),
    RuleSpec("govt.nz", "government", "govt.nz is moderated and restricted to New Zealand central and local government bodies"),
    RuleSpec("gov.in", "government", "gov.in is registered by NIC only for Indian central and state government bodies"),
    RuleSpec("nic.in", "government", "nic.in is the National Informatics Centre's domain; its subdomains go to central and state government bodies"),
    RuleSpec("gob.mx", "government", "gob.mx is restricted to Mexican federal, state and municipal government bodies"),
    RuleSpec("gov.br", "government", "registro.br restricts gov.br to Brazilian government bodies (federal, and state ones under its state labels)"),
    RuleSpec("gob.es", "government", "gob.es is restricted to Spanish public administrations"),
    RuleSpec("gov.za", "government", "gov.za is restricted to South African national, provincial and local government"),
    RuleSpec("gov.ng", "government", "NiRA restricts gov.ng to Nigerian federal, state and local government bodies"),
    RuleSpec("gov.ph", "government", "dotPH restricts gov.ph to Philippine government agencies and local government units"),
    RuleSpec("gv.at", "government", "gv.at is restricted to Austrian public administration at every level"),
    RuleSpec("edu", "academic", "EDUCAUSE registers .edu only for US postsecondary institutions accredited by an agency the US Department of Education recognises"),
    RuleSpec("ac.uk", "academic", "Jisc registers ac.uk only for UK higher- and further-education and research institutions"),
)  # fmt: skip


def rule_source(spec: RuleSpec) -> str:
    return "edu-registration" if spec.kind == "academic" else "gov-registration"


def _rules_version(source: str) -> str:
    table = json.dumps(
        [[r.suffix, r.kind, r.why] for r in RULES if rule_source(r) == source], ensure_ascii=False
    )
    return hashlib.sha256(table.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class SourceInfo:
    """One source of the shipped default registry, as the methodology page lists it."""

    name: str
    title: str
    origin: str
    version: str
    produced_by: str
    licence: str
    records: int
    gives: str


@dataclass(frozen=True)
class DefaultRegistry:
    """The shipped default registry, parsed: lazily merged records, rules and the sources manifest."""

    layer: Mapping[str, RegistryEntry]
    rules: tuple[SuffixRule, ...]
    sources: tuple[SourceInfo, ...]
    policy: str


class CompactLayer(Mapping[str, RegistryEntry]):
    """Domain -> entry, built from the file's per-source parts on first access and cached.

    ``lines`` are the file's domain lines as bytes (``"name":[parts]``), sorted by name as
    :func:`render_document` writes them (names are ASCII, so byte order is name order): a look-up is a
    binary search, and only the lines asked for are decoded and parsed."""

    def __init__(self, lines: Sequence[bytes], sources: Sequence[SourceInfo]) -> None:
        self._lines = lines
        self._sources = tuple(sources)
        self._cache: dict[str, RegistryEntry] = {}

    def _line(self, domain: str) -> bytes | None:
        try:
            wanted = domain.encode("ascii")
        except UnicodeEncodeError:
            return None
        at = bisect_left(self._lines, wanted, key=_line_name)
        if at < len(self._lines) and _line_name(self._lines[at]) == wanted:
            return self._lines[at]
        return None

    def __getitem__(self, domain: str) -> RegistryEntry:
        cached = self._cache.get(domain)
        if cached is not None:
            return cached
        line = self._line(domain)
        if line is None:
            raise KeyError(domain)
        raw_parts = json.loads(line[len(domain) + 3 :].rstrip(b","))
        parts = [self._part(domain, raw) for raw in raw_parts]
        entry = parts[0] if len(parts) == 1 else merge_entries(parts)
        self._cache[domain] = entry
        return entry

    def _part(self, domain: str, raw: list[Any]) -> RegistryEntry:
        index, score, tier, source_class, risk, iffy, note = raw
        source = self._sources[index]
        record = ReputationRecord(
            domain=domain,
            score=Decimal(score),
            tier=SourceTier(tier),
            method=ReputationMethod.DATASET,
            produced_by=source.produced_by,
            version=source.version,
            risk_rating=RiskRating(risk) if risk else None,
            on_iffy_index=bool(iffy),
        )
        return RegistryEntry(record, SourceClass(source_class), note=note)

    def __contains__(self, domain: object) -> bool:
        return isinstance(domain, str) and self._line(domain) is not None

    def __iter__(self) -> Iterator[str]:
        return (_line_name(line).decode("ascii") for line in self._lines)

    def __len__(self) -> int:
        return len(self._lines)


def _line_name(line: bytes) -> bytes:
    return line[1 : line.index(b'"', 1)]


def default_path() -> Path:
    """Where ``icarus registry build`` writes by default: the package's own data file."""
    return Path(str(files("icarus.reputation").joinpath(DEFAULT_RESOURCE)))


def datasets_folder() -> Path:
    """``ICARUS_DATASETS`` when set, else ``../shared/datasets`` from the working directory."""
    return Path(os.environ.get("ICARUS_DATASETS", "../shared/datasets"))


def missing_datasets(data: Path) -> list[str]:
    return [spec.path for spec in DATASETS if not (data / spec.path).is_file()]


def _rule_entry(spec: RuleSpec, values: ReputationBaseline) -> dict[str, Any]:
    source_class, tier, baseline = RULE_KINDS[spec.kind]
    return {
        "source": rule_source(spec),
        "suffix": spec.suffix,
        "kind": spec.kind,
        "source_class": source_class.value,
        "tier": tier.value,
        "score": str(getattr(values, baseline)),
        "why": spec.why,
    }


def build_document(data: Path) -> dict[str, Any]:
    """The default registry built from the datasets under ``data`` (raises ``FileNotFoundError`` naming
    the files that are missing)."""
    missing = missing_datasets(data)
    if missing:
        raise FileNotFoundError(f"not found under {data}: {', '.join(missing)}")
    values = load_policy(POLICY_REF).reputation
    sources: list[dict[str, Any]] = []
    parts: dict[str, list[RegistryEntry]] = {}
    for spec in DATASETS:
        result = import_file(spec.kind, data / spec.path, values)
        for entry in result.entries:
            parts.setdefault(entry.record.domain, []).extend(entry.sources or (entry,))
        sources.append(
            {
                "name": spec.kind,
                "title": spec.title,
                "origin": spec.origin,
                "file": spec.path,
                "version": result.version,
                "produced_by": result.produced_by,
                "licence": spec.licence,
                "records": len(result.entries),
                "skipped": len(result.skipped),
            }
        )
    for source, kind in RULE_SOURCES.items():
        version = _rules_version(source)
        sources.append(
            {
                "name": source,
                "title": f"Registration policies of suffixes restricted to {kind} holders",
                "origin": "the registries' published eligibility rules, summarised per suffix in this file",
                "file": "",
                "version": version,
                "produced_by": f"{source}@{version}",
                "licence": "the project's own summary (no dataset is copied)",
                "records": sum(1 for spec in RULES if rule_source(spec) == source),
                "skipped": 0,
            }
        )
    index = {source["name"]: number for number, source in enumerate(sources)}
    domains: dict[str, list[list[Any]]] = {}
    for domain in sorted(parts):
        ranked = sorted(parts[domain], key=rank)
        domains[domain] = [
            [
                index[e.record.produced_by.split("@", 1)[0]],
                str(e.record.score),
                e.record.tier.value,
                e.source_class.value,
                e.record.risk_rating.value if e.record.risk_rating else None,
                1 if e.record.on_iffy_index else 0,
                e.note,
            ]
            for e in ranked
        ]
    return {
        "format": FORMAT,
        "policy": POLICY_REF,
        "sources": sources,
        "rules": [_rule_entry(spec, values) for spec in RULES],
        "domains": domains,
    }


def render_document(document: Mapping[str, Any]) -> str:
    """Deterministic text: the header indented, one domain per line, so a rebuild is byte-identical."""

    def dump(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    lines = ["{"]
    for key in ("format", "policy"):
        lines.append(f"{dump(key)}:{dump(document[key])},")
    for key in ("sources", "rules"):
        lines.append(f"{dump(key)}:[")
        items = [dump(item) for item in document[key]]
        lines.extend(f"{item}," for item in items[:-1])
        lines.extend(items[-1:])
        lines.append("],")
    lines.append('"domains":{')
    rows = [f"{dump(domain)}:{dump(parts)}" for domain, parts in document["domains"].items()]
    lines.extend(f"{row}," for row in rows[:-1])
    lines.extend(rows[-1:])
    lines.append("}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _source_info(raw: Mapping[str, Any]) -> SourceInfo:
    return SourceInfo(
        name=str(raw["name"]),
        title=str(raw["title"]),
        origin=str(raw["origin"]),
        version=str(raw["version"]),
        produced_by=str(raw["produced_by"]),
        licence=str(raw["licence"]),
        records=int(raw["records"]),
        gives=_GIVES.get(str(raw["name"]), ""),
    )


_GIVES = {
    "lin2023": "score: pc1 in [0, 1]; tier other",
    "perennial": "risk rating and the policy baseline of its status (unreliable and deprecated at the cap)",
    "ifcn": "class and tier fact_checker at the IFCN baseline",
    "opensources": "class satire (weight 0, H6)",
    "misinfo-list": "risk rating generally unreliable at the cap",
    "dotgov": "class and tier primary_official; federal, state and tribal at the primary-official baseline, local at generally reliable",
    "universities": "class and tier scholarly at the no-consensus baseline",
    "gov-registration": "suffix rules: int, mil and central-government suffixes primary_official at the primary-official baseline; suffixes shared by every level of government at generally reliable",
    "edu-registration": "suffix rules: edu and ac.uk scholarly at the no-consensus baseline",
}


_DOMAINS_OPEN = b'\n"domains":{\n'
_DOMAINS_CLOSE = [b"}", b"}", b""]


def parse_document(data: bytes | str) -> DefaultRegistry:
    """Read the header with ``json`` and keep the domain lines as undecoded bytes: decoding and parsing
    38,000 of them would cost more at start than a check should spend; each is parsed when first looked up."""
    raw_bytes = data.encode("utf-8") if isinstance(data, str) else data
    head, found, body = raw_bytes.partition(_DOMAINS_OPEN)
    lines = body.split(b"\n")
    if not found or lines[-3:] != _DOMAINS_CLOSE:
        raise RegistryFileError(f"default registry: not a {FORMAT} document")
    del lines[-3:]
    raw = json.loads(head.decode("utf-8").rstrip().rstrip(",") + "}")
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise RegistryFileError(f"default registry: not a {FORMAT} document")
    sources = tuple(_source_info(item) for item in raw["sources"])
    by_name = {s.name: s for s in sources}
    rules = tuple(
        SuffixRule(
            str(item["suffix"]),
            RegistryEntry(
                ReputationRecord(
                    domain=str(item["suffix"]),
                    score=Decimal(str(item["score"])),
                    tier=SourceTier(item["tier"]),
                    method=ReputationMethod.DATASET,
                    produced_by=by_name[str(item["source"])].produced_by,
                    version=by_name[str(item["source"])].version,
                ),
                SourceClass(item["source_class"]),
                note=f"under {item['suffix']}: {item['why']}",
            ),
        )
        for item in raw["rules"]
    )
    return DefaultRegistry(CompactLayer(lines, sources), rules, sources, str(raw["policy"]))


@lru_cache(maxsize=1)
def shipped_default() -> DefaultRegistry:
    """The shipped default registry, read once per process."""
    try:
        return parse_document(files("icarus.reputation").joinpath(DEFAULT_RESOURCE).read_bytes())
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RegistryFileError(f"shipped default registry: {exc}") from exc


def sources_manifest() -> tuple[SourceInfo, ...]:
    """The reputation sources in use by default: each one's name, origin, version, licence and what it gives
    (the shipped manual records are listed first)."""
    manual = SourceInfo(
        name="manual",
        title="The project's reviewed classifications (data/manual.json)",
        origin="src/icarus/reputation/data/manual.json",
        version=hashlib.sha256(
            files("icarus.reputation").joinpath("data/manual.json").read_bytes()
        ).hexdigest()[:12],
        produced_by="reviewer:icarus-maintainer",
        licence="the project's own",
        records=len(json.loads(files("icarus.reputation").joinpath("data/manual.json").read_text())),
        gives="class, tier and score for primary officials, wires, aggregators, satire, platforms, release services and preprint servers; wins every field it sets",
    )
    return (manual, *shipped_default().sources)


def render_sources_markdown() -> str:
    """The "Reputation sources" section of the methodology, in Markdown: every source the default registry
    uses, with its version, licence and what it gives. ``icarus.scoring`` stays free of package data, so a
    front door that shows the methodology appends this section itself."""
    lines = [
        "## Reputation sources",
        "",
        "Records on file come from these sources, merged per field: a reviewed class, tier and score win;",
        "an imported score fills in where no review exists; risk flags combine worst-of and only lower a",
        "score. `icarus registry show DOMAIN` names the source of each field.",
        "",
        "| source | version | records | licence | gives |",
        "|---|---|---|---|---|",
    ]
    for source in sources_manifest():
        cells = [f"{source.name}: {source.title}", source.version, str(source.records), source.licence]
        cells.append(source.gives)
        lines.append("| " + " | ".join(cell.replace("|", "/") for cell in cells) + " |")
    lines.append("")
    return "\n".join(lines)


def render_rules_markdown() -> str:
    """The suffix rules as a Markdown table: suffix, kind, class, score, and why registration justifies it."""
    values = load_policy(POLICY_REF).reputation
    lines = ["| suffix | kind | class and tier | score | why |", "|---|---|---|---|---|"]
    for spec in RULES:
        source_class, _tier, baseline = RULE_KINDS[spec.kind]
        lines.append(
            f"| `{spec.suffix}` | {spec.kind.replace('_', ' ')} | {source_class.value} | "
            f"{getattr(values, baseline)} ({baseline.replace('_', ' ')}) | {spec.why} |"
        )
    lines.append("")
    return "\n".join(lines)
