"""The speaker gate: who is still unnamed, the live backlog released in order, deferred file detection."""

from __future__ import annotations

import pytest

from icarus.debates.errors import DebateError, UnknownSpeaker
from icarus.debates.model import Segment
from icarus.debates.speakers import (
    MAX_SPEAKER_NAME_CHARS,
    InvalidSpeakerName,
    LiveGate,
    heard_labels,
    implicit_names,
    is_diarization_label,
    may_run_detection,
    release_backlog,
    speaker_display_name,
    speakers_waiting,
    validate_speaker_map,
)

HEARD = ["SPEAKER_2", "SPEAKER_1", "SPEAKER_3"]


def _segment(number: int, label: str | None) -> Segment:
    return Segment(segment_id=f"s{number}", speaker_label=label, text="words")


def test_heard_labels_are_distinct_in_first_heard_order() -> None:
    labels = [None, "SPEAKER_2", "SPEAKER_1", "SPEAKER_2", None, "SPEAKER_3", "SPEAKER_1"]
    segments = [_segment(number, label) for number, label in enumerate(labels)]
    assert heard_labels(segments) == HEARD


@pytest.mark.parametrize(
    ("names", "waiting"),
    [
        ({}, HEARD),
        ({"SPEAKER_1": "Ruth Calloway"}, ["SPEAKER_2", "SPEAKER_3"]),
        ({"SPEAKER_3": "Daniel Okoro", "SPEAKER_2": "   "}, ["SPEAKER_2", "SPEAKER_1"]),
        ({"SPEAKER_1": "Ruth", "SPEAKER_2": "Helena", "SPEAKER_3": "Daniel"}, []),
    ],
)
def test_speakers_waiting_keeps_first_heard_order(names: dict[str, str], waiting: list[str]) -> None:
    assert speakers_waiting(HEARD, names) == waiting


# File mode: deferred detection --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "skip", "still_waiting"),
    [
        ({}, False, HEARD),
        ({}, True, []),
        ({"SPEAKER_1": "Ruth"}, False, ["SPEAKER_2", "SPEAKER_3"]),
        ({"SPEAKER_1": "Ruth"}, True, []),
        ({"SPEAKER_1": "Ruth", "SPEAKER_2": "Helena", "SPEAKER_3": "Daniel"}, False, []),
        ({"SPEAKER_1": "Ruth", "SPEAKER_2": "Helena", "SPEAKER_3": "Daniel"}, True, []),
    ],
)
def test_file_mode_truth_table(names: dict[str, str], skip: bool, still_waiting: list[str]) -> None:
    assert may_run_detection(HEARD, names, skip_speakers=skip) == still_waiting


def test_nothing_heard_means_nothing_to_wait_for() -> None:
    assert may_run_detection([], {}, skip_speakers=False) == []


def test_unnamed_voices_stay_speaker_n_in_first_heard_order() -> None:
    names = {"SPEAKER_1": "Ruth Calloway"}
    assert speaker_display_name("SPEAKER_1", HEARD, names) == "Ruth Calloway"
    assert speaker_display_name("SPEAKER_2", HEARD, names) == "Speaker 1"
    assert speaker_display_name("SPEAKER_3", HEARD, names) == "Speaker 3"
    assert speaker_display_name(None, HEARD, names) is None


# Live mode: the backlog -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "gate", "released"),
    [
        ({}, True, False),
        ({"SPEAKER_1": "Ruth", "SPEAKER_2": "Helena"}, True, False),
        ({"SPEAKER_1": "Ruth", "SPEAKER_2": "Helena", "SPEAKER_3": "Daniel"}, True, True),
        ({}, False, True),
    ],
)
def test_live_backlog_truth_table(names: dict[str, str], gate: bool, released: bool) -> None:
    backlog = ["batch-1", "batch-2", "batch-3"]
    decision = release_backlog(backlog, HEARD, names, gate_enabled=gate)
    if released:
        assert decision.released == ("batch-1", "batch-2", "batch-3")
        assert decision.withheld == () and decision.still_waiting == ()
    else:
        assert decision.released == ()
        assert decision.withheld == ("batch-1", "batch-2", "batch-3")
        assert list(decision.still_waiting) == speakers_waiting(HEARD, names)


