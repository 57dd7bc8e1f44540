"""Tiny stance-set files in the public datasets' own formats, written into a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

CLIMATE_CLAIMS = [
    ("1", "Global sea level rose about 20 cm in the twentieth century.", [
        ("Global mean sea level rose by about 20 cm during the twentieth century.", "SUPPORTS"),
        ("Sea level did not rise in the twentieth century, the report claimed falsely.", "REFUTES"),
        ("The ocean covers most of the planet's surface.", "NOT_ENOUGH_INFO"),
    ]),
    ("2", "Arctic sea ice extent has declined since 1979.", [
        ("Satellite records show Arctic sea ice extent has declined since 1979.", "SUPPORTS"),
        ("Arctic sea ice extent has increased since 1979.", "REFUTES"),
        ("Polar bears live in the Arctic.", "NOT_ENOUGH_INFO"),
    ]),
]  # fmt: skip


def write_climate_fever(root: Path) -> Path:
    folder = root / "climate-fever"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for claim_id, claim, evidences in CLIMATE_CLAIMS:
        lines.append(
            json.dumps(
                {
                    "claim_id": claim_id,
                    "claim": claim,
                    "claim_label": "SUPPORTS",
                    "evidences": [
                        {"evidence_id": f"A:{i}", "evidence_label": label, "article": "A", "evidence": text}
                        for i, (text, label) in enumerate(evidences)
                    ],
                }
            )
        )
    (folder / "climate-fever.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def write_covidfact(root: Path) -> Path:
    folder = root / "covidfact"
    folder.mkdir(parents=True, exist_ok=True)
    evidence = ["The trial enrolled 120 patients in Italy in 2020 and found no deaths."]
    rows = [
        {"claim": "A trial of 120 patients found no deaths", "label": "SUPPORTED", "evidence": evidence,
         "gold_source": "https://example.org/a", "flair": "Paper"},
        {"claim": "A trial of 450 patients found no deaths", "label": "REFUTED", "evidence": evidence,
         "gold_source": "https://example.org/a", "flair": "Paper"},
    ]  # fmt: skip
    (folder / "COVIDFACT_dataset.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return root


def write_scifact(root: Path) -> Path:
    folder = root / "scifact"
    folder.mkdir(parents=True, exist_ok=True)
    corpus = {
        "doc_id": 11,
        "title": "T",
        "abstract": [
            "We studied aspirin in adults.",
            "Aspirin reduced the risk of stroke in adults.",
            "Adults taking aspirin had more bleeding.",
            "The weather was fine.",
        ],
    }
    claims = [
        {"id": 5, "claim": "Aspirin reduces stroke risk in adults.",
         "evidence": {"11": [{"sentences": [1], "label": "SUPPORT"}]}, "cited_doc_ids": [11]},
    ]  # fmt: skip
    (folder / "corpus.jsonl").write_text(json.dumps(corpus) + "\n")
    (folder / "claims_train.jsonl").write_text("\n".join(json.dumps(c) for c in claims) + "\n")
    return root
