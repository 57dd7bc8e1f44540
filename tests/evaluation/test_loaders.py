"""Each loader on a small file in its dataset's real format: label mapping, evidence, selection, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from icarus.evaluation import averitec, climate_fever, fnc1, healthver, scifact, wice
from icarus.evaluation.cases import DatasetError, select
from icarus.ledger import Stance
from icarus.scoring.labels import Label


def _evidence(article: str, label: str, text: str) -> dict[str, object]:
    return {"evidence_id": f"{article}:1", "evidence_label": label, "article": article, "evidence": text}


def climate_row(claim_id: str, label: str) -> dict[str, object]:
    return {
        "claim_id": claim_id,
        "claim": f"claim {claim_id}",
        "claim_label": label,
        "evidences": [
            _evidence("Global warming", "SUPPORTS", "Temperatures rose."),
            _evidence("Global warming", "NOT_ENOUGH_INFO", "It is a topic."),
            _evidence("Sea level rise", "REFUTES", "Seas fell."),
        ],
    }


def write_lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_climate_fever_maps_labels_and_files_each_sentence_on_its_article_page(tmp_path: Path) -> None:
    labels = ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED"]
    write_lines(tmp_path / climate_fever.FILE, [climate_row(str(i), lab) for i, lab in enumerate(labels)])
    loaded = climate_fever.load(tmp_path)
    assert [c.gold for c in loaded.cases] == [
        Label.SUPPORTED,
        Label.NOT_SUPPORTED,
        Label.UNVERIFIABLE,
        Label.MISLEADING,
    ]
    passages = loaded.cases[0].passages
    assert [p.url for p in passages] == [
        "https://en.wikipedia.org/wiki/Global_warming",
        "https://en.wikipedia.org/wiki/Global_warming",
        "https://en.wikipedia.org/wiki/Sea_level_rise",
    ]
    assert [p.gold_stance for p in passages] == [Stance.SUPPORT, Stance.NEUTRAL, Stance.REFUTE]
    assert len({p.key for p in passages}) == 3
    assert (loaded.available, loaded.selection) == (4, "all")


def test_climate_fever_unknown_label_is_a_clear_error(tmp_path: Path) -> None:
    write_lines(tmp_path / "cf.jsonl", [climate_row("1", "MAYBE")])
    with pytest.raises(DatasetError, match=r"cf.jsonl:1: unknown claim_label 'MAYBE'"):
        climate_fever.load(tmp_path / "cf.jsonl")


def test_missing_dataset_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        climate_fever.load(tmp_path / "absent")
    with pytest.raises(DatasetError, match=r"holds none of: climate-fever\.jsonl"):
        climate_fever.load(tmp_path)


def test_averitec_answers_become_evidence_under_their_original_address(tmp_path: Path) -> None:
    claim = {
        "claim": "A said B.",
        "label": "Conflicting Evidence/Cherrypicking",
        "questions": [
            {
                "question": "Did A say B?",
                "answers": [
                    {
                        "answer": "No",
                        "answer_type": "Boolean",
                        "boolean_explanation": "The transcript shows otherwise.",
                        "source_url": "https://web.archive.org/web/2020/https://www.example.org/t",
                    },
                    {"answer": "From the claim", "source_url": "Metadata"},
                    {"answer": "No answer could be found.", "source_url": ""},
                ],
            },
            {
                "question": "Where?",
                "answers": [{"answer": "Here", "source_url": "http://news.example.com/a"}],
            },
        ],
    }
    (tmp_path / averitec.FILE).write_text(json.dumps([claim]), encoding="utf-8")
    case = averitec.load(tmp_path).cases[0]
    assert case.gold is Label.MISLEADING
    first, second = case.passages
    assert first.url == "https://www.example.org/t"
    assert first.archive_url == "https://web.archive.org/web/2020/https://www.example.org/t"
    assert first.publisher == "example.org"
    assert first.text == "Did A say B? No The transcript shows otherwise."
    assert first.text[first.quote_start :] == "No The transcript shows otherwise."
    assert (second.url, second.archive_url, second.text) == ("http://news.example.com/a", None, "Where? Here")
    assert second.text[second.quote_start :] == "Here"


def test_averitec_answer_without_a_question_is_quoted_whole() -> None:
    assert averitec.answer_text("  ", {"answer": "Here"}) == ("Here", 0)


def test_averitec_wayback_address_without_a_scheme_gets_one() -> None:
    assert averitec.original_url("https://web.archive.org/web/2019id_/example.com/x") == (
        "http://example.com/x",
        "https://web.archive.org/web/2019id_/example.com/x",
    )


@pytest.mark.parametrize(
    ("written", "address"),
    [
        ("https://example.com/a", "https://example.com/a"),
        ("  HTTP://Example.com/a ", "HTTP://Example.com/a"),
        ("nature.com/articles/d41586-020-00254-7", "https://nature.com/articles/d41586-020-00254-7"),
        ("www.abc.net.au", "https://www.abc.net.au"),
        ("Metadata", None),
        ("", None),
        ("see the report", None),
        ("ftp://example.com/file", None),
    ],
)
def test_averitec_source_written_as_a_bare_host_is_an_https_address(
    written: str, address: str | None
) -> None:
    assert averitec.source_address(written) == address


def test_averitec_answer_with_a_bare_host_source_is_kept_as_evidence(tmp_path: Path) -> None:
    answers = [
        {"answer": "Yes.", "source_url": "nature.com/articles/x"},
        {"answer": "No.", "source_url": "Metadata"},
    ]
    claim = _averitec_claim(questions=[{"question": "Q?", "answers": answers}])
    (tmp_path / averitec.FILE).write_text(json.dumps([claim]), encoding="utf-8")
    (passage,) = averitec.load(tmp_path).cases[0].passages
    assert passage.url == "https://nature.com/articles/x"
    assert passage.publisher == "nature.com"


def test_scifact_labels_evidence_and_rationale_pairs(tmp_path: Path) -> None:
    write_lines(
        tmp_path / scifact.CORPUS,
        [{"doc_id": 7, "title": "T", "abstract": ["Zero.", "One supports.", "Two contradicts."]}],
    )
    write_lines(
        tmp_path / "claims_train.jsonl",
        [
            {"id": 1, "claim": "c1", "evidence": {"7": [{"sentences": [1], "label": "SUPPORT"}]}},
            {"id": 2, "claim": "c2", "evidence": {}},
            {
                "id": 3,
                "claim": "c3",
                "evidence": {
                    "7": [{"sentences": [1], "label": "SUPPORT"}, {"sentences": [2], "label": "CONTRADICT"}]
                },
            },
        ],
    )
    loaded = scifact.load(tmp_path)
    assert [c.gold for c in loaded.cases] == [Label.SUPPORTED, Label.UNVERIFIABLE, Label.MISLEADING]
    assert loaded.cases[0].relevant_docs == ("7",)
    assert loaded.corpus == tmp_path / scifact.CORPUS
    assert [(p.evidence, p.gold) for p in loaded.stance_pairs] == [
        ("One supports.", Stance.SUPPORT),
        ("One supports.", Stance.SUPPORT),
        ("Two contradicts.", Stance.REFUTE),
    ]


def test_scifact_rationale_outside_its_abstract_is_an_error(tmp_path: Path) -> None:
    write_lines(tmp_path / scifact.CORPUS, [{"doc_id": 7, "title": "T", "abstract": ["Zero."]}])
    write_lines(
        tmp_path / "claims_dev.jsonl",
        [{"id": 1, "claim": "c", "evidence": {"7": [{"sentences": [4], "label": "SUPPORT"}]}}],
    )
    with pytest.raises(DatasetError, match="sentence 4 is outside document 7"):
        scifact.load(tmp_path)


def test_stance_only_loaders(tmp_path: Path) -> None:
    (tmp_path / "healthver_dev.csv").write_text(
        'id,evidence,claim,label,topic_ip,question\n1,"Masks cut spread.",Masks work,Supports,1,q\n'
        "2,Other text.,Masks work,Neutral,1,q\n",
        encoding="utf-8",
    )
    assert [p.gold for p in healthver.load(tmp_path).stance_pairs] == [Stance.SUPPORT, Stance.NEUTRAL]

    write_lines(
        tmp_path / "claim_dev.jsonl",
        [
            {"label": "supported", "claim": "a", "evidence": ["x", "y"], "meta": {"id": "w1"}},
            {"label": "partially_supported", "claim": "b", "evidence": ["z"], "meta": {"id": "w2"}},
        ],
    )
    pairs = wice.load(tmp_path).stance_pairs
    assert [(p.pair_id, p.evidence, p.gold) for p in pairs] == [
        ("w1", "x\ny", Stance.SUPPORT),
        ("w2", "z", Stance.NEUTRAL),
    ]

    (tmp_path / fnc1.STANCES).write_text(
        "Headline,Body ID,Stance\nH1,5,disagree\nH2,5,unrelated\n", encoding="utf-8"
    )
    (tmp_path / fnc1.BODIES).write_text('Body ID,articleBody\n5,"A long, body."\n', encoding="utf-8")
    pairs = fnc1.load(tmp_path).stance_pairs
    assert [(p.claim, p.evidence, p.gold) for p in pairs] == [
        ("H1", "A long, body.", Stance.REFUTE),
        ("H2", "A long, body.", Stance.NEUTRAL),
    ]


def test_select_takes_the_head_or_a_seeded_sample_in_file_order() -> None:
    rows = list(range(100))
    assert select(rows, None, None) == (rows, "all")
    assert select(rows, 500, 3) == (rows, "all")
    assert select(rows, 3, None) == ([0, 1, 2], "first 3 in file order")
    sample, how = select(rows, 5, 7)
    assert sample == sorted(sample) and len(set(sample)) == 5
    assert select(rows, 5, 7) == (sample, how) and how == "5 drawn at random with seed 7"
    assert select(rows, 5, 8)[0] != sample


# --- rows of the wrong shape: a clear error naming the row, never a traceback ---------------------------------


def _averitec_claim(**changes: object) -> dict[str, object]:
    claim: dict[str, object] = {
        "claim": "A claim.",
        "label": "Supported",
        "questions": [{"question": "Q?", "answers": [{"answer": "A.", "source_url": "https://a.example/x"}]}],
    }
    claim.update(changes)
    return claim


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        (_averitec_claim(questions=["a question as a string"]), r"claim 0: malformed row \(AttributeError"),
        (_averitec_claim(questions=[{"question": "Q?", "answers": ["A."]}]), r"claim 0: malformed row"),
        (_averitec_claim(label=["Supported"]), r"claim 0: malformed row \(TypeError"),
        (
            _averitec_claim(questions=[{"question": "Q?", "answers": [{"source_url": "https://[::1"}]}]),
            r"claim 0: malformed row \(ValueError",
        ),
    ],
)
def test_averitec_rows_of_the_wrong_shape(tmp_path: Path, claim: dict[str, object], message: str) -> None:
    (tmp_path / averitec.FILE).write_text(json.dumps([claim]), encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        averitec.load(tmp_path)


@pytest.mark.parametrize(
    ("evidences", "message"),
    [
        (None, "field 'evidences' should be a list, not NoneType"),
        (5, "field 'evidences' should be a list, not int"),
        ([5], r"malformed row \(TypeError"),
    ],
)
def test_climate_fever_rows_of_the_wrong_shape(tmp_path: Path, evidences: object, message: str) -> None:
    row = {**climate_row("1", "SUPPORTS"), "evidences": evidences}
    write_lines(tmp_path / "cf.jsonl", [row])
    with pytest.raises(DatasetError, match=rf"cf.jsonl:1: {message}"):
        climate_fever.load(tmp_path / "cf.jsonl")


def test_errors_name_the_file_line_not_the_row_count(tmp_path: Path) -> None:
    path = tmp_path / "cf.jsonl"
    path.write_text("\n\n" + json.dumps(climate_row("1", "MAYBE")) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"cf.jsonl:3: unknown claim_label"):
        climate_fever.load(path)


def test_wice_evidence_given_as_one_string_is_refused_not_split_into_characters(tmp_path: Path) -> None:
    row = {"label": "supported", "claim": "C.", "evidence": "one sentence", "meta": {"id": "1"}}
    write_lines(tmp_path / "w.jsonl", [row])
    with pytest.raises(DatasetError, match=r"w.jsonl:1: field 'evidence' should be a list, not str"):
        wice.load(tmp_path / "w.jsonl")


@pytest.mark.parametrize("name", ["healthver", "climate-fever"])
def test_a_file_that_is_not_utf8_is_a_clear_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / ("h.csv" if name == "healthver" else "cf.jsonl")
    path.write_bytes(b"id,claim,evidence,label\n1,caf\xe9,x,Supports\n")
    loader = healthver if name == "healthver" else climate_fever
    with pytest.raises(DatasetError, match="not UTF-8 text"):
        loader.load(path)


def test_scifact_rationale_sentences_that_are_not_numbers(tmp_path: Path) -> None:
    write_lines(tmp_path / scifact.CORPUS, [{"doc_id": 7, "title": "T", "abstract": ["Zero.", "One."]}])
    claim = {"id": 1, "claim": "C.", "evidence": {"7": [{"sentences": ["a"], "label": "SUPPORT"}]}}
    write_lines(tmp_path / "claims_dev.jsonl", [claim])
    with pytest.raises(DatasetError, match=r"claim 1: malformed row \(ValueError"):
        scifact.load(tmp_path)
