"""The base of every domain error: services raise these, the web layer maps them to responses."""


class DomainError(Exception):
    """An error a person can act on; carries the HTTP status it maps to.

    `headers` go on the response as they are; a page request (not the API) for an error with
    `page_redirect` is sent there with a 303 instead of seeing an error page.
    """

    status_code = 400

    def __init__(
        self,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        page_redirect: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.headers = headers or {}
        self.page_redirect = page_redirect


class NotFound(DomainError):
    status_code = 404


class Unavailable(DomainError):
    """The database is busy or away for a moment; the request may be sent again."""

    status_code = 503

    def __init__(self, message: str, retry_after_s: int = 2) -> None:
        super().__init__(message, headers={"retry-after": str(retry_after_s)})
