"""The fine-tuned check-worthiness encoder the detector reads (checkworthy@4): what ships is what was
recorded, damaged or foreign files are refused, one sentence always gets the same number, the detector reads
it at its bar, and a record that re-places the bar of an encoder is held to that encoder's file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from icarus.claims import ranking
from icarus.claims.encoder_ranking import (
    PROBE_SENTENCES,
    PROBE_TOLERANCE,
    EncoderRanker,
    RankerWeightsError,
    load_encoder_ranker,
    weight_files,
)
from icarus.claims.ranking import DEFAULT_BAR, DEFAULT_RANKER, EncoderBlend, load_model, load_ranker

ENCODER = DEFAULT_RANKER  # the default ranker is an encoder with its own record


@pytest.fixture()
def copied(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The shipped files, copied where a test may damage them."""
    return tuple(Path(shutil.copy(path, tmp_path / path.name)) for path in weight_files(ENCODER))  # type: ignore[return-value]


def test_the_shipped_ranker_is_checkworthy_4_and_reproduces_its_probes() -> None:
    ranker = load_encoder_ranker(ENCODER)
    assert ranker.version == "checkworthy@4"
    recorded = ranker.metadata["probe_log_odds"]
    assert len(recorded) == len(PROBE_SENTENCES)
    assert ranker.probe_log_odds() == pytest.approx(recorded, abs=PROBE_TOLERANCE)
    assert ranker.metadata["script"] == "train-checkworthy-all@1"


def test_a_damaged_model_file_is_refused(copied: tuple[Path, Path, Path]) -> None:
    model, tokenizer, meta = copied
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(RankerWeightsError, match="SHA-256"):
        EncoderRanker.from_files(model, tokenizer, meta)


def test_missing_files_are_named(copied: tuple[Path, Path, Path]) -> None:
    model, tokenizer, meta = copied
    tokenizer.unlink()
    with pytest.raises(RankerWeightsError, match=tokenizer.name):
        EncoderRanker.from_files(model, tokenizer, meta)


def test_a_machine_that_computes_other_numbers_is_refused(copied: tuple[Path, Path, Path]) -> None:
    model, tokenizer, meta = copied
    record = json.loads(meta.read_text(encoding="utf-8"))
    record["probe_log_odds"][0] += 2 * PROBE_TOLERANCE
    meta.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(RankerWeightsError, match="differently"):
        EncoderRanker.from_files(model, tokenizer, meta)


def test_a_record_without_probes_is_refused(copied: tuple[Path, Path, Path]) -> None:
    model, tokenizer, meta = copied
    record = json.loads(meta.read_text(encoding="utf-8"))
    del record["probe_log_odds"]
    meta.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(RankerWeightsError, match="no probe"):
        EncoderRanker.from_files(model, tokenizer, meta)


def test_one_sentence_gets_the_same_log_odds_whatever_it_is_ranked_beside() -> None:
    ranker = load_encoder_ranker(ENCODER)
    sentence = "The deficit doubled to $1.4 trillion in 2009."
    alone = ranker.log_odds(sentence)
    beside = ranker.log_odds_many(["Thank you.", sentence, " ".join(["word"] * 300)])
    assert beside[1] == alone


def test_the_detector_ranks_with_the_default_ranker_at_its_bar() -> None:
    ranker = load_ranker()
    assert isinstance(ranker, EncoderBlend)
    assert ranker.version == "checkworthy@4"
    assert ranker.bar == ranker.encoder.metadata["bar"]
    at_bar = EncoderBlend(
        "t", ranker.encoder, bar=ranker.log_odds("anything"), logistic=ranker.logistic, scales=ranker.scales
    )
    assert at_bar.score("anything") == pytest.approx(DEFAULT_BAR)
    higher = EncoderBlend(
        "t", ranker.encoder, bar=at_bar.bar - 0.5, logistic=ranker.logistic, scales=ranker.scales
    )
    assert higher.score("anything") > DEFAULT_BAR


def test_a_blend_standardises_each_part_before_summing() -> None:
    encoder = load_encoder_ranker(ENCODER)
    logistic = load_model()
    blend = EncoderBlend("t", encoder, bar=0.0, logistic=logistic, scales=((1.0, 2.0), (-3.0, 4.0)))
    text = "Unemployment fell to 4 percent."
    expected = (logistic.log_odds(text) - 1.0) / 2.0 + (encoder.log_odds(text) + 3.0) / 4.0
    assert blend.log_odds(text) == pytest.approx(expected)


def test_a_figure_with_a_past_event_outranks_a_call_to_action() -> None:
    ranker = load_ranker()
    assert ranker.score("The deficit doubled to $1.4 trillion in 2009.") > ranker.score("We must act now.")


@pytest.mark.parametrize(
    "sentence",
    ["Thank you, Senator.", "Let me ask you about immigration.", "We'll be right back after this break."],
)
def test_moderator_framing_stays_under_the_bar(sentence: str) -> None:
    assert load_ranker().score(sentence) < DEFAULT_BAR


def _placed(sha256: str) -> dict[str, object]:
    return {"version": "checkworthy@t", "encoder": ENCODER, "encoder_sha256": sha256, "bar": -1.25}


def test_a_record_that_names_an_encoder_reads_it_at_its_own_version_and_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoder = load_encoder_ranker(ENCODER)
    record = _placed(encoder.metadata["onnx_sha256"])
    monkeypatch.setattr(ranking, "_weights_record", lambda _name: record)
    load_ranker.cache_clear()
    try:
        ranker = load_ranker()
        assert isinstance(ranker, EncoderBlend)
        assert (ranker.version, ranker.bar) == ("checkworthy@t", -1.25)
        assert ranker.encoder is encoder
    finally:
        load_ranker.cache_clear()


def test_a_bar_placed_for_another_encoder_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    record = _placed("0" * 64)
    monkeypatch.setattr(ranking, "_weights_record", lambda _name: record)
    load_ranker.cache_clear()
    try:
        with pytest.raises(RankerWeightsError, match=f"was placed for {ENCODER}"):
            load_ranker()
    finally:
        load_ranker.cache_clear()
