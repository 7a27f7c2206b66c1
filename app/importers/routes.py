"""Authoring: import documents through the browser (authors and admins)."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import UploadFile

from app.accounts.dependencies import load_viewer, require_role
from app.accounts.service import Viewer
from app.db import Database
from app.importers import csv_questions
from app.importers.errors import ImportRefused
from app.importers.preview import carried, carried_size, preview_upload, uncarried
from app.importers.service import FORMATS, import_upload
from app.web.dependencies import DatabaseDep
from app.web.limits import without_control_characters
from app.web.metrics import IMPORT_REFUSED, IMPORTED
from app.web.templating import render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
Author = Annotated[Viewer, Depends(require_role("author"))]

SKIP_BAD = {"type": "string", "enum": ["", "on"], "description": "Leave out bad questions"}
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
                        "skip_bad": SKIP_BAD,
                    },
                }
            }
        },
    }
}
CONFIRM_FORM: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["content", "digest", "name"],
                    "properties": {
                        "content": {"type": "string", "description": "The document, base64"},
                        "digest": {"type": "string", "description": "Its SHA-256, hex"},
                        "name": {"type": "string"},
                        "format": {"type": "string", "enum": ["", *FORMATS]},
                        "skip_bad": SKIP_BAD,
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


def _name(sent: str) -> str:
    """The file's name as the sender gave it, without folders or control characters."""
    return without_control_characters(sent).replace("\\", "/").rsplit("/", 1)[-1][:200] or "upload"


async def _upload(request: Request, limit: int) -> tuple[bytes, str, str, bool] | None:
    """Read the uploaded document, its name, the chosen format and whether to leave out bad
    questions (None: no file sent)."""
    async with request.form(max_files=1, max_fields=3) as form:
        document, format = form.get("document"), form.get("format") or ""
        if not isinstance(document, UploadFile) or not isinstance(format, str):
            return None
        data = await document.read(limit + 1)
        return data, _name(document.filename or ""), format, _ticked(form.get("skip_bad"))


def _ticked(value: object) -> bool:
    """Whether a checkbox was ticked (a browser sends "on")."""
    return isinstance(value, str) and bool(value)


async def _import(
    request: Request,
    viewer: Viewer,
    db: Database,
    data: bytes,
    name: str,
    format: str,
    skip_bad: bool,
) -> HTMLResponse:
    settings = request.app.state.settings
    try:
        report = await db.write(
            import_upload,
            viewer,
            data,
            name,
            settings.max_upload_bytes,
            settings.link_threshold,
            format or None,
            skip_bad,
        )
    except ImportRefused as exc:  # refused before anything was written
        IMPORT_REFUSED.inc()
        return _page(request, 422, refused=exc)
    IMPORTED.inc()
    return _page(request, report=report)


@router.get("/author/import", name="import_form")
async def import_form(request: Request, viewer: Author) -> HTMLResponse:
    """Show the import form."""
    return _page(request)


@router.get("/author/import/template.csv", name="import_template", response_class=Response)
async def import_template(viewer: Author) -> Response:
    """Send a CSV file with the columns the CSV import reads and two example questions."""
    return Response(
        csv_questions.TEMPLATE,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="studyhall-questions.csv"'},
    )


@router.post("/author/import", name="import_post", openapi_extra=UPLOAD_FORM)
async def import_post(request: Request, viewer: Author, db: DatabaseDep) -> HTMLResponse:
    """Import one uploaded document (checked whole, then written in one transaction)."""
    upload = await _upload(request, request.app.state.settings.max_upload_bytes)
    if upload is None:
        return _page(request, 422, error="Choose a file to import.")
    return await _import(request, viewer, db, *upload)


@router.post("/author/import/preview", name="import_preview", openapi_extra=UPLOAD_FORM)
async def import_preview(request: Request, viewer: Author, db: DatabaseDep) -> HTMLResponse:
    """Show what importing an uploaded document would do, writing nothing."""
    settings = request.app.state.settings
    upload = await _upload(request, settings.max_upload_bytes)
    if upload is None:
        return _page(request, 422, error="Choose a file to preview.")
    data, name, format, skip_bad = upload
    preview = await db.write(
        preview_upload,
        viewer,
        data,
        name,
        settings.max_upload_bytes,
        settings.link_threshold,
        format or None,
        skip_bad,
    )
    if preview.refused is not None:
        return _page(request, 422, refused=preview.refused, previewing=True)
    content, digest = carried(data)
    carry = {"content": content, "digest": digest, "name": name, "format": format}
    if skip_bad:
        carry["skip_bad"] = "on"
    return _page(request, preview=preview, carry=carry)


@router.post("/author/import/confirm", name="import_confirm", openapi_extra=CONFIRM_FORM)
async def import_confirm(request: Request, viewer: Author, db: DatabaseDep) -> HTMLResponse:
    """Import the very document a preview showed, carried back by its form."""
    limit = request.app.state.settings.max_upload_bytes
    async with request.form(max_files=0, max_fields=5, max_part_size=carried_size(limit)) as form:
        fields = {name: form.get(name) for name in ("content", "digest", "name", "format")}
        skip_bad = _ticked(form.get("skip_bad"))
    if not all(isinstance(value, str) for value in fields.values()):
        return _page(request, 422, error="Preview the file again, then import it.")
    name = _name(str(fields["name"]))
    try:
        data = uncarried(str(fields["content"]), str(fields["digest"]), name, limit)
    except ImportRefused as exc:
        return _page(request, 422, refused=exc)
    return await _import(request, viewer, db, data, name, str(fields["format"]), skip_bad)
