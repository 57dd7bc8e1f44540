"""Render a scored result as Markdown or as a rich console view (the HTML page is ``icarus.web.report``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from icarus.scoring.labels import Label


def _label_text(label: str) -> str:
    known = Label(label)
    return f"{known.symbol} {known.heading}"


def blockers_heading(label: str) -> str:
    """What a claim's blockers are called: what stopped a verdict (❔), or what kept the band below high."""
    if Label(label).decided:
        return "What kept it below high confidence"
    return "What would settle it (blockers)"


def render_markdown(result: dict[str, Any]) -> str:
    overall = result["overall"]
    lines = [
        f"# {_label_text(overall['label'])} \u2014 confidence {overall['band']}",
        "",
        f"As of {result['as_of']} under `{result['policy']}` (config `{result['config_hash'][:19]}\u2026`, "
        f"trace `{result['trace_hash'][:19]}\u2026`).",
        "",
    ]
    for claim in result["claims"]:
        lines += [
            f"## {_label_text(claim['label'])} ({claim['band']})",
            "",
            f"> {claim['text']}",
            "",
        ]
        lines += [f"- `{r['code']}` {r['message']}" for r in claim["reasons"]]
        lines += [f"- caveat: {c}" for c in claim["caveats"]]
        if claim["recheck"]["at"]:
            lines.append(f"- rechecks at {', '.join(claim['recheck']['at'])}")
        if claim.get("blockers"):
            lines += ["", f"{blockers_heading(claim['label'])}:", ""]
            lines += [f"- `{b['code']}` {b['message']}" for b in claim["blockers"]]
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
        lines += [f"- \u201c{c['text']}\u201d \u2014 {c['reason']}" for c in result["not_assessed"]]
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
        console.print(f"not assessed: \u201c{item['text']}\u201d ({item['reason']})")
