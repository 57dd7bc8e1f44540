"""The research step's excerpt: the sentence of a document that best matches the claim, sliced exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from icarus.evaluation import excerpts
from icarus.research.excerpts import EXCERPT_MAX_CHARS, FIGURE_WEIGHT, best_excerpt


def _excerpt(text: str, claim: str) -> str:
    return best_excerpt(text, claim).slice(text)


def test_a_decimal_point_or_thousands_separator_does_not_end_the_excerpt() -> None:
    text = "Sales rose 2.5% to 41,200 units in 2024. The weather was fine."
    assert _excerpt(text, "Sales rose 2.5% in 2024") == "Sales rose 2.5% to 41,200 units in 2024."


def test_a_shared_figure_outweighs_a_shared_word() -> None:
    assert FIGURE_WEIGHT > 1
    text = "Port traffic statistics are published monthly. The figure was down 12% in October."
    # first sentence: port, traffic (2); second: 12% counted FIGURE_WEIGHT times, october (3)
    assert _excerpt(text, "Port traffic fell 12% in October") == "The figure was down 12% in October."


def test_word_forms_match_by_stem() -> None:
    text = "The committee met on Tuesday. Rates declined for the third month."
    assert _excerpt(text, "Interest rates decline") == "Rates declined for the third month."


def test_ties_go_to_the_first_sentence_and_no_overlap_gives_the_first() -> None:
    text = "Rates fell in May. Rates fell in June."
    assert _excerpt(text, "rates fell") == "Rates fell in May."
    assert _excerpt("Nothing here. Nor here.", "unrelated claim words") == "Nothing here."
    assert best_excerpt("", "anything").start == 0 and best_excerpt("", "anything").end == 0


def test_a_long_sentence_is_cut_to_the_limit_and_stays_an_exact_slice() -> None:
    sentence = "Rates fell " + "and fell " * 200 + "in the end."
    text = f"Intro line. {sentence}"
    span = best_excerpt(text, "rates fell")
    assert span.end - span.start == EXCERPT_MAX_CHARS
    assert text[span.start : span.end] == sentence[:EXCERPT_MAX_CHARS]


def _write_sets(root: Path) -> Path:
    (root / "scifact").mkdir(parents=True)
    (root / "wice").mkdir()
    abstract = ["We enrolled 120 adults.", "Aspirin reduced stroke risk by 20%.", "Bleeding rose."]
    corpus = {"doc_id": 7, "abstract": abstract}
    claim = {"id": 1, "claim": "Aspirin reduces stroke risk by 20%", "evidence": {"7": [{"sentences": [1]}]}}
    unanswered = {"id": 2, "claim": "Bleeding is unchanged", "evidence": {"7": [{"sentences": [0]}]}}
    (root / "scifact/corpus.jsonl").write_text(json.dumps(corpus) + "\n", encoding="utf-8")
    lines = "".join(json.dumps(row) + "\n" for row in (claim, unanswered))
    (root / "scifact/claims_train.jsonl").write_text(lines, encoding="utf-8")
    page = {"claim": "The port handled 41,200 units.", "evidence": ["Home", "It handled 41,200 units."]}
    rows = [
        {**page, "supporting_sentences": [[1]]},
        {**page, "supporting_sentences": []},  # no gold sentence: not a case
    ]
    (root / "wice/claim_dev.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def test_hit_rates_count_excerpts_that_land_on_a_gold_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _write_sets(tmp_path)
    assert excerpts.excerpt_hit_rate(excerpts.scifact_cases(root)) == (0.5, 2)  # "Bleeding rose." is not gold
    assert excerpts.excerpt_hit_rate(excerpts.wice_cases(root)) == (1.0, 1)
    results = excerpts.main(["--data", str(root)])
    assert results["scifact"] == {"pairs": 2, "excerpt_on_gold_sentence": 0.5}
    assert json.loads(capsys.readouterr().out) == results


def test_missing_or_malformed_sets_are_an_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        excerpts.main(["--data", str(tmp_path)])
    assert exit_info.value.code == 2 and "does not exist" in capsys.readouterr().err
    root = _write_sets(tmp_path)
    (root / "wice/claim_dev.jsonl").write_text('{"claim": "x"}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        excerpts.main(["--data", str(root)])
    assert exit_info.value.code == 2 and "wice: a record is not laid out" in capsys.readouterr().err
