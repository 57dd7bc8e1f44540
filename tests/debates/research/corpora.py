"""Small corpora and services for the research-method tests: the sample corpus, or pages written here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from icarus.debates.research import ResearchServices
from icarus.fetching import SnapshotStore
from icarus.judges import create_judge
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider, SearchProvider
from icarus.scoring.icarus.config import load_policy

EXAMPLES = Path(__file__).parents[3] / "examples"
SAMPLE = EXAMPLES / "sample-corpus"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
JUDGE = "offline-lexical@1"  # deterministic and fast; the methods do not depend on which judge answers


@dataclass(frozen=True)
class Page:
    slug: str
    domain: str
    title: str
    body: str
    published: str | None = "2026-11-14T09:00:00Z"
    site: str = ""


def write_pages(folder: Path, pages: list[Page]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for page in pages:
        dated = (
            f'<meta property="article:published_time" content="{page.published}">' if page.published else ""
        )
        html = (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{page.title}</title>'
            f'<link rel="canonical" href="https://{page.domain}/{page.slug}">'
            f'<meta property="og:site_name" content="{page.site or page.domain}">{dated}</head>'
            f"<body><article><h1>{page.title}</h1><p>{page.body}</p></article></body></html>"
        )
        path = folder / f"{page.slug}.html"
        path.write_text(html, encoding="utf-8")
        paths.append(path)
    return paths


def records(folder: Path, entries: dict[str, tuple[str, str, str]]) -> Path:
    """A reputation file: domain -> (score, tier, source_class)."""
    path = folder / "reputation.json"
    path.write_text(
        json.dumps(
            [
                {
                    "record": {
                        "domain": domain,
                        "score": score,
                        "tier": tier,
                        "method": "manual",
                        "produced_by": "test-review",
                        "version": "1",
                    },
                    "source_class": source_class,
                }
                for domain, (score, tier, source_class) in entries.items()
            ]
        )
    )
    return path


def services_for(
    tmp: Path,
    documents: list[Path],
    reputation: Path,
    *,
    web: list[SearchProvider] | None = None,
) -> ResearchServices:
    corpus = LocalCorpus(tmp / "corpus.db")
    corpus.add(documents)
    local = LocalCorpusProvider(corpus)
    return ResearchServices(
        providers=[local, *(web or [])],
        local_provider=local,
        judge=create_judge(JUDGE),
        registry=load_registry(reputation),
        snapshots=SnapshotStore(tmp / "snapshots"),
        policy=load_policy(),
    )


def sample_services(tmp: Path, *, web: list[SearchProvider] | None = None) -> ResearchServices:
    return services_for(tmp, sorted(SAMPLE.glob("*.html")), SAMPLE / "reputation.json", web=web)


NEWS = ("0.85", "regional_news", "news")
WIRE = ("0.95", "wire", "wire")
OFFICIAL = ("1.00", "primary_official", "primary_official")
