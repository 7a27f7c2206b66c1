"""The search JSON API under /api/v1."""

from collections import OrderedDict
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


# The JSON of recent results, kept while the search cache hands out the same results object.
_bodies: OrderedDict[int, tuple[SearchResults, bytes]] = OrderedDict()
BODIES_LIMIT = 512


@router.get("/search", response_model=SearchOut)
async def search(params: SearchParamsDep, results: SearchResultsDep) -> Response:
    """Search note sections and questions; every word or quoted phrase must match.

    Results come in two groups, best first, each with its total: up to 10 of each, or up to
    50 of the one group `type` narrows to. Any query text is accepted.
    """
    kept = _bodies.get(id(results))
    if kept is None or kept[0] is not results:
        kept = _bodies[id(results)] = (results, _json(params.type, results))
        while len(_bodies) > BODIES_LIMIT:
            _bodies.popitem(last=False)
    _bodies.move_to_end(id(results))
    return Response(kept[1], media_type="application/json")


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
