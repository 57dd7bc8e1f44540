"""A NUL character is kept as U+FFFD in a recheck's or correction's note and in a debate's texts, as the
store keeps it in every other text (docs/api.md), instead of refusing the request; a speaker's name is the
exception: the speaker rules refuse control characters in a name, NUL among them."""

from __future__ import annotations

from icarus.store.engine import LOST_CHARACTER
from icarus.store.tokens import Role
from tests.api.conftest import Site


def test_a_note_with_nul_is_accepted_and_kept_with_the_character_marked(site: Site) -> None:
    check_id = site.recorded_check()
    admin = site.headers[Role.ADMIN]
    for route, note in (("rechecks", "new\x00figures"), ("corrections", "wrong\x00source")):
        answer = site.client.post(f"/v1/checks/{check_id}/{route}", json={"note": note}, headers=admin)
        assert answer.status_code == 202, answer.text
        site.runner.run(check_id, answer.json()["run_key"])
    timeline = site.client.get(f"/v1/checks/{check_id}/timeline").json()
    notes = [run["note"] for run in timeline["runs"] if run["note"]]
    assert f"new{LOST_CHARACTER}figures" in notes and f"wrong{LOST_CHARACTER}source" in notes
    changed = [version["what_changed"] for version in timeline["versions"][1:]]
    assert changed and all("\x00" not in text for text in changed)
    assert any(f"wrong{LOST_CHARACTER}source" in text for text in changed)


def test_debate_texts_keep_nul_as_u_fffd_and_a_speaker_name_refuses_it(site: Site) -> None:
    admin = site.headers[Role.ADMIN]
    created = site.client.post("/v1/debates", json={"title": "Budget\x00night"}, headers=admin)
    assert created.status_code == 201, created.text
    debate = created.json()
    assert debate["title"] == f"Budget{LOST_CHARACTER}night"
    claim = {"text": "Taxes rose\x00 5 percent in 2024.", "debate_id": debate["id"]}
    answer = site.client.post("/v1/claim", json=claim, headers=admin)
    assert answer.status_code == 202, answer.text
    listed = site.client.get(f"/v1/debates/{debate['id']}/claims", headers=admin).json()["claims"]
    assert [c["text"] for c in listed] == [f"Taxes rose{LOST_CHARACTER} 5 percent in 2024."]
    heard = {"segments": [{"segment_id": "s1", "speaker_label": "SPEAKER_00", "text": "Good evening."}]}
    assert site.client.post(f"/v1/debates/{debate['id']}/segments", json=heard, headers=admin).is_success
    named = {"debate_id": debate["id"], "map": {"SPEAKER_00": "Ruth\x00Calloway"}}
    refused = site.client.post("/v1/session/speaker-map", json=named, headers=admin)
    assert refused.status_code == 422 and "control characters" in refused.json()["detail"], refused.text
