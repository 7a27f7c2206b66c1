"""Friendly error pages for people, JSON errors for the API; never a traceback."""

import logging

from asgi_correlation_id import correlation_id
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.routing import iter_route_contexts
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from starlette.exceptions import HTTPException
from starlette.routing import compile_path, get_route_path

from app.errors import DomainError, Unavailable
from app.web.logs import REQUEST_ID_HEADER
from app.web.metrics import DATABASE_ERRORS
from app.web.templating import render

log = logging.getLogger("studyhall")
SQLITE_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED: another writer holds the database
MACHINE_PATHS = ("/healthz", "/metrics")  # read by monitors: errors as JSON, never a redirect

TITLES = {
    400: "That request did not make sense",
    401: "Please log in",
    403: "You are not allowed to do that",
    404: "Page not found",
    405: "That action is not allowed here",
    409: "That has to wait",
    413: "That was too large",
    422: "Some of that input was not valid",
    429: "Too many attempts",
    431: "That request was too large",
    500: "Something went wrong on our side",
    503: "Studyhall is not available right now",
}


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path in MACHINE_PATHS


async def error_response(request: Request, status: int, message: str) -> Response:
    """Answer with a JSON error for the API, or the error page for people."""
    if wants_json(request):
        return JSONResponse({"detail": message}, status_code=status)
    await _know_viewer(request)
    title = TITLES.get(status, "Something went wrong")
    return render(
        request,
        "errors/error.html",
        {"status": status, "title": title, "message": message},
        status_code=status,
    )


async def _know_viewer(request: Request) -> None:
    """Find who is logged in, so an error page shows their header (no route did it yet).

    The application gives the way to find them (`app.state.load_viewer`); plumbing knows
    no feature. A failure here (the database is away) leaves the page as a guest's.
    """
    loader = getattr(request.app.state, "load_viewer", None)
    if loader is None or hasattr(request.state, "viewer"):
        return
    try:
        await loader(request)
    except Exception:  # the error page must render whatever went wrong
        request.state.viewer = None


async def _domain_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DomainError)
    if exc.page_redirect is not None and not wants_json(request):
        return RedirectResponse(exc.page_redirect, status_code=303)
    response = await error_response(request, exc.status_code, exc.message)
    response.headers.update(exc.headers)
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404 and not isinstance(exc.detail, str | None):
        message = "We could not find that page."
    elif exc.status_code == 404 and exc.detail in (None, "Not Found"):
        message = "We could not find that page. It may have moved, or the address may be mistyped."
    else:
        message = str(exc.detail)
    response = await error_response(request, exc.status_code, message)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    if exc.status_code == 405:
        response.headers["allow"] = _allowed_methods(request)
    return response


def _allowed_methods(request: Request) -> str:
    """Name every method some route answers at this address (the router names the first's)."""
    methods: set[str] = set()
    path = get_route_path(request.scope)
    for route in iter_route_contexts(request.app.routes):
        if route.path and route.methods and compile_path(route.path)[0].match(path):
            methods |= route.methods
    if "GET" in methods:
        methods.add("HEAD")  # answered like GET by the HeadAsGet middleware
    return ", ".join(sorted(methods))


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if wants_json(request):
        errors = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        return JSONResponse({"detail": errors}, status_code=422)
    if any(e["loc"][0] == "path" for e in exc.errors()):
        return await error_response(request, 404, "We could not find that page.")
    return await error_response(request, 422, "Some of that input was not valid.")


async def _database_error(request: Request, exc: Exception) -> Response:
    """A locked or unreachable database: nothing was saved, and trying again may work."""
    code = getattr(getattr(exc, "orig", None), "sqlite_errorcode", None)
    if code is not None and code not in SQLITE_BUSY_CODES:  # e.g. no such table: a broken set-up
        return await _server_error(request, exc)
    log.warning("database error on %s %s: %s", request.method, request.url.path, exc)
    DATABASE_ERRORS.labels(kind=type(exc).__name__).inc()
    busy = Unavailable(
        "Studyhall is busy and nothing was saved. Please try again in a moment.",
    )
    return await _domain_error(request, busy)


async def _server_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    if isinstance(exc, SQLAlchemyError):
        DATABASE_ERRORS.labels(kind=type(exc).__name__).inc()
    return await error_response(
        request, 500, "The error has been logged. Please try again in a moment."
    )


async def _unhandled_error(request: Request, exc: Exception) -> Response:
    """Answer an error no other handler took, naming the request it failed.

    Starlette sends this page from its outermost layer, past the middleware that adds the
    request id to every other response, so the page carries the id itself. It then raises
    the error again, and the server drops the connection: the page says so, so a client
    that sent more requests on it knows they went unanswered and sends them again.
    """
    response = await _server_error(request, exc)
    if request_id := correlation_id.get():
        response.headers[REQUEST_ID_HEADER] = request_id
    response.headers["connection"] = "close"
    return response


def install_error_handlers(app: FastAPI) -> None:
    """Route every error to a friendly page or a JSON body."""
    app.add_exception_handler(DomainError, _domain_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(OperationalError, _database_error)
    app.add_exception_handler(Exception, _unhandled_error)
