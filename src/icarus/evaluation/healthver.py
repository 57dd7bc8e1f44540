"""HealthVer (stance only): COVID-19 claims paired with passages of scientific abstracts, each pair
labelled Supports, Refutes or Neutral. ``--data`` is the folder (``healthver_dev.csv``) or a CSV file."""

from __future__ import annotations

from pathlib import Path

from icarus.evaluation._files import csv_rows, field, locate, row_errors
from icarus.evaluation.cases import STANCE_LABELS, DatasetError, EvalSet, StancePair, select

NAME = "healthver"
FILES = ("healthver_dev.csv", "healthver_test.csv")


def load(path: Path, limit: int | None = None, seed: int | None = None) -> EvalSet:
    source = locate(path, *FILES)
    pairs: list[StancePair] = []
    for line, row in csv_rows(source):
        where = f"{source}:{line}"
        with row_errors(where):
            label = field(row, "label", where)
            if label not in STANCE_LABELS:
                raise DatasetError(f"{where}: unknown label {label!r}")
            pairs.append(
                StancePair(
                    pair_id=str(field(row, "id", where)),
                    claim=str(field(row, "claim", where)).strip(),
                    evidence=str(field(row, "evidence", where)).strip(),
                    gold=STANCE_LABELS[label],
                )
            )
    chosen, how = select(pairs, limit, seed)
    return EvalSet(NAME, source, stance_pairs=chosen, available=len(pairs), selection=how)
