"""The CheckThat! 2019 reader, its fixed split and the lab's ranking metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from icarus.evaluation.checkthat import (
    CHECKTHAT_FILE,
    DEV_TRANSCRIPTS,
    TUNE_TRANSCRIPTS,
    Part,
    average_precision,
    load_transcripts,
    mean_average_precision,
    part_of,
    threshold_figures,
)
from tests.datasets import DATASETS

needs_checkthat = pytest.mark.skipif(
    not (DATASETS / CHECKTHAT_FILE).is_file(), reason=f"{DATASETS / CHECKTHAT_FILE} is absent"
)


def test_average_precision_is_the_mean_precision_at_each_check_worthy_rank() -> None:
    # Ranked: 0.9 (yes), 0.8 (no), 0.7 (yes): precision 1/1 and 2/3.
    assert average_precision([0.7, 0.9, 0.8], [True, True, False]) == pytest.approx((1 + 2 / 3) / 2)


def test_average_precision_is_one_for_a_perfect_ranking_and_zero_without_positives() -> None:
    assert average_precision([0.9, 0.1, 0.2], [True, False, False]) == 1.0
    assert average_precision([0.9, 0.1], [False, False]) == 0.0


def test_average_precision_keeps_the_given_order_on_ties() -> None:
    assert average_precision([0.5, 0.5], [False, True]) == 0.5
    assert average_precision([0.5, 0.5], [True, False]) == 1.0


def test_average_precision_refuses_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="2 scores for 1 labels"):
        average_precision([0.1, 0.2], [True])


def test_map_averages_over_transcripts_not_lines() -> None:
    assert mean_average_precision([([0.9, 0.1], [True, False]), ([0.9, 0.1], [False, True])]) == 0.75


def test_threshold_figures_count_recall_flagged_share_and_precision() -> None:
    figures = threshold_figures([0.9, 0.5, 0.39, 0.4], [True, False, True, False], lambda score: score >= 0.4)
    assert (figures.lines, figures.check_worthy, figures.flagged, figures.found) == (4, 2, 3, 1)
    assert figures.recall == 0.5
    assert figures.flagged_share == 0.75
    assert figures.precision == pytest.approx(1 / 3)


def test_the_split_is_fixed_by_the_hash_rule_whatever_the_order_given() -> None:
    names = [f"debate-{index}.tsv" for index in range(19)]
    parts = part_of(names)
    assert parts == part_of(reversed(names))
    assert sum(part is Part.DEV for part in parts.values()) == DEV_TRANSCRIPTS
    assert sum(part is Part.TUNE for part in parts.values()) == TUNE_TRANSCRIPTS


def test_a_row_without_a_label_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "checkthat-2019"
    folder.mkdir()
    (folder / "CT19-T1-Training.csv").write_text(
        "line_number,speaker,text,label,file_name\n1,A,Hello there.,x,a.tsv\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"line 1 of a\.tsv has no 0/1 label"):
        load_transcripts(tmp_path)


def test_a_missing_file_says_which(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="CheckThat"):
        load_transcripts(tmp_path)


@needs_checkthat
def test_the_training_transcripts_load_in_spoken_order_with_their_labels() -> None:
    transcripts = load_transcripts(DATASETS)
    assert len(transcripts) == 19
    assert sum(len(t.lines) for t in transcripts) == 16_421
    assert sum(t.positives for t in transcripts) == 440
    for transcript in transcripts:
        numbers = [line.number for line in transcript.lines]
        assert numbers == sorted(numbers)


def test_a_transcript_becomes_captions_that_keep_its_speakers_and_drop_stage_directions() -> None:
    from icarus.debates.transcripts import parse_transcript
    from icarus.evaluation.checkthat import Line, Transcript, to_srt

    transcript = Transcript(
        "t.tsv",
        (
            Line(1, "HOLT", "Good evening from Hofstra University.", False),
            Line(2, "SYSTEM", "(APPLAUSE)", False),
            Line(3, "TRUMP", "Our jobs are fleeing the country.", True),
            Line(4, "CLINTON", "I have a plan.", False),
        ),
    )
    segments = parse_transcript(to_srt(transcript), "srt")
    assert [(s.speaker_label, s.text) for s in segments] == [
        ("HOLT", "Good evening from Hofstra University."),
        ("TRUMP", "Our jobs are fleeing the country."),
        ("CLINTON", "I have a plan."),
    ]
    starts = [s.start_s for s in segments]
    assert starts == sorted(starts) and all(s.end_s > s.start_s for s in segments)
    assert len(parse_transcript(to_srt(transcript, limit=2), "srt")) == 2


@needs_checkthat
def test_a_real_debate_written_as_captions_parses_whole() -> None:
    from icarus.debates.transcripts import parse_transcript
    from icarus.evaluation.checkthat import to_srt

    transcript = next(t for t in load_transcripts(DATASETS) if t.name == "20160926_1pres.tsv")
    segments = parse_transcript(to_srt(transcript), "srt")
    assert {s.speaker_label for s in segments} == {"HOLT", "TRUMP", "CLINTON"}
    assert len(segments) == sum(1 for line in transcript.lines if not line.text.startswith("("))
