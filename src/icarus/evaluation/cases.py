"""What an evaluation set is made of: claims with gold labels and evidence, and stance pairs.

Every dataset loader turns its own file format into these few records, so the runner, the metrics and the
plots never see a dataset's quirks. The label mapping from each dataset's vocabulary to the four published
labels and the three stances lives here, in one place, and docs/evaluation.md states it.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from icarus.ledger import Stance
from icarus.scoring.labels import Label

__all__ = [
    "CLAIM_LABELS",
    "STANCE_LABELS",
    "ClaimCase",
    "CorpusRecord",
    "DatasetError",
    "EvalSet",
    "Passage",
    "StancePair",
    "select",
]

CLAIM_LABELS: dict[str, Label] = {
    # Climate-FEVER, AVeriTeC and SciFact claim labels → the four published labels.
    "SUPPORTS": Label.SUPPORTED,
    "Supported": Label.SUPPORTED,
    "SUPPORT": Label.SUPPORTED,
    "REFUTES": Label.NOT_SUPPORTED,
    "Refuted": Label.NOT_SUPPORTED,
    "CONTRADICT": Label.NOT_SUPPORTED,
    "NOT_ENOUGH_INFO": Label.UNVERIFIABLE,
    "Not Enough Evidence": Label.UNVERIFIABLE,
    "DISPUTED": Label.MISLEADING,
    "Conflicting Evidence/Cherrypicking": Label.MISLEADING,
}
"""Gold claim label → published label (✅ supported, ❌ not_supported, ❔ unverifiable, ⚠️ misleading)."""

STANCE_LABELS: dict[str, Stance] = {
    # Per-evidence labels: Climate-FEVER, SciFact rationales, HealthVer, WiCE, FNC-1.
    "SUPPORTS": Stance.SUPPORT,
    "SUPPORT": Stance.SUPPORT,
    "Supports": Stance.SUPPORT,
    "supported": Stance.SUPPORT,
    "agree": Stance.SUPPORT,
    "REFUTES": Stance.REFUTE,
    "CONTRADICT": Stance.REFUTE,
    "Refutes": Stance.REFUTE,
    "disagree": Stance.REFUTE,
    "NOT_ENOUGH_INFO": Stance.NEUTRAL,
    "Neutral": Stance.NEUTRAL,
    "not_supported": Stance.NEUTRAL,  # WiCE: the cited page does not back the claim; it need not deny it
    "partially_supported": Stance.NEUTRAL,  # WiCE: part of the claim is unbacked, so not a support
    "discuss": Stance.NEUTRAL,  # FNC-1: reports the claim without taking a side
    "unrelated": Stance.NEUTRAL,  # FNC-1: about something else
}
"""Gold per-evidence label → the stance a judge answers (support, refute, neutral)."""


class DatasetError(ValueError):
    """A dataset file is missing or does not have the expected shape; the message says which and why."""


@dataclass(frozen=True)
class Passage:
    """One piece of gold evidence, as the dataset gives it, with its address and (if labelled) its stance."""

    key: str  # unique within its claim; names the evidence item
    url: str
    publisher: str
    text: str
    title: str = ""
    archive_url: str | None = None  # the dataset gave an archived copy of ``url``
    gold_stance: Stance | None = None
    # Where the source's own words begin in ``text``. Before it stands what the dataset wrote, not the
    # source (AVeriTeC: the annotator's question), which an excerpt must never quote.
    quote_start: int = 0


@dataclass(frozen=True)
class ClaimCase:
    """One claim with its gold label; ``passages`` is its gold evidence (empty when research finds it)."""

    case_id: str
    claim: str
    gold: Label
    passages: tuple[Passage, ...] = ()
    relevant_docs: tuple[str, ...] = ()  # source ids of the documents the gold evidence sits in


@dataclass(frozen=True)
class StancePair:
    """A claim and one evidence text, with the stance a judge should read in it."""

    pair_id: str
    claim: str
    evidence: str
    gold: Stance


@dataclass(frozen=True)
class CorpusRecord:
    """One document of a corpus a loader builds from the dataset itself (AVeriTeC's pooled answers)."""

    doc_id: str  # the record's id; a case's ``relevant_docs`` name these
    url: str
    text: str
    publisher: str = ""
    title: str = ""


@dataclass
class EvalSet:
    """What a loader read: claims to score and/or stance pairs to judge, and where they came from."""

    name: str
    source: Path
    cases: list[ClaimCase] = field(default_factory=list)
    stance_pairs: list[StancePair] = field(default_factory=list)
    corpus: Path | None = None  # open retrieval over this corpus instead of gold passages
    # An address for each corpus document whose file gives none, with ``{id}`` for the document's id; the
    # corpus is then indexed under these addresses, so a record for the corpus as a whole can apply to them.
    corpus_address: str = ""
    available: int = 0  # claims (or pairs, for stance-only sets) in the file before --limit
    selection: str = "all"  # how the evaluated subset was chosen, in words
    # Open retrieval through the check itself over these documents (indexed into a temporary corpus);
    # each claim is researched, judged and scored by ``pipeline.check.check_claims``.
    documents: list[CorpusRecord] = field(default_factory=list)

    @property
    def researched(self) -> bool:
        """Whether evidence is found by research (a corpus or pooled documents), not handed over."""
        return self.corpus is not None or bool(self.documents)


T = TypeVar("T")


def select(rows: Sequence[T], limit: int | None, seed: int | None) -> tuple[list[T], str]:
    """The rows to evaluate and a description of the choice: all of them, the first ``limit`` in file
    order, or (with ``seed``) ``limit`` drawn at random with that seed and kept in file order."""
    if limit is None or limit >= len(rows):
        return list(rows), "all"
    if seed is None:
        return list(rows[:limit]), f"first {limit} in file order"
    chosen = sorted(random.Random(seed).sample(range(len(rows)), limit))
    return [rows[i] for i in chosen], f"{limit} drawn at random with seed {seed}"


TUNE, DEV, ALL = SPLITS = ("tune", "dev", "all")
TUNE_BUCKETS = 50  # of 100: half the claims choose a judge or its thresholds, the other half measure them


def half_of(set_name: str, claim: str) -> str:
    """``tune`` or ``dev``: the half of ``set_name`` a claim falls in, from a hash of the set's name and the
    claim's text, the same on every machine and whatever the file order."""
    digest = hashlib.sha256(f"{set_name}\x00{claim.strip()}".encode()).hexdigest()
    return TUNE if int(digest[:8], 16) % 100 < TUNE_BUCKETS else DEV


def split_cases(set_name: str, cases: Sequence[ClaimCase], split: str) -> list[ClaimCase]:
    """The cases of one half (``tune`` or ``dev``), or all of them (``all``)."""
    if split not in SPLITS:
        raise DatasetError(f"unknown split {split!r} of {set_name}; known: {', '.join(SPLITS)}")
    return list(cases) if split == ALL else [case for case in cases if half_of(set_name, case.claim) == split]


def split_selection(how: str, split: str) -> str:
    """The selection described in words, naming the half it was drawn from."""
    if split == ALL:
        return how
    return f"{how} of the {split} half" if how != "all" else f"the {split} half"


def split_name(set_name: str, split: str) -> str:
    """The name a run of one half goes under (it names the output files): ``scifact-tune``."""
    return set_name if split == ALL else f"{set_name}-{split}"
