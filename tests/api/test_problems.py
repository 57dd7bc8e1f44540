"""Every error answer has the one documented shape: an RFC 9457 problem, ``application/problem+json``.

The walk takes every route the app has (from its router, not from the description, so an undocumented
route is walked too) and provokes the error answers each can give: no token (401), too small a role
(403), ids that name nothing (404), ids, queries and bodies of the wrong shape (422), a method the path
does not have (405), and the answers only some routes give (409 from run-detection while voices are
unnamed, 422 of an unreadable transcript, 413 of a body over the limit). Each answer is validated against
the ``Problem`` schema that ``/openapi.json`` publishes, which lists every member a problem may carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Final

import httpx
import pytest
from fastapi.routing import iter_route_contexts
from jsonschema import Draft202012Validator

from icarus.api.app import MAX_BODY_BYTES
from icarus.http.problems import PROBLEM_MEDIA_TYPE, PROBLEM_MEMBERS
from icarus.store.tokens import Role
from tests.api.conftest import Site

SRT: Final = (
    b"1\n00:00:01,000 --> 00:00:04,000\nSPEAKER_1: Unemployment fell to 3.9 percent in 2023.\n\n"
    b"2\n00:00:05,000 --> 00:00:08,000\nSPEAKER_2: Inflation reached 7 percent last year.\n"
)
# Ids of the right shape that name nothing, and ids of the wrong shape, for each path parameter.
UNKNOWN: Final = {
    "check_id": "no-such-check",
    "version": "7",
    "ref": "sha256:" + "0" * 64,
    "run_id": "999999",
    "challenge_id": "ch-" + "0" * 16,
    "store_id": "evs-" + "0" * 20,
    "verification_id": "ev-" + "0" * 20,
    "debate_id": "no-such-debate",
    "claim_id": "999999",
    "panel_id": "999999",
}
MALFORMED: Final = {name: "0" if value.isdigit() else "!" * 70 for name, value in UNKNOWN.items()}
PARAMETER: Final = re.compile(r"{(\w+)(?::\w+)?}")
STATUSES_WALKED: Final = {401, 403, 404, 405, 409, 413, 422}


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str  # with {parameters}

    def url(self, values: dict[str, str]) -> str:
        return PARAMETER.sub(lambda m: values[m.group(1)], self.path)

    @property
    def takes_body(self) -> bool:
        return self.method in ("POST", "PUT", "PATCH")


def _endpoints(site: Site) -> list[Endpoint]:
    found = set()
    for route in iter_route_contexts(site.client.app.routes):  # type: ignore[attr-defined]
        path, methods = route.path, route.methods
        if path and methods and not path.startswith("/docs/assets"):
            found.update(Endpoint(method, path) for method in methods if method != "HEAD")
    return sorted(found, key=lambda e: (e.path, e.method))


def _problem_validator(site: Site) -> Draft202012Validator:
    description = site.client.get("/openapi.json").json()
    schema = {"$ref": "#/components/schemas/Problem", "components": description["components"]}
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


class Walk:
    """Sends requests and keeps every error answer, for the shape checks."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.answers: list[tuple[str, httpx.Response]] = []

    def send(self, what: str, method: str, url: str, **kwargs: Any) -> httpx.Response:
        if url.split("?")[0].endswith("/events"):
            url += ("&" if "?" in url else "?") + "once=true"  # a live stream would never end
        answer = self.site.client.request(method, url, **kwargs)
        if answer.status_code >= 400:
            self.answers.append((f"{what}: {method} {url}", answer))
        return answer

    def statuses(self, path_prefix: str = "") -> Iterator[int]:
        return (a.status_code for what, a in self.answers if path_prefix in what)


