"""Held-out stance sets: AVeriTeC's answers against their claims, labelled with the claim's side, split by
the same halves ``icarus eval averitec --split`` uses, and never read by training."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from icarus.evaluation import averitec
from icarus.evaluation.stancesets import (
    HELD_OUT_READERS,
    READERS,
    Split,
    StanceSetError,
    load_pairs,
    split_of,
)
from icarus_training.train import read_training_pairs

CLAIMS = [
    ("The Varna bridge was closed for repairs for all of 2019.", "Supported"),
    ("The Halden glacier lost a third of its ice between 1990 and 2020.", "Refuted"),
    ("The Halden glacier is the largest glacier in the region.", "Not Enough Evidence"),
    ("The mayor said the bridge would never reopen.", "Conflicting Evidence/Cherrypicking"),
]


def _write(root: Path) -> Path:
    rows = [
        {
            "claim": claim,
            "label": label,
            "questions": [
                {
                    "question": f"Question {n}?",
                    "answers": [
                        {"answer": f"Answer {n}.", "source_url": f"https://example.org/{n}"},
                        {"answer": "From the claim.", "source_url": "Metadata"},
                    ],
                }
            ],
        }
        for n, (claim, label) in enumerate(CLAIMS)
    ]
    folder = root / "averitec"
    folder.mkdir(parents=True)
    (folder / averitec.FILE).write_text(json.dumps(rows), encoding="utf-8")
    return root


def test_answers_take_their_claims_side_and_conflicting_claims_are_left_out(tmp_path: Path) -> None:
    pairs = load_pairs("averitec", _write(tmp_path))
    assert [(p.claim, p.passage, p.label) for p in pairs] == [
        (CLAIMS[0][0], "Answer 0.", "support"),
        (CLAIMS[1][0], "Answer 1.", "refute"),
        (CLAIMS[2][0], "Answer 2.", "neutral"),
    ]
    assert all(p.group == p.claim and "?" not in p.passage for p in pairs)


def test_validation_is_the_tune_half_and_test_the_dev_half(tmp_path: Path) -> None:
    root = _write(tmp_path)
    assert load_pairs("averitec", root, Split.TRAIN) == []
    for split, half in ((Split.VALIDATION, averitec.TUNE), (Split.TEST, averitec.DEV)):
        pairs = load_pairs("averitec", root, split)
        assert pairs and all(averitec.half_of(p.claim) == half for p in pairs)
    assert split_of("averitec", CLAIMS[0][0]) is Split.TEST  # the dev half (tests/evaluation pins it)
    assert split_of("averitec", CLAIMS[1][0]) is Split.VALIDATION


def test_training_never_reads_a_held_out_set(tmp_path: Path) -> None:
    assert set(HELD_OUT_READERS).isdisjoint(READERS)
    with pytest.raises(StanceSetError, match="climate-fever"):  # the first training set, not averitec
        read_training_pairs(_write(tmp_path))


def test_a_missing_held_out_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(StanceSetError, match=r"averitec/dev\.json"):
        load_pairs("averitec", tmp_path)
