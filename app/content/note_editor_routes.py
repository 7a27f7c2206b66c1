"""The note editor in the browser: a note's sections, a preview, its revisions and restore.

Authors and admins only (a learner gets 403, a guest goes to log in). The form works without
JavaScript: its buttons add, move and remove sections in the form itself, and only Save
writes; a refused save shows the form again with each problem beside its field (422), a
stale one with what changed since (409). htmx swaps the preview in place.
"""

from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import load_viewer
from app.content import note_editor
from app.content.checks import Problem
from app.content.dependencies import Slug
from app.content.editor import DraftRefused, EditConflict
from app.content.editor_form import opened_revision
from app.content.editor_routes import Author, FormText, RevisionPath, field_errors
from app.content.markdown import render_note, slugify, unique_slug
from app.content.note_editor import MAX_SECTIONS, NoteDraft, NoteEditing, SectionDraft
from app.content.revisions import NOTE_MAX
from app.web.dependencies import DatabaseDep
from app.web.forms import INT32_MAX, whole_number
from app.web.templating import is_htmx, render, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
EDITOR_PAGE = "content/note_editor.html"
HISTORY_PAGE = "content/note_history.html"


def _editor(
    request: Request,
    editing: NoteEditing,
    *,
    draft: NoteDraft | None = None,
    opened: int | None = None,
    why: str = "",
    status_code: int = 200,
    block: str | None = None,
    **context: Any,
) -> HTMLResponse:
    values = {
        "editing": editing,
        "draft": draft or editing.draft,
        "opened": editing.number if opened is None else opened,
        "why": why,
        "errors": {},
        "problems": [],
        "conflict": None,
        "preview": None,
        "max_sections": MAX_SECTIONS,
        "note_max": NOTE_MAX,
        **context,
    }
    return render(request, EDITOR_PAGE, values, status_code=status_code, block=block)


def _read(field: Callable[[str], str]) -> tuple[NoteDraft, int | None, str, str]:
    """The draft, the revision it was opened at, the note saying why and the button pressed."""
    sections = [
        SectionDraft(
            field(f"section-{n}-heading"),
            field(f"section-{n}-body"),
            field(f"section-{n}-anchor"),
            1 if field(f"section-{n}-level") == "1" else 2,
        )
        for n in range(1, (whole_number(field("sections"), 0, MAX_SECTIONS) or 0) + 1)
    ]
    draft = NoteDraft(field("title"), field("intro"), sections)
    opened = whole_number(field("opened"), 0, INT32_MAX)
    return draft, opened, field("note"), field("action") or "save"


async def _posted(request: Request) -> tuple[NoteDraft, int | None, str, str]:
    async with request.form(max_files=0, max_fields=5 * MAX_SECTIONS + 10) as form:

        def field(name: str) -> str:
            value = form.get(name)
            return value if isinstance(value, str) else ""

        return _read(field)


def _apply(draft: NoteDraft, action: str, editing: NoteEditing) -> Problem | bool:
    """Apply a button that changes the form itself: False when action is none of them, a
    problem when it is refused, else True."""
    if action == "add-section":
        if len(draft.sections) < MAX_SECTIONS:
            draft.sections.append(SectionDraft(""))
        return True
    name, _, number = action.partition("-")
    at = whole_number(number, 1, len(draft.sections))
    if name not in ("remove", "up", "down") or at is None:
        return False
    i, sections = at - 1, draft.sections
    if name == "remove":
        linked = editing.linked.get(sections[i].anchor) if sections[i].anchor else None
        if linked:
            heading = sections[i].heading or f"section {at}"
            return Problem(f"section-{at}-heading", note_editor.removal_refused(heading, linked))
        del sections[i]
    elif name == "up" and i > 0:
        sections[i - 1 : i + 1] = [sections[i], sections[i - 1]]
    elif name == "down" and i < len(sections) - 1:
        sections[i : i + 2] = [sections[i + 1], sections[i]]
    return True


def _preview(draft: NoteDraft) -> dict[str, Any]:
    """The draft rendered as the note page shows it, by the same Markdown pipeline."""
    shown = draft.tidied()
    taken = {s.anchor for s in shown.sections if s.anchor}
    for s in shown.sections:
        s.anchor = s.anchor or unique_slug(slugify(s.heading), taken)
    rendered = render_note(note_editor.compose(shown))
    return {
        "title": shown.title,
        "intro_html": rendered.intro,
        "sections": [(s.heading, rendered.sections.get(s.anchor, "")) for s in shown.sections],
        "footnotes_html": rendered.footnotes,
    }


