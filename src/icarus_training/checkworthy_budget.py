"""Give the debate detector a line budget per transcript, on a fixed rule.

``python -m icarus_training.checkworthy_budget --data ../shared/datasets --cache .checkworthy-oof-19.json``
(``make train-checkworthy-budget``; needs the ``train`` extra the first time, to fit the three fold models
whose out-of-fold scores the cache then keeps).

The detector flags a claim when its sentence scores at or above one bar for every transcript. Transcripts
differ: at ``checkworthy@4``'s bar some flag far more of their lines than others, so the bar has to sit
where a sample of seven transcripts stays within the budget (``FLAGGED_BUDGET`` of the lines) nine times in
ten, and on a quiet transcript the budget it leaves unspent is recall given away. A budget counted within
each transcript holds on every transcript by its construction, and can be spent whole.

Three detectors, each over the eligible lines (those the detector's filters let through) of a transcript of
N lines, with z a line's out-of-fold log-odds:

* **bar** (what ships): the eligible lines with z at least the out-of-fold bar b* (``checkworthy_bar``
  rule 2, as ``checkworthy_all`` placed it on the 19).
* **cap**: the eligible lines with z at least a floor f, the ⌊B·N⌋ highest of them (B = ``FLAGGED_BUDGET``;
  a tie goes to the earlier line). A line above b* may be left out when the transcript holds more than
  the budget.
* **fill**: every line the bar flags, and then the next highest eligible lines with z at least f until
  ⌊B'·N⌋ lines are flagged. B' is the largest share on ``FILL_GRID`` at which the pooled flagged share stays
  within B in ``CONFIDENCE`` of the samples (below), since a transcript the bar already floods still
  floods; no share passing means fill fails.

The rule, written down before any figure it produces was read. Every figure is out of fold over all 19
training transcripts: the three folds of ``checkworthy_all``, the ones behind ``checkworthy@4``'s own
estimates. No transcript is held apart from the shipped model, so the held-back test stays the measure.

1. *Eligible lines*: ``checkworthy_bar`` rule 1.
2. *The floor f*: no line is flagged when a line drawn at random is likelier to have been chosen. An
   isotonic fit of chosen against z over the pooled eligible lines gives P(chosen | z); f is the lowest z at
   which the fit reaches the share of chosen lines among all pooled lines.
3. *The samples*: ``DRAWS`` samples of ``TEST_TRANSCRIPTS`` transcripts drawn with replacement, the very
   samples the bar was placed on (``checkworthy_bar``'s seed and draw order).
4. *The choice*: a candidate qualifies when (a) its pooled recall is at least ``MIN_RECALL_GAIN`` above the
   bar's and (b) its pooled flagged share is within B in at least ``CONFIDENCE`` of the samples. Of the
   qualifying candidates the one with the higher pooled recall replaces the bar; a tie goes to fill, which
   keeps every line the bar flags. The share of flagged lines that were chosen is reported for all three
   and is not a criterion: the floor guards it.
5. *Shipping*: f (and b*, unchanged) move onto the shipped model's scale as the bar did
   (``checkworthy_bar`` rule 3: the level of f among the pooled out-of-fold scores, taken on the shipped
   model's in-sample scores, less the fold models' optimism at that level). A record ``checkworthy@5``
   names ``checkworthy@4``'s encoder by its SHA-256 and holds its bar, the floor and the chosen detector
   with its share. The detector applies the budget to a transcript read whole that holds at least
   ``MIN_BUDGET_LINES`` sentences; a shorter text, or a live stream read as it comes, keeps the bar alone.

Rule 5 was not reached: neither candidate qualified, so the bar ships as it was. The run writes
``docs/evaluation/checkworthiness-budget.{json,md}``, and would say so were a candidate to win.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
from rich.console import Console

from icarus.evaluation.checkthat import Transcript, load_transcripts
from icarus_training.checkworthy import FLAGGED_BUDGET
from icarus_training.checkworthy_bar import (
    CONFIDENCE,
    DRAWS,
    SEED,
    TEST_TRANSCRIPTS,
    bar_on_oof_scale,
    eligible_lines,
    level_of,
)

__all__ = [
    "FILL_GRID",
    "MIN_BUDGET_LINES",
    "MIN_RECALL_GAIN",
    "Scored",
    "cap_flags",
    "choose",
    "fill_flags",
    "fill_share",
    "floor_of",
    "main",
]

SCRIPT_VERSION: Final = "place-checkworthy-budget@1"
MODEL_VERSION: Final = "checkworthy@5"
MIN_RECALL_GAIN: Final = 0.03
FILL_GRID: Final = tuple(round(0.15 - 0.005 * step, 3) for step in range(21))  # 0.150 down to 0.050
MIN_BUDGET_LINES: Final = 40
"""Below this many sentences 15 % is under six lines, too few to rank a transcript against itself."""
_RECORD: Final = Path("docs/evaluation/checkworthiness-budget")


@dataclass(frozen=True, slots=True)
class Scored:
    """One transcript's lines: out-of-fold log-odds, whether the detector's filters pass each, the labels."""

    z: tuple[float, ...]
    eligible: tuple[bool, ...]
    chosen: tuple[bool, ...]


def floor_of(scored: Sequence[Scored]) -> float:
    """Rule 2: the lowest z at which the isotonic P(chosen | z) over eligible lines reaches the base rate."""
    from sklearn.isotonic import IsotonicRegression

    z = np.array([s for t in scored for s, e in zip(t.z, t.eligible, strict=True) if e], dtype=np.float64)
    y = np.array(
        [c for t in scored for c, e in zip(t.chosen, t.eligible, strict=True) if e], dtype=np.float64
    )
    if z.size == 0:
        raise ValueError("no eligible line: nothing the detector could flag")
    base_rate = sum(sum(t.chosen) for t in scored) / sum(len(t.chosen) for t in scored)
    fitted = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(z, y).predict(z)
    reaching = z[fitted >= base_rate]
    return float(reaching.min()) if reaching.size else math.inf


def _ranked_eligible(t: Scored, floor: float) -> list[int]:
    """Eligible lines at or above ``floor``, highest z first, the earlier line first on a tie."""
    keep = [i for i, (s, e) in enumerate(zip(t.z, t.eligible, strict=True)) if e and s >= floor]
    return sorted(keep, key=lambda i: (-t.z[i], i))


def bar_flags(t: Scored, bar: float) -> list[bool]:
    return [e and s >= bar for s, e in zip(t.z, t.eligible, strict=True)]


def cap_flags(t: Scored, floor: float, share: float = FLAGGED_BUDGET) -> list[bool]:
    """The cap detector: the ⌊share·N⌋ highest eligible lines at or above the floor."""
    flags = [False] * len(t.z)
    for i in _ranked_eligible(t, floor)[: math.floor(share * len(t.z))]:
        flags[i] = True
    return flags


def fill_flags(t: Scored, bar: float, floor: float, share: float) -> list[bool]:
    """The fill detector: the bar's lines, then the next highest down to the floor up to ⌊share·N⌋ lines."""
    flags = bar_flags(t, bar)
    room = math.floor(share * len(t.z)) - sum(flags)
    for i in _ranked_eligible(t, floor):
        if room <= 0:
            break
        if not flags[i]:
            flags[i], room = True, room - 1
    return flags


