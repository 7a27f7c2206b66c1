"""Errors the content services raise."""

from app.errors import DomainError


class ContentError(DomainError):
    status_code = 400


class NotFound(ContentError):
    status_code = 404


class InvalidAnswer(ContentError):
    status_code = 422
