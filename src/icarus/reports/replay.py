"""Replay a stored report version: score its stored ledger again and compare the trace byte for byte.

A replay passes only when the recomputed trace has the same canonical bytes as the stored one, the stored
trace still matches the trace hash recorded beside it, and the rest of the published result agrees too.
Any core code change shows up here as a different ``code_hash``: that is the point, not noise.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final

from icarus.fetching import SnapshotError, SnapshotStore
from icarus.ledger import LedgerError, parse_ledger
from icarus.scoring.canonical import canonical_json, sha256_hex
from icarus.scoring.icarus.config import UnknownPolicyError, load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.store.changes import what_changed
from icarus.store.repository import Store, StoredVersion

__all__ = ["MAX_DIFF_LINES", "ReplayError", "ReplayOutcome", "replay", "what_changed"]

MAX_DIFF_LINES: Final = 200  # a diff longer than this is cut, with a line saying how much was left out


class ReplayError(RuntimeError):
    """The stored version cannot be replayed at all (unknown policy, unreadable ledger)."""


@dataclass(frozen=True)
class ReplayOutcome:
    """``stored_trace_hash`` is the hash recorded when the version was published; ``new_trace_hash`` is the
    replay's. ``problems`` lists integrity failures of the stored record itself."""

    identical: bool
    stored_trace_hash: str
    new_trace_hash: str
    diff: list[str]
    problems: list[str]
    check_id: str
    version: int


def replay(
    store: Store, check_id: str, version: int | None = None, snapshots: SnapshotStore | None = None
) -> ReplayOutcome:
    """Re-score a stored version (the latest when ``version`` is None) under its own policy ref.

    With ``snapshots``, every evidence item's snapshot is read back and hash-verified, and an item whose
    snapshot is plain text must carry exactly that text: the replay then rests on the stored snapshots, not
    only on the copy inside the stored ledger.

    Raises ``NotFound`` for an unknown check or version and ``ReplayError`` when it cannot be re-scored.
    """
    stored = store.latest(check_id) if version is None else store.version(check_id, version)
    result = stored.result()
    problems = _integrity_problems(stored, result)
    if snapshots is not None:
        problems += _snapshot_problems(stored, snapshots)
    new = _rescore(stored)
    stored_trace, new_trace = result.get("trace"), new["trace"]
    diff = _unified(stored_trace, new_trace, f"stored trace {stored.url_path}", "replayed trace")
    outside = _unified(
        _without_trace(result), _without_trace(new), "stored result (outside the trace)", "replayed result"
    )
    diff = _bounded(diff + outside)
    identical = not diff and not problems and canonical_json(stored_trace) == canonical_json(new_trace)
    return ReplayOutcome(
        identical=identical,
        stored_trace_hash=stored.trace_hash,
        new_trace_hash=str(new["trace_hash"]),
        diff=diff,
        problems=problems,
        check_id=stored.check_id,
        version=stored.version,
    )


def _integrity_problems(stored: StoredVersion, result: dict[str, Any]) -> list[str]:
    """Check the stored record against the hashes recorded beside it (hash-verified on read)."""
    problems: list[str] = []
    ledger_hash = "sha256:" + hashlib.sha256(stored.ledger_json.encode()).hexdigest()
    if ledger_hash != stored.ledger_hash:
        problems.append(f"stored ledger hashes to {ledger_hash}, but {stored.ledger_hash} was recorded")
    trace_hash = "sha256:" + sha256_hex(canonical_json(result.get("trace")))
    if trace_hash != stored.trace_hash:
        problems.append(f"stored trace hashes to {trace_hash}, but {stored.trace_hash} was recorded")
    return problems


def _snapshot_problems(stored: StoredVersion, snapshots: SnapshotStore) -> list[str]:
    problems: list[str] = []
    try:
        ledger = parse_ledger(stored.ledger(), source=f"stored ledger of {stored.url_path}")
    except (LedgerError, json.JSONDecodeError):
        return problems  # _rescore reports an unreadable ledger
    for item in ledger.evidence:
        if item.snapshot is None:
            problems.append(f"{item.evidence_id} has no snapshot reference")
            continue
        ref = item.snapshot.ref
        try:
            body = snapshots.get(ref)
            records = snapshots.metadata(ref)
        except SnapshotError as exc:
            problems.append(f"{item.evidence_id}: {exc}")
            continue
        plain = any(record.content_type.startswith("text/plain") for record in records)
        if plain and body.decode("utf-8", errors="replace") != item.text:
            problems.append(f"{item.evidence_id}: stored text differs from its snapshot {ref}")
    return problems


def _rescore(stored: StoredVersion) -> dict[str, Any]:
    try:
        policy = load_policy(stored.policy)
    except UnknownPolicyError as exc:
        raise ReplayError(f"{stored.url_path}: {exc}") from exc
    try:
        ledger = parse_ledger(stored.ledger(), source=f"stored ledger of {stored.url_path}")
    except (LedgerError, json.JSONDecodeError) as exc:
        raise ReplayError(str(exc)) from exc
    return score_ledger(ledger, policy)


def _without_trace(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in ("trace", "trace_hash")}


def _pretty(value: Any) -> list[str]:
    # Round-trip through canonical JSON first so Decimals and dates print as they are hashed.
    plain = json.loads(canonical_json(value))
    return json.dumps(plain, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def _unified(stored: Any, new: Any, stored_name: str, new_name: str) -> list[str]:
    if canonical_json(stored) == canonical_json(new):
        return []
    return list(difflib.unified_diff(_pretty(stored), _pretty(new), stored_name, new_name, lineterm=""))


def _bounded(lines: list[str], limit: int = MAX_DIFF_LINES) -> list[str]:
    if len(lines) <= limit:
        return lines
    return [*lines[:limit], f"... {len(lines) - limit} more diff lines not shown"]
