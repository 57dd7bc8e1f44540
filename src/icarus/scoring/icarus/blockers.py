"""Blockers: what kept a claim at ❔, or a decided claim below high confidence, with its numbers.

``claim_blockers`` is a pure function of one claim's outcome (its final pass, gates and confidence), the
ledger's evidence items (for their domains) and the policy config. Every figure is read from the outcome or
the config: computed values are written as the trace writes them (fixed point, at most six decimals), and
thresholds as the policy's config file writes them. A decided claim at high confidence has no blockers.

Blockers are derived from the same numbers the trace records; they are published beside the reasons, not
inside the trace, so the trace and its hash are what they were.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Final

from icarus.ledger import EvidenceItem, Stance
from icarus.scoring.canonical import format_decimal
from icarus.scoring.icarus.aggregate import MIXED, ClusterSummary
from icarus.scoring.icarus.assess import ItemAssessment
from icarus.scoring.icarus.blocker import Blocker, BlockerCode, FigureValue
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.outcome import ClaimOutcome
from icarus.scoring.labels import Band, Label

__all__ = ["MAX_NAMED", "Blocker", "BlockerCode", "FigureValue", "claim_blockers"]

ZERO = Decimal(0)
MAX_NAMED: Final = 5  # domains named in a message; the figures list them all
_PLACES: Final = Decimal(1).scaleb(-6)  # the trace's precision for computed values
SIDES: Final = (Stance.SUPPORT.value, Stance.REFUTE.value)
RISK_RULE: Final = "H5"
OUT_OF_SCOPE_RULE: Final = "H26"
STANCE_FLOOR_RULE: Final = (
    "C"  # the factor ``assess`` records when a side is taken below the confidence floor
)


# Gates whose "unverifiable" effect replaced a decided label, by the code their blocker carries.
_LABEL_GATES: Final = {
    "G2": BlockerCode.IMAGE_TEXT_UNRELIABLE,
    "G3": BlockerCode.UNANCHORED_EVIDENCE,
    "G4": BlockerCode.EVIDENCE_RETRACTED,
    "G6": BlockerCode.DEVELOPING,
}
_BAND_GATES: Final = {"G5": BlockerCode.CORRECTION_WINDOW, "G6": BlockerCode.ONGOING_BAND_CAP}


def claim_blockers(
    outcome: ClaimOutcome, items: Mapping[str, EvidenceItem], policy: PolicyConfig
) -> tuple[Blocker, ...]:
    """What kept ``outcome`` at ❔ or below high confidence; empty for a decided claim at high."""
    if outcome.label.decided and outcome.band is Band.HIGH:
        return ()
    if not outcome.label.decided:
        return _unverifiable(outcome, items, policy)
    return _below_high(outcome, policy)


# --- ❔ ---------------------------------------------------------------------------------------------------


def _unverifiable(
    outcome: ClaimOutcome, items: Mapping[str, EvidenceItem], policy: PolicyConfig
) -> tuple[Blocker, ...]:
    ineligible = next((g for g in outcome.gates if g.gate == "G0" and g.effect == "unverifiable"), None)
    if ineligible is not None:
        reason = ineligible.message.split(": ", 1)[-1]
        return (
            Blocker(
                BlockerCode.INELIGIBLE_DISPOSITION,
                f"G0: not eligible for a factual verdict ({reason})",
                (("gate", "G0"), ("reason", reason)),
            ),
        )
    found = list(_label_gates(outcome, policy))
    if outcome.final.decision.label is Label.UNVERIFIABLE:
        found += _evidence(outcome, items, policy)
        if outcome.final.assessments:
            found += _decision(outcome, items, policy)
    if not found:
        details = outcome.final.decision.details or (outcome.final.decision.message,)
        found.append(
            Blocker(
                BlockerCode.UNRESOLVED,
                "; ".join(details),
                (("rule", outcome.final.decision.rule),),
            )
        )
    return tuple(found)


def _label_gates(outcome: ClaimOutcome, policy: PolicyConfig) -> Iterable[Blocker]:
    for gate in outcome.gates:
        if gate.effect != "unverifiable" or gate.gate == "G0":
            continue
        code = _LABEL_GATES.get(gate.gate, BlockerCode.GATE)
        figures: list[tuple[str, FigureValue]] = [("gate", gate.gate), ("detail", gate.message)]
        message = f"{gate.gate}: {gate.message}"
        if outcome.scored_label.decided and outcome.scored_label is not outcome.label:
            figures.append(("scored_label", outcome.scored_label.value))
        if code is BlockerCode.DEVELOPING:
            first = policy.gates.recheck_offsets_minutes[0]
            figures.append(("first_recheck_minutes", first))
            message += (
                f"; the scored {outcome.scored_label.symbol} publishes from the +{first} min recheck on, "
                "once two consecutive runs agree"
            )
        elif code is BlockerCode.EVIDENCE_RETRACTED:
            retracted = sorted(a.evidence_id for a in outcome.passes[0].assessments.values() if a.retracted)
            figures.append(("evidence_ids", tuple(retracted)))
        elif code is BlockerCode.UNANCHORED_EVIDENCE:
            dropped = sorted(a.evidence_id for a in outcome.passes[0].assessments.values() if not a.anchored)
            figures.append(("evidence_ids", tuple(dropped)))
        yield Blocker(code, message, tuple(figures))


def _evidence(
    outcome: ClaimOutcome, items: Mapping[str, EvidenceItem], policy: PolicyConfig
) -> Iterable[Blocker]:
    assessments = [a for _, a in sorted(outcome.final.assessments.items())]
    if not assessments:
        yield Blocker(BlockerCode.NO_EVIDENCE, "no evidence found for this claim", (("items", 0),))
        return
    total = len(assessments)
    domain = _domains(items)

    # Scope, risk lists and exclusions matter only where an item took a side: a neutral item lends nothing.
    sided = [a for a in assessments if a.stance is not Stance.NEUTRAL]
    taking = f"{_count(len(sided), 'item')} taking a side"
    out_of_scope = [a for a in sided if any(f.rule == OUT_OF_SCOPE_RULE for f in a.factors)]
    if out_of_scope:
        names = domain(out_of_scope)
        d = policy.directness.out_of_scope
        yield Blocker(
            BlockerCode.OUT_OF_SCOPE,
            f"{len(out_of_scope)} of {taking} out of the claim's scope, directness {d}: {_named(names)}",
            (("have", len(out_of_scope)), ("of", len(sided)), ("directness", str(d)), ("domains", names)),
        )

    risky = [a for a in sided if RISK_RULE in a.flags]
    if risky:
        excluded = domain([a for a in risky if any(rule == RISK_RULE for rule, _ in a.excluded_by)])
        capped = domain([a for a in risky if not any(rule == RISK_RULE for rule, _ in a.excluded_by)])
        cap = policy.reputation.generally_unreliable_cap
        parts = []
        if excluded:
            parts.append(f"excluded: {_named(excluded)}")
        if capped:
            parts.append(f"reputation capped at {cap}: {_named(capped)}")
        yield Blocker(
            BlockerCode.RISK_LIST,
            f"{_count(len(excluded) + len(capped), 'source')} on risk lists; " + "; ".join(parts),
            (("excluded", excluded), ("capped", capped), ("cap", str(cap))),
        )

    other = [(a, rule, reason) for a in sided for rule, reason in a.excluded_by if rule != RISK_RULE]
    if other:
        by_reason: dict[str, list[ItemAssessment]] = {}
        for a, rule, reason in other:
            by_reason.setdefault(f"{rule} {reason}", []).append(a)
        excluded_ids = sorted({a.evidence_id for a, _, _ in other})
        parts = [f"{why} ({_named(domain(members))})" for why, members in sorted(by_reason.items())]
        yield Blocker(
            BlockerCode.EXCLUDED,
            f"{len(excluded_ids)} of {taking} excluded: " + "; ".join(parts),
            (
                ("have", len(excluded_ids)),
                ("of", len(sided)),
                ("rules", tuple(sorted({rule for _, rule, _ in other}))),
                ("evidence_ids", tuple(excluded_ids)),
            ),
        )

    neutral = [a for a in assessments if a.stance is Stance.NEUTRAL]
    if neutral:
        floor = policy.weighting.neutral_below_confidence
        under = [a for a in neutral if any(f.rule == STANCE_FLOOR_RULE for f in a.factors)]
        message = f"judge neutral on {len(neutral)} of {_count(total, 'item')}"
        if under:
            message += f" ({len(under)} of them sided with confidence under {floor})"
        yield Blocker(
            BlockerCode.JUDGE_NEUTRAL,
            message,
            (("have", len(neutral)), ("of", total), ("below_confidence", len(under)), ("floor", str(floor))),
        )

    threshold = policy.weighting.counting_threshold
    counted_ids = {m.evidence_id for s in outcome.final.summaries if s.counted for m in s.members}
    estimated = [
        a
        for a in assessments
        if a.estimated
        and a.stance is not Stance.NEUTRAL
        and not a.excluded_by
        and a.evidence_id not in counted_ids
    ]
    if estimated:
        names = domain(estimated)
        discount = policy.weighting.estimated_reputation_discount
        yield Blocker(
            BlockerCode.NOT_ON_FILE,
            f"{_count(len(names), 'source')} not on file, weight \u00d7{discount}: {_named(names)}",
            (
                ("have", len(names)),
                ("discount", str(discount)),
                ("domains", names),
                ("evidence_ids", tuple(a.evidence_id for a in estimated)),
            ),
        )

    summaries = outcome.final.summaries
    short = [s for s in summaries if s.stance in SIDES and ZERO < s.weight < threshold]
    if short:
        heaviest = min(short, key=lambda s: (-s.weight, s.strongest_id or ""))
        counted = sum(1 for s in summaries if s.counted)
        weight, where = _num(heaviest.weight), _strongest_domain(heaviest, items)
        if counted:
            message = (
                f"{len(short)} more {'origin weighs' if len(short) == 1 else 'origins weigh'} under "
                f"the counting threshold {threshold} (heaviest {weight}, {where})"
            )
        else:
            message = f"heaviest item {weight} ({where}), counting needs {threshold}"
        yield Blocker(
            BlockerCode.UNDER_COUNTING_THRESHOLD,
            message,
            (
                ("heaviest", weight),
                ("threshold", str(threshold)),
                ("evidence_id", heaviest.strongest_id or ""),
                ("domain", where),
                ("uncounted", len(short)),
                ("counted", counted),
            ),
        )

    mixed = [s for s in summaries if s.stance == MIXED]
    if mixed:
        ids = tuple(s.cluster.cluster_id for s in mixed)
        yield Blocker(
            BlockerCode.MIXED_ORIGIN,
            f"{len(mixed)} {'origin has' if len(mixed) == 1 else 'origins have'} members on both sides at "
            f"{threshold} or more, so {'it counts' if len(mixed) == 1 else 'they count'} for neither",
            (("have", len(mixed)), ("clusters", ids), ("threshold", str(threshold))),
        )


def _decision(
    outcome: ClaimOutcome, items: Mapping[str, EvidenceItem], policy: PolicyConfig
) -> Iterable[Blocker]:
    d = policy.decision
    totals = outcome.final.totals
    s, rf, total = totals.support, totals.refute, totals.total
    if min(s, rf) > 0 and total < d.minimum_total:  # the floor keeps a conflict (rule 2) from firing
        yield Blocker(
            BlockerCode.TOTAL_BELOW_FLOOR,
            f"S + Rf {_num(total)} under the floor {d.minimum_total} (S {_num(s)}, Rf {_num(rf)})",
            (("S", _num(s)), ("Rf", _num(rf)), ("total", _num(total)), ("floor", str(d.minimum_total))),
        )

    side = None if total == 0 else (Stance.SUPPORT.value if s >= rf else Stance.REFUTE.value)
    have = totals.icc_support if side == Stance.SUPPORT.value else totals.icc_refute if side else 0
    if have < d.minimum_icc:
        counted = [s for s in outcome.final.summaries if s.counted and s.stance == side]
        names = tuple(sorted({_strongest_domain(c, items) for c in counted}))
        message = f"{have} of {d.minimum_icc} independent origins"
        if side:
            message += f" ({side}: {_named(names) or 'none counted'})"
        figures: list[tuple[str, FigureValue]] = [("have", have), ("need", d.minimum_icc)]
        if side:
            figures += [("side", side), ("domains", names)]
        figures += [("icc_support", totals.icc_support), ("icc_refute", totals.icc_refute)]
        if any(g.gate == "G1" for g in outcome.gates):
            figures.append(("gate", "G1"))
            message += "; G1: single source, developing"
        yield Blocker(BlockerCode.INDEPENDENT_ORIGINS, message, tuple(figures))

    if total > 0 and not totals.polarity_at_least(d.polarity) and not totals.polarity_at_most(-d.polarity):
        yield Blocker(
            BlockerCode.POLARITY_SHORT,
            f"polarity {_num(totals.polarity)}, a verdict needs at least {d.polarity} either way",
            (
                ("polarity", _num(totals.polarity)),
                ("need", str(d.polarity)),
                ("S", _num(s)),
                ("Rf", _num(rf)),
            ),
        )

    if outcome.final.too_many_hops:
        hops = max(
            (x.strongest.inference_hops for x in outcome.final.summaries if x.counted and x.strongest),
            default=0,
        )
        yield Blocker(
            BlockerCode.TOO_MANY_HOPS,
            f"evidence {hops} unsupported inference hops from the claim, at most {d.max_inference_hops} allowed",
            (("hops", hops), ("max", d.max_inference_hops)),
        )


# --- decided, below high ----------------------------------------------------------------------------------


def _below_high(outcome: ClaimOutcome, policy: PolicyConfig) -> tuple[Blocker, ...]:
    found: list[Blocker] = []
    for gate in outcome.gates:
        code = _BAND_GATES.get(gate.gate)
        if gate.effect == "band_cap" and code is not None:
            found.append(
                Blocker(
                    code,
                    f"{gate.gate}: {gate.message}"
                    + ("" if "capped" in gate.message else f"; band capped at {Band.MEDIUM.value}"),
                    (("gate", gate.gate), ("cap", Band.MEDIUM.value), ("detail", gate.message)),
                )
            )
    conf = outcome.confidence
    high = policy.bands.high
    if conf.score < high:
        weights = policy.confidence
        short = {
            name: {"have": _num(value), "of": str(getattr(weights, name))}
            for name, value in conf.terms.items()
            if value < getattr(weights, name)
        }
        listed = ", ".join(
            f"{name.replace('_', ' ')} {term['have']} of {term['of']}" for name, term in short.items()
        )
        found.append(
            Blocker(
                BlockerCode.CONFIDENCE_BELOW_HIGH,
                f"confidence {_num(conf.score)}, high needs {high}"
                + (f" (short: {listed})" if listed else ""),
                (("score", _num(conf.score)), ("need", str(high)), ("terms_short", short)),
            )
        )
        if conf.penalties:
            penalties = {name: _num(value) for name, value in conf.penalties.items()}
            listed = ", ".join(f"{name.replace('_', ' ')} -{value}" for name, value in penalties.items())
            found.append(
                Blocker(
                    BlockerCode.CONFIDENCE_PENALTY,
                    f"confidence penalties -{_num(sum(conf.penalties.values(), ZERO))}: {listed}",
                    (("total", _num(sum(conf.penalties.values(), ZERO))), ("penalties", penalties)),
                )
            )
    if not found:
        found.append(
            Blocker(
                BlockerCode.BAND_CAPPED,
                f"band {outcome.band.value} although the score {_num(conf.score)} earns {conf.band.value}",
                (("band", outcome.band.value), ("earned", conf.band.value), ("score", _num(conf.score))),
            )
        )
    return tuple(found)


# --- helpers ----------------------------------------------------------------------------------------------


def _num(value: Decimal) -> str:
    """A computed value as the trace writes it: fixed point, rounded half-even to six decimals."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -6:
        return format_decimal(value)
    return format_decimal(value.quantize(_PLACES))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _named(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_NAMED])
    more = len(names) - MAX_NAMED
    return f"{shown} and {more} more" if more > 0 else shown


def _domain_of(item: EvidenceItem | None, evidence_id: str) -> str:
    if item is None:
        return evidence_id
    return item.domain.lower().removeprefix("www.") or evidence_id


def _domains(items: Mapping[str, EvidenceItem]) -> Callable[[Iterable[ItemAssessment]], tuple[str, ...]]:
    """A function giving the sorted distinct domains of some assessments' items."""

    def domains(assessments: Iterable[ItemAssessment]) -> tuple[str, ...]:
        return tuple(sorted({_domain_of(items.get(a.evidence_id), a.evidence_id) for a in assessments}))

    return domains


def _strongest_domain(summary: ClusterSummary, items: Mapping[str, EvidenceItem]) -> str:
    strongest = summary.strongest_id or ""
    return _domain_of(items.get(strongest), strongest)
