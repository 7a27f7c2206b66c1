"""Dependencies shared by pages and the API."""

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.db import Database
from app.web.cache import ContentCache


def get_db(request: Request) -> Database:
    return request.app.state.db


def get_session(request: Request) -> Iterator[Session]:
    """Yield a read session for the request (writes commit explicitly in their route)."""
    with request.app.state.db.read_sessions() as session:
        yield session


def get_write_session(request: Request) -> Iterator[Session]:
    """Yield a session that takes SQLite's write lock up front; the route commits it."""
    with request.app.state.db.write_sessions() as session:
        yield session


async def get_cache(request: Request) -> ContentCache:
    return request.app.state.cache


SessionDep = Annotated[Session, Depends(get_session)]
WriteSessionDep = Annotated[Session, Depends(get_write_session)]
CacheDep = Annotated[ContentCache, Depends(get_cache)]
