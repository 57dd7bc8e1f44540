"""Stance-set readers: label mappings, SciFact's neutral sentences, CovidFact counterparts, the split."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from icarus.evaluation.stancesets import (
    SPLIT_BUCKETS,
    Split,
    StanceSetError,
    load_pairs,
    split_of,
)
from tests.judges.stance_files import write_climate_fever, write_covidfact, write_scifact


def test_climate_fever_labels_map_to_three_stances(tmp_path: Path) -> None:
    pairs = load_pairs("climate-fever", write_climate_fever(tmp_path))
    assert [p.label for p in pairs] == ["support", "refute", "neutral"] * 2
    assert {p.group for p in pairs} == {"1", "2"}


def test_scifact_rationales_and_the_closest_other_sentences_as_neutral(tmp_path: Path) -> None:
    pairs = load_pairs("scifact", write_scifact(tmp_path))
    assert [(p.label, p.passage) for p in pairs] == [
        ("support", "Aspirin reduced the risk of stroke in adults."),
        # two neutral sentences, those sharing most words with the claim, never the rationale again
        ("neutral", "We studied aspirin in adults."),
        ("neutral", "Adults taking aspirin had more bleeding."),
    ]


def test_covidfact_counter_claims_keep_their_original(tmp_path: Path) -> None:
    pairs = load_pairs("covidfact", write_covidfact(tmp_path))
    refuted = [p for p in pairs if p.label == "refute"]
    assert len(refuted) == 1 and refuted[0].extra["counterpart"] == "A trial of 120 patients found no deaths"


def test_split_is_by_group_fixed_and_near_its_shares() -> None:
    assert split_of("scifact", "17") is split_of("scifact", "17")
    shares = Counter(split_of("x", str(n)) for n in range(20_000))
    train, validation = SPLIT_BUCKETS[0] / 100, (SPLIT_BUCKETS[1] - SPLIT_BUCKETS[0]) / 100
    assert abs(shares[Split.TRAIN] / 20_000 - train) < 0.02
    assert abs(shares[Split.VALIDATION] / 20_000 - validation) < 0.02


def test_a_split_never_shares_a_claim_with_another(tmp_path: Path) -> None:
    root = write_climate_fever(tmp_path)
    seen: dict[str, Split] = {}
    for split in (Split.TRAIN, Split.VALIDATION, Split.TEST):
        for pair in load_pairs("climate-fever", root, split):
            assert seen.setdefault(pair.group, split) is split
    assert len(load_pairs("climate-fever", root)) == 6


def test_unknown_set_and_missing_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(StanceSetError, match="known: "):
        load_pairs("liar", tmp_path)
    with pytest.raises(StanceSetError, match=r"climate-fever\.jsonl"):
        load_pairs("climate-fever", tmp_path)


def test_a_pairs_file_over_the_size_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import icarus.evaluation.stancesets as stancesets

    path = tmp_path / "big.jsonl"
    path.write_text('{"claim": "c", "passage": "p", "label": "support"}\n' * 10, encoding="utf-8")
    assert len(stancesets.load_pairs_file(path)) == 10
    monkeypatch.setattr(stancesets, "PAIRS_FILE_MAX_BYTES", 100)
    with pytest.raises(stancesets.StanceSetError, match="over the 100-byte limit"):
        stancesets.load_pairs_file(path)


def test_the_shipped_contrast_pairs_load_as_documented() -> None:
    from icarus.evaluation.stancesets import load_pairs_file

    path = Path(__file__).resolve().parents[2] / "docs" / "evaluation" / "contrast" / "contrast-pairs.jsonl"
    pairs = load_pairs_file(path)
    assert len(pairs) == 40 and {p.dataset for p in pairs} == {"contrast-pairs"}
    assert {p.label for p in pairs} == {"support", "refute"}
    assert {p.extra["kind"] for p in pairs} == {"direction", "quantity"}


def test_a_dataset_line_that_is_not_json_names_its_file_and_line(tmp_path: Path) -> None:
    root = write_climate_fever(tmp_path)
    path = root / "climate-fever/climate-fever.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + '{"claim_id": "3", "claim": \n', encoding="utf-8")
    with pytest.raises(StanceSetError, match=r"climate-fever\.jsonl:3: not valid JSON"):
        load_pairs("climate-fever", root)
    path.write_text('["a list, not a record"]\n', encoding="utf-8")
    with pytest.raises(StanceSetError, match=r"climate-fever\.jsonl:1: expected a JSON object"):
        load_pairs("climate-fever", root)


def test_a_record_in_another_layout_is_a_clear_error(tmp_path: Path) -> None:
    root = write_climate_fever(tmp_path)
    (root / "climate-fever/climate-fever.jsonl").write_text(
        '{"claim_id": "1", "claim": "Seas rose.", "claim_label": "SUPPORTS"}\n', encoding="utf-8"
    )
    with pytest.raises(
        StanceSetError, match=r"not laid out as this reader expects \(missing field 'evidences'"
    ):
        load_pairs("climate-fever", root)


def test_a_dataset_file_that_is_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    root = write_climate_fever(tmp_path)
    (root / "climate-fever/climate-fever.jsonl").write_bytes(b'{"claim": "\xff\xfe"}\n')
    with pytest.raises(StanceSetError, match="not UTF-8 text"):
        load_pairs("climate-fever", root)
