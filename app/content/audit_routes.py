"""The admins' audit log page: content changes, resolved reports and role changes."""

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from app.accounts.dependencies import load_viewer, require_role
from app.accounts.service import Viewer
from app.content import audit
from app.content.dependencies import PageNumber
from app.content.errata import KINDS
from app.web.dependencies import DatabaseDep
from app.web.templating import render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
Admin = Annotated[Viewer, Depends(require_role("admin"))]
Kind = Annotated[Literal["", "content", "report", "role"], Query(description="Only this kind")]


@router.get("/admin/audit", name="audit_log")
async def audit_log(
    request: Request, viewer: Admin, db: DatabaseDep, kind: Kind = "", page: PageNumber = 1
) -> HTMLResponse:
    """List who changed what and when, newest first, of one kind or all (admins only)."""
    log = await db.read(audit.audit_log, viewer, kind or None, page)
    context = {"log": log, "kinds": audit.KINDS, "report_kinds": KINDS}
    response = render(request, "content/audit.html", context)
    response.headers["cache-control"] = "no-store"
    return response
