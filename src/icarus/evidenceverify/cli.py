"""``icarus evidence-verify``: verify one debate claim against an evidence store."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from icarus.evidenceverify.service import default_stance_judge, evidence_verify, run_evidence_verify
from icarus.judges.protocol import Judge
from icarus.judges.registry import JudgeConfigError, create_judge
from icarus.research.excerpts import best_excerpt
from icarus.research.providers import SearchProvider
from icarus.research.registry import configured_providers
from icarus.scoring.evidenceverify.criticality import OfflineCriticalityJudge
from icarus.scoring.evidenceverify.models import (
    ClaimItem,
    EvidenceStore,
    InputError,
    VerificationResult,
    load_claim,
    load_evidenceverify_config,
    load_store,
)
from icarus.scoring.evidenceverify.trace import verification_inputs
from icarus.settings import Settings

__all__ = ["evidence_verify_command", "render_result", "verify_with_inputs"]
"""The offline judge for cross-source agreement: it reads negations and conflicting figures in a snippet."""


def _fail(message: str) -> None:
    Console(stderr=True).print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


def render_result(result: VerificationResult) -> str:
    lines = [
        f"{result.claim_id}: {result.previous_status.value} \u2192 {result.status.value} "
        f"(confidence {result.confidence_level.value}) under {result.model}",
        f"Critical: {'yes' if result.critical else 'no'} (by {result.criticality_by})",
        "Independent sources agreeing: " + (", ".join(result.independent_sources) or "none"),
        f"Independent search: {result.independent_search}",
    ]
    for row in result.twitter:
        lines.append(
            f"Twitter {row['evidence_id']}: priority {row['verification_priority']}, {row['corroboration_status']}"
        )
    lines.append("Notes:")
    lines += [f"  - {note}" for note in result.verification_notes]
    return "\n".join(lines) + "\n"


def verify_with_inputs(
    claim: ClaimItem,
    store: EvidenceStore,
    judge: Judge,
    providers: Sequence[SearchProvider],
    requested: bool,
    as_of: datetime,
) -> dict[str, Any]:
    """The result and the inputs its status rules read, shaped like the registered model's result. The
    judge is asked each question once and the search runs once, so the inputs are exactly what the rules
    read."""
    config = load_evidenceverify_config()
    run = run_evidence_verify(
        claim,
        store,
        config,
        stance_judge=judge,
        criticality_judge=OfflineCriticalityJudge(),
        providers=providers,
        independent=requested,
        as_of=as_of,
        every_record=True,
    )
    result = run.result
    inputs = verification_inputs(
        claim,
        store,
        answers=run.answers,
        excerpt=best_excerpt,
        criticality=run.criticality,
        search=run.search,
        independent_search_requested=requested,
    )
    return {
        "model": result.model,
        "config_hash": result.config_hash,
        "claims": [result.model_dump(mode="json")],
        "inputs": [inputs],
    }


def evidence_verify_command(
    claim: Annotated[
        Path, typer.Option("--claim", help="Claim item JSON file (claim_id, text, evidence_ids).")
    ],
    store: Annotated[Path, typer.Option("--store", help="Evidence store JSON file (evidence_store.json).")],
    independent_search: Annotated[
        bool,
        typer.Option(
            "--independent-search", help="Run a fresh search from the claim text (the judge's check)."
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Stance judge name@version for cross-source agreement; default: the LLM judge when "
            "ICARUS_LLM_BASE_URL and ICARUS_LLM_MODEL are set, else offline-lexical@1.",
        ),
    ] = None,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="UTC time the search speaks for (ISO 8601); default now.")
    ] = None,
    with_inputs: Annotated[
        bool,
        typer.Option(
            "--with-inputs",
            help="Print JSON with the inputs the status rules read beside the result, for "
            "python -m reference check (docs/spec/evidenceverify.md).",
        ),
    ] = False,
) -> None:
    """Verify a debate claim against the evidence it cites: status, notes and confidence level."""
    try:
        moment = datetime.fromisoformat(as_of) if as_of else datetime.now(UTC)
    except ValueError:
        _fail(f"--as-of {as_of!r} is not an ISO 8601 time")
        return
    if moment.tzinfo is None:
        _fail("--as-of needs a time zone, e.g. 2026-11-20T12:00:00Z")
    try:
        claim_item = load_claim(claim)
        evidence = load_store(store)
    except InputError as exc:
        _fail(str(exc))
        return
    settings = Settings()
    if judge is None:
        judge = default_stance_judge(settings)
    try:
        stance_judge = create_judge(judge, settings)
    except JudgeConfigError as exc:
        _fail(str(exc))
        return
    if with_inputs:
        sys.stdout.write(
            json.dumps(
                verify_with_inputs(
                    claim_item,
                    evidence,
                    stance_judge,
                    configured_providers(settings),
                    independent_search,
                    moment,
                ),
                indent=2,
                ensure_ascii=False,
            )
            + "\n"
        )
        return
    result = evidence_verify(
        claim_item,
        evidence,
        load_evidenceverify_config(),
        stance_judge=stance_judge,
        criticality_judge=OfflineCriticalityJudge(),
        providers=configured_providers(settings),
        independent=independent_search,
        as_of=moment,
    )
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(render_result(result))
