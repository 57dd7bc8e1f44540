"""Scholarly metadata of an HTML page: its DOI, ISSN, journal, kind of publication and date (H16, H17).

Four kinds of markup are read:

- Highwire Press / Google Scholar ``citation_*`` and PRISM ``prism.*`` meta tags, which journals and preprint
  servers write for indexers. extruct has no syntax for them, so they are read from the tree's ``<meta>``s.
- Dublin Core (``DC.*``, ``dcterms.*``), JSON-LD, microdata and RDFa, read by extruct. Of the last three only
  records typed ``ScholarlyArticle``, ``MedicalScholarlyArticle`` or ``Report`` (schema.org) count.

The kind of publication is decided in this order. A preprint: a preprint server's name as the journal or
publisher, a preprint server's DOI prefix, an arXiv id, or a status or type that says preprint. A report: a
technical-report institution, or the type ``Report``. A journal article: a journal title, an ISSN, or a
periodical the record is part of. Otherwise unknown: a DOI alone says neither, since preprints have DOIs.

Hostile markup is cut before extruct sees it: at most ``MAX_META_TAGS`` meta tags and ``MAX_JSON_LD_CHARS``
of JSON-LD go to it in a small document of their own; microdata and RDFa, which need the page's structure,
run only on a page that has a scholarly item in that syntax and is under their element and nesting caps
(extruct's microdata reader grows with the cube of itemscope nesting; its RDFa reader costs about 50 µs an
element). Every walk over what extruct returns is iterative and capped, and any extruct failure on a syntax
leaves that syntax out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from itertools import islice
from typing import Any

import lxml.etree
import lxml.html
from pydantic import BaseModel, ConfigDict, Field

from icarus.ledger import PublicationType
from icarus.ledger.identifiers import normalize_doi, normalize_issn

__all__ = [
    "MAX_HTML_BYTES",
    "MAX_ITEMSCOPE_DEPTH",
    "MAX_JSON_LD_CHARS",
    "MAX_META_TAGS",
    "MAX_MICRODATA_ELEMENTS",
    "MAX_RDFA_ELEMENTS",
    "ScholarlyMetadata",
    "read_html_metadata",
    "read_scholarly_metadata",
]

MAX_HTML_BYTES = 16 * 1024 * 1024  # the fetcher's HTML limit; a corpus file over it is not parsed for this
MAX_META_TAGS = 1000
MAX_JSON_LD_CHARS = 256 * 1024  # all scripts together; jstyleson's fallback reads them a character at a time
MAX_MICRODATA_ELEMENTS = 2000  # elements carrying itemscope or itemprop
MAX_ITEMSCOPE_DEPTH = 16  # 16 nested items read in milliseconds, 128 in a tenth of a second, 250 in two
MAX_RDFA_ELEMENTS = 5000  # every element of the page: pyRdfa visits them all
_MAX_NODES = 5000  # record nodes walked in what extruct returns
_MAX_DEPTH = 16
_MAX_FIELD_CHARS = 500

_SCHEMA_HOSTS = ("schema.org/",)
_ARTICLE_TYPES = frozenset({"scholarlyarticle", "medicalscholarlyarticle"})
_REPORT_TYPES = frozenset({"report"})
_PERIODICAL_TYPES = frozenset({"periodical", "publicationvolume", "publicationissue"})
_SCHOLARLY_XPATH_TYPES = ("ScholarlyArticle", "Report")

# Preprint servers H17 names, as their journal or publisher field writes them (lower case, no punctuation).
PREPRINT_SERVER_NAMES: frozenset[str] = frozenset(
    {
        "arxiv",
        "arxivorg",
        "biorxiv",
        "medrxiv",
        "ssrn",
        "ssrn electronic journal",
        "social science research network",
        "research square",
        "researchsquare",
        "chemrxiv",
        "preprintsorg",
        "preprints",
        "osf preprints",
        "psyarxiv",
        "socarxiv",
    }
)
# Their DOI prefixes (bioRxiv and medRxiv share 10.1101 with Cold Spring Harbor's journals, whose DOIs are
# not dated or all digits).
_PREPRINT_DOI = re.compile(
    r"^(?:10\.48550/arxiv\.|10\.1101/(?:\d{4}\.\d{2}\.\d{2}\.|\d{6,}$)|10\.2139/ssrn\.|10\.21203/rs\.|"
    r"10\.26434/chemrxiv|10\.20944/preprints|10\.\d+/osf\.io/)"
)
_PREPRINT_WORDS = re.compile(r"\b(?:preprint|pre-print|working paper|not peer[- ]reviewed)\b", re.IGNORECASE)
_REPORT_WORDS = re.compile(r"\b(?:technical report|working paper|report)\b", re.IGNORECASE)
_NAME_PUNCTUATION = re.compile(r"[^\w ]+")

_HIGHWIRE_DOI = ("citation_doi", "prism.doi", "dc.identifier.doi", "bepress_citation_doi")
_HIGHWIRE_ISSN = ("citation_issn", "citation_eissn", "prism.issn", "prism.eissn", "bepress_citation_issn")
_HIGHWIRE_JOURNAL = (
    "citation_journal_title",
    "citation_journal_abbrev",
    "prism.publicationname",
    "bepress_citation_journal_title",
)
_HIGHWIRE_PUBLISHER = ("citation_publisher", "dc.publisher", "bepress_citation_publisher")
_HIGHWIRE_REPORT = (
    "citation_technical_report_institution",
    "citation_technical_report_number",
    "bepress_citation_technical_report_institution",
)
_HIGHWIRE_PREPRINT = ("citation_arxiv_id",)
_HIGHWIRE_DATE = (
    "citation_publication_date",
    "citation_online_date",
    "citation_date",
    "prism.publicationdate",
    "bepress_citation_date",
)


class ScholarlyMetadata(BaseModel):
    """What a page's scholarly markup says about it; each field None when no markup gives it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    doi: str | None = Field(default=None, description="Normalised DOI (lower case, no resolver prefix).")
    issn: str | None = Field(default=None, description="ISSN as NNNN-NNNC, check digit verified.")
    container_title: str | None = Field(default=None, description="The journal's title.")
    publication_type: PublicationType | None = Field(
        default=None, description="Journal article, preprint or report; None when the markup does not say."
    )
    published_at: datetime | None = Field(default=None, description="Publication date the markup gives.")
    found_in: tuple[str, ...] = Field(
        default=(), description="Markup that gave something: highwire, dublin_core, json-ld, microdata, rdfa."
    )

    def evidence_fields(self) -> dict[str, Any]:
        """The evidence item's fields this metadata fills (H16 keys its look-up on the DOI; H17 reads all)."""
        return {
            "doi": self.doi,
            "issn": self.issn,
            "container_title": self.container_title,
            "publication_type": self.publication_type,
        }


