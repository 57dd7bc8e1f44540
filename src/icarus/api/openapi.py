"""The OpenAPI description says what the answers are, errors included, and ``/docs`` works offline.

Every error answer of the API has one shape, ``Problem`` (RFC 9457, ``application/problem+json``; see
``icarus.http.problems``): ``type``, ``title``, ``status`` and ``detail``, a sentence, plus the members a
client may act on, such as ``errors`` (one ``{field, message}`` per problem) when the request did not
match the schema. FastAPI describes its own 422 as a list of validation errors; ``describe_errors``
replaces that with ``Problem`` and documents the answers every route can give besides its own: 401/403
(token and role), 413 (body over the limit), 422, 429 (rate limit) and 503 (database unreachable), the
last two with ``Retry-After``.

``/docs`` is Swagger UI served from this process: its script and style come from the ``swagger-ui-py``
package when it is installed (``swagger_ui/static``), never from a CDN, and it starts from a script of
ours (``SWAGGER_INIT``) rather than an inline one, so ``DOCS_POLICY`` allows scripts and styles from this
origin only. Without the package ``/docs`` is a plain page listing the operations and linking
``/openapi.json``; either way it names no other host.
"""

from __future__ import annotations

import functools
import html
from importlib import import_module
from pathlib import Path
from typing import Any, Final

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, Response

from icarus.http.problems import PROBLEM_MEDIA_TYPE, PROBLEM_TYPE

__all__ = ["DOCS_ASSETS", "DOCS_PATH", "DOCS_POLICY", "describe_errors", "docs_router", "swagger_assets"]

PROBLEM: Final = "Problem"
PROBLEM_FIELD: Final = "ProblemField"
DOCS_ASSETS: Final = "/docs/assets"
ASSET_FILES: Final = ("swagger-ui-bundle.js", "swagger-ui.css")
DOCS_PATH: Final = "/docs"
SWAGGER_INIT_FILE: Final = "swagger-init.js"
# Swagger UI's start, as a file of ours: the page names the description's URL in a data attribute.
SWAGGER_INIT: Final = """window.ui = SwaggerUIBundle({
  url: document.getElementById("swagger-ui").dataset.openapiUrl,
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
"""
# Swagger UI's page: its script and styles from this origin (no inline ones); its icons are data: images;
# it fetches the description from here and its "Try it out" calls go here too.
DOCS_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
ASSETS_CACHE: Final = "public, max-age=86400"
METHODS: Final = ("get", "put", "post", "delete", "patch", "head", "options")

RETRY_AFTER: Final = {
    "Retry-After": {"description": "Seconds to wait before trying again.", "schema": {"type": "integer"}}
}
# Answers any /v1 operation can give besides its own, and what they mean.
COMMON_ANSWERS: Final[dict[str, str]] = {
    "401": "No token, or an unknown or revoked one, where the operation needs one",
    "403": "The token's role is not enough for this operation",
    "429": "Rate limit reached; wait `Retry-After` seconds",
    "503": "The database is unreachable; try again after `Retry-After` seconds",
}
BODY_ANSWERS: Final[dict[str, str]] = {
    "413": "The request body is over the size limit",
    "422": "The request does not match the schema (`errors` names each field), or its content is refused "
    "(`detail` says why)",
}


def _problem_schemas() -> dict[str, Any]:
    return {
        PROBLEM: {
            "title": PROBLEM,
            "type": "object",
            "description": "An error answer (RFC 9457 problem details): what went wrong in words, and "
            "beside it what a client may act on: each field at fault for a request that does not match "
            "the schema, the line of an unreadable transcript, the speakers detection waits for.",
            "properties": {
                "type": {
                    "type": "string",
                    "const": PROBLEM_TYPE,
                    "description": "Always `about:blank`: the status says what kind of problem it is.",
                },
                "title": {"type": "string", "description": "The HTTP status's phrase (`Not Found`)."},
                "status": {
                    "type": "integer",
                    "minimum": 400,
                    "maximum": 599,
                    "description": "The HTTP status code.",
                },
                "detail": {"type": "string", "description": "What went wrong, in words."},
                "errors": {
                    "type": "array",
                    "items": {"$ref": f"#/components/schemas/{PROBLEM_FIELD}"},
                    "description": "One entry per field at fault (422 only).",
                },
                "line": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The transcript line that could not be read (422 of a transcript).",
                },
                "reason": {
                    "type": "string",
                    "description": "Why the transcript could not be read (422 of a transcript).",
                },
                "still_waiting": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "The speaker labels still to be named (409 of run-detection).",
                },
            },
            "required": ["type", "title", "status", "detail"],
            "additionalProperties": False,
        },
        PROBLEM_FIELD: {
            "title": PROBLEM_FIELD,
            "type": "object",
            "properties": {
                "field": {"type": "string", "description": "Where: `body.url`, `query.limit`, …"},
                "message": {"type": "string"},
            },
            "required": ["field", "message"],
        },
    }


