"""Whether a line that is echoed elsewhere in its debate is likelier to be chosen, on a fixed rule.

``python -m icarus_training.checkworthy_echoes --data ../shared/datasets --cache .checkworthy-oof-19.json``
(``make train-checkworthy-echoes``; the cache is ``checkworthy_budget``'s, the out-of-fold scores of
``checkworthy_all``'s three folds over the 19, fitted first when absent, which needs the ``train`` extra).

Two things a sentence alone cannot show, and its debate can: a talking point the speaker repeats, and a
claim the other side takes up ("You said you would cut Medicare"; "That is not true, the deficit…").
Fact-checkers pick disputed and repeated claims. The measure of an echo is the cosine of the line's
sentence embedding (WordLlama's packaged static embedding, which ships with the project and costs
microseconds a line) with another line of the same transcript.

The rule, written down before any figure it produces was read:

1. Input: the out-of-fold log-odds z of every line of the 19 training transcripts (no line scored by an
   encoder that saw it).
2. For line i: ``same`` is the highest cosine between i and another line of the transcript said by the
   same speaker, ``other`` the highest with a line said by anyone else; only lines of at least
   ``MIN_WORDS`` words take part on either side (courtesy repeats itself), and a line with no partner
   takes 0.
3. Candidates: ``alone`` (z, as shipped) and ``echoes``, a logistic regression (C = ``STACK_C``, no class
   weights) over z, ``same`` and ``other``, scored by leave one transcript out over the 19: fitted on 18,
   it ranks the 19th.
4. ``echoes`` replaces ``alone`` only with ``MIN_GAIN`` more MAP *and* a higher average precision on more
   than half of the 19 transcripts (``checkworthy_context.wins``). Recall at 15 % of lines is reported for
   both, and is not a criterion.
5. Were it chosen, the detector would read the echoes only in a transcript read whole; no dev part is left
   to read, so the held-back test would be its measure.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from rich.console import Console

from icarus.evaluation.checkthat import Transcript, average_precision
from icarus_training.checkworthy import FLAGGED_BUDGET, _figures
from icarus_training.checkworthy_context import wins

__all__ = ["MIN_GAIN", "MIN_WORDS", "STACK_C", "echo_features", "loto_echoes", "main"]

SCRIPT_VERSION: Final = "measure-checkworthy-echoes@1"
MIN_WORDS: Final = 5
STACK_C: Final = 1.0
MIN_GAIN: Final = 0.01
_RECORD: Final = Path("docs/evaluation/checkworthiness-echoes")

Ranking = tuple[list[float], list[bool]]
Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]


def echo_features(texts: Sequence[str], speakers: Sequence[str], embed: Embed) -> npt.NDArray[np.float64]:
    """Rule 2: (same, other) for every line, the highest cosine with a same-speaker and another-speaker
    line of at least ``MIN_WORDS`` words; 0 where there is none."""
    if len(texts) != len(speakers):
        raise ValueError(f"{len(texts)} lines for {len(speakers)} speakers")
    out = np.zeros((len(texts), 2), dtype=np.float64)
    long_enough = np.array([len(text.split()) >= MIN_WORDS for text in texts], dtype=bool)
    if long_enough.sum() < 2:
        return out
    vectors = embed(list(texts)).astype(np.float64)
    norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    unit = vectors / norms
    cosine = unit @ unit.T
    same_speaker = np.equal.outer(np.asarray(speakers, dtype=object), np.asarray(speakers, dtype=object))
    partner = np.logical_and.outer(long_enough, long_enough)
    np.fill_diagonal(partner, False)
    for column, mask in ((0, same_speaker), (1, ~same_speaker)):
        allowed = partner & mask
        masked = np.where(allowed, cosine, -np.inf)
        best = masked.max(axis=1)
        out[:, column] = np.where(np.isfinite(best), np.clip(best, 0.0, 1.0), 0.0)
    return out


def loto_echoes(
    oof: dict[str, list[float]], transcripts: Sequence[Transcript], embed: Embed
) -> dict[str, Ranking]:
    """Rule 3: each transcript ranked by the stacker fitted on the others."""
    from sklearn.linear_model import LogisticRegression

    data = {}
    for t in transcripts:
        echoes = echo_features([line.text for line in t.lines], [line.speaker for line in t.lines], embed)
        x = np.column_stack([np.asarray(oof[t.name], dtype=np.float64), echoes])
        data[t.name] = (x, np.asarray([line.check_worthy for line in t.lines], dtype=np.int64))
    out: dict[str, Ranking] = {}
    for held in transcripts:
        others = [name for name in data if name != held.name]
        model = LogisticRegression(C=STACK_C, solver="lbfgs", max_iter=2000).fit(
            np.vstack([data[n][0] for n in others]), np.concatenate([data[n][1] for n in others])
        )
        scores = model.decision_function(data[held.name][0])
        out[held.name] = ([float(v) for v in scores], [bool(v) for v in data[held.name][1]])
    return out


def _bar(rankings: dict[str, Ranking]) -> float:
    pooled = np.concatenate([np.asarray(scores) for scores, _ in rankings.values()])
    return float(np.quantile(pooled, 1 - FLAGGED_BUDGET))


def run(datasets: Path, cache: Path, console: Console, embed: Embed | None = None) -> dict[str, Any]:
    """Rules 1–4: both candidates' figures and the choice."""
    from icarus_training.checkworthy_budget import _cached_scores
    from icarus_training.checkworthy_embeddings import wordllama_embed

    transcripts, oof, _, _ = _cached_scores(datasets, cache, console)
    alone = {t.name: (list(oof[t.name]), [line.check_worthy for line in t.lines]) for t in transcripts}
    rankings = {"alone": alone, "echoes": loto_echoes(oof, transcripts, embed or wordllama_embed)}
    order = [t.name for t in transcripts]
    figures = {}
    for name, by_name in rankings.items():
        figures[name] = _figures([by_name[n] for n in order], _bar(by_name)) | {
            "average_precision": {n: round(average_precision(*by_name[n]), 4) for n in order}
        }
        console.print(f"{name}: MAP {figures[name]['map']}, recall at 15 % {figures[name]['recall']}")
    gains = [average_precision(*rankings["echoes"][n]) - average_precision(*alone[n]) for n in order]
    return {
        "script": SCRIPT_VERSION,
        "candidates": figures,
        "transcripts_better": sum(g > 0 for g in gains),
        "chosen": "echoes" if wins(gains, MIN_GAIN) else "alone",
    }


