"""H14, order-of-magnitude conflicts: clusters that give one quantity ten times apart or more.

Two items *rival* each other when they sit in different clusters and state a figure of the same measure and
unit whose ratio is at least the policy's order of magnitude (``statistics.magnitude_conflict``). Every
rival is flagged (V × the statistical flag). Then, by side:

* a non-primary item with a primary rival is excluded: the primary source settles the figure against it;
* a primary item with a primary rival is excluded: two primary sources disagree, so the conflict is
  unresolved;
* any other non-primary item is excluded unless each of its rivals is itself contradicted by a primary
  source that is not its rival: then the conflict is settled on its side, and it stays counted. Otherwise
  the conflict is unresolved and neither side counts.

Rivals are found before the items are weighed (``rivals``), so that an item whose only scope mismatch is
its quantity is left to H14 rather than set aside as out of scope (H26): a figure ten times another
cluster's figure of the same measure is the same quantity misstated, not a different one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from icarus.ledger import EvidenceItem, SourceClass
from icarus.scoring.icarus.assess import ItemAssessment, exclude, multiply_validity
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.statistics import magnitude_conflict

__all__ = ["order_of_magnitude", "rivals"]


def rivals(
    clusters: Mapping[str, Sequence[str]],
    judged: Iterable[str],
    items: Mapping[str, EvidenceItem],
    policy: PolicyConfig,
) -> dict[str, frozenset[str]]:
    """Each judged item's rivals (see the module docstring), among the judged items only. Pure."""
    threshold = policy.statistics.order_of_magnitude
    wanted = set(judged)
    stating = {
        cluster_id: [m for m in members if m in wanted and items[m].figures]
        for cluster_id, members in sorted(clusters.items())
    }
    cluster_ids = [c for c, members in stating.items() if members]
    found: dict[str, set[str]] = {}
    for i, first in enumerate(cluster_ids):
        for second in cluster_ids[i + 1 :]:
            for a in stating[first]:
                for b in stating[second]:
                    fig_a, fig_b = items[a].figures, items[b].figures
                    if any(magnitude_conflict(x, y, threshold) for x in fig_a for y in fig_b):
                        found.setdefault(a, set()).add(b)
                        found.setdefault(b, set()).add(a)
    return {evidence_id: frozenset(others) for evidence_id, others in found.items()}


def order_of_magnitude(
    by_cluster: dict[str, list[ItemAssessment]],
    items: Mapping[str, EvidenceItem],
    found: Mapping[str, frozenset[str]],
    policy: PolicyConfig,
) -> None:
    """Flag every rival in ``found`` and exclude the sides the module docstring says, in place."""
    if not found:
        return
    factor = policy.validity.statistical_flag

    def primary(evidence_id: str) -> bool:
        return items[evidence_id].source_class is SourceClass.PRIMARY_OFFICIAL

    for members in by_cluster.values():
        for index, member in enumerate(members):
            own = found.get(member.evidence_id)
            if not own:
                continue
            updated = multiply_validity(
                member, "H14", factor, "order-of-magnitude conflict with another cluster"
            )
            if any(primary(r) for r in own):
                reason = (
                    "unresolved order-of-magnitude conflict"
                    if primary(member.evidence_id)
                    else "order-of-magnitude conflict with a primary source"
                )
                updated = exclude(updated, "H14", reason)
            elif not primary(member.evidence_id) and not all(
                any(primary(p) and p not in own for p in found[r]) for r in own
            ):
                updated = exclude(updated, "H14", "unresolved order-of-magnitude conflict")
            members[index] = updated
