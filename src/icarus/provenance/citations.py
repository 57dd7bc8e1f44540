"""H2 and H3: who an item says it got its story from.

Four kinds of evidence of derivation are read from each item:

* wire markers (H2): a wire dateline or credit such as ``WASHINGTON (AP) —``, ``(Reuters) -``, an
  "Associated Press" or "Reuters staff" byline, or an AFP photo or copyright credit;
* attribution phrases (H3): "according to X" (also "according to a X report"), "told X", "X said in a
  statement", "first reported by X", "as reported by X", "citing X", "additional reporting by X", where X
  is a capitalised proper name, and "X reported" where X is a publisher in the ledger or a wire;
* outbound links to another ledger item or to an artifact under review (H7 builds on these);
* the ledger's own ``attributions``: parsed ones are read like the above, judge ones are kept with origin
  ``judge`` so that the record shows they came from a model (a judge edge can only make an item derivative).

A named source resolves to every ledger item of that publisher, or to a virtual node ``source:<name>`` when
the ledger holds none. An item never cites its own publisher. Each reading is returned as a ``Mention``
(one source, possibly several targets); ``resolve_mentions`` turns mentions into edges once copy groups are
known, so that "(AP) —" on a copy of one AP story points at that story rather than at every AP story.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from icarus.ledger.evidence import AttributionOrigin, EvidenceItem
from icarus.provenance.canonical import canonical_url, registered_domain
from icarus.provenance.model import CitationEdge, EdgeOrigin

__all__ = [
    "ARTIFACT_PREFIX",
    "Mention",
    "extract_mentions",
    "normalise_name",
    "resolve_mentions",
]

ARTIFACT_PREFIX = "artifact:"
"""Target prefix of an artifact under review (the post or page being checked), as opposed to a ledger item."""

# Normalised spellings of the three wires, folded to one key each.
_WIRE_ALIASES: Mapping[str, str] = {
    "ap": "ap",
    "associated-press": "ap",
    "ap-news": "ap",
    "associated-press-news": "ap",
    "reuters": "reuters",
    "thomson-reuters": "reuters",
    "reuters-staff": "reuters",
    "reuters-news": "reuters",
    "afp": "afp",
    "agence-france-presse": "afp",
    "agence-france-press": "afp",
    "afp-news": "afp",
}
_WIRE_DOMAINS: Mapping[str, str] = {
    "apnews.com": "ap",
    "ap.org": "ap",
    "reuters.com": "reuters",
    "afp.com": "afp",
}

# Capitalised words that start sentences or name times, not sources ("told Monday", "On Tuesday X said").
_NOT_A_NAME = frozenset(
    {
        "a", "an", "and", "but", "so", "then", "on", "in", "at", "by", "for", "of", "to", "from", "with",
        "i", "he", "she", "it", "we", "they", "you", "this", "that", "these", "those", "there", "his", "her",
        "its", "their", "our", "my", "your", "later", "earlier", "meanwhile", "however", "also", "when",
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "yesterday",
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december", "mr", "mrs", "ms", "dr",
    }
)  # fmt: skip

_DOMAIN_SUFFIX = re.compile(r"\.(?:com|org|net|co\.uk)$")
_POSSESSIVE = re.compile(r"'s\b")
_NAME_WORDS = re.compile(r"[a-z0-9&]+")
_CAP_WORD = r"[A-Z][\w&'’.-]*"
_NAME = rf"(?:{_CAP_WORD})(?:\s+(?:(?:of|the|for|and|de|du)\s+)*{_CAP_WORD})*"

# Phrases that name a source after them.
# "according to a Reuters report" names Reuters: an article may stand before the name.
_AFTER_PHRASE = re.compile(
    r"(?P<phrase>\b(?i:according\s+to|told|(?:first\s+|originally\s+|as\s+)?reported\s+by|citing"
    r"|(?:additional\s+)?reporting\s+by))"
    rf"\s+(?P<name>(?:(?:[Tt]he|an?)\s+)?{_NAME})"
)
_PHRASE_NEEDLES = ("according", "told", "reported by", "citing", "reporting by")
# Phrases whose source is named before them: "X said in a statement", and "Reuters reported", which is kept
# only for a name the ledger publishes or a wire (``_Resolver.known``), since any subject can report.
_STATEMENT_PHRASE = re.compile(r"\b(?i:said\s+in\s+a\s+statement)")
_REPORTED_PHRASE = re.compile(r"\b(?i:reported|reports|has\s+reported)\b")
# The name is looked for only in a bounded window before the phrase: a name-first pattern run over a whole
# page backtracks through every run of capitalised words, which a hostile page makes quadratic.
_NAME_WINDOW_CHARS = 160
_NAME_BEFORE = re.compile(rf"(?P<name>{_NAME})\s+\Z")

_WIRE_NAME = r"(?P<wire>AP|Reuters|AFP|Associated\s+Press|Agence\s+France[- ]Presse)"
# Each marker pattern with a cheap literal test (on the lower-cased text) that must pass before it runs.
_WIRE_TEXT_MARKERS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    # datelines: "WASHINGTON (AP) —", "(Reuters) -", "PARIS (AFP) -"
    (("(ap)", "(reuters)", "(afp)"), re.compile(r"\((?P<wire>(?i:AP|Reuters|AFP))\)\s*[—–-]+")),
    # credits and copyright lines
    (
        ("copyright", "©", "(c)"),
        re.compile(rf"(?i:copyright|©|\(c\))\s*(?:\d{{4}}\s*)?(?:[Tt]he\s+)?{_WIRE_NAME}"),
    ),
    (
        ("contributed", "staff", "writer"),
        re.compile(rf"(?:[Tt]he\s+)?{_WIRE_NAME}\s+(?i:contributed\s+to\s+this\s+report|staff|writers?\b)"),
    ),
    (("afp",), re.compile(r"(?P<wire>AFP)\s*(?i:photo|/\s*getty)|(?i:photo:?)\s*(?P<wire2>AFP)\b")),
    # a line that is only the wire's name: the byline of a syndicated story
    (
        ("ap", "reuters", "afp", "associated press", "agence france"),
        re.compile(rf"(?m)^\s*(?:[Bb]y\s+)?(?:[Tt]he\s+)?{_WIRE_NAME}\s*$"),
    ),
)
_WIRE_IN_BYLINE = re.compile(
    r"\b(?:(?P<ap>AP|(?i:associated\s+press))|(?P<reuters>(?i:reuters))|"
    r"(?P<afp>AFP|(?i:agence\s+france[- ]presse)))\b"
)


@lru_cache(maxsize=1 << 14)  # the same publishers and wire names come back in every ledger
def normalise_name(name: str) -> str:
    """Fold a publisher or source name to a slug: ``The Associated Press`` -> ``ap``.

    Case, accents, punctuation, a leading "the" and a trailing ``.com`` are ignored; the wires' known
    spellings fold to ``ap``, ``reuters`` and ``afp``.
    """
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower().strip()
    text = _DOMAIN_SUFFIX.sub("", text)
    text = _POSSESSIVE.sub("", text.replace("’", "'"))
    words = _NAME_WORDS.findall(text)
    while words and words[0] == "the":
        words.pop(0)
    slug = "-".join(words)
    return _WIRE_ALIASES.get(slug, slug)


def _clean_name(raw: str) -> str | None:
    words = raw.rstrip(".,;:'’-").split()
    while words and words[0].lower().strip(".") in _NOT_A_NAME:
        words.pop(0)
    while words and words[-1].lower() in {"of", "the", "for", "and", "de", "du"}:
        words.pop()
    if not words:
        return None
    return " ".join(words)


@dataclass(frozen=True, slots=True)
class Mention:
    """One reading of derivation: ``source`` got its story from one of ``targets``."""

    source: str
    targets: tuple[str, ...]
    origin: EdgeOrigin
    detail: str


class _Resolver:
    """Name and URL look-ups over the whole ledger."""

    def __init__(
        self,
        evidence: Sequence[EvidenceItem],
        canonical_urls: Mapping[str, str],
        artifact_urls: Sequence[str],
    ) -> None:
        by_publisher: dict[str, set[str]] = defaultdict(set)
        by_url: dict[str, set[str]] = defaultdict(set)
        self.own_names: dict[str, frozenset[str]] = {}
        for item in evidence:
            names = {normalise_name(item.publisher)}
            wire = _WIRE_DOMAINS.get(registered_domain(item.domain))
            if wire is not None:
                names.add(wire)
            names.discard("")
            self.own_names[item.evidence_id] = frozenset(names)
            for name in names:
                by_publisher[name].add(item.evidence_id)
            by_url[canonical_urls[item.evidence_id]].add(item.evidence_id)
        self.by_publisher = {name: tuple(sorted(ids)) for name, ids in by_publisher.items()}
        self.by_url = {url: tuple(sorted(ids)) for url, ids in by_url.items()}
        self.artifacts = frozenset(canonical_url(url) for url in artifact_urls)

    def name_targets(self, source_id: str, name: str) -> tuple[str, ...]:
        key = normalise_name(name)
        if not key or key in self.own_names[source_id]:
            return ()
        return self.by_publisher.get(key, (f"source:{key}",))

    def known(self, name: str) -> bool:
        key = normalise_name(name)
        return key in self.by_publisher or key in {"ap", "reuters", "afp"}

    def split_names(self, name: str) -> list[str]:
        """ "Reuters and The Associated Press" names two sources; "Health and Human Services" names one.

        A name is split at "and" only when the whole is not a known publisher and a part is one.
        """
        parts = re.split(r"\s+and\s+", name)
        if len(parts) == 1 or self.known(name) or not any(self.known(part) for part in parts):
            return [name]
        return parts

    def url_targets(self, source_id: str, url: str) -> tuple[str, ...]:
        canonical = canonical_url(url)
        targets = [target for target in self.by_url.get(canonical, ()) if target != source_id]
        if canonical in self.artifacts:
            targets.append(f"{ARTIFACT_PREFIX}{canonical}")
        return tuple(sorted(targets))


def _item_text(item: EvidenceItem) -> str:
    if item.text:
        return item.text
    return item.excerpt.text if item.excerpt is not None else ""


def _wire_mentions(item: EvidenceItem, text: str, resolver: _Resolver) -> list[Mention]:
    found: dict[str, str] = {}
    if any(needle in text for needle in ("AP", "Reuters", "REUTERS", "AFP", "ssociated", "France")):
        lowered = text.lower()
        for needles, pattern in _WIRE_TEXT_MARKERS:
            if not any(needle in lowered for needle in needles):
                continue
            for match in pattern.finditer(text):
                groups = match.groupdict()
                wire = groups.get("wire") or groups.get("wire2")
                if wire:
                    found.setdefault(normalise_name(wire), " ".join(match.group(0).split()))
    if item.byline:
        for match in _WIRE_IN_BYLINE.finditer(item.byline):
            key = next(name for name in ("ap", "reuters", "afp") if match.group(name))
            found.setdefault(key, f"byline: {item.byline.strip()}")
    mentions = []
    for wire, detail in sorted(found.items()):
        targets = resolver.name_targets(item.evidence_id, wire)
        if targets:
            mentions.append(Mention(item.evidence_id, targets, EdgeOrigin.WIRE_MARKER, detail))
    return mentions


def _names_before(text: str, phrase: re.Pattern[str]) -> list[tuple[str, str]]:
    """(raw name, detail) for each ``phrase`` in ``text`` with a capitalised name just before it."""
    found = []
    for match in phrase.finditer(text):
        start = max(0, match.start() - _NAME_WINDOW_CHARS)
        if start > 0:  # do not start inside a word cut by the window
            start = text.find(" ", start, match.start()) + 1 or match.start()
        name = _NAME_BEFORE.search(text, start, match.start())
        if name is not None:
            found.append((name.group("name"), f"{name.group(0)}{match.group(0)}"))
    return found


def _phrase_mentions(item: EvidenceItem, text: str, resolver: _Resolver) -> list[Mention]:
    mentions: list[Mention] = []
    lowered = text.lower()
    readings: list[tuple[str, str]] = []
    if any(needle in lowered for needle in _PHRASE_NEEDLES):
        readings.extend((m.group("name"), m.group(0)) for m in _AFTER_PHRASE.finditer(text))
    if "said in a statement" in lowered:
        readings.extend(_names_before(text, _STATEMENT_PHRASE))
    if "report" in lowered:
        readings.extend(
            (raw, detail)
            for raw, detail in _names_before(text, _REPORTED_PHRASE)
            if resolver.known(_clean_name(raw) or "")
        )
    for raw, whole in readings:
        name = _clean_name(raw)
        if name is None:
            continue
        detail = " ".join(whole.split()).rstrip(".,;:")
        for part in resolver.split_names(name):
            targets = resolver.name_targets(item.evidence_id, part)
            if targets:
                mentions.append(Mention(item.evidence_id, targets, EdgeOrigin.ATTRIBUTION, detail))
    return mentions


def _link_mentions(item: EvidenceItem, resolver: _Resolver) -> list[Mention]:
    mentions = []
    for link in item.links:
        targets = resolver.url_targets(item.evidence_id, link)
        if targets:
            mentions.append(Mention(item.evidence_id, targets, EdgeOrigin.LINK, link))
    return mentions


def _ledger_attribution_mentions(item: EvidenceItem, resolver: _Resolver) -> list[Mention]:
    mentions = []
    for attribution in item.attributions:
        origin = EdgeOrigin.JUDGE if attribution.origin is AttributionOrigin.JUDGE else EdgeOrigin.ATTRIBUTION
        targets: tuple[str, ...] = ()
        if attribution.target_url:
            targets = resolver.url_targets(item.evidence_id, attribution.target_url)
        if not targets and attribution.target_name:
            targets = resolver.name_targets(item.evidence_id, attribution.target_name)
        if targets:
            detail = attribution.phrase or attribution.target_url or attribution.target_name or ""
            mentions.append(Mention(item.evidence_id, targets, origin, detail))
    return mentions


def extract_mentions(
    evidence: Sequence[EvidenceItem],
    canonical_urls: Mapping[str, str],
    artifact_urls: Sequence[str],
) -> tuple[Mention, ...]:
    """Every reading of derivation in the ledger, in a deterministic order."""
    resolver = _Resolver(evidence, canonical_urls, artifact_urls)
    mentions: list[Mention] = []
    for item in evidence:
        text = _item_text(item)
        mentions.extend(_wire_mentions(item, text, resolver))
        mentions.extend(_phrase_mentions(item, text, resolver))
        mentions.extend(_link_mentions(item, resolver))
        mentions.extend(_ledger_attribution_mentions(item, resolver))
    # Edges are de-duplicated later; a sort is enough here (hashing long target tuples is not free).
    return tuple(sorted(mentions, key=lambda m: (m.source, m.origin, m.detail, m.targets)))


def resolve_mentions(
    mentions: Sequence[Mention],
    group_of: Mapping[str, int],
    closest: Callable[[str, Sequence[str]], Sequence[str]] | None = None,
) -> tuple[CitationEdge, ...]:
    """Turn mentions into edges.

    A mention that names a publisher with several items in the ledger is narrowed: to the items in the
    source's own copy group if there are any (a copy of one AP story derives from that story, not from
    every AP story), else, when ``closest`` is given, to the items whose text the source overlaps most.
    With no overlap at all every item of the publisher stays a target.
    """
    members: dict[int, list[str]] = defaultdict(list)
    for evidence_id, number in group_of.items():
        members[number].append(evidence_id)
    # A named publisher's targets are one shared tuple; turn each distinct tuple into a set only once.
    as_set: dict[int, frozenset[str]] = {}
    artifacts_of: dict[int, tuple[str, ...]] = {}  # likewise the artifact targets of each distinct tuple
    edges: set[CitationEdge] = set()
    for mention in mentions:
        group = members[group_of[mention.source]]
        if len(mention.targets) <= len(group):
            targets: Sequence[str] = [
                t for t in mention.targets if group_of.get(t) == group_of[mention.source]
            ]
        else:
            target_set = as_set.get(id(mention.targets))
            if target_set is None:
                target_set = as_set[id(mention.targets)] = frozenset(mention.targets)
            targets = sorted(member for member in group if member in target_set)
        if not targets:
            targets = mention.targets
            if closest is not None and len(targets) > 1:
                targets = closest(mention.source, targets)
        # Narrowing chooses among ledger items; a path back to the material under review always stays (H7).
        artifacts = artifacts_of.get(id(mention.targets))
        if artifacts is None:
            artifacts = artifacts_of[id(mention.targets)] = tuple(
                t for t in mention.targets if t.startswith(ARTIFACT_PREFIX)
            )
        artifacts = tuple(t for t in artifacts if t not in targets)
        for target in [*targets, *artifacts]:
            edges.add(CitationEdge(mention.source, target, mention.origin, mention.detail))
    return tuple(sorted(edges, key=lambda e: (e.source, e.target, e.origin, e.detail)))