def test_live_gate_withholds_until_every_heard_voice_is_named_then_releases_in_order() -> None:
    gate: LiveGate[str] = LiveGate()
    assert gate.offer("b1", ["SPEAKER_1"]) == []
    assert gate.name({"SPEAKER_1": "Ruth"}) == ["b1"]
    assert gate.offer("b2", ["SPEAKER_1", "SPEAKER_2"]) == []
    assert gate.offer("b3", ["SPEAKER_1"]) == []  # SPEAKER_2 was heard and is still unnamed
    assert gate.offer("b4", ["SPEAKER_3"]) == []
    assert gate.still_waiting == ["SPEAKER_2", "SPEAKER_3"]
    assert gate.name({"SPEAKER_2": "Helena"}) == []
    assert gate.name({"SPEAKER_3": "Daniel"}) == ["b2", "b3", "b4"]
    assert gate.offer("b5", [None, "SPEAKER_2"]) == ["b5"]
    assert gate.backlog == []


def test_live_gate_disabled_lets_every_batch_through() -> None:
    gate: LiveGate[int] = LiveGate(gate_enabled=False)
    assert gate.offer(1, ["SPEAKER_1"]) == [1]
    assert gate.still_waiting == []


def test_live_gate_refuses_a_name_for_a_voice_never_heard() -> None:
    gate: LiveGate[str] = LiveGate()
    gate.offer("b1", ["SPEAKER_1"])
    with pytest.raises(UnknownSpeaker):
        gate.name({"SPEAKER_9": "Nobody"})
    assert gate.backlog == ["b1"]


# The speaker map ------------------------------------------------------------------------------------------


def test_speaker_map_names_are_stripped() -> None:
    assert validate_speaker_map({"SPEAKER_1": "  Ruth Calloway "}, HEARD) == {"SPEAKER_1": "Ruth Calloway"}


def test_unknown_labels_are_all_listed_and_answered_422() -> None:
    with pytest.raises(UnknownSpeaker) as caught:
        validate_speaker_map({"SPEAKER_1": "Ruth", "SPEAKER_9": "X", "spk_0": "Y"}, HEARD)
    assert sorted(caught.value.labels) == ["SPEAKER_9", "spk_0"]
    assert isinstance(caught.value, DebateError) and caught.value.http_status == 422


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("x" * (MAX_SPEAKER_NAME_CHARS + 1), "longer than"),
        ("Ruth\x00Calloway", "control characters"),
        ("Ruth\nCalloway", "control characters"),
    ],
)
def test_bad_names_are_refused(name: str, reason: str) -> None:
    with pytest.raises(InvalidSpeakerName) as caught:
        validate_speaker_map({"SPEAKER_1": name}, HEARD)
    assert reason in str(caught.value)
    assert caught.value.http_status == 422


def test_a_name_exactly_at_the_length_cap_is_accepted() -> None:
    name = "x" * MAX_SPEAKER_NAME_CHARS
    assert validate_speaker_map({"SPEAKER_1": name}, HEARD) == {"SPEAKER_1": name}


@pytest.mark.parametrize(
    ("label", "placeholder"),
    [
        ("SPEAKER_1", True),
        ("SPEAKER_00", True),
        ("Speaker 2", True),
        ("spk_0", True),
        ("S3", True),
        ("Helena Marsh", False),
        ("MODERATOR", False),
    ],
)
def test_diarization_placeholders_are_told_from_names(label: str, placeholder: bool) -> None:
    assert is_diarization_label(label) is placeholder


def test_voice_tag_names_need_no_speaker_map() -> None:
    heard = ["Ruth Calloway", "SPEAKER_2"]
    names = implicit_names(heard)
    assert names == {"Ruth Calloway": "Ruth Calloway"}
    assert speakers_waiting(heard, names) == ["SPEAKER_2"]
