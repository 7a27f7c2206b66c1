"""Authoring in the browser: edit a question, preview it, see its revisions and restore one.

Authors and admins only (a learner gets 403, a guest goes to log in). Every form works
without JavaScript and follows POST/redirect/GET; a refused save shows the form again with
the author's text and each problem beside its field (422), a stale one with what changed
since (409). htmx swaps the preview in place.
"""

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import load_viewer, require_role
from app.accounts.errors import InvalidInput
from app.accounts.service import Viewer
from app.content import editor, editor_links, reports
from app.content.bundle import DIFFICULTIES, LEVELS
from app.content.checks import MAX_CHOICES, MAX_REFERENCES, Problem
from app.content.dependencies import QuestionId
from app.content.editor import Draft, DraftRefused, EditConflict, Editing
from app.content.editor_form import Posted, apply, drop_empty_rows, opened_revision, read_form
from app.content.markdown import render as render_markdown
from app.content.markdown import render_inline
from app.content.revisions import NOTE_MAX
from app.db import Database
from app.web.dependencies import DatabaseDep
from app.web.forms import INT32_MAX, whole_number
from app.web.limits import FieldText
from app.web.templating import is_htmx, render, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
Author = Annotated[Viewer, Depends(require_role("author"))]
FormText = Annotated[FieldText, Form()]
RevisionPath = Annotated[int, Path(ge=1, le=INT32_MAX, description="Revision number")]
EDITOR_PAGE = "content/editor.html"
HISTORY_PAGE = "content/history.html"


def _editor(
    request: Request,
    editing: Editing,
    *,
    draft: Draft | None = None,
    opened: int | None = None,
    note: str = "",
    q: str = "",
    status_code: int = 200,
    block: str | None = None,
    **context: Any,
) -> HTMLResponse:
    draft = draft or editing.draft
    is_new = editing.id == 0
    known = editing.sections
    # a typed section that is none stays in the search field, where it was typed
    links = [(ref, known.get(ref)) for ref in draft.notes or [] if ref in known or ref != q]
    action = (
        f"{url_for('new_question_post')}?{urlencode({'set': editing.set_slug})}"
        if is_new
        else url_for("edit_question_post", question_id=editing.id)
    )
    values = {
        "is_new": is_new,
        "action": action,
        "editing": editing,
        "draft": draft,
        "opened": editing.number if opened is None else opened,
        "note": note,
        "errors": {},
        "conflict": None,
        "preview": None,
        "difficulties": DIFFICULTIES,
        "levels": LEVELS,
        "max_choices": MAX_CHOICES,
        "reference_rows": min(len(draft.references) + 1, MAX_REFERENCES),
        "note_max": NOTE_MAX,
        "report": None,
        "resolve": False,
        "report_id": None,
        "links": links,
        "q": "" if q in known else q,
        "search": None,
        **context,
    }
    return render(request, EDITOR_PAGE, values, status_code=status_code, block=block)


def field_errors(problems: list[Problem]) -> dict[str, str]:
    """The first message about each field, shown beside it (the summary lists them all)."""
    errors: dict[str, str] = {}
    for problem in problems:
        errors.setdefault(problem.field, problem.message)
    return errors


def _preview(draft: Draft) -> dict[str, Any]:
    """The draft rendered as a learner sees it, by the same Markdown pipeline."""
    return {
        "stem_html": render_markdown(draft.stem),
        "choices": [
            (render_inline(c.text), c.correct, render_markdown(c.feedback)) for c in draft.choices
        ],
        "explanation_html": render_markdown(draft.explanation),
    }


SetSlug = Annotated[str, Query(alias="set", min_length=1, max_length=120, pattern=r"^[a-z0-9-]+$")]


@router.get("/author/questions/new", name="new_question")
async def new_question_form(
    request: Request, viewer: Author, db: DatabaseDep, set_slug: SetSlug
) -> HTMLResponse:
    """Show the editor of a new question for a set."""
    return _editor(request, await db.read(editor.new_question, viewer, set_slug))


@router.post("/author/questions/new", name="new_question_post")
async def new_question(
    request: Request, viewer: Author, db: DatabaseDep, set_slug: SetSlug
) -> Response:
    """Add the question to the set as its revision 1, or preview it, or change the rows."""
    posted = await _posted(request)
    draft, note = posted.draft, posted.note
    if posted.action in FORM_ACTIONS or apply(draft, posted.action):
        editing = await db.read(editor.new_question, viewer, set_slug, draft.notes or [])
        more = await _form_action(db, viewer, posted, editing)
        return _editor(request, editing, draft=draft, note=note, q=posted.q, **more)
    try:
        question_id = await db.write(editor.create_question, viewer, set_slug, draft, note)
    except DraftRefused as exc:
        editing = await db.read(editor.new_question, viewer, set_slug, draft.notes or [])
        return _editor(
            request,
            editing,
            draft=draft,
            note=note,
            q=posted.q,
            errors=field_errors(exc.problems),
            problems=exc.problems,
            status_code=exc.status_code,
        )
    return RedirectResponse(
        f"/author/questions/{question_id}/edit?done=question-added", status_code=303
    )


