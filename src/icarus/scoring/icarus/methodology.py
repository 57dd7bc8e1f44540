"""Render the methodology page (Markdown) of a policy version from its own config."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from icarus.scoring.icarus.catalog import GATES, RULES, RuleEntry
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.feature_words import feature_words, in_rule_order
from icarus.scoring.labels import Label


def _values(policy: PolicyConfig) -> dict[str, str]:
    """Every config number, flattened, formatted for prose (placeholders in the catalogue read these)."""
    flat: dict[str, str] = {}
    for section in (
        "validity",
        "directness",
        "reputation",
        "weighting",
        "decision",
        "penalties",
        "bands",
        "freshness",
        "provenance",
        "dates",
        "statistics",
        "media",
        "gates",
    ):
        for key, value in getattr(policy, section).model_dump().items():
            flat[key] = _fmt(value)
    flat["recheck_offsets"] = ", ".join(_offset(m) for m in policy.gates.recheck_offsets_minutes)
    return flat


def _fmt(value: Any) -> str:
    if isinstance(value, Decimal):
        return str(value)  # exactly as written in the config: "0.30" stays "0.30"
    if isinstance(value, (list, tuple)):
        return ", ".join(_fmt(v) for v in value)
    return str(value)


def _offset(minutes: int) -> str:
    return f"+{minutes // 60} h" if minutes % 60 == 0 else f"+{minutes} min"


def _status(entry: RuleEntry, policy: PolicyConfig) -> str:
    inert = [feature_words(f) for f in entry.features if not policy.live(f)]
    return "published, not yet live in part: " + "; ".join(inert) if inert else "live"


def render_methodology(policy: PolicyConfig) -> str:
    v = _values(policy)
    w = policy.confidence
    p = policy.penalties
    d = policy.decision
    # icarus@1.2 on: rules 2 and 3 need a counted cluster on each side.
    counted_each = "At least one counted cluster on each side, " if d.conflict_needs_counted_each_side else ""
    lines = [
        f"# How Icarus scores a claim \u2014 {policy.ref}",
        "",
        f"Published {policy.published}. Config hash `{policy.config_hash}`.",
        "",
        policy.summary,
        "",
        "## The four conclusions",
        "",
    ]
    lines += [f"- {label.symbol} **{label.heading}** (`{label.value}`)" for label in Label]
    lines += [
        "",
        "Each conclusion carries a band: high, medium or low. The overall result is the most adverse decided "
        "claim (\u274c before \u26a0\ufe0f before \u2705); an unverifiable claim never overrides a decided one.",
        "",
        "## Evidence weight",
        "",
        "`weight = R \u00d7 D \u00d7 V \u00d7 C \u00d7 P`",
        "",
        f"- **R** reputation prior. Baselines: primary official {v['primary_official']}, wire {v['wire']}, IFCN "
        f"signatory {v['ifcn_signatory']}, generally reliable {v['generally_reliable']}, no consensus "
        f"{v['no_consensus']}, generally unreliable at most {v['generally_unreliable_cap']}; a heuristic estimate "
        f"lies between {v['heuristic_min']} and {v['heuristic_max']}.",
        f"- **D** directness: original document {v['primary_document']}, original reporting "
        f"{v['original_reporting']}, secondary reporting naming its source {v['secondary_named']}, release "
        f"{v['release']}, out of scope {v['out_of_scope']}.",
        f"- **V** validity, the product of: retracted \u00d7{v['retracted']}, expression of concern "
        f"\u00d7{v['expression_of_concern']}, corrected \u00d7{v['corrected']}, preprint \u00d7{v['preprint']}, "
        f"anonymous sourcing \u00d7{v['anonymous_sourcing']}, disclosed conflict of interest "
        f"\u00d7{v['conflict_of_interest']}, each statistical flag \u00d7{v['statistical_flag']}, invalid C2PA "
        f"\u00d7{v['c2pa_invalid']}.",
        f"- **C** calibrated stance confidence; below {v['neutral_below_confidence']} a judgment is neutral.",
        f"- **P** provenance: 1 for a record on file, {v['estimated_reputation_discount']} for an estimate.",
        "",
        "## Independent origins",
        "",
        "Items are canonicalized, grouped by verbatim similarity, linked by citations and attributions, and "
        "collapsed into clusters that each weigh their strongest member once. A cluster takes that member's "
        f"stance; members at or above {v['counting_threshold']} that disagree make it mixed, counting for "
        "neither side.",
        "",
        "- S and Rf: sums of supporting and refuting cluster weights; polarity = (S \u2212 Rf) / (S + Rf).",
        f"- ICC: clusters on a side with weight at least {v['counting_threshold']}.",
        "- diversity: distinct source tiers among counted clusters.",
        "",
        "## Decision rules, in order",
        "",
        "1. A verified misrepresentation of cited material \u2192 \u26a0\ufe0f.",
        f"2. {counted_each}min(S, Rf) \u2265 {v['conflict_ratio']} \u00d7 max(S, Rf), with both sides present "
        f"and S + Rf \u2265 {v['minimum_total']} \u2192 \u26a0\ufe0f.",
        f"3. {counted_each}abs(polarity) < {v['polarity']} and S + Rf \u2265 {v['mixed_total']} \u2192 "
        "\u26a0\ufe0f.",
        f"4. polarity \u2265 +{v['polarity']} and ICC_s \u2265 {d.minimum_icc} \u2192 \u2705.",
        f"5. polarity \u2264 \u2212{v['polarity']} and ICC_r \u2265 {d.minimum_icc} \u2192 \u274c.",
        "6. Otherwise \u2754: too little evidence weight, fewer than two independent origins, an evidence chain "
        f"of more than {d.max_inference_hops} unsupported inference hops, or an ineligible claim. Finding "
        "nothing is never \u274c.",
        "",
        "Rule 3 can never fire first: whenever abs(polarity) is below its threshold, rule 2's ratio test is "
        "already met. The order is kept as published.",
        *_counted_each_side_note(policy),
        "",
        "## Confidence",
        "",
        "```",
        f"score = {_fmt(w.evidence_mass)} \u00d7 min(1, (S + Rf) / {_fmt(w.evidence_mass_saturation)})",
        f"      + {_fmt(w.independent_origins)} \u00d7 min(1, max(ICC_s, ICC_r) / "
        f"{_fmt(w.independent_origins_saturation)})",
        f"      + {_fmt(w.diversity)} \u00d7 min(1, diversity / {_fmt(w.diversity_saturation)})",
        f"      + {_fmt(w.polarity)} \u00d7 abs(polarity)",
        f"      + {_fmt(w.stance_confidence)} \u00d7 mean stance confidence",
        f"      + {_fmt(w.freshness)} \u00d7 temporal freshness",
        "      \u2212 penalties",
        "```",
        "",
        f"Penalties: uncertain counted origin {_fmt(p.uncertain_origin)}; each counted estimated-reputation "
        f"cluster {_fmt(p.heuristic_cluster)} (at most {_fmt(p.heuristic_cap)}); circular reporting "
        f"{_fmt(p.circular_reporting)}; open correction or expression of concern {_fmt(p.open_correction)}. "
        f"The score is clamped to 0\u20131. Bands: high \u2265 {v['high']}, medium \u2265 {v['medium']}, low "
        "below. The published confidence is the band.",
        "",
        "## Hard gates (run after scoring; they only weaken)",
        "",
        "| gate | name | trigger | effect |",
        "|---|---|---|---|",
    ]
    lines += [_row(entry, v, None) for entry in GATES]
    lines += [
        "",
        "## Validity rules",
        "",
        "| rule | name | trigger | effect | status |",
        "|---|---|---|---|---|",
    ]
    lines += [_row(entry, v, policy) for entry in RULES]
    inert = in_rule_order(policy.inert)
    lines += ["", "## Published but not yet live", ""]
    if inert:
        lines.append(
            "These rule parts are written and tested but do not change any label under this version:"
        )
        lines.append("")
        lines += [f"- {feature_words(feature)}" for feature in inert]
    else:
        lines.append(
            "Every rule part is live under this version. A rule that reads a look-up acts only where the "
            "deployment runs that look-up: on each item it would have read, a look-up that did not run is "
            "recorded as not run, with the reason, and changes nothing."
        )
    lines.append("")
    return "\n".join(lines)


def _counted_each_side_note(policy: PolicyConfig) -> list[str]:
    """Why rules 2 and 3 ask for a counted cluster on each side, where the version asks it."""
    if not policy.decision.conflict_needs_counted_each_side:
        return []
    threshold = _fmt(policy.weighting.counting_threshold)
    return [
        "",
        f"A counted cluster weighs at least {threshold} and takes a side. S and Rf still sum every cluster on "
        "a side, counted or not, but a conflict is genuine only between independent origins that count: where "
        "one side holds only clusters under the counting threshold (weak, indirect or estimated-reputation "
        "evidence), rules 2 and 3 do not fire and the claim goes on to rules 4 to 6. Rule 3 asks the same as "
        "rule 2, so it still never fires first: with a counted cluster on each side, an abs(polarity) below "
        "its threshold meets rule 2.",
    ]


def _row(entry: RuleEntry, values: dict[str, str], policy: PolicyConfig | None) -> str:
    cells = [entry.code, entry.name, entry.trigger.format(**values), entry.effect.format(**values)]
    if policy is not None:
        cells.append(_status(entry, policy))
    return "| " + " | ".join(cells) + " |"
