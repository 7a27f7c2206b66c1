"""The search JSON API under /api/v1."""

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from app.accounts.dependencies import load_viewer
from app.search.dependencies import SearchParamsDep, SearchResultsDep
from app.search.read_models import SearchResults
from app.search.schemas import SearchOut
from app.web.schemas import ErrorOut

# Every address holding a control character (NUL, say) is refused before any route.
REFUSED: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "The address holds a control character"}
}
router = APIRouter(
    prefix="/api/v1", tags=["search"], responses=REFUSED, dependencies=[Depends(load_viewer)]
)


@router.get("/search", response_model=SearchOut)
async def search(params: SearchParamsDep, results: SearchResultsDep) -> Response:
    """Search note sections and questions; every word or quoted phrase must match.

    Results come in two groups, best first, each with its total: up to 10 of each, or up to
    50 of the one group `type` narrows to. Any query text is accepted.
    """
    return Response(_json(params.type, results), media_type="application/json")


def _json(type_: str, results: SearchResults) -> bytes:
    body: dict[str, Any] = {
        "query": results.query,
        "terms": results.terms,
        "topic": results.topic,
        "type": type_,
        "note_total": results.note_total,
        "note_total_exact": results.note_total_exact,
        "notes": results.notes,
        "question_total": results.question_total,
        "question_total_exact": results.question_total_exact,
        "questions": results.questions,
        "ranked": results.ranked,
    }
    return SearchOut.model_validate(body).model_dump_json().encode()
