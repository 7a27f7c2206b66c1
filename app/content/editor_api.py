"""The question editor as JSON: read a question's newest revision, save a new one.

`PUT` takes the revision it was based on, like the editor's form: a save after someone
else's is refused (409) with the newest revision's number, a faulty one (422) with each
problem and the part of the question it is about. Author-scoped tokens and up.
"""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.accounts.dependencies import load_viewer, require_role
from app.accounts.service import Viewer
from app.content import editor, note_editor
from app.content.bundle import ChoiceData, ReferenceData
from app.content.checks import MAX_CHOICES, MAX_REFERENCES, MAX_VERSIONS
from app.content.dependencies import QuestionId, Slug
from app.content.editor import Draft, DraftRefused, EditConflict
from app.content.editor_links import MAX_LINKS
from app.content.note_editor import MAX_SECTIONS, NoteDraft, SectionDraft
from app.content.revisions import NOTE_MAX
from app.web.dependencies import DatabaseDep
from app.web.forms import INT32_MAX
from app.web.schemas import NOT_FOUND, ErrorOut

router = APIRouter(
    prefix="/api/v1/author",
    tags=["authoring"],
    responses={
        **NOT_FOUND,
        403: {"model": ErrorOut, "description": "Not an author, or a token scope below author"},
    },
    dependencies=[Depends(load_viewer)],
)
Author = Annotated[Viewer, Depends(require_role("author"))]
Text = Annotated[str, StringConstraints(max_length=20_000)]
Short = Annotated[str, StringConstraints(max_length=2_000)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChoiceIn(_In):
    text: Text
    correct: bool = False
    feedback: Text = ""


class ReferenceIn(_In):
    url: Short
    title: Short | None = None
    version: Short | None = None


class ContentIn(_In):
    stem: Text
    explanation: Text = ""
    kind: Annotated[str, StringConstraints(pattern="^(single|multi)$")] = "single"
    choices: list[ChoiceIn] = Field(max_length=MAX_CHOICES)
    references: list[ReferenceIn] = Field(default=[], max_length=MAX_REFERENCES)
    topic: Annotated[str, StringConstraints(max_length=120)] | None = None
    difficulty: Annotated[str, StringConstraints(max_length=20)] | None = None
    level: Annotated[str, StringConstraints(max_length=20)] | None = None
    versions: list[Annotated[str, StringConstraints(max_length=80)]] = Field(
        default=[], max_length=MAX_VERSIONS + 1
    )
    notes: list[Annotated[str, StringConstraints(max_length=300)]] | None = Field(
        default=None,
        max_length=MAX_LINKS + 1,
        description='The note sections it links to, as "note-slug#anchor"; none leaves them',
    )

    def draft(self) -> Draft:
        return Draft(
            stem=self.stem,
            explanation=self.explanation,
            kind=self.kind,
            choices=[ChoiceData(c.text, c.correct, c.feedback) for c in self.choices],
            references=[ReferenceData(r.url, r.title, r.version) for r in self.references],
            topic=self.topic,
            difficulty=self.difficulty,
            level=self.level,
            versions=self.versions,
            notes=self.notes,
        )


class QuestionSave(_In):
    revision: Annotated[int, Field(ge=0, le=INT32_MAX)]  # the revision the change is based on
    note: Annotated[str, StringConstraints(max_length=NOTE_MAX)]
    content: ContentIn


class AuthoredQuestion(BaseModel):
    id: int
    set: str
    key: str
    revision: int
    retired: bool
    content: dict[str, Any]


def _out(editing: editor.Editing) -> AuthoredQuestion:
    draft = editing.draft
    content = {
        "stem": draft.stem,
        "explanation": draft.explanation,
        "kind": draft.kind,
        "choices": [
            {"text": c.text, "correct": c.correct, "feedback": c.feedback} for c in draft.choices
        ],
        "references": [
            {"url": r.url, "title": r.title, "version": r.version} for r in draft.references
        ],
        "topic": draft.topic,
        "difficulty": draft.difficulty,
        "level": draft.level,
        "versions": draft.versions,
        "notes": draft.notes,
    }
    return AuthoredQuestion(
        id=editing.id,
        set=editing.set_slug,
        key=editing.key,
        revision=editing.number,
        retired=editing.retired,
        content=content,
    )


def _refused(exc: DraftRefused | EditConflict) -> JSONResponse:
    if isinstance(exc, EditConflict):
        return JSONResponse({"detail": exc.message, "latest": exc.latest}, status_code=409)
    problems = [{"field": p.field, "message": p.message} for p in exc.problems]
    return JSONResponse({"detail": exc.message, "problems": problems}, status_code=422)


@router.get("/questions/{question_id}", response_model=AuthoredQuestion)
async def get_authored_question(
    question_id: QuestionId, viewer: Author, db: DatabaseDep
) -> AuthoredQuestion:
    """Get a question's content as its newest revision holds it, with that revision's number."""
    return _out(await db.read(editor.open_question, viewer, question_id))


@router.put(
    "/questions/{question_id}",
    response_model=AuthoredQuestion,
    responses={
        409: {"description": "Someone saved a newer revision: `latest` is its number"},
        422: {"description": "The content breaks the rules: `problems` name each field"},
    },
)
async def put_authored_question(
    question_id: QuestionId, body: QuestionSave, viewer: Author, db: DatabaseDep
) -> Any:
    """Save the content as a new revision, based on the revision given."""
    try:
        await db.write(
            editor.save_question,
            viewer,
            question_id,
            body.content.draft(),
            body.revision,
            body.note,
        )
    except (DraftRefused, EditConflict) as exc:
        return _refused(exc)
    return _out(await db.read(editor.open_question, viewer, question_id))


class SectionIn(_In):
    anchor: Annotated[str, StringConstraints(max_length=120)] | None = Field(
        default=None,
        description="The section's anchor: keep it to keep the section; none for a new one",
    )
    heading: Short
    body: Text = ""
    level: Literal[1, 2] = 2


class NoteContentIn(_In):
    title: Short
    intro: Text = ""
    sections: list[SectionIn] = Field(max_length=MAX_SECTIONS)

    def draft(self) -> NoteDraft:
        return NoteDraft(
            self.title,
            self.intro,
            [SectionDraft(s.heading, s.body, s.anchor or "", s.level) for s in self.sections],
        )


class NoteSave(_In):
    revision: Annotated[int, Field(ge=0, le=INT32_MAX)]  # the revision the change is based on
    note: Annotated[str, StringConstraints(max_length=NOTE_MAX)]
    content: NoteContentIn


class AuthoredNote(BaseModel):
    slug: str
    revision: int
    content: dict[str, Any]


def _note_out(editing: note_editor.NoteEditing) -> AuthoredNote:
    draft = editing.draft
    sections = [
        {"anchor": s.anchor, "heading": s.heading, "level": s.level, "body": s.body}
        for s in draft.sections
    ]
    content = {"title": draft.title, "intro": draft.intro, "sections": sections}
    return AuthoredNote(slug=editing.slug, revision=editing.number, content=content)


@router.get("/notes/{slug}", response_model=AuthoredNote)
async def get_authored_note(slug: Slug, viewer: Author, db: DatabaseDep) -> AuthoredNote:
    """Get a note's sections as its newest revision holds them, with that revision's number."""
    return _note_out(await db.read(note_editor.open_note, viewer, slug))


@router.put(
    "/notes/{slug}",
    response_model=AuthoredNote,
    responses={
        409: {"description": "Someone saved a newer revision: `latest` is its number"},
        422: {"description": "The content breaks the rules: `problems` name each field"},
    },
)
async def put_authored_note(slug: Slug, body: NoteSave, viewer: Author, db: DatabaseDep) -> Any:
    """Save the note as a new revision, based on the revision given; sections keep anchors."""
    try:
        await db.write(
            note_editor.save_note, viewer, slug, body.content.draft(), body.revision, body.note
        )
    except (DraftRefused, EditConflict) as exc:
        return _refused(exc)
    return _note_out(await db.read(note_editor.open_note, viewer, slug))
