"""AVeriTeC (dev), in the gold-evidence setting: the annotators' question–answer pairs are the evidence.

Each answer becomes one evidence item: its text is the question and the answer (with the explanation a
yes/no answer carries), its address the answer's source URL. Its excerpt is cut from the answer alone
(``Passage.quote_start``): the question is the annotator's wording, usually the claim's own, and a judge
reading it would find the claim agreed with whatever the answer says. Sources given as Wayback Machine
copies are filed under the original address and marked as archived copies; a source written as a bare
host and path (``nature.com/articles/...``) is read as an ``https`` address. Answers with no web source
(``Metadata``, taken from the claim's own metadata, or an empty URL on an unanswerable question) are not
evidence from any source and are left out.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from icarus.evaluation._files import field, json_document, locate, row_errors
from icarus.evaluation.cases import CLAIM_LABELS, ClaimCase, DatasetError, EvalSet, Passage, select
from icarus.reputation import domain_of

NAME = "averitec"
FILE = "dev.json"
_WAYBACK = re.compile(r"^https?://web\.archive\.org/web/[^/]+/(?P<original>.+)$", re.IGNORECASE)
_SCHEME = re.compile(r"^https?://", re.IGNORECASE)
# A bare host (and path) as annotators sometimes wrote one: "nature.com/articles/...".
_BARE_HOST = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}(?:[/?#]\S*)?$", re.IGNORECASE)


def source_address(value: str) -> str | None:
    """The web address an answer's ``source_url`` names, or None when it names no web source
    (``Metadata``, empty, or anything else that is not an address). A bare host gets ``https://``."""
    url = value.strip()
    if _SCHEME.match(url):
        return url
    if _BARE_HOST.match(url):
        return "https://" + url
    return None


def original_url(url: str) -> tuple[str, str | None]:
    """The address a source stands for, and the archive copy's address when ``url`` is one."""
    match = _WAYBACK.match(url)
    if match is None:
        return url, None
    original = match.group("original")
    if not _SCHEME.match(original):
        original = "http://" + original.lstrip("/")
    return original, url


def answer_text(question: str, answer: dict[str, Any]) -> tuple[str, int]:
    """The item's text (the question, then the answer and any yes/no explanation) and where the answer
    starts in it."""
    question = question.strip()
    parts = [str(answer.get("answer", "")).strip()]
    explanation = answer.get("boolean_explanation")
    if isinstance(explanation, str) and explanation.strip():
        parts.append(explanation.strip())
    quoted = " ".join(part for part in parts if part)
    if not question:
        return quoted, 0
    return f"{question} {quoted}", len(question) + 1


def _passages(row: dict[str, Any], where: str) -> tuple[Passage, ...]:
    passages: list[Passage] = []
    for q_index, question in enumerate(row.get("questions") or []):
        for a_index, answer in enumerate(question.get("answers") or []):
            url = source_address(str(answer.get("source_url") or ""))
            if url is None:
                continue
            address, archive = original_url(url)
            text, quote_start = answer_text(str(field(question, "question", where)), answer)
            passages.append(
                Passage(
                    key=f"q{q_index}a{a_index}",
                    url=address,
                    publisher=domain_of(address),
                    text=text,
                    archive_url=archive,
                    quote_start=quote_start,
                )
            )
    return tuple(passages)


def load(path: Path, limit: int | None = None, seed: int | None = None) -> EvalSet:
    source = locate(path, FILE)
    rows = json_document(source)
    if not isinstance(rows, list):
        raise DatasetError(f"{source}: expected a JSON list of claims")
    cases: list[ClaimCase] = []
    for index, row in enumerate(rows):
        where = f"{source}: claim {index}"
        with row_errors(where):
            if not isinstance(row, dict):
                raise DatasetError(f"{where}: expected a JSON object")
            label = field(row, "label", where)
            if label not in CLAIM_LABELS:
                raise DatasetError(f"{where}: unknown label {label!r}")
            cases.append(
                ClaimCase(
                    case_id=str(index),
                    claim=str(field(row, "claim", where)),
                    gold=CLAIM_LABELS[label],
                    passages=_passages(row, where),
                )
            )
    chosen, how = select(cases, limit, seed)
    return EvalSet(NAME, source, cases=chosen, available=len(cases), selection=how)