class _Found:
    """Candidates in the order they were met; the first of each wins."""

    def __init__(self) -> None:
        self.dois: list[str] = []
        self.issns: list[str] = []
        self.titles: list[str] = []
        self.servers: list[str] = []  # journal or publisher names, checked against the preprint servers
        self.dates: list[datetime] = []
        self.preprint = False
        self.report = False
        self.periodical = False
        self.found_in: list[str] = []

    def saw(self, syntax: str) -> None:
        if syntax not in self.found_in:
            self.found_in.append(syntax)

    def doi(self, value: object, syntax: str) -> None:
        text = _text(value)
        doi = normalize_doi(text) or normalize_doi(_doi_in_url(text))
        if doi:
            self.dois.append(doi)
            self.saw(syntax)

    def issn(self, value: object, syntax: str) -> None:
        issn = normalize_issn(_text(value))
        if issn:
            self.issns.append(issn)
            self.saw(syntax)

    def title(self, value: object, syntax: str) -> None:
        title = _text(value)
        if title and not title.startswith(("http://", "https://", "urn:")):
            self.titles.append(title)
            self.servers.append(title)
            self.saw(syntax)

    def date(self, value: object) -> None:
        moment = _date(_text(value))
        if moment is not None:
            self.dates.append(moment)

    def result(self) -> ScholarlyMetadata | None:
        said = self.dois or self.issns or self.titles or self.preprint or self.report or self.periodical
        if not said:
            return None  # a scholarly type alone, or a date alone, says nothing H16 or H17 reads
        doi = self.dois[0] if self.dois else None
        server = any(_server_name(name) in PREPRINT_SERVER_NAMES for name in self.servers)
        kind: PublicationType | None = None
        if self.preprint or server or (doi is not None and _PREPRINT_DOI.match(doi)):
            kind = PublicationType.PREPRINT
        elif self.report:
            kind = PublicationType.REPORT
        elif self.issns or self.titles or self.periodical:
            kind = PublicationType.JOURNAL_ARTICLE
        return ScholarlyMetadata(
            doi=doi,
            issn=self.issns[0] if self.issns else None,
            container_title=self.titles[0] if self.titles else None,
            publication_type=kind,
            published_at=self.dates[0] if self.dates else None,
            found_in=tuple(self.found_in),
        )


