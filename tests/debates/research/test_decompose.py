"""How decompose splits a claim: by rules offline, by the configured LLM when there is one (its answer
checked, the rules standing in when it is rejected)."""

from __future__ import annotations

import json
from pathlib import Path

from icarus.debates.model import ResearchMode, Verdict
from icarus.debates.research import ClaimToResearch, LlmConfig, run_method
from icarus.debates.research.decompose import MAX_PARTS, decompose, split_claim
from icarus.text import words as tx
from tests.debates.research.corpora import NOW, sample_services
from tests.judges.conftest import FakeServer, fake_llm

__all__ = ["fake_llm"]  # the shared fake OpenAI-compatible server, used as a fixture here

WRONG_FIGURE = "Container traffic at Halden harbor fell 20% in October"


def questions(text: str) -> list[tuple[str, str]]:
    return [(part.question, part.kind) for part in split_claim(text)]


def test_a_figure_is_split_from_the_fact_it_qualifies() -> None:
    assert questions(WRONG_FIGURE) == [
        (WRONG_FIGURE, "figure"),
        ("Container traffic at Halden harbor fell in October", "fact"),
    ]


def test_clauses_joined_by_and_or_while_are_separate_parts() -> None:
    found = questions("Unemployment fell to 5% last year, while inflation rose to 3%")
    assert found == [
        ("Unemployment fell to 5% last year", "figure"),
        ("Unemployment fell last year", "fact"),
        ("inflation rose to 3%", "figure"),
    ]
    assert [q for q, _ in questions("The mayor opened the bridge; the council paid for it")] == [
        "The mayor opened the bridge",
        "the council paid for it",
    ]


def test_a_claim_with_nothing_to_split_is_one_part_and_parts_are_capped() -> None:
    assert questions("The mayor opened the new bridge") == [("The mayor opened the new bridge", "clause")]
    many = "; ".join(f"District {n} opened a new school in spring" for n in range(1, 8))
    assert len(split_claim(many)) == MAX_PARTS


def test_the_llm_split_is_used_when_configured(tmp_path: Path, fake_llm: FakeServer) -> None:
    split = {"parts": ["Container traffic at Halden harbor fell in October", WRONG_FIGURE]}
    fake_llm.answer = lambda _request: split
    services = sample_services(tmp_path)
    services.llm = LlmConfig(fake_llm.base_url, "tiny", timeout_s=5)
    parts, trace = decompose(ClaimToResearch(WRONG_FIGURE, NOW), services)
    assert [p.kind for p in parts] == ["llm", "llm"]
    assert parts[1].question == WRONG_FIGURE
    assert trace["split"] == "llm"
    sent = fake_llm.requests[0].json
    assert WRONG_FIGURE in json.dumps(sent["messages"])
    panel = run_method(ResearchMode.DECOMPOSE, ClaimToResearch(WRONG_FIGURE, NOW), services)
    assert panel.trace["split"] == "llm"
    assert [sub.question for sub in panel.sub_questions] == split["parts"]
    assert panel.verdict is Verdict.PARTIALLY_TRUE


def test_a_rejected_llm_split_falls_back_to_the_rules(tmp_path: Path, fake_llm: FakeServer) -> None:
    fake_llm.reply_json({"parts": [f"part {n}" for n in range(MAX_PARTS + 1)]})  # too many parts
    services = sample_services(tmp_path)
    services.llm = LlmConfig(fake_llm.base_url, "tiny", timeout_s=5)
    parts, trace = decompose(ClaimToResearch(WRONG_FIGURE, NOW), services)
    assert trace["split"] == "rules"
    assert [p.kind for p in parts] == ["figure", "fact"]
    assert trace["llm_calls"] and trace["llm_calls"][0]["outcome"] != "accepted"


def test_a_part_with_a_figure_the_claim_does_not_state_is_rejected(
    tmp_path: Path, fake_llm: FakeServer
) -> None:
    fake_llm.reply_json({"parts": ["Container traffic at Halden harbor fell 12% in October"]})
    services = sample_services(tmp_path)
    services.llm = LlmConfig(fake_llm.base_url, "tiny", timeout_s=5)
    parts, trace = decompose(ClaimToResearch(WRONG_FIGURE, NOW), services)
    assert trace["split"] == "rules" and [p.kind for p in parts] == ["figure", "fact"]
    assert "12" in trace["llm_calls"][0]["detail"]


def test_an_unreachable_llm_falls_back_to_the_rules(tmp_path: Path) -> None:
    services = sample_services(tmp_path)
    services.llm = LlmConfig("http://127.0.0.1:9/v1", "tiny", timeout_s=2)
    parts, trace = decompose(ClaimToResearch(WRONG_FIGURE, NOW), services)
    assert trace["split"] == "rules" and len(parts) == 2


RICE = "Nigerians eat rice at least 3 times a month"
MILITARY = "The military ruled Nigeria for a cumulative 29 of Nigeria's 60 years"


def test_a_figure_that_is_what_the_clause_counts_is_never_cut_out(tmp_path: Path) -> None:
    # The failing cases: the sub-questions read "…at least times a month" and "for a cumulative of
    # Nigeria's years". A count is the fact itself, so the clause is asked whole.
    assert questions(RICE) == [(RICE, "figure")]
    assert questions(MILITARY) == [(MILITARY, "figure")]
    assert questions("Nigeria has 36 states and 774 local governments") == [
        ("Nigeria has 36 states and 774 local governments", "figure")
    ]
    panel = run_method(ResearchMode.DECOMPOSE, ClaimToResearch(RICE, NOW), sample_services(tmp_path))
    assert [sub.question for sub in panel.sub_questions] == [RICE]


def test_every_figure_of_the_claim_is_in_some_part_and_only_a_change_loses_its_size() -> None:
    for claim in (
        RICE,
        MILITARY,
        WRONG_FIGURE,
        "Prices in Lagos rose by about 4 percent in March",
        "Exports rose 12% to $3.2 billion in 2020, while imports fell 3%",
    ):
        parts = split_claim(claim)
        stated = {q.text for q in tx.stated_figures(claim)}
        assert stated <= {q.text for part in parts for q in tx.stated_figures(part.question)}, claim
        for part in parts:
            if part.kind == "fact":  # a direction: the clause less the size of its change, nothing else
                assert not tx.stated_figures(part.question) and " times " not in part.question
    assert questions("Prices in Lagos rose by about 4 percent in March")[1] == (
        "Prices in Lagos rose in March",
        "fact",
    )


def test_clauses_come_before_directions_when_parts_run_out() -> None:
    claim = (
        "Exports from Halden fell 5% in spring; imports to Halden rose 3% in spring; "
        "wages in Halden fell 2% in spring; rents in Halden rose 4% in spring"
    )
    parts = split_claim(claim)
    assert len(parts) == MAX_PARTS
    assert [p.kind for p in parts] == ["figure"] * MAX_PARTS  # every figure asked; no room for directions


def test_an_llm_split_that_leaves_out_a_figure_is_rejected(tmp_path: Path, fake_llm: FakeServer) -> None:
    fake_llm.reply_json({"parts": ["Nigerians eat rice at least times a month", "Nigerians eat rice"]})
    services = sample_services(tmp_path)
    services.llm = LlmConfig(fake_llm.base_url, "tiny", timeout_s=5)
    parts, trace = decompose(ClaimToResearch(RICE, NOW), services)
    assert trace["split"] == "rules" and [p.question for p in parts] == [RICE]
    assert "no part states the claim's numbers 3" in trace["llm_calls"][0]["detail"]
