"""Pages for authors: the item statistics table, its CSV, and one question's figures.

Every control is a link or a GET form, so sorting, filtering and paging work without
JavaScript; the address holds the whole state of the table and can be shared.
"""

from dataclasses import replace
from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response

from app.accounts.dependencies import load_viewer, require_role
from app.accounts.service import Viewer
from app.content.dependencies import PageNumber, QuestionId
from app.items import service
from app.items.service import FLAGS, ItemQuery
from app.web.dependencies import DatabaseDep
from app.web.templating import render, url_for

router = APIRouter(default_response_class=HTMLResponse, dependencies=[Depends(load_viewer)])
Author = Annotated[Viewer, Depends(require_role("author"))]
FilterSlug = Annotated[str, Query(max_length=120, pattern=r"^[a-z0-9-]*$")]
FlagName = Literal[
    "", "any", "wrong-key", "too-easy", "too-hard", "negative-discrimination", "unpicked-distractor"
]
SortName = Literal["question", "topic", "responses", "facility", "discrimination", "time", "flags"]


def item_query(
    source: Literal["exam", "practice"] = "exam",
    set: FilterSlug = "",
    topic: FilterSlug = "",
    flag: FlagName = "",
    sort: SortName = "question",
    dir: Literal["asc", "desc"] = "asc",
    page: PageNumber = 1,
) -> ItemQuery:
    """Read the table's filters, order and page from the address."""
    return ItemQuery(source, set, topic, flag, sort, dir == "desc", page)


ItemQueryDep = Annotated[ItemQuery, Depends(item_query)]
_DEFAULTS = {"source": "exam", "set": "", "topic": "", "flag": "", "sort": "question", "dir": "asc"}


def query_string(query: ItemQuery, **changes: object) -> str:
    """The address parameters of the query with changes, leaving out the defaults."""
    q = replace(query, **changes)  # type: ignore[arg-type]
    params = {
        "source": q.source,
        "set": q.set,
        "topic": q.topic,
        "flag": q.flag,
        "sort": q.sort,
        "dir": "desc" if q.descending else "asc",
        "page": q.page,
    }
    return urlencode({k: v for k, v in params.items() if v != _DEFAULTS.get(k, 1)})


@router.get("/author/items", name="items")
async def item_table(
    request: Request, viewer: Author, db: DatabaseDep, query: ItemQueryDep
) -> HTMLResponse:
    """Show every question's figures and flags, as a table to sort, filter and page through."""
    view = await db.read(service.item_page, query)

    def href(**changes: object) -> str:
        found = query_string(query, **changes)
        return url_for("items") + (f"?{found}" if found else "")

    found = query_string(query, page=1)
    csv_href = url_for("items_csv") + (f"?{found}" if found else "")
    context = {
        "view": view,
        "query": query,
        "flags": FLAGS,
        "href": href,
        "csv_href": csv_href,
        "sorts": service.SORTS,
    }
    return render(request, "items/items.html", context)


@router.get("/author/items.csv", name="items_csv")
async def item_csv(viewer: Author, db: DatabaseDep, query: ItemQueryDep) -> Response:
    """Download the table's rows (every page) as CSV."""
    text = await db.read(service.item_csv, query)
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={
            "content-disposition": f'attachment; filename="items-{query.source}.csv"',
            "cache-control": "no-store",
        },
    )


@router.get("/author/items/{question_id}", name="item")
async def item_detail(
    request: Request, question_id: QuestionId, viewer: Author, db: DatabaseDep
) -> HTMLResponse:
    """Show one question's figures, its choices with their shares, and its flags explained."""
    item = await db.read(service.question_statistics, question_id)
    context = {"item": item, "flags": FLAGS, "thresholds": service.THRESHOLDS}
    return render(request, "items/item.html", context)
