"""Pages for reporting problems, for the authors' queue of reports, for dismissing the
notices a report's fix leaves, and for deciding links.

Every form works without JavaScript and follows POST/redirect/GET; a refused form is shown
again with what was typed and a message per field (422). Cross-site posts are refused for
every form by the CrossOriginProtection middleware.
"""

from datetime import timedelta
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from fastapi import APIRouter, Depends, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import RequiredViewer, load_viewer, require_role
from app.accounts.errors import InvalidInput
from app.accounts.routes import safe_next
from app.accounts.service import Viewer
from app.content import notices, reports
from app.content.dependencies import QuestionId, Slug
from app.content.errata import KINDS, TEXT_MAX
from app.content.service import decide_link
from app.db import Database
from app.web.dependencies import DatabaseDep
from app.web.forms import INT32_MAX
from app.web.limits import FieldText
from app.web.templating import is_htmx, render

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
FormText = Annotated[FieldText, Form()]
Author = Annotated[Viewer, Depends(require_role("author"))]
ItemId = Annotated[int, Path(ge=1, le=INT32_MAX)]
REPORT_PAGE = "content/report.html"


def _limit(request: Request) -> reports.Limit:
    settings = request.app.state.settings
    return reports.Limit(
        settings.report_limit, timedelta(minutes=settings.rate_limit_window_minutes)
    )


def _with_flash(target: str, done: str) -> str:
    """Add `?done=...` to a local path, keeping its fragment (where the page should land)."""
    parts = urlsplit(safe_next(target))
    return urlunsplit(("", "", parts.path, f"done={done}", parts.fragment))


def _report_form(request: Request, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    defaults = {"kinds": KINDS, "max_text": TEXT_MAX, "values": {}, "errors": {}, "error": None}
    return render(request, REPORT_PAGE, {**defaults, **context}, status_code=status_code)


@router.get("/questions/{question_id}/report", name="report_question")
async def report_question_form(
    request: Request, question_id: QuestionId, viewer: RequiredViewer, db: DatabaseDep
) -> HTMLResponse:
    """Show the form for reporting a problem with a question."""
    stem = await db.read(reports.question_stem, question_id)
    return _report_form(request, {"question_id": question_id, "about": stem})


@router.post("/questions/{question_id}/report", name="report_question_post")
async def report_question(
    request: Request,
    question_id: QuestionId,
    viewer: RequiredViewer,
    db: DatabaseDep,
    kind: FormText = "",
    text: FormText = "",
) -> Response:
    """Report a problem with a question, then go back to it."""
    try:
        await db.write(
            reports.report_problem,
            viewer,
            kind=kind,
            text=text,
            limit=_limit(request),
            question_id=question_id,
        )
    except InvalidInput as exc:
        context = {
            "question_id": question_id,
            "about": await db.read(reports.question_stem, question_id),
            "values": {"kind": kind, "text": text[: TEXT_MAX * 2]},
            "errors": exc.errors,
        }
        return _report_form(request, context, exc.status_code)
    return RedirectResponse(f"/questions/{question_id}?done=reported", status_code=303)


@router.get("/notes/{slug}/report", name="report_note")
async def report_note_form(
    request: Request,
    slug: Slug,
    viewer: RequiredViewer,
    db: DatabaseDep,
    section: Annotated[str, Query(max_length=120)] = "",
) -> HTMLResponse:
    """Show the form for reporting a problem with a note, on the section given."""
    title, sections = await db.read(reports.note_sections, slug)
    context = {"slug": slug, "about": title, "sections": sections, "values": {"section": section}}
    return _report_form(request, context)


@router.post("/notes/{slug}/report", name="report_note_post")
async def report_note(
    request: Request,
    slug: Slug,
    viewer: RequiredViewer,
    db: DatabaseDep,
    section: FormText = "",
    kind: FormText = "",
    text: FormText = "",
) -> Response:
    """Report a problem with a section of a note, then go back to that section."""
    try:
        await db.write(
            reports.report_problem,
            viewer,
            kind=kind,
            text=text,
            limit=_limit(request),
            note_slug=slug,
            anchor=section,
        )
    except InvalidInput as exc:
        title, sections = await db.read(reports.note_sections, slug)
        values = {"section": section, "kind": kind, "text": text[: TEXT_MAX * 2]}
        context = {"slug": slug, "about": title, "sections": sections, "values": values}
        return _report_form(request, {**context, "errors": exc.errors}, exc.status_code)
    return RedirectResponse(f"/notes/{slug}?done=reported#{section}", status_code=303)


async def _queue(
    request: Request, db: Database, viewer: Viewer, status: str, **context: Any
) -> HTMLResponse:
    code = context.pop("code", 200)
    items = await db.read(reports.report_queue, viewer, status)
    page = {"items": items, "status": status, "max_text": TEXT_MAX, "errors": {}, **context}
    return render(request, "content/reports.html", page, status_code=code)


@router.get("/author/reports", name="reports")
async def report_queue(
    request: Request,
    viewer: Author,
    db: DatabaseDep,
    status: Literal["open", "resolved"] = "open",
) -> HTMLResponse:
    """List the problem reports waiting for an author (or those resolved)."""
    return await _queue(request, db, viewer, status)


@router.post("/author/reports/{report_id}/resolve", name="resolve_report")
async def resolve_report(
    request: Request,
    report_id: ItemId,
    viewer: Author,
    db: DatabaseDep,
    resolution: FormText = "",
) -> Response:
    """Resolve a report with a note saying what was done."""
    try:
        await db.write(reports.resolve_report, viewer, report_id, resolution)
    except InvalidInput as exc:
        errors = {report_id: exc.message}
        return await _queue(request, db, viewer, "open", errors=errors, code=exc.status_code)
    return RedirectResponse("/author/reports?done=report-resolved", status_code=303)


@router.post("/author/reports/{report_id}/erratum", name="mark_erratum")
async def mark_erratum(
    report_id: ItemId, viewer: Author, db: DatabaseDep, shown: FormText = ""
) -> Response:
    """Show a report on its content as an erratum, or stop showing it."""
    await db.write(reports.mark_erratum, viewer, report_id, shown == "yes")
    done = "erratum-shown" if shown == "yes" else "erratum-hidden"
    return RedirectResponse(f"/author/reports?done={done}#report-{report_id}", status_code=303)


@router.post("/notices/{notice_id}/dismiss", name="dismiss_notice")
async def dismiss_notice(
    request: Request,
    notice_id: ItemId,
    viewer: RequiredViewer,
    db: DatabaseDep,
    next: FormText = "",
) -> Response:
    """Dismiss one of my notices, then go back to the page it was on (htmx: drop it in place)."""
    await db.write(notices.dismiss, viewer, notice_id)
    if is_htmx(request):
        return HTMLResponse("")
    return RedirectResponse(_with_flash(next or "/progress", "notice-dismissed"), status_code=303)


@router.post("/questions/{question_id}/links/{section_id}", name="decide_link")
async def decide_question_link(
    question_id: QuestionId,
    section_id: ItemId,
    viewer: RequiredViewer,
    db: DatabaseDep,
    decision: FormText = "",
    next: FormText = "",
) -> Response:
    """Confirm or reject a suggested link, then go back to the page it was decided on."""
    outcome = await db.write(decide_link, viewer, question_id, section_id, decision)
    target = next or f"/questions/{question_id}"
    return RedirectResponse(_with_flash(target, f"link-{outcome}"), status_code=303)
