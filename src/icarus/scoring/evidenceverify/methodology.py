"""Render EvidenceVerify's methodology page (Markdown) from its config: no number is typed twice."""

from __future__ import annotations

from icarus.scoring.evidenceverify.criticality import OFFLINE_CRITICALITY
from icarus.scoring.evidenceverify.models import EvidenceVerifyConfig
from icarus.scoring.evidenceverify.verify import ALLOWED_TRANSITIONS, SOCIAL_HOSTS

__all__ = ["render_evidenceverify_methodology"]


def render_evidenceverify_methodology(config: EvidenceVerifyConfig) -> str:
    reputable = ", ".join(sorted(t.value for t in config.reputable_tiers))
    non_social = ", ".join(sorted(t.value for t in config.non_social_tiers))
    lines = [
        f"# EvidenceVerify methodology \u2014 {config.ref}",
        "",
        f"Published {config.published}. Config hash `{config.config_hash}`.",
        "",
        config.summary,
        "",
        "## Sources",
        "",
        f"Non-social sources are items of the tiers {non_social} that are not twitter items. Reputable "
        f"tiers: {reputable}. Search hits from {', '.join(sorted(SOCIAL_HOSTS))} are social.",
        "",
        "Independence: one publisher group is one source; every item redistributing one wire story (AP, "
        "Reuters, AFP) is one source; items at one canonical URL are one source.",
        "",
        "## Criticality",
        "",
        "A claim item may state `centrality` (`central` or `peripheral`). Otherwise the judge "
        f"`{OFFLINE_CRITICALITY}` calls a claim critical when its checkworthiness reaches "
        f"{config.criticality_points} points.",
        "",
        "## Status",
        "",
        "| condition | status |",
        "|---|---|",
        "| a non-social source contradicts the claim (partly or fully) | `contested`, with the points of disagreement |",
        "| every fact-track item of a fact-track claim has expired | `stale` |",
        f"| critical claim: at least {config.min_independent_sources_critical} independent non-social sources "
        "agree | `verified` |",
        f"| peripheral claim: at least {config.min_sources_peripheral} reputable source(s) agree | `verified` |",
        "| anything else (one source, only social sources, nothing agrees) | `unverified` |",
        "",
        "Caps, applied to a `verified` result only: an evidence id missing from the store, or a twitter item "
        "that is uncorroborated, or flagged `likely_unreliable` with fewer than "
        f"{config.strong_independent_sources} independent non-social sources agreeing, keeps the claim "
        "`unverified`. A twitter item contradicted by an independent non-social source makes the claim "
        "`contested`.",
        "",
        f"Stance: a judge reads each snippet against the claim; an answer below {config.stance_confidence} "
        "confidence is neutral.",
        "",
        "## Independent re-search",
        "",
        f"Runs with `--independent-search`, and always for twitter items of high or medium verification "
        f"priority: up to {config.search_max_queries} queries from the claim text, {config.search_hits_per_query} "
        "hits each, through the configured research providers (the local corpus by default). Hits at the "
        "address of evidence the claim already cites are dropped. No hits: \u201cno independent "
        "confirmation found\u201d; a provider that cannot run: \u201cnot run\u201d. Neither rejects a claim.",
        "",
        "## Transitions",
        "",
        "| from | allowed to |",
        "|---|---|",
    ]
    lines += [
        f"| `{status.value}` | {', '.join(f'`{t.value}`' for t in sorted(targets, key=lambda s: s.value))} |"
        for status, targets in ALLOWED_TRANSITIONS.items()
    ]
    lines += [
        "",
        "A recommendation that is not an allowed transition leaves the status where it was, with a note. "
        "Reasoning-track claims never go stale by themselves.",
        "",
        "## Confidence level",
        "",
        f"- `high`: verified by at least {config.high_confidence_sources} independent sources, or by "
        f"{config.min_independent_sources_critical} including a tier1_authoritative one.",
        "- `medium`: verified otherwise, or contested between reputable sources on both sides.",
        "- `low`: everything else, and whenever a transition was refused.",
        "- A missing or unreachable evidence item lowers the level by one step.",
        "",
    ]
    return "\n".join(lines)
