"""Every registered model through the API: the list, policies, a check under several models, compare,
and replay per model."""

from __future__ import annotations

from icarus.scoring.registry import default_registry
from icarus.store.tokens import Role
from tests.api.conftest import Site

LEDGER_MODELS = ("ledger-default@0.1.0", "ledger-strict@0.3.0")


def test_models_lists_every_registered_model_with_family_and_config_hash(site: Site) -> None:
    answer = site.client.get("/v1/models")
    assert answer.status_code == 200
    rows = {row["ref"]: row for row in answer.json()}
    registry = default_registry()
    assert list(rows) == registry.refs()
    for ref in ("ledger-strict@0.1.0", "lvf@3.0", "lvf@2.0", "evidenceverify@1.0", "icarus@1.1"):
        assert rows[ref]["config_hash"] == registry.get(ref).config_hash
        assert rows[ref]["links"]["methodology"] == f"/methodology/{ref}"
    assert rows["ledger-strict@0.1.0"]["family"] == "ledger"


def test_policies_answer_for_every_model_and_404_for_unknown(site: Site) -> None:
    for ref in default_registry().refs():
        answer = site.client.get(f"/v1/policies/{ref}")
        assert answer.status_code == 200, ref
        body = answer.json()
        assert body["config_hash"] == default_registry().get(ref).config_hash
        assert body["methodology_markdown"].strip()
    assert site.client.get("/v1/policies/ledger-strict@9.9.9").status_code == 404
    assert site.client.get("/v1/policies/nonsense").status_code == 404


def test_a_stored_check_under_several_models_names_each_model(site: Site) -> None:
    check_id = site.recorded_check()
    answer = site.client.get(f"/v1/checks/{check_id}/models", params={"models": ",".join(LEDGER_MODELS)})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["version"] == 1 and body["models"] == list(LEDGER_MODELS)
    for result, ref in zip(body["results"], LEDGER_MODELS, strict=True):
        assert result["model"] == ref and result["result"]["model"] == ref
        assert all(ref in verdict["shown_as"] for verdict in result["verdicts"])


def test_models_added_to_a_check_are_remembered_and_need_the_api_role(site: Site) -> None:
    check_id = site.recorded_check()
    url = f"/v1/checks/{check_id}/models"
    body = {"models": ["ledger-strict@0.1.0"]}
    assert site.client.post(url, json=body).status_code == 401
    assert site.client.post(url, json=body, headers=site.headers[Role.READER]).status_code == 403
    added = site.client.post(url, json=body, headers=site.headers[Role.API])
    assert added.status_code == 200 and added.json()["models"] == ["ledger-strict@0.1.0"]
    again = site.client.post(url, json={"models": ["lvf@3.0"]}, headers=site.headers[Role.ADMIN])
    assert again.json()["models"] == ["ledger-strict@0.1.0", "lvf@3.0"]
    assert site.client.get(url).json()["models"] == ["ledger-strict@0.1.0", "lvf@3.0"]


def test_bad_model_lists_are_422_naming_the_field(site: Site) -> None:
    check_id = site.recorded_check()
    url = f"/v1/checks/{check_id}/models"
    for models in ("nope@1.0", "ledger-strict@0.1.0,ledger-strict@0.1.0", ""):
        answer = site.client.get(url, params={"models": models})
        assert answer.status_code == 422, models
        assert answer.json()["detail"].startswith("models")
    posted = site.client.post(url, json={"models": ["x@1"]}, headers=site.headers[Role.API])
    assert posted.status_code == 422 and posted.json()["detail"].startswith("body.models")
    empty = site.client.post(url, json={"models": []}, headers=site.headers[Role.API])
    assert empty.status_code == 422 and "body.models" in empty.json()["detail"]


def test_unknown_checks_and_versions_are_404(site: Site) -> None:
    check_id = site.recorded_check()
    for path in (
        "/v1/checks/nope/models?models=lvf@3.0",
        f"/v1/checks/{check_id}/models?models=lvf@3.0&version=9",
        "/v1/checks/nope/compare?models=lvf@3.0,lvf@2.0",
        f"/v1/checks/{check_id}/versions/9/models/lvf@3.0/replay",
        f"/v1/checks/{check_id}/versions/1/models/nope@1.0/replay",
    ):
        assert site.client.get(path).status_code == 404, path


def test_compare_returns_what_icarus_compare_prints(site: Site) -> None:
    from icarus.ledger.document import parse_ledger
    from icarus.scoring.compare import compare
    from icarus.scoring.registry import get_model

    check_id = site.recorded_check()
    answer = site.client.get(f"/v1/checks/{check_id}/compare", params={"models": ",".join(LEDGER_MODELS)})
    assert answer.status_code == 200, answer.text
    ledger = parse_ledger(site.client.get(f"/v1/checks/{check_id}/versions/1/ledger").json())
    expected = compare(ledger, get_model(LEDGER_MODELS[0]), get_model(LEDGER_MODELS[1]))
    body = answer.json()
    assert body["version"] == 1
    assert {k: body[k] for k in expected} == expected
    one = site.client.get(f"/v1/checks/{check_id}/compare", params={"models": "lvf@3.0"})
    assert one.status_code == 422 and one.json()["detail"].startswith("models")