def _problem_answer(description: str, *, retry: bool = False) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "description": description,
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": f"#/components/schemas/{PROBLEM}"}}},
    }
    if retry:
        answer["headers"] = RETRY_AFTER
    return answer


def describe_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (FastAPI's description) with every error answer described as ``Problem`` and the common
    answers documented on every ``/v1`` operation. Changes and returns ``schema``."""
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas.update(_problem_schemas())
    for path, item in schema.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            answers: dict[str, Any] = operation.setdefault("responses", {})
            if path.startswith("/v1/"):
                for code, description in COMMON_ANSWERS.items():
                    answers.setdefault(code, {"description": description})
                if "requestBody" in operation:
                    for code, description in BODY_ANSWERS.items():
                        answers.setdefault(code, {"description": description})
            for code, answer in answers.items():
                if code[:1] in ("4", "5"):
                    answer["content"] = _problem_answer("")["content"]
                    if code in ("429", "503"):
                        answer["headers"] = RETRY_AFTER
    return schema


def swagger_assets() -> Path | None:
    """The folder holding Swagger UI's script and style (package ``swagger-ui-py``), if installed."""
    try:
        package = import_module("swagger_ui")
    except ImportError:
        return None
    folder = Path(str(package.__file__)).parent / "static"
    return folder if all((folder / name).is_file() for name in ASSET_FILES) else None


def docs_router(app: FastAPI) -> APIRouter:
    """``/docs`` and its assets, from this process only."""
    router = APIRouter(include_in_schema=False)
    assets = swagger_assets()

    @router.api_route(DOCS_PATH, methods=["GET", "HEAD"], response_class=HTMLResponse)
    def docs() -> HTMLResponse:
        if assets is None:
            return HTMLResponse(_plain_docs(app.title, _operations(app)))
        return HTMLResponse(_swagger_page(f"{app.title} API", app.openapi_url or "/openapi.json"))

    @router.api_route(f"{DOCS_ASSETS}/{SWAGGER_INIT_FILE}", methods=["GET", "HEAD"])
    def swagger_init() -> Response:
        return Response(SWAGGER_INIT, media_type="text/javascript", headers={"Cache-Control": ASSETS_CACHE})

    @router.api_route(f"{DOCS_ASSETS}/{{name}}", methods=["GET", "HEAD"], response_class=FileResponse)
    def asset(name: str) -> FileResponse:
        if assets is None or name not in ASSET_FILES:
            raise HTTPException(404, detail="Not Found")
        return FileResponse(assets / name, headers={"Cache-Control": ASSETS_CACHE})

    return router


def _swagger_page(title: str, openapi_url: str) -> str:
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<link rel='icon' href='/favicon.ico'><link rel='stylesheet' href='{DOCS_ASSETS}/swagger-ui.css'>"
        f"</head><body><div id='swagger-ui' data-openapi-url='{html.escape(openapi_url)}'></div>"
        f"<script src='{DOCS_ASSETS}/swagger-ui-bundle.js'></script>"
        f"<script src='{DOCS_ASSETS}/{SWAGGER_INIT_FILE}'></script></body></html>"
    )


def _operations(app: FastAPI) -> list[tuple[str, str, str]]:
    """(method, path, summary) of every documented operation, in the description's order."""
    found = []
    for path, item in app.openapi().get("paths", {}).items():
        for method in METHODS:
            if method in item:
                found.append((method.upper(), path, str(item[method].get("summary", ""))))
    return found


@functools.lru_cache(maxsize=4)
def _plain_docs_cached(title: str, operations: tuple[tuple[str, str, str], ...]) -> str:
    rows = "\n".join(
        f"<tr><td>{html.escape(m)}</td><td><code>{html.escape(p)}</code></td><td>{html.escape(s)}</td></tr>"
        for m, p, s in operations
    )
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)} API</title>"
        "<link rel='icon' href='/favicon.ico'></head><body>"
        f"<h1>{html.escape(title)} API</h1><p>The full description is <a href='/openapi.json'>/openapi.json</a>"
        " (OpenAPI 3.1). Interactive docs are served here when the <code>swagger-ui-py</code> package is "
        f"installed.</p><table><thead><tr><th>method</th><th>path</th><th>what</th></tr></thead><tbody>{rows}"
        "</tbody></table></body></html>"
    )


def _plain_docs(title: str, operations: list[tuple[str, str, str]]) -> str:
    return _plain_docs_cached(title, tuple(operations))
