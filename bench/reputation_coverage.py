"""Reputation coverage on real data: how much AVeriTeC dev evidence is on file, and whether any domain on the
AVeriTeC misinformation list could carry a counted weight (the answer must be none).

Reads the datasets from ../shared/datasets (or ICARUS_DATASETS); reports "skipped" when they are absent.
The weight check assumes favourable factors for the source: original reporting (D) and a confident judge
(C = 0.90), with P from the policy.
"""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

from icarus.ledger import RiskRating
from icarus.reputation.importers import import_file, merge_registries
from icarus.reputation.registry import Registry, domain_of
from icarus.scoring.icarus.config import load_policy

DATASETS = Path(os.environ.get("ICARUS_DATASETS", Path(__file__).parents[2] / "shared" / "datasets"))
FILES = (
    ("lin2023", "domain-quality-ratings/domain_pc1.csv"),
    ("perennial", "wikipedia-perennial-sources/perennial-sources_kudusch_2021-03-17.csv"),
    ("ifcn", "ifcn-signatories/tub_white_list_2020.json"),
    ("opensources", "opensources/sources.csv"),
    ("misinfo-list", "averitec/misinfo_list.txt"),
)
CONFIDENT_JUDGE = Decimal("0.90")


def main(argv: list[str]) -> dict[str, Any]:
    if (
        not all((DATASETS / path).is_file() for _, path in FILES)
        or not (DATASETS / "averitec/dev.json").is_file()
    ):
        return {"runs": [], "skipped": f"datasets not found under {DATASETS}"}
    policy = load_policy("icarus@1.1")
    merged = merge_registries(*(import_file(kind, DATASETS / path).entries for kind, path in FILES))
    registry = Registry({entry.record.domain: entry for entry in merged})
    dev = json.loads((DATASETS / "averitec/dev.json").read_text())
    urls = [
        a["source_url"]
        for c in dev
        for q in c.get("questions", [])
        for a in q.get("answers", [])
        if a.get("source_url")
    ]
    domains = [domain_of(url) for url in urls]
    unique = set(domains)
    misinfo = {
        line.strip().lower()
        for line in (DATASETS / "averitec/misinfo_list.txt").read_text().splitlines()
        if line.strip()
    }
    directness = policy.directness.original_reporting
    counted = []
    for host in sorted(misinfo):
        record = registry.lookup(host).record
        if record.risk_rating is RiskRating.DEPRECATED:
            continue
        discount = policy.weighting.estimated_reputation_discount if record.estimated else Decimal(1)
        if record.score * directness * CONFIDENT_JUDGE * discount >= policy.weighting.counting_threshold:
            counted.append(host)
    on_file_urls = sum(d in registry.entries for d in domains)
    on_file_domains = sum(d in registry.entries for d in unique)
    return {
        "runs": [
            {
                "measure": "AVeriTeC dev evidence URLs on file",
                "count": f"{on_file_urls} / {len(urls)}",
                "share": f"{on_file_urls / len(urls):.1%}",
            },
            {
                "measure": "AVeriTeC dev evidence domains on file",
                "count": f"{on_file_domains} / {len(unique)}",
                "share": f"{on_file_domains / len(unique):.1%}",
            },
            {
                "measure": "misinformation-list hosts that could be counted",
                "count": f"{len(counted)} / {len(misinfo)}",
                "share": f"{len(counted) / len(misinfo):.1%}",
            },
        ],
        "registry_domains": len(registry.entries),
        "counted_misinfo_hosts": counted,
    }
