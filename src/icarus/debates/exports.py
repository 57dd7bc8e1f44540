"""A debate's claims for export and alerting: each claim with its persisted final answer only.

A provisional two_step answer (``provisional_claim_verdict``) is shown on the page while research goes on,
but exports and alert digests never use it: until the final answer is stored the claim exports as
``pending``. ``ExportRow`` is one claim; ``rows_csv`` writes rows as CSV (cells a spreadsheet would run as
a formula are quoted with a leading apostrophe); ``is_alert`` says whether a final answer belongs in the
alert digest (false, misleading or partially true).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from icarus.debates.model import ClaimVerdict, Verdict

__all__ = [
    "ALERT_VERDICTS",
    "CSV_COLUMNS",
    "ExportFormat",
    "ExportRow",
    "export_row",
    "final_verdict",
    "is_alert",
    "rows_csv",
]

ALERT_VERDICTS: Final = frozenset({Verdict.FALSE, Verdict.MISLEADING, Verdict.PARTIALLY_TRUE})
"""Final answers an alert digest lists: the claim does not hold as stated."""
_FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


class ExportFormat(StrEnum):
    CSV = "csv"
    JSON = "json"


@dataclass(frozen=True)
class ExportRow:
    """One claim and its final answer (``verdict`` ``pending`` while there is none)."""

    claim_id: int
    debate_id: str
    text: str
    speaker_label: str | None
    speaker_name: str | None
    manually_added: bool
    created_at: datetime
    verdict: Verdict
    basis: str | None = None
    adjudication_reason: str | None = None
    confidence: float | None = None
    explanation: str = ""
    sources: list[str] = field(default_factory=list)
    decided_at: datetime | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "claim_id": self.claim_id,
            "debate_id": self.debate_id,
            "text": self.text,
            "speaker_label": self.speaker_label,
            "speaker_name": self.speaker_name,
            "manually_added": self.manually_added,
            "created_at": self.created_at.isoformat(),
            "verdict": self.verdict.value,
            "basis": self.basis,
            "adjudication_reason": self.adjudication_reason,
            "confidence": self.confidence,
            "explanation": self.explanation,
            "sources": list(self.sources),
            "decided_at": self.decided_at.isoformat() if self.decided_at else None,
        }


CSV_COLUMNS: Final = tuple(name for name in ExportRow.__dataclass_fields__ if name != "debate_id")


def final_verdict(verdict: ClaimVerdict | None) -> ClaimVerdict | None:
    """The persisted answer if it is final; None while pending or only provisional."""
    if verdict is None or verdict.provisional or verdict.verdict is Verdict.PENDING:
        return None
    return verdict


def export_row(
    *,
    claim_id: int,
    debate_id: str,
    text: str,
    speaker_label: str | None,
    speaker_name: str | None,
    manually_added: bool,
    created_at: datetime,
    verdict: ClaimVerdict | None,
    decided_at: datetime | None,
) -> ExportRow:
    """A claim's row: its final answer, or ``pending`` (a provisional answer is left out)."""
    final = final_verdict(verdict)
    base = ExportRow(
        claim_id=claim_id,
        debate_id=debate_id,
        text=text,
        speaker_label=speaker_label,
        speaker_name=speaker_name,
        manually_added=manually_added,
        created_at=created_at,
        verdict=Verdict.PENDING,
    )
    if final is None:
        return base
    return replace(
        base,
        verdict=final.verdict,
        basis=final.basis.value,
        adjudication_reason=final.adjudication_reason.value if final.adjudication_reason else None,
        confidence=final.confidence,
        explanation=final.explanation,
        sources=list(dict.fromkeys(c.url for c in final.sources)),
        decided_at=decided_at,
    )


def is_alert(row: ExportRow, since: datetime | None = None) -> bool:
    """Whether the row's final answer is an alert (false, misleading, partially true) decided at or after
    ``since`` (any time when None)."""
    if row.verdict not in ALERT_VERDICTS or row.decided_at is None:
        return False
    return since is None or row.decided_at >= since


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        value = " ".join(value)
    elif isinstance(value, datetime):
        value = value.isoformat()
    elif isinstance(value, StrEnum):
        value = value.value
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def rows_csv(rows: list[ExportRow]) -> str:
    """The rows as CSV with a header line; sources separated by spaces."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([_cell(getattr(row, name)) for name in CSV_COLUMNS])
    return out.getvalue()
