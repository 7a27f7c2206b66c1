"""Authoring: import documents through the browser (authors and admins)."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from starlette.datastructures import UploadFile

from app.accounts.dependencies import load_viewer, require_role
from app.accounts.service import Viewer
from app.importers.errors import ImportRefused
from app.importers.service import FORMATS, import_upload
from app.web.dependencies import DatabaseDep
from app.web.limits import without_control_characters
from app.web.metrics import IMPORT_REFUSED, IMPORTED
from app.web.templating import render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
Author = Annotated[Viewer, Depends(require_role("author"))]

# The form is read by the route itself, after the author is known: a stranger's upload is
# never parsed or written to a temporary file. This documents what the route reads.
UPLOAD_FORM: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["document"],
                    "properties": {
                        "document": {"type": "string", "format": "binary"},
                        "format": {"type": "string", "enum": ["", *FORMATS]},
                    },
                }
            }
        },
    }
}


def _page(request: Request, status_code: int = 200, **context: object) -> HTMLResponse:
    return render(
        request, "importers/import.html", {"formats": FORMATS, **context}, status_code=status_code
    )


@router.get("/author/import", name="import_form")
async def import_form(request: Request, viewer: Author) -> HTMLResponse:
    """Show the import form."""
    return _page(request)


@router.post("/author/import", name="import_post", openapi_extra=UPLOAD_FORM)
async def import_post(request: Request, viewer: Author, db: DatabaseDep) -> HTMLResponse:
    """Import one uploaded document (checked whole, then written in one transaction)."""
    settings = request.app.state.settings
    async with request.form(max_files=1, max_fields=2) as form:
        document, format = form.get("document"), form.get("format") or ""
        if not isinstance(document, UploadFile) or not isinstance(format, str):
            return _page(request, 422, error="Choose a file to import.")
        name = without_control_characters(document.filename or "").rsplit("/", 1)[-1][:200]
        name = name or "upload"
        data = await document.read(settings.max_upload_bytes + 1)
    try:
        report = await db.write(
            import_upload,
            viewer,
            data,
            name,
            settings.max_upload_bytes,
            settings.link_threshold,
            format or None,
        )
    except ImportRefused as exc:  # refused before anything was written
        IMPORT_REFUSED.inc()
        return _page(request, 422, refused=exc)
    IMPORTED.inc()
    return _page(request, report=report)
