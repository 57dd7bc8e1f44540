"""FEVER's training claims as stance pairs: reading, detokenizing, the three kinds of pair, the split."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from icarus.evaluation.stancesets import Split, split_of
from icarus_training.fever import (
    DATASET,
    EVIDENCE_SENTENCES,
    FeverError,
    detokenize,
    fever_pairs,
    read_claims,
)
from tests.datasets import DATASETS

pytest.importorskip("sklearn", reason="scikit-learn (a dev dependency) builds the TF-IDF retriever")


def test_ptb_escapes_and_token_spaces_become_plain_text() -> None:
    raw = "Socrates -LRB- 470/469 -- 399 BC -RRB- was a `` classical '' Greek philosopher , he 's known ."
    assert detokenize(raw) == 'Socrates (470/469 -- 399 BC) was a "classical" Greek philosopher, he\'s known.'


def _write(root: Path, rows: list[tuple[str, str, str, list[str]]]) -> None:
    folder = root / "fever" / "train"
    folder.mkdir(parents=True)
    with (folder / "split_wiki_data_0.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "verifiable", "label", "claim", "evidence"])
        for claim_id, label, claim, evidence in rows:
            writer.writerow([claim_id, "VERIFIABLE", label, claim, repr(evidence)])


def _train_ids(count: int) -> list[str]:
    ids = [str(n) for n in range(100_000)]
    return [i for i in ids if split_of(DATASET, i) is Split.TRAIN][:count]


def _corpus(tmp_path: Path) -> Path:
    ids = iter(_train_ids(40))
    rows = []
    people = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]
    for person in people:
        rows.append(
            (
                next(ids),
                "SUPPORTS",
                f"{person} was a mathematician.",
                [f"{person} was an English mathematician .", f"{person} wrote papers ."],
            )
        )
        rows.append(
            (
                next(ids),
                "REFUTES",
                f"{person} was a chef.",
                [f"{person} was a computer scientist , not a chef ."],
            )
        )
        rows.append(
            (
                next(ids),
                "SUPPORTS",
                f"{person} lived in a city.",
                [f"{person} lived in a large city for decades ."],
            )
        )
        rows.append((next(ids), "NOT ENOUGH INFO", f"{person} owned a red bicycle.", []))
    _write(tmp_path, rows)
    return tmp_path


def test_claims_are_read_with_their_evidence(tmp_path: Path) -> None:
    claims = read_claims(_corpus(tmp_path))
    assert len(claims) == 20
    first = claims[0]
    assert first.label == "support" and first.evidence == (
        "Ada Lovelace was an English mathematician.",
        "Ada Lovelace wrote papers.",
    )
    assert {c.label for c in claims} == {"support", "refute", "neutral"}


def test_every_kind_of_pair_is_made_and_labelled(tmp_path: Path) -> None:
    pairs, record = fever_pairs(_corpus(tmp_path), 30, seed=1)
    kinds = {(p.label, p.extra["kind"]) for p in pairs}
    assert kinds == {
        ("support", "gold"),
        ("refute", "gold"),
        ("neutral", "retrieved"),
        ("neutral", "same-subject"),
    }
    claims = {c.claim_id: c for c in read_claims(tmp_path)}
    for pair in pairs:
        claim = claims[pair.group]
        if pair.extra["kind"] == "gold":
            assert pair.passage == " ".join(claim.evidence[:EVIDENCE_SENTENCES])
        elif pair.extra["kind"] == "same-subject":
            assert pair.passage not in claim.evidence  # never the claim's own evidence
        else:
            assert claim.label == "neutral"
    assert sum(record["pairs"].values()) == len(pairs)


def test_same_subject_neutrals_skip_evidence_of_a_claim_saying_nearly_the_same(tmp_path: Path) -> None:
    ids = iter(_train_ids(4))
    _write(
        tmp_path,
        [
            (
                next(ids),
                "SUPPORTS",
                "Ada Lovelace was a mathematician.",
                ["Ada Lovelace was an English mathematician ."],
            ),
            (
                next(ids),
                "SUPPORTS",
                "Ada Lovelace was a mathematician of note.",
                ["Lovelace , a mathematician , is noted ."],
            ),
            (
                next(ids),
                "SUPPORTS",
                "Ada Lovelace wrote about engines.",
                ["Ada Lovelace wrote notes on the Analytical Engine ."],
            ),
        ],
    )
    pairs, _ = fever_pairs(tmp_path, 30, seed=1)
    neutral = {p.claim: p.passage for p in pairs if p.label == "neutral"}
    # the first two claims say nearly the same: neither gets the other's evidence as a neutral
    assert neutral.get("Ada Lovelace was a mathematician.") != "Lovelace, a mathematician, is noted."


def test_the_same_seed_gives_the_same_pairs_and_splits_never_mix(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    first, _ = fever_pairs(root, 24, seed=3)
    again, _ = fever_pairs(root, 24, seed=3)
    assert first == again
    assert all(split_of(DATASET, p.group) is Split.TRAIN for p in first)
    validation, record = fever_pairs(root, 24, seed=3, split=Split.VALIDATION)
    assert validation == [] and record["claims_in_split"] == 0


def test_missing_or_malformed_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FeverError, match="no FEVER training files"):
        read_claims(tmp_path)
    folder = tmp_path / "fever" / "train"
    folder.mkdir(parents=True)
    (folder / "split_wiki_data_0.csv").write_text("id,verifiable,label,claim,evidence\n1,V,MAYBE,c,[]\n")
    with pytest.raises(FeverError, match=r"split_wiki_data_0.csv:2"):
        read_claims(tmp_path)


def test_the_real_training_files_when_present() -> None:
    if not (DATASETS / "fever" / "train").is_dir():
        pytest.skip(f"{DATASETS}/fever/train not found; set ICARUS_DATASETS to run this slice")
    claims = read_claims(DATASETS)
    assert len(claims) == 145_449
    labels = [c.label for c in claims]
    assert (labels.count("support"), labels.count("refute"), labels.count("neutral")) == (
        80_035,
        29_775,
        35_639,
    )
