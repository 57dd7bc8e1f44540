"""Render a ledger model's methodology page (Markdown) from its own config and the Icarus mapping.

Every number on the page is read from the config (or the mapping table); the prose around them names no
number of its own, so the page and the arithmetic cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from icarus.ledger import LedgerClaimType
from icarus.scoring.ledger.config import CONFIG_FILES, LedgerModelConfig, load_config
from icarus.scoring.ledger.golden import golden_section
from icarus.scoring.ledger.mapping import mapping_hash, mapping_table

# Words about a model, not numbers it scores with: left out of the side-by-side.
DESCRIPTIVE_KEYS = frozenset({"name", "version", "summary", "changes"})
NOT_DECLARED = "not declared"


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows)
    return lines


def _weights(title: str, table: dict[Any, Any]) -> list[str]:
    return _table((title, "factor"), [(f"`{key.value}`", value) for key, value in table.items()])


def render_methodology(config: LedgerModelConfig, config_hash: str) -> str:
    c = config
    r = c.rounding
    s = c.stability
    t = c.state_thresholds
    unscored = [kind.value for kind in LedgerClaimType if kind not in c.scored_types]
    factors = ["relevance", "observation", "interpretation", "authenticity", "extraction"]
    if c.provenance_factor is not None:
        factors.append("provenance")
    if c.edition_factor is not None:
        factors.append("edition")
    lines = [
        f"# How a score is worked out \u2014 {c.ref}",
        "",
        c.summary,
        "",
        f"What this version changes: {c.changes}",
        "",
        f"Config hash: `{config_hash}`. Every number below is read from this model's config; another model "
        "is another set of numbers and may give another answer, which is why a score always names its model.",
        "",
        "## Claim types",
        "",
        "A claim starts at its type's prior, in log-odds. Types marked model-dependent are always shown as "
        "such, and their stability is always LOW.",
        "",
        *_table(
            ("type", "prior", "model-dependent"),
            [
                (f"`{kind.value}`", c.prior[kind], "yes" if kind in c.model_dependent_types else "no")
                for kind in c.scored_types
            ],
        ),
        "",
        "Not scored by this model (NOT_APPLICABLE, reason `NOT_SCORED_BY_MODEL`, no probability): "
        + ", ".join(f"`{kind}`" for kind in unscored)
        + ". A claim that is not truth-evaluable at all is NOT_APPLICABLE with its own reason (a value "
        "judgement, a metaphysical or rhetorical statement, something current methods cannot test, an "
        "unresolved forecast, a legal question no model covers).",
        "",
        "## One link's weight",
        "",
        "magnitude = " + " \u00d7 ".join(factors) + f", rounded half-even to {r.weights} places.",
        "",
        *_weights("relevance", c.relevance_weight),
        "",
        *_weights("observation", c.observation_weight),
        "",
        f"Interpretation: max(0, 1 \u2212 {c.interpretive_step_penalty} \u00d7 interpretive steps).",
        "",
        *_weights("authenticity", c.authenticity_factor),
        "",
        *_weights("extraction", c.extraction_factor),
        "",
    ]
    if c.provenance_factor is not None:
        lines += [
            "Provenance: evidence from the claim's own origin shows the words were said, not that they are "
            "right.",
            "",
            *_weights("provenance", c.provenance_factor),
            "",
        ]
    if c.edition_factor is not None:
        lines += [
            f"Edition rule `{c.edition_rule}`: evidence read from an unnamed or other edition is kept in the "
            "trace with reason `other_edition`.",
            "",
            *_weights("edition", c.edition_factor),
            "",
        ]
    lines += [
        "Direction: "
        + ", ".join(
            f"`{d.value}` {sign:+d}" if sign else f"`{d.value}` 0" for d, sign in c.direction_sign.items()
        )
        + ". A link of sign 0 stays in the trace at weight 0 with reason `non_directional`.",
        "",
        "## Independence",
        "",
        f"Strategy `{c.independence.strategy}`: within each independence group and direction only the "
        "largest magnitude counts (ties: lowest evidence id, then lowest link id); the others stay in the "
        "trace at 0 with reason `dependent_strongest_only`, naming the link that was kept.",
        "",
        (
            "A link with no independence group is grouped by its origin (`origin:` + origin), or on its own "
            "when it has none."
            if c.independence.fallback == "origin"
            else "A link with no independence group is a group of its own (`solo:` + evidence id)."
        ),
        "",
        "## Combining",
        "",
        f"posterior = prior log-odds (rounded to {r.weights} places) + the kept signed weights (summed in "
        f"ascending link id, rounded to {r.weights} places); probability = 1 \u00f7 (1 + e^\u2212posterior), "
        f"rounded half-even to {r.probability} places. When nothing counts (no link kept, or every kept "
        "magnitude 0) the state is INSUFFICIENT_EVIDENCE and no probability is shown.",
        "",
        "## States (first match wins)",
        "",
        *_table(
            ("state", "when"),
            [
                ("SUPPORTED", f"probability \u2265 {t.SUPPORTED} and at least one support group"),
                ("LEANS_SUPPORTED", f"probability \u2265 {t.LEANS_SUPPORTED} and at least one support group"),
                ("CONTRADICTED", f"probability \u2264 {t.CONTRADICTED} and at least one contradict group"),
                (
                    "LEANS_CONTRADICTED",
                    f"probability \u2264 {t.LEANS_CONTRADICTED} and at least one contradict group",
                ),
                ("UNRESOLVED", "otherwise: the prior alone never yields a directional state"),
            ],
        ),
        "",
        "## Stability",
        "",
        f"The probability is recomputed with every kept weight \u00d7 {s.variants.conservative} "
        f"(conservative) and \u00d7 {s.variants.permissive} (permissive). Spread = largest \u2212 smallest "
        f"of the three: HIGH up to {s.high_max_spread}, MEDIUM up to {s.medium_max_spread}, LOW above. "
        f"Fewer than {s.min_groups_for_high} independent groups in total caps it at MEDIUM; a "
        "model-dependent type is always LOW.",
        "",
        "## Review checks",
        "",
        f"Coverage = checks satisfied \u00f7 {len(c.review_checklist)}, to {r.coverage} places: a count of "
        "checks done, never a percentage of truth. A check done by the claim's own author is shown and never "
        "counts.",
        "",
        *[f"- `{check.value}`" for check in c.review_checklist],
        "",
        "`primary_source_reviewed` is satisfied by a counted link from a source of kind "
        + ", ".join(f"`{kind.value}`" for kind in c.primary_source_kinds)
        + "; `independence_reviewed` also by every counted link having an independence group.",
        "",
        "## Rounding and the trace",
        "",
        f"Rounding is {r.mode.replace('_', '-')}: weights {r.weights} places, probability {r.probability}, "
        f"coverage {r.coverage}. A probability within {r.boundary_guard} of a rounding boundary sets "
        "`rounding_boundary: true` in the trace. The trace is canonical JSON holding the model, config hash, "
        "code hash and every factor of every link, hashed into `trace_hash`.",
        "",
        *_beside_section(c),
        *golden_section(c),
        *_mapping_section(),
    ]
    return "\n".join(lines) + "\n"


def released_beside(config: LedgerModelConfig) -> LedgerModelConfig | None:
    """The other model released at the same version (ledger-strict@0.2.0 beside ledger-default@0.2.0)."""
    others = [ref for ref in CONFIG_FILES if ref.endswith(f"@{config.version}") and ref != config.ref]
    return load_config(others[0]) if len(others) == 1 else None


def _flatten(value: Any, path: str, out: dict[str, str]) -> None:
    """Config data as dotted paths to shown values; a list of names becomes one yes per member."""
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        for item in value:
            out[f"{path}.{item}"] = "yes"
        out.setdefault(path, "")  # an empty list is still declared
    else:
        out[path] = str(value)


def config_differences(this: LedgerModelConfig, other: LedgerModelConfig) -> list[tuple[str, str, str]]:
    """Every setting whose value differs between two configs: (setting, this value, other value). A
    member missing from a list reads "no"; a rule one model does not declare at all, "not declared"."""
    mine: dict[str, str] = {}
    theirs: dict[str, str] = {}
    lists: set[str] = set()
    for data, out in ((this.canonical(), mine), (other.canonical(), theirs)):
        for key in data.keys() - DESCRIPTIVE_KEYS:
            _flatten(data[key], key, out)
            if isinstance(data[key], list):
                lists.add(key)
    rows = []
    for path in sorted(mine.keys() | theirs.keys()):
        if path in lists:
            continue
        missing = "no" if path.rsplit(".", 1)[0] in lists else NOT_DECLARED
        a, b = mine.get(path, missing), theirs.get(path, missing)
        if a != b:
            rows.append((path, a, b))
    return rows


def _beside_section(config: LedgerModelConfig) -> list[str]:
    other = released_beside(config)
    if other is None:
        return []
    rows = config_differences(config, other)
    lines = [
        f"## Where it differs from {other.ref}, released beside it",
        "",
        "Every setting whose value differs, read from both configs; every other setting is the same.",
        "",
    ]
    if not rows:
        return [*lines, "No setting differs.", ""]
    return [
        *lines,
        *_table(
            ("setting", config.ref, other.ref),
            [(f"`{path}`", f"`{a}`", f"`{b}`") for path, a, b in rows],
        ),
        "",
    ]


def _mapping_section() -> list[str]:
    m = mapping_table()
    thresholds = ", ".join(f"{relevance} from {value}" for value, relevance in m["relevance_thresholds"])
    return [
        f"## From an Icarus evidence ledger ({m['version']})",
        "",
        f"Mapping hash: `{mapping_hash()}`. A value stated in a judgment's `link` or a claim's "
        "`ledger_claim` wins; otherwise:",
        "",
        f"- relevance from stance strength: {thresholds}; above 0 WEAK; 0 CONTEXT_ONLY. Capped by "
        "directness ("
        + ", ".join(f"{k} {v}" for k, v in m["directness_cap"].items())
        + "), by access ("
        + ", ".join(f"{k} {v}" for k, v in m["access_cap"].items())
        + "), to CONTEXT_ONLY when the scope does not match or the source is satire about something else.",
        "- observation kind: the primary document itself is "
        + ", ".join(f"{k} {v}" for k, v in m["primary_document_observation"].items())
        + f", else {m['primary_document_observation_default']}; reporting by source class: "
        + ", ".join(f"{k} {v}" for k, v in m["reporting_observation"].items())
        + f"; secondary reporting of an eyewitness kind is {m['secondary_observation']}.",
        "- source kind: "
        + ", ".join(f"{k} {v}" for k, v in m["source_kind"].items())
        + "; the primary document itself is "
        + ", ".join(f"{k} {v}" for k, v in m["primary_document_source_kind"].items())
        + f", else {m['primary_document_source_kind_default']}.",
        f"- interpretive steps: the judgment's inference hops, at most {m['max_interpretive_steps']}.",
        "- direction: " + ", ".join(f"{k} {v}" for k, v in m["direction"].items()) + ".",
        "- claim type: "
        + ", ".join(f"{k} {v}" for k, v in m["claim_type"].items())
        + "; dispositions: "
        + ", ".join(
            f"{k} {v['claim_type'] or '(type kept)'} / {v['not_evaluable']}"
            for k, v in m["disposition"].items()
        )
        + ".",
        f"- groups: a provenance cluster of two or more items (built with {m['provenance_settings_from']}'s "
        "provenance settings); origin: the canonical URL; provenance SELF for a self-citation or the "
        "subject's own page.",
    ]
