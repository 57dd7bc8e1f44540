"""The line-budget rule: the floor is where a line becomes likelier than a random one to be chosen, the cap
keeps the highest lines within the budget of each transcript, fill keeps every line the bar flags and tops
up to its share, and the choice needs the recall gain and the budget held in enough samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from icarus_training.checkworthy_budget import (
    FILL_GRID,
    MIN_RECALL_GAIN,
    Scored,
    bar_flags,
    cap_flags,
    choose,
    figures,
    fill_flags,
    fill_share,
    floor_of,
    render,
    run,
    within_budget,
)


def _scored(z: list[float], chosen: list[bool] | None = None, eligible: list[bool] | None = None) -> Scored:
    return Scored(
        tuple(z),
        tuple(eligible if eligible is not None else [True] * len(z)),
        tuple(chosen if chosen is not None else [False] * len(z)),
    )


def test_the_floor_is_the_lowest_score_where_the_isotonic_fit_reaches_the_base_rate() -> None:
    # 20 lines, 2 chosen (base rate 0.1): the fit is 0 up to 15 and 1/2 from 16 (16-19 hold two of four)
    z = [float(i) for i in range(20)]
    chosen = [i in (16, 18) for i in range(20)]
    assert floor_of([_scored(z, chosen)]) == 16.0


def test_the_fit_reads_eligible_lines_and_the_base_rate_counts_every_line() -> None:
    z = [float(i) for i in range(20)]
    chosen = [i in (1, 12, 16, 18) for i in range(20)]
    eligible = [i >= 10 for i in range(20)]
    # eligible 10..19: the fit is 0 for 10-11, 1/4 for 12-15, 1/2 from 16. The base rate over all 20
    # lines is 0.2, so the floor is 12; over the eligible lines alone it would be 0.3 and the floor 16
    assert floor_of([_scored(z, chosen, eligible)]) == 12.0
    with pytest.raises(ValueError, match="no eligible line"):
        floor_of([_scored([1.0], [True], [False])])


def test_no_line_ever_chosen_puts_the_floor_out_of_reach() -> None:
    # base rate 0: the fit reaches 0 everywhere, so the floor is the lowest eligible score
    assert floor_of([_scored([3.0, 1.0, 2.0])]) == 1.0


def test_the_cap_keeps_the_highest_eligible_lines_within_the_budget_of_each_transcript() -> None:
    z = [float(i) for i in range(20)]
    eligible = [i != 19 for i in range(20)]
    flags = cap_flags(_scored(z, eligible=eligible), floor=0.0, share=0.15)
    assert [i for i, f in enumerate(flags) if f] == [16, 17, 18]  # 3 = ⌊0.15·20⌋, 19 is not eligible
    assert sum(cap_flags(_scored(z), floor=18.0, share=0.15)) == 2  # the floor stops it first


def test_the_cap_breaks_a_tie_to_the_earlier_line() -> None:
    flags = cap_flags(_scored([1.0] * 10), floor=0.0, share=0.2)
    assert [i for i, f in enumerate(flags) if f] == [0, 1]


def test_fill_keeps_every_line_the_bar_flags_and_tops_up_to_its_share() -> None:
    z = [float(i) for i in range(20)]
    assert sum(bar_flags(_scored(z), bar=10.0)) == 10
    # the bar already floods: fill adds nothing and drops nothing
    assert fill_flags(_scored(z), bar=10.0, floor=0.0, share=0.15) == bar_flags(_scored(z), bar=10.0)
    # a quiet transcript: the bar flags 19 alone, fill adds 18 and 17, not 16 (below the floor would stop it)
    flags = fill_flags(_scored(z), bar=19.0, floor=17.0, share=0.25)
    assert [i for i, f in enumerate(flags) if f] == [17, 18, 19]


def test_within_budget_counts_the_samples_whose_pooled_share_stays_within_15_percent() -> None:
    flags = [[True] * 3 + [False] * 17, [True] * 4 + [False] * 16]  # 15 % and 20 %
    assert within_budget(flags, [[0], [1], [0, 1], [0, 0]]) == 0.5


def test_fill_share_is_the_largest_on_the_grid_that_keeps_the_budget() -> None:
    z = [float(i) for i in range(100)]
    flood = _scored(z)  # the bar at 80 flags 20 % of it
    quiet = _scored(z, eligible=[i < 50 for i in range(100)])  # the bar flags nothing here
    samples = [[0, 1]] * 10
    # pooled: 20 + ⌊B·100⌋ ≤ 30 needs ⌊B·100⌋ ≤ 10, which 0.105 still meets and 0.11 does not
    assert fill_share([flood, quiet], bar=80.0, floor=0.0, samples=samples) == 0.105
    assert FILL_GRID[0] == 0.15 and FILL_GRID[-1] == 0.05
    assert fill_share([flood], bar=50.0, floor=0.0, samples=[[0]]) is None


def test_figures_pool_recall_flagged_share_and_precision() -> None:
    t = _scored([1.0, 2.0, 3.0, 4.0], chosen=[False, True, False, True])
    f = figures([t], [[False, False, True, True]], [[0]])
    assert f["recall"] == 0.5 and f["flagged_share"] == 0.5 and f["chosen_share_of_flagged"] == 0.5
    assert f["samples_within_budget"] == 0.0


def _candidate(recall: float, within: float = 1.0) -> dict[str, float]:
    return {"recall": recall, "samples_within_budget": within}


def test_a_budget_replaces_the_bar_only_with_the_recall_gain_and_the_budget_held() -> None:
    bar = _candidate(0.50)
    assert choose({"bar": bar, "cap": _candidate(0.50 + MIN_RECALL_GAIN)}) == "cap"
    assert choose({"bar": bar, "cap": _candidate(0.50 + MIN_RECALL_GAIN - 0.001)}) == "bar"
    assert choose({"bar": bar, "cap": _candidate(0.60, within=0.89)}) == "bar"
    assert choose({"bar": bar, "cap": _candidate(0.56), "fill": _candidate(0.55)}) == "cap"
    assert choose({"bar": bar, "cap": _candidate(0.55), "fill": _candidate(0.55)}) == "fill"


def _dataset(folder: Path, transcripts: int, lines: int) -> None:
    """A CheckThat!-shaped file: every third line a checkable fact, the others courtesy; facts 1 and 4 chosen."""
    path = folder / "checkthat-2019" / "CT19-T1-Training.csv"
    path.parent.mkdir(parents=True)
    rows = ["file_name,line_number,speaker,text,label"]
    for t in range(transcripts):
        for n in range(1, lines + 1):
            fact = n % 3 == 0
            text = f"Unemployment fell to {n}.1 percent in 2019." if fact else "Thank you, Senator."
            rows.append(f't{t}.tsv,{n},SMITH,"{text}",{int(fact and n in (3, 12))}')
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_the_run_reads_the_cache_and_keeps_the_bar_without_the_recall_gain(tmp_path: Path) -> None:
    _dataset(tmp_path, transcripts=2, lines=40)
    # the higher a fact's number, the higher it scores: chosen facts 3 and 12 sit low, so no budget helps
    z = [float(n) if n % 3 == 0 else -50.0 for n in range(1, 41)]
    cache = tmp_path / "oof.json"
    cache.write_text(json.dumps({"oof": {"t0.tsv": z, "t1.tsv": z}, "inside": [], "outside": []}))
    placed = run(tmp_path, cache, Console(quiet=True))
    assert placed["chosen"] == "bar"
    assert set(placed["candidates"]) >= {"bar", "cap"}
    assert placed["candidates"]["cap"]["flagged"] == 2 * 6  # ⌊0.15 · 40⌋ in each transcript
    assert set(placed["per_transcript"]) == {"t0.tsv", "t1.tsv"}
    assert placed["recall_ceiling"] == 1.0  # both chosen facts pass the detector's filters
    assert "| cap |" in render({"placed": placed})


def test_a_cache_for_other_transcripts_is_refused(tmp_path: Path) -> None:
    _dataset(tmp_path, transcripts=1, lines=10)
    cache = tmp_path / "oof.json"
    cache.write_text(json.dumps({"oof": {"other.tsv": [0.0]}, "inside": [], "outside": []}))
    with pytest.raises(ValueError, match="other transcripts"):
        run(tmp_path, cache, Console(quiet=True))
