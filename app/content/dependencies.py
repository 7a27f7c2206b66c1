"""Content lookups as dependencies: each one answers "does it exist?" once for every route."""

from collections.abc import Callable
from functools import partial
from typing import Annotated

from fastapi import Depends, Path, Query, Request
from sqlalchemy.orm import Session

from app.content import queries
from app.content.errors import InvalidAnswer
from app.content.read_models import NoteView, QuestionView
from app.web.dependencies import CacheDep
from app.web.forms import INT32_MAX, whole_numbers

QuestionId = Annotated[int, Path(ge=1, le=INT32_MAX, description="Question id")]
Slug = Annotated[str, Path(min_length=1, max_length=120, pattern=r"^[a-z0-9-]+$")]
PageNumber = Annotated[int, Query(ge=1, le=100_000, description="Page of the list, from 1")]


# How many graded exam attempts and answers were judged by a question's key: content cannot
# import exams (exams import content), so the application hands it over at start-up.
KeyUses = Callable[[Session, int], int]


def key_uses_of(request: Request) -> KeyUses | None:
    """What counts the uses of a question's key, or None in an application without exams."""
    return getattr(request.app.state, "key_uses", None)


async def get_question(request: Request, question_id: QuestionId) -> QuestionView:
    """Load a question (from the cache when fresh) or answer 404."""
    # The cache is taken from the app rather than a dependency: one node fewer to solve on
    # the busiest page. A question is a few rows read by key: a brief read.
    return await request.app.state.cache.get(
        ("question", question_id), partial(queries.question, question_id=question_id)
    )


async def get_note(slug: Slug, cache: CacheDep) -> NoteView:
    """Load a note (from the cache when fresh) or answer 404."""
    return await cache.get(("note", slug), partial(queries.note, slug=slug))


# The `choice` ids a graded page reads from its address with `chosen_ids`, documented on
# the route (`openapi_extra`) rather than declared: each parameter FastAPI solves costs time.
CHOICES_IN_ADDRESS = {
    "parameters": [
        {
            "name": "choice",
            "in": "query",
            "required": False,
            "description": "The ids of the choices just checked: the page shows them graded",
            "schema": {"type": "array", "maxItems": 26, "items": {"type": "string"}},
        }
    ]
}


def chosen_ids(request: Request) -> list[int]:
    """Read the `choice` ids in the address (at most 26), or refuse them as not valid."""
    values = request.query_params.getlist("choice")
    ids = whole_numbers(values) if len(values) <= 26 else None
    if ids is None:
        raise InvalidAnswer("That answer was not valid.")
    return ids


QuestionDep = Annotated[QuestionView, Depends(get_question)]
NoteDep = Annotated[NoteView, Depends(get_note)]
