"""AVeriTeC's two halves and its open-retrieval mode: the split is fixed by the claim's text, the pooled
corpus holds every answer of the half under its address (never a question), and each claim is checked by
the check's own research, judge and policy over that corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from icarus.capture.text import capture_text
from icarus.cli import app
from icarus.evaluation import averitec
from icarus.evaluation.cases import DatasetError
from icarus.evaluation.gold_judge import gold_label_judge
from icarus.evaluation.ledgers import AS_OF
from icarus.evaluation.runner import run_evaluation
from icarus.fetching import SnapshotStore
from icarus.judges.registry import create_judge
from icarus.pipeline import check as check_module
from icarus.pipeline.check import CheckServices, run_check
from icarus.reputation.manual import default_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy

runner = CliRunner()
LEXICAL = "offline-lexical@1"

GLACIER = "The Halden glacier lost a third of its ice between 1990 and 2020."
BRIDGE = "The Varna bridge was closed for repairs for all of 2019."


def _answer(text: str, url: str) -> dict[str, str]:
    return {"answer": text, "answer_type": "Extractive", "source_url": url}


def _rows() -> list[dict[str, Any]]:
    return [
        {
            "claim": GLACIER,
            "label": "Refuted",
            "questions": [
                {
                    "question": "How much ice did the Halden glacier lose between 1990 and 2020?",
                    "answers": [
                        _answer(
                            "Survey data show the Halden glacier lost about a tenth of its ice from 1990 to 2020.",
                            "https://www.survey.example.org/halden",
                        ),
                        _answer("No answer could be found.", "Metadata"),
                    ],
                },
                {
                    "question": "Who measured the Halden glacier?",
                    "answers": [
                        _answer(
                            "The national survey measured the Halden glacier every year.",
                            "https://web.archive.org/web/2021/https://www.survey.example.org/halden",
                        )
                    ],
                },
            ],
        },
        {
            "claim": BRIDGE,
            "label": "Supported",
            "questions": [
                {
                    "question": "Was the Varna bridge closed in 2019?",
                    "answers": [
                        _answer(
                            "The Varna bridge stayed closed for repairs from January to December 2019.",
                            "https://city.example.net/varna-bridge",
                        )
                    ],
                }
            ],
        },
        {
            "claim": "The Halden glacier is the largest glacier in the region.",
            "label": "Not Enough Evidence",
            "questions": [
                {
                    "question": "Is the Halden glacier the largest?",
                    "answers": [
                        _answer(
                            "The Halden glacier is one of several large glaciers in the region.",
                            "https://atlas.example.com/glaciers",
                        )
                    ],
                }
            ],
        },
    ]


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / averitec.FILE
    path.write_text(json.dumps(_rows()), encoding="utf-8")
    return path


def test_the_half_of_a_claim_is_fixed_by_its_text_alone() -> None:
    assert averitec.half_of(GLACIER) == averitec.half_of(f"  {GLACIER} ")
    # pinned: a change to the hash or the bucket count moves claims between tuning and measuring
    assert [averitec.half_of(f"claim {n}") for n in range(8)] == [
        "tune", "dev", "dev", "dev", "tune", "dev", "dev", "dev"
    ]  # fmt: skip
    assert [averitec.half_of(row["claim"]) for row in _rows()] == ["tune", "dev", "dev"]
    halves = [averitec.half_of(f"claim {n}") for n in range(400)]
    assert set(halves) == {averitec.TUNE, averitec.DEV}
    assert 160 <= halves.count(averitec.TUNE) <= 240  # about half of 400


def test_the_halves_partition_the_claims_in_file_order(dataset: Path) -> None:
    whole = averitec.load(dataset)
    tune = averitec.load(dataset, split="tune")
    dev = averitec.load(dataset, split="dev")
    assert sorted(c.case_id for c in tune.cases + dev.cases) == [c.case_id for c in whole.cases]
    assert {c.case_id for c in tune.cases}.isdisjoint(c.case_id for c in dev.cases)
    for half, loaded in (("tune", tune), ("dev", dev)):
        assert all(averitec.half_of(c.claim) == half for c in loaded.cases)
        assert loaded.name == f"averitec-{half}" and loaded.available == len(loaded.cases)
        assert loaded.selection == f"the {half} half"


def test_unknown_split_or_retrieval_mode_is_a_dataset_error(dataset: Path) -> None:
    with pytest.raises(DatasetError, match="split"):
        averitec.load(dataset, split="train")
    with pytest.raises(DatasetError, match="retrieval"):
        averitec.load(dataset, retrieval="web")


def test_set_names_name_the_mode_and_the_half() -> None:
    assert averitec.set_name() == "averitec"
    assert averitec.set_name("dev") == "averitec-dev"
    assert averitec.set_name("all", "open") == "averitec-open"
    assert averitec.set_name("tune", "open") == "averitec-open-tune"


def test_the_pooled_corpus_holds_every_answer_under_its_address_and_no_question(dataset: Path) -> None:
    evalset = averitec.load(dataset, retrieval="open")
    assert evalset.name == "averitec-open" and evalset.researched
    by_url = {d.url: d for d in evalset.documents}
    # the archived copy is filed under the original address: one page, both answers
    halden = by_url["https://www.survey.example.org/halden"]
    assert halden.text == (
        "Survey data show the Halden glacier lost about a tenth of its ice from 1990 to 2020.\n\n"
        "The national survey measured the Halden glacier every year."
    )
    assert halden.publisher == "example.org"  # the registered domain, as in the gold-evidence mode
    assert len(evalset.documents) == 3  # Metadata is no source
    assert not any("?" in d.text for d in evalset.documents)
    glacier, bridge, atlas = evalset.cases
    assert glacier.passages == () and glacier.relevant_docs == (halden.doc_id,)
    assert bridge.relevant_docs == (by_url["https://city.example.net/varna-bridge"].doc_id,)
    assert atlas.relevant_docs == (by_url["https://atlas.example.com/glaciers"].doc_id,)


def test_a_limited_open_run_still_pools_every_answer_of_the_half(dataset: Path) -> None:
    evalset = averitec.load(dataset, 1, retrieval="open")
    assert len(evalset.cases) == 1 and len(evalset.documents) == 3


def test_open_retrieval_checks_each_claim_over_the_pooled_answers(dataset: Path, tmp_path: Path) -> None:
    evalset = averitec.load(dataset, retrieval="open")
    report = run_evaluation(
        evalset,
        create_judge(LEXICAL),
        LEXICAL,
        load_policy("icarus@1.1"),
        default_registry(),
        workdir=tmp_path,
    )
    summary = report.summary()
    assert summary["dataset"] == "averitec-open" and summary["n"] == 3
    glacier, _bridge, atlas = report.claims
    # the glacier claims share words, so each finds the other's page too, as a web search would
    assert glacier.gold_document_found is True and glacier.evidence == 2 and glacier.own_evidence == 1
    assert atlas.evidence == 2 and atlas.own_evidence == 1
    assert summary["retrieval_recall"] == 1.0
    assert 0 < summary["own_evidence_share"] < 1
    assert summary["claim_seconds_p50"] > 0
    assert summary["stance_n"] == 0 and summary["side_calls"] is None
    assert sum(n for code, n in summary["rules_fired"].items() if code.startswith("rule-")) == 3


def test_open_retrieval_goes_through_the_checks_own_function(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    real = check_module.check_claims

    def spy(subject: Any, claims: Any, services: Any, now: Any, progress: Any = None) -> Any:
        asked.extend(claim.text for claim in claims)
        return real(subject, claims, services, now, progress)

    monkeypatch.setattr("icarus.evaluation.runner.check_claims", spy)
    evalset = averitec.load(dataset, retrieval="open")
    run_evaluation(evalset, create_judge(LEXICAL), LEXICAL, load_policy("icarus@1.1"), default_registry())
    assert asked == [case.claim for case in evalset.cases]


def test_the_check_of_a_chosen_claim_is_the_check_of_a_post_that_makes_it(tmp_path: Path) -> None:
    corpus = LocalCorpus(tmp_path / "corpus.sqlite")
    page = tmp_path / "pages.jsonl"
    page.write_text(
        json.dumps(
            {
                "id": "1",
                "url": "https://city.example.net/varna-bridge",
                "text": "The Varna bridge stayed closed for repairs from January to December 2019.",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    corpus.add([page])
    services = CheckServices(
        judge=create_judge(LEXICAL),
        providers=[LocalCorpusProvider(corpus)],
        registry=default_registry(),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
    )
    subject = capture_text(BRIDGE, AS_OF)
    whole = run_check(subject, services, AS_OF)
    (claim,) = whole.ledger.claims
    chosen = check_module.check_claims(subject, [claim], services, AS_OF)
    corpus.close()
    assert chosen.ledger == whole.ledger and chosen.result == whole.result


def test_the_gold_label_judge_refuses_open_retrieval(dataset: Path) -> None:
    with pytest.raises(DatasetError, match="research"):
        gold_label_judge(averitec.load(dataset, retrieval="open"))


def test_the_cli_writes_the_open_run_beside_the_gold_one(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    for extra in ([], ["--retrieval", "open"]):
        result = runner.invoke(
            app,
            ["eval", "averitec", "--data", str(dataset), "--judge", LEXICAL, "--out", str(out), *extra],
        )
        assert result.exit_code == 0, result.output
    gold = json.loads((out / "averitec.json").read_text())
    opened = json.loads((out / "averitec-open.json").read_text())
    assert gold["retrieval_recall"] is None and opened["retrieval_recall"] == 1.0
    assert "retrieval recall" in (out / "averitec-open.md").read_text()


def test_the_cli_takes_a_half(dataset: Path) -> None:
    result = runner.invoke(
        app, ["eval", "averitec", "--data", str(dataset), "--judge", LEXICAL, "--split", "dev", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["dataset"] == "averitec-dev"
    assert summary["n"] == sum(averitec.half_of(row["claim"]) == "dev" for row in _rows())


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["fnc-1", "--split", "tune"], "only"),
        (["climate-fever", "--retrieval", "open"], "only"),
        (["averitec", "--split", "train"], "unknown AVeriTeC split"),
        (["averitec", "--retrieval", "web"], "unknown retrieval mode"),
    ],
)
def test_the_cli_refuses_a_split_or_mode_it_does_not_have(
    dataset: Path, arguments: list[str], message: str
) -> None:
    name, *rest = arguments
    result = runner.invoke(app, ["eval", name, "--data", str(dataset), "--judge", LEXICAL, *rest])
    assert result.exit_code == 2
    assert message in result.output


def test_a_remembered_search_is_run_once_and_answers_alike(dataset: Path, tmp_path: Path) -> None:
    from icarus.evaluation.runner import PooledChecker

    evalset = averitec.load(dataset, retrieval="open")
    judge = create_judge(LEXICAL)
    policy, registry = load_policy("icarus@1.1"), default_registry()
    results = []
    for remember, folder in ((False, tmp_path / "plain"), (True, tmp_path / "remembered")):
        folder.mkdir()
        with PooledChecker(evalset.documents, folder, remember_searches=remember) as checker:
            corpus_provider = getattr(checker.provider, "provider", checker.provider)
            searched: list[object] = []
            search = corpus_provider.search

            def counted(
                query: Any, limit: int, search: Any = search, searched: list[object] = searched
            ) -> Any:
                searched.append((query, limit))
                return search(query, limit)

            corpus_provider.search = counted  # type: ignore[method-assign]
            services = checker.services(judge, policy, registry)
            results.append([checker.check(case, services).result for case in evalset.cases * 2])
            distinct = len(set(searched))
            assert len(searched) == (distinct if remember else 2 * distinct)
    assert results[0] == results[1]


def test_open_retrieval_queues_review_requests_when_asked(tmp_path: Path) -> None:
    from icarus.reputation.review import pending

    said = "The port of Haldenport moved 4 million containers in 2025."
    answers = [
        {"answer": said, "source_url": "https://www.reuters.com/haldenport"},
        {"answer": f"{said} the port said.", "source_url": "https://unknown-port-news.example/b"},
    ]
    rows = [
        {"claim": said, "label": "Supported", "questions": [{"question": "How many?", "answers": answers}]}
    ]
    path = tmp_path / averitec.FILE
    path.write_text(json.dumps(rows), encoding="utf-8")
    queue = tmp_path / "queue.jsonl"
    evalset = averitec.load(path, retrieval="open")
    run_evaluation(
        evalset,
        create_judge(LEXICAL),
        LEXICAL,
        load_policy("icarus@1.1"),
        default_registry(),
        review_queue=queue,
    )
    assert "unknown-port-news.example" in {item.domain for item in pending(queue)}
