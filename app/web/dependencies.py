"""Dependencies shared by pages and the API."""

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.web.cache import ContentCache


def get_session(request: Request) -> Iterator[Session]:
    """Yield a read session for the request."""
    with request.app.state.db.read_sessions() as session:
        yield session


def get_write_session(request: Request) -> Iterator[Session]:
    """Yield the request's one write session; commit it when the route returns.

    The dependency ends before the response is sent (scope "function"), so a failed commit
    becomes an error page, never a "saved" the database does not hold. On SQLite the
    session takes the write lock up front (BEGIN IMMEDIATE) at its first statement.
    """
    with request.app.state.db.write_sessions() as session:
        yield session
        session.commit()
        if session.info.pop("content_changed", False):
            request.app.state.cache.clear()


async def get_cache(request: Request) -> ContentCache:
    return request.app.state.cache


SessionDep = Annotated[Session, Depends(get_session)]
WriteSessionDep = Annotated[Session, Depends(get_write_session, scope="function")]
CacheDep = Annotated[ContentCache, Depends(get_cache)]
