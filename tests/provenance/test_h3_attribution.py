"""H3: parsed attribution phrases, links and judge edges make an item derivative."""

from __future__ import annotations

import pytest

from icarus.ledger.evidence import Attribution, AttributionOrigin
from icarus.ledger.judgments import JudgeProvenance
from icarus.provenance import EdgeOrigin, build_graph
from icarus.provenance.citations import normalise_name
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, story


def _reuters() -> object:
    return item("rt", publisher="Reuters", domain="reuters.com", text="LONDON (Reuters) - " + story(1))


@pytest.mark.parametrize(
    "sentence",
    [
        "The ministry raised rates, according to Reuters.",
        "An official told Reuters on Monday that rates would rise.",
        "The figure was first reported by Reuters earlier this week.",
        "Rates will rise, as reported by Reuters.",
        "Rates will rise, according to a Reuters report.",
        "Rates will rise, an official told a Reuters reporter.",
        "Additional reporting by Reuters.",
        "Reuters reported on Monday that rates would rise.",
        "The rate rise, Reuters reports, was expected.",
    ],
)
def test_h3_attribution_phrase_joins_the_named_cluster(settings: ProvenanceSettings, sentence: str) -> None:
    rewrite = item("rw", text=story(2) + "\n" + sentence, minutes=30)
    graph = build_graph([_reuters(), rewrite], [], settings)  # type: ignore[list-item]
    assert graph.cluster_of("rw") == "cluster:rt"
    [edge] = graph.citation_edges
    assert (edge.source, edge.target, edge.origin) == ("rw", "rt", EdgeOrigin.ATTRIBUTION)
    assert "Reuters" in edge.detail


def test_h3_said_in_a_statement_names_the_source_before_it(settings: ProvenanceSettings) -> None:
    rewrite = item(
        "rw", text=story(3) + "\nOn Tuesday the Department of Health said in a statement that it agreed."
    )
    graph = build_graph([rewrite], [], settings)
    assert [edge.target for edge in graph.citation_edges] == ["source:department-of-health"]


def test_h3_lower_case_objects_are_not_sources(settings: ProvenanceSettings) -> None:
    rewrite = item("rw", text=story(4) + "\nAccording to the report, he told reporters on Monday nothing.")
    assert build_graph([rewrite], [], settings).citation_edges == ()


def test_h3_own_publisher_is_never_a_target(settings: ProvenanceSettings) -> None:
    own = item(
        "bbc",
        publisher="BBC News",
        domain="bbc.co.uk",
        text=story(5) + "\nThe story was first reported by BBC News.",
    )
    assert build_graph([own], [], settings).citation_edges == ()


def test_h3_judge_edge_makes_an_item_derivative_and_is_recorded_as_judge(
    settings: ProvenanceSettings,
) -> None:
    attribution = Attribution(
        target_name="Reuters",
        phrase="paraphrases the Reuters account",
        origin=AttributionOrigin.JUDGE,
        judge=JudgeProvenance(provider="offline-lexical", version="1", calibration_id="cal@1"),
    )
    rewrite = item("rw", text=story(6), attributions=[attribution])
    independent = item("ind", text=story(7))
    graph = build_graph([_reuters(), rewrite, independent], [], settings)  # type: ignore[list-item]
    [edge] = graph.citation_edges
    assert (edge.source, edge.target, edge.origin, edge.detail) == (
        "rw",
        "rt",
        EdgeOrigin.JUDGE,
        "paraphrases the Reuters account",
    )
    assert graph.cluster_of("rw") == "cluster:rt"
    assert graph.cluster_of("ind") == "cluster:ind"


def test_h3_parsed_ledger_attribution_by_url(settings: ProvenanceSettings) -> None:
    attribution = Attribution(target_url="https://www.reuters.com/news/rt?utm_source=x", phrase="via Reuters")
    rewrite = item("rw", text=story(8), attributions=[attribution])
    reuters = item(
        "rt", publisher="Reuters", domain="reuters.com", url="https://reuters.com/news/rt", text=story(1)
    )
    graph = build_graph([reuters, rewrite], [], settings)
    [edge] = graph.citation_edges
    assert (edge.target, edge.origin) == ("rt", EdgeOrigin.ATTRIBUTION)


