"""Errors the progress services raise."""

from app.errors import DomainError


class UnknownWalk(DomainError):
    """A walk's address names a topic or set that does not exist: the address is not valid."""

    status_code = 422
