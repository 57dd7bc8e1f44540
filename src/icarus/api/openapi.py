"""The OpenAPI description says what the answers are, errors included, and ``/docs`` works offline.

Every error answer of the API has one shape, ``Problem``: ``{"detail": "…"}``, plus ``errors`` (one
``{field, message}`` per problem) when the request did not match the schema. FastAPI describes its own
422 as a list of validation errors; ``describe_errors`` replaces that with ``Problem`` and documents the
answers every route can give besides its own: 401/403 (token and role), 413 (body over the limit), 422,
429 (rate limit) and 503 (database unreachable), the last two with ``Retry-After``.

``/docs`` is Swagger UI served from this process: its script and style come from the ``swagger-ui-py``
package when it is installed (``swagger_ui/static``), never from a CDN. Without it ``/docs`` is a plain page
listing the operations and linking ``/openapi.json``; either way it names no other host.
"""

from __future__ import annotations

import functools
import html
from importlib import import_module
from pathlib import Path
from typing import Any, Final

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse

__all__ = ["DOCS_ASSETS", "describe_errors", "docs_router", "swagger_assets"]

PROBLEM: Final = "Problem"
PROBLEM_FIELD: Final = "ProblemField"
DOCS_ASSETS: Final = "/docs/assets"
ASSET_FILES: Final = ("swagger-ui-bundle.js", "swagger-ui.css")
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
            "description": "An error answer: what went wrong in words, and for a request that does not "
            "match the schema, each field at fault.",
            "properties": {
                "detail": {"type": "string", "description": "What went wrong, in words."},
                "errors": {
                    "type": "array",
                    "items": {"$ref": f"#/components/schemas/{PROBLEM_FIELD}"},
                    "description": "One entry per field at fault (422 and malformed bodies only).",
                },
            },
            "required": ["detail"],
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
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{PROBLEM}"}}},
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

    @router.api_route("/docs", methods=["GET", "HEAD"], response_class=HTMLResponse)
    def docs() -> HTMLResponse:
        if assets is None:
            return HTMLResponse(_plain_docs(app.title, _operations(app)))
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url="/favicon.ico",
        )

    @router.api_route(f"{DOCS_ASSETS}/{{name}}", methods=["GET", "HEAD"], response_class=FileResponse)
    def asset(name: str) -> FileResponse:
        if assets is None or name not in ASSET_FILES:
            raise HTTPException(404, detail="Not Found")
        return FileResponse(assets / name, headers={"Cache-Control": ASSETS_CACHE})

    return router


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
