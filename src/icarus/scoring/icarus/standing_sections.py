"""The sections every Icarus methodology page closes with: its limitations; corrections, deletion and version
history; and the role of models and judges.

Every number and name in them is read from the policy config or from ``ServiceFacts`` (budgets, intervals,
the registered judges), which the front door that shows the page assembles from the settings' defaults and
the registries: this module reads no settings and no package data, so the scoring core stays pure. The
prose holds no number of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from icarus.ledger.assistance import AssistStep
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.labels import Label

__all__ = [
    "ASSIST_STEP_WORDS",
    "SECTION_HEADINGS",
    "ServiceFacts",
    "render_standing_sections",
]

LIMITATIONS = "## Limitations"
HISTORY = "## Corrections, deletion and version history"
MODELS_AND_JUDGES = "## The role of models and judges"
SECTION_HEADINGS: tuple[str, ...] = (LIMITATIONS, HISTORY, MODELS_AND_JUDGES)

ASSIST_STEP_WORDS: dict[AssistStep, str] = {
    AssistStep.CLAIM_SPANS: "the claims of a post, as quotes of its captured text, with search wording",
    AssistStep.IMPLIED_CLAIMS: "claims the post's words necessarily imply",
    AssistStep.QUERY_PLAN: "the searches to run for a claim",
    AssistStep.EXPLANATION_DRAFT: "the explanation shown with a claim's result, citing evidence ids",
}
"""What a model may propose at each assisted step, in words (every ``AssistStep`` has an entry)."""


@dataclass(frozen=True)
class ServiceFacts:
    """What the service around the policy does, as the page states it: budgets, intervals and names.

    The front door fills this from the settings' defaults and the registries (``icarus.reports.methodology``
    ``service_facts``); a deployment that overrides a setting records what it used on each report."""

    judges: tuple[str, ...]
    """Every registered judge, ``name@version``."""
    judge_roles: tuple[tuple[str, str], ...]
    """(judge, where it stands in words): current, superseded by which, or measured and not chosen."""
    default_offline_judge: str
    llm_judge: str
    ocr_engines: tuple[str, ...]
    """The OCR engines, primary first; later ones are second readings, run where installed."""
    max_queries: int
    max_fetches: int
    max_seconds: float
    max_claims: int
    search_retry_minutes: tuple[int, ...]
    deletion_sweep_minutes: int
    job_lease_s: float


def _number(value: Decimal | float | int) -> str:
    """A number as the config or settings hold it: decimals exactly as written, 20.0 as 20."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _offset(minutes: int) -> str:
    return f"+{minutes // 60} h" if minutes % 60 == 0 else f"+{minutes} min"


def _minutes(values: tuple[int, ...]) -> str:
    """``10, 30 and 120 minutes``."""
    words = [_number(m) for m in values]
    listed = ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)
    return listed + " minutes"


def _label(label: Label) -> str:
    return f"{label.symbol} {label.heading}"


def _code(name: str) -> str:
    return f"`{name}`"


