"""The base of every domain error: services raise these, the web layer maps them to responses."""


class DomainError(Exception):
    """An error a person can act on; carries the HTTP status it maps to."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