def read_scholarly_metadata(root: Any, base_url: str) -> ScholarlyMetadata | None:
    """The scholarly metadata in a parsed page (an lxml HTML tree), or None when it has none. Never raises
    on what the page holds; reads the tree without changing it."""
    found = _Found()
    metas = _meta_tags(root)
    _read_highwire(metas, found)
    document = _metadata_document(root, metas)
    extracted = _extruct(document, base_url, ["json-ld", "dublincore"]) if document is not None else {}
    _read_dublin_core(extracted.get("dublincore", []), found)
    _read_schema_records(extracted.get("json-ld", []), "json-ld", found)
    if _microdata_fits(root):
        _read_schema_records(_extruct(root, base_url, ["microdata"]).get("microdata", []), "microdata", found)
    if _rdfa_fits(root):
        _read_schema_records(_rdfa_records(root, base_url), "rdfa", found)
    return found.result()


def read_html_metadata(body: bytes, base_url: str) -> ScholarlyMetadata | None:
    """``read_scholarly_metadata`` on raw HTML (a corpus file), parsed as the fetcher parses pages."""
    if len(body) > MAX_HTML_BYTES or not body.strip():
        return None
    parser = lxml.html.HTMLParser(
        recover=True, no_network=True, remove_pis=True, huge_tree=False, collect_ids=False
    )
    try:
        root = lxml.html.document_fromstring(body, parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return None
    return read_scholarly_metadata(root, base_url)


# --- markup readers ---------------------------------------------------------------------------------


def _meta_tags(root: Any) -> list[tuple[str, str]]:
    """(name, content) of the first ``MAX_META_TAGS`` meta tags with a name (or property) and content."""
    out: list[tuple[str, str]] = []
    for el in root.iter("meta"):
        name = (el.get("name") or el.get("property") or "").strip()
        content = el.get("content")
        if name and content and content.strip():
            out.append((name, content.strip()[:_MAX_FIELD_CHARS]))
            if len(out) >= MAX_META_TAGS:
                break
    return out


def _read_highwire(metas: list[tuple[str, str]], found: _Found) -> None:
    by_name: dict[str, list[str]] = {}
    for name, content in metas:
        by_name.setdefault(name.lower(), []).append(content)

    def values(names: tuple[str, ...]) -> Iterator[str]:
        for name in names:
            yield from by_name.get(name, [])

    for value in values(_HIGHWIRE_DOI):
        found.doi(value, "highwire")
    for value in values(_HIGHWIRE_ISSN):
        found.issn(value, "highwire")
    for value in values(_HIGHWIRE_JOURNAL):
        found.title(value, "highwire")
    found.servers.extend(values(_HIGHWIRE_PUBLISHER))
    if any(True for _ in values(_HIGHWIRE_PREPRINT)):
        found.preprint = True
        found.saw("highwire")
    if any(True for _ in values(_HIGHWIRE_REPORT)):
        found.report = True
        found.saw("highwire")
    for value in values(_HIGHWIRE_DATE):
        found.date(value.replace("/", "-"))


def _read_dublin_core(records: list[dict[str, Any]], found: _Found) -> None:
    for record in records[:1]:
        entries = [*(record.get("elements") or []), *(record.get("terms") or [])]
        kind = _text(record.get("@type"))
        if kind and _PREPRINT_WORDS.search(kind):
            found.preprint = True
            found.saw("dublin_core")
        elif kind and _REPORT_WORDS.search(kind):
            found.report = True
            found.saw("dublin_core")
        for entry in entries[:MAX_META_TAGS]:
            if not isinstance(entry, dict):
                continue
            term = _text(entry.get("URI")).rsplit("/", 1)[-1].lower()
            content = _text(entry.get("content"))
            if term == "identifier":
                found.doi(content, "dublin_core")
                if content.lower().startswith("urn:issn:"):
                    found.issn(content, "dublin_core")
            elif term == "ispartof":
                if normalize_issn(content):
                    found.issn(content, "dublin_core")
                else:
                    found.title(content, "dublin_core")
            elif term == "publisher":
                found.servers.append(content)
            elif term in ("issued", "date", "created", "available"):
                found.date(content)


def _read_schema_records(records: Iterable[Any], syntax: str, found: _Found) -> None:
    """schema.org records (JSON-LD, microdata, RDFa made compact): the scholarly ones, anywhere inside."""
    for node in _scholarly_nodes(records):
        kinds = _types(node)
        found.saw(syntax)
        if kinds & _REPORT_TYPES:
            found.report = True
        status = _text(node.get("creativeWorkStatus"))
        if _PREPRINT_WORDS.search(status):
            found.preprint = True
        for key in ("doi", "identifier", "sameAs", "@id", "url"):
            for value in _values(node.get(key)):
                if isinstance(value, dict):  # a PropertyValue: {"propertyID": "DOI", "value": ...}
                    if _text(value.get("propertyID")).lower() == "doi":
                        found.doi(value.get("value"), syntax)
                elif key in ("doi", "identifier") or "doi.org/" in _text(value).lower():
                    found.doi(value, syntax)
        for value in _values(node.get("issn")):
            found.issn(value, syntax)
        for publisher in _values(node.get("publisher")):
            found.servers.append(_text(publisher.get("name") if isinstance(publisher, dict) else publisher))
        for value in _values(node.get("datePublished")):
            found.date(value)
        _read_container(node.get("isPartOf"), syntax, found)


def _read_container(value: Any, syntax: str, found: _Found) -> None:
    """The periodical an article is part of, up through issue and volume (``isPartOf`` chains)."""
    pending = [(v, 0) for v in _values(value)]
    while pending:
        node, depth = pending.pop(0)
        if depth > _MAX_DEPTH:
            continue
        if isinstance(node, str):
            found.title(node, syntax)
            continue
        if not isinstance(node, dict):
            continue
        kinds = _types(node)
        if kinds & _PERIODICAL_TYPES or not kinds:
            found.periodical = found.periodical or bool(kinds & _PERIODICAL_TYPES)
            for issn in _values(node.get("issn")):
                found.issn(issn, syntax)
            if "periodical" in kinds or not kinds:
                for name in _values(node.get("name")):
                    found.title(name, syntax)
        pending.extend((v, depth + 1) for v in _values(node.get("isPartOf")))


def _scholarly_nodes(records: Iterable[Any]) -> Iterator[dict[str, Any]]:
    stack: list[tuple[Any, int]] = [(record, 0) for record in records]
    stack.reverse()
    seen = 0
    while stack and seen < _MAX_NODES:
        node, depth = stack.pop()
        seen += 1
        if depth > _MAX_DEPTH:
            continue
        if isinstance(node, list):
            stack.extend((v, depth + 1) for v in reversed(node))
            continue
        if not isinstance(node, dict):
            continue
        if _types(node) & (_ARTICLE_TYPES | _REPORT_TYPES):
            yield node
        stack.extend((v, depth + 1) for v in reversed(list(node.values())) if isinstance(v, (dict, list)))


# --- extruct, with its inputs capped ------------------------------------------------------------------


def _extruct(tree: Any, base_url: str, syntaxes: list[str]) -> dict[str, list[Any]]:
    import extruct  # here: it loads rdflib, a fifth of a second that a check of a sentence never needs

    try:
        data: dict[str, list[Any]] = extruct.extract(
            tree, base_url=base_url, syntaxes=syntaxes, uniform=True, errors="ignore"
        )
    except Exception:  # extruct's own argument checks; a page must not take the check down
        return {}
    return data


def _metadata_document(root: Any, metas: list[tuple[str, str]]) -> Any:
    """A small document holding only the page's Dublin Core meta tags and JSON-LD, within their caps; None
    when the page has neither."""
    doc = lxml.html.Element("html")
    head = lxml.etree.SubElement(doc, "head")
    for name, content in metas:
        if name.lower().startswith(("dc.", "dcterms.")):
            lxml.etree.SubElement(head, "meta", name=name, content=content)
    budget = MAX_JSON_LD_CHARS
    for el in root.iter("script"):
        if (el.get("type") or "").strip().lower() != "application/ld+json":
            continue
        text = el.text or ""
        if len(text) > budget:
            break
        budget -= len(text)
        lxml.etree.SubElement(head, "script", type="application/ld+json").text = text
    return doc if len(head) else None


def _has_typed(root: Any, attribute: str) -> bool:
    test = " or ".join(f"contains(@{attribute}, '{name}')" for name in _SCHOLARLY_XPATH_TYPES)
    return bool(root.xpath(f"boolean(//*[{test}])"))


def _microdata_fits(root: Any) -> bool:
    if not _has_typed(root, "itemtype"):
        return False
    items = root.xpath(f"(//*[@itemscope or @itemprop])[position() <= {MAX_MICRODATA_ELEMENTS + 1}]")
    if len(items) > MAX_MICRODATA_ELEMENTS:
        return False
    return not any(
        len(el.xpath("ancestor::*[@itemscope]")) > MAX_ITEMSCOPE_DEPTH
        for el in items
        if el.get("itemscope") is not None
    )


def _rdfa_fits(root: Any) -> bool:
    if not _has_typed(root, "typeof"):
        return False
    return sum(1 for _ in islice(root.iter(), MAX_RDFA_ELEMENTS + 1)) <= MAX_RDFA_ELEMENTS


def _rdfa_records(root: Any, base_url: str) -> list[dict[str, Any]]:
    """RDFa read by extruct (it needs its own DOM parser, so the page is serialised and parsed again), made
    compact: ``https://schema.org/name: [{"@value": "x"}]`` becomes ``name: "x"`` and node references are
    followed, as JSON-LD writes them."""
    from extruct.xmldom import XmlDomHTMLParser

    try:
        markup = lxml.html.tostring(root, encoding="utf-8")
        tree = lxml.html.fromstring(markup, parser=XmlDomHTMLParser(encoding="utf-8"))
    except (lxml.etree.LxmlError, ValueError):
        return []
    expanded = [n for n in _extruct(tree, base_url, ["rdfa"]).get("rdfa", []) if isinstance(n, dict)]
    by_id = {n.get("@id"): n for n in expanded if isinstance(n.get("@id"), str)}

    def compact(node: dict[str, Any], depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {"@type": [_schema_term(t) for t in _values(node.get("@type"))]}
        if isinstance(node.get("@id"), str):
            out["@id"] = node["@id"]
        for key, values in node.items():
            if key.startswith("@") or not any(host in key for host in _SCHEMA_HOSTS):
                continue
            items: list[Any] = []
            for value in _values(values):
                if not isinstance(value, dict):
                    continue
                if "@value" in value:
                    items.append(value["@value"])
                elif (ref := by_id.get(value.get("@id"))) is not None and depth < 4:
                    items.append(compact(ref, depth + 1))
                elif isinstance(value.get("@id"), str):
                    items.append(value["@id"])
            out[_schema_term(key)] = items
        return out

    return [compact(node, 0) for node in expanded[:_MAX_NODES]]


# --- small helpers ------------------------------------------------------------------------------------


def _values(value: Any) -> list[Any]:
    if value is None:
        return []
    return value[:_MAX_NODES] if isinstance(value, list) else [value]


def _text(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("@value", value.get("name"))
    return " ".join(value.split())[:_MAX_FIELD_CHARS] if isinstance(value, str) else ""


def _schema_term(value: Any) -> str:
    text = _text(value)
    return re.split(r"[/#]", text)[-1] if any(host in text for host in _SCHEMA_HOSTS) else text


def _types(node: dict[str, Any]) -> set[str]:
    return {_schema_term(t).lower() for t in _values(node.get("@type")) if isinstance(t, str)}


def _server_name(value: str) -> str:
    return " ".join(_NAME_PUNCTUATION.sub("", value.lower()).split())


def _doi_in_url(value: str) -> str | None:
    lowered = value.lower()
    at = lowered.find("doi.org/")
    return value[at + len("doi.org/") :] if at >= 0 else None


def _date(value: str) -> datetime | None:
    """An ISO date or timestamp (``2020``, ``2020-03``, ``2020-03-04``, with a time or not) in UTC."""
    text = value.strip()
    if not text:
        return None
    parts = re.fullmatch(r"(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", text)
    try:
        if parts:
            year, month, day = (int(p) if p else 1 for p in parts.groups())
            moment = datetime(year, month, day, tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC) if 1900 <= moment.year <= 2200 else None