def test_replay_per_model_recomputes_the_stored_result_byte_for_byte(site: Site) -> None:
    check_id = site.recorded_check()
    url = f"/v1/checks/{check_id}/versions/1/models/ledger-default@0.1.0/replay"
    first = site.client.get(url).json()
    assert first["first_stored_now"] is True and first["identical"] is True
    again = site.client.get(url).json()
    assert again["first_stored_now"] is False and again["identical"] is True
    assert again["stored_trace_hash"] == again["trace_hash"] == first["trace_hash"]


def test_a_check_submitted_with_models_is_scored_under_each(site: Site) -> None:
    from tests.service.conftest import sample_payload

    body = {"payload": sample_payload(), "models": ["ledger-default@0.1.0", "lvf@3.0"]}
    answer = site.client.post("/v1/checks", json=body, headers=site.headers[Role.API])
    assert answer.status_code == 202, answer.text
    check_id = answer.json()["id"]
    waiting = site.client.get(f"/v1/checks/{check_id}/models").json()
    assert waiting["version"] is None and waiting["models"] == body["models"] and waiting["results"] == []
    site.runner.run(check_id, "first")
    scored = site.client.get(f"/v1/checks/{check_id}/models").json()
    assert [r["model"] for r in scored["results"]] == body["models"]
    unknown = site.client.post(
        "/v1/checks", json={"text": "Traffic fell 12%.", "models": ["nope@1"]}, headers=site.headers[Role.API]
    )
    assert unknown.status_code == 422 and unknown.json()["detail"].startswith("body.models")


def test_the_report_page_lists_the_other_models_in_a_collapsed_section(site: Site) -> None:
    from tests.service.conftest import sample_payload

    plain = site.recorded_check()
    assert "Under other models" not in site.client.get(f"/checks/{plain}").text
    body = {"payload": sample_payload(), "models": ["ledger-default@0.1.0"]}
    check_id = site.client.post("/v1/checks", json=body, headers=site.headers[Role.API]).json()["id"]
    site.runner.run(check_id, "first")
    page = site.client.get(f"/checks/{check_id}").text
    section = page[page.index("Under other models") :]
    assert "<details" in section and "</details>" in section
    assert "under ledger-default@0.1.0" in section
    assert 'href="/methodology/ledger-default@0.1.0"' in section


def test_a_removed_posts_words_are_hidden_from_every_models_results(site: Site) -> None:
    check_id = site.recorded_check()
    claim_text = site.client.get(f"/v1/checks/{check_id}/report").json()["result"]["claims"][0]["text"]
    removal = {"post_id": "1860000000000000001", "reason": "deleted"}
    assert (
        site.client.post("/v1/admin/removals", json=removal, headers=site.headers[Role.ADMIN]).status_code
        == 201
    )
    for path, params in (
        (f"/v1/checks/{check_id}/models", {"models": "icarus@1.0,lvf@3.0,evidenceverify@1.0"}),
        (f"/v1/checks/{check_id}/compare", {"models": "ledger-default@0.1.0,lvf@3.0"}),
    ):
        answer = site.client.get(path, params=params)
        assert answer.status_code == 200
        assert claim_text not in answer.text and "[hidden: the source post was deleted]" in answer.text
    refused = site.client.post("/v1/lvf/runs", json={"check_id": check_id}, headers=site.headers[Role.API])
    assert refused.status_code == 409 and refused.json()["detail"].startswith("check_id")


def test_the_report_pages_model_record_downloads_and_the_reference_recomputes_it(site: Site) -> None:
    from reference import ledger_models
    from tests.service.conftest import sample_payload

    ref = "ledger-default@0.3.0"
    body = {"payload": sample_payload(), "models": [ref]}
    check_id = site.client.post("/v1/checks", json=body, headers=site.headers[Role.API]).json()["id"]
    site.runner.run(check_id, "first")
    page = site.client.get(f"/checks/{check_id}").text
    url = f"/v1/checks/{check_id}/versions/1/models/{ref}"
    assert f'href="{url}" download' in page
    record = site.client.get(url).json()
    replay = site.client.get(url + "/replay").json()
    assert replay["first_stored_now"] is False and record["trace_hash"] == replay["stored_trace_hash"]
    recomputed = ledger_models.score(record, ref)
    engine = [{k: v for k, v in c.items() if k != "code_hash"} for c in record["trace"]["claims"]]
    assert engine and recomputed["claims"] == engine
    assert site.client.get(f"/v1/checks/{check_id}/versions/1/models/nope@1.0").status_code == 404
