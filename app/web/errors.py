"""Friendly error pages for people, JSON errors for the API; never a traceback."""

import logging
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException

from app.accounts.errors import NotAuthenticated, RateLimited
from app.errors import DomainError
from app.web.templating import render

log = logging.getLogger("studyhall")

TITLES = {
    400: "That request did not make sense",
    401: "Please log in",
    403: "You are not allowed to do that",
    404: "Page not found",
    405: "That action is not allowed here",
    422: "Some of that input was not valid",
    429: "Too many attempts",
    500: "Something went wrong on our side",
    503: "Studyhall is not available right now",
}


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path == "/healthz"


def error_response(request: Request, status: int, message: str) -> Response:
    """Answer with a JSON error for the API, or the error page for people."""
    if wants_json(request):
        return JSONResponse({"detail": message}, status_code=status)
    title = TITLES.get(status, "Something went wrong")
    return render(
        request,
        "errors/error.html",
        {"status": status, "title": title, "message": message},
        status_code=status,
    )


async def _domain_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DomainError)
    if isinstance(exc, NotAuthenticated):
        if not wants_json(request):
            return RedirectResponse(f"/login?{urlencode({'next': exc.next_url})}", status_code=303)
        response = error_response(request, 401, exc.message)
        response.headers["www-authenticate"] = "Bearer"
        return response
    response = error_response(request, exc.status_code, exc.message)
    if isinstance(exc, RateLimited):
        response.headers["retry-after"] = str(exc.retry_after_s)
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404 and not isinstance(exc.detail, str | None):
        message = "We could not find that page."
    elif exc.status_code == 404 and exc.detail in (None, "Not Found"):
        message = "We could not find that page. It may have moved, or the address may be mistyped."
    else:
        message = str(exc.detail)
    response = error_response(request, exc.status_code, message)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if wants_json(request):
        errors = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        return JSONResponse({"detail": errors}, status_code=422)
    if any(e["loc"][0] == "path" for e in exc.errors()):
        return error_response(request, 404, "We could not find that page.")
    return error_response(request, 422, "Some of that input was not valid.")


async def _server_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(request, 500, "The error has been logged. Please try again in a moment.")


def install_error_handlers(app: FastAPI) -> None:
    """Route every error to a friendly page or a JSON body."""
    app.add_exception_handler(DomainError, _domain_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _server_error)
