"""The session a practice answer runs in: one unit of work for the whole request."""

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.accounts.dependencies import CurrentViewer


def get_answer_session(request: Request, viewer: CurrentViewer) -> Iterator[Session]:
    """Yield a write session when a learner is logged in (the answer is kept), else a read one.

    Guests' checks only read, so they never queue for SQLite's write lock. Like every write
    session, it commits when the route returns, before the response is sent.
    """
    db = request.app.state.db
    factory = db.write_sessions if viewer is not None else db.read_sessions
    with factory() as session:
        yield session
        session.commit()


AnswerSessionDep = Annotated[Session, Depends(get_answer_session, scope="function")]
