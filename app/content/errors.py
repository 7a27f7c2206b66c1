"""Errors the content services raise; each carries the HTTP status it maps to."""


class ContentError(Exception):
    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(ContentError):
    status_code = 404


class InvalidAnswer(ContentError):
    status_code = 422
