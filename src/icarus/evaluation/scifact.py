"""SciFact: scientific claims checked by open retrieval over the shipped abstracts corpus.

No gold evidence is handed to the scorer: the runner indexes ``corpus.jsonl`` into a local corpus, researches
each claim through the local-corpus provider and scores what it finds. A claim's label is SUPPORT or
CONTRADICT from its evidence (both at once: conflicting, ⚠️), or not enough info when it has none. The
rationale sentences are also judged one by one against the claim, for per-sentence stance.

``--data`` is the SciFact folder (``claims_dev.jsonl`` when present, else ``claims_train.jsonl``) or a claims
file with ``corpus.jsonl`` beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icarus.evaluation._files import field, json_lines, list_field, locate, row_errors
from icarus.evaluation.cases import (
    ALL,
    CLAIM_LABELS,
    SPLITS,
    STANCE_LABELS,
    ClaimCase,
    DatasetError,
    EvalSet,
    StancePair,
    half_of,
    select,
    split_name,
    split_selection,
)
from icarus.scoring.labels import Label

NAME = "scifact"
CLAIM_FILES = ("claims_dev.jsonl", "claims_train.jsonl")
CORPUS = "corpus.jsonl"
# The abstracts carry no URL, DOI or venue. Each is filed under this address (``.invalid`` is reserved, so it
# can never be mistaken for a page on the web), which lets a record stating what the corpus as a whole is
# (examples/reputation/scifact-corpus.json) apply to every abstract: docs/reputation.md, "Coverage on real data".
CORPUS_ADDRESS = "https://scifact-corpus.invalid/abstract/{id}"


def claim_label(evidence: dict[str, Any], where: str) -> Label:
    labels = {str(rationale.get("label")) for sets in evidence.values() for rationale in sets}
    unknown = labels - set(CLAIM_LABELS)
    if unknown:
        raise DatasetError(f"{where}: unknown evidence label(s) {sorted(unknown)}")
    if not labels:
        return Label.UNVERIFIABLE
    if len(labels) > 1:
        return Label.MISLEADING
    return CLAIM_LABELS[labels.pop()]


def _abstracts(corpus: Path) -> dict[str, list[str]]:
    abstracts: dict[str, list[str]] = {}
    for number, row in json_lines(corpus):
        sentences = list_field(row, "abstract", f"{corpus}:{number}")
        abstracts[str(field(row, "doc_id", f"{corpus}:{number}"))] = [str(s) for s in sentences]
    return abstracts


def load(path: Path, limit: int | None = None, seed: int | None = None, *, split: str = ALL) -> EvalSet:
    """The claims of ``split`` (``tune``, ``dev`` or ``all``: ``cases.half_of``); ``limit`` and ``seed``
    then choose among them."""
    source = locate(path, *CLAIM_FILES)
    corpus = source.parent / CORPUS
    if not corpus.is_file():
        raise DatasetError(f"{corpus} not found: SciFact needs its abstracts corpus beside the claims file")
    rows = [row for _, row in json_lines(source)]
    if split not in SPLITS:
        raise DatasetError(f"unknown split {split!r} of {NAME}; known: {', '.join(SPLITS)}")
    if split != ALL:
        rows = [row for row in rows if half_of(NAME, str(row.get("claim", ""))) == split]
    chosen, how = select(rows, limit, seed)
    abstracts = _abstracts(corpus)
    cases: list[ClaimCase] = []
    pairs: list[StancePair] = []
    for row in chosen:
        claim_id = str(field(row, "id", str(source)))
        where = f"{source}: claim {claim_id}"
        with row_errors(where):
            claim = str(field(row, "claim", where))
            evidence = field(row, "evidence", where) or {}
            cases.append(
                ClaimCase(
                    case_id=claim_id,
                    claim=claim,
                    gold=claim_label(evidence, where),
                    relevant_docs=tuple(sorted(evidence)),
                )
            )
            for doc_id, sets in sorted(evidence.items()):
                sentences = abstracts.get(str(doc_id))
                if sentences is None:
                    raise DatasetError(f"{where}: evidence document {doc_id} is not in {corpus}")
                for set_index, rationale in enumerate(sets):
                    for sentence in rationale.get("sentences", []):
                        if not 0 <= int(sentence) < len(sentences):
                            raise DatasetError(f"{where}: sentence {sentence} is outside document {doc_id}")
                        pairs.append(
                            StancePair(
                                pair_id=f"{claim_id}:{doc_id}:{set_index}:{sentence}",
                                claim=claim,
                                evidence=sentences[int(sentence)],
                                gold=STANCE_LABELS[str(rationale["label"])],
                            )
                        )
    return EvalSet(
        split_name(NAME, split),
        source,
        cases=cases,
        stance_pairs=pairs,
        corpus=corpus,
        corpus_address=CORPUS_ADDRESS,
        available=len(rows),
        selection=split_selection(how, split),
    )
