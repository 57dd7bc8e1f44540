"""Rank a line with its neighbours' encoder scores beside its own, on a fixed rule.

Fact-checkers pick runs of lines: on the train and tune transcripts a line beside a chosen line is chosen
ten times as often as any line. The encoder of ``checkworthy@2`` reads one line alone. This module asks
whether a small logistic model over the encoder's log-odds of the line *and of the lines around it*
ranks better, and ships it if the rule says so.

``python -m icarus_training.checkworthy_context --data ../shared/datasets --cache .checkworthy-oof.json``
(``make train-checkworthy-context``; the cache is the one ``icarus_training.checkworthy_minilm`` writes,
and is rebuilt when absent, which needs the ``train`` extra).

The rule, written down before any figure of these candidates was read (dev is read once, at the end,
for the record):

1. Input: the out-of-fold log-odds of the ``minilm`` candidate (three folds over the 15 train and tune
   transcripts, as ``checkworthy_minilm`` cuts them), so no line is scored by an encoder that saw it.
2. Candidates, each a logistic regression (``C`` = ``STACK_C``, no class weights) over features of line
   *i* in transcript order:

   * ``alone``: the encoder's log-odds z_i, as shipped (no stacking; its MAP is the encoder's own);
   * ``previous``: z_i, z_(i-1), whether line i-1 has the same speaker, and z_(i-1) times that;
   * ``neighbours``: ``previous``'s features and the same three for line i+1.

   A missing neighbour (the first or last line) takes the pooled mean of z and "not the same speaker".
3. Each stacker is scored by leave-one-transcript-out over the 15 transcripts: fitted on 14 transcripts'
   features, it ranks the 15th. MAP over the 15 scores it.
4. ``previous`` replaces ``alone`` only if its MAP is higher by ``MIN_GAIN`` or more *and* it ranks more
   than half of the 15 transcripts better (higher average precision). ``neighbours`` then replaces the
   choice only on the same two conditions against it: it makes the live detector wait for one more
   sentence.
5. The bar is the stacked score above which ``FLAGGED_BUDGET`` of the pooled leave-one-out lines lie. The
   shipped stacker is fitted on all 15 transcripts' features; it reads the shipped encoder's log-odds.

Added after the three candidates above were measured (``alone`` won; no dev figure was read): a later
challenger, ``speaker-share``, reads z_i, the share of the transcript's lines its speaker says, and their
product (moderators and guests say a small share of a debate and are seldom picked). It replaces the
choice only on rule 4's two conditions.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
from rich.console import Console

from icarus.evaluation.checkthat import Part, Transcript, average_precision, load_transcripts, part_of
from icarus_training.checkworthy import FLAGGED_BUDGET, _figures

__all__ = [
    "CANDIDATES",
    "MIN_GAIN",
    "SCRIPT_VERSION",
    "STACK_C",
    "choose",
    "line_features",
    "loto_rankings",
    "main",
    "wins",
]

SCRIPT_VERSION: Final = "train-checkworthy-context@1"
MODEL_VERSION: Final = "checkworthy@3"
CANDIDATES: Final = ("alone", "previous", "neighbours", "speaker-share")
STACK_C: Final = 1.0
MIN_GAIN: Final = 0.01
ENCODER_CANDIDATE: Final = "minilm"
WEIGHTS_NAME: Final = "checkworthy-3"
WEIGHTS_DIR: Final = Path(__file__).resolve().parents[1] / "icarus" / "claims" / "weights"
_RECORD: Final = Path("docs/evaluation/checkworthiness-3")

Ranking = tuple[list[float], list[bool]]


def _side(z: Sequence[float], speakers: Sequence[str], i: int, j: int, fill: float) -> list[float]:
    if not 0 <= j < len(z):
        return [fill, 0.0, 0.0]
    same = 1.0 if speakers[j] == speakers[i] else 0.0
    return [z[j], same, z[j] * same]


def line_features(z: Sequence[float], speakers: Sequence[str], candidate: str, fill: float) -> np.ndarray:
    """One row per line: the features ``candidate`` reads (rule 2), ``fill`` standing for a missing z."""
    if len(z) != len(speakers):
        raise ValueError(f"{len(z)} scores for {len(speakers)} speakers")
    if candidate not in CANDIDATES:
        raise ValueError(f"unknown candidate {candidate!r}; expected one of {', '.join(CANDIDATES)}")
    said = Counter(speakers)
    rows = []
    for i, own in enumerate(z):
        row = [own]
        if candidate in ("previous", "neighbours"):
            row += _side(z, speakers, i, i - 1, fill)
        if candidate == "neighbours":
            row += _side(z, speakers, i, i + 1, fill)
        if candidate == "speaker-share":
            share = said[speakers[i]] / len(z)
            row += [share, own * share]
        rows.append(row)
    return np.asarray(rows, dtype=np.float64).reshape(len(z), -1)


def _fit(x: np.ndarray, y: np.ndarray) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=STACK_C, solver="lbfgs", max_iter=2000).fit(x, y)


def loto_rankings(
    encoder: dict[str, Ranking], transcripts: Sequence[Transcript], candidate: str
) -> dict[str, Ranking]:
    """Rule 3: each transcript ranked by the stacker fitted on the other transcripts."""
    fill = float(np.mean(np.concatenate([np.asarray(encoder[t.name][0]) for t in transcripts])))
    data = {
        t.name: (
            line_features(encoder[t.name][0], [line.speaker for line in t.lines], candidate, fill),
            np.asarray(encoder[t.name][1], dtype=np.int64),
        )
        for t in transcripts
    }
    if candidate == "alone":
        return {t.name: (list(encoder[t.name][0]), list(encoder[t.name][1])) for t in transcripts}
    out: dict[str, Ranking] = {}
    for held in transcripts:
        others = [name for name in data if name != held.name]
        model = _fit(np.vstack([data[n][0] for n in others]), np.concatenate([data[n][1] for n in others]))
        stacked = model.decision_function(data[held.name][0])
        out[held.name] = ([float(v) for v in stacked], list(encoder[held.name][1]))
    return out


def choose(rankings: dict[str, dict[str, Ranking]]) -> str:
    """Rule 4 over the candidates' leave-one-out rankings (by transcript name)."""
    chosen = "alone"
    for challenger in ("previous", "neighbours", "speaker-share"):
        if challenger in rankings and _beats(rankings[challenger], rankings[chosen]):
            chosen = challenger
    return chosen


