"""Replay a stored version under another model: score its ledger again and compare with the result stored
for that model (``model_results``, written the first time the API served it) byte for byte."""

from __future__ import annotations

import difflib
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from icarus.ledger import LedgerError, parse_ledger
from icarus.reports.replay import MAX_DIFF_LINES, ReplayError, ReplayOutcome
from icarus.scoring.canonical import canonical_json
from icarus.scoring.registry import UnknownModelError, get_model
from icarus.store.model_tables import ModelResult
from icarus.store.repository import Store

__all__ = ["replay_model"]


def replay_model(store: Store, check_id: str, version: int | None, ref: str) -> ReplayOutcome:
    """Re-score the version (latest when None) under ``ref`` and compare with the stored result.

    Raises ``NotFound`` for an unknown check or version, ``ReplayError`` for an unknown model, an unreadable
    ledger, or a version never scored under that model (nothing stored to compare with)."""
    stored = store.latest(check_id) if version is None else store.version(check_id, version)
    try:
        model = get_model(ref)
    except (UnknownModelError, ValueError) as exc:
        raise ReplayError(str(exc)) from None
    with Session(store.engine) as session:
        first = session.scalar(
            select(ModelResult.result_json).where(
                ModelResult.check_id == stored.check_id,
                ModelResult.version == stored.version,
                ModelResult.model == model.ref,
            )
        )
    if first is None:
        raise ReplayError(
            f"{stored.url_path} was never scored under {model.ref}: nothing stored to compare with "
            f"(GET /v1/checks/{stored.check_id}/models?models={model.ref} scores and stores it)"
        )
    try:
        ledger = parse_ledger(stored.ledger(), source=f"stored ledger of {stored.url_path}")
    except LedgerError as exc:
        raise ReplayError(str(exc)) from exc
    new = model.score(ledger)
    before: dict[str, Any] = json.loads(first)
    identical = canonical_json(new) == first
    diff = [] if identical else _diff(before, new, model.ref)
    return ReplayOutcome(
        identical=identical,
        stored_trace_hash=str(before.get("trace_hash", "")),
        new_trace_hash=str(new.get("trace_hash", "")),
        diff=diff,
        problems=[],
        check_id=stored.check_id,
        version=stored.version,
    )


def _diff(before: Any, after: Any, ref: str) -> list[str]:
    def pretty(value: Any) -> list[str]:
        return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()

    lines = list(
        difflib.unified_diff(
            pretty(before), pretty(after), f"stored result under {ref}", "replayed result", lineterm=""
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... {len(lines) - MAX_DIFF_LINES} more diff line(s) left out"]
    return lines
