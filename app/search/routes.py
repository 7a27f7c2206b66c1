"""The search page: one query over notes and questions, results in two groups."""

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from app.accounts.dependencies import load_viewer
from app.content import queries as content_queries
from app.search.dependencies import SearchParamsDep, SearchResultsDep
from app.web.dependencies import CacheDep
from app.web.templating import render_page

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])


@router.get("/search", name="search")
async def search_page(
    request: Request, params: SearchParamsDep, results: SearchResultsDep, cache: CacheDep
) -> HTMLResponse:
    """Search notes and questions, with the matched words highlighted."""
    topics = await cache.get("topics", content_queries.topics_list)
    context = {"params": params, "results": results, "topics": topics}
    version = cache.version  # the search cache's too, unless one has not seen it yet
    same = version == request.app.state.search_cache.version
    return render_page(request, "search/search.html", context, version=version if same else None)