def _walk(site: Site) -> Walk:
    walk = Walk(site)
    reader, admin = site.headers[Role.READER], site.headers[Role.ADMIN]
    for endpoint in _endpoints(site):
        known = PARAMETER.findall(endpoint.path)
        assert set(known) <= set(UNKNOWN), f"name a value for the new path parameter of {endpoint.path}"
        body = {"json": {}} if endpoint.takes_body else {}
        if endpoint.path.startswith("/v1/"):
            url = endpoint.url(UNKNOWN)
            walk.send("anonymous", endpoint.method, url, **body)
            walk.send("reader", endpoint.method, url, headers=reader, **body)
            walk.send("unknown ids", endpoint.method, url, headers=admin, **body)
            if known:
                walk.send("malformed ids", endpoint.method, endpoint.url(MALFORMED), headers=admin, **body)
            if endpoint.takes_body:
                walk.send("body of the wrong type", endpoint.method, url, headers=admin, json=[["x"]])
            walk.send("query of the wrong type", endpoint.method, url + "?limit=-1", headers=admin, **body)
        # A method the path does not have: 405, pages included.
        walk.send("unsupported method", "DELETE", endpoint.url(UNKNOWN), headers=admin)
    walk.send("unknown path", "GET", "/no/such/page")
    walk.send("unknown path", "GET", "/v1/no-such-thing", headers=admin)
    walk.send("body over the limit", "POST", "/v1/checks", headers=admin, content=b"x" * (MAX_BODY_BYTES + 1))
    _debate_problems(walk, admin)
    return walk


def _debate_problems(walk: Walk, admin: dict[str, str]) -> None:
    """The answers that carry members beside ``detail``: 409 ``still_waiting``, 422 ``line``/``reason``."""
    created = walk.send("debate", "POST", "/v1/debates", headers=admin, json={"speaker_gate_enabled": True})
    assert created.status_code == 201, created.text
    debate = created.json()["id"]
    srt = admin | {"Content-Type": "application/x-subrip"}
    assert walk.send(
        "transcript", "POST", f"/v1/debates/{debate}/transcript", headers=srt, content=SRT
    ).is_success
    waiting = walk.send("speakers unnamed", "POST", f"/v1/debates/{debate}/run-detection", headers=admin)
    assert waiting.status_code == 409 and waiting.json()["still_waiting"] == ["SPEAKER_1", "SPEAKER_2"]
    broken = SRT.replace(b"00:00:05,000 --> 00:00:08,000", b"00:00:05,000 -> nonsense")
    unreadable = walk.send(
        "unreadable", "POST", f"/v1/debates/{debate}/transcript", headers=srt, content=broken
    )
    assert unreadable.status_code == 422 and unreadable.json()["line"] == 6
    too_heavy = walk.send(
        "invalid setting", "PATCH", f"/v1/debates/{debate}", headers=admin, json={"cost_weight": 7}
    )
    assert too_heavy.status_code == 422


@pytest.fixture
def walked(site: Site) -> Walk:
    return _walk(site)


def test_every_error_answer_is_a_problem_of_the_published_shape(site: Site, walked: Walk) -> None:
    validator = _problem_validator(site)
    assert set(walked.statuses()) >= STATUSES_WALKED, "the walk provokes every kind of error answer"
    for what, answer in walked.answers:
        assert answer.headers["content-type"] == PROBLEM_MEDIA_TYPE, what
        problem = answer.json()
        errors = [error.message for error in validator.iter_errors(problem)]
        assert not errors, f"{what} answered {answer.status_code} {problem}: {errors}"
        assert problem["status"] == answer.status_code, what
        assert problem["title"] == HTTPStatus(answer.status_code).phrase, what
        assert problem["detail"].strip(), what


def test_the_members_beside_detail_are_the_documented_ones(site: Site, walked: Walk) -> None:
    documented = set(
        site.client.get("/openapi.json").json()["components"]["schemas"]["Problem"]["properties"]
    )
    assert documented == {"type", "title", "status", "detail"} | PROBLEM_MEMBERS
    seen = {member for _what, answer in walked.answers for member in answer.json()} - {
        "type",
        "title",
        "status",
    }
    assert seen == {"detail"} | PROBLEM_MEMBERS, "each member is given by some answer"


def test_every_api_route_gives_its_error_answers(site: Site, walked: Walk) -> None:
    for endpoint in _endpoints(site):
        if not endpoint.path.startswith("/v1/"):
            continue
        if not (PARAMETER.search(endpoint.path) or endpoint.takes_body):
            continue  # a public read without ids or body (the feed, the policies) may answer them all
        statuses = {
            answer.status_code
            for what, answer in walked.answers
            if what.split(": ", 1)[1].split("?")[0]
            in (
                f"{endpoint.method} {endpoint.url(UNKNOWN)}",
                f"{endpoint.method} {endpoint.url(MALFORMED)}",
            )
        }
        assert statuses & {401, 403, 404, 422}, f"{endpoint} gave no error answer to the walk"
