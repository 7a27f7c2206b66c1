"""The content JSON API under /api/v1."""

from dataclasses import asdict
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from starlette.concurrency import run_in_threadpool

from app.accounts.dependencies import CurrentViewer, load_viewer
from app.content import queries
from app.content.dependencies import NoteDep, QuestionDep, Slug
from app.content.schemas import (
    CheckIn,
    CheckOut,
    ErrorOut,
    NoteDetail,
    NoteLinkOut,
    NoteOut,
    QuestionOut,
    QuestionPage,
    QuestionSetDetail,
    QuestionSetOut,
    SectionOut,
    TopicDetail,
    TopicOut,
)
from app.content.service import check_answer
from app.content.views import QuestionSummary, TopicRef, TopicSummary
from app.progress.service import save_answer
from app.web.dependencies import CacheDep, SessionDep

NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorOut, "description": "Not found"}}
router = APIRouter(
    prefix="/api/v1", tags=["content"], responses=NOT_FOUND, dependencies=[Depends(load_viewer)]
)


def _topic(summary: TopicSummary) -> dict[str, Any]:
    return {
        "slug": summary.slug,
        "title": summary.title,
        "question_count": summary.question_count,
        "note_count": summary.note_count,
        "children": [_topic(child) for child in summary.children],
    }


def _ref(ref: TopicRef | None) -> dict[str, str] | None:
    return asdict(ref) if ref is not None else None


def _summary(question: QuestionSummary) -> dict[str, Any]:
    return {
        "id": question.id,
        "set": question.set_slug,
        "key": question.key,
        "stem_html": question.stem_html,
        "topic": _ref(question.topic),
    }


@router.get("/topics", response_model=list[TopicOut])
async def list_topics(cache: CacheDep) -> list[dict[str, Any]]:
    """List the topic tree from its roots."""
    return [_topic(t) for t in await cache.get("topics", queries.topics_list)]


@router.get("/topics/{slug}", response_model=TopicDetail)
async def get_topic(slug: Slug, cache: CacheDep) -> dict[str, Any]:
    """Get a topic with its subtopics, notes and questions."""
    view = await cache.get(("topic", slug), partial(queries.topic, slug=slug))
    return {
        **_topic(view.topic),
        "ancestors": [asdict(a) for a in view.ancestors],
        "notes": [{**asdict(n), "topic": _ref(n.topic)} for n in view.notes],
        "questions": [_summary(q) for q in view.questions],
    }


@router.get("/question-sets", response_model=list[QuestionSetOut])
async def list_question_sets(cache: CacheDep) -> list[dict[str, Any]]:
    """List the question sets."""
    sets = await cache.get("sets", queries.set_summaries)
    return [{"slug": s.slug, "title": s.title, "question_count": s.question_count} for s in sets]


@router.get("/question-sets/{slug}", response_model=QuestionSetDetail)
async def get_question_set(slug: Slug, cache: CacheDep) -> dict[str, Any]:
    """Get a question set with its questions."""
    view = await cache.get(("set", slug), partial(queries.question_set, slug=slug))
    return {
        "slug": view.set.slug,
        "title": view.set.title,
        "question_count": view.set.question_count,
        "source": view.source,
        "topic": _ref(view.topic),
        "questions": [_summary(q) for q in view.questions],
    }


@router.get("/questions", response_model=QuestionPage)
def list_questions(
    session: SessionDep,
    set: Annotated[str | None, Query(max_length=120, description="Question set slug")] = None,
    topic: Annotated[str | None, Query(max_length=120, description="Topic slug")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> dict[str, Any]:
    """List questions, optionally of one set or topic, a page at a time."""
    total, items = queries.questions_page(
        session, set_slug=set, topic_slug=topic, limit=limit, offset=offset
    )
    return {"total": total, "limit": limit, "offset": offset, "items": [_summary(q) for q in items]}


@router.get("/questions/{question_id}", response_model=QuestionOut)
async def get_question(view: QuestionDep) -> dict[str, Any]:
    """Get a question with its choices (which ones are right stays secret)."""
    return {
        "id": view.id,
        "set": asdict(view.set),
        "topic": _ref(view.topic),
        "kind": view.kind,
        "position": view.position,
        "total": view.total,
        "stem": view.stem_md,
        "stem_html": view.stem_html,
        "choices": [{"id": c.id, "position": c.position, "html": c.html} for c in view.choices],
    }


@router.post(
    "/questions/{question_id}/check",
    response_model=CheckOut,
    responses={422: {"description": "No choice, a choice of another question, or too many"}},
)
async def check_question(
    request: Request, view: QuestionDep, body: CheckIn, viewer: CurrentViewer
) -> dict[str, Any]:
    """Check chosen choices: correctness, the right choices, the explanation and notes.

    A logged-in learner's answer is recorded; a guest's is not.
    """
    result = check_answer(view, body.choice_ids)
    if viewer is not None:
        await run_in_threadpool(save_answer, request.app.state.db, viewer.id, result)
    return {
        "correct": result.correct,
        "selected_ids": list(result.selected_ids),
        "correct_choice_ids": list(view.correct_ids),
        "explanation": view.explanation_md,
        "explanation_html": view.explanation_html,
        "notes": [
            NoteLinkOut(
                note=link.note_slug,
                note_title=link.note_title,
                anchor=link.anchor,
                heading=link.heading,
                origin=link.origin,
                score=link.score,
            )
            for link in view.links
        ],
    }


@router.get("/notes", response_model=list[NoteOut])
async def list_notes(cache: CacheDep) -> list[dict[str, Any]]:
    """List the notes."""
    notes = await cache.get("notes", queries.notes_list)
    return [{**asdict(n), "topic": _ref(n.topic)} for n in notes]


@router.get("/notes/{slug}", response_model=NoteDetail)
async def get_note(view: NoteDep) -> dict[str, Any]:
    """Get a note: its Markdown, rendered sections and the questions each one teaches."""
    return {
        "slug": view.slug,
        "title": view.title,
        "author": view.author,
        "topic": _ref(view.topic),
        "source": view.source,
        "markdown": view.markdown,
        "sections": [
            SectionOut(
                anchor=s.anchor,
                heading=s.heading,
                level=s.level,
                html=s.html,
                question_ids=[q.id for q in s.questions],
            )
            for s in view.sections
        ],
    }