def _limitations(policy: PolicyConfig, facts: ServiceFacts) -> list[str]:
    reputation, weighting, gates = policy.reputation, policy.weighting, policy.gates
    queue = (
        "an estimate that could change a label is queued for a person to review"
        if policy.live("H4.review_queue")
        else "under this version nobody reviews an estimate: it keeps its discount and its caveat"
    )
    registration = (
        "; so is one earlier than the domain's registration"
        if policy.live("H10.registration")
        else "; a date earlier than the domain's registration is not detected under this version"
    )
    return [
        LIMITATIONS,
        "",
        "- **Searches miss things.** Paywalls, removed pages, slow indexing, regional blocks and provider "
        "outages can keep relevant evidence out of view. A check spends at most "
        f"{_number(facts.max_queries)} searches, {_number(facts.max_fetches)} page fetches and "
        f"{_number(facts.max_seconds)} seconds, and reads at most {_number(facts.max_claims)} claims of a "
        "post; the others are listed as not assessed. When every search fails, the check is tried again "
        f"{_minutes(facts.search_retry_minutes)} after the first failure before a version is recorded. A page that can be read "
        "only in part (paywall, abstract, snippet) counts with directness at most "
        f"{_number(policy.directness.limited_access_cap)}.",
        "- **Reputation is a prior about a domain.** It describes a source's editorial and correction habits, "
        "not whether one article is right, and a domain not on file gets an estimate between "
        f"{_number(reputation.heuristic_min)} and {_number(reputation.heuristic_max)}, discounted "
        f"\u00d7{_number(weighting.estimated_reputation_discount)} and named as an estimate in the report; "
        f"{queue}.",
        "- **Dates are noisy.** Publication dates and first-seen times are often missing or wrong. Retrieval "
        "time stands in for a missing date; a date more than "
        f"{_number(policy.dates.future_tolerance_minutes)} minutes in the future is treated as invalid"
        f"{registration}. Where chronology is weak the elected origin is disclosed as uncertain and costs "
        f"{_number(policy.penalties.uncertain_origin)} of confidence.",
        "- **Independence can be misjudged.** Copies are found through links, stated attribution, shared "
        f"wording (similarity at or above {_number(policy.provenance.similarity_threshold)}) and timing. Two "
        "reports that lean on the same unnamed source look independent.",
        "- **Text read from images can be wrong.** OCR can misread or invent characters, and reading charts, "
        "sarcasm, identities and the context of an image can fail. A claim taken from an image is labelled "
        "as text read from an image; when a figure, unit, name or negation in it was read with confidence "
        f"below {_number(gates.ocr_min_confidence)}, or two readings disagree on it, the claim is "
        f"{_label(Label.UNVERIFIABLE)} ({_code('G2')}).",
        f"- **Independent origins can share a mistake.** Asking for {_number(policy.decision.minimum_icc)} "
        "independent origins guards against one source repeated many times, not against several sources "
        "being wrong together.",
        f"- **{_label(Label.NOT_SUPPORTED)} speaks of the evidence found.** It describes the searches and the "
        "evidence recorded as of the report's time, not a proof that the claim could never be true.",
        "- **The thresholds lean towards abstaining.** They prefer an unverifiable answer to a wrong "
        "decision, and their effect is measured on labelled evaluation sets.",
        "",
    ]


def _history(policy: PolicyConfig, facts: ServiceFacts) -> list[str]:
    gates = policy.gates
    offsets = ", ".join(_offset(m) for m in gates.recheck_offsets_minutes)
    return [
        HISTORY,
        "",
        "- **What a version records.** The policy name and version with its config hash, the hash of the "
        "scoring code, the hash of the ledger it scored (the evidence snapshots by content hash, the "
        "searches that ran, each judge's and model's name, version and prompt hash) and its \u201cas of\u201d "
        "time. `icarus replay` recomputes a stored version from its snapshots; the result must match byte "
        "for byte.",
        "- **Versions are added, never overwritten.** A recheck or a correction adds a version that says "
        "what changed since the one before and why; every earlier version stays readable in the timeline.",
        f"- **Rechecks.** A claim is checked again at {offsets} when it is about a situation that began less "
        f"than {_number(gates.ongoing_window_hours)} h ago ({_code('G6')}), is unverifiable because a single "
        f"origin survived ({_code('G1')}), or rests on evidence with a correction still open or made within "
        f"the last {_number(gates.correction_window_hours)} h ({_code('G5')}).",
        "- **Retractions.** When counted evidence is retracted, it loses its weight and the label and "
        f"confidence are computed again in a new version ({_code('G4')}).",
        "- **Corrections.** A report is corrected first, as a new version whose reason is the correction and "
        "its note; a reply on X follows only when the four-label conclusion changes.",
        "- **Deleted or protected posts.** The post's words and images (its captured text, the claims quoted "
        "from it, text read from its images) are withheld from every version, while the conclusion, the "
        "reasons, the evidence and the update log stay. The deletion sweep asks X about checked posts every "
        f"{_number(facts.deletion_sweep_minutes)} minutes unless `ICARUS_DELETION_SWEEP_MINUTES` says "
        "otherwise, and never less often than once a day.",
        "- **Interrupted runs.** A run whose worker stops is taken up again once its lease of "
        f"{_number(facts.job_lease_s)} seconds lapses unrenewed.",
        "- **Indexing.** Reports are found by check and by post, never by person.",
        f"- **Methodology changes.** A change is a new policy version with its own date and config hash; a "
        f"released version is never edited. This version was published {policy.published}.",
        "",
    ]


