"""Render a scored result as Markdown or as a rich console view (the HTML page is ``icarus.web.report``).

Given the ledger the result was scored from, the Markdown also shows what the result alone cannot: an
implied claim's statement, marked as the checker's wording and never as the author's; each claim's
explanation (a model draft that passed G3/G7, else the deterministic one from the result); and the searches
that ran for it, as validated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from icarus.scoring.labels import Label

if TYPE_CHECKING:  # the renderer reads a ledger's fields only; importing the models costs every command
    from icarus.ledger import Ledger

NOT_ASSESSED_WORDS: dict[str, str] = {
    "opinion": "opinion, not a factual assertion",
    "prediction": "a prediction, which evidence cannot settle yet",
    "satire": "satire or sarcasm, not meant literally",
    "joke": "a joke, not meant literally",
    "personal_advice": "personal advice",
    "private_individual": "about a named private individual",
    "implied_needs_intent": "an implied claim that would need a guess at what the author meant",
    "relevance": "too little in it to check",
    "scope": "outside what this check covers (not English, or spoken in video or audio)",
    "budget": "beyond the number of claims one check researches",
}
"""Why a claim is not assessed, in words, by its ``not_assessed`` reason."""


def deterministic_explanation(claim_result: Mapping[str, Any]) -> str:
    """The explanation a claim carries when no model draft passed: the label and the rule that decided it,
    from the published result alone."""
    label = Label(claim_result["label"])
    reasons = [r["message"] for r in claim_result.get("reasons", [])]
    first = reasons[0] if reasons else "no reason recorded"
    return f"{label.symbol} {label.heading}: {first}."


def not_assessed_words(reason: str) -> str:
    """The reason a claim was not assessed, in words a reader understands."""
    return NOT_ASSESSED_WORDS.get(reason, reason.replace("_", " "))


def _label_text(label: str) -> str:
    known = Label(label)
    return f"{known.symbol} {known.heading}"


def blockers_heading(label: str) -> str:
    """What a claim's blockers are called: what stopped a verdict (❔), or what kept the band below high."""
    if Label(label).decided:
        return "What kept it below high confidence"
    return "What would settle it (blockers)"


def render_markdown(result: dict[str, Any], ledger: Ledger | None = None) -> str:
    """The result as Markdown; with ``ledger``, implied claims, explanations and searches too."""
    overall = result["overall"]
    claims = {claim.claim_id: claim for claim in ledger.claims} if ledger is not None else {}
    drafts = {draft.claim_id: draft for draft in ledger.drafts} if ledger is not None else {}
    plans = {plan.claim_id: plan for plan in ledger.query_plans} if ledger is not None else {}
    lines = [
        f"# {_label_text(overall['label'])} \u2014 confidence {overall['band']}",
        "",
        f"As of {result['as_of']} under `{result['policy']}` (config `{result['config_hash'][:19]}\u2026`, "
        f"trace `{result['trace_hash'][:19]}\u2026`).",
        "",
    ]
    for claim in result["claims"]:
        lines += [f"## {_label_text(claim['label'])} ({claim['band']})", ""]
        implication = claims[claim["id"]].implication if claim["id"] in claims else None
        if implication is not None:
            lines += [
                f"Implied claim, in the checker's words (not the author's): {implication.statement}",
                "",
                f"Implied by: \u201c{claim['text']}\u201d",
                "",
            ]
        else:
            lines += [f"> {claim['text']}", ""]
        draft = drafts.get(claim["id"])
        if draft is not None:
            lines += [
                f"{draft.text} *(drafted by a model; its citations were checked against the evidence)*",
                "",
            ]
        else:
            lines += [deterministic_explanation(claim), ""]
        lines += [f"- `{r['code']}` {r['message']}" for r in claim["reasons"]]
        lines += [f"- caveat: {c}" for c in claim["caveats"]]
        if claim["recheck"]["at"]:
            lines.append(f"- rechecks at {', '.join(claim['recheck']['at'])}")
        if claim.get("blockers"):
            lines += ["", f"{blockers_heading(claim['label'])}:", ""]
            lines += [f"- `{b['code']}` {b['message']}" for b in claim["blockers"]]
        plan = plans.get(claim["id"])
        if plan is not None and plan.searches:
            lines += ["", "Searches run:", ""]
            lines += [
                f"- {search.kind.replace('_', ' ')}: `{search.text}`"
                + (f" (any of: {', '.join(search.any_of)})" if search.any_of else "")
                + (
                    f" [{search.since or '…'} to {search.until or '…'}]"
                    if search.since or search.until
                    else ""
                )
                + (" — proposed by a model" if search.proposed_by == "model" else "")
                for search in plan.searches
            ]
        lines.append("")
    if result.get("evidence"):
        lines += ["## Evidence", ""]
        for item in result["evidence"]:
            record = item["reputation"]
            estimated = " (estimated, not on file)" if record["method"] == "heuristic" else ""
            lines.append(
                f"- `{item['id']}` {item['publisher']} <{item['url']}> — reputation {record['score']}"
                f"{estimated}, {record['produced_by']} v{record['version']}"
            )
        lines.append("")
    if result["not_assessed"]:
        lines += ["## Not assessed", ""]
        for c in result["not_assessed"]:
            implied = claims[c["id"]].implication if c.get("id") in claims else None
            said = (
                f"implied by \u201c{c['text']}\u201d: {implied.statement} (the checker's words)"
                if implied is not None
                else f"\u201c{c['text']}\u201d"
            )
            lines.append(f"- {said} \u2014 {not_assessed_words(c['reason'])}")
        lines.append("")
    return "\n".join(lines)


def render_console(result: dict[str, Any], console: Console) -> None:
    overall = result["overall"]
    console.print(f"[bold]{_label_text(overall['label'])}[/bold]  confidence [bold]{overall['band']}[/bold]")
    console.print(
        f"as of {result['as_of']} under {result['policy']}  trace {result['trace_hash'][:23]}\u2026"
    )
    table = Table(show_lines=True)
    table.add_column("claim")
    table.add_column("label")
    table.add_column("band")
    table.add_column("reasons")
    table.add_column("blockers", overflow="fold")
    for claim in result["claims"]:
        reasons = "\n".join(f"{r['code']} {r['message']}" for r in claim["reasons"][:8])
        blockers = "\n".join(b["message"] for b in claim.get("blockers", []))
        table.add_row(claim["text"], _label_text(claim["label"]), claim["band"], reasons, blockers)
    console.print(table)
    for item in result["not_assessed"]:
        console.print(f"not assessed: \u201c{item['text']}\u201d ({not_assessed_words(item['reason'])})")
