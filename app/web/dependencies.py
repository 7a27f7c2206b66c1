"""Dependencies shared by pages and the API: the database runner and the content cache.

Routes reach the database through `DatabaseDep` only: `await db.read(queries.fn, ...)` and
`await db.write(service.fn, ...)` (see `app.db.runner`).
"""

from typing import Annotated

from fastapi import Depends, Request

from app.db import Database
from app.web.cache import ContentCache


async def get_db(request: Request) -> Database:
    return request.app.state.db


async def get_cache(request: Request) -> ContentCache:
    return request.app.state.cache


DatabaseDep = Annotated[Database, Depends(get_db)]
CacheDep = Annotated[ContentCache, Depends(get_cache)]