def _beats(challenger: dict[str, Ranking], incumbent: dict[str, Ranking]) -> bool:
    names = sorted(incumbent)
    return wins([average_precision(*challenger[n]) - average_precision(*incumbent[n]) for n in names])


def wins(gains: Sequence[float], minimum: float = MIN_GAIN) -> bool:
    """Rule 4's test on the per-transcript gains in average precision: a mean of at least ``minimum``,
    and a gain on more than half of the transcripts."""
    return bool(gains) and float(np.mean(gains)) >= minimum and sum(g > 0 for g in gains) * 2 > len(gains)


def _bar(rankings: dict[str, Ranking]) -> float:
    pooled = np.concatenate([np.asarray(scores) for scores, _ in rankings.values()])
    return float(np.quantile(pooled, 1 - FLAGGED_BUDGET))


def _pool(datasets: Path) -> list[Transcript]:
    transcripts = load_transcripts(datasets)
    parts = part_of(t.name for t in transcripts)
    return [t for t in transcripts if parts[t.name] is not Part.DEV]


def _encoder_oof(datasets: Path, cache: Path, console: Console) -> dict[str, Ranking]:
    from icarus_training.checkworthy_minilm import run_cv

    cv = run_cv(datasets, [ENCODER_CANDIDATE], console, cache)
    return dict(cv["oof"][ENCODER_CANDIDATE])


def run(datasets: Path, cache: Path, console: Console) -> dict[str, Any]:
    """Rules 1–5 on the pooled transcripts: every candidate's figures, the choice and its bar."""
    pool = _pool(datasets)
    encoder = _encoder_oof(datasets, cache, console)
    rankings = {name: loto_rankings(encoder, pool, name) for name in CANDIDATES}
    order = [t.name for t in pool]
    figures = {}
    for name, by_name in rankings.items():
        ranked = [by_name[n] for n in order]
        figures[name] = _figures(ranked, _bar(by_name)) | {
            "average_precision": {n: round(average_precision(*by_name[n]), 4) for n in order}
        }
        console.print(f"{name}: MAP {figures[name]['map']}, recall at the bar {figures[name]['recall']}")
    chosen = choose(rankings)
    return {"candidates": figures, "chosen": chosen, "bar": _bar(rankings[chosen]), "encoder": encoder}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        prog="python -m icarus_training.checkworthy_context", description=__doc__
    )
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--cache", type=Path, required=True, help="the encoder's out-of-fold scores")
    args = parser.parse_args(argv)
    console = Console()
    result = run(args.data, args.cache, console)
    record = {key: value for key, value in result.items() if key != "encoder"}
    record["script"] = SCRIPT_VERSION
    console.print_json(json.dumps({k: v for k, v in record.items() if k != "candidates"}))
    return record


if __name__ == "__main__":
    main()
