"""What an export request can get wrong."""

from app.errors import DomainError


class UnknownSelection(DomainError):
    """A set or topic asked for that does not exist."""

    status_code = 422


class UnknownFormat(DomainError):
    """An export format that does not exist."""

    status_code = 400


class NotExportable(DomainError):
    """Content the chosen format cannot hold."""

    status_code = 422