ReportId = Annotated[int | None, Query(ge=1, le=INT32_MAX, description="Problem report")]


@router.get("/author/questions/{question_id}/edit", name="edit_question")
async def edit_question_form(
    request: Request,
    question_id: QuestionId,
    viewer: Author,
    db: DatabaseDep,
    report: ReportId = None,
) -> HTMLResponse:
    """Show the editor of a question, at its newest revision (beside the report it fixes)."""
    editing = await db.read(editor.open_question, viewer, question_id)
    if report is None:
        return _editor(request, editing)
    shown = await db.read(reports.report_on, viewer, report, question_id)
    open_ = shown.status == "open"
    return _editor(request, editing, report=shown, report_id=shown.id, resolve=open_)


async def _report(db: Database, viewer: Viewer, posted: Posted, question_id: int) -> Any:
    """The report a posted form came from, to show again beside it (None if it names none)."""
    if not posted.report:
        return None
    try:
        return await db.read(reports.report_on, viewer, posted.report, question_id)
    except InvalidInput:
        return None


FORM_ACTIONS = ("preview", "find-link", "add-link")  # show the form again, saving nothing


async def _form_action(
    db: Database, viewer: Viewer, posted: Posted, editing: Editing
) -> dict[str, Any]:
    """What a button that saves nothing shows: the preview, the sections a search found, or
    the problem with a section added."""
    if posted.action == "preview":
        block = "preview" if posted.htmx else None
        return {"preview": _preview(posted.draft), "block": block}
    if posted.action == "find-link":
        return {"search": await db.read(editor_links.find_sections, viewer, posted.q)}
    if posted.action == "add-link":
        problems = editor_links.link_problems(posted.draft.notes or [], editing.sections)
        return {"errors": field_errors(problems), "problems": problems} if problems else {}
    return {}


async def _posted(request: Request) -> Posted:
    async with request.form(max_files=0, max_fields=400) as form:
        rights = [v for v in form.getlist("right") if isinstance(v, str)]
        fixed = [v for v in form.getlist("fixed") if isinstance(v, str)]
        unlinked = [v for v in form.getlist("unlink") if isinstance(v, str)]

        def field(name: str) -> str:
            value = form.get(name)
            return value if isinstance(value, str) else ""

        posted = read_form(field, rights, fixed, unlinked)
    posted.htmx = is_htmx(request)
    if posted.action == "save":
        drop_empty_rows(posted.draft)
    return posted


@router.post("/author/questions/{question_id}/edit", name="edit_question_post")
async def edit_question(
    request: Request, question_id: QuestionId, viewer: Author, db: DatabaseDep
) -> Response:
    """Save the question as a new revision, or preview it, or change the form's rows."""
    posted = await _posted(request)
    draft, note = posted.draft, posted.note
    shown = {
        "report": await _report(db, viewer, posted, question_id),
        "resolve": posted.resolve,
        "report_id": posted.report,
    }
    if posted.action in FORM_ACTIONS or apply(draft, posted.action):
        editing = await db.read(editor.open_question, viewer, question_id, draft.notes or [])
        more = await _form_action(db, viewer, posted, editing)
        return _editor(
            request,
            editing,
            draft=draft,
            opened=posted.opened,
            note=note,
            q=posted.q,
            **more,
            **shown,
        )
    try:
        if posted.opened is None:
            raise DraftRefused(
                [
                    Problem(
                        "opened",
                        "The form did not say which revision it was opened at; open the editor again.",
                    )
                ]
            )
        resolve = posted.report if posted.resolve else None
        saved = await db.write(
            editor.save_question, viewer, question_id, draft, posted.opened, note, resolve
        )
    except DraftRefused as exc:
        editing = await db.read(editor.open_question, viewer, question_id, draft.notes or [])
        return _editor(
            request,
            editing,
            draft=draft,
            opened=posted.opened,
            note=note,
            q=posted.q,
            errors=field_errors(exc.problems),
            problems=exc.problems,
            status_code=exc.status_code,
            **shown,
        )
    except EditConflict as exc:
        editing = await db.read(editor.open_question, viewer, question_id, draft.notes or [])
        # the form now carries the newest revision: saving again replaces it, knowingly
        return _editor(
            request,
            editing,
            draft=draft,
            opened=exc.latest,
            note=note,
            q=posted.q,
            conflict=exc,
            status_code=exc.status_code,
            **shown,
        )
    if saved != posted.opened and await db.read(
        editor.key_changed, question_id, posted.opened, saved
    ):  # on to the dry run of a regrade of what learners answered with the old key
        done = "report-corrected-key-changed" if posted.resolve else "question-key-changed"
        return RedirectResponse(f"/author/questions/{question_id}/regrade?done={done}", 303)
    if posted.resolve:
        target = f"/author/reports?done=report-corrected#report-{posted.report}"
        return RedirectResponse(target, status_code=303)
    done = "question-saved" if saved != posted.opened else "question-unchanged"
    return RedirectResponse(f"/author/questions/{question_id}/edit?done={done}", status_code=303)


