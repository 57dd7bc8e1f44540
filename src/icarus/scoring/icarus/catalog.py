"""The catalogue of gates and validity rules: names, what triggers them, what they do, and which rule
parts a policy version may hold inert. The methodology page is rendered from this and the config, so
wording and numbers cannot drift apart. Numbers appear here only as ``{placeholders}`` into the config."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleEntry:
    code: str
    name: str
    trigger: str
    effect: str
    features: tuple[str, ...] = ()  # rule parts that a policy version may hold inert


GATES: tuple[RuleEntry, ...] = (
    RuleEntry(
        "G0",
        "Eligibility and disposition",
        "the subject is not the tagging reply's direct parent; the claim is not an exact slice of a "
        "captured field; not English; video or audio; a named private individual; personal advice; "
        "opinion, prediction, satire or a joke; an implied claim that needs a guess at intent",
        "the claim is unverifiable with reason INELIGIBLE_DISPOSITION",
    ),
    RuleEntry(
        "G1",
        "Single origin",
        "the claim is unresolved under rule 6 and the leading side has exactly one independent origin",
        "\u201csingle source, developing\u201d and rechecks at {recheck_offsets}",
    ),
    RuleEntry(
        "G2",
        "Image-text certainty",
        "a digit, unit, name or negation in image-derived claim text was read with OCR confidence below "
        "{ocr_min_confidence}, or two OCR passes disagree on it",
        "unverifiable: text read from image could not be read reliably",
    ),
    RuleEntry(
        "G3",
        "Evidence anchoring",
        "an item lacks a server id, a SHA-256 snapshot hash or an excerpt that matches its offsets; a draft "
        "cites a URL or id outside the ledger",
        "the item is dropped and the claim recomputed; if the label changes it becomes unverifiable; the "
        "draft is rejected without touching the label",
    ),
    RuleEntry(
        "G4",
        "Retraction",
        "counted evidence or the subject's cited material is retracted, withdrawn or removed",
        "validity 0 for that item (its whole cluster if it is the elected origin), recompute and publish the "
        "recomputed label (reason: evidence retracted, where it changed); a \u2705 or \u274c whose rule no "
        "longer holds becomes unverifiable: evidence retracted",
    ),
    RuleEntry(
        "G5",
        "Correction window",
        "counted evidence has an open correction or expression of concern, or was corrected, updated or "
        "(where drift checks are live) changed within {correction_window_hours} h",
        "band at most medium, rechecks until the window closes",
    ),
    RuleEntry(
        "G6",
        "Ongoing situation",
        "the claim is about an ongoing event that began less than {ongoing_window_hours} h ago with no "
        "official conclusion, or counted items are live coverage",
        "the first version is unverifiable (developing, as of the stated time); a decided label publishes "
        "from the first recheck only when two consecutive runs agree; band at most medium until "
        "{ongoing_window_hours} h after the event began",
    ),
    RuleEntry(
        "G7",
        "Publication integrity",
        "invalid output, a label outside the four, overall not the most adverse decided claim, text about "
        "honesty or intent, a cited AI-text-detector score",
        "the version is blocked; a first version reads \u201ccheck could not be completed\u201d",
    ),
)

RULES: tuple[RuleEntry, ...] = (
    RuleEntry(
        "H1",
        "Canonicalization",
        "tracking parameters, AMP, print and mobile variants, rel=canonical, og:url",
        "identical documents merge before clustering",
    ),
    RuleEntry(
        "H2",
        "Wire and syndication markers",
        "wire datelines and credits, or an overlap of {similarity_threshold} or more with another item "
        "(shingle Jaccard, or the share of the item's own text found in another copy group)",
        "the item is derivative of the wire origin (same cluster)",
    ),
    RuleEntry(
        "H3",
        "Attribution edges",
        "\u201caccording to\u201d, \u201ctold\u201d, \u201csaid in a statement\u201d, \u201cfirst reported by\u201d, "
        "links; or a calibrated judge's attribution",
        "a citation edge recording its origin; judge edges can only make an item derivative",
    ),
    RuleEntry(
        "H4",
        "Estimated reputation and review queue",
        "the domain has no record on file",
        "provenance factor {estimated_reputation_discount} and the caveat \u201creputation estimated, not on "
        "file\u201d; an estimate that could change the label is queued for review",
        ("H4.review_queue",),
    ),
    RuleEntry(
        "H5",
        "Risk lists",
        "deprecated on the perennial-sources list, or on the Iffy Index",
        "excluded; \u201cgenerally unreliable\u201d caps R at {generally_unreliable_cap}",
        ("H5.iffy",),
    ),
    RuleEntry(
        "H6",
        "Zero-weight classes",
        "satire (unless the claim is about it), pure aggregators, content farms, platforms, self-citation",
        "no corroboration weight",
    ),
    RuleEntry(
        "H7",
        "Reachability to the subject",
        "any path to the post, its quoted post, the author's own content or anything under review",
        "derivative, weight 0, however reputable",
    ),
    RuleEntry(
        "H8",
        "ClaimReview",
        "a matching ClaimReview from a verified IFCN signatory",
        "one high-reputation origin (R at least {ifcn_signatory}); its rating is never inherited",
    ),
    RuleEntry(
        "H9",
        "First-report exclusion",
        "published before its event, or an event date more than {event_window_days} day(s) from the claim's",
        "flagged and the origin marked uncertain; the item cannot be elected origin",
        ("H9.exclusion",),
    ),
    RuleEntry(
        "H10",
        "Impossible dates",
        "a publication date more than {future_tolerance_minutes} min after retrieval, or before the domain "
        "was registered",
        "retrieval time stands in and the origin is uncertain",
        ("H10.registration",),
    ),
    RuleEntry(
        "H11",
        "Anonymous sourcing",
        "\u201cpeople familiar with\u201d, \u201con condition of anonymity\u201d",
        "V \u00d7{anonymous_sourcing}; an elected origin is uncertain",
    ),
    RuleEntry(
        "H12",
        "Percent versus percentage points",
        "a change between percentages reported as the other kind of change",
        "evidence V \u00d7{statistical_flag}; a post that conflates them is misleading (rule 1)",
        ("H12.force_misleading",),
    ),
    RuleEntry(
        "H13",
        "Arithmetic recomputation",
        "a sum, difference, ratio, % change, per-capita figure or CAGR off by more than max({relative_tolerance} "
        "relative, half a unit of stated precision)",
        "post: misleading (rule 1); evidence: V \u00d7{statistical_flag}",
        ("H13.arithmetic",),
    ),
    RuleEntry(
        "H14",
        "Order-of-magnitude conflict",
        "two clusters state one quantity with abs(log10 ratio) of {order_of_magnitude} or more",
        "both V \u00d7{statistical_flag}; the non-primary side is excluded, and if unresolved neither counts",
        ("H14.magnitude",),
    ),
    RuleEntry(
        "H15",
        "Numeric context",
        "a relative figure without a base rate",
        "evidence V \u00d7{statistical_flag}; the post gets the caveat \u201cnumeric context missing\u201d",
        ("H15.caveat",),
    ),
    RuleEntry(
        "H16",
        "Scholarly updates",
        "retraction, withdrawal, expression of concern or correction notices",
        "V \u00d7{retracted} (and G4), \u00d7{expression_of_concern}, \u00d7{corrected}; a post citing a "
        "retracted paper without saying so is misleading",
        ("H16.lookup",),
    ),
    RuleEntry(
        "H17",
        "Preprints",
        "a preprint host, preprint or report metadata, preprint wording on an item without journal metadata, or a study without DOI, ISSN or journal",
        "V \u00d7{preprint}",
        ("H17.metadata",),
    ),
    RuleEntry(
        "H18",
        "Disclosed conflict of interest",
        "a funding or competing-interest statement naming a party",
        "V \u00d7{conflict_of_interest}",
    ),
    RuleEntry(
        "H19",
        "Release overlap",
        "a release host, or {release_containment} of an item's {release_shingle_words}-word shingles found in "
        "a press release",
        "derivative of the release; directness {release}",
        ("H19.overlap_demotion",),
    ),
    RuleEntry(
        "H20",
        "Self-evidence check",
        "the post drops a qualifier, changes a population, reverses or cherry-picks a figure, or quotes "
        "incompletely, against its own cited snapshot",
        "misleading (rule 1), shown with a verbatim excerpt",
    ),
    RuleEntry(
        "H21",
        "Coordinated amplification",
        "{amplification_min_items}+ items from {amplification_min_domains}+ domains within "
        "{amplification_window_minutes} min at similarity {amplification_similarity} or more",
        "one cluster, with a caveat naming the pattern",
        ("H21.caveat",),
    ),
    RuleEntry(
        "H22",
        "C2PA",
        "an invalid content-credentials manifest",
        "V \u00d7{c2pa_invalid}; a valid one proves a chain, never a caption",
        ("H22.lookup",),
    ),
    RuleEntry(
        "H23",
        "Recycled media",
        "a perceptual-hash distance of {phash_max_distance}/64 or less to a copy seen {min_age_hours} h or "
        "more before the event",
        "evidence refuting \u201cthis image shows the event\u201d",
    ),
    RuleEntry(
        "H24",
        "Soft 404 and drift",
        "a not-found page, or content changed since retrieval",
        "archived copy used and labelled; drift flagged, a vanished excerpt excluded",
        ("H24.drift",),
    ),
    RuleEntry(
        "H25",
        "News corrections",
        "\u201cCorrection:\u201d, \u201cEditor's note:\u201d, CORRECTED-/REFILE- slugs",
        "V \u00d7{corrected}; opens G5",
    ),
    RuleEntry(
        "H26",
        "Scope match",
        "quantity, place or period differ from the claim",
        "context only (directness {out_of_scope})",
    ),
    RuleEntry(
        "H27",
        "Temporal freshness",
        "age of the newest decisive evidence for current or ongoing claims",
        "freshness 1 up to {full_days} days, falling to 0 at {zero_days} days; superseded releases excluded",
    ),
    RuleEntry(
        "H28",
        "Access limits",
        "paywall, abstract-only or snippet-only",
        "directness at most {limited_access_cap}; "
        "cannot anchor a self-evidence finding; inaccessible items are excluded",
    ),
    RuleEntry(
        "H29",
        "Non-evidentiary signals",
        "AI-text-detector scores, badges, follower counts, bias and state-affiliation labels",
        "never enter the arithmetic",
    ),
    RuleEntry(
        "H30",
        "Instruction quarantine",
        "text addressed to an AI model inside evidence",
        "stripped before any model call; the item is flagged and held at weight 0 pending review",
    ),
)

ALL_ENTRIES: tuple[RuleEntry, ...] = GATES + RULES
