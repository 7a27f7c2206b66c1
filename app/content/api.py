"""The content JSON API under /api/v1; read models go out through the schemas' one mapping."""

from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from app.accounts.dependencies import load_viewer
from app.content import queries
from app.content.dependencies import NoteDep, PageNumber, QuestionDep, Slug
from app.content.read_models import NoteSummary, NoteView, QuestionView, SetView, TopicView
from app.content.schemas import (
    NoteDetail,
    NoteOut,
    QuestionOut,
    QuestionPage,
    QuestionSetDetail,
    QuestionSetOut,
    TopicDetail,
    TopicOut,
)
from app.web.dependencies import CacheDep, DatabaseDep
from app.web.schemas import NOT_FOUND

router = APIRouter(
    prefix="/api/v1", tags=["content"], responses=NOT_FOUND, dependencies=[Depends(load_viewer)]
)


@router.get("/topics", response_model=list[TopicOut])
async def list_topics(cache: CacheDep) -> Any:
    """List the topic tree from its roots."""
    return await cache.get("topics", queries.topics_list)


@router.get("/topics/{slug}", response_model=TopicDetail)
async def get_topic(slug: Slug, cache: CacheDep, page: PageNumber = 1) -> TopicView:
    """Get a topic with its subtopics, and the notes and a page of the questions (50 a page) of
    the topic and all its subtopics."""
    return await cache.get(("topic", slug, page), partial(queries.topic, slug=slug, page=page))


@router.get("/question-sets", response_model=list[QuestionSetOut])
async def list_question_sets(cache: CacheDep) -> Any:
    """List the question sets."""
    return await cache.get("sets", queries.set_summaries)


@router.get("/question-sets/{slug}", response_model=QuestionSetDetail)
async def get_question_set(slug: Slug, cache: CacheDep, page: PageNumber = 1) -> SetView:
    """Get a question set with a page of its questions (50 a page)."""
    return await cache.get(("set", slug, page), partial(queries.question_set, slug=slug, page=page))


@router.get("/questions", response_model=QuestionPage)
async def list_questions(
    db: DatabaseDep,
    set: Annotated[str | None, Query(max_length=120, description="Question set slug")] = None,
    topic: Annotated[str | None, Query(max_length=120, description="Topic slug")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> dict[str, Any]:
    """List questions, optionally of one set or topic, a page at a time."""
    total, items = await db.read(
        queries.questions_page, set_slug=set, topic_slug=topic, limit=limit, offset=offset
    )
    return {"total": total, "limit": limit, "offset": offset, "items": items}


@router.get("/questions/{question_id}", response_model=QuestionOut)
async def get_question(view: QuestionDep) -> QuestionView:
    """Get a question with its choices (which ones are right stays secret)."""
    return view


@router.get("/notes", response_model=list[NoteOut])
async def list_notes(cache: CacheDep) -> tuple[NoteSummary, ...]:
    """List the notes."""
    return await cache.get("notes", queries.notes_list)


@router.get("/notes/{slug}", response_model=NoteDetail)
async def get_note(view: NoteDep) -> NoteView:
    """Get a note: its Markdown, rendered sections and the questions each one teaches."""
    return view