def _samples(count: int, seed: int = SEED) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [[int(i) for i in rng.integers(0, count, TEST_TRANSCRIPTS)] for _ in range(DRAWS)]


def within_budget(flags: Sequence[Sequence[bool]], samples: Sequence[Sequence[int]]) -> float:
    """Rule 4b: the share of samples whose pooled flagged share is within ``FLAGGED_BUDGET``."""
    lines = [len(f) for f in flags]
    flagged = [sum(f) for f in flags]
    within = sum(
        sum(flagged[i] for i in sample) <= FLAGGED_BUDGET * sum(lines[i] for i in sample)
        for sample in samples
    )
    return within / len(samples)


def fill_share(
    scored: Sequence[Scored], bar: float, floor: float, samples: Sequence[Sequence[int]]
) -> float | None:
    """B': the largest share on ``FILL_GRID`` whose fill detector passes rule 4b, or None."""
    for share in FILL_GRID:
        flags = [fill_flags(t, bar, floor, share) for t in scored]
        if within_budget(flags, samples) >= CONFIDENCE:
            return share
    return None


def figures(
    scored: Sequence[Scored], flags: Sequence[Sequence[bool]], samples: Sequence[Sequence[int]]
) -> dict[str, float]:
    """Pooled recall, flagged share, the chosen share of flagged lines, and rule 4b's share of samples."""
    chosen = sum(sum(t.chosen) for t in scored)
    lines = sum(len(t.chosen) for t in scored)
    flagged = sum(sum(f) for f in flags)
    found = sum(c and k for t, f in zip(scored, flags, strict=True) for c, k in zip(t.chosen, f, strict=True))
    return {
        "recall": round(found / chosen, 4) if chosen else 0.0,
        "flagged_share": round(flagged / lines, 4) if lines else 0.0,
        "chosen_share_of_flagged": round(found / flagged, 4) if flagged else 0.0,
        "found": found,
        "flagged": flagged,
        "samples_within_budget": round(within_budget(flags, samples), 4),
    }


