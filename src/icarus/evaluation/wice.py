"""WiCE (stance only): a Wikipedia sentence and the web page it cites, labelled supported, partially
supported or not supported. The judge reads the whole cited page. Neither "not supported" nor "partially
supported" means the page denies the claim, so both count as neutral. ``--data`` is the folder
(``claim_dev.jsonl``) or a JSONL file."""

from __future__ import annotations

from pathlib import Path

from icarus.evaluation._files import field, json_lines, list_field, locate, row_errors
from icarus.evaluation.cases import STANCE_LABELS, DatasetError, EvalSet, StancePair, select

NAME = "wice"
FILES = ("claim_dev.jsonl", "claim_test.jsonl")


def load(path: Path, limit: int | None = None, seed: int | None = None) -> EvalSet:
    source = locate(path, *FILES)
    pairs: list[StancePair] = []
    for number, (line, row) in enumerate(json_lines(source), 1):
        where = f"{source}:{line}"
        with row_errors(where):
            label = field(row, "label", where)
            if label not in STANCE_LABELS:
                raise DatasetError(f"{where}: unknown label {label!r}")
            sentences = [str(s) for s in list_field(row, "evidence", where)]
            meta = row.get("meta") or {}
            pairs.append(
                StancePair(
                    pair_id=str(meta.get("id", number)),
                    claim=str(field(row, "claim", where)),
                    evidence="\n".join(sentences),
                    gold=STANCE_LABELS[label],
                )
            )
    chosen, how = select(pairs, limit, seed)
    return EvalSet(NAME, source, stance_pairs=chosen, available=len(pairs), selection=how)
