"""Monotonicity of the independent count: more copies never mean more independent sources.

Copy groups are connected components (adding an item can only merge them) and a verbatim copy cites
exactly what its original cites, so adding one never raises the number of clusters and never separates
items that shared a cluster. Any new item adds at most one cluster: its own.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from icarus.ledger.evidence import EvidenceItem
from icarus.provenance import ProvenanceGraph, build_graph
from icarus.scoring.icarus.config import load_policy
from tests.provenance.conftest import item, story

SETTINGS = load_policy("icarus@1.1").provenance
PUBLISHERS = ("Reuters", "The Associated Press", "Daily Planet", "Gazette", "Courier")
PHRASES = (
    "according to {}",
    "told {}",
    "first reported by {}",
    "{} said in a statement",
)


@st.composite
def items(draw: st.DrawFn, evidence_id: str, existing: int) -> EvidenceItem:
    """An item with one of a few story texts, some attribution phrases and links to earlier items."""
    text = story(draw(st.integers(0, 3)), draw(st.sampled_from((6, 30, 80))))
    if draw(st.booleans()):
        text = "WASHINGTON (AP) — " + text
    for _ in range(draw(st.integers(0, 2))):
        phrase = draw(st.sampled_from(PHRASES)).format(draw(st.sampled_from(PUBLISHERS)))
        text += f"\nThat was confirmed, {phrase} on the day."
    links = [
        f"https://i{n}.example/news/i{n}"
        for n in draw(st.sets(st.integers(0, max(0, existing - 1)), max_size=2))
    ]
    publisher = draw(st.sampled_from((*PUBLISHERS, f"Outlet {evidence_id}")))
    minutes = draw(st.integers(0, 120))
    return item(evidence_id, publisher=publisher, text=text, links=links if existing else [], minutes=minutes)


@st.composite
def ledgers(draw: st.DrawFn) -> list[EvidenceItem]:
    count = draw(st.integers(1, 7))
    return [draw(items(f"i{n}", n)) for n in range(count)]


def _together(graph: ProvenanceGraph) -> set[tuple[str, str]]:
    pairs = set()
    for members in graph.cluster_members.values():
        pairs.update((a, b) for a in members for b in members if a < b)
    return pairs


RUNS = hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@RUNS
@given(ledger=ledgers(), data=st.data())
def test_adding_a_verbatim_copy_never_increases_clusters(
    ledger: list[EvidenceItem], data: st.DataObject
) -> None:
    before = build_graph(ledger, [], SETTINGS)
    original = data.draw(st.sampled_from(ledger))
    copy_id = data.draw(st.sampled_from(("a-copy", "i3a", "zz-copy")))
    copy = item(copy_id, domain="copy-site.example", publisher="Copy Site", text=original.text, minutes=200)
    after = build_graph([*ledger, copy], [], SETTINGS)
    assert len(after.cluster_members) <= len(before.cluster_members)
    assert after.cluster_of(copy_id) == after.cluster_of(original.evidence_id)
    assert _together(before) <= _together(after)


@RUNS
@given(ledger=ledgers(), data=st.data())
def test_adding_an_unnamed_item_adds_at_most_one_cluster(
    ledger: list[EvidenceItem], data: st.DataObject
) -> None:
    # The newcomer's publisher is one no other item names. A newcomer that IS named ("according to the
    # AP", with AP items already present) can re-target those named-source edges and move derivative items
    # between clusters: the guarantee the rubric relies on is the verbatim-copy one above.
    before = build_graph(ledger, [], SETTINGS)
    newcomer = data.draw(items("new", len(ledger)))
    newcomer = newcomer.model_copy(
        update={"domain": "new.example", "url": "https://new.example/n", "publisher": "Newcomer Gazette"}
    )
    after = build_graph([*ledger, newcomer], [], SETTINGS)
    assert len(after.cluster_members) <= len(before.cluster_members) + 1


@RUNS
@given(ledger=ledgers(), data=st.data())
def test_adding_an_item_nobody_cites_never_splits_a_cluster(
    ledger: list[EvidenceItem], data: st.DataObject
) -> None:
    before = build_graph(ledger, [], SETTINGS)
    newcomer = data.draw(items("new", len(ledger)))
    # A new story under a name no one mentions: it can cite others but nothing points back at it.
    newcomer = newcomer.model_copy(
        update={
            "publisher": "Unmentioned",
            "domain": "new.example",
            "url": "https://new.example/n",
            "text": story(99),
        }
    )
    after = build_graph([*ledger, newcomer], [], SETTINGS)
    assert _together(before) <= _together(after)
    assert len(after.cluster_members) <= len(before.cluster_members) + 1
