"""Runtime settings, read from the environment (``ICARUS_…``) and never from files in the repository.

Secrets are ``SecretStr``: they print as ``**********`` and never reach logs or reports. Every setting is
documented here once; ``docs/settings.md`` is generated from this class.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from icarus.ledger.policy import DEFAULT_POLICY


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ICARUS_", extra="ignore", frozen=True)

    data_dir: Path = Field(
        default=Path(".icarus"), description="Where the embedded database, snapshots and corpus live."
    )
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL; default is SQLite at <data_dir>/icarus.db. PostgreSQL for scale.",
    )
    redis_url: str | None = Field(
        default=None, description="Redis URL for shared workers; unset means embedded."
    )
    corpus_path: Path | None = Field(
        default=None, description="Local corpus index; default <data_dir>/corpus.db."
    )
    policy: str = Field(default=DEFAULT_POLICY, description="Policy name@version used when none is given.")
    reputation_files: Annotated[tuple[Path, ...], NoDecode] = Field(
        default=(),
        description="Reputation record files (JSON, as `icarus check --reputation` reads) loaded by every check "
        "the service's worker, the X bot and `icarus check` run, in order, before any --reputation file; "
        "several paths are separated by the system's path separator (':' on Linux and macOS).",
    )
    review_queue_path: Path | None = Field(
        default=None,
        description="The H4 review queue (append-only JSON lines) that `icarus check`, the worker and the X bot "
        "fill and `icarus registry review` reads; default <data_dir>/review-queue.jsonl.",
    )

    fetch_max_bytes: int = Field(default=10 * 1024 * 1024, description="Largest response body a fetch keeps.")
    fetch_max_decompressed_bytes: int = Field(
        default=50 * 1024 * 1024, description="Largest decompressed body (decompression-bomb guard)."
    )
    fetch_timeout_s: float = Field(default=15.0, description="Per-request timeout in seconds.")
    fetch_max_redirects: int = Field(default=5, description="Redirects followed, each re-checked for SSRF.")
    fetch_retries: int = Field(
        default=2, description="Retries with exponential backoff on transient failures."
    )
    archive_url: str | None = Field(
        default="https://web.archive.org",
        description="Wayback-style archive whose copy stands in for a page that cannot be fetched, labelled "
        "archived (H24); empty means no archive. Not asked when ICARUS_OFFLINE is set.",
    )
    fetch_cited_links: bool = Field(
        default=True,
        description="Fetch and snapshot the pages a post links (self-evidence); off means never.",
    )
    user_agent: str = Field(
        default="IcarusEvidenceReview/0.1 (+https://icarus.invalid/bot)", description="HTTP User-Agent."
    )

    check_max_queries: int = Field(default=24, description="Per-check budget: search queries.")
    check_max_fetches: int = Field(default=40, description="Per-check budget: page fetches.")
    check_max_seconds: float = Field(default=120.0, description="Per-check budget: wall-clock seconds.")
    check_max_claims: int = Field(
        default=5, description="Claims checked per subject; the rest are not assessed (budget)."
    )

    offline: bool = Field(
        default=False,
        description="Run no look-up that needs the network: RDAP (H10), Crossref (H16), the drift re-fetch and "
        "the archive (H24) are each reported as not run, with this as the reason. `icarus check --offline` "
        "sets it for one check. Look-ups on this machine (C2PA, a Retraction Watch file) still run.",
    )
    lookup_timeout_s: float = Field(
        default=5.0,
        gt=0,
        description="Per-request timeout of the RDAP and Crossref look-ups, in seconds. A service that cannot "
        "be reached, or does not answer in time, is reported as not run and not asked again for a minute.",
    )
    rdap_url: str | None = Field(
        default="https://rdap.org",
        description="RDAP service for domain registration dates (H10); empty turns the look-up off.",
    )
    crossref_url: str | None = Field(
        default="https://api.crossref.org",
        description="Crossref API for retraction and correction notices (H16); empty turns the look-up off.",
    )
    crossref_mailto: str | None = Field(
        default=None, description="Contact address sent to Crossref's polite pool."
    )
    retraction_watch_csv: Path | None = Field(
        default=None, description="A local Retraction Watch CSV export read for retraction notices (H16)."
    )
    c2pa_validation: bool = Field(
        default=True,
        description="Validate content credentials of media snapshots (H22); local, needs no network.",
    )
    drift_check: bool = Field(
        default=True,
        description="Fetch each evidence page again to detect soft 404s and drift (H24); needs the network.",
    )
    c2pa_trust_anchors: Path | None = Field(
        default=None,
        description="PEM bundle of certificate authorities whose C2PA signatures count as trusted (H22).",
    )
    llm_base_url: str | None = Field(
        default=None, description="OpenAI-compatible endpoint; unset means offline judges."
    )
    llm_model: str | None = Field(default=None, description="Model name at the LLM endpoint.")
    llm_parallel_requests: int = Field(
        default=4,
        ge=1,
        le=64,
        description="How many questions the LLM judge may have open at the endpoint at once, when a check "
        "or an evaluation has many to ask.",
    )
    offline_judge: str = Field(
        default="offline-minilm@5",
        description="Registered offline judge (name@version) used when no LLM endpoint is configured: "
        "offline-minilm@5 (the default: offline-minilm@4's side calls kept only where the embedding judge "
        "offline-wordllama@1 takes the same side), offline-minilm@4 (the MiniLM cross-encoder with figures "
        "read by rule, behind a support floor, its side calls on passages not about the claim's subject "
        "answered neutral), offline-minilm@3 "
        "(the same floor without the relevance gate), offline-minilm@2 (the cross-encoder with figures read "
        "by rule, every side call kept), offline-cascade@1 (the embedding judge screens out unrelated "
        "passages, the cross-encoder judges the rest: about twice as fast), offline-minilm@1 (the "
        "cross-encoder alone), offline-wordllama@1 (static embeddings) or offline-lexical@1.",
    )
    llm_api_key: SecretStr | None = Field(default=None, description="API key for the LLM endpoint.")
    llm_candidate_models: str | None = Field(
        default=None,
        description="Debates: the models at the LLM endpoint a debate may use, as a JSON list of "
        '{"name", "cost", "latency", "quality"} objects or comma-separated names; a debate\'s cost, '
        "latency and quality weights order them, an unavailable one hands over to the next. Unset means "
        "ICARUS_LLM_MODEL alone.",
    )
    x_bearer_token: SecretStr | None = Field(
        default=None, description="X API v2 bearer token for fetching posts."
    )
    x_api_url: str = Field(
        default="https://api.x.com", description="Base URL of the X API v2 the X bot talks to."
    )
    x_bot_user_id: str | None = Field(
        default=None, description="Numeric X user id of the bot account whose mentions `icarus x-bot` reads."
    )
    x_bot_access_token: SecretStr | None = Field(
        default=None,
        description="OAuth 2.0 user-context access token of the bot account (tweet.read, tweet.write, "
        "users.read): reads its mentions and posts its replies.",
    )
    x_bot_interval_s: float = Field(
        default=60.0, description="Seconds between mention polls of `icarus x-bot` (without --once)."
    )
    x_bot_state_path: Path | None = Field(
        default=None,
        description="The X bot's memory (read mentions, replies, follow-ups): SQLite, default "
        "<data_dir>/xbot.db.",
    )
    public_url: str = Field(
        default="http://127.0.0.1:8000",
        description="Public base URL of the report pages; report links in X replies start with it.",
    )
    brave_api_key: SecretStr | None = Field(default=None, description="Brave Search API key.")
    searxng_url: str | None = Field(default=None, description="Base URL of a SearXNG instance (JSON API).")
    google_factcheck_api_key: SecretStr | None = Field(
        default=None, description="Google Fact Check Tools API key."
    )

    queue_name: str = Field(
        default="icarus",
        description="Name of the job queue; deployments sharing one Redis use different names.",
    )
    api_public_reads: bool = Field(
        default=True,
        description="Reports, timelines and policies can be read without a token (submitting always needs one).",
    )
    api_rate_anonymous: int = Field(
        default=120, description="Requests per minute per client address without a token."
    )
    api_rate_anonymous_total: int = Field(
        default=1200,
        description="API requests per minute from all callers without a token together, whatever addresses "
        "they claim (shared by every API process through ICARUS_REDIS_URL when it is set); tokens never "
        "count against it.",
    )
    api_rate_reader: int = Field(
        default=300, description="Requests per minute for a reader token, unless it sets its own."
    )
    api_rate_api: int = Field(
        default=600, description="Requests per minute for an api token, unless it sets its own."
    )
    api_rate_admin: int = Field(
        default=1200, description="Requests per minute for an admin token, unless it sets its own."
    )
    page_rate_anonymous: int = Field(
        default=120,
        description="Page loads (dashboard, reports, methodology, /docs) per minute per client address, "
        "counted apart from its API calls; over it a page answers 429 with Retry-After.",
    )
    page_rate_anonymous_total: int = Field(
        default=600,
        description="Page loads per minute from all readers without a token together, whatever addresses "
        "they claim (shared by every API process through ICARUS_REDIS_URL when it is set); a page load "
        "with a token counts against the token's own limit instead.",
    )
    worker_threads: int = Field(default=2, description="Worker threads per `icarus worker` process.")
    job_lease_s: float = Field(
        default=15.0,
        gt=0,
        description="How long a job's lease lasts without renewal; a job whose worker died runs again after "
        "this (at most one heartbeat later).",
    )
    job_heartbeat_s: float = Field(
        default=3.0,
        gt=0,
        description="How often a worker records that it is alive, renews the leases of the jobs it runs and "
        "hands out again the jobs of workers whose leases ran out; keep it well under the lease.",
    )
    worker_grace_s: float = Field(
        default=20.0,
        ge=0,
        description="On SIGTERM a worker takes no new job and lets running ones finish for this long; it "
        "then hands the rest back to the queue at once.",
    )
    job_max_attempts: int = Field(
        default=3, description="Runs of a job that keeps failing before it is given up."
    )
    search_retry_minutes: list[int] = Field(
        default=[10, 30, 120],
        description="When every search failed: retries after the first failure (minutes, JSON list); then the version is recorded.",
    )
    deletion_sweep_minutes: int = Field(
        default=60,
        description="How often the deletion sweep asks X whether checked posts still exist (at most 1440).",
    )
    event_retention_days: int = Field(
        default=30,
        ge=1,
        description="Days the event streams' history (progress and state events) is kept; a daily task deletes "
        "older events, always keeping the newest.",
    )

    watch_research_mode: str | None = Field(
        default=None,
        validation_alias=AliasChoices("watch_research_mode", "ICARUS_WATCH_RESEARCH_MODE"),
        description="Research methods for debates made from watched caption files (also read as "
        "WATCH_RESEARCH_MODE): comma-separated, 'none' for detection only; unset means agentic,decompose.",
    )
    strong_language_auto_retry: bool = Field(
        default=False,
        validation_alias=AliasChoices("strong_language_auto_retry", "ICARUS_STRONG_LANGUAGE_AUTO_RETRY"),
        description="Once every panel of a debate claim answered unverifiable, rerun each of its methods "
        "once more, searching also in English and Spanish, without being asked (also read as "
        "STRONG_LANGUAGE_AUTO_RETRY).",
    )
    debate_max_searches: int | None = Field(
        default=None,
        ge=0,
        description="Debate research budget per panel: searches; unset means each method's own.",
    )
    debate_max_pages: int | None = Field(
        default=None,
        ge=0,
        description="Debate research budget per panel: pages read; unset means each method's own.",
    )
    debate_max_depth: int | None = Field(
        default=None,
        ge=0,
        description="Debate research budget per panel: follow-up rounds or link hops; unset means each method's own.",
    )
    debate_max_seconds: float | None = Field(
        default=None,
        ge=0,
        description="Debate research budget per panel: seconds; unset means each method's own.",
    )
    debate_panel_lease_s: float = Field(
        default=600.0,
        gt=0,
        description="How long a worker holds a debate panel it researches; a panel whose worker died is "
        "researched again after this. Keep it above the longest method budget.",
    )

    @field_validator("reputation_files", mode="before")
    @classmethod
    def _split_paths(cls, value: object) -> object:
        """The environment gives one string: split it at the path separator, dropping empty parts."""
        if isinstance(value, str):
            return tuple(Path(part) for part in value.split(os.pathsep) if part.strip())
        return value

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'icarus.db'}"

    @property
    def resolved_corpus_path(self) -> Path:
        return self.corpus_path or self.data_dir / "corpus.db"

    @property
    def resolved_x_bot_state_path(self) -> Path:
        return self.x_bot_state_path or self.data_dir / "xbot.db"

    @property
    def resolved_review_queue_path(self) -> Path:
        return self.review_queue_path or self.data_dir / "review-queue.jsonl"

    @property
    def resolved_archive_url(self) -> str | None:
        """The archive a check asks for a page it cannot fetch: none when unset, empty or offline."""
        return None if self.offline else (self.archive_url or None)


def render_settings_reference() -> str:
    """Markdown table of every setting: its environment variable, default and meaning."""
    lines = [
        "# Settings",
        "",
        "Every setting is read from an environment variable; secrets are never printed or logged.",
        "Generated from `icarus.settings.Settings` by `python -m icarus.settings`.",
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        default = "(unset)" if field.default is None or field.default == () else f"`{field.default}`"
        lines.append(f"| `ICARUS_{name.upper()}` | {default} | {field.description} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_settings_reference(), end="")
