"""Errors the content services raise."""

from app.errors import DomainError, NotFound

__all__ = ["ContentConflict", "ContentError", "InvalidAnswer", "InvalidContent", "NotFound"]


class ContentError(DomainError):
    status_code = 400


class InvalidAnswer(ContentError):
    status_code = 422


class InvalidContent(ContentError):
    """Content that cannot be stored; line points into the document it came from."""

    status_code = 422

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


class ContentConflict(ContentError):
    """A change that does not fit the content as it is (say, deciding on a catalog's link)."""

    status_code = 409