def render(record: dict[str, Any]) -> str:
    """The record as a Markdown page (docs/evaluation/checkworthiness-echoes.md)."""
    lines = [
        "# Check-worthiness: echoes of a line elsewhere in its debate, measured",
        "",
        f"Written by `{SCRIPT_VERSION}` (`make train-checkworthy-echoes`); the rule is the module's "
        "docstring, written before any figure below was read. Leave one transcript out over the 19, on the "
        "out-of-fold scores of `checkworthy_all`'s three folds.",
        "",
        "| ranking | MAP | recall at 15 % of lines |",
        "|---|---|---|",
    ]
    for name, f in record["candidates"].items():
        lines.append(f"| {name} | {f['map']:.3f} | {f['recall']:.3f} |")
    lines += [
        "",
        f"Transcripts ranked better by `echoes`: {record['transcripts_better']} of "
        f"{len(record['candidates']['alone']['average_precision'])}. Chosen: `{record['chosen']}`.",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.checkworthy_echoes", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--cache", type=Path, required=True, help="out-of-fold scores over the 19, kept")
    args = parser.parse_args(argv)
    console = Console()
    record = run(args.data, args.cache, console)
    _RECORD.parent.mkdir(parents=True, exist_ok=True)
    _RECORD.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    _RECORD.with_suffix(".md").write_text(render(record), encoding="utf-8")
    console.print_json(json.dumps({k: v for k, v in record.items() if k != "candidates"}))
    return record


if __name__ == "__main__":
    main()
