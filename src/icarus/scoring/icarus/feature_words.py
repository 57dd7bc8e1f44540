"""Every rule part a policy version may hold inert, in words, for the methodology page: a reader sees what
is not live, never a configuration key. A test checks that each known part has its words."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

__all__ = ["FEATURE_WORDS", "feature_words", "in_rule_order"]

_RULE_NUMBER = re.compile(r"^H(\d+)\.")

FEATURE_WORDS: Final[Mapping[str, str]] = {
    "reputation.lin2023": "Lin et al.'s domain quality ratings as reputation baselines (R)",
    "H4.review_queue": "queueing an estimated reputation for review when it could change a label (H4)",
    "H5.iffy": "excluding sources on the Iffy Index (H5)",
    "H9.exclusion": "keeping an item dated against its event from being elected an origin (H9)",
    "H10.registration": "rejecting publication dates earlier than the domain's registration, from RDAP (H10)",
    "H12.force_misleading": "marking a post misleading when its figure confuses percent and percentage points (H12)",
    "H13.arithmetic": "recomputing the arithmetic of stated figures (H13)",
    "H14.magnitude": "order-of-magnitude conflicts between clusters (H14)",
    "H15.caveat": "the caveat for a relative figure stated without its base (H15)",
    "H16.lookup": "retraction and correction notices from Crossref and Retraction Watch (H16)",
    "H17.metadata": "journal and preprint metadata from a page and from Crossref (H17)",
    "H19.overlap_demotion": "demoting coverage that copies a press release to the release's directness (H19)",
    "H21.caveat": "the caveat naming coordinated amplification (H21)",
    "H22.lookup": "validating the content credentials of evidence media with C2PA (H22)",
    "H24.drift": "soft 404 and drift detection, fetching each evidence page again (H24)",
}


def feature_words(feature: str) -> str:
    """The words for ``feature``; a part without words is a bug the test suite catches."""
    return FEATURE_WORDS[feature]


def in_rule_order(features: Iterable[str]) -> list[str]:
    """Rule parts as the catalogue orders rules: the reputation baseline first, then H4, H5, ... H24."""

    def key(feature: str) -> tuple[int, str]:
        found = _RULE_NUMBER.match(feature)
        return (int(found.group(1)) if found else 0, feature)

    return sorted(features, key=key)
