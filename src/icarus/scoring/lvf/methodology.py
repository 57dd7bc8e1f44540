"""Render an LVF version's methodology page (Markdown) from its own config: no number is typed twice."""

from __future__ import annotations

from decimal import Decimal

from icarus.scoring.lvf.assessors import LEDGER_ASSESSOR, LLM_ASSESSOR, SPECIFIC_CUES
from icarus.scoring.lvf.config import Component, LvfConfig
from icarus.scoring.lvf.stance_assessor import (
    ABSOLUTE_OR_LOADED,
    ANCHOR_POINTS,
    BIAS_POINTS_PER_SIGNAL,
    NOW_WORDS,
    QUARANTINE_PENALTY,
    STANCE_ASSESSOR,
    TEMPORAL_POINTS,
    VAGUE_POINTS,
    VAGUE_WORDS,
    WITHOUT_ANSWERS,
)

__all__ = ["render_lvf_methodology"]


def _pct(weight: Decimal) -> str:
    text = format((weight * 100).normalize(), "f")
    return f"{text} %"


def render_lvf_methodology(config: LvfConfig) -> str:
    a = config.ledger_assessor
    r = config.reconciliation
    with_nli, fallback = config.formulas.with_nli, config.formulas.without_nli
    lines = [
        f"# LVF methodology \u2014 {config.ref}",
        "",
        f"Published {config.published}. Config hash `{config.config_hash}`.",
        "",
        config.summary,
        "",
        "## Checkworthiness gate",
        "",
        f"Checkworthiness (0\u20131) says whether a claim is testable, never whether it is true. A claim "
        f"below {config.checkworthiness_gate} is skipped before any assessor runs, and its record says so "
        f"(a claim at exactly {config.checkworthiness_gate} goes on). It is the claims package's "
        "deterministic cue score read as 0\u20131; a claim whose disposition is not checkable scores 0.",
        "",
        "## The six criteria",
        "",
        "| criterion | weight |",
        "|---|---|",
    ]
    lines += [f"| {c.heading} | {_pct(w)} |" for c, w in config.criteria.items()]
    lines += [
        "",
        f"At least {r.min_assessors} independent assessors score every criterion from 0 to 10. The "
        f"offline assessors `{LEDGER_ASSESSOR}` and `{STANCE_ASSESSOR}` always run, and read different "
        f"things (below); the LLM assessor `{LLM_ASSESSOR}` runs "
        "when `ICARUS_LLM_BASE_URL` and `ICARUS_LLM_MODEL` are set. Reconciliation takes the median per "
        f"criterion. A spread (highest minus lowest score) above {r.max_spread} points on any criterion, or "
        f"fewer than {r.min_assessors} assessors answering, holds the run for more evidence or human review "
        f"(a spread of exactly {r.max_spread} does not). The LVF component is the weighted sum of the "
        "medians \u00d7 10 (0\u2013100).",
        "",
        f"### How `{LEDGER_ASSESSOR}` scores",
        "",
        "Evidence counts for a claim when a stance judge answered support or refute with confidence at "
        f"least {a.neutral_below_confidence}, and the item is not weightless (aggregator, content farm, "
        "platform, satire about something else), retracted, self-cited, superseded, inaccessible, out of "
        "scope or a scope mismatch. Independence comes from provenance clusters (canonical URLs, copy "
        f"groups, citations, elected origins; settings of `{config.provenance_settings_from}`), never from "
        "article counts.",
        "",
        "- **Source provenance**: the best counted item's directness points ("
        + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in a.directness_points.items())
        + f"), capped at {a.limited_access_cap} for paywalled, abstract-only or snippet-only access, less "
        f"{a.anonymous_sourcing_penalty} for anonymous sourcing and {a.untraceable_penalty} for an item with "
        "no content hash or snapshot. No counted evidence: 0.",
        "- **Corroboration**: by supporting independent origins: "
        + ", ".join(
            f"{i}{'+' if i == len(a.corroboration_points) - 1 else ''} \u2192 {p}"
            for i, p in enumerate(a.corroboration_points)
        )
        + ".",
        "- **Internal consistency**: 10 \u00d7 supporting origins / (supporting + refuting origins); "
        f"{a.without_evidence} when nothing was counted.",
        f"- **Specificity**: {a.specificity_points_per_cue} points per specific cue in the claim ("
        + ", ".join(c.replace("_", " ") for c in SPECIFIC_CUES)
        + "), capped at 10.",
        "- **Temporal validity**: 10 for a historical claim; for a current or ongoing claim, by the age of "
        "the newest counted item: "
        + ", ".join(f"up to {s.max_age_days} days \u2192 {s.points}" for s in a.temporal_steps)
        + f", older \u2192 {a.temporal_older}, undated \u2192 {a.temporal_undated}.",
        "- **Bias signal**: 10 \u00d7 the share of counted items without an incentive signal (conflict of "
        "interest, self-citation, press release, generally unreliable or Iffy-listed source); "
        f"{a.without_evidence} when nothing was counted. A bias label is display only and is never read.",
        "- A claim that misstates material it cites (rule 1: a verified H20 self-evidence finding, H16, H12 "
        "or H13) scores 0 on internal consistency, and the item it misstates does not count as support.",
        "",
        f"### How `{STANCE_ASSESSOR}` scores",
        "",
        "It reads only the stance judge's answers for the claim (stance, confidence, failure, quarantine) "
        "and the claim's own words: never the provenance graph, directness, access, reputation or dates. "
        "Quarantined answers and failed answers are not decisive; a support answer about an item the claim "
        "misstates (rule 1) is read as neutral.",
        "",
        "- **Source provenance**: 10 \u00d7 the highest confidence of a decisive answer.",
        "- **Corroboration**: 10 \u00d7 the strongest supporting confidence \u00d7 (1 \u2212 the strongest "
        "refuting confidence). Answers are never counted, so copies of one story add nothing.",
        "- **Internal consistency**: 10 \u00d7 |support \u2212 refute| / (support + refute), summing the "
        f"confidences of decisive answers; {WITHOUT_ANSWERS} without a decisive answer; 0 when the claim "
        "misstates what it cites (rule 1).",
        f"- **Specificity**: {ANCHOR_POINTS} points per anchor in the claim (a figure, a month, a "
        f"capitalised name after the first word) less {VAGUE_POINTS} per vague word ("
        + ", ".join(sorted(VAGUE_WORDS))
        + "), capped at 0\u201310.",
        "- **Temporal validity**: from the claim's words: "
        f"{TEMPORAL_POINTS['settled']} when it names a year before the as-of year, {TEMPORAL_POINTS['now']} "
        "when it speaks of now ("
        + ", ".join(sorted(NOW_WORDS))
        + f"), {TEMPORAL_POINTS['undated']} otherwise.",
        f"- **Bias signal**: 10 less {BIAS_POINTS_PER_SIGNAL} per loaded or absolute word ("
        + ", ".join(sorted(ABSOLUTE_OR_LOADED))
        + f") or exclamation mark, less {QUARANTINE_PENALTY} per quarantined answer.",
        "",
        "## Components and score",
        "",
        "- **LVF** (0\u2013100): above.",
        "- **NLI** (0\u2013100): 100 \u00d7 supporting stance confidence / (supporting + refuting) over "
        "independent origins, from the stance judgments in the ledger. When no stance judge answered, the "
        "component says \u201cnot run\u201d and the fallback weights apply.",
        "- **Source reliability** (0\u2013100): 100 \u00d7 the mean reputation of the counted origins; 0 "
        "when nothing was counted, so it cannot rescue weak evidence.",
        "- **Checkworthiness** (0\u2013100): the gate's value \u00d7 100.",
        "",
        "| component | with NLI | NLI not run (fallback) |",
        "|---|---|---|",
    ]
    lines += [f"| {c.value} | {_pct(with_nli.weight(c))} | {_pct(fallback.weight(c))} |" for c in Component]
    lines += [
        "",
        "The score is kept to two decimal places; the displayed score is that rounded half-even to a whole "
        "number, and the label and band read the displayed score.",
        "",
        "## Labels and bands",
        "",
        f"- **Factual** {config.labels.factual}\u2013100, **Rumour** {config.labels.rumour}\u2013"
        f"{config.labels.factual - 1}, **Opinion** 0\u2013{config.labels.rumour - 1}.",
        f"- Display bands: **High** {config.bands.high}\u2013100, **Medium** {config.bands.medium}\u2013"
        f"{config.bands.high - 1}, **Low** 0\u2013{config.bands.medium - 1}.",
        "",
        "The number, the checked date, the methodology version and the limitations are always shown beside "
        "the label. A label is an assessment of the evidence available, not a warranty.",
        "",
        "## Runs, challenges and votes",
        "",
        "Every run stores its methodology version, config hash, exact weights and component values, and "
        "renders from them for ever; a later run is a new record. External search that did not run is "
        "reported as not run, never as evidence against the claim.",
        "",
        f"A challenge is a structured evidence submission (at most {config.challenges.max_evidence_items} "
        f"items, texts up to {config.challenges.max_text_chars} characters), validated and limited to "
        f"{config.challenges.max_per_submitter} per submitter per {config.challenges.window_hours} h, then "
        "queued. A reviewer requests more information, rejects it, or accepts it for a later run; the "
        "challenged run never changes. Public votes only reorder the review queue and never enter a score. "
        "Public summaries show counts and component results only: never source bodies, excerpts, prompts, "
        "model responses or reviewer notes.",
        "",
    ]
    return "\n".join(lines)
