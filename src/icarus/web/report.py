"""The report page: the finding in plain words first, then each claim in the post's own words with what
would settle it, the evidence grouped by independent origin with a picture of who cites whom, snapshots,
and the timeline. Rule codes, reason kinds, weights and the raw caveats are kept for auditors, in a
collapsed section under each claim and in "Recompute this result".

``report_context`` turns a ``ReportPage`` into the plain values the template prints; it is pure and
tested on its own. ``render_report_page`` renders it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from markupsafe import Markup
from pydantic import ValidationError

from icarus.ledger import EvidenceItem, EvidenceRole, LookupName
from icarus.reports.render import blockers_heading, deterministic_explanation, not_assessed_words
from icarus.scoring.icarus.assess import excerpt_matches
from icarus.scoring.icarus.catalog import ALL_ENTRIES
from icarus.web._env import environment, label_heading, label_symbol
from icarus.web.graph import ARTIFACT_PREFIX, SOURCE_PREFIX, GraphView, graph_from_trace, render_graph_svg
from icarus.web.model import Links, ReportPage

__all__ = [
    "ClaimChange",
    "claim_changes",
    "finding",
    "plain_caveats",
    "reason_kind",
    "render_report_page",
    "report_context",
]

CONTEXT_CHARS: Final = 90  # characters of the post shown either side of a claim's span
_RULE_NAMES: Final = {entry.code: entry.name for entry in ALL_ENTRIES}
_LOOKUP_CAVEAT: Final = re.compile(r"(.+) look-up (not run|error)")
_LOOKUPS: Final = {  # LookupName values as the caveat spells them (underscores as spaces): words, codes
    LookupName.RDAP.value: ("the domain's registration date", "RDAP, H10"),
    LookupName.SCHOLARLY_UPDATES.value.replace("_", " "): ("retraction and correction notices", "H16"),
    LookupName.C2PA.value: ("the media's content credentials", "C2PA, H22"),
    LookupName.ARCHIVE.value: ("an archived copy and the page's drift", "H24"),
}
_LOOKUP_WORDS: Final = {
    name: f"{words[:1].upper()}{words[1:]} ({codes})" for name, (words, codes) in _LOOKUPS.items()
}
NOTHING_ASSESSED: Final = "Nothing was assessed"
STANCE_WORDS: Final = {  # an evidence item's stance as the judge read it, in words
    "support": "supports the claim",
    "refute": "contradicts the claim",
    "neutral": "neither supports nor contradicts the claim",
}
LOCAL_DOCUMENT: Final = "a document of the local corpus"  # shown instead of a server path

# What each family of reason codes is, in words (colour and layout never carry this alone).
_REASON_KINDS: Final = (
    ("rule-", "decision"),
    ("overall", "overall"),
    ("penalty", "confidence penalty"),
    ("G", "gate"),
    ("H", "validity rule"),
)


def reason_kind(code: str) -> str:
    """``rule-4@1`` → decision, ``G1@1`` → gate, ``H19@1`` → validity rule, ``penalty@1`` → penalty."""
    for prefix, kind in _REASON_KINDS:
        if code.startswith(prefix) and (len(prefix) > 1 or code[1:2].isdigit()):
            return kind
    return "note"


@dataclass(frozen=True)
class ClaimChange:
    """One claim's conclusion before and after this version; ``None`` where it did not exist."""

    claim_id: str
    text: str
    before: tuple[str, str] | None  # (label, band)
    after: tuple[str, str] | None


def claim_changes(previous: Mapping[str, Any] | None, current: Mapping[str, Any]) -> list[ClaimChange]:
    """Per claim, what the previous version concluded and what this one does, changed claims only."""
    if previous is None:
        return []

    def scored(result: Mapping[str, Any]) -> dict[str, tuple[str, tuple[str, str]]]:
        return {
            str(c["id"]): (str(c.get("text", "")), (str(c["label"]), str(c["band"])))
            for c in result.get("claims", [])
        }

    before, after = scored(previous), scored(current)
    changes = []
    for claim_id in sorted(before.keys() | after.keys()):
        old, new = before.get(claim_id), after.get(claim_id)
        if old is not None and new is not None and old[1] == new[1]:
            continue
        text = (new or old or ("", ("", "")))[0]
        changes.append(ClaimChange(claim_id, text, old and old[1], new and new[1]))
    return changes