def choose(candidates: dict[str, dict[str, float]]) -> str:
    """Rule 4: the qualifying candidate with the higher recall (fill on a tie), else the bar."""
    incumbent = candidates["bar"]["recall"]
    qualifying = [
        name
        for name in ("fill", "cap")
        if name in candidates
        and candidates[name]["recall"] >= incumbent + MIN_RECALL_GAIN - 1e-12
        and candidates[name]["samples_within_budget"] >= CONFIDENCE
    ]
    if not qualifying:
        return "bar"
    return max(qualifying, key=lambda name: candidates[name]["recall"])  # max keeps the first on a tie


def _cached_scores(
    datasets: Path, cache: Path, console: Console
) -> tuple[list[Transcript], dict[str, list[float]], list[list[float]], list[list[float]]]:
    """The 19 transcripts, their out-of-fold log-odds, and each fold model's in-sample and out-of-fold
    scores (for rule 5), fitted once and then read from ``cache``."""
    transcripts = load_transcripts(datasets)
    if cache.is_file():
        stored = json.loads(cache.read_text(encoding="utf-8"))
    else:
        from icarus_training.checkworthy_all import out_of_fold_and_in_sample

        oof, inside, outside = out_of_fold_and_in_sample(transcripts, console)
        stored = {"oof": {name: r[0] for name, r in oof.items()}, "inside": inside, "outside": outside}
        cache.write_text(json.dumps(stored), encoding="utf-8")
    if set(stored["oof"]) != {t.name for t in transcripts}:
        raise ValueError(f"{cache} holds other transcripts than the 19: delete it to refit")
    return transcripts, stored["oof"], stored["inside"], stored["outside"]


