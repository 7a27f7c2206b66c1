"""Account API: who am I (by session cookie or personal API token)."""

from typing import Any

from fastapi import APIRouter

from app.accounts.dependencies import RequiredViewer
from app.accounts.schemas import ViewerOut
from app.web.schemas import ErrorOut

router = APIRouter(
    prefix="/api/v1",
    tags=["accounts"],
    responses={401: {"model": ErrorOut, "description": "Not logged in, or a bad API token"}},
)


@router.get("/me", response_model=ViewerOut)
async def me(viewer: RequiredViewer) -> dict[str, Any]:
    """Tell who the request is authenticated as, and an API token's scope (null for a session)."""
    return {"username": viewer.username, "role": viewer.role, "scope": viewer.scope}
