"""OPTIONS and 405 answers name every method the path serves in ``Allow``.

The router answered 405 from the first route whose path matched, so ``/v1/checks`` (GET and POST) said
``Allow: POST``. Every path of the description is asked here, debates, LVF, EvidenceVerify and all, and
the pages besides: OPTIONS answers 204 with the methods the description lists for the path (and
OPTIONS), and a method it does not serve answers 405 with the same ``Allow``.
"""

from __future__ import annotations

import re
from typing import Final

from icarus.api.methods import CANDIDATE_METHODS
from icarus.http.problems import PROBLEM_MEDIA_TYPE
from icarus.store.tokens import Role
from tests.api.conftest import Site

PARAMETER: Final = re.compile(r"\{[^}]+\}")
# Pages and files outside the description, with what they serve (GET answers HEAD there too).
PAGES: Final = {
    "/": {"GET", "HEAD"},
    "/docs": {"GET", "HEAD"},
    "/healthz": {"GET"},
    "/openapi.json": {"GET", "HEAD"},
}


def _allowed(header: str) -> set[str]:
    return {method.strip() for method in header.split(",")}


def test_options_and_405_name_every_method_of_the_path(site: Site) -> None:
    admin = site.headers[Role.ADMIN]
    description = site.client.get("/openapi.json").json()
    served = {path: {method.upper() for method in item} for path, item in description["paths"].items()}
    assert served["/v1/checks"] == {"GET", "POST"}
    wrong = []
    for template, methods in {**served, **PAGES}.items():
        path = PARAMETER.sub("1", template)
        expected = methods | {"OPTIONS"}
        options = site.client.options(path, headers=admin)
        if options.status_code != 204 or _allowed(options.headers.get("allow", "")) != expected:
            wrong.append(("OPTIONS", template, options.status_code, options.headers.get("allow")))
        unserved = next(method for method in CANDIDATE_METHODS if method not in methods and method != "HEAD")
        refused = site.client.request(unserved, path, headers=admin)
        if (
            refused.status_code != 405
            or _allowed(refused.headers.get("allow", "")) != expected
            or refused.headers["content-type"] != PROBLEM_MEDIA_TYPE
        ):
            wrong.append((unserved, template, refused.status_code, refused.headers.get("allow")))
    assert not wrong


def test_a_405_says_in_words_what_the_path_serves(site: Site) -> None:
    answer = site.client.delete("/v1/checks", headers=site.headers[Role.API])
    assert answer.status_code == 405 and answer.headers["allow"] == "GET, POST, OPTIONS"
    assert answer.json()["detail"] == "DELETE is not served here; this path serves GET, POST"


def test_options_on_a_path_that_serves_nothing_is_a_404(site: Site) -> None:
    answer = site.client.options("/v1/no-such-thing")
    assert answer.status_code == 404 and "allow" not in answer.headers