@router.get("/author/notes/{slug}/edit", name="edit_note")
async def edit_note_form(
    request: Request, slug: Slug, viewer: Author, db: DatabaseDep
) -> HTMLResponse:
    """Show the editor of a note, at its newest revision."""
    return _editor(request, await db.read(note_editor.open_note, viewer, slug))


@router.post("/author/notes/{slug}/edit", name="edit_note_post")
async def edit_note(request: Request, slug: Slug, viewer: Author, db: DatabaseDep) -> Response:
    """Save the note as a new revision, or preview it, or change the form's sections."""
    draft, opened, why, action = await _posted(request)
    editing = await db.read(note_editor.open_note, viewer, slug)
    show = partial(_editor, request, editing, draft=draft, why=why)
    if action == "preview":
        block = "preview" if is_htmx(request) else None
        return show(opened=opened, preview=_preview(draft), block=block)
    applied = _apply(draft, action, editing)
    if isinstance(applied, Problem):
        return show(
            opened=opened, errors=field_errors([applied]), problems=[applied], status_code=422
        )
    if applied:
        return show(opened=opened)
    try:
        if opened is None:
            raise DraftRefused(
                [
                    Problem(
                        "opened",
                        "The form did not say which revision it was opened at; open the editor again.",
                    )
                ]
            )
        saved = await db.write(note_editor.save_note, viewer, slug, draft, opened, why)
    except DraftRefused as exc:
        return show(
            opened=opened,
            errors=field_errors(exc.problems),
            problems=exc.problems,
            status_code=exc.status_code,
        )
    except EditConflict as exc:
        # the form now carries the newest revision: saving again replaces it, knowingly
        return show(opened=exc.latest, conflict=exc, status_code=exc.status_code)
    done = "note-saved" if saved != opened else "note-unchanged"
    return RedirectResponse(f"/author/notes/{slug}/edit?done={done}", status_code=303)


@router.get("/author/notes/{slug}/history", name="note_history")
async def note_history(
    request: Request,
    slug: Slug,
    viewer: Author,
    db: DatabaseDep,
    old: Annotated[str, Query(max_length=12)] = "",
    new: Annotated[str, Query(max_length=12)] = "",
) -> HTMLResponse:
    """List a note's revisions and show what changed between two of them."""
    history = await db.read(note_editor.note_history, viewer, slug)
    numbers = [r.number for r in history.revisions]
    newest = numbers[0] if numbers else 0
    older = numbers[1] if len(numbers) > 1 else newest
    new_n = whole_number(new, 1, INT32_MAX) or newest
    old_n = whole_number(old, 1, INT32_MAX) or older
    error = None
    if new_n not in numbers or old_n not in numbers:
        error = "There is no revision with that number; showing the newest two."
        old_n, new_n = older, newest
    changes = await db.read(note_editor.compare, viewer, slug, old_n, new_n) if numbers else []
    context = _history(history, old_n, new_n, changes, error)
    return render(request, HISTORY_PAGE, context, status_code=404 if error else 200)


def _history(
    history: note_editor.NoteHistory, old: int, new: int, changes: list, error: str | None
) -> dict[str, Any]:
    newest = history.revisions[0].number if history.revisions else 0
    return {
        "history": history,
        "history_url": url_for("note_history", slug=history.slug),
        "old": old,
        "new": new,
        "changes": changes,
        "newest": newest,
        "error": error,
        "note_max": NOTE_MAX,
    }


@router.post("/author/notes/{slug}/history/{number}/restore", name="restore_note_revision")
async def restore_note_revision(
    request: Request,
    slug: Slug,
    number: RevisionPath,
    viewer: Author,
    db: DatabaseDep,
    opened: FormText = "",
    note: FormText = "",
) -> Response:
    """Save an old revision's text as a new revision, then show the history."""
    try:
        at = opened_revision(opened)
        await db.write(note_editor.restore_note, viewer, slug, number, at, note)
    except (DraftRefused, EditConflict) as exc:
        history = await db.read(note_editor.note_history, viewer, slug)
        newest = history.revisions[0].number if history.revisions else 0
        changes = await db.read(note_editor.compare, viewer, slug, number, newest)
        context = _history(history, number, newest, changes, exc.message)
        return render(request, HISTORY_PAGE, context, status_code=exc.status_code)
    return RedirectResponse(f"/author/notes/{slug}/history?done=revision-restored", status_code=303)
