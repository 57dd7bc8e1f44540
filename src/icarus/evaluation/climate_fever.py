"""Climate-FEVER: a claim, its label and five Wikipedia sentences, each with its own stance label.

Each sentence becomes an evidence item on its article's page (``en.wikipedia.org/wiki/<article>``), so two
sentences from one article are one publisher page and weigh once. The claim is scored under the policy;
the judge's stance on each sentence is compared with the sentence's label.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from icarus.evaluation._files import field, json_lines, list_field, locate, row_errors
from icarus.evaluation.cases import (
    ALL,
    CLAIM_LABELS,
    STANCE_LABELS,
    ClaimCase,
    DatasetError,
    EvalSet,
    Passage,
    select,
    split_cases,
    split_name,
    split_selection,
)

NAME = "climate-fever"
FILE = "climate-fever.jsonl"
PUBLISHER = "Wikipedia"


def article_url(article: str) -> str:
    return "https://en.wikipedia.org/wiki/" + quote(article.replace(" ", "_"), safe="_()',-.")


def load(path: Path, limit: int | None = None, seed: int | None = None, *, split: str = ALL) -> EvalSet:
    """The claims of ``split`` (``tune``, ``dev`` or ``all``: ``cases.half_of``); ``limit`` and ``seed``
    then choose among them."""
    source = locate(path, FILE)
    cases: list[ClaimCase] = []
    for number, row in json_lines(source):
        where = f"{source}:{number}"
        with row_errors(where):
            cases.append(_case(row, where))
    cases = split_cases(NAME, cases, split)
    chosen, how = select(cases, limit, seed)
    return EvalSet(
        split_name(NAME, split),
        source,
        cases=chosen,
        available=len(cases),
        selection=split_selection(how, split),
    )


def _case(row: dict[str, Any], where: str) -> ClaimCase:
    label = field(row, "claim_label", where)
    if label not in CLAIM_LABELS:
        raise DatasetError(f"{where}: unknown claim_label {label!r}")
    passages = []
    for index, evidence in enumerate(list_field(row, "evidences", where)):
        stance = field(evidence, "evidence_label", where)
        if stance not in STANCE_LABELS:
            raise DatasetError(f"{where}: unknown evidence_label {stance!r}")
        article = str(field(evidence, "article", where))
        passages.append(
            Passage(
                key=f"{index}:{evidence.get('evidence_id', article)}",
                url=article_url(article),
                publisher=PUBLISHER,
                title=article,
                text=str(field(evidence, "evidence", where)),
                gold_stance=STANCE_LABELS[stance],
            )
        )
    return ClaimCase(
        case_id=str(field(row, "claim_id", where)),
        claim=str(field(row, "claim", where)),
        gold=CLAIM_LABELS[label],
        passages=tuple(passages),
    )
