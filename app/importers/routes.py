"""Authoring: import documents through the browser (authors and admins)."""

from typing import Annotated

from anyio.from_thread import run_sync as on_event_loop
from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse

from app.accounts.dependencies import load_viewer, require_role
from app.accounts.service import Viewer
from app.importers.errors import ImportRefused
from app.importers.service import FORMATS, import_upload
from app.web.templating import render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
Author = Annotated[Viewer, Depends(require_role("author"))]


def _page(request: Request, status_code: int = 200, **context: object) -> HTMLResponse:
    return render(
        request, "importers/import.html", {"formats": FORMATS, **context}, status_code=status_code
    )


@router.get("/author/import", name="import_form")
async def import_form(request: Request, viewer: Author) -> HTMLResponse:
    """Show the import form."""
    return _page(request)


@router.post("/author/import", name="import_post")
def import_post(
    request: Request,
    viewer: Author,
    document: Annotated[UploadFile, File()],
    format: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Import one uploaded document (checked whole, then written in short steps)."""
    settings = request.app.state.settings
    name = (document.filename or "upload").rsplit("/", 1)[-1][:200]
    data = document.file.read(settings.max_upload_bytes + 1)
    try:
        report = import_upload(
            request.app.state.db,
            viewer,
            data,
            name,
            settings.max_upload_bytes,
            settings.link_threshold,
            format or None,
        )
    except ImportRefused as exc:  # refused before anything was written
        return _page(request, 422, refused=exc)
    on_event_loop(request.app.state.cache.clear)  # this worker shows the new content at once
    return _page(request, report=report)
