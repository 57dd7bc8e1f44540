"""H22 with real content credentials: the c2pa look-up validates a media snapshot and the policy acts on it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from icarus.fetching import SnapshotStore
from icarus.ledger import C2paState, LookupName, LookupStatus, Snapshot
from icarus.lookups import LookupRegistry, enrich, registry_from_settings
from icarus.lookups.c2pa import C2paLookup, failure_codes, is_media, sniff_media_type
from icarus.scoring.icarus.config import load_policy
from icarus.settings import Settings
from tests.builders import item, ledger
from tests.lookups.c2pa_media import signed_media
from tests.scoring.scoring_support import score, weight

FETCHED = datetime(2026, 11, 20, 11, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> SnapshotStore:
    return SnapshotStore(tmp_path / "snapshots")


def media_item(store: SnapshotStore, body: bytes, content_type: str = "image/jpeg", evidence_id: str = "m"):
    ref = store.put(
        body,
        {
            "url": "https://m.example/p.jpg",
            "final_url": "https://m.example/p.jpg",
            "content_type": content_type,
        }
        | {"fetched_at": FETCHED},
    )
    return item(evidence_id, snapshot=Snapshot(ref=ref))


def test_a_correctly_signed_image_is_valid(store: SnapshotStore) -> None:
    result = C2paLookup(store).lookup(media_item(store, signed_media().signed))
    assert result.status is LookupStatus.OK
    assert result.c2pa_state is C2paState.VALID
    assert result.name is LookupName.C2PA and result.provider.startswith("c2pa-python@")


def test_a_signature_from_a_configured_trust_anchor_is_trusted(store: SnapshotStore) -> None:
    lookup = C2paLookup(store, trust_anchors=signed_media().ca_pem)
    assert lookup.lookup(media_item(store, signed_media().signed)).c2pa_state is C2paState.TRUSTED


def test_changed_pixels_make_the_manifest_invalid_with_its_failure_code(store: SnapshotStore) -> None:
    result = C2paLookup(store).lookup(media_item(store, signed_media().tampered))
    assert result.status is LookupStatus.OK
    assert result.c2pa_state is C2paState.INVALID
    assert "dataHash.mismatch" in result.detail


def test_media_without_a_manifest_is_neutral(store: SnapshotStore) -> None:
    result = C2paLookup(store).lookup(media_item(store, signed_media().plain))
    assert (result.status, result.c2pa_state) == (LookupStatus.OK, C2paState.NONE)


def test_a_web_page_is_not_media_so_the_lookup_does_not_run(store: SnapshotStore) -> None:
    page = media_item(store, b"<html><body>Port calls fell.</body></html>", "text/html")
    result = C2paLookup(store).lookup(page)
    assert result.status is LookupStatus.NOT_RUN and result.c2pa_state is None


def test_no_snapshot_or_a_missing_one_never_raises(store: SnapshotStore) -> None:
    assert C2paLookup(store).lookup(item("x", snapshot=None)).status is LookupStatus.NOT_RUN
    missing = item("y", snapshot=Snapshot(ref="sha256:" + "0" * 64))
    assert C2paLookup(store).lookup(missing).status is LookupStatus.ERROR


@pytest.mark.parametrize(
    "body",
    [b"\xff\xd8\xff" + b"\x00" * 64, b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8, b"%PDF-1.7 truncated"],
)
def test_broken_media_is_an_error_or_neutral_never_a_crash(store: SnapshotStore, body: bytes) -> None:
    result = C2paLookup(store).lookup(media_item(store, body))
    assert result.status in {LookupStatus.ERROR, LookupStatus.OK}
    assert result.c2pa_state in {None, C2paState.NONE}


def test_media_type_comes_from_the_bytes_before_the_recorded_type(store: SnapshotStore) -> None:
    assert sniff_media_type(signed_media().plain) == "image/jpeg"
    assert sniff_media_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_media_type(b"<html>") is None
    assert is_media("image/png; charset=binary") and is_media("application/pdf")
    assert not is_media("text/html") and not is_media(None)
    # A JPEG served as application/octet-stream is still read as a JPEG.
    result = C2paLookup(store).lookup(media_item(store, signed_media().tampered, "application/octet-stream"))
    assert result.c2pa_state is C2paState.INVALID


def test_failure_codes_reads_only_the_active_manifest() -> None:
    results = {"activeManifest": {"failure": [{"code": "claimSignature.mismatch"}, {"explanation": "?"}]}}
    assert failure_codes(results) == ["claimSignature.mismatch"]
    assert failure_codes(None) == [] and failure_codes({"activeManifest": None}) == []


def test_H22_invalid_credentials_cut_the_items_weight_under_1_1(store: SnapshotStore) -> None:
    lookups = LookupRegistry({LookupName.C2PA: C2paLookup(store)})
    invalid = media_item(store, signed_media().tampered, evidence_id="m")
    valid = media_item(store, signed_media().signed, evidence_id="v")
    policy = load_policy("icarus@1.1")
    enriched = enrich(ledger([invalid, valid, item("a")]), lookups, policy)
    result = score(enriched, "icarus@1.1")
    multiplier = policy.validity.c2pa_invalid
    assert weight(result, "m") == (weight(result, "v") * multiplier).quantize(weight(result, "m"))
    assert weight(result, "v") == weight(score(ledger([item("v")]), "icarus@1.1"), "v")  # valid: no boost


def test_H22_lookup_is_not_wired_under_1_0(store: SnapshotStore) -> None:
    lookups = LookupRegistry({LookupName.C2PA: C2paLookup(store)})
    enriched = enrich(
        ledger([media_item(store, signed_media().tampered)]), lookups, load_policy("icarus@1.0")
    )
    assert enriched.evidence[0].lookups == []


def test_settings_switch_the_c2pa_lookup(tmp_path: Path) -> None:
    on = registry_from_settings(Settings(data_dir=tmp_path))
    assert isinstance(on.adapter(LookupName.C2PA), C2paLookup)
    off = registry_from_settings(Settings(data_dir=tmp_path, c2pa_validation=False))
    assert off.adapter(LookupName.C2PA).provider == "offline"
    anchors = tmp_path / "anchors.pem"
    anchors.write_text(signed_media().ca_pem)
    trusted = registry_from_settings(Settings(data_dir=tmp_path, c2pa_trust_anchors=anchors))
    adapter = trusted.adapter(LookupName.C2PA)
    assert isinstance(adapter, C2paLookup) and adapter.trust_anchors == signed_media().ca_pem