@router.get("/author/note-sections", name="find_note_sections")
async def find_note_sections(
    request: Request,
    viewer: Author,
    db: DatabaseDep,
    q: Annotated[str, Query(description="Part of a section's heading")] = "",
) -> HTMLResponse:
    """List the note sections whose heading holds q, to choose one to link (the editor's
    search as you type; the editor's "Find" button shows the same list without JavaScript)."""
    search = await db.read(editor_links.find_sections, viewer, q)
    return render(request, EDITOR_PAGE, {"search": search}, block="link_options")


@router.post("/author/questions/{question_id}/retire", name="retire_question")
async def retire_question(
    question_id: QuestionId, viewer: Author, db: DatabaseDep, retire: FormText = ""
) -> Response:
    """Retire the question (retire=yes) or bring it back (retire=no)."""
    if retire not in ("yes", "no"):
        raise InvalidInput("retire", "Say whether to retire the question (yes) or not (no).")
    await db.write(editor.retire_question, viewer, question_id, retire == "yes")
    done = "question-retired" if retire == "yes" else "question-returned"
    return RedirectResponse(f"/author/questions/{question_id}/edit?done={done}", status_code=303)


@router.get("/author/questions/{question_id}/history", name="question_history")
async def question_history(
    request: Request,
    question_id: QuestionId,
    viewer: Author,
    db: DatabaseDep,
    old: Annotated[str, Query(max_length=12)] = "",
    new: Annotated[str, Query(max_length=12)] = "",
) -> HTMLResponse:
    """List a question's revisions and show what changed between two of them."""
    history = await db.read(editor.question_history, viewer, question_id)
    numbers = [r.number for r in history.revisions]
    newest = numbers[0] if numbers else 0
    new_n = whole_number(new, 1, INT32_MAX) or newest
    old_n = whole_number(old, 1, INT32_MAX) or (numbers[1] if len(numbers) > 1 else newest)
    error = None
    if new_n not in numbers or old_n not in numbers:
        error, old_n, new_n = (
            "There is no revision with that number; showing the newest two.",
            (numbers[1] if len(numbers) > 1 else newest),
            newest,
        )
    changes = await db.read(editor.compare, viewer, question_id, old_n, new_n) if numbers else []
    context = {
        "history": history,
        "history_url": url_for("question_history", question_id=question_id),
        "old": old_n,
        "new": new_n,
        "changes": changes,
        "newest": newest,
        "error": error,
        "note_max": NOTE_MAX,
    }
    return render(request, HISTORY_PAGE, context, status_code=404 if error else 200)


@router.post("/author/questions/{question_id}/history/{number}/restore", name="restore_revision")
async def restore_revision(
    request: Request,
    question_id: QuestionId,
    number: RevisionPath,
    viewer: Author,
    db: DatabaseDep,
    opened: FormText = "",
    note: FormText = "",
) -> Response:
    """Save an old revision's content as a new revision, then show the history."""
    try:
        at = opened_revision(opened)
        await db.write(editor.restore_revision, viewer, question_id, number, at, note)
    except (DraftRefused, EditConflict) as exc:
        history = await db.read(editor.question_history, viewer, question_id)
        newest = history.revisions[0].number if history.revisions else 0
        context = {
            "history": history,
            "history_url": url_for("question_history", question_id=question_id),
            "old": number,
            "new": newest,
            "newest": newest,
            "changes": await db.read(editor.compare, viewer, question_id, number, newest),
            "error": exc.message,
            "note_max": NOTE_MAX,
        }
        return render(request, HISTORY_PAGE, context, status_code=exc.status_code)
    return RedirectResponse(
        f"/author/questions/{question_id}/history?done=revision-restored", status_code=303
    )
