"""When a check runs again, as pure functions of its results and the clock.

* Rechecks: a result with an ongoing claim, a G1 single origin or a G5 correction window (any claim's
  ``recheck.triggers``) is checked again at the policy's offsets after its first version (+15 min, +1 h,
  +6 h, +24 h in icarus@1.x). Each slot has a run key (``recheck+15m``), so scheduling a slot twice adds
  nothing and repair can simply schedule everything again.
* Search retries: when every search failed, the check waits (``pending``, ``search_unavailable``) and is
  retried at the configured offsets after the first failure; after the last one the version is recorded
  with whatever evidence there is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from icarus.research.providers import ProviderStatus

__all__ = [
    "FIRST_RUN",
    "RECHECK_PREFIX",
    "SEARCH_RETRY_PREFIX",
    "Slot",
    "describe_run",
    "missed_collapsed",
    "recheck_slots",
    "recheck_triggers",
    "search_retry_slot",
    "search_unavailable",
]

FIRST_RUN: Final = "first"
RECHECK_PREFIX: Final = "recheck+"
SEARCH_RETRY_PREFIX: Final = "search-retry-"
REQUESTED_PREFIX: Final = "requested-"
CORRECTION_PREFIX: Final = "correction-"


@dataclass(frozen=True)
class Slot:
    run_key: str
    due_at: datetime


def recheck_triggers(result: Mapping[str, Any]) -> list[str]:
    """Every claim's recheck triggers (G1, G5, G6, ongoing), sorted and without repeats."""
    found: set[str] = set()
    for claim in result.get("claims") or []:
        if isinstance(claim, Mapping):
            recheck = claim.get("recheck")
            if isinstance(recheck, Mapping):
                found.update(str(t) for t in recheck.get("triggers") or [])
    return sorted(found)


def recheck_slots(started_at: datetime, offsets_minutes: Sequence[int]) -> list[Slot]:
    return [Slot(f"{RECHECK_PREFIX}{m}m", started_at + timedelta(minutes=m)) for m in offsets_minutes]


def missed_collapsed(slots: Sequence[Slot], now: datetime, already: Iterable[str]) -> list[Slot]:
    """The slots still to schedule: every future one, and of those already past only the latest.

    A service that was down through several slots runs one catch-up recheck, not a burst of them.
    """
    taken = set(already)
    past = [slot for slot in slots if slot.due_at <= now]
    future = [slot for slot in slots if slot.due_at > now and slot.run_key not in taken]
    if past and past[-1].run_key not in taken:
        future.insert(0, past[-1])
    return future


def search_unavailable(statuses: Iterable[str]) -> bool:
    """True when searches were attempted and every one of them failed.

    Providers that are not configured (``not_run``) do not count either way: a check with no search at
    all is recorded as such, not held pending. One successful search, even an empty one, is enough.
    """
    attempted = [s for s in statuses if s in (ProviderStatus.OK.value, ProviderStatus.ERROR.value)]
    return bool(attempted) and all(s == ProviderStatus.ERROR.value for s in attempted)


def search_retry_slot(run_key: str, failed_at: datetime, offsets_minutes: Sequence[int]) -> Slot | None:
    """The retry after a run that found search unavailable; None after the last retry.

    Offsets count from the first failure: retry n is due at first failure + offsets[n-1].
    """
    attempt = retry_number(run_key)
    if attempt >= len(offsets_minutes):
        return None
    first_failure = failed_at if attempt == 0 else failed_at - timedelta(minutes=offsets_minutes[attempt - 1])
    return Slot(
        f"{SEARCH_RETRY_PREFIX}{attempt + 1}", first_failure + timedelta(minutes=offsets_minutes[attempt])
    )


def retry_number(run_key: str) -> int:
    """0 for a run that is not a search retry, n for ``search-retry-n``."""
    if run_key.startswith(SEARCH_RETRY_PREFIX):
        return int(run_key.removeprefix(SEARCH_RETRY_PREFIX))
    return 0


def describe_run(run_key: str, retries: int, note: str | None = None) -> str:
    """Why a run happened, in words for the timeline."""
    if run_key == FIRST_RUN:
        return "first check"
    if run_key.startswith(RECHECK_PREFIX):
        return f"scheduled recheck at +{_minutes(run_key.removeprefix(RECHECK_PREFIX))}"
    if run_key.startswith(SEARCH_RETRY_PREFIX):
        return f"search retry {retry_number(run_key)} of {retries} after search was unavailable"
    if run_key.startswith(CORRECTION_PREFIX):
        return f"correction: {note}" if note else "correction"
    if run_key.startswith(REQUESTED_PREFIX):
        return f"recheck requested: {note}" if note else "recheck requested"
    return run_key


def _minutes(text: str) -> str:
    minutes = int(text.removesuffix("m"))
    if minutes % 60:
        return f"{minutes} min"
    return f"{minutes // 60} h"
