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
    # Kept per query while the search cache hands out the same results (both caches empty
    # together when the content changes, topics included).
    page = "search/search.html"
    return render_page(request, page, context, source=results, key=None, by_query=True)