def _models_and_judges(policy: PolicyConfig, facts: ServiceFacts) -> list[str]:
    roles = dict(facts.judge_roles)
    judges = "; ".join(
        f"{_code(name)} ({roles[name]})" if name in roles else _code(name) for name in facts.judges
    )
    steps = "; ".join(ASSIST_STEP_WORDS[step] for step in AssistStep)
    engines = ", then ".join(_code(name) for name in facts.ocr_engines)
    return [
        MODELS_AND_JUDGES,
        "",
        "- **Code decides.** Labels, bands and confidence come from versioned code applying this "
        "configuration to the evidence graph; no model is asked for a verdict or a confidence. The gates, "
        f"{_code('G7')} last, are the final authority on what is published.",
        "- **Typed judges answer typed questions.** For one evidence item a judge says what stance it takes "
        "toward one claim, with a confidence, and whom it credits for its information. Below "
        f"{_number(policy.weighting.neutral_below_confidence)} confidence the answer counts as neutral. An "
        "attribution only a judge saw can make an item derivative, never independent "
        f"({_code('H3')}). Each answer records the judge's provider, version and calibration and a hash "
        "of what it was shown; an answer that cannot be read, or that names an evidence id the check did "
        "not assign, counts as neutral.",
        f"- **Which judge.** With an OpenAI-compatible endpoint and model configured (`ICARUS_LLM_BASE_URL`, "
        f"`ICARUS_LLM_MODEL`), {_code(facts.llm_judge)} asks that model; otherwise the offline judge named "
        f"by `ICARUS_OFFLINE_JUDGE` answers, by default {_code(facts.default_offline_judge)}. Registered "
        f"judges: {judges}.",
        f"- **Models propose.** With a model configured it may propose {steps}. Code checks every proposal "
        "before it is used: quotes must be exact slices of the captured text, implied claims must pass the "
        "necessity test, query plans are validated, drafts may cite only evidence ids the check assigned "
        "and no label the policy did not decide. Oversized, malformed and injected answers are rejected. "
        "Each step records the provider, the model, hashes of the prompt and the answer, the outcome and "
        "the reason for each rejection; where a proposal is rejected or no answer comes, the deterministic "
        "result stands.",
        f"- **Evidence by id.** Models refer to evidence by the ids the server assigned; a URL or id a model "
        f"made up is rejected ({_code('G3')}). Text in a post or in evidence that addresses a model is "
        f"stripped before any model reads it ({_code('H30')}).",
        f"- **Reading images.** Text in attached images is read by {engines}; the second reading, where it "
        "runs, is compared word by word with the first.",
        "- **What never counts.** Scores from AI-text detectors, verification badges, follower counts, bias "
        f"labels and state-affiliation labels never enter the arithmetic ({_code('H29')}).",
        "",
    ]


def render_standing_sections(policy: PolicyConfig, facts: ServiceFacts) -> str:
    """Limitations; corrections, deletion and version history; the role of models and judges (Markdown)."""
    lines = [
        *_limitations(policy, facts),
        *_history(policy, facts),
        *_models_and_judges(policy, facts),
    ]
    return "\n".join(lines)
