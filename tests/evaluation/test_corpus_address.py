"""SciFact's abstracts carry no address; the evaluation files each under one corpus address so that a record
for the corpus as a whole (examples/reputation/scifact-corpus.json) can put them on file."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from icarus.evaluation import scifact
from icarus.evaluation.cases import DatasetError
from icarus.evaluation.runner import run_evaluation
from icarus.judges.registry import create_judge
from icarus.reputation.manual import default_registry
from icarus.reputation.registry import domain_of
from icarus.scoring.icarus.config import load_policy

ROOT = Path(__file__).parents[2]
CORPUS_RECORD = ROOT / "examples" / "reputation" / "scifact-corpus.json"
CLAIM = "The Halden glacier lost a third of its ice between 1990 and 2020."


def _write_lines(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


@pytest.fixture
def tiny_scifact(tmp_path: Path) -> Path:
    sentence = "The Halden glacier lost a third of its ice between 1990 and 2020, survey {n} found."
    _write_lines(
        tmp_path / scifact.CORPUS,
        [{"doc_id": n, "title": f"Glacier survey {n}", "abstract": [sentence.format(n=n)]} for n in (11, 12)],
    )
    _write_lines(
        tmp_path / "claims_train.jsonl",
        [{"id": 1, "claim": CLAIM, "evidence": {"11": [{"sentences": [0], "label": "SUPPORT"}]}}],
    )
    return tmp_path


def test_scifact_names_a_reserved_corpus_address_with_the_document_id(tiny_scifact: Path) -> None:
    loaded = scifact.load(tiny_scifact)
    address = loaded.corpus_address.format(id=11)
    assert address == "https://scifact-corpus.invalid/abstract/11"
    assert domain_of(address) == "scifact-corpus.invalid"  # the domain the corpus record is filed under


def test_the_corpus_record_is_a_scholarly_dataset_record_for_that_address() -> None:
    (entry,) = json.loads(CORPUS_RECORD.read_text(encoding="utf-8"))
    assert entry["record"]["domain"] == domain_of(scifact.CORPUS_ADDRESS.format(id=1))
    assert entry["record"]["method"] == "dataset"  # a statement about the corpus, not a review of a journal
    assert entry["source_class"] == entry["record"]["tier"] == "scholarly"


def test_abstracts_are_on_file_only_with_the_corpus_record(tiny_scifact: Path) -> None:
    loaded = scifact.load(tiny_scifact)
    loaded.stance_pairs = []
    judge = create_judge("offline-lexical@1")
    policy = load_policy()
    (without,) = run_evaluation(loaded, judge, "offline-lexical@1", policy, default_registry()).claims
    (with_record,) = run_evaluation(
        loaded, judge, "offline-lexical@1", policy, default_registry(CORPUS_RECORD)
    ).claims
    assert "not_on_file" in without.blockers
    assert "not_on_file" not in with_record.blockers
    assert with_record.gold_document_found is True  # retrieval still matches abstracts by their id


def test_a_corpus_without_an_address_is_indexed_as_it_is(tiny_scifact: Path) -> None:
    loaded = scifact.load(tiny_scifact)
    loaded.stance_pairs = []
    loaded.corpus_address = ""
    judge = create_judge("offline-lexical@1")
    (claim,) = run_evaluation(
        loaded, judge, "offline-lexical@1", load_policy(), default_registry(CORPUS_RECORD)
    ).claims
    assert "not_on_file" in claim.blockers  # file:// addresses: the corpus record cannot apply


def test_an_eval_report_names_the_reputation_files_layered_on_the_shipped_records(
    tiny_scifact: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from icarus.cli import app

    out = tmp_path / "out"
    base = ["eval", "scifact", "--data", str(tiny_scifact), "--judge", "offline-lexical@1", "--json"]
    invoked = CliRunner().invoke(app, [*base, "--reputation", str(CORPUS_RECORD), "--out", str(out)])
    assert invoked.exit_code == 0, invoked.output
    assert json.loads(invoked.stdout)["reputation_files"] == ["scifact-corpus.json"]
    text = (out / "scifact.md").read_text(encoding="utf-8")
    assert (
        "Reputation: the shipped records (manual and default registry), then `scifact-corpus.json`." in text
    )
    plain = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "plain")])
    assert json.loads(plain.stdout)["reputation_files"] == []
    assert "Reputation: the shipped records (manual and default registry)." in (
        tmp_path / "plain" / "scifact.md"
    ).read_text(encoding="utf-8")


def test_scifact_halves_are_disjoint_fixed_by_the_claim_and_cover_the_set(tmp_path: Path) -> None:
    from icarus.evaluation.cases import half_of

    claims = [f"Protein {n} lowers blood pressure in mice." for n in range(40)]
    _write_lines(tmp_path / scifact.CORPUS, [{"doc_id": 1, "title": "T", "abstract": ["Zero."]}])
    _write_lines(
        tmp_path / "claims_train.jsonl",
        [{"id": n, "claim": claim, "evidence": {}} for n, claim in enumerate(claims)],
    )
    tune, dev = (scifact.load(tmp_path, split=half) for half in ("tune", "dev"))
    tune_claims, dev_claims = {c.claim for c in tune.cases}, {c.claim for c in dev.cases}
    assert tune_claims and dev_claims and not tune_claims & dev_claims
    assert tune_claims | dev_claims == set(claims)
    assert all(half_of("scifact", claim) == "tune" for claim in tune_claims)
    assert (tune.name, dev.selection) == ("scifact-tune", "the dev half")
    assert scifact.load(tmp_path).name == "scifact"
    with pytest.raises(DatasetError, match="unknown split"):
        scifact.load(tmp_path, split="train")


def test_climate_fever_takes_a_half_from_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from icarus.cli import app
    from icarus.evaluation import climate_fever
    from icarus.evaluation.cases import half_of

    rows = [
        {
            "claim_id": str(n),
            "claim": f"Sea level rose {n} mm last year.",
            "claim_label": "SUPPORTS",
            "evidences": [
                {
                    "evidence_id": f"e{n}",
                    "evidence_label": "SUPPORTS",
                    "article": "Sea level",
                    "evidence": f"Sea level rose {n} mm last year.",
                }
            ],
        }
        for n in range(12)
    ]
    _write_lines(tmp_path / climate_fever.FILE, rows)
    args = ["eval", "climate-fever", "--data", str(tmp_path), "--judge", "offline-lexical@1", "--json"]
    invoked = CliRunner().invoke(app, [*args, "--split", "dev"])
    assert invoked.exit_code == 0, invoked.output
    summary = json.loads(invoked.stdout)
    assert summary["dataset"] == "climate-fever-dev"
    assert summary["claims"] == sum(half_of("climate-fever", str(row["claim"])) == "dev" for row in rows)
