"""The search's parameters, shared by the page and the API, and running a search."""

from dataclasses import dataclass
from functools import partial
from typing import Annotated, Literal

from fastapi import Depends, Query, Request

from app.search import service
from app.search.read_models import SearchResults
from app.web.cache import ContentCache

# Results a group shows when both groups are shown: the best few of each, with the questions
# close under the notes, and a link to the rest of a group.
PAGE_LIMIT = 10
KIND_LIMIT = 50  # when one kind is asked for


@dataclass(frozen=True)
class SearchParams:
    q: str
    topic: str | None
    type: str

    @property
    def kind(self) -> str | None:
        return None if self.type == "all" else self.type


async def search_params(
    q: Annotated[
        str,
        Query(
            description=(
                "Words or quoted phrases, all of which must match; a word ending in * is a "
                "prefix. Any text is accepted: operators and punctuation are searched as words."
            )
        ),
    ] = "",
    topic: Annotated[
        str | None, Query(description="Only this topic (by slug) and its subtopics")
    ] = None,
    type: Annotated[
        Literal["all", "notes", "questions"], Query(description="Which kind of result")
    ] = "all",
) -> SearchParams:
    """Read the search from the address (async: a sync dependency costs a thread hop)."""
    return SearchParams(q, topic or None, type)


SearchParamsDep = Annotated[SearchParams, Depends(search_params)]


async def run_search(request: Request, params: SearchParamsDep) -> SearchResults:
    """Search off the event loop, or answer from the worker's search cache.

    Results are the same for everyone and change only with the content (the cache follows
    the content version), so a query asked again costs no index work.
    """
    limit = PAGE_LIMIT if params.kind is None else KIND_LIMIT
    work = partial(
        service.search, query=params.q, topic=params.topic, kind=params.kind, limit=limit
    )
    cache: ContentCache = request.app.state.search_cache
    return await cache.get(("search", params.q, params.topic, params.kind), work)


SearchResultsDep = Annotated[SearchResults, Depends(run_search)]
