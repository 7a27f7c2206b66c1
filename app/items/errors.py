"""Errors the item statistics raise."""

from app.errors import DomainError, NotFound

__all__ = ["InvalidFilter", "NotFound"]


class InvalidFilter(DomainError):
    """A filter naming a set or topic that holds no question."""

    status_code = 422
