"""The application factory."""

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from asgi_correlation_id import CorrelationIdMiddleware
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.routing import APIRoute
from sqlalchemy import text
from sqlalchemy.orm import Session
from starlette.middleware.gzip import GZipMiddleware

from app import __version__
from app import pages as combined
from app.accounts import api as accounts_api
from app.accounts import routes as accounts_routes
from app.accounts.dependencies import AddressTurns, load_viewer, require_role
from app.config import PROJECT_ROOT, Settings, get_settings
from app.content import api as content_api
from app.content import (
    audit_routes,
    editor_api,
    editor_routes,
    note_editor_routes,
    report_routes,
)
from app.content import routes as content_routes
from app.content.service import current_version
from app.db import Database, utcnow
from app.exams import api as exam_api
from app.exams import queries as exam_queries
from app.exams import regrade_api, regrade_routes
from app.exams import routes as exam_routes
from app.exams.records import RECORDS as EXAM_RECORDS
from app.exams.sweep import Sweeper
from app.exporters import routes as exporter_routes
from app.importers import routes as importer_routes
from app.items import routes as item_routes
from app.migrate import head_revision
from app.progress import api as progress_api
from app.progress import routes as progress_routes
from app.progress import study_routes
from app.search import api as search_api
from app.search import routes as search_routes
from app.web.cache import ContentCache
from app.web.csrf import CrossOriginProtection
from app.web.errors import install_error_handlers
from app.web.headers import HeadAsGet, NoStore, SecurityHeaders
from app.web.limits import InputGuard
from app.web.logs import REQUEST_ID_HEADER
from app.web.metrics import RequestMetrics, install_metrics
from app.web.openapi import install_openapi
from app.web.schemas import HealthOut
from app.web.static import mount_static
from app.web.templating import bind_routes

log = logging.getLogger("studyhall")
SEARCH_CACHE_ENTRIES = 512  # a search's results with their snippets: 5 to 20 KB
SEARCH_CACHE_SECONDS = 60.0  # kept results are refreshed this often (when the cache is on)
# Exams and attempts, as pages and in the API: one learner's questions, answers and results.
NO_STORE_PATHS = ("/exams", "/attempts/", "/api/v1/exams", "/api/v1/attempts")


def create_served_app() -> FastAPI:
    """Build the application for `studyhall serve`, whose server adds the security headers.

    uvicorn puts its own headers on every response, its own 400s for malformed requests
    included, which no middleware sees; the app then must not add them a second time.
    """
    return create_app(security_headers=False)


def create_app(settings: Settings | None = None, *, security_headers: bool = True) -> FastAPI:
    """Build the Studyhall application for the given (or the environment's) settings."""
    settings = settings or get_settings()
    db = Database(settings.database_url)
    sweeper = Sweeper(
        db,
        settings.exam_sweep_seconds,
        timedelta(seconds=settings.exam_grace_seconds),
        idle=timedelta(days=settings.exam_untimed_expiry_days),
    )

    @asynccontextmanager
    async def lifespan(served: FastAPI) -> AsyncIterator[None]:
        # Objects made at start-up live as long as the process; freezing them keeps every
        # later full garbage collection from walking them (it took ~100 ms under load).
        gc.collect()
        gc.freeze()
        sweeper.start()
        yield
        await sweeper.stop()
        db.dispose()

    app = FastAPI(
        title="Studyhall",
        version=__version__,
        description="Questions, notes and practice for certification exam prep.",
        docs_url=None,  # the interactive docs load scripts from a CDN; /openapi.json stays
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.db = db
    app.state.cache = ContentCache(db, settings.content_cache_seconds, current_version)
    # Search results: as public as the content and as fresh; its own cache, so a stream of
    # one-off queries cannot push questions and notes out of the other. The content version
    # empties it within a second of any change, so its entries need no early refresh: each
    # one costs a search, some of them tens of milliseconds.
    search_seconds = SEARCH_CACHE_SECONDS if settings.content_cache_seconds > 0 else 0
    app.state.search_cache = ContentCache(
        db,
        search_seconds,
        current_version,
        max_entries=SEARCH_CACHE_ENTRIES,
        name="search",
    )
    app.state.load_viewer = load_viewer  # error pages show who is logged in
    app.state.clock = utcnow  # what is due for review is measured by it; tests set their own
    app.state.exam_records = EXAM_RECORDS  # practice asks it whether an open exam holds a question
    app.state.address_turns = AddressTurns()
    app.add_middleware(CrossOriginProtection)
    app.add_middleware(InputGuard, max_upload_bytes=settings.max_upload_bytes)
    if security_headers:
        app.add_middleware(SecurityHeaders)
    app.add_middleware(NoStore, prefixes=NO_STORE_PATHS)
    app.add_middleware(RequestMetrics)  # inside HeadAsGet: its copy of the scope gets the route
    app.add_middleware(HeadAsGet)
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)
    # Outermost, so every answer names its request: refusals, compressed pages and 304s too.
    app.add_middleware(CorrelationIdMiddleware, header_name=REQUEST_ID_HEADER)
    install_error_handlers(app)
    install_openapi(app)
    mount_static(app)
    pages = (
        content_routes,
        report_routes,
        editor_routes,
        audit_routes,
        note_editor_routes,
        search_routes,
        progress_routes,
        study_routes,
    )
    apis = (
        content_api,
        editor_api,
        search_api,
        progress_api,
        exam_api,
        regrade_api,
        accounts_api,
    )
    for api in apis:
        _name_apart(api.router)
    _name_apart(combined.api)
    app.include_router(combined.router)
    for feature in (
        *pages,
        exam_routes,
        regrade_routes,
        accounts_routes,
        importer_routes,
        exporter_routes,
        item_routes,
        *apis,
    ):
        app.include_router(feature.router)
    app.include_router(combined.api)
    _add_plumbing_routes(app)
    install_metrics(
        app,
        settings.metrics,
        admin_only=require_role("admin"),
        open_attempts=exam_queries.count_open,
    )
    bind_routes(app.router)
    return app


def _add_plumbing_routes(app: FastAPI) -> None:
    @app.get(
        "/healthz",
        response_model=HealthOut,
        tags=["health"],
        responses={
            503: {
                "model": HealthOut,
                "description": "The database does not answer, or its schema is not the code's",
            }
        },
    )
    async def healthz(request: Request) -> JSONResponse:
        """Report whether the app and its database answer, and the database's schema revision."""
        expected = head_revision()
        try:
            revision = await request.app.state.db.read(_revision)
        except Exception as exc:  # any failure means "not ready"; the reason goes to the log
            log.warning("health check: database unavailable: %s", exc)
            health = HealthOut(status="error", database="unavailable", expected=expected)
            return JSONResponse(health.model_dump(exclude_none=True), status_code=503)
        current = revision == expected
        health = HealthOut(
            status="ok" if current else "error",
            database="ok" if current else "not migrated",
            revision=revision,
            expected=expected,
        )
        return JSONResponse(health.model_dump(), status_code=200 if current else 503)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(PROJECT_ROOT / "static" / "favicon.svg", media_type="image/svg+xml")


def _revision(session: Session) -> str | None:
    return session.scalar(text("SELECT version_num FROM alembic_version"))


def _name_apart(router: APIRouter) -> None:
    """Prefix the API's route names with "api_": a page and its API twin (`question`) each
    have a name of their own for url_for."""
    for route in router.routes:
        if isinstance(route, APIRoute) and not route.name.startswith("api_"):
            route.name = f"api_{route.name}"
