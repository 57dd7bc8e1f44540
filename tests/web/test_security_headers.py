"""Every page type answers with a Content-Security-Policy that allows only its own inline blocks (by hash),
nosniff, no framing and a referrer policy; the pages carry nothing inline the policy would refuse."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from icarus.api import openapi
from icarus.api.openapi import DOCS_ASSETS, DOCS_POLICY
from icarus.store.service import ServiceStore
from icarus.store.tokens import Role
from icarus.web.headers import FIXED_HEADERS, SecurityHeaders, csp_hash, page_policy
from tests.debates.test_api import Site, open_site
from tests.debates.test_pages import sign_in
from tests.service.test_list_reads import recorded_check

EXAMPLES = Path(__file__).parents[2] / "examples"


@dataclass
class Inline:
    """What a page carries inline: script and style blocks, style attributes, event handler attributes,
    and the addresses it loads scripts and stylesheets from."""

    scripts: list[str]
    styles: list[str]
    style_attributes: int
    handlers: list[str]
    loaded: list[str]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found = Inline([], [], 0, [], [])
        self._open: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.found.style_attributes += "style" in named
        self.found.handlers += [name for name in named if name.startswith("on")]
        if tag == "script" and named.get("src"):
            self.found.loaded.append(str(named["src"]))
        elif tag == "link" and named.get("rel") == "stylesheet":
            self.found.loaded.append(str(named["href"]))
        elif tag == "style" or (
            tag == "script" and named.get("type", "text/javascript") != "application/json"
        ):
            self._open = (tag, [])  # a JSON data block is never run, so no policy applies to it

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and self._open[0] == tag:
            (self.found.scripts if tag == "script" else self.found.styles).append("".join(self._open[1]))
            self._open = None


def inline_of(html: str) -> Inline:
    reader = _Reader()
    reader.feed(html)
    return reader.found


def directives(policy: str) -> dict[str, list[str]]:
    parts = (part.split() for part in policy.split(";") if part.strip())
    return {words[0]: words[1:] for words in parts}


@dataclass
class Pages:
    site: Site
    paths: dict[str, str]  # page type: path


@pytest.fixture
def pages(tmp_path: Path) -> Iterator[Pages]:
    for site in open_site(tmp_path):
        admin, api = site.token(Role.ADMIN), site.token(Role.API)
        checked = recorded_check(site.store)
        queued = "queued-check"
        ServiceStore(site.store).submit(
            queued, "text", {"text": "x"}, policy=None, post_id=None, now=datetime.now(UTC)
        )
        debate_id = site.debate(api, title="Leaders' debate")
        claim_id = site.claim(api, debate_id)
        ledger = json.loads((EXAMPLES / "ledgers" / "two-independent-wires.json").read_text(encoding="utf-8"))
        run = site.client.post("/v1/lvf/runs", json={"ledger": ledger}, headers=admin).json()["runs"][0]
        ev = EXAMPLES / "evidenceverify"
        verification = site.client.post(
            "/v1/evidence-verify",
            json={
                "claim": json.loads((ev / "claim.json").read_text(encoding="utf-8")),
                "store": json.loads((ev / "evidence_store.json").read_text(encoding="utf-8")),
                "as_of": "2026-08-01T00:00:00Z",
            },
            headers=admin,
        ).json()["id"]
        sign_in(site, api, "/debates")
        yield Pages(
            site,
            {
                "dashboard": "/",
                "report": f"/checks/{checked}",
                "pending report": f"/checks/{queued}",
                "missing report": "/checks/no-such-check",
                "methodology": "/methodology",
                "debate list": "/debates",
                "debate": f"/debates/{debate_id}",
                "debate claim": f"/debates/{debate_id}/claims/{claim_id}",
                "lvf run": f"/lvf/runs/{run['run_id']}",
                "lvf summary": f"/lvf/runs/{run['run_id']}/summary",
                "evidence verify": f"/evidence-verify/{verification}",
            },
        )


def assert_fixed_headers(headers: dict[str, str] | object, what: str) -> None:
    for name, value in FIXED_HEADERS.items():
        assert headers[name] == value, f"{what}: {name}"  # type: ignore[index]


def test_every_page_type_sends_the_headers_and_carries_only_what_its_policy_allows(pages: Pages) -> None:
    client = pages.site.client
    for what, path in pages.paths.items():
        answer = client.get(path)
        assert answer.status_code in (200, 404), (what, answer.status_code)
        assert answer.headers["content-type"].startswith("text/html"), what
        assert_fixed_headers(answer.headers, what)
        policy = directives(answer.headers["content-security-policy"])
        assert policy["default-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"], what
        assert not [word for words in policy.values() for word in words if "unsafe" in word], what
        found = inline_of(answer.text)
        assert found.scripts or what not in ("dashboard", "debate", "debate claim")
        for script in found.scripts:
            assert csp_hash(script) in policy["script-src"], f"{what}: an inline script the policy refuses"
        assert found.styles, what
        for style in found.styles:
            assert csp_hash(style) in policy["style-src"], f"{what}: an inline style the policy refuses"
        assert found.style_attributes == 0, f"{what}: style attributes, which the policy refuses"
        assert found.handlers == [] and found.loaded == [], what


def test_the_report_graph_is_sized_by_the_stylesheet(pages: Pages) -> None:
    html = pages.site.client.get(pages.paths["report"]).text
    match = re.search(r'<svg[^>]*class="provenance (columns-\d)"', html)
    assert match, "the report draws no provenance graph"
    assert f"svg.provenance.{match.group(1)}{{" in "".join(inline_of(html).styles)


def test_swagger_ui_loads_only_from_this_origin_under_its_own_policy(pages: Pages) -> None:
    client = pages.site.client
    answer = client.get("/docs")
    assert_fixed_headers(answer.headers, "/docs")
    assert answer.headers["content-security-policy"] == DOCS_POLICY
    found = inline_of(answer.text)
    assert found.scripts == [] and found.styles == []  # scripts and styles by address only
    assert found.loaded and all(address.startswith(f"{DOCS_ASSETS}/") for address in found.loaded)
    for address in found.loaded:
        asset = client.get(address)
        assert asset.status_code == 200 and asset.headers["x-content-type-options"] == "nosniff", address
    assert "javascript" in client.get(f"{DOCS_ASSETS}/swagger-init.js").headers["content-type"]
    policy = directives(DOCS_POLICY)
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]


def test_the_plain_docs_page_needs_nothing_inline(pages: Pages, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openapi, "swagger_assets", lambda: None)
    app = FastAPI(title="Icarus", docs_url=None, redoc_url=None)
    app.include_router(openapi.docs_router(app))
    app.add_middleware(SecurityHeaders, default=page_policy(), policies={"/docs": DOCS_POLICY})
    found = inline_of(TestClient(app).get("/docs").text)
    assert found.scripts == found.styles == found.loaded == [] and found.style_attributes == 0


def test_api_answers_and_refusals_carry_the_headers_too(pages: Pages) -> None:
    client = pages.site.client
    for answer in (client.get("/v1/checks"), client.get("/v1/checks/no-such-check"), client.get("/healthz")):
        assert_fixed_headers(answer.headers, str(answer.url))
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]


def test_a_route_that_sets_its_own_policy_keeps_it() -> None:
    app = FastAPI()

    @app.get("/own")
    def own() -> dict[str, str]:
        return {}

    @app.middleware("http")
    async def set_own(request, call_next):  # type: ignore[no-untyped-def]
        answer = await call_next(request)
        answer.headers["Content-Security-Policy"] = "default-src 'self'"
        return answer

    app.add_middleware(SecurityHeaders, default=page_policy())
    answer = TestClient(app).get("/own")
    assert answer.headers["content-security-policy"] == "default-src 'self'"
    assert answer.headers["x-frame-options"] == "DENY"
