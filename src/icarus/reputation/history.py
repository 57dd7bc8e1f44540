"""The version history of a registry file: every record a newer version replaced, kept in a sidecar.

A registry file holds the current record per domain; ``<file>.history.jsonl`` holds, one JSON line each, every
record that a later import or review replaced, with the time it was replaced. Nothing is ever deleted, so
``icarus registry show`` can list a domain's versions, and an old report's record can still be found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from icarus.ledger import ReputationRecord, SourceClass
from icarus.reputation.registry import RegistryEntry

__all__ = ["ReplacedRecord", "append_history", "history_path", "read_history"]


@dataclass(frozen=True)
class ReplacedRecord:
    record: ReputationRecord
    source_class: SourceClass
    replaced_at: datetime | None


def history_path(registry_file: Path) -> Path:
    return registry_file.with_name(registry_file.name + ".history.jsonl")


def append_history(registry_file: Path, replaced: list[RegistryEntry], moment: datetime) -> None:
    """Append the records being replaced (oldest first) to the file's history sidecar."""
    if not replaced:
        return
    lines: list[dict[str, Any]] = [
        {
            "record": entry.record.model_dump(mode="json"),
            "source_class": entry.source_class.value,
            "replaced_at": moment.isoformat(),
        }
        for entry in replaced
    ]
    path = history_path(registry_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, sort_keys=True) + "\n")


def read_history(registry_file: Path, domain: str | None = None) -> list[ReplacedRecord]:
    """Replaced records in the order they were replaced; lines that cannot be read are skipped."""
    path = history_path(registry_file)
    if not path.exists():
        return []
    found: list[ReplacedRecord] = []
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            raw = json.loads(text)
            record = ReputationRecord.model_validate(raw["record"])
            source_class = SourceClass(str(raw.get("source_class", SourceClass.NEWS.value)))
            stamp = raw.get("replaced_at")
            replaced_at = datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
        except (ValueError, KeyError, TypeError, ValidationError, RecursionError):  # e.g. a hand-edited line
            continue
        if domain is None or record.domain == domain:
            found.append(ReplacedRecord(record, source_class, replaced_at))
    return found
