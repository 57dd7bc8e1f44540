"""What held verdicts back on an evaluation set: per blocker code, on how many claims it was listed.

Two groups are counted apart: claims published ❔, and decided claims published below high confidence. A
claim counts once per code, whatever the number of times its result lists that code. Rows come in the
order ``icarus.scoring.icarus.blockers.BlockerCode`` lists codes (an unknown code goes last, by name).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from icarus.scoring.icarus.blockers import BlockerCode
from icarus.scoring.labels import Band, Label

__all__ = ["GROUPS", "BlockedClaim", "blocker_summary", "blockers_markdown"]

UNVERIFIABLE = "unverifiable"
BELOW_HIGH = "decided_below_high"
GROUPS = (UNVERIFIABLE, BELOW_HIGH)
_TITLES = {UNVERIFIABLE: "❔ claims", BELOW_HIGH: "decided, below high"}
_ORDER = {code.value: index for index, code in enumerate(BlockerCode)}


class BlockedClaim(Protocol):
    """What the count reads from one scored claim (``runner.ClaimResult`` has these fields)."""

    @property
    def predicted(self) -> str: ...

    @property
    def band(self) -> str: ...

    @property
    def blockers(self) -> tuple[str, ...]: ...


def _group(claim: BlockedClaim) -> str | None:
    if claim.predicted == Label.UNVERIFIABLE.value:
        return UNVERIFIABLE
    if claim.band != Band.HIGH.value:
        return BELOW_HIGH
    return None


def _sorted(counts: Counter[str]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda pair: (_ORDER.get(pair[0], len(_ORDER)), pair[0])))


def blocker_summary(claims: Iterable[BlockedClaim]) -> dict[str, dict[str, Any]]:
    """``{"unverifiable": {"claims": n, "codes": {code: claims}}, "decided_below_high": {...}}``."""
    totals: Counter[str] = Counter()
    codes: dict[str, Counter[str]] = {group: Counter() for group in GROUPS}
    for claim in claims:
        group = _group(claim)
        if group is None:
            continue
        totals[group] += 1
        codes[group].update(set(claim.blockers))
    return {group: {"claims": totals[group], "codes": _sorted(codes[group])} for group in GROUPS}


def _share(count: int, of: int) -> str:
    return f"{count} ({count / of:.0%})" if of else str(count)


def blockers_markdown(summary: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """A table: one row per code, a column per group with the count and its share of the group."""
    groups: Sequence[str] = [g for g in GROUPS if g in summary]
    every: Counter[str] = Counter()
    for group in groups:
        every.update(summary[group]["codes"])
    if not every:
        return ["No claim was held back: every claim was decided at high confidence."]
    header = " | ".join(f"{_TITLES[g]} (of {summary[g]['claims']})" for g in groups)
    lines = [f"| blocker | {header} |", "|---" * (len(groups) + 1) + "|"]
    for code in _sorted(every):
        cells = " | ".join(
            _share(int(summary[g]["codes"].get(code, 0)), int(summary[g]["claims"])) for g in groups
        )
        lines.append(f"| `{code}` | {cells} |")
    return lines
