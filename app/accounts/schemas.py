"""JSON shapes of the account API."""

from pydantic import BaseModel


class ViewerOut(BaseModel):
    username: str
    role: str
    scope: str | None
