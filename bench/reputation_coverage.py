"""Reputation coverage on real data: how much evidence has a source on file with the registry every check
uses (shipped manual records + the shipped default registry), against the manual records alone; and whether
any domain on the AVeriTeC misinformation list could carry a counted weight (the answer must be none).

AVeriTeC: every answer of ``averitec/dev.json`` with a web source is one evidence item, read by the
evaluation's own loader (archive links unwrapped to the page they copy). SciFact: every corpus abstract as the
local-corpus reader files it. Reads the datasets from ../shared/datasets (or ICARUS_DATASETS); reports
"skipped" when they are absent. The weight check assumes favourable factors for the source: original
reporting (D) and a confident judge (C = 0.90), with P from the policy.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

from icarus.ledger import RiskRating
from icarus.reputation.manual import default_registry
from icarus.reputation.registry import Registry, domain_of
from icarus.scoring.icarus.config import load_policy

DATASETS = Path(os.environ.get("ICARUS_DATASETS", Path(__file__).parents[2] / "shared" / "datasets"))
CONFIDENT_JUDGE = Decimal("0.90")
SCIFACT_CORPUS_RECORD = Path(__file__).parents[1] / "examples" / "reputation" / "scifact-corpus.json"


def _share(hits: int, total: int) -> str:
    return f"{hits / total:.1%}" if total else "n/a"


def _row(measure: str, hits: int, total: int) -> dict[str, str]:
    return {"measure": measure, "count": f"{hits} / {total}", "share": _share(hits, total)}


def averitec_urls() -> list[str]:
    from icarus.evaluation.averitec import load

    evalset = load(DATASETS / "averitec")
    return [passage.url for case in evalset.cases for passage in case.passages]


def scifact_urls() -> list[str]:
    """The address the local-corpus reader gives each SciFact abstract (the corpus file and a line number:
    the abstracts carry no URL, DOI or venue)."""
    from icarus.research._readers import RawDocument, ReadLimits, read_path

    documents = read_path(DATASETS / "scifact" / "corpus.jsonl", "jsonl", ReadLimits())
    return [document.url for document in documents if isinstance(document, RawDocument)]


def scifact_corpus_addresses() -> list[str]:
    """The address the SciFact evaluation gives each abstract (``scifact.CORPUS_ADDRESS``), which the corpus
    record (``examples/reputation/scifact-corpus.json``) puts on file as a statement about the corpus."""
    from icarus.evaluation._files import field, json_lines
    from icarus.evaluation.scifact import CORPUS, CORPUS_ADDRESS

    corpus = DATASETS / "scifact" / CORPUS
    return [CORPUS_ADDRESS.format(id=field(row, "doc_id", str(corpus))) for _, row in json_lines(corpus)]


def coverage(registry: Registry, urls: list[str]) -> tuple[int, int, Counter[str]]:
    found = [registry.find(url) for url in urls]
    classes = Counter(entry.source_class.value for entry in found if entry is not None)
    return sum(entry is not None for entry in found), len(urls), classes


def main(argv: list[str]) -> dict[str, Any]:
    if not (DATASETS / "averitec/dev.json").is_file():
        return {"runs": [], "skipped": f"datasets not found under {DATASETS}"}
    policy = load_policy("icarus@1.1")
    started = time.perf_counter()
    registry = default_registry()
    load_seconds = time.perf_counter() - started
    manual_only = default_registry(shipped_default=False)
    urls = averitec_urls()
    runs: list[dict[str, str]] = []
    hits, total, classes = coverage(registry, urls)
    manual_hits, _, _ = coverage(manual_only, urls)
    runs.append(_row("AVeriTeC dev evidence items on file, manual records only", manual_hits, total))
    runs.append(_row("AVeriTeC dev evidence items on file, manual + default registry", hits, total))
    domains = {domain_of(url) for url in urls}
    runs.append(
        _row(
            "AVeriTeC dev evidence domains on file, manual + default registry",
            sum(registry.on_file(d) for d in domains),
            len(domains),
        )
    )
    scifact: list[str] = []
    if (DATASETS / "scifact" / "corpus.jsonl").is_file():
        scifact = scifact_urls()
        s_hits, s_total, _ = coverage(registry, scifact)
        runs.append(_row("SciFact corpus abstracts on file, manual + default registry", s_hits, s_total))
        with_record = default_registry(SCIFACT_CORPUS_RECORD)
        c_hits, c_total, _ = coverage(with_record, scifact_corpus_addresses())
        runs.append(
            _row(
                "SciFact abstracts on file at the evaluation's corpus address, with the corpus record",
                c_hits,
                c_total,
            )
        )
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
    runs.append(_row("misinformation-list hosts that could be counted", len(counted), len(misinfo)))
    return {
        "runs": runs,
        "registry_domains": len(registry.entries),
        "registry_rules": len(registry.rules),
        "load_seconds": round(load_seconds, 3),
        "averitec_classes_on_file": dict(classes.most_common()),
        "scifact_example_address": scifact[0] if scifact else None,
        "counted_misinfo_hosts": counted,
    }
