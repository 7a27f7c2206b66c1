"""The OpenAPI document says what each route really answers.

FastAPI documents every route as JSON with its validation error. Pages answer HTML (or a
redirect), and every route may meet the refusals made before it runs: a body too large,
an address with control characters, a bad API token (or one whose scope is too narrow), a
busy database.
"""

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from app.web.csrf import SAFE_METHODS

HTML = {"text/html": {"schema": {"type": "string"}}}
ERROR = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
PAGE_RESPONSES: dict[str, Any] = {
    "200": {"description": "The page", "content": HTML},
    "303": {"description": "Done, or log in first: the page to see next is in Location"},
    "4XX": {"description": "An error page that says what was wrong", "content": HTML},
    "503": {"description": "Busy: nothing was saved; try again after Retry-After", "content": HTML},
}
API_ERRORS: dict[str, Any] = {
    "401": {"description": "A bad, expired or revoked API token", "content": ERROR},
    "404": {"description": "Not found (or an address with control characters)", "content": ERROR},
    "431": {"description": "The request's headers are too large", "content": ERROR},
    "503": {
        "description": "Busy: nothing was saved; try again after Retry-After",
        "content": ERROR,
    },
}
REFUSED: dict[str, Any] = {
    "description": "The API token's scope is read, or the request came from another site",
    "content": ERROR,
}
BODY_ERRORS: dict[str, Any] = {
    "400": {"description": "The body could not be read", "content": ERROR},
    "413": {"description": "The body is larger than the limit", "content": ERROR},
}


def _page_responses(operation: dict[str, Any]) -> dict[str, Any]:
    """A page's answers; a page route declared with another media type is a download of it."""
    content = operation.get("responses", {}).get("200", {}).get("content", {})
    if not content or "text/html" in content:
        return PAGE_RESPONSES
    return {**PAGE_RESPONSES, "200": {"description": "A file to download", "content": content}}


def install_openapi(app: FastAPI) -> None:
    """Serve an OpenAPI document with the responses routes really give."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            for path, operations in schema.get("paths", {}).items():
                for method, operation in operations.items():
                    _describe(path, method, operation)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _describe(path: str, method: str, operation: dict[str, Any]) -> None:
    if not path.startswith("/api/"):
        if path != "/healthz":
            operation["responses"] = _page_responses(operation)
        return
    responses = operation["responses"]
    for status, response in API_ERRORS.items():
        responses.setdefault(status, response)
    if method.upper() not in SAFE_METHODS:
        responses.setdefault("403", REFUSED)
    if "requestBody" in operation:
        for status, response in BODY_ERRORS.items():
            responses.setdefault(status, response)
    invalid = responses.get("422", {}).get("content", {}).get("application/json")
    if invalid is not None:  # a service's refusal carries one message, FastAPI's a list
        invalid["schema"] = {"anyOf": [invalid["schema"], ERROR["application/json"]["schema"]]}