def run(datasets: Path, cache: Path, console: Console) -> dict[str, Any]:
    """Rules 1–4 on the 19 transcripts, out of fold."""
    from rich.progress import track

    transcripts, oof, _inside, _outside = _cached_scores(datasets, cache, console)
    scored = [
        Scored(
            tuple(oof[t.name]),
            tuple(eligible_lines(t)),
            tuple(line.check_worthy for line in t.lines),
        )
        for t in track(transcripts, description="eligible lines", console=console)
    ]
    b_star = bar_on_oof_scale([(list(t.z), list(t.eligible)) for t in scored])
    floor = floor_of(scored)
    samples = _samples(len(scored))
    share = fill_share(scored, b_star, floor, samples)
    candidates = {
        "bar": figures(scored, [bar_flags(t, b_star) for t in scored], samples),
        "cap": figures(scored, [cap_flags(t, floor) for t in scored], samples),
    }
    if share is not None:
        candidates["fill"] = figures(scored, [fill_flags(t, b_star, floor, share) for t in scored], samples)
    pooled = [s for t in scored for s in t.z]
    return {
        "script": SCRIPT_VERSION,
        "oof_bar": round(b_star, 5),
        "oof_floor": round(floor, 5),
        "floor_level": round(level_of(pooled, floor), 5),
        "bar_level": round(level_of(pooled, b_star), 5),
        # no detector flags a line its filters drop, however it ranks: the recall it can reach at most
        "recall_ceiling": round(
            sum(c and e for t in scored for c, e in zip(t.chosen, t.eligible, strict=True))
            / max(1, sum(sum(t.chosen) for t in scored)),
            4,
        ),
        "fill_share": share,
        "candidates": candidates,
        "chosen": choose(candidates),
        "per_transcript": {
            t.name: {
                name: round(sum(flags) / len(flags), 4)
                for name, flags in (
                    ("bar", bar_flags(s, b_star)),
                    ("cap", cap_flags(s, floor)),
                    *((("fill", fill_flags(s, b_star, floor, share)),) if share is not None else ()),
                )
            }
            for t, s in zip(transcripts, scored, strict=True)
        },
    }


def render(record: dict[str, Any]) -> str:
    """The record as a Markdown page (docs/evaluation/checkworthiness-budget.md)."""
    placed = record["placed"]
    lines = [
        "# Check-worthiness: a line budget for the debate detector, measured",
        "",
        f"Written by `{SCRIPT_VERSION}` (`make train-checkworthy-budget`); the rule is the module's "
        "docstring, written before any figure below was read. Out of fold over the 19 training transcripts "
        "(`checkworthy_all`'s three folds).",
        "",
        "| step | value |",
        "|---|---|",
        f"| bar b* (log-odds, out-of-fold scale) | {placed['oof_bar']:.3f} |",
        f"| floor f (isotonic P(chosen) reaches the base rate) | {placed['oof_floor']:.3f} |",
        f"| share of out-of-fold scores below f | {placed['floor_level']:.3f} |",
        f"| fill share B' | {fill if (fill := placed['fill_share']) is not None else 'none keeps the budget'} |",
        f"| chosen lines the detector's filters let through (its recall at most) | "
        f"{placed['recall_ceiling']:.1%} |",
        f"| chosen | {placed['chosen']} |",
        "",
        f"| detector | recall | lines flagged | chosen share of flagged | found | flagged | samples within "
        f"{FLAGGED_BUDGET:.0%} |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, f in placed["candidates"].items():
        lines.append(
            f"| {name} | {f['recall']:.3f} | {f['flagged_share']:.1%} | {f['chosen_share_of_flagged']:.1%} | "
            f"{f['found']} | {f['flagged']} | {f['samples_within_budget']:.1%} |"
        )
    lines += [
        "",
        "Lines flagged per transcript:",
        "",
        "| transcript | " + " | ".join(placed["candidates"]) + " |",
        "|---|" + "---|" * len(placed["candidates"]),
    ]
    for name, shares in placed["per_transcript"].items():
        lines.append(f"| {name} | " + " | ".join(f"{shares[c]:.1%}" for c in placed["candidates"]) + " |")
    lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.checkworthy_budget", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--cache", type=Path, required=True, help="out-of-fold scores over the 19, kept")
    args = parser.parse_args(argv)
    console = Console()
    placed = run(args.data, args.cache, console)
    record: dict[str, Any] = {"placed": {k: v for k, v in placed.items() if not k.startswith("_")}}
    console.print_json(json.dumps(record["placed"]))
    if placed["chosen"] != "bar":
        console.print(f"[bold]{placed['chosen']} wins: rule 5 ships it as {MODEL_VERSION}[/bold]")
    _RECORD.parent.mkdir(parents=True, exist_ok=True)
    _RECORD.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    _RECORD.with_suffix(".md").write_text(render(record), encoding="utf-8")
    return record


if __name__ == "__main__":
    main()
