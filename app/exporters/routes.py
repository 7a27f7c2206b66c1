"""Authoring: download the question bank as JSON, GIFT, Moodle XML, CSV or an Anki deck."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from app.accounts.dependencies import load_viewer, require_role
from app.accounts.service import Viewer
from app.errors import DomainError
from app.exporters.service import FORMATS, export_for, export_options
from app.web.dependencies import DatabaseDep
from app.web.templating import render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
Author = Annotated[Viewer, Depends(require_role("author"))]
# The route reads its query itself (several `set` values, a form's empty topic); this
# documents what it reads and the files it answers with.
DOWNLOAD: dict[str, Any] = {
    "parameters": [
        {"name": "format", "in": "query", "schema": {"type": "string", "enum": list(FORMATS)}},
        {
            "name": "set",
            "in": "query",
            "schema": {"type": "array", "items": {"type": "string"}},
            "explode": True,
        },
        {"name": "topic", "in": "query", "schema": {"type": "string"}},
    ],
}
FILES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The file, as an attachment",
        "content": {
            f.media_type.split(";")[0]: {"schema": {"type": "string"}} for f in FORMATS.values()
        },
    }
}
MAX_SETS = 100  # more set choices than any form sends
SLUG_MAX = 120


async def _page(
    request: Request, db: DatabaseDep, status_code: int = 200, **context: object
) -> HTMLResponse:
    options = await db.read(export_options)
    context = {"formats": FORMATS, "options": options, **context}
    return render(request, "exporters/export.html", context, status_code=status_code)


@router.get("/author/export", name="export_form")
async def export_form(request: Request, viewer: Author, db: DatabaseDep) -> HTMLResponse:
    """Show the export form."""
    return await _page(request, db)


@router.get(
    "/author/export/file",
    name="export_file",
    response_class=Response,
    responses=FILES,
    openapi_extra=DOWNLOAD,
)
async def export_download(request: Request, viewer: Author, db: DatabaseDep) -> Response:
    """Download the chosen questions in the chosen format, as an attachment."""
    query = request.query_params
    format = query.get("format", "")
    sets = [slug for slug in query.getlist("set") if slug]
    topic = query.get("topic") or None
    chosen = {"format": format, "sets": sets, "topic": topic}
    if len(sets) > MAX_SETS:
        error = f"Choose at most {MAX_SETS} sets, or none for every set."
        return await _page(request, db, 422, error=error, chosen=chosen)
    if any(len(slug) > SLUG_MAX for slug in [*sets, topic or ""]):
        error = f"A set or topic is named by a slug of at most {SLUG_MAX} characters."
        return await _page(request, db, 422, error=error, chosen=chosen)
    try:
        exported = await db.read(export_for, viewer, format, sets, topic)
    except DomainError as exc:
        if exc.status_code == 403:
            raise
        return await _page(
            request, db, 422, error=f"Nothing exported: {exc.message}.", chosen=chosen
        )
    disposition = f'attachment; filename="{exported.filename}"'
    return Response(
        exported.data,
        media_type=exported.media_type,
        headers={"Content-Disposition": disposition, "Cache-Control": "private, no-store"},
    )
