"""FNC-1 (stance only): news headlines paired with article bodies, labelled agree, disagree, discuss or
unrelated. The headline is the claim, the body the evidence; discuss and unrelated both count as neutral.
``--data`` is the folder holding ``competition_test_stances.csv`` and ``competition_test_bodies.csv``."""

from __future__ import annotations

from pathlib import Path

from icarus.evaluation._files import csv_rows, field, locate, row_errors
from icarus.evaluation.cases import STANCE_LABELS, DatasetError, EvalSet, StancePair, select

NAME = "fnc-1"
STANCES = "competition_test_stances.csv"
BODIES = "competition_test_bodies.csv"


def load(path: Path, limit: int | None = None, seed: int | None = None) -> EvalSet:
    stances = locate(path, STANCES)
    bodies_file = stances.parent / BODIES
    if not bodies_file.is_file():
        raise DatasetError(f"{bodies_file} not found: FNC-1 needs its bodies file beside the stances file")
    bodies = {
        str(field(row, "Body ID", str(bodies_file))): str(field(row, "articleBody", str(bodies_file)))
        for _, row in csv_rows(bodies_file)
    }
    pairs: list[StancePair] = []
    for number, (line, row) in enumerate(csv_rows(stances), 2):
        where = f"{stances}:{line}"
        with row_errors(where):
            label = field(row, "Stance", where)
            if label not in STANCE_LABELS:
                raise DatasetError(f"{where}: unknown stance {label!r}")
            body_id = str(field(row, "Body ID", where))
            if body_id not in bodies:
                raise DatasetError(f"{where}: body {body_id} is not in {bodies_file}")
            pairs.append(
                StancePair(
                    pair_id=f"{number - 1}:{body_id}",
                    claim=str(field(row, "Headline", where)),
                    evidence=bodies[body_id],
                    gold=STANCE_LABELS[label],
                )
            )
    chosen, how = select(pairs, limit, seed)
    return EvalSet(NAME, stances, stance_pairs=chosen, available=len(pairs), selection=how)
