"""How often the research step's excerpt (``research.excerpts.best_excerpt``) lands on a gold evidence sentence.

Two public sets say which sentences of a cited document are the evidence: SciFact (the rationale sentences
of each cited abstract, train claims) and WiCE (the supporting sentences of each cited web page, dev claims).
For every (claim, cited document) pair with gold sentences, the document's sentences are joined as a page
would be (SciFact with spaces, WiCE one sentence a line), the excerpt is chosen, and it is a hit when most of
it lies in a gold sentence. ``python -m icarus.evaluation.excerpts --data ../shared/datasets`` prints the rates.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from icarus.evaluation._files import json_lines, locate
from icarus.evaluation.cases import DatasetError
from icarus.research.excerpts import best_excerpt

__all__ = ["ExcerptCase", "excerpt_hit_rate", "main", "scifact_cases", "wice_cases"]


@dataclass(frozen=True)
class ExcerptCase:
    """One claim, the sentences of one document it cites, the indices of the gold ones, how they are joined."""

    claim: str
    sentences: tuple[str, ...]
    gold: frozenset[int]
    joiner: str


def scifact_cases(root: Path) -> Iterator[ExcerptCase]:
    claims = locate(root / "scifact", "claims_train.jsonl")
    corpus = locate(root / "scifact", "corpus.jsonl")
    abstracts = {
        str(row["doc_id"]): [str(s).strip() for s in row["abstract"]] for _, row in json_lines(corpus)
    }
    for _, row in json_lines(claims):
        for doc_id, sets in sorted((row.get("evidence") or {}).items()):
            if doc_id not in abstracts:
                raise DatasetError(f"{claims}: claim {row.get('id')} cites {doc_id}, not in {corpus}")
            gold = frozenset(int(i) for rationale in sets for i in rationale["sentences"])
            yield ExcerptCase(str(row["claim"]), tuple(abstracts[doc_id]), gold, " ")


def wice_cases(root: Path) -> Iterator[ExcerptCase]:
    for _, row in json_lines(locate(root / "wice", "claim_dev.jsonl")):
        gold = frozenset(int(i) for group in row["supporting_sentences"] for i in group)
        if gold:
            sentences = tuple(str(s).strip() for s in row["evidence"])
            yield ExcerptCase(str(row["claim"]), sentences, gold, "\n")


def _is_hit(case: ExcerptCase) -> bool:
    text = case.joiner.join(case.sentences)
    span = best_excerpt(text, case.claim)
    half = (span.end - span.start) / 2
    position = 0
    for index, sentence in enumerate(case.sentences):
        start, end = position, position + len(sentence)
        position = end + len(case.joiner)
        if index in case.gold and min(end, span.end) - max(start, span.start) > half:
            return True
    return False


def excerpt_hit_rate(cases: Iterator[ExcerptCase]) -> tuple[float, int]:
    """The share of ``cases`` whose chosen excerpt lies mostly in a gold sentence, and how many cases."""
    hits = total = 0
    for case in cases:
        hits += _is_hit(case)
        total += 1
    return (hits / total if total else 0.0), total


def main(argv: Sequence[str] | None = None) -> dict[str, dict[str, float | int]]:
    parser = argparse.ArgumentParser(prog="python -m icarus.evaluation.excerpts", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    args = parser.parse_args(argv)
    results: dict[str, dict[str, float | int]] = {}
    for name, cases in (("scifact", scifact_cases), ("wice", wice_cases)):
        try:
            rate, total = excerpt_hit_rate(cases(args.data))
        except DatasetError as exc:
            parser.exit(2, f"error: {exc}\n")
        except (KeyError, TypeError, ValueError) as exc:
            parser.exit(2, f"error: {name}: a record is not laid out as expected ({exc!r})\n")
        results[name] = {"pairs": total, "excerpt_on_gold_sentence": round(rate, 3)}
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
