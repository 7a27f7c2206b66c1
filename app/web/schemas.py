"""JSON shapes every part of the API shares: errors and health."""

from typing import Any

from pydantic import BaseModel


class ErrorOut(BaseModel):
    detail: str


class HealthOut(BaseModel):
    status: str
    database: str
    revision: str | None = None
    expected: str


NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorOut, "description": "Not found"}}
