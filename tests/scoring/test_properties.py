"""Properties that must hold for every ledger, checked on generated ones (hypothesis)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from decimal import Decimal as D
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icarus.ledger import EvidenceItem, Ledger, SourceClass, Stance, ValidityFlags
from icarus.scoring.canonical import canonical_json
from icarus.scoring.labels import Label, most_adverse
from tests.builders import AS_OF, claim, item, ledger, record, subject, unique_text
from tests.scoring.scoring_support import final_pass, score

STORIES = [unique_text(f"story-{n}", 90) for n in range(3)]
CLASSES = [
    SourceClass.NEWS,
    SourceClass.NEWS,
    SourceClass.WIRE,
    SourceClass.PRIMARY_OFFICIAL,
    SourceClass.BLOG,
    SourceClass.AGGREGATOR,
]
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def evidence_items(
    draw: st.DrawFn, claim_ids: tuple[str, ...] = ("c1",), min_size: int = 0
) -> list[EvidenceItem]:
    count = draw(st.integers(min_value=min_size, max_value=7))
    items: list[EvidenceItem] = []
    for index in range(count):
        eid = f"e{index}"
        story = draw(st.sampled_from([None, 0, 1, 2]))
        text = unique_text(eid) if story is None else STORIES[story]
        links = [
            items[j].url for j in draw(st.lists(st.integers(0, max(index - 1, 0)), max_size=1)) if j < index
        ]
        items.append(
            item(
                eid,
                claim_id=draw(st.sampled_from(claim_ids)),
                stance=draw(st.sampled_from(["support", "support", "refute", "neutral"])),
                confidence=draw(st.sampled_from(["0.45", "0.50", "0.70", "0.90", "1.00"])),
                score=draw(st.sampled_from(["0.30", "0.60", "0.85", "0.95", "1.00"])),
                source_class=draw(st.sampled_from(CLASSES)),
                text=text,
                links=links,
                published_at=AS_OF - timedelta(hours=draw(st.integers(1, 200))),
                flags=ValidityFlags(retracted=draw(st.booleans()) and draw(st.booleans())),
            )
        )
    return items


def totals_of(result: dict) -> tuple[D, D, int, int]:
    t = final_pass(result)["totals"]
    return D(t["S"]), D(t["Rf"]), t["icc_support"], t["icc_refute"]


@FAST
@given(evidence_items())
def test_gates_only_weaken(evidence: list[EvidenceItem]) -> None:
    result = score(ledger(evidence))
    trace = result["trace"]["claims"][0]
    published = Label(result["claims"][0]["label"])
    labels = {p["pass"]: Label(p["decision"]["label"]) for p in trace["passes"]}
    if published.decided:
        # A gate never creates a label: a decided label is the one the rules gave on the final pass (after
        # retractions, G4's ruling of 2026-12-01), G3 left it as the raw pass had it, and a retraction never
        # carries a supported or not-supported label into another decided one.
        assert published == labels[trace["passes"][-1]["pass"]]
        before = labels.get("anchored", labels["raw"])
        assert before == labels["raw"]
        if before in (Label.SUPPORTED, Label.NOT_SUPPORTED):
            assert published == before


@FAST
@given(evidence_items(min_size=1), st.data())
def test_a_verbatim_copy_never_raises_support_refutation_or_icc(
    evidence: list[EvidenceItem], data: st.DataObject
) -> None:
    original = data.draw(st.sampled_from(evidence))
    domain = "copy-site.example"
    copy = original.model_copy(
        update={
            "evidence_id": "zz-copy",
            "url": f"https://{domain}/republished/{original.evidence_id}",
            "domain": domain,
            "publisher": "Copy Site",
            "reputation": record(
                domain, str(original.reputation.score), original.reputation.tier, original.reputation.method
            ),
            "published_at": (original.published_at or AS_OF)
            + timedelta(minutes=data.draw(st.integers(0, 600))),
        }
    )
    before = totals_of(score(ledger(evidence)))
    after = totals_of(score(ledger([*evidence, copy])))
    assert all(a <= b for a, b in zip(after, before, strict=True)), (before, after)


@FAST
@given(evidence_items())
def test_no_usable_evidence_is_never_not_supported(evidence: list[EvidenceItem]) -> None:
    unusable = [
        e.model_copy(update={"source_class": SourceClass.AGGREGATOR})
        if i % 2
        else e.model_copy(
            update={
                "judgments": [
                    j.model_copy(update={"stance": j.stance.model_copy(update={"stance": Stance.NEUTRAL})})
                    for j in e.judgments
                ]
            }
        )
        for i, e in enumerate(evidence)
    ]
    result = score(ledger(unusable))
    assert result["claims"][0]["label"] == "unverifiable"
    assert result["overall"]["label"] == "unverifiable"


@FAST
@given(evidence_items(claim_ids=("one", "two", "three")))
def test_overall_is_always_the_most_adverse_decided_claim(evidence: list[EvidenceItem]) -> None:
    text = "First claim here. Second claim here. Third claim here."
    claims = [
        claim("one", "First claim here.", text),
        claim("two", "Second claim here.", text),
        claim("three", "Third claim here.", text),
    ]
    result = score(ledger(evidence, claims=claims, subject=subject(text)))
    labels = [Label(c["label"]) for c in result["claims"]]
    assert Label(result["overall"]["label"]) == most_adverse(labels)


@FAST
@given(evidence_items())
def test_same_input_gives_a_byte_identical_trace(evidence: list[EvidenceItem]) -> None:
    led = ledger(evidence)
    first, second = score(led), score(Ledger.model_validate_json(led.model_dump_json()))
    assert canonical_json(first["trace"]) == canonical_json(second["trace"])
    assert first["trace_hash"] == second["trace_hash"]


def test_trace_is_identical_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    evidence = [item("a", text=STORIES[0]), item("b", text=STORIES[0]), item("c"), item("d", stance="refute")]
    path = tmp_path / "ledger.json"
    path.write_text(ledger(evidence).model_dump_json())
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-m", "icarus.cli", "score", str(path), "--json"],
            env=env,
            capture_output=True,
            check=True,
            text=True,
        )
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["trace_hash"].startswith("sha256:")
