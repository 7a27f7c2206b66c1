"""Content lookups as dependencies: each one answers "does it exist?" once for every route."""

from functools import partial
from typing import Annotated

from fastapi import Depends, Path

from app.content import queries
from app.content.views import NoteView, QuestionView
from app.web.dependencies import CacheDep

QuestionId = Annotated[int, Path(ge=1, le=2_147_483_647, description="Question id")]
Slug = Annotated[str, Path(min_length=1, max_length=120, pattern=r"^[a-z0-9-]+$")]


async def get_question(question_id: QuestionId, cache: CacheDep) -> QuestionView:
    """Load a question (from the cache when fresh) or answer 404."""
    return await cache.get(
        ("question", question_id), partial(queries.question, question_id=question_id)
    )


async def get_note(slug: Slug, cache: CacheDep) -> NoteView:
    """Load a note (from the cache when fresh) or answer 404."""
    return await cache.get(("note", slug), partial(queries.note, slug=slug))


QuestionDep = Annotated[QuestionView, Depends(get_question)]
NoteDep = Annotated[NoteView, Depends(get_note)]