def test_h3_link_to_another_ledger_item(settings: ProvenanceSettings) -> None:
    origin = item("orig", url="https://origin.example/a", text=story(9))
    linker = item(
        "lnk",
        text=story(10),
        links=["http://www.origin.example/a/?utm_campaign=z", "https://elsewhere.example/"],
    )
    graph = build_graph([origin, linker], [], settings)
    [edge] = graph.citation_edges
    assert (edge.source, edge.target, edge.origin) == ("lnk", "orig", EdgeOrigin.LINK)
    assert edge.detail == "http://www.origin.example/a/?utm_campaign=z"
    assert graph.cluster_of("lnk") == graph.cluster_of("orig") == "cluster:lnk"  # named by its lowest id


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("The Associated Press", "ap"),
        ("AP News", "ap"),
        ("Reuters", "reuters"),
        ("Thomson Reuters", "reuters"),
        ("Agence France-Presse", "afp"),
        ("The New York Times", "new-york-times"),
        ("Reuters.com", "reuters"),
    ],
)
def test_h3_names_normalise(raw: str, expected: str) -> None:
    assert normalise_name(raw) == expected


def test_h3_named_publisher_with_several_items_resolves_to_the_story_quoted(
    settings: ProvenanceSettings,
) -> None:
    first = item("ap-a", publisher="AP", domain="apnews.com", text=story(40))
    second = item("ap-b", publisher="AP", domain="apnews.com", text=story(41))
    quoted = "\n".join(story(41).splitlines()[:3])
    rewrite = item(
        "rw", text=f"{story(42)}\n{quoted}\nThe count was confirmed, according to The Associated Press."
    )
    unquoting = item(
        "plain", text=f"{story(43)}\nThe count was confirmed, according to The Associated Press."
    )
    graph = build_graph([first, second, rewrite, unquoting], [], settings)
    assert [edge.target for edge in graph.citation_edges if edge.source == "rw"] == ["ap-b"]
    # with no overlap to go on, every AP item stays a possible origin
    assert [edge.target for edge in graph.citation_edges if edge.source == "plain"] == ["ap-a", "ap-b"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Smith reported on Monday that rates would rise.",  # any subject can report: unknown names are not sources
        "According to a new study, rates will rise.",  # no name after the article
    ],
)
def test_h3_readings_that_name_no_known_source(settings: ProvenanceSettings, sentence: str) -> None:
    rewrite = item("rw", text=story(2) + "\n" + sentence, minutes=30)
    graph = build_graph([_reuters(), rewrite], [], settings)  # type: ignore[list-item]
    assert graph.citation_edges == ()


@pytest.mark.parametrize("phrase", ["said in a statement", "reported", "according to a report"])
def test_h3_a_page_long_run_of_capitalised_words_is_read_in_linear_time(
    settings: ProvenanceSettings, phrase: str
) -> None:
    # A name-first pattern over the whole page backtracked through the run: 16,000 words took 35 s.
    hostile = item("rw", text=" ".join(["Word"] * 20_000) + f" {phrase}.")
    graph = build_graph([_reuters(), hostile], [], settings)  # type: ignore[list-item]
    assert graph.cluster_of("rw") == "cluster:rw"


def test_h3_a_name_just_before_the_phrase_is_read_from_a_window(settings: ProvenanceSettings) -> None:
    text = story(9) + "\n" + " ".join(["Word"] * 100) + " then Reuters reported the figure."
    graph = build_graph([_reuters(), item("rw", text=text, minutes=30)], [], settings)  # type: ignore[list-item]
    assert [(e.source, e.target) for e in graph.citation_edges] == [("rw", "rt")]
