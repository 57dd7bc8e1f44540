"""Which look-ups a deployment runs, and why one does not: read from the settings alone.

The registry that runs the look-ups (``adapters.registry_from_settings``) and the methodology page that
tells a reader what runs on this deployment (``icarus.reports.methodology``) both read this one answer, so
they cannot disagree. A look-up that does not run answers every item "not run", with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from icarus.ledger import LookupName
from icarus.settings import Settings

__all__ = ["OFFLINE_REASON", "LookupPlan", "lookup_plans"]

OFFLINE_REASON = "this deployment runs offline (ICARUS_OFFLINE, or icarus check --offline)"


@dataclass(frozen=True)
class LookupPlan:
    name: LookupName
    runs: bool
    detail: str
    """What runs, in words, or why nothing does."""


def _rdap(s: Settings) -> LookupPlan:
    if not s.rdap_url:
        return LookupPlan(LookupName.RDAP, False, "turned off: ICARUS_RDAP_URL is empty")
    if s.offline:
        return LookupPlan(LookupName.RDAP, False, OFFLINE_REASON)
    return LookupPlan(LookupName.RDAP, True, f"asks the RDAP service at {s.rdap_url}")


def _scholarly(s: Settings) -> LookupPlan:
    sources = []
    if s.crossref_url and not s.offline:
        sources.append(f"asks Crossref at {s.crossref_url}")
    if s.retraction_watch_csv:
        sources.append(f"reads the Retraction Watch list in {s.retraction_watch_csv.name}")
    if sources:
        return LookupPlan(LookupName.SCHOLARLY_UPDATES, True, " and ".join(sources))
    if s.crossref_url:  # so offline
        why = f"{OFFLINE_REASON}, and no Retraction Watch list is set (ICARUS_RETRACTION_WATCH_CSV)"
    else:
        why = "turned off: ICARUS_CROSSREF_URL is empty and no Retraction Watch list is set"
    return LookupPlan(LookupName.SCHOLARLY_UPDATES, False, why)


def _c2pa(s: Settings) -> LookupPlan:
    if not s.c2pa_validation:
        return LookupPlan(LookupName.C2PA, False, "turned off: ICARUS_C2PA_VALIDATION is false")
    anchors = " against the configured trust anchors" if s.c2pa_trust_anchors else ""
    return LookupPlan(
        LookupName.C2PA,
        True,
        f"validates media evidence (a fetched PDF) on this machine with c2pa-python{anchors}",
    )


def _drift(s: Settings) -> LookupPlan:
    if not s.drift_check:
        return LookupPlan(LookupName.ARCHIVE, False, "turned off: ICARUS_DRIFT_CHECK is false")
    if s.offline:
        return LookupPlan(LookupName.ARCHIVE, False, OFFLINE_REASON)
    archive = s.resolved_archive_url
    standing_in = f", the archive at {archive} standing in for a page that fails" if archive else ""
    return LookupPlan(LookupName.ARCHIVE, True, f"fetches each evidence page again{standing_in}")


def lookup_plans(settings: Settings) -> Mapping[LookupName, LookupPlan]:
    """Every look-up, in the order the rules read them (H10, H16, H22, H24)."""
    plans = (_rdap(settings), _scholarly(settings), _c2pa(settings), _drift(settings))
    return {plan.name: plan for plan in plans}