def _field_texts(ledger: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    if not ledger:
        return []
    subject = ledger.get("subject") or {}
    fields = [*subject.get("fields", []), *subject.get("context", [])]
    return [(str(f.get("name")), str(f.get("text", ""))) for f in fields]


def _place(claim_id: str, text: str, ledger: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Where the claim sits in the captured post: field name, offsets and the words around it."""
    if not ledger:
        return None
    claim = next((c for c in ledger.get("claims", []) if c.get("claim_id") == claim_id), None)
    if claim is None:
        return None
    span = claim.get("span") or {}
    start, end = int(span.get("start", 0)), int(span.get("end", 0))
    field_name = str(claim.get("source_field"))
    for name, source in _field_texts(ledger):
        if name == field_name and source[start:end] == text:
            before = source[max(0, start - CONTEXT_CHARS) : start]
            after = source[end : end + CONTEXT_CHARS]
            return {
                "field": field_name.replace("_", " "),
                "start": start,
                "end": end,
                "before": ("\u2026" if start > CONTEXT_CHARS else "") + before,
                "after": after + ("\u2026" if end + CONTEXT_CHARS < len(source) else ""),
            }
    return {"field": field_name.replace("_", " "), "start": start, "end": end, "before": "", "after": ""}


def _server_path(value: object) -> bool:
    """A local corpus document without a canonical URL is addressed by its file on the server."""
    return isinstance(value, str) and (value[:5].lower() == "file:" or value.startswith("/"))


def _public_item(item: Mapping[str, Any]) -> dict[str, Any]:
    """An evidence entry as pages show it: no server path as its link or its publisher."""
    url, publisher = item.get("url"), item.get("publisher")
    if not (_server_path(url) or _server_path(publisher)):
        return dict(item)
    return {
        **item,
        "url": None if _server_path(url) else url,
        "publisher": LOCAL_DOCUMENT if _server_path(publisher) or not publisher else publisher,
    }


def _without_server_paths(result: Mapping[str, Any]) -> dict[str, Any]:
    return {**result, "evidence": [_public_item(e) for e in result.get("evidence", [])]}


def _evidence_index(result: Mapping[str, Any], ledger: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    index: dict[str, dict[str, Any]] = {str(e["id"]): _public_item(e) for e in result.get("evidence", [])}
    for item in (ledger or {}).get("evidence", []):
        public = _public_item(item)
        entry = index.setdefault(
            str(item["evidence_id"]), {"id": item["evidence_id"], "url": public.get("url")}
        )
        entry.setdefault("publisher", public.get("publisher"))
        entry["title"] = item.get("title")
        entry["published_at"] = item.get("published_at")
        entry["excerpt"], entry["excerpt_withheld"] = _quotable_excerpt(item)
    return index


def _quotable_excerpt(item: Mapping[str, Any]) -> tuple[str | None, bool]:
    """The excerpt to quote, or ``(None, True)`` when it is not the item's text at its stored offsets: G3
    fails closed, so a report never shows a quote the snapshot does not hold."""
    if not item.get("excerpt"):
        return None, False
    try:
        evidence = EvidenceItem.model_validate(item)
    except ValidationError:
        return None, True
    if not excerpt_matches(evidence):
        return None, True
    assert evidence.excerpt is not None
    return evidence.excerpt.text, False


def _origins(
    result: Mapping[str, Any],
    claim_id: str,
    evidence: Mapping[str, dict[str, Any]],
    links: Links,
    svg_id: str,
) -> dict[str, Any]:
    view = graph_from_trace(result, claim_id)
    trace_claim = next(
        (c for c in (result.get("trace") or {}).get("claims", []) if c.get("claim_id") == claim_id), None
    )
    items: dict[str, dict[str, Any]] = {}
    if trace_claim and trace_claim.get("passes"):
        items = {str(a["evidence_id"]): a for a in trace_claim["passes"][-1].get("items", [])}
    everything = {m for cluster in view.clusters for m in cluster.members}
    if items:  # items gathered for the post's other claims are shown under those claims, not this one
        view = _only(view, set(items))
    elsewhere = len(everything - {m for cluster in view.clusters for m in cluster.members})
    groups = []
    for number, cluster in enumerate(view.clusters, start=1):
        members = []
        for member in (cluster.origin_id, *[m for m in cluster.members if m != cluster.origin_id]):
            if member is None or member not in cluster.members:
                continue
            entry = dict(evidence.get(member, {"id": member}))
            assessed = items.get(member)
            entry["origin"] = member == cluster.origin_id
            entry["stance"] = assessed.get("stance") if assessed else None
            entry["weight"] = assessed.get("weight") if assessed else None
            entry["excluded_by"] = assessed.get("excluded_by", []) if assessed else []
            entry["judged"] = assessed is not None
            entry["snapshot_url"] = links.snapshot_url(entry["snapshot"]) if entry.get("snapshot") else None
            members.append(entry)
        groups.append(
            {
                "number": number,
                "cluster": cluster,
                "origin_label": view.label(cluster.origin_id) if cluster.origin_id else None,
                "members": members,
            }
        )
    edges = [
        {
            "source": view.label(e.source),
            "target": view.label(e.target),
            "origin": e.origin.replace("_", " "),
            "in_cycle": e.in_cycle,
        }
        for e in view.edges
    ]
    cycles = [[view.label(m) for m in cycle] for cycle in view.cycles]
    svg = Markup(render_graph_svg(view, svg_id)) if view.clusters else None
    return {"groups": groups, "edges": edges, "cycles": cycles, "svg": svg, "elsewhere": elsewhere}


def _only(view: GraphView, keep: set[str]) -> GraphView:
    """The graph restricted to the evidence items in ``keep``: origins left with none of them go, and so
    do edges and cycles that leave them."""
    clusters = []
    for cluster in view.clusters:
        members = tuple(m for m in cluster.members if m in keep)
        if members:
            origin = cluster.origin_id if cluster.origin_id in members else None
            clusters.append(replace(cluster, members=members, origin_id=origin))
    kept = {m for cluster in clusters for m in cluster.members}
    virtual = (SOURCE_PREFIX, ARTIFACT_PREFIX)  # named sources and artifacts stay as cited nodes
    edges = tuple(
        e for e in view.edges if e.source in kept and (e.target in kept or e.target.startswith(virtual))
    )
    cycles = tuple(cycle for cycle in view.cycles if all(member in kept for member in cycle))
    return replace(view, clusters=tuple(clusters), edges=edges, cycles=cycles)


def hidden_text(reason: str) -> str:
    return f"[the post's words are hidden: {reason}]"


def report_context(page: ReportPage, links: Links | None = None) -> dict[str, Any]:
    """The values the report template prints, from ``page``."""
    links = links or Links()
    result = _without_server_paths(page.result)
    hidden = page.source_hidden
    evidence = _evidence_index(result, page.ledger)
    claims = []
    for number, claim in enumerate(result.get("claims", []), start=1):
        claim_id = str(claim["id"])
        reasons = [
            {
                "code": r["code"],
                "kind": reason_kind(str(r["code"])),
                "name": rule_name(str(r["code"])),
                "message": r["message"],
            }
            for r in claim.get("reasons", [])
        ]
        claims.append(
            {
                "number": number,
                "id": claim_id,
                "anchor": f"claim-{number}",
                "text": hidden_text(hidden) if hidden else claim["text"],
                "label": claim["label"],
                "band": claim["band"],
                "reasons": reasons,
                "blockers": [{"code": b["code"], "message": b["message"]} for b in claim.get("blockers", [])],
                "blockers_heading": blockers_heading(str(claim["label"])),
                "caveats": [caveat_in_words(str(c)) for c in claim.get("caveats", [])],
                "plain_caveats": plain_caveats([str(c) for c in claim.get("caveats", [])]),
                "raw_caveats": [str(c) for c in claim.get("caveats", [])],
                "plain_explanation": _plain_explanation(claim),
                "recheck": (claim.get("recheck") or {}).get("at", []),
                "place": None if hidden else _place(claim_id, str(claim["text"]), page.ledger),
                "origins": _origins(result, claim_id, evidence, links, f"graph-{number}"),
                **_assisted(claim, page.ledger or {}, hidden),
            }
        )
    other_models = [
        {
            "ref": m.ref,
            "family": m.family,
            "url": links.methodology_url(m.ref),
            "lines": m.lines,
            # the stored result with its trace, which reference/ recomputes without the engine
            "json_url": (
                links.model_json_url(page.check_id, page.version, m.ref)
                if page.check_id and page.version is not None
                else None
            ),
        }
        for m in page.other_models
    ]
    versions = []
    for entry in page.versions:
        href = links.version_url(page.check_id, entry.version) if page.check_id else None
        versions.append({"entry": entry, "href": href, "current": entry.version == page.version})
    latest = max((v.version for v in page.versions), default=None)
    subject = (page.ledger or {}).get("subject") or {}
    overall = result["overall"]
    return {
        "links": links,
        "result": result,
        "overall": overall,
        "title": (
            NOTHING_ASSESSED
            if not claims
            else f"{label_symbol(overall['label'])} {label_heading(overall['label'])}"
        ),
        "nothing_assessed": None if claims else _why_nothing_assessed(result.get("not_assessed", [])),
        "finding": finding(claims) if claims else None,
        "stance_words": STANCE_WORDS,
        "claims": claims,
        "not_assessed": [
            {
                **c,
                "text": hidden_text(hidden) if hidden else c.get("text", ""),
                "words": not_assessed_words(str(c.get("reason", ""))),
                "implied": None if hidden else _implication(str(c.get("id")), page.ledger or {}),
            }
            for c in result.get("not_assessed", [])
        ],
        "check_id": page.check_id,
        "version": page.version,
        "latest": latest,
        "versions": versions,
        "changes": [
            ClaimChange(c.claim_id, hidden_text(hidden), c.before, c.after) if hidden else c
            for c in claim_changes(page.previous_result, result)
        ],
        "what_changed": next(
            (v.what_changed for v in page.versions if v.version == page.version and page.version), None
        ),
        "subject_url": subject.get("url"),
        "subject_kind": subject.get("kind"),
        "policy_url": links.methodology_url(str(result.get("policy", ""))),
        "json_url": (
            links.version_json_url(page.check_id, page.version)
            if page.check_id and page.version is not None
            else None
        ),
        "blocked": result.get("blocked"),
        "cited_links": _cited_links(page.ledger or {}),
        "other_models": other_models,
    }


def _implication(claim_id: str, ledger: Mapping[str, Any]) -> str | None:
    """An implied claim's statement (the checker's words) from the ledger; None for a stated claim."""
    for claim in ledger.get("claims") or []:
        if isinstance(claim, Mapping) and claim.get("claim_id") == claim_id:
            implication = claim.get("implication")
            return str(implication["statement"]) if isinstance(implication, Mapping) else None
    return None


def _assisted(claim: Mapping[str, Any], ledger: Mapping[str, Any], hidden: str | None) -> dict[str, Any]:
    """What the result alone does not show: an implied claim's statement, the explanation (an accepted
    model draft, else the deterministic one) and the searches that ran. While the post is hidden, its
    restatements go too: no implied statement, no draft, and the searches without their wording."""
    claim_id = str(claim["id"])
    implied = claim.get("implied")
    statement = implied.get("statement") if isinstance(implied, Mapping) else _implication(claim_id, ledger)
    draft = next(
        (d for d in ledger.get("drafts") or [] if isinstance(d, Mapping) and d.get("claim_id") == claim_id),
        None,
    )
    plan = next(
        (
            p
            for p in ledger.get("query_plans") or []
            if isinstance(p, Mapping) and p.get("claim_id") == claim_id
        ),
        None,
    )
    searches = [
        {
            "kind": str(search.get("kind", "")).replace("_", " "),
            "text": hidden_text(hidden) if hidden else str(search.get("text", "")),
            "any_of": [] if hidden else list(search.get("any_of") or []),
            "since": search.get("since"),
            "until": search.get("until"),
            "by_model": search.get("proposed_by") == "model",
        }
        for search in (plan or {}).get("searches") or []
        if isinstance(search, Mapping)
    ]
    drafted = draft is not None and not hidden
    return {
        "implied": None if hidden or not statement else str(statement),
        "explanation": str(draft["text"]) if drafted and draft else deterministic_explanation(claim),
        "explanation_drafted": drafted,
        "searches": searches,
    }


def rule_name(code: str) -> str | None:
    """The published name of the rule or gate behind a reason code ("H4@1" -> "Estimated reputation and
    review queue"), so a reader need not know the code; None for codes that name no rule."""
    return _RULE_NAMES.get(code.split("@", 1)[0])


def caveat_in_words(caveat: str) -> str:
    """A look-up caveat ("rdap look-up not run") as a reader would say it; other caveats as they are."""
    found = _LOOKUP_CAVEAT.fullmatch(caveat)
    if found is None:
        return caveat
    what = _LOOKUP_WORDS.get(found.group(1), found.group(1))
    status = found.group(2)
    outcome = "was not looked up" if status == "not run" else "could not be looked up (the look-up failed)"
    return f"{what} {outcome}, so the rules that read it could not act ({caveat})"


def plain_caveats(caveats: list[str]) -> list[str]:
    """A claim's caveats for a reader: every look-up that did not run said once, in one sentence, and every
    failed one in another; other caveats as they are. (The raw caveats stay in the auditors' section.)"""
    skipped: list[str] = []
    failed: list[str] = []
    others: list[str] = []
    for caveat in caveats:
        found = _LOOKUP_CAVEAT.fullmatch(caveat)
        if found is None:
            others.append(caveat)
            continue
        words = _LOOKUPS.get(found.group(1), (found.group(1), ""))[0]
        (skipped if found.group(2) == "not run" else failed).append(words)
    plain = []
    if skipped:
        plain.append(
            f"Not looked up for this check: {_listed(skipped)}. The rules that read "
            f"{'them' if len(skipped) != 1 else 'it'} could not act, in either direction."
        )
    if failed:
        plain.append(
            f"The look-up of {_listed(failed)} failed, so the rules that read "
            f"{'them' if len(failed) != 1 else 'it'} could not act."
        )
    return plain + others


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _plain_explanation(claim: Mapping[str, Any]) -> str:
    """The deciding reason in words, without the label's symbol: "the evidence does not settle the claim"."""
    reasons = [str(r["message"]) for r in claim.get("reasons", [])]
    return reasons[0] if reasons else "no reason was recorded"


def finding(claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the page leads with: how many claims were checked and what each came to, in words."""
    counts: dict[str, int] = {}
    for claim in claims:
        counts[str(claim["label"])] = counts.get(str(claim["label"]), 0) + 1
    said = [f"{n} {label_heading(label).lower()}" for label, n in counts.items()]
    if len(claims) == 1:
        summary = f"1 claim in this post was checked: it is {label_heading(str(claims[0]['label'])).lower()}."
    else:
        summary = f"{len(claims)} claims in this post were checked: {_listed(said)}."
    lines = []
    for claim in claims:
        why = claim["explanation"] if claim.get("explanation_drafted") else claim.get("plain_explanation", "")
        lines.append(
            {
                "anchor": claim["anchor"],
                "number": claim["number"],
                "text": claim["text"],
                "label": claim["label"],
                "heading": label_heading(str(claim["label"])),
                "why": why,
            }
        )
    return {"summary": summary, "lines": lines}


def _why_nothing_assessed(not_assessed: list[Mapping[str, Any]]) -> str:
    """Why a report has no assessed claim, in words: a page that led with "❔ Unverifiable" would say the
    evidence was weighed and found wanting, when nothing was weighed at all."""
    if not not_assessed:
        return "No checkable factual claim was found in what was submitted."
    reasons = sorted({not_assessed_words(str(c.get("reason", ""))) for c in not_assessed if c.get("reason")})
    count = len(not_assessed)
    found = f"{count} claim{'s were' if count != 1 else ' was'} found, none assessed"
    return f"{found}: {'; '.join(reasons)}." if reasons else f"{found}."


def _cited_links(ledger: Mapping[str, Any]) -> dict[str, int]:
    """How many links the post cites and how many of them were not read (not fetched, failed, or refused by
    the fetch guard): only counts, so nothing the guard refused to resolve is repeated on the page."""
    cited = [str(link.get("url")) for link in ((ledger.get("subject") or {}).get("cited_links") or [])]
    read = {
        str(item.get("url"))
        for item in ledger.get("evidence", [])
        if item.get("role") == EvidenceRole.CITED_BY_SUBJECT.value
    }
    return {"count": len(cited), "unread": sum(1 for url in cited if url not in read)}


def render_report_page(page: ReportPage, links: Links | None = None) -> str:
    """The report page as one self-contained HTML document (styles inline, no script, no external asset)."""
    return environment().get_template("report.html").render(report_context(page, links))
