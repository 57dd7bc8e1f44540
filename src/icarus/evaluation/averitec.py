"""AVeriTeC (dev), in the gold-evidence setting: the annotators' question–answer pairs are the evidence.

Each answer becomes one evidence item: its text is the question and the answer (with the explanation a
yes/no answer carries), its address the answer's source URL. Its excerpt is cut from the answer alone
(``Passage.quote_start``): the question is the annotator's wording, usually the claim's own, and a judge
reading it would find the claim agreed with whatever the answer says. Sources given as Wayback Machine
copies are filed under the original address and marked as archived copies; a source written as a bare
host and path (``nature.com/articles/...``) is read as an ``https`` address. Answers with no web source
(``Metadata``, taken from the claim's own metadata, or an empty URL on an unanswerable question) are not
evidence from any source and are left out.

Two halves. No judge was trained on AVeriTeC, so its dev claims can both choose a judge's thresholds and
measure them, provided the two never share a claim: ``half_of`` puts each claim in ``tune`` or ``dev`` by a
hash of its text (``TUNE_BUCKETS`` of 100 buckets to ``tune``), the same on every machine and whatever the
file order. ``load(split=...)`` keeps one half (``all``: both).

Open retrieval (``load(retrieval="open")``). Every answer of the half becomes a corpus document under its
source's original address, the answers of all claims pooled; answers citing one address are one document
(one page, several passages). The document's text is the answer alone: the question is the annotator's,
not the source's. Each claim is then checked as ``icarus check`` checks it (``pipeline.check.check_claims``:
its query plan on the local-corpus provider, the judge, the policy), so research can bring another claim's
answers, as a web search brings pages about other things. A claim's gold documents are those holding one
of its own answers (``retrieval_recall``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from icarus.evaluation._files import field, json_document, locate, row_errors
from icarus.evaluation.cases import (
    ALL,
    CLAIM_LABELS,
    SPLITS,
    ClaimCase,
    CorpusRecord,
    DatasetError,
    EvalSet,
    Passage,
    select,
)
from icarus.evaluation.cases import DEV as DEV  # the halves, re-exported where callers have read them
from icarus.evaluation.cases import TUNE as TUNE
from icarus.evaluation.cases import TUNE_BUCKETS as TUNE_BUCKETS
from icarus.evaluation.cases import half_of as cases_half_of
from icarus.reputation import domain_of

NAME = "averitec"
FILE = "dev.json"
GOLD, OPEN = RETRIEVAL_MODES = ("gold", "open")
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


def answer_passages(row: dict[str, Any], where: str) -> tuple[Passage, ...]:
    """Every answer of a claim row that cites a web source, as a gold passage (module docstring)."""
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


def half_of(claim: str) -> str:
    """``tune`` or ``dev``: the half a claim falls in, from a hash of its text (module docstring)."""
    return cases_half_of(NAME, claim)


def set_name(split: str = ALL, retrieval: str = GOLD) -> str:
    """The run's name, which names its output files: ``averitec``, ``averitec-open``, ``averitec-open-dev``."""
    return "-".join(
        part for part in (NAME, "open" if retrieval == OPEN else "", "" if split == ALL else split) if part
    )


def pooled_documents(cases: list[ClaimCase]) -> tuple[list[CorpusRecord], dict[str, tuple[str, ...]]]:
    """The corpus of open retrieval: one document per source address, holding every answer (never the
    question) that cites it, in file order; and, per case id, the documents holding its own answers."""
    texts: dict[str, list[str]] = {}
    publishers: dict[str, str] = {}
    owners: dict[str, list[str]] = {}
    for case in cases:
        for passage in case.passages:
            answer = passage.text[passage.quote_start :].strip()
            if not answer:
                continue
            held = texts.setdefault(passage.url, [])
            if answer not in held:
                held.append(answer)
            publishers.setdefault(passage.url, passage.publisher)
            doc_ids = owners.setdefault(case.case_id, [])
            if passage.url not in doc_ids:
                doc_ids.append(passage.url)
    ids = {url: f"{NAME}-doc-{n}" for n, url in enumerate(texts)}
    documents = [
        CorpusRecord(doc_id=ids[url], url=url, text="\n\n".join(answers), publisher=publishers[url])
        for url, answers in texts.items()
    ]
    return documents, {case_id: tuple(ids[url] for url in urls) for case_id, urls in owners.items()}


def load(
    path: Path,
    limit: int | None = None,
    seed: int | None = None,
    *,
    split: str = ALL,
    retrieval: str = GOLD,
) -> EvalSet:
    """The dev claims of ``split`` (``tune``, ``dev`` or ``all``), with gold evidence or (``retrieval``
    ``open``) a pooled corpus of every answer of the split; ``limit`` and ``seed`` then choose claims."""
    if split not in SPLITS:
        raise DatasetError(f"unknown AVeriTeC split {split!r}; known: {', '.join(SPLITS)}")
    if retrieval not in RETRIEVAL_MODES:
        raise DatasetError(f"unknown retrieval mode {retrieval!r}; known: {', '.join(RETRIEVAL_MODES)}")
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
                    passages=answer_passages(row, where),
                )
            )
    if split != ALL:
        cases = [case for case in cases if half_of(case.claim) == split]
    chosen, how = select(cases, limit, seed)
    name = set_name(split, retrieval)
    if split != ALL:
        how = f"{how} of the {split} half" if how != "all" else f"the {split} half"
    if retrieval == GOLD:
        return EvalSet(name, source, cases=chosen, available=len(cases), selection=how)
    documents, owned = pooled_documents(cases)
    researched = [
        ClaimCase(case.case_id, case.claim, case.gold, relevant_docs=owned.get(case.case_id, ()))
        for case in chosen
    ]
    return EvalSet(name, source, cases=researched, available=len(cases), selection=how, documents=documents)
